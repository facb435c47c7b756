"""``judgeagent sweep``: interview several targets with one judge on the same questions and
write a leaderboard (judgeagent.sweep). Every flag is a field of SweepConfig; a sweep file
(--file, TOML or YAML) holds the same keys, and flags given beside it override it."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from judgeagent.cli.app import app
from judgeagent.cli.common import console, fail, user_errors
from judgeagent.cli.evaluate import BATCH_FLAGS
from judgeagent.cli.options import build_config, config_flags, with_config_flags
from judgeagent.exits import EMPTY, OK, exit_code
from judgeagent.sweeps.board import Leaderboard
from judgeagent.sweeps.config import SweepConfig
from judgeagent.sweeps.state import INCOMPLETE

_SWEEP = "Sweep"
_LLM = "Models and budget"
FLAGS = config_flags(SweepConfig, {
    _SWEEP: ("targets", "judge", "data", "graph", "limit", "batch_size", "rounds", "seed", "concurrency", "parallel", "shared", "bootstrap", "out",
             "report"),
    _LLM: ("llm.models_file", "llm.cache", "llm.no_cache", "llm.max_requests", "llm.budget_usd", "llm.max_attempts", "llm.timeout_s",
           *BATCH_FLAGS),
}, aliases={"llm.models_file": ("--models",), "llm.timeout_s": ("--timeout",)})  # fmt: skip

HELP = (
    "Interview several targets with one judge on the same seed questions and graph, then ask every target the same "
    "shared bank items (the gate-passed follow-ups the judge wrote), and write a leaderboard: ACC1 and ΔACC with "
    "intervals, accuracy on the shared items, IRT ability, rank intervals, pairwise tests (md, csv, tex, html). "
    "Rerunning the same command resumes the sweep; a target that fails is reported and the others finish (exit 2)."
)


@app.command("sweep", help=HELP)
@user_errors
@with_config_flags(FLAGS)
def sweep_command(
    given: dict,
    file: Annotated[Path | None, typer.Option("--file", help="A sweep file (.toml or .yaml) with the same keys as the flags; "
                                              "flags given beside it override it. A sweep's sweep.json works too.", rich_help_panel=_SWEEP)] = None,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Print the expected requests, tokens, cost and time per target and in all, "
                                          "and send no request (with --batch-api: the waves and the cost at batch prices too).",
                                          rich_help_panel=_SWEEP)] = False,
) -> None:
    from judgeagent.sweeps import sweep
    from judgeagent.sweeps.config import read_sweep_file

    base = read_sweep_file(file) if file is not None else None
    cfg = build_config(SweepConfig, FLAGS, given, base=base, source=file)
    if dry_run:
        print_estimate(cfg)
        return
    result = sweep(cfg, progress=True, console=console, notify=lambda line: console.print(line, highlight=False))
    print_leaderboard(result.leaderboard)
    for kind, path in result.files.items():
        console.print(f"{kind}: {path}", highlight=False)
    console.print(f"sweep folder: {result.sweep_dir}", highlight=False)
    if result.failed:
        why = "; ".join(f"{t.name}: {t.error or t.shared_error}" for t in result.failed)
        raise fail(f"{len(result.failed)} of {len(result.targets)} target(s) failed ({why}); the others are in the leaderboard. "
                   "Rerun the same command to retry them")  # fmt: skip
    if (code := exit_code(result.status)) != OK:
        left = [t.name for t in result.targets if INCOMPLETE in (t.status, t.shared_status)]
        head = "nothing answered" if result.status == EMPTY else "incomplete"
        console.print(f"[yellow]{head}: some units of {', '.join(left) or 'the sweep'} are left out of the leaderboard; "
                      f"rerun the same command to retry them (exit code {code})[/]", highlight=False)
        raise typer.Exit(code)


def print_leaderboard(board: Leaderboard) -> None:
    from judgeagent.sweeps.outputs import COLUMNS, basis_note, difficulty_verdict, table_rows, validity_lines

    t = Table(title="leaderboard")
    for i, c in enumerate(COLUMNS):
        t.add_column(c, justify="right" if 1 < i < len(COLUMNS) - 1 else "left")
    for row in table_rows(board):
        t.add_row(*row)
    console.print(t)
    console.print(basis_note(board), highlight=False)
    for line in [*validity_lines(board), difficulty_verdict(board)]:
        if line:
            console.print(line, highlight=False)


def print_estimate(cfg: SweepConfig) -> None:
    from judgeagent.sweeps.estimate import render

    console.print(render(cfg), highlight=False, markup=False, soft_wrap=True)
