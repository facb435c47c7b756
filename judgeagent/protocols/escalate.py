"""``--protocol escalate``: MACEval's escalation until failure.

Per seed question, follow-ups are written from the seed's own knowledge path, one window
after another (the same writer and quality gate as the JudgeAgent interview): first at Easy;
a right answer moves up one level (Easy → Medium → Hard), a wrong one is retried at the same
level with the next window. It ends when the target fails twice at a level, holds Hard, or
the path runs out. Reported: the highest level held per seed and ACC-AUC
(:mod:`judgeagent.metrics.escalation`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from pydantic import Field

from judgeagent.batches import Batch
from judgeagent.blocks import DASH, Heading, Section, Table, TableBlock, pct
from judgeagent.budgets import answering
from judgeagent.config import EvalConfig, GenerationOptions
from judgeagent.data.benchmark import Question
from judgeagent.engine.callplan import SEED_ACCURACY, Call, Count, RateValues, Seen
from judgeagent.engine.protocol import AuditSlot, Renderable
from judgeagent.engine.registry import register
from judgeagent.engine.services import FinishedRun, RunOutcome, RunServices
from judgeagent.metrics.escalation import LEVELS, EscalationFigures, escalation_metrics
from judgeagent.protocols.seedwise import Parts, SeedProtocol
from judgeagent.protocols.stage_plans import PATH_FOUND, SHARED_RATES, followup_calls, seen_followups, written_ok
from judgeagent.records import AnswerRecord, FollowUpRecord, Json, RoundRecord, SeedUnitRecord, read_figures
from judgeagent.stages.grading import Answer, ask_batch
from judgeagent.stages.planning import PathLength

FAILS_PER_LEVEL = 2
ESCALATE = answering("escalate", 15)  # the target answers a rung's question


class EscalationRecord(SeedUnitRecord):
    """One seed's escalation: its rungs in order, the highest level held, why it ended."""

    question_id: str = ""
    rounds: list[RoundRecord] = Field(default_factory=list)  # each asked (or skipped) follow-up, in order
    held: str | None = None  # the highest level answered right
    end: str = ""  # why it ended


@dataclass
class Ladder:
    """Where a seed's escalation stands: the level, failures at it, the next path window."""

    level: int = 0
    fails: int = 0
    window: int = 0

    def step(self, right: bool) -> str | None:
        """Move by one answer; returns why the escalation ends, if it does."""
        if right:
            self.level, self.fails = self.level + 1, 0
            return "held every level" if self.level == len(LEVELS) else None
        self.fails += 1
        return f"failed twice at {LEVELS[self.level]}" if self.fails >= FAILS_PER_LEVEL else None


class EscalateOptions(GenerationOptions):
    """MACEval's escalation: the seed questions, their paths and the question writer."""


Run = RunServices[EscalateOptions, EscalationRecord]
WINDOWS = len(LEVELS) * FAILS_PER_LEVEL  # the most questions one seed can be asked


@register
class Escalate(SeedProtocol[EscalateOptions, EscalationRecord]):
    name = "escalate"
    title = "MACEval (escalation until failure, ACC-AUC)"
    order = 30
    audited_items = "escalation questions"
    compare_columns = (("ACC-AUC (norm.)", "escalate_auc"), ("held Hard", "escalate_hard"))
    rates = SHARED_RATES

    def path_length(self, options: EscalateOptions, seed: int) -> PathLength:
        return PathLength(options.hops, WINDOWS, seed)

    def generation(self, options: EscalateOptions) -> GenerationOptions:
        return options

    def followups(self, record: EscalationRecord) -> Sequence[FollowUpRecord]:
        return record.rounds

    async def interview(self, unit: Batch, parts: Parts[EscalateOptions]) -> EscalationRecord:
        seed = unit.questions[0]
        out = EscalationRecord(setting="full", protocol=self.name, **parts.head, question_id=seed.id, rounds=[], held=None, end="")
        ladder, writer = Ladder(), parts.writer(unit, parts.options)
        while not out.end:
            if writer.path is None or ladder.window + parts.options.hops > len(writer.path.steps):
                out.end = "the path ran out"
                break
            level = LEVELS[ladder.level]
            followup = await writer.write(ladder.window, level, qid=f"{unit.id}-e{ladder.window + 1}")
            ladder.window += 1
            rec = followup.record(RoundRecord(round=ladder.window, level=level))
            out.rounds.append(rec)
            if followup.question is None:
                continue  # no question: neither held nor failed; the next window is tried
            answer = await ask(parts, followup.question, followup.source)
            rec.answer = AnswerRecord.of(answer)
            if answer.correct:
                out.held = level
            out.end = ladder.step(answer.correct) or ""
        return out

    def call_plan(self, run: Run, unit: Batch | None, rates: RateValues) -> list[Call]:
        """Per seed: the ladder's windows, each a follow-up written through the gate, and its
        questions asked (``ladder`` counts both exactly, from the chance a window gives a
        question and the chance the target gets one right)."""
        if unit is None:
            return []
        opts = run.options
        p_question = rates[PATH_FOUND] * written_ok(rates, opts.generation_tries, opts.gate)
        windows, asked = ladder(p_question, rates[SEED_ACCURACY], len(LEVELS), FAILS_PER_LEVEL, WINDOWS)
        return followup_calls(run.bench, unit, "mixed", windows, opts, rates, answer_stage=ESCALATE, asked=asked)

    def audit_slots(self, record: EscalationRecord) -> list[AuditSlot]:
        """Each step of the ladder that wrote a question."""
        b = record.batch_id
        return [AuditSlot(b, f"{b} step {rd.round}", rd.round - 1, f"{b}-e{rd.round}", rd) for rd in record.rounds]

    def observe(self, records: Sequence[EscalationRecord]) -> Iterable[Seen]:
        """The follow-ups' rates; a rung's answer stands in for a seed's accuracy."""
        rungs = [rd for r in records for rd in r.rounds]
        answered = [rd.answer for rd in rungs if rd.answer is not None]
        return [*seen_followups(rungs), Seen(SEED_ACCURACY, sum(a.correct for a in answered), len(answered))]

    def figures(self, records: list[EscalationRecord], options: EscalateOptions) -> EscalationFigures:
        return replace(
            escalation_metrics([r.held for r in records]),
            asked=sum(1 for r in records for rd in r.rounds if rd.answer),
            skipped=sum(1 for r in records for rd in r.rounds if not rd.answer),
            ends=_counts(r.end for r in records),
        )

    def headline(self, outcome: RunOutcome, cfg: EvalConfig) -> list[Renderable]:
        e = read_figures(EscalationFigures, outcome.metrics[self.name])
        by_level = ", ".join(f"{k} {v:.1f}%" for k, v in e.acc_by_level.items())
        return [f"ACC-AUC {e.acc_auc:.3f} level units, {e.acc_auc_normalised or 0:.3f} normalised; highest level held: {e.highest_level_held or 'none'}",
                f"held by level: {by_level}; {e.asked} follow-ups asked, {e.skipped} skipped"]

    def compare_values(self, metrics: Json) -> dict[str, float | None]:
        e = read_figures(EscalationFigures, metrics.get(self.name) or {})
        auc = e.acc_auc_normalised
        return {"escalate_auc": None if auc is None else 100.0 * auc, "escalate_hard": e.acc_by_level.get("hard")}

    def report_sections(self, run: FinishedRun[EscalationRecord]) -> list[Section]:
        return escalate_sections(run)


