"""``judgeagent contamination``: seed accuracy vs. accuracy on new questions about the same
knowledge. Every flag is one EvalConfig field."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from judgeagent.cli.app import app
from judgeagent.cli.common import console, user_errors
from judgeagent.config import EvalConfig, GraphConfig, LLMConfig


def _pct(v: float | None) -> str:
    return "–" if v is None else f"{v:.1f}"


def _gap(m: dict) -> str:
    if m["gap"] is None:
        return "–"
    ci = m["gap_ci"]
    return f"{m['gap']:+.1f} [{ci[0]:+.1f}, {ci[1]:+.1f}]" if ci else f"{m['gap']:+.1f}"


def contamination_table(result: dict, title: str) -> Table:
    t = Table(title=title)
    for col in ("", "N seed", "ACC seed", "N gen.", "ACC gen."):
        t.add_column(col, justify="right")
    t.add_column("gap [95% CI]", justify="right", no_wrap=True)
    rows = [("all", result)]
    if set(result["by_difficulty"]) != {"unlabeled"}:
        rows += list(result["by_difficulty"].items())
    for name, m in rows:
        t.add_row(name, str(m["n_seed"]), _pct(m["acc_seed"]), str(m["n_generated"]), _pct(m["acc_generated"]), _gap(m))
    return t


@app.command("contamination")
@user_errors
def contamination(
    target: Annotated[str, typer.Option(help="Model under evaluation: a name from `judgeagent models`, provider:model, URL@model or local:/path.gguf.")] = "local",
    judge: Annotated[str, typer.Option(help="Model that writes the new questions (same forms as --target).")] = "local",
    data: Annotated[Path, typer.Option(help="Benchmark folder (MedQA, MultiHop-RAG, QuALITY or generic JSONL; detected).")] = EvalConfig.data,
    graph: Annotated[Optional[Path], typer.Option(help="Context graph folder (default: graphs/<data name>; built when missing).")] = None,
    batch_size: Annotated[int, typer.Option(help="Seed questions per batch (one prompt); one knowledge path per batch.")] = 3,
    hops: Annotated[int, typer.Option(help="Knowledge-path hops per generated question.")] = 2,
    limit: Annotated[Optional[int], typer.Option(help="Use only the first N seed questions.")] = None,
    seed: Annotated[int, typer.Option(help="Seed for path sampling, option order, model calls and the bootstrap.")] = 0,
    concurrency: Annotated[int, typer.Option(help="Batches probed at once.")] = 8,
    out: Annotated[Optional[Path], typer.Option(help="Run folder (default: runs/<date>-contamination-<target>-<data>).")] = None,
    models: Annotated[Optional[Path], typer.Option(help="Model registry file (default: ./judgeagent.toml when present).")] = None,
) -> None:
    """Contamination probe: grade the seed questions, then new questions about the same entities at matched difficulty; a large positive gap (seed − generated accuracy) suggests the seeds leaked into training."""
    cfg = EvalConfig(
        target=target, judge=judge, data=data, graph=graph, batch_size=batch_size, hops=hops, limit=limit,
        seed=seed, concurrency=concurrency, out=out,
        llm=LLMConfig(models_file=models), graph_build=GraphConfig(judge=judge),
    )
    from judgeagent.contamination import run_contamination

    result = run_contamination(cfg, console=console)
    console.print(contamination_table(result, f"{target} on {Path(data).name}: contamination probe (judge: {judge})"))
    console.print(f"generated questions: {result['generated']} asked, {result['skipped']} skipped")
    console.print(f"run folder: {result['folder']}")
