"""``judgeagent seeds GRAPH_DIR``: seed questions written from a context graph, as a benchmark
folder (judgeagent.write_seeds). Every flag is a field of SeedsConfig."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from judgeagent.cli.app import app
from judgeagent.cli.common import console, user_errors
from judgeagent.cli.evaluate import BATCH_FLAGS, DRY_RUN_HELP, batch_line, incomplete_line
from judgeagent.cli.options import build_config, config_flags, with_config_flags
from judgeagent.exits import OK
from judgeagent.protocols.seeds.config import SeedsConfig

_SEEDS = "Seeds"
_FILTERS = "Filters and spread"
_LLM = "Models and budget"
FLAGS = config_flags(SeedsConfig, {
    _SEEDS: ("n", "writer", "out", "question_type", "multi_hop_share", "hops", "domain", "seed", "concurrency"),
    _FILTERS: ("max_share", "reserve", "generation_tries", "duplicate_similarity", "check_hops"),
    _LLM: ("llm.models_file", "llm.cache", "llm.no_cache", "llm.max_requests", "llm.budget_usd", "llm.max_attempts", "llm.timeout_s",
           *BATCH_FLAGS),
}, aliases={"llm.models_file": ("--models",), "llm.timeout_s": ("--timeout",)})  # fmt: skip

HELP = (
    "Write seed questions from a context graph into a benchmark folder (generic format) that evaluate, sweep, contamination, "
    "validate and audit read: single-passage and multi-hop questions (knowledge paths across chunks and documents), each with "
    "the sentences of its passages that state its key (cited by number); each through the quality gate, no near-duplicates, spread over "
    "the documents and entities. Rerunning the same command resumes the writing."
)


@app.command("seeds", help=HELP)
@user_errors
@with_config_flags(FLAGS)
def seeds_command(
    given: dict,
    graph: Annotated[Path, typer.Argument(help="The context graph folder (`judgeagent build-graph DATA_DIR` makes one).", show_default=False)],
    dry_run: Annotated[bool, typer.Option("--dry-run", help=DRY_RUN_HELP, rich_help_panel=_LLM)] = False,
) -> None:
    from judgeagent.api import write_seeds
    from judgeagent.engine.registry import get_protocol

    cfg = build_config(SeedsConfig, FLAGS, given | {"graph": str(graph)})
    if dry_run:
        from judgeagent.estimation import estimate, render_text

        console.print(render_text(estimate(cfg.eval_config())), highlight=False, markup=False, soft_wrap=True)
        return
    result = write_seeds(cfg, progress=True, console=console)
    for line in get_protocol("seeds").headline(result.outcome, cfg.eval_config()):
        console.print(line, highlight=False)
    for extra in (incomplete_line(result.metrics), batch_line(result.metrics)):
        if extra is not None:
            console.print(extra, highlight=False)
    console.print(f"run folder: {result.run_dir}", highlight=False)
    if result.exit_code != OK:
        raise typer.Exit(result.exit_code)
