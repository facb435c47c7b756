"""What every driver of a protocol does the same way, behind one small interface.

Two drivers run a protocol: ``judgeagent evaluate``'s engine (:mod:`judgeagent.engine.run`)
and an Inspect task (:mod:`judgeagent.inspect.session`). Each owns what is around the units:
the asking loop and its concurrency, retries, Ctrl-C, and where finished records go (the run
folder, or Inspect's log). What happens inside is the protocol's, reached through a
:class:`Session` only, so the same code asks the same units whoever drives them::

    session = Session.open(cfg, protocol, options, target=..., judge=..., roles=...)
    session.connect(models)       # the models over the driver's client
    await session.plan(todo)      # the protocol's graph work for the units to do
    session.prime(todo)           # the services it declared built, then its own set-up
    await session.ask(unit)       # one unit; its records go to ``session.run.append``
    session.metrics(records)      # its figures, from its finished records
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from judgeagent.batches import Batch
from judgeagent.config import EvalConfig, ProtocolOptions
from judgeagent.engine import setup
from judgeagent.engine.folder import RunFolder
from judgeagent.engine.protocol import Figures, Protocol
from judgeagent.engine.services import RunServices, RunState
from judgeagent.errors import ConfigError
from judgeagent.records import UnitRecord

if TYPE_CHECKING:
    from judgeagent.llm.registry import ModelSpec
    from judgeagent.stages.models import Models

R = TypeVar("R", bound=RunServices[Any, Any])  # RunServices, or a driver's subclass (Inspect keeps the records in its log)


@dataclass
class Session(Generic[R]):
    """One protocol's run as its driver sees it: the protocol, the services its steps get, and
    the state the driver fills (the models) and reads (timings, what stopped it)."""

    protocol: Protocol[Any, Any]
    run: R
    state: RunState

    @classmethod
    def open(cls, cfg: EvalConfig, protocol: Protocol[Any, Any], options: ProtocolOptions, *, target: ModelSpec, judge: ModelSpec,
             roles: dict[str, ModelSpec], progress: bool = False, services: type[RunServices[Any, Any]] = RunServices) -> Session[Any]:  # fmt: skip
        """The run's services with the benchmark loaded (when the protocol reads one) and the
        units made; nothing asked. The run folder is the driver's to set."""
        bench = batches = None
        if protocol.needs_benchmark(options):
            bench = setup.load(cfg)
            batches = setup.seed_batches(cfg, bench, options)
        state = RunState()
        run = services(cfg, options, protocol.records, target=target, judge=judge, roles=roles, bench=bench, batches=batches or [],
                       folder=RunFolder(Path(".")), state=state, progress=progress)
        run.units = protocol.units(run)
        if not run.units:
            raise ConfigError(f"{cfg.data}: nothing to ask")
        return Session(protocol, run, state)

    def connect(self, models: Models | None) -> None:
        """The models the steps ask, over the driver's client (None once it is closed)."""
        self.state.models = models

    def todo(self) -> list[Batch]:
        """The units still to ask."""
        return self.protocol.todo(self.run)

    async def plan(self, todo: list[Batch]) -> None:
        """The protocol's graph work for the units to do, before any is asked."""
        await self.protocol.plan(self.run, todo)

    def prime(self, todo: list[Batch]) -> None:
        """The services the protocol declared, built in order, then its own set-up."""
        self.run.start_services(self.protocol.services(self.run.options))
        self.protocol.prime(self.run, todo)

    async def ask(self, unit: Batch) -> None:
        """One unit interviewed; its finished records go to ``run.append``."""
        await self.protocol.ask_unit(self.run, unit)

    def metrics(self, records: list[UnitRecord]) -> Figures:
        """The protocol's figures from its finished records."""
        return self.protocol.metrics(self.run, records)
