"""``--protocol judgeagent`` (the default): the JudgeAgent interview (docs/concepts/method.md §2–§4).

Per batch: rewrite the seeds when asked (``--decontaminate``), grade them once, then
interview the batch under each arm still to do: one arm normally, the paper's four with
``--ablation`` (``judgeagent ablate``), all from the same seed answers. Finishing steps: the
judge's closing summary, and the paper's Appendix E.2 experiments when asked
(:mod:`~judgeagent.protocols.judgeagent.appendix_e2`), which run on the interview's records
and over the same journal, so they never change its figures.

The interview in this package, in reading order:

    __init__.py     this protocol: its arms, each batch's plan made up front, the services it
                    declares (a quality gate per arm, the leakage guard), one batch's steps,
                    the closing summary and the figures
    options.py      its flags (one pydantic model) and its arms (the paper's ablation)
    interview.py    one batch under one arm: extend round by round at the difficulty
                    controller's level, then the judge's feedback and the seeds re-asked with
                    its suggestions, behind the leakage guard, beside the two controls
    plan.py         the requests a batch sends, for ``--dry-run``
    appendix_e2.py  the Appendix E.2 experiments; terminal.py and report.py present the run

What it shares with other protocols are the stages it calls (:mod:`judgeagent.stages`: the
knowledge path planning, the follow-up writer, grading, feedback, the gate, the guard).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from judgeagent.batches import Batch, batch_seed
from judgeagent.blocks import Section
from judgeagent.config import EvalConfig
from judgeagent.engine.callplan import Call, RateValues, Seen
from judgeagent.engine.protocol import AuditSlot, Figures, Protocol, Renderable
from judgeagent.engine.registry import register
from judgeagent.engine.services import FinishedRun, RunOutcome, Service
from judgeagent.metrics.summary import compute_metrics
from judgeagent.protocols.judgeagent import appendix_e2, plan, terminal
from judgeagent.protocols.judgeagent.interview import answers_from, interview_batch
from judgeagent.protocols.judgeagent.options import TABLE2, JudgeAgentOptions, Run, arms
from judgeagent.records import InterviewRecord, Json, RewriteRecord
from judgeagent.stages.decontaminate import Rewrite, decontaminate
from judgeagent.stages.grading import grade_seeds
from judgeagent.stages.planning import PathLength, Plan, Setting, plan_batches

if TYPE_CHECKING:
    from judgeagent.stages.gate import QualityGate
    from judgeagent.stages.leakage import LeakGuard

__all__ = ["JudgeAgent", "JudgeAgentOptions"]


def quality_gates(run: Run) -> dict[str, QualityGate]:
    """One quality gate per arm, primed with the follow-ups the batches finished before
    accepted; none when no arm extends (no graph) or ``--no-gate``."""
    from judgeagent.stages.gate import make_gates

    if run.graph is None:
        return {}
    done = [(r.setting, r.rounds) for r in run.done]
    return make_gates(run.options, [s.name for s in arms(run.options)], run.bench, run.models, run.embedder(), done)


def leakage_guard(run: Run) -> LeakGuard:
    """The leakage guard every re-ask's suggestions go through, with the run's settings."""
    from judgeagent.stages.leakage import LeakGuard

    return LeakGuard.of(run.models, run.embedder(), run.options)


GATES = Service("quality gates", quality_gates)
GUARD = Service("leakage guard", leakage_guard)


@register
class JudgeAgent(Protocol[JudgeAgentOptions, InterviewRecord]):
    name = "judgeagent"
    title = "JudgeAgent (Agent-as-Interviewer)"
    order = 0
    label = "interview"
    audited_items = "follow-up questions"
    audited_accuracy = "follow-up questions (the extension accuracy)"
    compare_columns = TABLE2
    interview_report = True
    rates = plan.RATES

    def __init__(self) -> None:
        # This run's state, made by plan() and prime() for ask_unit().
        self.plans: dict[tuple[str, str], Plan] = {}  # (arm, batch id) → its plan
        self.first: dict[str, InterviewRecord] = {}  # batch id → its first finished record (its seed answers are every arm's)
        self.done: set[tuple[str, str]] = set()  # (arm, batch id) finished
        self.by_arm: dict[str, Figures] = {}  # each arm's metrics, for ablation.json

    # ------------------------------------------------------------------ setup
    @staticmethod
    def arms(opts: JudgeAgentOptions) -> tuple[Setting, ...]:
        """Which modules are on, per arm; records and plans are kept per arm."""
        return arms(opts)

    def needs_graph(self, options: JudgeAgentOptions) -> bool:
        return options.rounds > 0 and any(not s.no_extension for s in self.arms(options))

    def units(self, run: Run) -> list[Batch]:
        return run.batches

    def identity(self, run: Run) -> Json:
        return run.default_identity(self.arms(run.options))

    def folder_name(self, run: Run) -> tuple[str, str, str]:
        return run.cfg.target, run.data_name, "-ablation" if run.options.ablation else ""

    def todo(self, run: Run) -> list[Batch]:
        done = {(r.setting, r.batch_id) for r in run.done}
        return [b for b in run.units if any((s.name, b.id) not in done for s in self.arms(run.options))]

    async def plan(self, run: Run, todo: list[Batch]) -> None:
        """The graph (none when no arm extends) and each (arm, batch)'s plan, made up front
        so the batches only ask models."""
        opts, arms = run.options, self.arms(run.options)
        done = {(r.setting, r.batch_id) for r in run.done}
        pending = [(s, b) for s in arms for b in run.batches if (s.name, b.id) not in done]
        extending = [s for s in arms if not s.no_extension]
        graph = run.ensure_graph() if extending and opts.rounds > 0 else None
        extractor = None
        if graph is not None and any(not s.no_graph for s in extending):
            from judgeagent.graph import SpacyExtractor

            extractor = SpacyExtractor()
        self.plans = plan_batches(graph, extractor, run.batches, pending, PathLength(opts.hops, opts.rounds, run.seed))

    def services(self, options: JudgeAgentOptions) -> tuple[Service[Any], ...]:
        """A quality gate per arm (every follow-up goes through its arm's), then the leakage guard."""
        return (GATES, GUARD)

    def prime(self, run: Run, todo: list[Batch]) -> None:
        """The seed-side texts the leakage guard compares with, embedded in one pass, off the
        batches' critical paths (the gates embedded theirs as they were built)."""
        from judgeagent.stages.leakage import prime_guard

        prime_guard(run.embedder(), [q for b in todo for q in b.questions])
        for rec in run.done:
            self.first.setdefault(rec.batch_id, rec)
        self.done = {(r.setting, r.batch_id) for r in run.done}

    # ------------------------------------------------------------------ one batch
    async def ask_unit(self, run: Run, b: Batch) -> None:
        """Rewrite the batch's seeds if asked, grade them once, and interview them under every
        arm still to do. Each finished arm is one record, written at once."""
        opts = run.options
        todo = [s for s in self.arms(opts) if (s.name, b.id) not in self.done]
        b, rewrites = await self.decontaminated(run, b)
        prior = self.first.get(b.id)
        seed_answers = answers_from(prior) if prior else await grade_seeds(run.models, run.bench, b)
        # The arms share nothing but the seed answers, so they are interviewed at once: an
        # ablation under --batch-api waits through one arm's waves, not four arms' in a row.
        # Records are written in arm order, each as soon as it and those before it are done.
        gates, guard = run.service(GATES), run.service(GUARD)
        arms = [asyncio.ensure_future(interview_batch(
            run.models, run.bench, b, self.plans[(s.name, b.id)], opts, run.seed, s, seed_answers, guard, gate=gates.get(s.name),
        )) for s in todo]  # fmt: skip
        try:
            for s, arm in zip(todo, arms):
                rec = await arm
                if rewrites is not None:
                    rec.decontamination = [RewriteRecord.model_validate(w.to_dict()) for w in rewrites]
                run.append(rec)
                self.done.add((s.name, b.id))
                self.first.setdefault(b.id, rec)
        finally:  # a failed arm leaves the batch incomplete: the others stop asking
            for arm in arms:
                arm.cancel()
            await asyncio.gather(*arms, return_exceptions=True)

    async def decontaminated(self, run: Run, b: Batch) -> tuple[Batch, list[Rewrite] | None]:
        """With ``--decontaminate``, the batch with its seeds rewritten, and the rewrites (kept
        in the record beside the originals). Journaled like every request, so a rerun
        replays the same rewrites for free."""
        mode = run.options.decontaminate
        if not mode:
            return b, None
        doc_id = b.questions[0].doc_id
        contexts = {doc_id: b.context} if b.context and doc_id else None
        seed = batch_seed(run.seed, b.id, "decontaminate")
        rewrites = await decontaminate(run.models, b.questions, run.bench.qtype, mode, seed=seed, contexts=contexts)
        return replace(b, questions=[w.question for w in rewrites]), rewrites

    # ------------------------------------------------------------------ closing steps
    async def finish(self, run: Run) -> None:
        """The judge's closing summary (once every batch is in), then Appendix E.2."""
        opts = run.options
        if run.complete and opts.summary:
            from judgeagent.stages.summary import summarize_interview

            main = self.arms(opts)[0].name
            with run.timed("summary_s"):
                recs = [r for r in run.records() if r.setting == main]
                run.write_json("summary.json", await summarize_interview(run.models, recs))
        if opts.reask_extended or opts.transfer:
            await appendix_e2.run_experiments(run)

    # ------------------------------------------------------------------ --dry-run
    def call_plan(self, run: Run, unit: Batch | None, rates: RateValues) -> list[Call]:
        """Each batch's requests under every arm still to do, and the closing summary (plan.py)."""
        return plan.closing_plan(run, rates) if unit is None else plan.batch_plan(run, unit, rates)

    def observe(self, records: Sequence[InterviewRecord]) -> Iterable[Seen]:
        return plan.observe(records)

    # ------------------------------------------------------------------ figures
    def metrics(self, run: Run, records: list[InterviewRecord]) -> Figures:
        """The main arm's figures (with Appendix E.2's, when run); each arm's for ablation.json."""
        self.by_arm = self.metrics_by_arm(run, records)
        main = self.by_arm[self.arms(run.options)[0].name]
        if run.options.reask_extended or run.options.transfer:
            main = main | appendix_e2.figures(run, main)
        return main | ({"ablation": "see ablation.json"} if run.options.ablation else {})

    def metrics_by_arm(self, run: Run, records: list[InterviewRecord]) -> dict[str, Figures]:
        """Each arm's metrics from its finished records alone (a batch left incomplete is not
        in them), with why the others are missing, and this session's usage and timings."""
        opts, out = run.options, {}
        for s in self.arms(opts):
            recs = [r for r in records if r.setting == s.name]
            m = compute_metrics(recs, eval_every_round=opts.eval_every_round, bootstrap=opts.bootstrap, seed=run.seed)
            out[s.name] = m | dict(run.bookkeeping({r.batch_id for r in recs}))
        return out

    def outputs(self, run: Run, records: list[InterviewRecord], metrics: Figures) -> dict[str, Figures]:
        if not run.options.ablation:
            return {}
        arms = self.arms(run.options)
        return {"ablation.json": {"settings": [s.name for s in arms], "metrics": self.by_arm}}

    def after(self, run: Run, records: list[InterviewRecord]) -> None:
        """The gated follow-ups and the target's answers into the graph's question bank: an
        extra write after the run, which nothing in the run reads."""
        graph = run.graph
        if graph is None or not run.has_bench:
            return
        from judgeagent.bank.fill import fill_bank

        fill_bank(run.cfg.graph_dir(), run.folder.path, records, qtype=run.bench.qtype.value,
                  graph_hash=graph.manifest.get("input_hash"), data=run.bench.name, target=run.target, judge=run.judge)

    # ------------------------------------------------------------------ presenting
    def headline(self, outcome: RunOutcome, cfg: EvalConfig) -> list[Renderable]:
        return terminal.headline(outcome, cfg)

    def compare_values(self, metrics: Json) -> dict[str, float | None]:
        return terminal.compare_values(metrics)

    def headline_figures(self, metrics: Json) -> dict[str, float | None]:
        return terminal.headline_figures(metrics)

    # ------------------------------------------------------------------ auditing
    def audit_slots(self, record: InterviewRecord) -> list[AuditSlot]:
        """Each round that wrote a follow-up (its question, or why there was none)."""
        b = record.batch_id
        return [AuditSlot(b, f"{b} round {rd.round}", rd.round - 1, f"{b}-r{rd.round}", rd) for rd in record.rounds]

    def report_sections(self, run: FinishedRun[InterviewRecord]) -> list[Section]:
        from judgeagent.protocols.judgeagent.report import appendix_e2_sections

        return appendix_e2_sections(run)
