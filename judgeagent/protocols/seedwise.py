"""The steps the kin systems' protocols share: one unit per seed question, each with a
knowledge path long enough for the protocol's windows, and one record per seed.

A subclass of :class:`SeedProtocol` says how one seed is interviewed (``interview``, which
returns its record) and what its records add up to (``figures``); the engine runs the rest.
What a subclass needs beyond the seeds it says by overriding, typed, never by what its
options happen to hold: ``path_length`` (a knowledge path per seed), ``generation`` (the
options its follow-ups are written with, through the quality gate) and ``guarded`` (the
options of the leakage guard its advice goes through). The gate and the guard are the
protocol's declared services, built when those say so.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from judgeagent.batches import Batch
from judgeagent.config import GenerationOptions, GuardOptions, SeedOptions
from judgeagent.data.benchmark import Benchmark
from judgeagent.engine.protocol import Figures, Protocol, split_seeds
from judgeagent.engine.services import RunServices, Service
from judgeagent.records import FollowUpRecord, SeedUnitRecord
from judgeagent.stages.followup import FollowUpWriter
from judgeagent.stages.models import Models
from judgeagent.stages.planning import NO_PLAN, Head, PathLength, Plan, Setting, plan_batches, record_head

if TYPE_CHECKING:
    from _typeshed import DataclassInstance

    from judgeagent.llm.registry import ModelSpec
    from judgeagent.stages.gate import QualityGate
    from judgeagent.stages.leakage import LeakGuard

SETTING = Setting("full")  # the path is planned as in a full interview: from the seeds' entities

Opts = TypeVar("Opts", bound=SeedOptions)
Rec = TypeVar("Rec", bound=SeedUnitRecord)


@dataclass
class Parts(Generic[Opts]):
    """The shared parts one seed is interviewed with."""

    options: Opts
    seed: int
    models: Models
    bench: Benchmark
    plan: Plan  # the unit's graph plan (its knowledge path, when the protocol has one)
    head: Head  # what the unit's record starts with: the seed and its graph match
    gate: QualityGate | None  # the run's quality gate, when the protocol writes follow-ups over a graph
    guard: LeakGuard | None  # the leakage guard, when the protocol shows advice
    evaluator: ModelSpec | None = None  # a third role's model (KIEval's evaluator), when the protocol has one

    def writer(self, unit: Batch, options: GenerationOptions) -> FollowUpWriter:
        """Writes the seed's follow-ups from its planned path through the gate."""
        return FollowUpWriter.for_batch(self.models, self.bench, unit, self.plan.path, hops=options.hops, tries=options.generation_tries,
                                        seed=self.seed, gate=self.gate)


class SeedProtocol(Protocol[Opts, Rec]):
    """A protocol whose unit is one seed question."""

    def __init__(self) -> None:
        self.plans: dict[str, Plan] = {}  # unit id → its plan
        self.gate = Service("quality gate", self.quality_gate)
        self.guard = Service("leakage guard", self.leakage_guard)

    # ------------------------------------------------------------------ what a subclass needs
    def path_length(self, options: Opts, seed: int) -> PathLength | None:
        """How long each seed's knowledge path is (None: the protocol needs no graph)."""
        return None

    def generation(self, options: Opts) -> GenerationOptions | None:
        """The options its follow-ups are written with (None: it writes none)."""
        return None

    def guarded(self, options: Opts) -> GuardOptions | None:
        """The leakage guard's options, when the protocol shows the target advice."""
        return None

    def followups(self, record: Rec) -> Sequence[FollowUpRecord]:
        """The follow-ups a finished record asked (a resumed run's gate rejects copies of them)."""
        return ()

    def needs_graph(self, options: Opts) -> bool:
        return self.path_length(options, 0) is not None

    # ------------------------------------------------------------------ the steps
    def units(self, run: RunServices[Opts, Rec]) -> list[Batch]:
        return split_seeds(run.batches)

    async def plan(self, run: RunServices[Opts, Rec], todo: list[Batch]) -> None:
        """Each unit's plan, with a path long enough for the protocol's windows; no graph at
        all when the protocol needs none."""
        length = self.path_length(run.options, run.seed)
        if length is None:
            self.plans = {u.id: NO_PLAN for u in todo}
            return
        from judgeagent.graph import SpacyExtractor

        graph = run.ensure_graph()
        plans = plan_batches(graph, SpacyExtractor(), run.units, [(SETTING, u) for u in todo], length)
        self.plans = {uid: plan for (_, uid), plan in plans.items()}

    def services(self, options: Opts) -> tuple[Service[Any], ...]:
        """The quality gate and the leakage guard (each None when the protocol has no use for it)."""
        return (self.gate, self.guard)

    def quality_gate(self, run: RunServices[Opts, Rec]) -> QualityGate | None:
        """The run's quality gate, when the protocol writes questions over a graph, primed
        with the follow-ups the seeds finished before accepted."""
        from judgeagent.stages.gate import make_gates

        gen = self.generation(run.options)
        if run.graph is None or gen is None:
            return None
        done = [(r.setting, self.followups(r)) for r in run.done]
        return make_gates(gen, [SETTING.name], run.bench, run.models, run.embedder(), done).get(SETTING.name)

    def leakage_guard(self, run: RunServices[Opts, Rec]) -> LeakGuard | None:
        """The leakage guard, when the protocol shows the target advice."""
        from judgeagent.stages.leakage import LeakGuard

        options = self.guarded(run.options)
        return LeakGuard.of(run.models, run.embedder(), options) if options is not None else None

    def prime(self, run: RunServices[Opts, Rec], todo: list[Batch]) -> None:
        """The seeds' vectors the leakage guard compares with, embedded in one pass."""
        from judgeagent.stages.leakage import prime_guard

        prime_guard(run.embedder(), [q for u in todo for q in u.questions])

    async def ask_unit(self, run: RunServices[Opts, Rec], unit: Batch) -> None:
        plan = self.plans[unit.id]
        parts = Parts(run.options, run.seed, run.models, run.bench, plan, record_head(unit, plan), run.service(self.gate), run.service(self.guard),
                      run.roles.get("evaluator"))
        run.append(await self.interview(unit, parts))

    async def interview(self, unit: Batch, parts: Parts[Opts]) -> Rec:
        """Interview one seed; returns its record (``parts.head`` and the protocol's own part)."""
        raise NotImplementedError

    def figures(self, records: list[Rec], options: Opts) -> DataclassInstance:
        """The protocol's figures from its records alone (pure): a dataclass, which
        metrics.json holds under the protocol's name."""
        raise NotImplementedError

    def metrics(self, run: RunServices[Opts, Rec], records: list[Rec]) -> Figures:
        m: Figures = {"protocol": self.name, "n_questions": sum(len(r.seed) for r in records), self.name: asdict(self.figures(records, run.options))}
        return m | dict(run.bookkeeping({r.batch_id for r in records}))

