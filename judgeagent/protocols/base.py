"""What a protocol is: a small class that interviews one unit (a seed, or a batch of seeds)
with the shared parts, and turns its records into metric fragments.

A protocol states what it needs (``unit``, ``path_windows``: how many knowledge-path windows
its plan must hold, 0 for no graph) and returns plain data: one record per unit (a dataclass
with ``to_dict``), its figures from the records alone (a dataclass, kept in metrics.json
under the protocol's name), and report sections. The run
itself, its folder, journal, budget and resume are :mod:`judgeagent.protocols.runner`'s.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Literal

from judgeagent.batches import Batch
from judgeagent.config import EvalConfig
from judgeagent.data.benchmark import Benchmark, Question
from judgeagent.followup import FollowUpWriter
from judgeagent.stages.leakage import LeakCheck, guard_suggestions
from judgeagent.stages.models import Models


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
    """The shared parts one unit is interviewed with."""

    cfg: EvalConfig
    models: Models
    bench: Benchmark
    plan: dict  # the unit's graph plan (interview.plan_batch)
    writer: FollowUpWriter  # writes gated follow-ups from the plan's knowledge path
    guard: LeakGuard
    evaluator: Any = None  # ModelSpec of a third role (KIEval's evaluator), when the protocol has one


class Protocol:
    """Base class of a registered protocol (see :func:`judgeagent.protocols.register`)."""

    name: ClassVar[str]
    title: ClassVar[str] = ""  # the kin system it follows, for reports
    unit: ClassVar[Literal["seed", "batch"]] = "seed"
    # (label, key) pairs `compare` shows for this protocol; keys are those of compare_values().
    compare_columns: ClassVar[tuple[tuple[str, str], ...]] = ()

    def path_windows(self, cfg: EvalConfig) -> int:
        """Knowledge-path windows a unit may use (0: the protocol needs no graph)."""
        return 0

    def execute(self, cfg: EvalConfig, *, progress: bool = True):
        """Run the protocol over the benchmark and write the run folder (a RunOutcome)."""
        from judgeagent.protocols.runner import run_protocol

        return run_protocol(self, cfg, progress=progress)

    async def run(self, unit: Batch, parts: Parts) -> Any:
        """Interview one unit; returns its record (a dataclass with ``to_dict``)."""
        raise NotImplementedError

    def metrics(self, records: list[dict], cfg: EvalConfig) -> Any:
        """The protocol's figures from its records alone (pure): a dataclass, which metrics.json
        holds under the protocol's name."""
        raise NotImplementedError

    async def finish(self, models: Models, folder, records: list[dict], cfg: EvalConfig) -> None:
        """A closing step over every record (an end-of-run report), inside the client."""

    def headline(self, metrics: dict) -> list[str]:
        """Lines the terminal prints after a run."""
        return []

    def compare_values(self, metrics: dict) -> dict:
        return {}

    def report_sections(self, run) -> list:
        """Report sections (judgeagent.report.document.Section) for a run of this protocol."""
        return []


def split_seeds(batches: list[Batch]) -> list[Batch]:
    """One unit per seed question, named after its batch, so plans and records stay stable."""
    out: list[Batch] = []
    for b in batches:
        for i, q in enumerate(b.questions):
            out.append(Batch(len(out), f"{b.id}-q{i}", [q], b.context))
    return out
