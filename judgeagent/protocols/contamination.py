"""The contamination probe (the JudgeAgent paper, Appendix E.1): does the target do better on
the published seed questions than on new questions about the same knowledge?

For every batch of seed questions:
1. the target answers the seeds (stage 1, as in an interview);
2. a knowledge path is planned from the seeds' entities (the full method's plan_batch), and the
   judge writes one new question per seed from successive windows of it, at the seed's
   difficulty label — or at "medium" when the benchmark has no labels, the level an
   unlabeled seed counts as in the difficulty controller;
3. the target answers the new questions in the same form (one prompt per batch; reading
   questions one at a time, each with its own passage), and they are graded.

gap = acc_seed − acc_generated, in percentage points, with a bootstrap interval that resamples
the two groups independently (they are different questions, not pairs). A large positive gap
suggests the seeds, not the knowledge, were learned. Generated questions are also harder to
answer for reasons other than contamination (new wording, judge-written distractors), so a
small gap is the meaningful null, not exactly zero.

``--protocol contamination`` (``judgeagent contamination``). Everything lands in a run folder
like an interview's: config.json, records.jsonl (one line per probed batch), journal.sqlite
(so rerunning the command resumes it), metrics.json and contamination.json (the same
figures). A batch one of whose calls brought no answer is left out of the figures and
listed, with the reason, under "incomplete"; Ctrl-C stops the probe as it stops evaluate.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from pydantic import Field
from rich.table import Table

from judgeagent.batches import Batch, together
from judgeagent.budgets import GRADING, answering
from judgeagent.config import EvalConfig, GenerationOptions
from judgeagent.data.benchmark import Benchmark, Question
from judgeagent.engine.callplan import ONE, Call, Count, RateValues, Seen, answer_call, bernoulli, binomial, phrase_judge_calls, seen_answers
from judgeagent.engine.protocol import AuditSlot, Figures, Protocol, Renderable
from judgeagent.engine.registry import register
from judgeagent.engine.services import RunOutcome, RunServices, Service
from judgeagent.metrics.stats import unpaired_gap_ci
from judgeagent.protocols.stage_plans import PATH_FOUND, SHARED_RATES, followup_answer_calls, followup_calls, seen_followups, written_ok
from judgeagent.records import AnswerRecord, FollowUpRecord, GradedSeedsRecord, Json, JsonModel, flags
from judgeagent.stages.followup import FollowUpWriter
from judgeagent.stages.gate import QualityGate, gate_summary, make_gates
from judgeagent.stages.grading import Answer, ask_batch, grade_seeds
from judgeagent.stages.models import Models
from judgeagent.stages.planning import PathLength, Plan, Setting, plan_batches, record_head

CONTAMINATION = answering("contamination", 30)  # the target answers the generated questions
PROBE = Setting("full")  # the path is planned as in a full interview: from the seeds' entities
UNLABELED = "unlabeled"
LEVEL = 0.95


def _acc(flags: Sequence[bool]) -> float | None:
    return round(100.0 * sum(map(bool, flags)) / len(flags), 4) if flags else None


def _gap_figures(seed_flags: Sequence[bool], gen_flags: Sequence[bool], *, seed: int, n_resamples: int) -> Figures:
    acc_s, acc_g = _acc(seed_flags), _acc(gen_flags)
    ci = unpaired_gap_ci(seed_flags, gen_flags, n_resamples=n_resamples, seed=seed, level=LEVEL)
    return {
        "n_seed": len(seed_flags),
        "n_generated": len(gen_flags),
        "acc_seed": acc_s,
        "acc_generated": acc_g,
        "gap": round(acc_s - acc_g, 4) if acc_s is not None and acc_g is not None else None,
        "gap_ci": list(ci) if ci is not None else None,
    }


def contamination_metrics(
    seed_flags: Sequence[bool],
    gen_flags: Sequence[bool],
    seed_labels: Sequence[str | None],
    gen_labels: Sequence[str | None],
    *,
    seed: int = 0,
    n_resamples: int = 2000,
) -> Figures:
    """Accuracies (percent), gap = acc_seed − acc_generated (points) with a 95% bootstrap CI,
    overall and per difficulty label (None → "unlabeled"). A figure with no questions is None."""
    if len(seed_flags) != len(seed_labels) or len(gen_flags) != len(gen_labels):
        raise ValueError("every correctness flag needs a label")
    out = _gap_figures(seed_flags, gen_flags, seed=seed, n_resamples=n_resamples) | {"level": LEVEL, "n_resamples": n_resamples}
    s_labels = [lab or UNLABELED for lab in seed_labels]
    g_labels = [lab or UNLABELED for lab in gen_labels]
    out["by_difficulty"] = {
        label: _gap_figures(
            [f for f, lab in zip(seed_flags, s_labels) if lab == label],
            [f for f, lab in zip(gen_flags, g_labels) if lab == label],
            seed=seed,
            n_resamples=n_resamples,
        )
        for label in sorted(set(s_labels) | set(g_labels))
    }
    return out


class GeneratedRecord(FollowUpRecord):
    """One seed's generated question (or why there is none), asked at the seed's level."""

    seed_id: str = ""
    seed_difficulty: str | None = None


class ProbeRecord(GradedSeedsRecord):
    """``--protocol contamination``: one batch's seeds and one generated question per seed."""

    generated: list[GeneratedRecord] = Field(default_factory=list)


