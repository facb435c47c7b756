"""``judgeagent contamination``: seed accuracy vs. accuracy on new questions about the same
knowledge. Every flag is one EvalConfig field."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from judgeagent.cli.app import app
from judgeagent.cli.common import console, eval_config, user_errors
from judgeagent.cli.evaluate import incomplete_line
from judgeagent.cli.options import config_flags, with_config_flags
from judgeagent.config import EvalConfig


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


# The probe's flags: the EvalConfig fields it reads. Earlier spellings still accepted.
FLAGS = config_flags(
    EvalConfig,
    {None: ("target", "judge", "data", "graph", "rebuild_graph", "batch_size", "hops", "limit", "seed", "concurrency", "generation_tries",
            "out", "resume", "llm.models_file")},
    {"llm.models_file": ("--models",)},
)


@app.command("contamination")
@user_errors
@with_config_flags(FLAGS)
def contamination(
    given: dict,
    config: Annotated[Path | None, typer.Option(help="Re-create a probe from its config.json and continue it in that folder; flags given beside it override the saved settings.")] = None,
) -> None:
    """Contamination probe: grade the seed questions, then new questions about the same entities at matched difficulty; a large positive gap (seed − generated accuracy) suggests the seeds leaked into training."""
    cfg = eval_config(FLAGS, given, config, "contamination")
    from judgeagent.contamination import run_contamination

    result = run_contamination(cfg, console=console)
    console.print(contamination_table(result, f"{cfg.target} on {Path(cfg.data).name}: contamination probe (judge: {cfg.judge})"))
    console.print(f"generated questions: {result['generated']} asked, {result['skipped']} skipped")
    if (il := incomplete_line(result)) is not None:
        console.print(il)
    console.print(f"run folder: {result['folder']}")
