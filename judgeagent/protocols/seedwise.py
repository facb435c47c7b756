"""The steps the kin systems' protocols share: one unit per seed question, each with a
knowledge path long enough for the protocol's windows, and one record per seed.

A subclass of :class:`SeedProtocol` says how one seed is interviewed (``interview``) and what
its records add up to (``figures``); the engine runs the rest.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from judgeagent.batches import Batch
from judgeagent.engine.protocol import LeakGuard, Parts, Protocol, split_seeds
from judgeagent.engine.run import RunContext
from judgeagent.engine.setup import make_gates
from judgeagent.followup import FollowUpWriter
from judgeagent.interview import Setting, record_head
from judgeagent.planning import NO_PLAN, PathLength, plan_batches

SETTING = Setting("full")  # the path is planned as in a full interview: from the seeds' entities


class SeedProtocol(Protocol):
    """A protocol whose unit is one seed question."""

    def path_windows(self, options: Any) -> int:
        """Knowledge-path windows a unit may use (0: the protocol needs no graph)."""
        return 0

    def units(self, ctx: RunContext) -> list[Batch]:
        return split_seeds(ctx.batches)

    async def plan(self, ctx: RunContext, todo: list[Batch]) -> None:
        """Each unit's plan, with a path long enough for ``path_windows`` windows of ``hops``
        steps; no graph at all when the protocol needs none."""
        windows = self.path_windows(ctx.options)
        if windows == 0:
            ctx.state["plans"] = {u.id: dict(NO_PLAN) for u in todo}
            return
        from judgeagent.graph import SpacyExtractor

        graph = ctx.ensure_graph()
        length = PathLength(hops=ctx.options.hops, rounds=windows, seed=ctx.cfg.seed)
        plans = plan_batches(graph, SpacyExtractor(), ctx.units, [(SETTING, u) for u in todo], length)
        ctx.state["plans"] = {uid: plan for (_, uid), plan in plans.items()}

    def prime(self, ctx: RunContext, todo: list[Batch]) -> None:
        """The quality gate (when the protocol writes questions over a graph) and the leakage
        guard (when it shows advice), with the seeds' vectors embedded in one pass."""
        from judgeagent.stages.leak_judge import resolve_leak_check
        from judgeagent.stages.leakage import prime_guard

        assert ctx.models is not None
        embedder = ctx.embedding_queue()
        gates = {}
        if ctx.graph is not None and hasattr(ctx.options, "gate"):
            assert ctx.bench is not None
            gates = make_gates(ctx.options, [SETTING.name], ctx.bench, ctx.models, embedder, ctx.done)
        ctx.state["gate"] = gates.get(SETTING.name)
        prime_guard(embedder, [q for u in todo for q in u.questions])
        if hasattr(ctx.options, "leak_check"):
            mode = resolve_leak_check(ctx.options.leak_check, ctx.models.judge)
            ctx.state["guard"] = LeakGuard(ctx.models, embedder, ctx.options.leak_threshold, mode)

    async def ask_unit(self, ctx: RunContext, unit: Batch) -> None:
        assert ctx.models is not None and ctx.bench is not None
        plan = ctx.state["plans"][unit.id]
        opts = ctx.options
        writer = FollowUpWriter.for_batch(ctx.models, ctx.bench, unit, plan, hops=getattr(opts, "hops", 1),
                                          tries=getattr(opts, "generation_tries", 1), seed=ctx.cfg.seed, gate=ctx.state.get("gate"))
        parts = Parts(opts, ctx.cfg.seed, ctx.models, ctx.bench, plan, writer, ctx.state.get("guard"), ctx.roles.get("evaluator"))
        result = await self.interview(unit, parts)
        record = {"setting": SETTING.name, "protocol": self.name, **record_head(unit, plan, []), **result.to_dict()}
        record.pop("seed_answers", None)
        ctx.append(record)

    async def interview(self, unit: Batch, parts: Parts) -> Any:
        """Interview one seed; returns its record part (a dataclass with ``to_dict``)."""
        raise NotImplementedError

    def figures(self, records: list[dict], options: Any) -> Any:
        """The protocol's figures from its records alone (pure): a dataclass, which
        metrics.json holds under the protocol's name."""
        raise NotImplementedError

    def metrics(self, ctx: RunContext, records: list[dict]) -> dict:
        m = {"protocol": self.name, "n_questions": sum(len(r["seed"]) for r in records), self.name: asdict(self.figures(records, ctx.options))}
        return m | ctx.bookkeeping({r["batch_id"] for r in records})