async def probe_batch(models: Models, bench: Benchmark, batch: Batch, plan: Plan, opts: GenerationOptions, seed: int,
                      gate: QualityGate | None = None) -> ProbeRecord:
    """Seed answers and one matched generated question per seed, graded. Returns the record."""
    seed_answers = await grade_seeds(models, bench, batch)
    writer = FollowUpWriter.for_batch(models, bench, batch, plan.path, hops=opts.hops, tries=opts.generation_tries, seed=seed, gate=gate)
    items: list[GeneratedRecord] = []
    written: list[tuple[GeneratedRecord, Question, str | None]] = []  # (item, question, its passages)
    for i, seed_q in enumerate(batch.questions):
        level = seed_q.difficulty or "medium"
        followup = await writer.write(i, level, qid=f"{batch.id}-c{i + 1}")
        item = followup.record(GeneratedRecord(seed_id=seed_q.id, seed_difficulty=seed_q.difficulty, level=level, answer=None))
        items.append(item)
        if followup.question is not None:
            written.append((item, followup.question, followup.source))
    answers = await ask_generated(models, bench, [(q, src) for _, q, src in written])
    for (item, _, _), answer in zip(written, answers):
        item.answer = AnswerRecord.of(answer)
    return ProbeRecord(**record_head(batch, plan), seed_answers=[AnswerRecord.of(a) for a in seed_answers], generated=items)


async def ask_generated(models: Models, bench: Benchmark, written: list[tuple[Question, str | None]]) -> list[Answer]:
    """The target answers the generated questions (each with the passages it was written from)
    in the form it answered the seeds."""
    if bench.qtype.shows_context:
        # Each reading question needs its own passage, so they cannot share one prompt; they
        # are asked at once (one wave under --batch-api).
        asked = await together(*(ask_batch(models, bench.qtype, [q], stage=CONTAMINATION.name, context=src) for q, src in written))
        return [answers[0] for answers in asked]
    # One prompt, like the seeds were asked: the two groups differ in the questions only.
    return await ask_batch(models, bench.qtype, [q for q, _ in written], stage=CONTAMINATION.name) if written else []


