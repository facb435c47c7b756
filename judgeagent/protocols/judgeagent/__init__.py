"""``--protocol judgeagent`` (the default): the JudgeAgent interview (method.md §2–§4).

Per batch: rewrite the seeds when asked (``--decontaminate``), grade them once, then
interview the batch under each arm still to do: one arm normally, the paper's four with
``--ablation`` (``judgeagent ablate``), all from the same seed answers. Finishing steps: the
judge's closing summary, and the paper's Appendix E.2 experiments when asked
(:mod:`~judgeagent.protocols.judgeagent.appendix_e2`), which run on the interview's records
and over the same journal, so they never change its figures.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from pydantic import Field, model_validator

from judgeagent.batches import Batch, batch_seed
from judgeagent.config import DecontaminationMode, DifficultyConfig, GenerationOptions, GuardOptions, Level
from judgeagent.engine.callplan import Call
from judgeagent.engine.protocol import Protocol
from judgeagent.engine.run import RunContext
from judgeagent.engine.setup import make_gates
from judgeagent.interview import ABLATIONS, Setting, answers_from, grade_seeds, interview_batch
from judgeagent.metrics.summary import compute_metrics
from judgeagent.planning import PathLength, plan_batches
from judgeagent.protocols.judgeagent import appendix_e2, plan, terminal
from judgeagent.registry import register
from judgeagent.stages.decontaminate import Rewrite, decontaminate
from judgeagent.stages.grading import Answer

TABLE2 = (("ACC1", "acc1"), ("ACC2", "acc2"), ("CR", "cr"), ("CtE", "cte"))  # the paper's Table 2 columns


class JudgeAgentOptions(GenerationOptions, GuardOptions):
    """The JudgeAgent interview's settings."""

    rounds: int = Field(default=3, ge=0, description="Extension rounds per batch.")
    ablation: bool = Field(default=False, description="Run the paper's four ablation arms (full, no graph, fixed medium difficulty, no extension) on the same seed answers (`judgeagent ablate`).")
    no_graph: bool = Field(default=False, description="Ablation: path chunks drawn at random from the corpus.")
    fixed_difficulty: Level | None = Field(default=None, description="Ablation: this difficulty for every generated question.")
    no_extension: bool = Field(default=False, description="Ablation: feedback from the seed answers only.")
    eval_every_round: bool = Field(default=False, description="Feedback and validation after round 0..R (gives by_round).")
    reask_correct: bool = Field(default=False, description="Also re-ask batches the target got fully right.")
    summary: bool = Field(default=True, description="Ask the judge for the end-of-run interview summary (summary.json).")
    controls: bool = Field(default=True, description="Also re-ask with no suggestions and with a placebo suggestion.")
    bootstrap: int = Field(default=2000, ge=100, description="Bootstrap resamples for the 95% confidence intervals.")
    decontaminate: DecontaminationMode | None = Field(default=None, description="Rewrite the seed questions first, with this method.")
    reask_extended: bool = Field(default=False, description="Also re-ask the follow-up questions with the suggestions (Appendix E.2).")
    transfer: bool = Field(default=False, description="Apply source batches' suggestions to held-out seed questions (Appendix E.2).")
    difficulty: DifficultyConfig = Field(default_factory=lambda: DifficultyConfig(), description="The difficulty controller.")

    @model_validator(mode="after")
    def _one_arm_or_all(self) -> JudgeAgentOptions:
        # The ablation runs every arm; picking one beside it would be silently overridden.
        chosen = [f for f in ("no_graph", "fixed_difficulty", "no_extension") if getattr(self, f)]
        if self.ablation and chosen:
            raise ValueError(f"ablation runs every arm; {', '.join(chosen)} picks one arm of a single interview")
        return self


