"""The one place a run happens, whatever its protocol.

    run(cfg)
      1. resolve      the protocol and its options (a setting of another protocol is refused)
      2. open         models, benchmark, units, run folder: everything that can fail on bad
                      setup fails here, before any model is asked
      3. connected    the LLM client over the folder's journal; every role preflighted (a
                      bundled server starts on its first request: a replay starts none)
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
from collections.abc import AsyncIterator, Awaitable, Callable, Coroutine
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from pydantic import Field
from threadpoolctl import threadpool_limits

from judgeagent.batches import Batch, run_batches
from judgeagent.config import EvalConfig, ProtocolOptions
from judgeagent.data.generic import seed_audit
from judgeagent.engine import setup
from judgeagent.engine.folder import RunFolder
from judgeagent.engine.options import resolve
from judgeagent.engine.protocol import Protocol
from judgeagent.engine.services import RunOutcome, RunServices, read_records
from judgeagent.engine.session import Session
from judgeagent.errors import BudgetExceeded, CallFailed, RunInterrupted
from judgeagent.llm.breaker import CircuitOpen
from judgeagent.records import IncompleteEntry, Json, JsonModel, UnitRecord
from judgeagent.stages.models import Models

if TYPE_CHECKING:
    from rich.console import Console

    from judgeagent.llm import LLMClient

INCOMPLETE_FILE = "incomplete.json"
Reporter = Callable[[Path], object]  # writes a finished run folder's reports (judgeagent.report.write_reports)
AnyRun = RunServices[ProtocolOptions, UnitRecord]
T = TypeVar("T")


def run(cfg: EvalConfig, *, progress: bool = True, console: Console | None = None, reporter: Reporter | None = None) -> RunOutcome:
    """Run ``cfg``'s protocol and write its run folder; see the module docstring for the steps.

    ``reporter`` writes the reports when ``cfg.report`` is on (the layer above the engine
    passes ``judgeagent.report.write_reports``). Ctrl-C raises RunInterrupted."""
    ctx = RunContext.open(cfg, progress=progress, console=console)
    try:
        return asyncio.run(ctx.go(reporter))
    except KeyboardInterrupt:
        n = len(ctx.run.folder.read_records())
        raise RunInterrupted(
            f"interrupted: requests in flight cancelled, {n} records kept in {ctx.run.folder.path}; {continue_hint(ctx.run.folder)}"
        ) from None


async def arun(cfg: EvalConfig, *, progress: bool = False, console: Console | None = None, reporter: Reporter | None = None) -> RunOutcome:
    """:func:`run` inside a running event loop, so that several runs can share one (a sweep
    runs its targets at once, and their clients share each model's concurrency limit).
    Ctrl-C is the caller's to handle."""
    return await RunContext.open(cfg, progress=progress, console=console).go(reporter)


def run_loop(main: Callable[[], Coroutine[Any, Any, T]], interrupted: Callable[[], str]) -> T:
    """``main()`` (several :func:`arun` at once: a sweep) in one event loop; Ctrl-C raises
    RunInterrupted with the message ``interrupted()`` gives, once the runs are cancelled."""
    try:
        return asyncio.run(main())
    except KeyboardInterrupt:
        raise RunInterrupted(interrupted()) from None


def open_run(cfg: EvalConfig, *, progress: bool = False) -> tuple[Protocol[Any, Any], AnyRun]:
    """``cfg``'s protocol and its run's services, opened as a run opens them (models resolved,
    benchmark loaded, units made, run folder found, earlier records read), and nothing asked:
    what ``--dry-run`` plans from."""
    ctx = RunContext.open(cfg, progress=progress)
    return ctx.protocol, ctx.run


def continue_hint(folder: RunFolder) -> str:
    """How to go on with a run: the exact command once config.json exists, else the same command again."""
    if folder.config_path.exists():
        return f"to continue: judgeagent evaluate --config {folder.config_path} (or rerun the same command)"
    return "to continue: rerun the same command"


def budget_stop_message(reason: str, n_records: int, folder: RunFolder) -> str:
    return f"{reason}; {n_records} records saved in {folder.path} (rerun the same command with a larger budget to continue)"


def incomplete_entry(unit: Batch, err: CallFailed) -> IncompleteEntry:
    """One line of incomplete.json: which unit, and which call brought no answer, why."""
    return IncompleteEntry(batch_id=unit.id, batch_index=unit.index, model=err.model, stage=err.stage, kind=err.kind, message=str(err))


class RunContext:
    """One run as the engine runs it: the protocol's :class:`~judgeagent.engine.session.Session`
    (the protocol and the services it offers its steps, as an Inspect task drives them too),
    and what only the engine touches: the run folder, the client, the asking loop, the
    progress bar."""

    def __init__(self, session: Session[AnyRun], *, console: Console | None = None):
        self.session, self.console = session, console
        self.protocol, self.run, self.state = session.protocol, session.run, session.state
        self.client: LLMClient | None = None

    # ------------------------------------------------------------------ opening
    @classmethod
    def open(cls, cfg: EvalConfig, *, progress: bool = True, console: Console | None = None) -> RunContext:
        """Resolve the protocol and its options, the models, load the benchmark, make the
        units and pick the run folder: ``cfg.resume``, or the one whose config.json holds the
        same identity (so a rerun resumes it). Nothing here asks a model."""
        protocol, options = resolve(cfg)
        cfg = cfg.model_copy(update={"options": options.model_dump(mode="json")})
        target, judge, roles = setup.resolve_models(cfg, protocol.roles(options))
        session: Session[AnyRun] = Session.open(cfg, protocol, options, target=target, judge=judge, roles=roles, progress=progress)
        run = session.run
        if cfg.resume:
            run.folder = RunFolder(cfg.resume)
        else:
            name, data, kind = protocol.folder_name(run)
            run.folder = RunFolder.for_settings(protocol.identity(run), target=name, data=data, out=cfg.out, kind=kind)
        run.done = read_records(run.folder, protocol.records)
        return cls(session, console=console)

    # ------------------------------------------------------------------ the sequence
    async def go(self, reporter: Reporter | None) -> RunOutcome:
        """Steps 3 to 7 of the module docstring."""
        protocol, run, session = self.protocol, self.run, self.session
        before = run.folder.read_config() if run.folder.config_path.exists() else None
        async with self.connected() as client:
            todo = session.todo()
            with run.timed("plan_s"):
                await session.plan(todo)
            self.write_config(before=before)
            with run.timed("prime_s"):
                session.prime(todo)
            with run.timed("interview_s"):
                await self.ask(todo)
            if self.state.stopped is None:
                try:
                    with client.unit("finish"):  # its requests are one more wave
                        await protocol.finish(run)
                except (BudgetExceeded, CircuitOpen) as e:
                    self.state.stopped, self.state.stop_error = str(e), e
            usage = self.llm_usage(client)
            # Now known: whether each model reasons, and whether its answers are samples.
            self.write_config(before=before, learned=client.usage.summary()["models"])
        session.connect(None)
        return self.outputs(usage, reporter)

    def outputs(self, usage: dict[str, object], reporter: Reporter | None) -> RunOutcome:
        """metrics.json and the protocol's files, the reports, then the writes outside the folder."""
        protocol, run = self.protocol, self.run
        records = sorted(run.records(), key=lambda r: r.batch_index)
        self.state.usage = usage
        metrics = self.session.metrics(records)
        for name, content in protocol.outputs(run, records, metrics).items():
            run.write_json(name, content)
        if (audit := run.folder.kept_audit()) is not None:  # judgeagent audit's block, still true of these records
            metrics = metrics | {"audit": audit}
        if run.has_bench and (seeds := seed_audit(run.cfg.data)) is not None:  # the audit of a seed set's questions
            metrics = metrics | {"seed_audit": seeds}
        run.write_json("metrics.json", metrics)
        if run.cfg.report and protocol.writes_report and reporter is not None:
            reporter(run.folder.path)
        protocol.after(run, records)  # what finished is worth keeping, even after a stop
        self.raise_if_stopped(len(records))
        return RunOutcome(run.folder, run.read_json("metrics.json") or {}, run.complete, self.state.stopped, self.state.timings, protocol.name)

    # ------------------------------------------------------------------ models
    @asynccontextmanager
    async def connected(self) -> AsyncIterator[LLMClient]:
        """The models over an LLM client that journals into the run folder, after a preflight
        of every role: a missing key or an unreachable endpoint fails here, before any work."""
        from judgeagent.llm import LLMClient

        run = self.run
        async with LLMClient.from_config(run.cfg.llm, run.folder.journal_path) as client:
            with run.timed("preflight_s"):
                seen = set()
                for spec in (run.target, run.judge, *run.roles.values()):
                    if spec.identity not in seen:
                        seen.add(spec.identity)
                        await client.preflight(spec, start=False)  # a replay sends nothing
            self.client = client
            self.session.connect(Models(client, run.target, run.judge, seed=run.cfg.seed))
            yield client

    def llm_usage(self, client: LLMClient) -> dict[str, object]:
        """This invocation's requests, tokens and cost, plus ``run_total`` summed from the
        journal over every session of a resumed run."""
        run = self.run
        usage: dict[str, object] = client.usage.summary()
        usage["run_total"] = client.run_total([run.target, run.judge, *run.roles.values()])
        if (batch := client.batch_summary()) is not None:
            usage["batch_api"] = batch
        return usage

    # ------------------------------------------------------------------ the asking loop
    async def ask(self, todo: list[Batch]) -> None:
        """Every unit through the protocol's ``ask_unit``, ``concurrency`` at once, behind a
        progress bar.

        A unit one of whose calls brought no answer is set aside as incomplete and the others
        go on. A budget stop or an open circuit ends them all early but cleanly: what finished
        is kept, ``stopped`` says why. incomplete.json is written either way.
        """
        client = self.client
        assert client is not None, "asked inside connected()"
        state = self.state
        state.incomplete = {}

        async def one(unit: Batch) -> None:
            try:
                with client.unit(unit.id):  # the Batch API's waves wait for every unit running
                    await self.session.ask(unit)
            except CallFailed as e:
                state.incomplete[unit.id] = incomplete_entry(unit, e)
                self.write_incomplete()  # kept at once: a later Ctrl-C loses nothing

        # The units' numpy work is small, but each call woke OpenBLAS's second thread, which
        # then spun on a core for the whole run: a core taken from the event loop and from
        # a local endpoint.
        try:
            with threadpool_limits(1, user_api="blas"):
                await self._with_progress(todo, one)
        except (BudgetExceeded, CircuitOpen) as e:
            state.stopped, state.stop_error = str(e), e
        finally:
            self.write_incomplete()

    async def _with_progress(self, todo: list[Batch], work: Callable[[Batch], Awaitable[None]]) -> None:
        if not self.run.progress:
            await run_batches(todo, work, self.units_at_once(len(todo)))
            return
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        label = self.protocol.label or self.protocol.name
        n_units = len(self.run.units)
        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
        with Progress(*columns, console=self.console) as bar:
            task = bar.add_task(f"[bold]{label}", total=n_units, completed=n_units - len(todo))
            assert self.client is not None
            self.client.show_batches(bar)  # one line per batch job in flight, under the units' bar
            await run_batches(todo, work, self.units_at_once(len(todo)), on_done=lambda _u: bar.advance(task))

    def units_at_once(self, n: int) -> int:
        """``concurrency`` units at a time; all of them when a model is asked through a Batch
        API, so that one wave holds the same step of every unit."""
        return max(1, n) if self.client is not None and self.client.batching else self.run.cfg.concurrency

    def write_incomplete(self) -> Path:
        """incomplete.json: this session's units that a call left without an answer."""
        entries = sorted(self.state.incomplete.values(), key=lambda e: e.batch_index)
        return self.run.write_json(INCOMPLETE_FILE, {"n_batches": len(entries), "batches": [e.to_json() for e in entries]})

    # ------------------------------------------------------------------ outputs
    def write_config(self, *, before: Json | None = None, learned: dict[str, Any] | None = None) -> None:
        """config.json: the run's identity and settings (``evaluate --config`` re-creates the run
        from ``eval_config``), the benchmark, the graph, the models and the package versions.

        ``learned``: what each model showed this session (reasoning, sampled); ``before``: the
        config.json of an earlier session of the run, whose findings stand."""
        run = self.run
        learned, old = learned or {}, ConfigFile.model_validate(before or {})
        roles = {"target": run.target, "judge": run.judge, **run.roles}
        bench = run.bench if run.has_bench else None
        graph = run.graph
        config = {
            "settings": self.protocol.identity(run),
            "eval_config": run.cfg.replay_json(),
            "protocol": self.protocol.name,
            "benchmark": None if bench is None else {"name": bench.name, "format": bench.format, "question_type": bench.qtype.value,
                                                     "n_questions": sum(len(b.questions) for b in run.batches)},
            "graph": {"dir": str(run.cfg.graph_dir()), "manifest_hash": graph.manifest.get("input_hash") if graph is not None else None},
            "models": {role: setup.model_info(spec, learned.get(spec.name), old.models.get(role)) for role, spec in roles.items()},
            "versions": setup.package_versions(),
            "seed": run.cfg.seed,
            "created": old.created or datetime.now(UTC).isoformat(timespec="seconds"),
        }  # fmt: skip
        run.write_json("config.json", config)

    def raise_if_stopped(self, n_records: int) -> None:
        """Called once the outputs are written: a stop is an error that says how to go on."""
        state, folder = self.state, self.run.folder
        if isinstance(state.stop_error, CircuitOpen):
            state.stop_error.run_folder = folder.path  # the CLI names it beside the message
            raise state.stop_error
        if state.stopped:
            raise BudgetExceeded(budget_stop_message(state.stopped, n_records, folder))


class ConfigFile(JsonModel):
    """What a run reads back from an earlier session's config.json."""

    models: dict[str, dict[str, Any]] = Field(default_factory=dict)
    created: str | None = None
