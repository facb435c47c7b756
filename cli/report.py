"""``judgeagent report`` and ``judgeagent compare``: read run folders, never call a model."""

from __future__ import annotations

import webbrowser
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.measure import Measurement
from rich.table import Table

from judgeagent.cli.app import app
from judgeagent.cli.common import console, err_console, user_errors
from judgeagent.errors import JudgeAgentError


@app.command("report")
@user_errors
def report(
    run_dir: Annotated[Path, typer.Argument(help="A run folder written by `judgeagent evaluate` or `ablate`.")],
    html: Annotated[bool, typer.Option("--html", help="Write report.html (one self-contained file).")] = False,
    md: Annotated[bool, typer.Option("--md", help="Write report.md with its figures in report_files/.")] = False,
    open_: Annotated[bool, typer.Option("--open", help="Open the HTML report in the default browser.")] = False,
    setting: Annotated[str | None, typer.Option(help="For an ablation run: the setting to report (default: full).")] = None,
) -> None:
    """Write the run's report from its folder alone (no model calls). Without --html/--md, writes both."""
    from judgeagent.report import write_reports

    if not Path(run_dir).is_dir():
        raise JudgeAgentError(f"{run_dir}: no such run folder")
    if not html and not md:
        html = md = True
    written = write_reports(run_dir, html=html or open_, md=md, setting=setting)
    for p in written:
        console.print(f"wrote {p}", highlight=False)
    if open_:
        webbrowser.open(written[0].resolve().as_uri())


def _rich_grid(grid) -> Table:
    t = Table(show_lines=False)
    t.add_column(grid.row_title)
    for g in grid.groups:
        for i, (label, _) in enumerate(grid.metrics):
            # The group (dataset or target) heads its first column only, as in the paper.
            t.add_column(f"{g if i == 0 else ''}\n{label}" if g else label, justify="right")
    for row in grid.flat_rows():
        t.add_row(*row)
    return t


@app.command("compare")
@user_errors
def compare(
    run_dirs: Annotated[list[Path], typer.Argument(help="Run folders to put side by side.")],
    format: Annotated[str, typer.Option("--format", "-f", help="table | md | csv | latex")] = "table",
    by: Annotated[str, typer.Option(help="Rows: target (datasets as column groups, the paper's Table 2) or data.")] = "target",
    ablation: Annotated[bool, typer.Option("--ablation", help="One `ablate` run as the paper's Table 3: setting, ACC2, CR, CtE, ΔACC.")] = False,
) -> None:
    """Compare runs: targets as rows, datasets as column groups of ACC1, ACC2, CR, CtE.

    Warns (on stderr) when the runs were made with different judges, graphs or settings.
    """
    from judgeagent.report import compare as cmp
    from judgeagent.report.load import load_ablation, load_run

    if format not in cmp.FORMATS:
        raise JudgeAgentError(f"--format must be one of {', '.join(cmp.FORMATS)} (got {format!r})")
    if ablation:
        if len(run_dirs) != 1:
            raise JudgeAgentError("--ablation takes exactly one run folder (made with `judgeagent ablate`)")
        grid = cmp.table3(load_ablation(run_dirs[0]))
    else:
        runs = [load_run(d) for d in run_dirs]
        grid = cmp.table2(runs, by)
        for w in cmp.mismatches(runs):
            err_console.print(f"[bold yellow]warning:[/] {w}", highlight=False, soft_wrap=True)
        for note in cmp.audit_notes(runs):
            err_console.print(f"note: {note}", highlight=False, soft_wrap=True)
    if format == "table":
        table = _rich_grid(grid)
        # Never squeeze the table to the terminal: truncated cells ("targe…") hide the very
        # names being compared. A wide table wraps in the terminal instead, and prints whole
        # when piped.
        width = Measurement.get(console, console.options.update_width(10_000), table).maximum
        (console if width <= console.width else Console(width=width)).print(table)
    else:
        # Plain stdout, so `> table.md` or `> table.csv` gives exactly the file.
        typer.echo(cmp.render(grid, format), nl=False)