@register
class JudgeAgent(Protocol):
    name = "judgeagent"
    title = "JudgeAgent (Agent-as-Interviewer)"
    order = 0
    options = JudgeAgentOptions
    label = "interview"
    compare_columns = TABLE2

    # ------------------------------------------------------------------ setup
    @staticmethod
    def arms(opts: JudgeAgentOptions) -> tuple[Setting, ...]:
        """Which modules are on, per arm; records and plans are kept per arm."""
        return ABLATIONS if opts.ablation else (Setting.from_options(opts),)

    def units(self, ctx: RunContext) -> list[Batch]:
        return ctx.batches

    def identity(self, ctx: RunContext) -> dict:
        return ctx.default_identity(self.arms(ctx.options))

    def folder_name(self, ctx: RunContext) -> tuple[str, str, str]:
        return ctx.cfg.target, ctx.data_name, "-ablation" if ctx.options.ablation else ""

    def todo(self, ctx: RunContext) -> list[Batch]:
        done = {(r["setting"], r["batch_id"]) for r in ctx.done}
        return [b for b in ctx.units if any((s.name, b.id) not in done for s in self.arms(ctx.options))]

    async def plan(self, ctx: RunContext, todo: list[Batch]) -> None:
        """The graph (none when no arm extends) and each (arm, batch)'s plan, made up front
        so the batches only ask models."""
        opts, arms = ctx.options, self.arms(ctx.options)
        done = {(r["setting"], r["batch_id"]) for r in ctx.done}
        pending = [(s, b) for s in arms for b in ctx.batches if (s.name, b.id) not in done]
        extending = [s for s in arms if not s.no_extension]
        graph = ctx.ensure_graph() if extending and opts.rounds > 0 else None
        extractor = None
        if graph is not None and any(not s.no_graph for s in extending):
            from judgeagent.graph import SpacyExtractor

            extractor = SpacyExtractor()
        ctx.state["plans"] = plan_batches(graph, extractor, ctx.batches, pending, PathLength(opts.hops, opts.rounds, ctx.cfg.seed))

    def prime(self, ctx: RunContext, todo: list[Batch]) -> None:
        """The quality gates, one per arm, and the seed-side texts both the gate and the
        leakage guard compare with, embedded in one pass each, off the batches' critical paths."""
        from judgeagent.stages.leakage import prime_guard

        assert ctx.models is not None and ctx.bench is not None
        embedder = ctx.embedding_queue()
        arms = self.arms(ctx.options)
        gates = make_gates(ctx.options, [s.name for s in arms], ctx.bench, ctx.models, embedder, ctx.done) if ctx.graph is not None else {}
        ctx.state["gates"] = gates
        prime_guard(embedder, [q for b in todo for q in b.questions])
        # Each batch's first finished record, by batch id: its seed answers are every arm's.
        first: dict[str, dict] = {}
        for rec in ctx.done:
            first.setdefault(rec["batch_id"], rec)
        ctx.state["first"] = first
        ctx.state["done"] = {(r["setting"], r["batch_id"]) for r in ctx.done}

    # ------------------------------------------------------------------ one batch
    async def ask_unit(self, ctx: RunContext, b: Batch) -> None:
        """Rewrite the batch's seeds if asked, grade them once, and interview them under every
        arm still to do. Each finished arm is one record, written at once."""
        assert ctx.models is not None and ctx.bench is not None
        opts, done, first = ctx.options, ctx.state["done"], ctx.state["first"]
        todo = [s for s in self.arms(opts) if (s.name, b.id) not in done]
        b, rewrites = await self.decontaminated(ctx, b)
        seed_answers = await self.seed_answers(ctx, b, first.get(b.id))
        # The arms share nothing but the seed answers, so they are interviewed at once: an
        # ablation under --batch-api waits through one arm's waves, not four arms' in a row.
        # Records are written in arm order, each as soon as it and those before it are done.
        arms = [asyncio.ensure_future(interview_batch(
            ctx.models, ctx.bench, b, ctx.state["plans"][(s.name, b.id)], opts, ctx.cfg.seed, s, seed_answers,
            gate=ctx.state["gates"].get(s.name), embedder=ctx.embedding_queue(),
        )) for s in todo]  # fmt: skip
        try:
            for s, arm in zip(todo, arms):
                rec = await arm
                if rewrites is not None:
                    rec["decontamination"] = [w.to_dict() for w in rewrites]
                ctx.append(rec)
                done.add((s.name, b.id))
                first.setdefault(b.id, rec)
        finally:  # a failed arm leaves the batch incomplete: the others stop asking
            for arm in arms:
                arm.cancel()
            await asyncio.gather(*arms, return_exceptions=True)

    async def decontaminated(self, ctx: RunContext, b: Batch) -> tuple[Batch, list[Rewrite] | None]:
        """With ``--decontaminate``, the batch with its seeds rewritten, and the rewrites (kept
        in the record beside the originals). Journaled like every request, so a rerun
        replays the same rewrites for free."""
        mode = ctx.options.decontaminate
        if not mode:
            return b, None
        assert ctx.models is not None and ctx.bench is not None
        doc_id = b.questions[0].doc_id
        contexts = {doc_id: b.context} if b.context and doc_id else None
        seed = batch_seed(ctx.cfg.seed, b.id, "decontaminate")
        rewrites = await decontaminate(ctx.models, b.questions, ctx.bench.qtype, mode, seed=seed, contexts=contexts)
        return replace(b, questions=[w.question for w in rewrites]), rewrites

    @staticmethod
    async def seed_answers(ctx: RunContext, b: Batch, prior: dict | None) -> list[Answer]:
        """Stage 1, asked once per batch: every arm (and a resumed run) starts from the same
        seed answers."""
        assert ctx.models is not None and ctx.bench is not None
        return answers_from(prior) if prior else await grade_seeds(ctx.models, ctx.bench, b)

    # ------------------------------------------------------------------ closing steps
    async def finish(self, ctx: RunContext) -> None:
        """The judge's closing summary (once every batch is in), then Appendix E.2."""
        opts = ctx.options
        assert ctx.models is not None
        if ctx.complete and opts.summary:
            from judgeagent.stages.summary import summarize_interview

            main = self.arms(opts)[0].name
            with ctx.timed("summary_s"):
                recs = [r for r in ctx.folder.read_records() if r["setting"] == main]
                ctx.folder.write_json("summary.json", await summarize_interview(ctx.models, recs))
        if opts.reask_extended or opts.transfer:
            await appendix_e2.run_experiments(ctx)

    # ------------------------------------------------------------------ --dry-run
    def call_plan(self, ctx: RunContext, unit: Batch | None, rates: Mapping[str, float]) -> list[Call]:
        """Each batch's requests under every arm still to do, and the closing summary (plan.py)."""
        return plan.closing_plan(ctx, rates) if unit is None else plan.batch_plan(ctx, unit, rates)

    # ------------------------------------------------------------------ figures
    def metrics(self, ctx: RunContext, records: list[dict]) -> dict:
        """The main arm's figures (with Appendix E.2's, when run); each arm's for ablation.json."""
        by_arm = ctx.state["by_arm"] = self.metrics_by_arm(ctx, records)
        main = by_arm[self.arms(ctx.options)[0].name]
        if ctx.options.reask_extended or ctx.options.transfer:
            main = main | appendix_e2.figures(ctx, main)
        return main | ({"ablation": "see ablation.json"} if ctx.options.ablation else {})

    def metrics_by_arm(self, ctx: RunContext, records: list[dict]) -> dict[str, dict]:
        """Each arm's metrics from its finished records alone (a batch left incomplete is not
        in them), with why the others are missing, and this session's usage and timings."""
        opts, out = ctx.options, {}
        for s in self.arms(opts):
            recs = [r for r in records if r["setting"] == s.name]
            m = compute_metrics(recs, eval_every_round=opts.eval_every_round, bootstrap=opts.bootstrap, seed=ctx.cfg.seed)
            out[s.name] = m | ctx.bookkeeping({r["batch_id"] for r in recs})
        return out

    def outputs(self, ctx: RunContext, records: list[dict], metrics: dict) -> dict[str, dict]:
        if not ctx.options.ablation:
            return {}
        arms = self.arms(ctx.options)
        return {"ablation.json": {"settings": [s.name for s in arms], "metrics": ctx.state["by_arm"]}}

    def after(self, ctx: RunContext, records: list[dict]) -> None:
        """The gated follow-ups and the target's answers into the graph's question bank: an
        extra write after the run, which nothing in the run reads."""
        if ctx.graph is None or ctx.bench is None:
            return
        from judgeagent.bank.fill import fill_bank

        fill_bank(ctx.cfg.graph_dir(), ctx.folder.path, records, qtype=ctx.bench.qtype.value, graph_hash=ctx.graph.manifest.get("input_hash"),
                  data=ctx.bench.name, target=ctx.target, judge=ctx.judge)

    # ------------------------------------------------------------------ presenting
    def headline(self, metrics: dict, cfg: Any) -> list[Any]:
        return terminal.headline(metrics, cfg)

    def compare_values(self, metrics: dict) -> dict:
        return {key: metrics.get(key) for _, key in TABLE2}

    def report_sections(self, run: Any) -> list:
        from judgeagent.protocols.judgeagent.report import appendix_e2_sections

        return appendix_e2_sections(run)