async def ask(parts: Parts[EscalateOptions], question: Question, source: str | None) -> Answer:
    context = source if parts.bench.qtype.shows_context else None
    (answer,) = await ask_batch(parts.models, parts.bench.qtype, [question], stage=ESCALATE.name, context=context)
    return answer


def _counts(items: Iterable[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for x in items:
        out[x] = out.get(x, 0) + 1
    return out


def ladder(p_question: float, p_right: float, levels: int, fails_per_level: int, windows: int) -> tuple[Count, Count]:
    """MACEval's escalation, exactly: (windows used, questions asked). Each window gives a
    question with ``p_question`` (else it is skipped); a right answer (``p_right``) moves up a
    level, ``fails_per_level`` wrong ones at a level end it, so does holding the top level
    or running out of ``windows``."""
    asked_dist: dict[tuple[int, int, int], float] = {(0, 0, 0): 1.0}  # (level, fails, asked) → prob
    ended: dict[tuple[int, int], float] = {}  # (windows used, asked) → prob
    for w in range(windows):
        nxt: dict[tuple[int, int, int], float] = {}
        for (lv, fails, asked), pr in asked_dist.items():
            outcomes = [((lv, fails, asked), 1 - p_question), ((lv + 1, 0, asked + 1), p_question * p_right),
                        ((lv, fails + 1, asked + 1), p_question * (1 - p_right))]
            for (nl, nf, na), q in outcomes:
                if q <= 0:
                    continue
                if nl >= levels or nf >= fails_per_level:
                    ended[(w + 1, na)] = ended.get((w + 1, na), 0.0) + pr * q
                else:
                    nxt[(nl, nf, na)] = nxt.get((nl, nf, na), 0.0) + pr * q
        asked_dist = nxt
    for (_, _, na), pr in asked_dist.items():
        ended[(windows, na)] = ended.get((windows, na), 0.0) + pr

    def count(values: dict[int, float]) -> Count:
        mean = sum(k * p for k, p in values.items())
        var = sum(k * k * p for k, p in values.items()) - mean**2
        seen = [k for k, p in values.items() if p > 1e-9]
        return Count(mean, max(0.0, var), float(min(seen)), float(max(seen)))

    w_dist: dict[int, float] = {}
    a_dist: dict[int, float] = {}
    for (w, a), p in ended.items():
        w_dist[w] = w_dist.get(w, 0.0) + p
        a_dist[a] = a_dist.get(a, 0.0) + p
    return count(w_dist), count(a_dist)


# ----------------------------------------------------------------------------- report
def escalate_sections(run: FinishedRun[EscalationRecord]) -> list[Section]:
    e = read_figures(EscalationFigures, run.metrics.get("escalate") or {})
    by = e.acc_by_level
    table = Table(["ACC-AUC (levels)", "ACC-AUC (normalised)", "highest level held", *(f"held {lv} %" for lv in by)],
                  [[f"{e.acc_auc:.3f}", f"{e.acc_auc_normalised or 0:.3f}", str(e.highest_level_held or "none"), *(pct(v) for v in by.values())]],
                  numeric=set(range(3 + len(by))))
    rows = [[r.batch_id, str(r.held or "none"), " → ".join(f"{rd.level} {_mark(rd)}" for rd in r.rounds) or DASH, r.end] for r in run.records]
    blocks = [TableBlock(table, "ACC(t): share of seeds that held level t (answered one of its questions right). ACC-AUC: trapezoids between levels up to the first level at 0, "
                                "in level units and divided by the span of the levels."),
              Heading("Highest level held per seed"), TableBlock(Table(["seed", "held", "ladder", "ended"], rows))]
    return [Section("Escalation", "escalation", blocks)]


def _mark(rd: RoundRecord) -> str:
    if rd.answer is None:
        return "skipped"
    return "✓" if rd.answer.correct else "✗"
