"""The one place a run happens, whatever its protocol.

    run(cfg)
      1. resolve      the protocol and its options (a setting of another protocol is refused)
      2. open         models, benchmark, units, run folder: everything that can fail on bad
                      setup fails here, before any model is asked
      3. connected    the LLM client over the folder's journal; every role preflighted
      4. plan         the protocol's graph work for the units still to do; config.json
      5. ask          every unit still to do, ``concurrency`` at once, behind a progress bar
      6. finish       the protocol's closing steps (not after a budget or breaker stop)
      7. outputs      metrics.json and the protocol's files, the reports, then writes
                      outside the folder (the question bank)

How a run ends early, always with its folder resumable (rerunning the command continues it):
- a call that brings no answer after its retries (``CallFailed``) leaves its unit
  *incomplete*: not in records.jsonl, listed with the reason in incomplete.json and
  metrics.json, left out of every figure; the other units go on, and a rerun asks exactly
  the incomplete ones;
- a budget stop (``BudgetExceeded``) or a dead endpoint (``CircuitOpen``, the circuit
  breaker) ends the asking at once; the outputs are still written, then it is raised;
- Ctrl-C cancels the requests in flight and raises ``RunInterrupted``, saying how to go on.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterator
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from threadpoolctl import threadpool_limits

from judgeagent.batches import Batch, run_batches
from judgeagent.config import EvalConfig
from judgeagent.data.benchmark import Benchmark
from judgeagent.engine import setup
from judgeagent.engine.folder import RunFolder, data_name, settings_json
from judgeagent.engine.options import resolve
from judgeagent.engine.protocol import Protocol
from judgeagent.errors import BudgetExceeded, CallFailed, ConfigError, JudgeAgentError, RunInterrupted
from judgeagent.llm.breaker import CircuitOpen
from judgeagent.metrics.summary import incomplete_summary
from judgeagent.records import Bookkeeping, IncompleteEntry, Record
from judgeagent.stages.models import Models

INCOMPLETE_FILE = "incomplete.json"
Reporter = Callable[[Path], Any]  # writes a finished run folder's reports (judgeagent.report.write_reports)


@dataclass
class RunOutcome:
    folder: RunFolder
    metrics: dict  # metrics.json as written
    complete: bool = True
    stopped_reason: str | None = None
    timings: dict = field(default_factory=dict)
    protocol: str = "judgeagent"


def run(cfg: EvalConfig, *, progress: bool = True, console=None, reporter: Reporter | None = None) -> RunOutcome:
    """Run ``cfg``'s protocol and write its run folder; see the module docstring for the steps.

    ``reporter`` writes the reports when ``cfg.report`` is on (the layer above the engine
    passes ``judgeagent.report.write_reports``). Ctrl-C raises RunInterrupted."""
    protocol, ctx = _opened(cfg, progress, console)
    try:
        return asyncio.run(_run(protocol, ctx, reporter))
    except KeyboardInterrupt:
        n = len(ctx.folder.read_records())
        raise RunInterrupted(
            f"interrupted: requests in flight cancelled, {n} records kept in {ctx.folder.path}; {continue_hint(ctx.folder)}"
        ) from None


async def arun(cfg: EvalConfig, *, progress: bool = False, console=None, reporter: Reporter | None = None) -> RunOutcome:
    """:func:`run` inside a running event loop, so that several runs can share one (a sweep
    runs its targets at once, and their clients share each model's concurrency limit).
    Ctrl-C is the caller's to handle."""
    protocol, ctx = _opened(cfg, progress, console)
    return await _run(protocol, ctx, reporter)


def run_loop(main: Callable[[], Coroutine[Any, Any, Any]], interrupted: Callable[[], str]) -> Any:
    """``main()`` (several :func:`arun` at once: a sweep) in one event loop; Ctrl-C raises
    RunInterrupted with the message ``interrupted()`` gives, once the runs are cancelled."""
    try:
        return asyncio.run(main())
    except KeyboardInterrupt:
        raise RunInterrupted(interrupted()) from None


def _opened(cfg: EvalConfig, progress: bool, console) -> tuple[Protocol, RunContext]:
    protocol, options = resolve(cfg)
    cfg = cfg.model_copy(update={"options": options.model_dump(mode="json")})
    return protocol, RunContext.open(protocol, cfg, options, progress=progress, console=console)


async def _run(protocol: Protocol, ctx: RunContext, reporter: Reporter | None) -> RunOutcome:
    ctx.done = ctx.folder.read_records()
    before = ctx.folder.read_config() if ctx.folder.config_path.exists() else None
    async with ctx.connected():
        todo = protocol.todo(ctx)
        with ctx.timed("plan_s"):
            await protocol.plan(ctx, todo)
        ctx.write_config(before=before)
        with ctx.timed("prime_s"):
            protocol.prime(ctx, todo)
        with ctx.timed("interview_s"):
            await ctx.ask(todo, protocol.ask_unit)
        if ctx.stopped is None:
            try:
                with ctx.client.unit("finish"):  # its requests are one more wave
                    await protocol.finish(ctx)
            except (BudgetExceeded, CircuitOpen) as e:
                ctx.stopped, ctx.stop_error = str(e), e
        usage = ctx.llm_usage()
        # Now known: whether each model reasons, and whether its answers are samples.
        ctx.write_config(before=before, learned=ctx.model_notes())
    records = sorted(ctx.folder.read_records(), key=lambda r: r.get("batch_index", 0))
    ctx.usage = usage
    metrics = protocol.metrics(ctx, records)
    for name, content in protocol.outputs(ctx, records, metrics).items():
        ctx.folder.write_json(name, content)
    if (audit := ctx.folder.kept_audit()) is not None:  # judgeagent audit's block, still true of these records
        metrics["audit"] = audit
    ctx.folder.write_json("metrics.json", metrics)
    if ctx.cfg.report and protocol.writes_report and reporter is not None:
        reporter(ctx.folder.path)
    protocol.after(ctx, records)  # what finished is worth keeping, even after a stop
    ctx.raise_if_stopped(len(records))
    return RunOutcome(ctx.folder, metrics, ctx.complete, ctx.stopped, ctx.timings, protocol.name)


def continue_hint(folder: RunFolder) -> str:
    """How to go on with a run: the exact command once config.json exists, else the same command again."""
    if folder.config_path.exists():
        return f"to continue: judgeagent evaluate --config {folder.config_path} (or rerun the same command)"
    return "to continue: rerun the same command"


def budget_stop_message(reason: str, n_records: int, folder: RunFolder) -> str:
    return f"{reason}; {n_records} records saved in {folder.path} (rerun the same command with a larger budget to continue)"


def incomplete_entry(unit: Batch, err: CallFailed) -> IncompleteEntry:
    """One line of incomplete.json: which unit, and which call brought no answer, why."""
    return {"batch_id": unit.id, "batch_index": unit.index, "model": err.model, "stage": err.stage, "kind": err.kind, "message": str(err)}


class RunContext:
    """One run's state and the services the engine offers a protocol's steps: the models, the
    benchmark and units, the folder, the graph, timings and how the asking went."""

    def __init__(self, protocol: Protocol, cfg: EvalConfig, options: Any, *, progress: bool, console=None):
        self.protocol, self.cfg, self.options = protocol, cfg, options
        self.progress, self.console = progress, console
        self.target: Any = None
        self.judge: Any = None
        self.roles: dict[str, Any] = {}  # extra roles (KIEval's evaluator) → ModelSpec
        self.bench: Benchmark | None = None
        self.batches: list[Batch] = []  # the seed questions in batches (none for a bank run)
        self.units: list[Batch] = []
        self.folder: RunFolder = RunFolder(Path("."))
        self.done: list[dict] = []  # records finished before this session
        self.timings: dict[str, float] = {}
        self.stopped: str | None = None  # why the asking stopped early (a budget, a dead endpoint)
        self.stop_error: JudgeAgentError | None = None  # what stopped it, raised once the outputs are written
        self.incomplete: dict[str, IncompleteEntry] = {}  # unit id → a call that brought no answer
        self.client: Any = None  # the LLMClient, inside connected()
        self.models: Models | None = None
        self.graph: Any = None
        self.usage: dict = {}
        self.state: dict[str, Any] = {}  # what a protocol's steps hand each other (plans, gates, guard)

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, protocol: Protocol, cfg: EvalConfig, options: Any, *, progress: bool = True, console=None) -> RunContext:
        """Resolve the models, load the benchmark, make the units and pick the run folder:
        ``cfg.resume``, or the one whose config.json holds the same identity (so a rerun
        resumes it). Nothing here asks a model."""
        ctx = cls(protocol, cfg, options, progress=progress, console=console)
        ctx.target, ctx.judge, ctx.roles = setup.resolve_models(cfg, protocol.roles(options))
        if protocol.needs_benchmark(options):
            ctx.bench = setup.load(cfg)
            ctx.batches = setup.seed_batches(cfg, ctx.bench, options)
        ctx.units = protocol.units(ctx)
        if not ctx.units:
            raise ConfigError(f"{cfg.data}: nothing to ask")
        if cfg.resume:
            ctx.folder = RunFolder(cfg.resume)
        else:
            name, data, kind = protocol.folder_name(ctx)
            ctx.folder = RunFolder.for_settings(protocol.identity(ctx), target=name, data=data, out=cfg.out, kind=kind)
        return ctx

    @property
    def data_name(self) -> str:
        return data_name(self.cfg)

    def default_identity(self, settings: tuple = ()) -> dict:
        return settings_json(self.cfg, settings)

    @property
    def complete(self) -> bool:
        """Every unit was run to its end: nothing stopped the run and no call went unanswered."""
        return self.stopped is None and not self.incomplete

    @contextmanager
    def timed(self, name: str) -> Iterator[None]:
        """Adds the block's wall time to ``timings[name]`` (metrics.json reports them)."""
        t = time.perf_counter()
        yield
        self.timings[name] = self.timings.get(name, 0.0) + time.perf_counter() - t

    # ------------------------------------------------------------------ models
    @asynccontextmanager
    async def connected(self) -> AsyncIterator[Models]:
        """The models over an LLM client that journals into the run folder, after a preflight
        of every role: a missing key or an unreachable endpoint fails here, before any work."""
        from judgeagent.llm import LLMClient

        async with LLMClient.from_config(self.cfg.llm, self.folder.journal_path) as client:
            with self.timed("preflight_s"):
                seen = set()
                for spec in (self.target, self.judge, *self.roles.values()):
                    if spec.identity not in seen:
                        seen.add(spec.identity)
                        await client.preflight(spec)
            self.client = client
            self.models = Models(client, self.target, self.judge, seed=self.cfg.seed)
            yield self.models

    def llm_usage(self) -> dict:
        """This invocation's requests, tokens and cost, plus ``run_total`` summed from the
        journal over every session of a resumed run."""
        usage = self.client.usage.summary()
        usage["run_total"] = self.client.run_total([self.target, self.judge, *self.roles.values()])
        if (batch := self.client.batch_summary()) is not None:
            usage["batch_api"] = batch
        return usage

    def model_notes(self) -> dict:
        """What the client learned this session about each model (reasoning, sampled, ...), by name."""
        return self.client.usage.summary()["models"] if self.client is not None else {}

    # ------------------------------------------------------------------ graph
    def ensure_graph(self) -> Any:
        """The run's context graph, loaded or built (see setup.ensure_graph)."""
        assert self.bench is not None, "a run with a graph reads a benchmark"
        if self.graph is None:
            self.graph = setup.ensure_graph(self.cfg, self.bench, self.progress)
        return self.graph

    def embedding_queue(self) -> Any:
        """One queue for the whole run: gate and leakage embeddings from every unit are batched."""
        from judgeagent.graph.embed import shared_embedder
        from judgeagent.graph.embed_queue import EmbeddingQueue

        if "embedder" not in self.state:
            self.state["embedder"] = EmbeddingQueue(self.graph.embedder if self.graph is not None else shared_embedder())
        return self.state["embedder"]

    # ------------------------------------------------------------------ the asking loop
    def append(self, record: Record | dict) -> None:
        """A finished record, written at once: a later Ctrl-C or crash loses nothing."""
        self.folder.append_record(record)

    async def ask(self, todo: list[Batch], work: Callable[[RunContext, Batch], Awaitable[None]]) -> None:
        """Every unit through ``work``, ``concurrency`` at once, behind a progress bar.

        A unit one of whose calls brought no answer is set aside as incomplete and the others
        go on. A budget stop or an open circuit ends them all early but cleanly: what finished
        is kept, ``stopped`` says why. incomplete.json is written either way.
        """
        self.incomplete = {}

        async def one(unit: Batch) -> None:
            try:
                with self.client.unit(unit.id):  # the Batch API's waves wait for every unit running
                    await work(self, unit)
            except CallFailed as e:
                self.incomplete[unit.id] = incomplete_entry(unit, e)
                self.write_incomplete()  # kept at once: a later Ctrl-C loses nothing

        # The units' numpy work is small, but each call woke OpenBLAS's second thread, which
        # then spun on a core for the whole run: a core taken from the event loop and from
        # a local endpoint.
        try:
            with threadpool_limits(1, user_api="blas"):
                await self._with_progress(todo, one)
        except (BudgetExceeded, CircuitOpen) as e:
            self.stopped, self.stop_error = str(e), e
        finally:
            self.write_incomplete()

    async def _with_progress(self, todo: list[Batch], work: Callable[[Batch], Awaitable[None]]) -> None:
        if not self.progress:
            await run_batches(todo, work, self.units_at_once(len(todo)))
            return
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        label = self.protocol.label or self.protocol.name
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=self.console) as bar:
            task = bar.add_task(f"[bold]{label}", total=len(self.units), completed=len(self.units) - len(todo))
            self.client.show_batches(bar)  # one line per batch job in flight, under the units' bar
            await run_batches(todo, work, self.units_at_once(len(todo)), on_done=lambda _u: bar.advance(task))

    def units_at_once(self, n: int) -> int:
        """``concurrency`` units at a time; all of them when a model is asked through a Batch
        API, so that one wave holds the same step of every unit."""
        return max(1, n) if self.client is not None and self.client.batching else self.cfg.concurrency

    def write_incomplete(self) -> Path:
        """incomplete.json: this session's units that a call left without an answer."""
        entries = sorted(self.incomplete.values(), key=lambda e: e["batch_index"])
        return self.folder.write_json(INCOMPLETE_FILE, {"n_batches": len(entries), "batches": entries})

    # ------------------------------------------------------------------ outputs
    def bookkeeping(self, finished: set[str], n_units: int | None = None) -> Bookkeeping:
        """What every metrics.json reports beside its figures: the units left out and why,
        this session's usage and timings, and whether the figures cover every unit."""
        units = self.units
        return {
            "incomplete": incomplete_summary([u.id for u in units if u.id not in finished], self.incomplete, self.stopped),
            "llm_usage": self.usage,
            "complete": self.complete and len(finished) == (n_units if n_units is not None else len(units)),
            "timings": {k: round(v, 3) for k, v in self.timings.items()},
        }

    def write_config(self, *, before: dict | None = None, learned: dict | None = None) -> None:
        """config.json: the run's identity and settings (``evaluate --config`` re-creates the run
        from ``eval_config``), the benchmark, the graph, the models and the package versions.

        ``learned``: what each model showed this session (reasoning, sampled); ``before``: the
        config.json of an earlier session of the run, whose findings stand."""
        learned, old_models = learned or {}, (before or {}).get("models") or {}
        roles = {"target": self.target, "judge": self.judge, **self.roles}
        bench = self.bench
        config = {
            "settings": self.protocol.identity(self),
            "eval_config": self.cfg.replay_json(),
            "protocol": self.protocol.name,
            "benchmark": None if bench is None else {"name": bench.name, "format": bench.format, "question_type": bench.qtype.value,
                                                     "n_questions": sum(len(b.questions) for b in self.batches)},
            "graph": {"dir": str(self.cfg.graph_dir()), "manifest_hash": self.graph.manifest.get("input_hash") if self.graph is not None else None},
            "models": {role: setup.model_info(spec, learned.get(spec.name), old_models.get(role)) for role, spec in roles.items()},
            "versions": setup.package_versions(),
            "seed": self.cfg.seed,
            "created": (before or {}).get("created") or datetime.now(UTC).isoformat(timespec="seconds"),
        }  # fmt: skip
        self.folder.write_json("config.json", config)

    def raise_if_stopped(self, n_records: int) -> None:
        """Called once the outputs are written: a stop is an error that says how to go on."""
        if isinstance(self.stop_error, CircuitOpen):
            self.stop_error.run_folder = self.folder.path  # the CLI names it beside the message
            raise self.stop_error
        if self.stopped:
            raise BudgetExceeded(budget_stop_message(self.stopped, n_records, self.folder))
