"""What a protocol supplies to the engine: its options, its steps, its figures, its report.

The engine (:mod:`judgeagent.engine.run`) owns the run: the folder and its resumption, the
models and their preflight, the asking loop with its concurrency and progress bar, Ctrl-C,
failed calls (the unit is left incomplete), budget and circuit-breaker stops, config.json,
metrics.json and the reports. A protocol only says what happens to one unit and what its
records add up to. It never opens a client, catches Ctrl-C or writes metrics.json itself.

A new protocol is one module in ``judgeagent/protocols/`` with a subclass of
:class:`Protocol` decorated with ``judgeagent.registry.register``, its options model (a
subclass of ``judgeagent.config.ProtocolOptions``), its prompts and its tests.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar

from judgeagent.batches import Batch
from judgeagent.config import ProtocolOptions
from judgeagent.data.benchmark import Benchmark, Question
from judgeagent.followup import FollowUpWriter
from judgeagent.stages.leakage import LeakCheck, guard_suggestions
from judgeagent.stages.models import Models

if TYPE_CHECKING:
    from judgeagent.engine.callplan import Call
    from judgeagent.engine.run import RunContext


@dataclass
class LeakGuard:
    """The leakage guard with the run's settings: checks (and if need be rewrites) an advice
    text against the questions it will be shown with."""

    models: Any
    embedder: Any
    threshold: float
    mode: str

    async def check(self, text: str, questions: list[Question]) -> LeakCheck:
        return await guard_suggestions(self.models, text, questions, embedder=self.embedder, threshold=self.threshold, mode=self.mode)


@dataclass
class Parts:
    """The shared parts one unit of a per-seed protocol is interviewed with."""

    options: Any  # the protocol's options model
    seed: int
    models: Models
    bench: Benchmark
    plan: dict  # the unit's graph plan (planning.plan_batch)
    writer: FollowUpWriter  # writes gated follow-ups from the plan's knowledge path
    guard: LeakGuard | None
    evaluator: Any = None  # ModelSpec of a third role (KIEval's evaluator), when the protocol has one


class Protocol:
    """Base class of a registered protocol. Every method has a default but ``ask_unit`` and
    ``metrics``; the engine calls them in the order of :func:`judgeagent.engine.run.run`."""

    name: ClassVar[str]
    title: ClassVar[str] = ""  # the kin system it follows, for reports and --help
    order: ClassVar[int] = 50  # where --help and `judgeagent protocols` list it
    options: ClassVar[type[ProtocolOptions]] = ProtocolOptions
    label: ClassVar[str] = ""  # the progress bar's label (default: the name)
    writes_report: ClassVar[bool] = True  # report.html / report.md (with --report, the default)
    # (label, key) pairs `compare` shows for this protocol; keys are those of compare_values().
    compare_columns: ClassVar[tuple[tuple[str, str], ...]] = ()

    # ------------------------------------------------------------------ setup, no model asked
    def roles(self, options: Any) -> dict[str, str]:
        """Model roles beyond target and judge, as {role: model name} (KIEval's evaluator)."""
        return {}

    def needs_benchmark(self, options: Any) -> bool:
        """Whether the run reads the --data benchmark (a bank run asks stored items instead)."""
        return True

    def units(self, ctx: RunContext) -> list[Batch]:
        """The run's units of work, each one line of records.jsonl once finished."""
        raise NotImplementedError

    def identity(self, ctx: RunContext) -> dict:
        """What must match for a rerun to resume a run folder instead of starting a new one."""
        return ctx.default_identity()

    def folder_name(self, ctx: RunContext) -> tuple[str, str, str]:
        """(name, data, kind) of the default run folder runs/<date>-<name>-<data><kind>."""
        return ctx.cfg.target, ctx.data_name, f"-{self.name}"

    # ------------------------------------------------------------------ inside the client
    def todo(self, ctx: RunContext) -> list[Batch]:
        """The units still to ask: those with no finished record."""
        done = {r["batch_id"] for r in ctx.done}
        return [u for u in ctx.units if u.id not in done]

    async def plan(self, ctx: RunContext, todo: list[Batch]) -> None:
        """Graph work for the units to do, before any of them is asked (none by default)."""

    def prime(self, ctx: RunContext, todo: list[Batch]) -> None:
        """Anything to set up once the plans are made (quality gates, leakage guard)."""

    async def ask_unit(self, ctx: RunContext, unit: Batch) -> None:
        """Interview one unit and hand each finished record to ``ctx.append``."""
        raise NotImplementedError

    async def finish(self, ctx: RunContext) -> None:
        """Closing steps over the finished records (a summary, an end-of-run report).
        Called unless a budget or breaker stop ended the run."""

    # ------------------------------------------------------------------ estimating (--dry-run)
    def call_plan(self, ctx: RunContext, unit: Batch | None, rates: Mapping[str, float]) -> list[Call]:
        """The requests ``unit`` will send, for ``judgeagent evaluate --dry-run``
        (:mod:`judgeagent.estimate`); ``unit`` None: the run's closing requests, sent once.

        Each :class:`~judgeagent.engine.callplan.Call` is a kind of request: its role, usage
        stage, one such request's messages from the real templates, its answer budget and
        how many of them (a random :class:`~judgeagent.engine.callplan.Count`, from
        ``rates``: the gate's pass rate, a seed's accuracy, ...). Nothing may be sent or
        loaded here. By default the target answers the unit's questions once, in one prompt.
        """
        if unit is None or not unit.questions or ctx.bench is None:
            return []
        from judgeagent.engine.callplan import ONE, answer_call

        return [answer_call(ctx.bench, "answer", unit.questions, ONE, context=unit.context)]

    # ------------------------------------------------------------------ after the client
    def metrics(self, ctx: RunContext, records: list[dict]) -> dict:
        """metrics.json from the finished records (pure apart from reading the run folder);
        the engine adds what every run reports: incomplete, llm_usage, complete, timings."""
        raise NotImplementedError

    def outputs(self, ctx: RunContext, records: list[dict], metrics: dict) -> dict[str, dict]:
        """Further JSON files of the run folder, by name (ablation.json, contamination.json)."""
        return {}

    def after(self, ctx: RunContext, records: list[dict]) -> None:
        """Writes outside the run folder once it is complete on disk (the question bank)."""

    # ------------------------------------------------------------------ presenting
    def headline(self, metrics: dict, cfg: Any) -> list[Any]:
        """What the terminal prints after a run: strings or rich renderables."""
        return []

    def compare_values(self, metrics: dict) -> dict:
        return {}

    def report_sections(self, run: Any) -> list:
        """Report sections (judgeagent.blocks.Section) for a run of this protocol."""
        return []


def split_seeds(batches: list[Batch]) -> list[Batch]:
    """One unit per seed question, named after its batch, so plans and records stay stable."""
    out: list[Batch] = []
    for b in batches:
        for i, q in enumerate(b.questions):
            out.append(Batch(len(out), f"{b.id}-q{i}", [q], b.context))
    return out