def summarize(records: Sequence[ProbeRecord], *, seed: int) -> Figures:
    """contamination_metrics over the records, plus counts of generated and skipped questions."""
    seed_flags: list[bool] = []
    seed_labels: list[str | None] = []
    gen_flags: list[bool] = []
    gen_labels: list[str | None] = []
    skipped: Counter[str] = Counter()
    for rec in records:
        seed_flags += flags(rec.seed_answers)
        seed_labels += [q.difficulty for q in rec.seed]
        for item in rec.generated:
            if item.answer is None:
                skipped[item.skipped or "not asked"] += 1
                continue
            gen_flags.append(item.answer.correct)
            # Grouped with the seed it was matched to, so an unlabeled benchmark stays one group.
            gen_labels.append(item.seed_difficulty)
    m = contamination_metrics(seed_flags, gen_flags, seed_labels, gen_labels, seed=seed)
    gate = gate_summary(item for rec in records for item in rec.generated)
    return m | {"generated": len(gen_flags), "skipped": sum(skipped.values()), "skipped_reasons": dict(skipped), "gate": gate}


class ContaminationOptions(GenerationOptions):
    """The probe's settings: the seeds, their paths and the question writer."""


Run = RunServices[ContaminationOptions, ProbeRecord]


def quality_gate(run: Run) -> QualityGate | None:
    """The same quality gate as an interview's (an unsound question would widen the gap by
    itself), primed with the questions the batches finished before accepted."""
    done = [(PROBE.name, r.generated) for r in run.done]  # a probe's records hold one arm and do not name it
    return make_gates(run.options, [PROBE.name], run.bench, run.models, run.embedder(), done).get(PROBE.name)


GATE = Service("quality gate", quality_gate)


@register
class Contamination(Protocol[ContaminationOptions, ProbeRecord]):
    name = "contamination"
    title = "Contamination probe (Appendix E.1: seeds vs new questions on the same knowledge)"
    order = 40
    label = "contamination probe"
    audited_items = "generated questions"
    rates = SHARED_RATES

    def __init__(self) -> None:
        self.plans: dict[tuple[str, str], Plan] = {}

    def needs_graph(self, options: ContaminationOptions) -> bool:
        return True

    def units(self, run: Run) -> list[Batch]:
        return run.batches

    def identity(self, run: Run) -> Json:
        return run.default_identity((PROBE,)) | {"probe": "contamination"}

    def folder_name(self, run: Run) -> tuple[str, str, str]:
        return f"contamination-{run.cfg.target}", run.data_name, ""

    async def plan(self, run: Run, todo: list[Batch]) -> None:
        """One generated question per seed, from successive path windows: a path as long as
        an interview with batch_size rounds."""
        from judgeagent.graph import SpacyExtractor

        opts = run.options
        graph = run.ensure_graph()
        length = PathLength(opts.hops, opts.batch_size, run.seed)
        self.plans = plan_batches(graph, SpacyExtractor(), run.batches, [(PROBE, b) for b in todo], length)

    def services(self, options: ContaminationOptions) -> tuple[Service[Any], ...]:
        return (GATE,)

    async def ask_unit(self, run: Run, unit: Batch) -> None:
        plan = self.plans[(PROBE.name, unit.id)]
        run.append(await probe_batch(run.models, run.bench, unit, plan, run.options, run.seed, run.service(GATE)))

    def call_plan(self, run: Run, unit: Batch | None, rates: RateValues) -> list[Call]:
        """Per batch: the seed answers, one follow-up per seed written at its level through the
        gate, and the target's answers to those written (one prompt; one each for reading)."""
        if unit is None:
            return []
        bench, opts, n = run.bench, run.options, len(unit.questions)
        p_path = rates[PATH_FOUND]
        p_ok = written_ok(rates, opts.generation_tries, opts.gate)
        asked = binomial(n, p_path * p_ok)
        calls = [answer_call(bench, GRADING, unit.questions, ONE, context=unit.context), *phrase_judge_calls(bench, unit.questions, Count.fixed(n), rates, events=ONE)]
        for level in ("easy", "medium", "hard"):  # each seed's follow-up at the seed's own level, known before the run
            seeds = [q for q in unit.questions if (q.difficulty or "medium") == level]
            if seeds:
                calls += followup_calls(bench, unit, level, binomial(len(seeds), p_path), opts, rates, answer_stage=None, stand_in=seeds[0])
        any_asked = bernoulli(1 - (1 - p_ok * p_path) ** n)  # the questions written are asked at once
        if bench.qtype.shows_context:  # one prompt each, with its passages
            calls += followup_answer_calls(bench, unit, unit.questions[0], asked, rates, CONTAMINATION, hops=opts.hops, at_once=any_asked)
        else:  # one prompt with every written question, when any was
            calls.append(answer_call(bench, CONTAMINATION, unit.questions, any_asked))
            calls += phrase_judge_calls(bench, unit.questions, asked, rates, events=any_asked)
        return calls

    def observe(self, records: Sequence[ProbeRecord]) -> Iterable[Seen]:
        return [*seen_answers([a for r in records for a in r.seed_answers]), *seen_followups([g for r in records for g in r.generated])]

    def audit_slots(self, record: ProbeRecord) -> list[AuditSlot]:
        """Each question written for a seed, from the batch path's window of that seed."""
        b = record.batch_id
        return [AuditSlot(b, f"{b} question {i + 1} (for seed {g.seed_id})", i, f"{b}-c{i + 1}", g) for i, g in enumerate(record.generated)]

    def metrics(self, run: Run, records: list[ProbeRecord]) -> Figures:
        """The figures over the finished batches alone, and which batches are missing and why:
        a call that brought no answer must not read as a gap, and the reader must see that
        the figures cover part of the seeds."""
        cfg = run.cfg
        figures: Figures = {"target": cfg.target, "judge": cfg.judge, "data": run.data_name, **summarize(records, seed=cfg.seed), "n_batches": len(records)}
        return {"protocol": self.name, **figures, **run.bookkeeping({r.batch_id for r in records})}

    def outputs(self, run: Run, records: list[ProbeRecord], metrics: Figures) -> dict[str, Figures]:
        return {"contamination.json": {k: v for k, v in metrics.items() if k not in ("protocol", "timings")}}

    def headline(self, outcome: RunOutcome, cfg: EvalConfig) -> list[Renderable]:
        m = ProbeFigures.from_json(outcome.metrics)
        return [contamination_table(m, f"{cfg.target} on {Path(cfg.data).name}: contamination probe (judge: {cfg.judge})"),
                f"generated questions: {m.generated} asked, {m.skipped} skipped"]


