"""What every run command (``evaluate``, ``ablate``, ``contamination``) sets up the same way.

A run is: check the setup and pick the run folder (no model asked yet) → open the LLM client
over the folder's journal and preflight both models → load or build the graph and plan every
batch still to do → run the batches behind a progress bar → write the outputs. The commands
differ only in the work they do per batch and what they write.

How a run ends early, always with its folder resumable (rerunning the command continues it):
- a call that brings no answer after its retries (``CallFailed``) leaves its batch
  *incomplete*: not in records.jsonl, listed with the reason in incomplete.json, left out of
  the metrics; the other batches go on, and a rerun retries exactly the incomplete ones;
- a budget stop (``BudgetExceeded``) or a dead endpoint (``CircuitOpen``, the circuit
  breaker) ends the batches at once; the outputs are still written, then it is raised;
- Ctrl-C cancels the requests in flight and raises ``RunInterrupted``, saying how to go on.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine, Iterable, Iterator
from contextlib import asynccontextmanager, contextmanager
from pathlib import Path
from typing import Any, TypeVar

from threadpoolctl import threadpool_limits

from judgeagent.batches import Batch, make_batches, run_batches
from judgeagent.config import EvalConfig
from judgeagent.data import load_benchmark
from judgeagent.data.benchmark import Benchmark, Question
from judgeagent.errors import BudgetExceeded, CallFailed, ConfigError, JudgeAgentError, RunInterrupted
from judgeagent.graph.embed import shared_embedder
from judgeagent.graph.embed_queue import EmbeddingQueue
from judgeagent.interview import Setting
from judgeagent.llm.breaker import CircuitOpen
from judgeagent.llm.usage import journal_usage
from judgeagent.planning import plan_batches
from judgeagent.runfolder import RunFolder, data_name
from judgeagent.stages.models import Models


def prepare(cfg: EvalConfig):
    """(target, judge, benchmark, batches), after checking everything that needs no model."""
    from judgeagent.llm import load_registry

    registry = load_registry(cfg.llm.models_file)
    target, judge = registry.resolve(cfg.target), registry.resolve(cfg.judge)
    bench = load_benchmark(cfg.data, chunk_tokens=cfg.graph_build.chunk_tokens, section_chunks=cfg.graph_build.section_chunks)
    batches = make_batches(bench, cfg.batch_size, cfg.limit)
    if not batches:
        raise ConfigError(f"{cfg.data}: no seed questions to ask")
    return target, judge, bench, batches


async def preflight(client, target, judge) -> None:
    """One-line errors for a missing key or an unreachable endpoint, before any work."""
    await client.preflight(target)
    if judge.identity != target.identity:
        await client.preflight(judge)


T = TypeVar("T")
INCOMPLETE_FILE = "incomplete.json"


def ensure_graph(cfg: EvalConfig, bench: Benchmark, progress: bool):
    """The run's context graph: loaded when built from this data, built first when missing.

    A graph built from other data (edited files, another folder of the same name) is refused,
    or rebuilt with ``rebuild_graph``: it would silently plan paths over the wrong texts.
    """
    from judgeagent.graph import build_graph, load_graph

    gdir = cfg.graph_dir()
    if not (gdir / "manifest.json").exists():
        return build_graph(bench, cfg.graph_build, gdir, progress=progress)
    graph = load_graph(gdir)
    if graph_matches(graph.manifest, bench):
        return graph
    if not cfg.rebuild_graph:
        raise ConfigError(
            f"the graph {gdir} was built from other data than {cfg.data} (input hash differs); "
            "pass --rebuild-graph to rebuild it, or --graph to use the graph of this data"
        )
    return build_graph(bench, cfg.graph_build.model_copy(update={"force": True}), gdir, progress=progress)


def graph_matches(manifest: dict, bench: Benchmark) -> bool:
    """The manifest's input hash, computed again over ``bench`` with the build settings the
    manifest records: equal only if the graph was built from these files and chunks."""
    from judgeagent.graph.build import input_hash

    settings = manifest.get("settings")
    return isinstance(settings, dict) and input_hash(bench, settings) == manifest.get("input_hash")


def make_gates(cfg: EvalConfig, settings, bench: Benchmark, models: Models, embedder, done_records: Iterable[dict]) -> dict:
    """One quality gate per setting, primed with the questions a resumed run already accepted."""
    if not cfg.gate:
        return {}
    from judgeagent.stages.gate import GateConfig, QualityGate

    seeds = [q.question for q in bench.questions]
    # Overlap only pays when the judge can answer the early call beside other batches' calls.
    overlap = cfg.gate_overlap and models.judge.concurrency > 1
    gate_cfg = GateConfig(check_hops=cfg.check_hops, seed_similarity=cfg.seed_similarity, overlap=overlap)
    gates = {s.name: QualityGate(models, embedder, seeds, gate_cfg, scope=s.name) for s in settings}
    for gate in gates.values():
        gate.prime()
    for rec in sorted(done_records, key=lambda r: r["batch_index"]):
        # A probe's records hold one setting and do not name it.
        scope = gates.get(rec.get("setting", settings[0].name))
        if scope is None:
            continue
        for question in accepted_followups(rec):
            scope.accept(question)
    return gates


def accepted_followups(record: dict) -> list[Question]:
    """The follow-up questions a finished batch asked: an interview's rounds, a probe's questions."""
    items = record.get("rounds") or record.get("generated") or []
    return [Question(**it["question"]) for it in items if it.get("question")]


def budget_stop_message(reason: str, n_records: int, folder: RunFolder) -> str:
    return f"{reason}; {n_records} batch records saved in {folder.path} (rerun the same command with a larger budget to continue)"


def continue_hint(folder: RunFolder, command: str) -> str:
    """How to go on with a run: the exact command once config.json exists, else the same command again."""
    if folder.config_path.exists():
        return f"to continue: judgeagent {command} --config {folder.config_path} (or rerun the same command)"
    return "to continue: rerun the same command"


def incomplete_entry(batch: Batch, err: CallFailed) -> dict:
    """One line of incomplete.json: which batch, and which call brought no answer, why."""
    return {"batch_id": batch.id, "batch_index": batch.index, "model": err.model, "stage": err.stage, "kind": err.kind, "message": str(err)}


class RunScaffold:
    """One run's setup and its shared parts: models, benchmark, batches, folder, timings.

    ``open`` checks everything that needs no model; ``connected`` opens the client and
    preflights; the rest is called inside it, in the order the module docstring gives.
    """

    def __init__(self, cfg: EvalConfig, settings: tuple[Setting, ...], target, judge, bench: Benchmark, batches: list[Batch],
                 folder: RunFolder, *, label: str, progress: bool, console=None, command: str = "evaluate"):
        self.cfg, self.settings = cfg, settings
        self.target, self.judge, self.bench, self.batches = target, judge, bench, batches
        self.folder = folder
        self.label, self.progress, self.console, self.command = label, progress, console, command
        self.timings: dict[str, float] = {}
        self.stopped: str | None = None  # why the batches stopped early (a budget, a dead endpoint), else None
        self.stop_error: JudgeAgentError | None = None  # what stopped them, raised once the outputs are written
        self.incomplete: dict[str, dict] = {}  # batch id → incomplete_entry(): a call brought no answer
        self.client: Any = None  # the LLMClient, inside connected()
        self.models: Models | None = None

    @classmethod
    def open(cls, cfg: EvalConfig, settings: tuple[Setting, ...], identity: dict, *, name: str, kind: str = "",
             label: str = "interview", progress: bool = True, console=None, command: str = "evaluate") -> RunScaffold:
        """Resolve the models, load the benchmark and pick the run folder: ``cfg.resume``, or
        the one whose config.json holds the same ``identity`` (so a rerun resumes it).
        ``command`` is the CLI command that continues the run (named when it is interrupted)."""
        target, judge, bench, batches = prepare(cfg)
        if cfg.resume:
            folder = RunFolder(cfg.resume)
        else:
            folder = RunFolder.for_settings(identity, target=name, data=data_name(cfg), out=cfg.out, kind=kind)
        return cls(cfg, settings, target, judge, bench, batches, folder, label=label, progress=progress, console=console,
                   command=command)

    @property
    def complete(self) -> bool:
        """Every batch was run to its end: nothing stopped the run and no call went unanswered."""
        return self.stopped is None and not self.incomplete

    def drive(self, main: Callable[[], Coroutine[Any, Any, T]]) -> T:
        """``asyncio.run(main())``, with Ctrl-C turned into RunInterrupted.

        asyncio.run answers the first SIGINT by cancelling the main task: every request in
        flight is cancelled, the client closes (stopping a bundled server), and nothing that
        finished is lost (answers are journaled, records appended, as they come).
        """
        try:
            return asyncio.run(main())
        except KeyboardInterrupt:
            n = len(self.folder.read_records())
            raise RunInterrupted(
                f"interrupted: requests in flight cancelled, {n} batch records kept in {self.folder.path}; "
                f"{continue_hint(self.folder, self.command)}"
            ) from None

    @contextmanager
    def timed(self, name: str) -> Iterator[None]:
        """Adds the block's wall time to ``timings[name]`` (metrics.json reports them)."""
        t = time.perf_counter()
        yield
        self.timings[name] = time.perf_counter() - t

    @asynccontextmanager
    async def connected(self) -> AsyncIterator[Models]:
        """The models over an LLM client that journals into the run folder, after a preflight:
        a missing key or an unreachable endpoint fails here, before any work."""
        from judgeagent.llm import LLMClient

        async with LLMClient.from_config(self.cfg.llm, self.folder.journal_path) as client:
            with self.timed("preflight_s"):
                await preflight(client, self.target, self.judge)
            self.client = client
            self.models = Models(client, self.target, self.judge, seed=self.cfg.seed)
            yield self.models

    def graph_and_plans(self, todo: list[tuple[Setting, Batch]]) -> tuple[object, dict]:
        """The context graph (None when no setting extends) and each (setting name, batch id)'s
        plan: graph work done up front, so the batches only ask models."""
        with self.timed("plan_s"):
            extending = [s for s in self.settings if not s.no_extension]
            graph = ensure_graph(self.cfg, self.bench, self.progress) if extending and self.cfg.rounds > 0 else None
            extractor = None
            if graph is not None and any(not s.no_graph for s in extending):
                from judgeagent.graph import SpacyExtractor

                extractor = SpacyExtractor()
            plans = plan_batches(graph, extractor, self.batches, todo, self.cfg)
        return graph, plans

    def embedding_queue(self, graph) -> EmbeddingQueue:
        """One queue for the whole run: gate and leakage embeddings from every batch are batched."""
        return EmbeddingQueue(graph.embedder if graph is not None else shared_embedder())

    def gates(self, graph, embedder, done_records: Iterable[dict]) -> dict:
        """The quality gates (none without a graph: then nothing is generated)."""
        if graph is None:
            return {}
        assert self.models is not None, "gates are made inside connected()"
        return make_gates(self.cfg, self.settings, self.bench, self.models, embedder, done_records)

    async def run_batches(self, work: Callable[[Batch], Awaitable[None]]) -> None:
        """Every batch through ``work``, ``concurrency`` at once, behind a progress bar.

        A batch one of whose calls brought no answer is set aside as incomplete and the others
        go on. A budget stop or an open circuit ends them all early but cleanly: what finished
        is kept, ``stopped`` says why. incomplete.json is written either way.
        """
        self.incomplete = {}
        # The batches' numpy work is small (one question against a few thousand vectors), but
        # each call woke OpenBLAS's second thread, which then spun on a core for the whole
        # interview: a full core taken from the event loop and from a local endpoint.
        try:
            with threadpool_limits(1, user_api="blas"):
                await self._with_progress(self._set_aside_failures(work))
        except (BudgetExceeded, CircuitOpen) as e:
            self.stopped, self.stop_error = str(e), e
        finally:
            self.write_incomplete()

    def _set_aside_failures(self, work: Callable[[Batch], Awaitable[None]]) -> Callable[[Batch], Awaitable[None]]:
        async def one(b: Batch) -> None:
            try:
                await work(b)
            except CallFailed as e:
                self.incomplete[b.id] = incomplete_entry(b, e)
                self.write_incomplete()  # kept at once: a later Ctrl-C loses nothing

        return one

    def write_incomplete(self) -> Path:
        """incomplete.json: this session's batches that a call left without an answer."""
        entries = sorted(self.incomplete.values(), key=lambda e: e["batch_index"])
        return self.folder.write_json(INCOMPLETE_FILE, {"n_batches": len(entries), "batches": entries})

    async def _with_progress(self, work: Callable[[Batch], Awaitable[None]]) -> None:
        if not self.progress:
            await run_batches(self.batches, work, self.cfg.concurrency)
            return
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        columns = (TextColumn(f"[bold]{self.label}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=self.console) as bar:
            task = bar.add_task("batches", total=len(self.batches))
            await run_batches(self.batches, work, self.cfg.concurrency, on_done=lambda _b: bar.advance(task))

    def llm_usage(self) -> dict:
        """This invocation's requests, tokens and cost, plus ``run_total`` summed from the
        journal over every session of a resumed run."""
        usage = self.client.usage.summary()
        prices = {m.name: (m.price_in_per_1k, m.price_out_per_1k) for m in (self.target, self.judge)}
        usage["run_total"] = journal_usage(self.client.journal.totals(), prices)
        return usage

    def model_notes(self) -> dict:
        """What the client learned this session about each model (reasoning, sampled, ...), by name."""
        return self.client.usage.summary()["models"] if self.client is not None else {}

    def raise_if_stopped(self, n_records: int) -> None:
        """Called once the outputs are written: a stop is an error that says how to go on."""
        if isinstance(self.stop_error, CircuitOpen):
            self.stop_error.run_folder = self.folder.path  # the CLI names it beside the message
            raise self.stop_error
        if self.stopped:
            raise BudgetExceeded(budget_stop_message(self.stopped, n_records, self.folder))
