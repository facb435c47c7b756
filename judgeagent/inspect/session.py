"""One Inspect eval of a protocol: the run engine's services over Inspect's models.

A ``judgeagent evaluate`` run and an Inspect task drive a protocol through the same
:class:`~judgeagent.engine.session.Session`: ``units`` makes the samples (one per seed batch
for the JudgeAgent interview, one per seed for the per-seed protocols), ``plan`` and
``prime`` run once, at the first sample (the graph is loaded, or built as ``build-graph``
would, the knowledge paths planned for every unit exactly as the CLI plans them, and the
services the protocol declared built), then each sample is one ``ask``. What differs is
only what the driver does around them: here Inspect owns the asking loop, the concurrency
(``--max-samples``), retries, Ctrl-C and the log, and the client's one attempt is a call of
Inspect's model (:mod:`judgeagent.llm.inspect_model`).

A call that brings no answer after Inspect's retries is the sample's error, never a wrong
answer: ``inspect eval-retry`` asks that unit again. The closing steps a CLI run adds after
every unit (the judge's summary, the Interviewer's report, Appendix E.2) have no place in an
Inspect task and are not run.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

from judgeagent.batches import Batch
from judgeagent.config import EvalConfig, LLMConfig, ProtocolOptions
from judgeagent.engine.folder import RunFolder
from judgeagent.engine.options import resolve
from judgeagent.engine.protocol import Grade, Protocol
from judgeagent.engine.services import RunServices, RunState
from judgeagent.engine.session import Session
from judgeagent.errors import ConfigError
from judgeagent.llm.client import LLMClient, Transport
from judgeagent.llm.inspect_model import TARGET, Exchange, InspectTransport, inspect_spec, recording
from judgeagent.llm.registry import ModelSpec
from judgeagent.records import Json, UnitRecord
from judgeagent.stages.models import Models

JUDGE = "judge"
# Settings a CLI run has that an Inspect task leaves to Inspect, or cannot run: its closing steps.
AFTER_THE_LAST_UNIT = ("reask_extended", "transfer")


class HeldRun(RunServices[ProtocolOptions, UnitRecord]):
    """The services with finished records held in memory, by unit, for the sample that asked
    them (Inspect's log is the record of the run; no run folder is written)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.finished: dict[str, list[UnitRecord]] = {}

    def append(self, record: UnitRecord) -> None:
        self.finished.setdefault(record.unit_id, []).append(record)

    def records(self) -> list[UnitRecord]:
        return [r for recs in self.finished.values() for r in recs]


class InspectSession:
    """A protocol's units as Inspect samples, asked through Inspect's models."""

    def __init__(self, cfg: EvalConfig) -> None:
        protocol, options = resolve(cfg)
        if not protocol.needs_benchmark(options):
            raise ConfigError(f"the {protocol.name} protocol reads no benchmark: it has no Inspect task")
        if off := [k for k in AFTER_THE_LAST_UNIT if getattr(options, k, False)]:
            raise ConfigError(f"-T {off[0]}: runs after every unit is done, which an Inspect task cannot; use judgeagent evaluate")
        self.cfg, self.protocol = cfg, protocol
        self.session: Session[HeldRun] = Session.open(cfg, protocol, options, target=inspect_spec(TARGET), judge=inspect_spec(JUDGE), roles={},
                                                      services=HeldRun)
        self.run = self.session.run
        self.units = {u.id: u for u in self.run.units}
        self._lock = asyncio.Lock()
        self._ready = False

    @property
    def options(self) -> ProtocolOptions:
        return self.run.options

    def grades(self, record: UnitRecord) -> list[Grade]:
        return self.protocol.grades(record)

    async def ready(self) -> None:
        """Once, inside the first sample: the roles bound to models, the client over Inspect's
        models, the protocol's plans for every unit and the services it declared."""
        async with self._lock:
            if self._ready:
                return
            from inspect_ai.model import model_roles

            run, protocol = self.run, self.protocol
            bound = model_roles()
            run.roles = {role: inspect_spec(role) for role in protocol.extra_roles if role in bound}
            specs: list[tuple[str, ModelSpec]] = [(TARGET, run.target), (JUDGE, run.judge), *run.roles.items()]
            transports: dict[str, Transport] = {spec.identity: InspectTransport(role) for role, spec in specs}
            # Inspect retries and caches; one attempt here, and no journal of our own.
            client = LLMClient(None, LLMConfig(no_cache=True, max_attempts=1), transports=transports)
            session = self.session
            session.connect(Models(client, run.target, run.judge, seed=run.seed))
            todo = session.todo()
            if protocol.needs_graph(run.options):
                # Loading the graph, or building it as build-graph would, takes seconds to minutes:
                # in a worker thread, so Inspect's event loop (its display, its other samples) runs on.
                await asyncio.to_thread(run.ensure_graph)
            await session.plan(todo)
            session.prime(todo)
            self._ready = True

    async def ask(self, unit_id: str) -> tuple[Batch, list[UnitRecord], list[Exchange]]:
        """One unit interviewed as a CLI run interviews it: its records and every call it made."""
        await self.ready()
        unit = self.units[unit_id]
        with recording() as calls:
            await self.session.ask(unit)
        return unit, self.run.finished.pop(unit.id, []), calls


def figures(protocol: Protocol[Any, Any], options: ProtocolOptions, seed: int, records: list[UnitRecord]) -> dict[str, float]:
    """The run's figures from its finished records, by the protocol's own ``metrics`` (the
    code of a CLI run's metrics.json), as the named numbers it shows elsewhere."""
    cfg = EvalConfig(protocol=protocol.name, seed=seed, options=options.model_dump(mode="json"))
    spec = inspect_spec(TARGET)
    run: RunServices[Any, Any] = RunServices(cfg, options, protocol.records, target=spec, judge=spec, roles={}, bench=None, batches=[],
                                             folder=RunFolder(Path(".")), state=RunState())
    metrics = protocol.metrics(run, sorted(records, key=lambda r: r.batch_index))
    written: Json = json.loads(json.dumps(metrics, default=str))  # as metrics.json holds them, read back
    return {k: float(v) for k, v in protocol.headline_figures(written).items() if v is not None}