class GapFigures(JsonModel):
    """Accuracy on the seeds and on the generated questions, and the gap between them."""

    n_seed: int = 0
    n_generated: int = 0
    acc_seed: float | None = None
    acc_generated: float | None = None
    gap: float | None = None
    gap_ci: list[float] | None = None


class ProbeFigures(GapFigures):
    """The contamination probe's metrics.json, as its headline reads it."""

    by_difficulty: dict[str, GapFigures] = Field(default_factory=dict)
    generated: int = 0
    skipped: int = 0


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{v:.1f}"


def _gap(m: GapFigures) -> str:
    if m.gap is None:
        return "–"
    ci = m.gap_ci
    return f"{m.gap:+.1f} [{ci[0]:+.1f}, {ci[1]:+.1f}]" if ci else f"{m.gap:+.1f}"


def contamination_table(result: ProbeFigures, title: str) -> Table:
    t = Table(title=title)
    for col in ("", "N seed", "ACC seed", "N gen.", "ACC gen."):
        t.add_column(col, justify="right")
    t.add_column("gap [95% CI]", justify="right", no_wrap=True)
    rows: list[tuple[str, GapFigures]] = [("all", result)]
    if set(result.by_difficulty) != {"unlabeled"}:
        rows += list(result.by_difficulty.items())
    for name, m in rows:
        t.add_row(name, str(m.n_seed), _pct(m.acc_seed), str(m.n_generated), _pct(m.acc_generated), _gap(m))
    return t
