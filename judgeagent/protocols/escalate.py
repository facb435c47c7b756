"""``--protocol escalate``: MACEval's escalation until failure.

Per seed question, follow-ups are written from the seed's own knowledge path, one window
after another (the same writer and quality gate as the JudgeAgent interview): first at Easy;
a right answer moves up one level (Easy → Medium → Hard), a wrong one is retried at the same
level with the next window. It ends when the target fails twice at a level, holds Hard, or
the path runs out. Reported: the highest level held per seed and ACC-AUC
(:mod:`judgeagent.metrics.escalation`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from typing import Any

from judgeagent.batches import Batch
from judgeagent.blocks import DASH, Heading, Section, Table, TableBlock, pct
from judgeagent.config import GenerationOptions
from judgeagent.data.benchmark import Question
from judgeagent.engine.callplan import Call, followup_calls, ladder, written_ok
from judgeagent.engine.protocol import Parts
from judgeagent.metrics.escalation import LEVELS, EscalationFigures, escalation_metrics
from judgeagent.protocols.seedwise import SeedProtocol
from judgeagent.registry import register
from judgeagent.stages.grading import Answer, ask_batch

FAILS_PER_LEVEL = 2


@dataclass
class Escalation:
    question_id: str
    rounds: list[dict] = field(default_factory=list)  # each asked (or skipped) follow-up, in order
    held: str | None = None  # the highest level answered right
    end: str = ""  # why it ended

    def to_dict(self) -> dict:
        return asdict(self)


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


@register
class Escalate(SeedProtocol):
    name = "escalate"
    title = "MACEval (escalation until failure, ACC-AUC)"
    order = 30
    options = EscalateOptions
    compare_columns = (("ACC-AUC (norm.)", "escalate_auc"), ("held Hard", "escalate_hard"))

    def path_windows(self, options: Any) -> int:
        return len(LEVELS) * FAILS_PER_LEVEL  # the most questions one seed can be asked

    async def interview(self, unit: Batch, parts: Parts) -> Escalation:
        out = Escalation(unit.questions[0].id)
        ladder, writer = Ladder(), parts.writer
        while not out.end:
            if writer.path is None or ladder.window + parts.options.hops > len(writer.path.steps):
                out.end = "the path ran out"
                break
            level = LEVELS[ladder.level]
            followup = await writer.write(ladder.window, level, qid=f"{unit.id}-e{ladder.window + 1}")
            ladder.window += 1
            rec: dict = {"round": ladder.window, "level": level, "path": followup.path, **followup.generation()}
            out.rounds.append(rec)
            if followup.question is None:
                rec.update(skipped=followup.skipped, question=None, answer=None)
                continue  # no question: neither held nor failed; the next window is tried
            answer = await ask(parts, followup.question, followup.source)
            rec.update(skipped=None, question=followup.question.to_dict(), answer=answer.to_dict())
            if answer.correct:
                out.held = level
            out.end = ladder.step(answer.correct) or ""
        return out

    def call_plan(self, ctx: Any, unit: Batch | None, rates: Mapping[str, float]) -> list[Call]:
        """Per seed: the ladder's windows, each a follow-up written through the gate, and its
        questions asked (callplan.ladder counts both exactly, from the chance a window gives
        a question and the chance the target gets one right)."""
        if unit is None:
            return []
        opts = ctx.options
        p_question = rates["path_found"] * written_ok(rates, opts.generation_tries, opts.gate)
        windows, asked = ladder(p_question, rates["seed_accuracy"], len(LEVELS), FAILS_PER_LEVEL, self.path_windows(opts))
        return followup_calls(ctx.bench, unit, "mixed", windows, opts, rates, answer_stage="escalate", asked=asked)

    def figures(self, records: list[dict], options: Any) -> EscalationFigures:
        return replace(
            escalation_metrics([r["held"] for r in records]),
            asked=sum(1 for r in records for rd in r["rounds"] if rd.get("answer")),
            skipped=sum(1 for r in records for rd in r["rounds"] if not rd.get("answer")),
            ends=_counts(r["end"] for r in records),
        )

    def headline(self, outcome: Any, cfg: Any) -> list[Any]:
        e = outcome.metrics["escalate"]
        by_level = ", ".join(f"{k} {v:.1f}%" for k, v in e["acc_by_level"].items())
        return [f"ACC-AUC {e['acc_auc']:.3f} level units, {e['acc_auc_normalised']:.3f} normalised; highest level held: {e['highest_level_held'] or 'none'}",
                f"held by level: {by_level}; {e['asked']} follow-ups asked, {e['skipped']} skipped"]

    def compare_values(self, m: dict) -> dict:
        e = m.get("escalate") or {}
        auc = e.get("acc_auc_normalised")
        return {"escalate_auc": None if auc is None else 100.0 * auc, "escalate_hard": (e.get("acc_by_level") or {}).get("hard")}

    def report_sections(self, run: Any) -> list:
        return escalate_sections(run)


async def ask(parts: Parts, question: Question, source: str | None) -> Answer:
    context = source if parts.bench.qtype.shows_context else None
    (answer,) = await ask_batch(parts.models, parts.bench.qtype, [question], stage="escalate", context=context)
    return answer


def _counts(items) -> dict:
    out: dict = {}
    for x in items:
        out[x] = out.get(x, 0) + 1
    return out


# ----------------------------------------------------------------------------- report
def escalate_sections(run: Any) -> list[Section]:
    e = run.metrics.get("escalate") or {}
    by = e.get("acc_by_level") or {}
    table = Table(["ACC-AUC (levels)", "ACC-AUC (normalised)", "highest level held", *(f"held {lv} %" for lv in by)],
                  [[f"{e.get('acc_auc', 0):.3f}", f"{e.get('acc_auc_normalised') or 0:.3f}", str(e.get("highest_level_held") or "none"), *(pct(v) for v in by.values())]],
                  numeric=set(range(3 + len(by))))
    rows = [[r["batch_id"], str(r.get("held") or "none"), " → ".join(f"{rd['level']} {'✓' if (rd.get('answer') or {}).get('correct') else ('skipped' if not rd.get('answer') else '✗')}" for rd in r["rounds"]) or DASH, r["end"]] for r in run.records]
    blocks = [TableBlock(table, "ACC(t): share of seeds that held level t (answered one of its questions right). ACC-AUC: trapezoids between levels up to the first level at 0, "
                                "in level units and divided by the span of the levels."),
              Heading("Highest level held per seed"), TableBlock(Table(["seed", "held", "ladder", "ended"], rows))]
    return [Section("Escalation", "escalation", blocks)]


