"""Running a sweep: every target's interview, then every target on the shared items.

    sweep(cfg)
      1. check        every model name resolves, the sweep folder (found again by its settings)
      2. graph        loaded, or built once before any target starts
      3. interviews   one engine run of the judgeagent protocol per target, all at once
                      (``parallel``), each in SWEEP/targets/<target>/; a finished one is not reopened
      4. shared items the gate-passed follow-ups the judge wrote in those interviews
      5. shared pass  one engine run of the bank protocol per target over exactly those items,
                      in SWEEP/shared/<target>/
      6. leaderboard  json, md, csv, tex and report.html

The runs share one event loop, so their clients share each model's concurrency limit
(:mod:`judgeagent.llm.limits`): the judge, asked by every interview, never gets more than its
own ``concurrency`` requests at once. A target whose run fails (a dead endpoint, a budget) is
recorded with its one-line reason and the others go on; rerunning the same command resumes
every run where it stopped, and sends no request for what is finished.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from judgeagent.config import EvalConfig
from judgeagent.errors import JudgeAgentError
from judgeagent.exits import COMPLETE, EMPTY, PARTIAL, Status, combined
from judgeagent.metrics.figures import RunFigures
from judgeagent.records import BankItemRecord, InterviewRecord, Json, JsonModel
from judgeagent.sweeps.board import Leaderboard
from judgeagent.sweeps.config import SweepConfig
from judgeagent.sweeps.folder import SHARED_ITEMS_FILE, SweepFolder, read_model, read_typed, target_slugs
from judgeagent.sweeps.state import FAILED, INCOMPLETE, OK, SharedItem, SharedItems, SweepFile, TargetState


@dataclass
class SweepResult:
    sweep_dir: Path
    leaderboard: Leaderboard
    targets: list[TargetState]
    files: dict[str, Path] = field(default_factory=dict)

    @property
    def failed(self) -> list[TargetState]:
        return [t for t in self.targets if t.status == FAILED or t.shared_status == FAILED]

    @property
    def status(self) -> Status:
        """complete | incomplete | nothing_answered over every run of the sweep (its exit code's word)."""
        return sweep_status(self.targets, self.sweep_dir)


def sweep_status(targets: list[TargetState], sweep_dir: Path) -> Status:
    """The runs' statuses taken together, each from its metrics.json (the targets' folders are
    named relative to ``sweep_dir``); a target that failed answered nothing, one whose metrics
    are missing (an older run) counts as incomplete."""
    statuses = []
    for t in targets:
        for status, run_dir in ((t.status, t.run_dir), (t.shared_status, t.shared_dir)):
            if status is None or not run_dir:
                continue
            if status == FAILED:
                statuses.append(EMPTY)
                continue
            metrics = read_model(sweep_dir / run_dir / "metrics.json", RunFigures)
            statuses.append(metrics.status or (COMPLETE if metrics.complete else PARTIAL) if metrics is not None else PARTIAL)
    return combined(statuses)


if TYPE_CHECKING:
    from rich.console import Console
    from rich.progress import TaskID

Notify = Callable[[str], None]


def sweep(cfg: SweepConfig | dict[str, Any] | None = None, /, *, progress: bool = False, console: Console | None = None, notify: Notify | None = None,
          **settings: Any) -> SweepResult:
    """Run the sweep ``cfg`` (or a SweepConfig made from ``settings``) and write its folder.

    Bad setup (an unknown model, a missing key for every role, bad data) raises a
    JudgeAgentError before any request; a target that fails later is recorded in the
    leaderboard as failed and the others finish (``result.failed`` lists them). Ctrl-C raises
    RunInterrupted, with every run saved."""
    cfg = _config(cfg, settings)
    say = notify or (lambda _line: None)
    check_models(cfg)
    folder = SweepFolder.for_config(cfg)
    states = initial_states(cfg, folder)
    folder.write_sweep(cfg, [asdict(s) for s in states], n_shared=None, complete=False)
    n_batches = prepare_graph(cfg, progress)
    from judgeagent.engine import run_loop

    def interrupted() -> str:
        folder.write_sweep(cfg, [asdict(s) for s in states], n_shared=None, complete=False)
        return f"interrupted: requests in flight cancelled, every run kept in {folder.path}; to continue: rerun the same command"

    items = run_loop(lambda: _sweep(cfg, folder, states, n_batches, progress=progress, console=console, say=say), interrupted)
    from judgeagent.sweeps.audited import keep_audit
    from judgeagent.sweeps.folder import LEADERBOARD
    from judgeagent.sweeps.leaderboard import build_leaderboard
    from judgeagent.sweeps.outputs import write_outputs

    # An audit imported into the leaderboard this one replaces stays, recomputed on the new answers.
    board = keep_audit(build_leaderboard(folder, cfg, states), _previous(folder.path / f"{LEADERBOARD}.json"))
    files = write_outputs(folder, board, report=cfg.report)
    complete = all(s.status == OK and (s.shared_status in (OK, None) if cfg.shared else True) for s in states)
    folder.write_sweep(cfg, [asdict(s) for s in states], n_shared=len(items), complete=complete, status=sweep_status(states, folder.path))
    return SweepResult(folder.path, board, states, files)


def _previous(path: Path) -> Leaderboard | None:
    """The leaderboard a rebuild replaces (None when there is none, or it cannot be read)."""
    return read_model(path, Leaderboard)


def _config(cfg: SweepConfig | dict[str, Any] | None, settings: dict[str, Any]) -> SweepConfig:
    if cfg is None:
        return SweepConfig(**settings)
    if isinstance(cfg, dict):
        return SweepConfig.model_validate(cfg | settings)
    return SweepConfig.model_validate(cfg.model_dump() | settings) if settings else cfg


def check_models(cfg: SweepConfig) -> None:
    """Every model name resolves and the interview's options are the judgeagent protocol's
    (bad input is one line before anything runs, not the same failure for every target)."""
    from pydantic import ValidationError

    from judgeagent.engine.options import describe, resolve
    from judgeagent.errors import ConfigError
    from judgeagent.llm import load_registry

    registry = load_registry(cfg.llm.models_file)
    for name in (*(cfg.model(n) for n in cfg.names), cfg.judge):
        registry.resolve(name)
    try:
        resolve(cfg.eval_config(cfg.names[0]))
    except ValidationError as e:
        raise ConfigError(f"options: {describe(e)}") from None
    except ConfigError as e:  # a setting of another protocol
        raise ConfigError(f"options: {e}") from None


def initial_states(cfg: SweepConfig, folder: SweepFolder) -> list[TargetState]:
    """Each target's state: what sweep.json says of an earlier session, else pending."""
    saved = SweepFile.model_validate(folder.read()) if folder.sweep_path.exists() else SweepFile()
    before = {t.name: t for t in saved.targets}
    out = []
    for name, slug_ in target_slugs(cfg.names).items():
        st = TargetState(name, slug_, run_dir=f"targets/{slug_}")
        if (old := before.get(name)) is not None:
            st.status, st.error = old.status, old.error
            st.shared_status, st.shared_error, st.shared_dir = old.shared_status, old.shared_error, old.shared_dir
        out.append(st)
    return out


def prepare_graph(cfg: SweepConfig, progress: bool) -> int:
    """Load (or build, once) the sweep's graph before any target starts, so that concurrent
    interviews do not each build it. Returns the number of seed batches per interview."""
    from judgeagent.batches import make_batches
    from judgeagent.engine import setup

    ecfg = cfg.eval_config(cfg.names[0])
    bench = setup.load(ecfg)
    batches = make_batches(bench, cfg.batch_size, cfg.limit)
    if not batches:
        raise JudgeAgentError(f"{cfg.data}: no seed questions to ask")
    if cfg.rounds > 0 and not cfg.options.get("no_extension"):
        setup.ensure_graph(ecfg, bench, progress)
    return len(batches)


# ----------------------------------------------------------------------------- the async part
async def _sweep(cfg: SweepConfig, folder: SweepFolder, states: list[TargetState], n_batches: int, *, progress: bool, console: Console | None,
                 say: Notify) -> list[SharedItem]:
    watch = Watch(console) if progress else None
    try:
        gate = asyncio.Semaphore(cfg.parallel or len(states))
        await asyncio.gather(*(_interview(cfg, folder, st, gate, watch, n_batches, say) for st in states))
        items = shared_items(folder, states)
        folder.write_json(SHARED_ITEMS_FILE, SharedItems(items=items).to_json())
        folder.write_sweep(cfg, [asdict(s) for s in states], n_shared=len(items), complete=False)
        if cfg.shared and items:
            ids = [i.item_id for i in items]
            await asyncio.gather(*(_shared(cfg, folder, st, ids, gate, watch, say) for st in states if st.usable))
        return items
    finally:
        if watch is not None:
            watch.stop()


async def _interview(cfg: SweepConfig, folder: SweepFolder, st: TargetState, gate: asyncio.Semaphore, watch: Watch | None, n_batches: int,
                     say: Notify) -> None:
    run_dir = folder.target_dir(st.slug)
    if finished(run_dir):
        st.status, st.error = OK, None
        if watch:
            watch.add(f"interview {st.name}", run_dir, n_batches, done=True)
        return
    async with gate:
        if watch:
            watch.add(f"interview {st.name}", run_dir, n_batches)
        st.status, st.error = await _run(cfg.eval_config(st.name, run_dir), report=cfg.report)
    say(f"interview {st.name}: {st.status}" + (f" ({st.error})" if st.error else ""))


async def _shared(cfg: SweepConfig, folder: SweepFolder, st: TargetState, ids: list[str], gate: asyncio.Semaphore, watch: Watch | None, say: Notify) -> None:
    run_dir = folder.shared_dir(st.slug)
    st.shared_dir = f"shared/{st.slug}"
    if finished(run_dir, items=ids):
        st.shared_status, st.shared_error = OK, None
        if watch:
            watch.add(f"shared items {st.name}", run_dir, len(ids), done=True)
        return
    async with gate:
        if watch:
            watch.add(f"shared items {st.name}", run_dir, len(ids))
        st.shared_status, st.shared_error = await _run(cfg.shared_config(st.name, ids, run_dir), report=False)
    say(f"shared items {st.name}: {st.shared_status}" + (f" ({st.shared_error})" if st.shared_error else ""))


async def _run(ecfg: EvalConfig, *, report: bool) -> tuple[str, str | None]:
    """(status, error) of one engine run; its failure is the target's, not the sweep's."""
    from judgeagent.engine import arun

    reporter = None
    if report:
        from judgeagent.report import write_reports

        reporter = write_reports
    try:
        outcome = await arun(ecfg, progress=False, reporter=reporter)
    except JudgeAgentError as e:
        return FAILED, " ".join(str(e).split())
    return (OK, None) if outcome.complete else (INCOMPLETE, incomplete_reason(outcome.metrics))


def incomplete_reason(metrics: Json) -> str:
    inc = RunFigures.from_json(metrics).incomplete
    why = ", ".join(f"{k}: {v}" for k, v in inc.reasons.items())
    return f"{inc.n_batches} unit(s) incomplete ({why}); rerun to retry them"


def finished(run_dir: Path, items: list[str] | None = None) -> bool:
    """A run folder whose metrics say it is complete (and, for a shared-items run, that has
    answered every item): reopening it would only replay, so it is left alone."""
    metrics = read_model(run_dir / "metrics.json", RunFigures)
    if metrics is None or not metrics.complete:
        return False
    if items is None:
        return True
    answered = {r.item_id for r in read_typed(run_dir, BankItemRecord)}
    return answered >= set(items)


class _Benchmark(JsonModel):
    question_type: str


class _RunConfig(JsonModel):
    benchmark: _Benchmark


def shared_items(folder: SweepFolder, states: list[TargetState]) -> list[SharedItem]:
    """The gate-passed follow-ups of every usable interview, each once (items are
    content-addressed), in target then batch order; ``cluster`` is the batch that wrote it."""
    from judgeagent.bank.fill import item_id

    out: dict[str, SharedItem] = {}
    for st in states:
        if not st.usable:
            continue
        run_dir = folder.target_dir(st.slug)
        if (config := read_model(run_dir / "config.json", _RunConfig)) is None:
            continue
        qtype = config.benchmark.question_type
        for rec in sorted(read_typed(run_dir, InterviewRecord), key=lambda r: r.batch_index):
            for rd in rec.rounds:
                if not rd.banked or rd.question is None:
                    continue
                q = rd.question
                iid = item_id(qtype, q.question, q.options, q.answer)
                out.setdefault(iid, SharedItem(item_id=iid, level=rd.level, counted_as=rd.counted_as, qtype=qtype, question=q.question,
                                               options=q.options, answer=q.answer, source_target=st.name, source_batch=rec.batch_id,
                                               cluster=f"{st.name}/{rec.batch_id}"))
    return list(out.values())


class Watch:
    """One progress bar per run of the sweep, moved by counting the lines of its
    records.jsonl (the engine's own bars would fight over the terminal when runs overlap)."""

    def __init__(self, console: Console | None = None) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console)
        self.tasks: dict[TaskID, Path] = {}
        self.bar.start()
        self._poll = asyncio.get_running_loop().create_task(self._run())

    def add(self, label: str, run_dir: Path, total: int, done: bool = False) -> None:
        task = self.bar.add_task(label, total=total, completed=total if done else _lines(run_dir))
        if not done:
            self.tasks[task] = run_dir

    async def _run(self) -> None:
        while True:
            await asyncio.sleep(0.5)
            for task, run_dir in self.tasks.items():
                self.bar.update(task, completed=_lines(run_dir))

    def stop(self) -> None:
        self._poll.cancel()
        for task, run_dir in self.tasks.items():
            self.bar.update(task, completed=_lines(run_dir))
        self.bar.stop()


def _lines(run_dir: Path) -> int:
    try:
        with open(run_dir / "records.jsonl", "rb") as f:
            return sum(1 for _ in f)
    except OSError:
        return 0
