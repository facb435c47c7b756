"""``judgeagent bank``, ``bank export``, ``calibrate`` and ``export RUN_DIR``: the question bank."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from judgeagent.cli.app import app
from judgeagent.cli.common import console, user_errors
from judgeagent.errors import JudgeAgentError

if TYPE_CHECKING:
    from judgeagent.bank.summary import BankSummary

BANK_HELP = (
    "`bank GRAPH_DIR`: the bank's items by type and level, which come from an older build of the graph, the targets that "
    "answered them and the items calibration flagged. `bank export GRAPH_DIR --format generic|hf|inspect --out DIR`: "
    "the unflagged items as our JSONL benchmark, a Hugging Face datasets folder, or an Inspect AI dataset and task."
)


@app.command("bank", help=BANK_HELP)
@user_errors
def bank(
    args: Annotated[list[str], typer.Argument(metavar="[export] GRAPH_DIR", help="A graph folder (its bank is GRAPH_DIR.bank.sqlite beside it).")],
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    format: Annotated[str | None, typer.Option("--format", "-f", help="bank export: generic | hf | inspect")] = None,
    out: Annotated[Path | None, typer.Option(help="bank export: output folder (default: exports/<graph>-bank-<format>).")] = None,
) -> None:
    # One command with an optional leading word: a Typer group cannot take GRAPH_DIR before its subcommand.
    if args and args[0] == "export":
        if len(args) != 2:
            raise JudgeAgentError("usage: judgeagent bank export GRAPH_DIR --format generic|hf|inspect [--out DIR]")
        _export_bank(Path(args[1]), format, out)
        return
    if len(args) != 1:
        raise JudgeAgentError("usage: judgeagent bank GRAPH_DIR [--json]  |  judgeagent bank export GRAPH_DIR --format FORMAT")
    if format is not None or out is not None:
        raise JudgeAgentError("--format and --out belong to `judgeagent bank export GRAPH_DIR`")
    from judgeagent.bank.summary import bank_summary

    summary = bank_summary(Path(args[0]))
    if as_json:
        typer.echo(json.dumps(summary.model_dump(), indent=2, ensure_ascii=False))
    else:
        print_summary(summary)


def _export_bank(graph_dir: Path, fmt: str | None, out: Path | None) -> None:
    from judgeagent.bank import export

    if fmt is None:
        raise JudgeAgentError(f"bank export needs --format ({', '.join(export.BANK_EXPORTS)})")
    out = out or Path("exports") / f"{graph_dir.resolve().name}-bank-{fmt}"
    for path in export.export_bank(graph_dir, fmt, out):
        console.print(f"wrote {path}", highlight=False)


def print_summary(s: BankSummary) -> None:
    # A line of its own: as a table title the path would wrap inside the narrow table.
    console.print(f"{s.n_items} item(s) in {s.bank}", highlight=False)
    t = Table()
    t.add_column("type")
    order = {"easy": 0, "medium": 1, "hard": 2}
    levels = sorted({lv for c in s.by_type_and_level.values() for lv in c}, key=lambda lv: (order.get(lv, 3), lv))
    for lv in levels:
        t.add_column(lv, justify="right")
    for qtype, counts in s.by_type_and_level.items():
        t.add_row(qtype, *(str(counts.get(lv, 0)) for lv in levels))
    console.print(t)
    older = s.from_older_graph
    if older.n_items:
        console.print(f"{older.n_items} item(s) come from an older build of the graph (input hash now {s.graph_hash}; "
                      f"theirs: {', '.join(map(str, older.by_graph_hash))})", highlight=False)
    else:
        console.print("every item comes from the graph as it is built now" if s.graph_hash else "the graph is not built")
    targets = Table(title=f"targets that answered ({s.n_answers} answers)")
    for col in ("target", "answers", "items", "runs", "accuracy"):
        targets.add_column(col, justify="left" if col == "target" else "right")
    for x in s.targets:
        targets.add_row(x.name, str(x.n_answers), str(x.n_items), str(x.n_runs), f"{x.accuracy:.1f}%")
    console.print(targets)
    cal = s.calibration
    if cal is None:
        console.print("not calibrated yet (judgeagent calibrate GRAPH_DIR)")
        return
    console.print(f"calibrated {cal.fitted} on {cal.n_targets} target(s); {len(cal.flagged)} item(s) flagged")
    for f in cal.flagged:
        console.print(f"  flagged {f.item_id}: {f.reason}", highlight=False)


@app.command("calibrate")
@user_errors
def calibrate(
    graph_dir: Annotated[Path, typer.Argument(help="A graph folder with a question bank beside it.")],
    as_json: Annotated[bool, typer.Option("--json", help="Print calibration.json.")] = False,
) -> None:
    """Fit a 2PL item response model to every answer in the bank: θ and SE per target, a and b per item,
    items whose key looks wrong flagged, and whether "Hard" means hard. Writes GRAPH_DIR.calibration.json (and .md)."""
    from judgeagent.bank.calibrate import calibrate_bank
    from judgeagent.bank.store import calibration_path

    result = calibrate_bank(graph_dir)
    if as_json:
        typer.echo(json.dumps(result.model_dump(), indent=2, ensure_ascii=False))
        return
    t = Table(title=f"abilities ({result.n_items} items, {result.n_answers} answers)")
    for col in ("target", "θ", "SE", "items", "accuracy"):
        t.add_column(col, justify="left" if col == "target" else "right")
    for x in result.targets:
        t.add_row(x.name, f"{x.theta:.2f}", f"{x.se:.2f}", str(x.n_answered), f"{100 * x.accuracy:.1f}%")
    console.print(t)
    lv = result.level_vs_b
    rho = "n/a" if lv.spearman is None else f"{lv.spearman:.2f}"
    console.print(f"Spearman ρ (generated level vs fitted b): {rho} over {lv.n_items} items; {len(result.flagged)} item(s) flagged")
    console.print(f"wrote {calibration_path(graph_dir)} (and .md)", highlight=False)


@app.command("export")
@user_errors
def export_run(
    run_dir: Annotated[Path, typer.Argument(help="A run folder written by `judgeagent evaluate`.")],
    format: Annotated[str, typer.Option("--format", "-f", help="inspect: an Inspect AI eval log (`inspect view` shows it).")] = "inspect",
    out: Annotated[Path | None, typer.Option(help="Output file (.eval or .json) or folder (default: exports/).")] = None,
) -> None:
    """Write a run in another tool's format."""
    from judgeagent.bank import export, inspect_log  # noqa: F401  (inspect_log registers the format)

    for path in export.export_run(run_dir, format, out or Path("exports")):
        console.print(f"wrote {path}", highlight=False)
