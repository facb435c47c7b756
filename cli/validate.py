"""``judgeagent validate SWEEP_DIR [--reference FILE.csv]``: is the ranking on generated questions
the ranking of the seed benchmark, and of an external leaderboard?"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich import box
from rich.table import Table

from judgeagent.cli.app import app
from judgeagent.cli.common import console, user_errors

if TYPE_CHECKING:
    from judgeagent.metrics.ranking import Agreement
    from judgeagent.sweeps.validate import Validation

VALIDATE_HELP = (
    "Rank agreement between the targets' accuracy on a sweep's shared generated items and (a) their ACC1 on the seed "
    "questions, (b) an external leaderboard (--reference FILE.csv with columns model,score; higher is better; models "
    "named as in --targets): Spearman and Kendall's tau-b with 95% bootstrap intervals over the batches. And the "
    "difficulty check: accuracy on generated items, overall and per level, against the seeds; is Hard harder? "
    "Reads the sweep folder only; sends no request."
)


def _num(v, digits: int = 2) -> str:
    return "–" if v is None else f"{v:.{digits}f}"


def _thin() -> str:
    """Said under a table whose intervals were widened (judgeagent/metrics/stats.py); imported
    here, not at the top, so that the CLI starts without numpy."""
    from judgeagent.metrics.stats import MIN_UNITS

    return f"intervals shown as the whole range where they rest on fewer than {MIN_UNITS} batches (one resamples to itself)"


def _ci(ci, digits: int = 2) -> str:
    return "–" if not ci else f"[{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]"


def _with_ci(a: Agreement, point: float | None, ci: tuple[float, float] | None) -> str:
    # No point value with two or more targets: one side ranks them all equal (no spread).
    shown = ("tied" if a.n_targets >= 2 else "–") if point is None else f"{point:.2f}"
    return f"{shown} {_ci(ci)}"


def _yes_no(v) -> str:
    return "undetermined" if v is None else ("yes" if v else "no")


@app.command("validate", help=VALIDATE_HELP)
@user_errors
def validate(
    sweep_dir: Annotated[Path, typer.Argument(help="A folder written by `judgeagent sweep`.")],
    reference: Annotated[Path | None, typer.Option("--reference", help="A CSV leaderboard with columns model,score (higher is better).")] = None,
    bootstrap: Annotated[int | None, typer.Option(help="Bootstrap resamples (default: the sweep's own, 2,000).", min=100)] = None,
    seed: Annotated[int | None, typer.Option(help="Bootstrap seed (default: the sweep's own).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.")] = False,
) -> None:
    from judgeagent.sweeps.validate import validate as run_validate

    out = run_validate(sweep_dir, reference, n_resamples=bootstrap, seed=seed)
    if as_json:
        typer.echo(json.dumps(out.to_dict(), indent=2, ensure_ascii=False))
        return
    print_validation(out)


def print_validation(out: Validation) -> None:
    console.print(
        f"{len(out.targets)} targets, {out.n_shared_items} shared generated items, {out.n_seed_questions} seed questions "
        f"({out.n_bootstrap:,} bootstrap resamples over batches, seed {out.seed})",
        highlight=False,
        soft_wrap=True,
    )
    console.print(out.audit_line, highlight=False, soft_wrap=True)
    audited = out.audit is not None and out.audit.leaderboard is not None and bool(out.audit.leaderboard.targets)
    scores = Table(title="scores (%)")
    columns = ("target", "generated items") + (("audited valid",) if audited else ()) + ("seeds (ACC1)",) + (("reference",) if out.reference else ())
    for col in columns:
        scores.add_column(col, justify="left" if col == "target" else "right")
    ranked = sorted(out.targets, key=lambda t: -1.0 if t.generated_accuracy is None else t.generated_accuracy, reverse=True)
    for t in ranked:
        cells = [t.name, _num(t.generated_accuracy, 1)] + ([_num(t.generated_valid_accuracy, 1)] if audited else []) + [_num(t.seed_accuracy, 1)]
        if out.reference:
            cells.append(_num(t.reference_score, 4).rstrip("0").rstrip(".") if t.reference_score is not None else "–")
        scores.add_row(*cells)
    console.print(scores)
    if out.note:
        console.print(out.note)
        return
    agree = Table(title="rank agreement with the ranking on generated items")
    for col in ("against", "n", "Spearman ρ [95% CI]", "Kendall τb [95% CI]"):
        agree.add_column(col, justify="left" if col == "against" else "right")
    rows = [("(a) seeds, ACC1", out.vs_seeds)]
    if out.reference:
        console.print(f"(b) reference: {out.reference}", highlight=False, soft_wrap=True)
        rows.append((f"(b) {Path(out.reference).name}", out.vs_reference))
    for name, a in rows:
        if a is None:
            agree.add_row(name, "–", "–", "–")
        else:
            agree.add_row(name, str(a.n_targets), _with_ci(a, a.spearman, a.spearman_ci), _with_ci(a, a.kendall, a.kendall_ci))
    console.print(agree)
    if any(a is not None and a.thin for _, a in rows):
        console.print(f"rank agreement: {_thin()}", highlight=False, soft_wrap=True)
    if out.unranked:
        console.print(f"failed in the sweep, not ranked: {', '.join(out.unranked)}", highlight=False, soft_wrap=True)
    if out.not_on_reference:
        console.print(f"not on the reference, left out of (b): {', '.join(out.not_on_reference)}", highlight=False, soft_wrap=True)
    d = out.difficulty
    if d is None:
        console.print("difficulty check: no seed answers in the sweep")
        return
    # No vertical rules: the intervals then fit an 80-column terminal unwrapped.
    diff = Table(title="difficulty check: accuracy over all targets (%); gap = generated − seeds", box=box.SIMPLE_HEAD, pad_edge=False, collapse_padding=True)
    for col in ("", "items", "batches", "accuracy [95% CI]", "gap [95% CI]"):
        diff.add_column(col, justify="left" if not col else "right", no_wrap=True)
    for r in d.rows:
        gap = "–" if r.gap_vs_seeds is None else f"{r.gap_vs_seeds:+.1f} {_ci(r.gap_ci, 1)}"
        diff.add_row(r.level, str(r.n_items), str(r.n_clusters), f"{_num(r.accuracy, 1)} {_ci(r.ci, 1)}", gap)
    console.print(diff)
    if any(r.thin for r in d.rows):
        console.print(f"difficulty check: {_thin()} (the rows with fewer batches)", highlight=False, soft_wrap=True)
    steps = "; ".join(f"{st.easier} − {st.harder} {_num(st.gap, 1)} {_ci(st.ci, 1)}" for st in d.steps)
    console.print(
        f"Easy > Medium > Hard: {_yes_no(d.ordered)} by the point estimates, {_yes_no(d.ordered_by_intervals)} by the intervals"
        + (f" ({steps})" if steps else "")
        + f"; Hard harder than the seeds: {_yes_no(d.hard_harder_than_seeds)}; "
        f"generated items easier than the seeds: {_yes_no(d.generated_easier_than_seeds)}",
        highlight=False,
        soft_wrap=True,
    )
