"""What the engine offers a protocol's steps: one small typed object, :class:`RunServices`.

A protocol (:mod:`judgeagent.engine.protocol`) never sees the engine's own state (its client,
its asking loop, its stops). Each of its steps is handed the run's services:

- facts: the run's config and the protocol's own options (typed: its options model), the
  models' specs, the benchmark, the seed batches and units, the records finished before;
- the models to ask (inside the asking only), the context graph (built or loaded on first
  use) and one embedding queue for the whole run;
- the run folder: ``append`` a finished record (the protocol's record model, written at once),
  read them back typed, write a further JSON file;
- ``timed`` to book a step's wall time in metrics.json, and the bookkeeping every
  metrics.json reports;
- the run-wide helpers the protocol declared (:class:`Service`: its quality gates, its
  leakage guard), built once the models are up, read with ``run.service(...)``.

A protocol keeps its own per-run state (its plans) as typed attributes of its own objects;
nothing is handed between steps through the engine.

Also here: :class:`RunOutcome`, what a finished run returns, and :class:`FinishedRun`, a
run folder as a protocol's report sections read it.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from judgeagent.batches import Batch
from judgeagent.config import EvalConfig, ProtocolOptions
from judgeagent.data.benchmark import Benchmark
from judgeagent.engine import setup
from judgeagent.engine.folder import RunFolder, data_name, settings_json
from judgeagent.errors import ConfigError, JudgeAgentError
from judgeagent.exits import run_status
from judgeagent.metrics.summary import incomplete_summary
from judgeagent.records import Bookkeeping, IncompleteEntry, Json, UnitRecord

if TYPE_CHECKING:  # the graph layer's types, imported when used
    from judgeagent.graph import ContextGraph
    from judgeagent.graph.embed_queue import EmbeddingQueue
    from judgeagent.llm.registry import ModelSpec
    from judgeagent.stages.models import Models

OptionsT = TypeVar("OptionsT", bound=ProtocolOptions)
RecordT = TypeVar("RecordT", bound=UnitRecord)
S = TypeVar("S")


@dataclass(frozen=True)
class Service(Generic[S]):
    """A helper every unit of a run shares (a quality gate per arm, the leakage guard), which a
    protocol declares (:meth:`~judgeagent.engine.protocol.Protocol.services`) and whoever
    drives the run builds once the models are up, just before ``prime``. The engine knows a
    service by its name only: what it is and how it is built (``build``, from the run's
    services) are the protocol's, or a stage's."""

    name: str
    build: Callable[[RunServices[Any, Any]], S]


@dataclass
class RunState:
    """What the engine keeps of the asking as it goes (the protocol reads it through the services)."""

    timings: dict[str, float] = field(default_factory=dict)
    stopped: str | None = None  # why the asking stopped early (a budget, a dead endpoint)
    stop_error: JudgeAgentError | None = None  # what stopped it, raised once the outputs are written
    incomplete: dict[str, IncompleteEntry] = field(default_factory=dict)  # unit id → a call that brought no answer
    usage: dict[str, object] = field(default_factory=dict)  # llm_usage, once the client is closed
    models: Models | None = None  # inside the asking only
    graph: ContextGraph | None = None
    embedder: EmbeddingQueue | None = None
    services: dict[str, object] = field(default_factory=dict)  # the protocol's declared services, by name, once built


class RunServices(Generic[OptionsT, RecordT]):
    """The services a protocol's steps may use for one run (see the module docstring)."""

    def __init__(self, cfg: EvalConfig, options: OptionsT, records: type[RecordT], *, target: ModelSpec, judge: ModelSpec,
                 roles: dict[str, ModelSpec], bench: Benchmark | None, batches: list[Batch], folder: RunFolder, state: RunState,
                 progress: bool = False):
        self.cfg, self.options, self.record_model = cfg, options, records
        self.target, self.judge, self.roles = target, judge, roles
        self._bench = bench
        self.batches = batches  # the seed questions in batches (none for a bank run)
        self.units: list[Batch] = []  # what the protocol's ``units`` made of them
        self.folder = folder
        self.done: list[RecordT] = []  # records finished before this session
        self.progress = progress
        self._state = state  # the engine's: what the protocol reads of it, it reads through the properties below

    # ------------------------------------------------------------------ facts
    @property
    def seed(self) -> int:
        return self.cfg.seed

    @property
    def data_name(self) -> str:
        return data_name(self.cfg)

    @property
    def bench(self) -> Benchmark:
        """The benchmark (every protocol but the bank run reads one)."""
        if self._bench is None:
            raise ConfigError("this protocol reads no benchmark")
        return self._bench

    @property
    def has_bench(self) -> bool:
        return self._bench is not None

    def default_identity(self, settings: tuple[object, ...] = ()) -> Json:
        """What must match for a rerun to resume the folder: the settings, less the output paths."""
        return settings_json(self.cfg, settings)

    def done_ids(self) -> set[str]:
        return {r.unit_id for r in self.done}

    # ------------------------------------------------------------------ models, graph
    @property
    def models(self) -> Models:
        """The models over the run's client: only while the units are asked and finished."""
        if self._state.models is None:
            raise RuntimeError("the models are asked only inside the run (ask_unit, finish)")
        return self._state.models

    @property
    def graph(self) -> ContextGraph | None:
        """The context graph, once a step has asked for it with :meth:`ensure_graph`."""
        return self._state.graph

    def ensure_graph(self) -> ContextGraph:
        """The run's context graph, loaded or built (see setup.ensure_graph)."""
        if self._state.graph is None:
            self._state.graph = setup.ensure_graph(self.cfg, self.bench, self.progress)
        return self._state.graph

    def embedder(self) -> EmbeddingQueue:
        """One queue for the whole run: gate and leakage embeddings from every unit are batched."""
        from judgeagent.graph.embed import shared_embedder
        from judgeagent.graph.embed_queue import EmbeddingQueue

        if self._state.embedder is None:
            graph = self._state.graph
            self._state.embedder = EmbeddingQueue(graph.embedder if graph is not None else shared_embedder())
        return self._state.embedder

    def start_services(self, declared: tuple[Service[Any], ...]) -> None:
        """Build the services a protocol declared, in order (one may use another's), inside
        the asking: the driver's step, before the protocol's ``prime``."""
        for s in declared:
            self._state.services[s.name] = s.build(self)

    def service(self, declared: Service[S]) -> S:
        """A service the protocol declared, as built for this run."""
        if declared.name not in self._state.services:
            raise RuntimeError(f"no service {declared.name!r}: a protocol declares it in services(), and it is built before prime()")
        return self._state.services[declared.name]  # type: ignore[return-value]  # stored by start_services from the same declaration

    # ------------------------------------------------------------------ the run folder
    def append(self, record: RecordT) -> None:
        """A finished record, written at once: a later Ctrl-C or crash loses nothing."""
        self.folder.append_record(record.to_json())

    def records(self) -> list[RecordT]:
        """Every finished record of the run so far (earlier sessions' too), in the order they
        were finished (a prompt made of them reads them in that order)."""
        return read_records(self.folder, self.record_model)

    def write_json(self, name: str, data: Mapping[str, object]) -> Path:
        return self.folder.write_json(name, dict(data))

    def read_json(self, name: str) -> Json | None:
        """A JSON file of the run folder, or None when it is not there."""
        path = self.folder.path / name
        return json.loads(path.read_text(encoding="utf-8")) if path.exists() else None

    # ------------------------------------------------------------------ bookkeeping
    @contextmanager
    def timed(self, name: str) -> Iterator[None]:
        """Adds the block's wall time to ``timings[name]`` (metrics.json reports them)."""
        t = time.perf_counter()
        yield
        self._state.timings[name] = self._state.timings.get(name, 0.0) + time.perf_counter() - t

    @property
    def complete(self) -> bool:
        """Every unit was run to its end: nothing stopped the run and no call went unanswered."""
        return self._state.stopped is None and not self._state.incomplete

    def bookkeeping(self, finished: set[str], n_units: int | None = None) -> Bookkeeping:
        """What every metrics.json reports beside its figures: the units left out and why,
        this session's usage and timings, and whether the figures cover every unit."""
        units, st = self.units, self._state
        total = n_units if n_units is not None else len(units)
        complete = self.complete and len(finished) == total
        return {
            "incomplete": incomplete_summary([u.id for u in units if u.id not in finished], st.incomplete, st.stopped),
            "llm_usage": st.usage,
            "complete": complete,
            "status": run_status(total, len(finished), complete),  # the exit code's word (judgeagent/exits.py)
            "timings": {k: round(v, 3) for k, v in st.timings.items()},
        }


def read_records(folder: RunFolder, model: type[RecordT]) -> list[RecordT]:
    """A run folder's finished records through the protocol's record model, as finished."""
    return [model.from_json(r) for r in folder.read_records()]


@dataclass
class RunOutcome:
    """What a finished run returns: its folder, metrics.json as written, and how it ended."""

    folder: RunFolder
    metrics: Json  # metrics.json as written
    complete: bool = True
    stopped_reason: str | None = None
    timings: dict[str, float] = field(default_factory=dict)
    protocol: str = "judgeagent"


@dataclass
class FinishedRun(Generic[RecordT]):
    """A finished run folder as its protocol's report sections and ``compare`` read it: the
    config, metrics.json and the records through the protocol's record model."""

    path: Path
    config: Json
    metrics: Json
    records: list[RecordT]

    def read_json(self, name: str) -> Json:
        """A further JSON file of the run (interview_report.json), or {} when it is not there."""
        path = self.path / name
        if not path.exists():
            return {}
        data = json.loads(path.read_text(encoding="utf-8"))
        return data if isinstance(data, dict) else {}
