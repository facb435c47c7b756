"""``judgeagent validate SWEEP_DIR [--reference FILE.csv]``: do the generated questions rank
the targets as the seed benchmark does, and as an external leaderboard does?

Generated versions of a benchmark are often easier than the original and need not keep its
ranking of models, and that cannot be seen by reading the questions (arXiv 2505.22830). So
this measures it, from a finished sweep folder alone (no request is sent):

- rank agreement, Spearman and Kendall's tau-b with bootstrap intervals, between each
  target's accuracy on the shared generated items and (a) its accuracy on the seed questions
  (ACC1; both sides resampled, each over its own batches) and (b) a reference file of
  ``model,score`` (fixed; only the generated side is resampled);
- the difficulty check: accuracy on the generated items, overall and per level, against the
  seeds, and whether Easy > Medium > Hard.

The figures come from leaderboard.json's per-item matrices (``matrix``: targets × shared
items with the interview batch that wrote each item; ``seed_matrix``: targets × seed
questions with their batch) and shared_items.json's levels; the maths is
:mod:`judgeagent.metrics.ranking`.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from judgeagent.errors import DataError, JudgeAgentError
from judgeagent.metrics import ranking
from judgeagent.metrics.audited import AuditBlock
from judgeagent.report.audited import audit_sentence, block_of
from judgeagent.sweep.folder import LEADERBOARD, SHARED_ITEMS_FILE, SWEEP_FILE, slug

REFERENCE_COLUMNS = ("model", "score")


@dataclass
class SweepFigures:
    """What validate needs of a sweep: per-item correctness on both sides, with clusters."""

    folder: Path
    targets: list[str]  # the ranked ones (the rows), in the leaderboard's order
    unranked: list[str]  # sweep targets with no figures (their interview failed)
    generated: np.ndarray  # targets × shared items, 1/0/NaN
    clusters: list[str]
    levels: list[str]
    seeds: np.ndarray  # targets × seed questions, 1/0/NaN
    seed_clusters: list[str]
    n_bootstrap: int
    seed: int
    audit: AuditBlock | None = None  # the audit of the shared items, when one was imported


def _json(path: Path) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise DataError(path, "not found") from None
    except OSError as e:
        raise DataError(path, f"cannot be read ({e.strerror})") from None
    except json.JSONDecodeError as e:
        raise DataError(path, f"not valid JSON: {e.msg}", e.lineno) from None
    if not isinstance(data, dict):
        raise DataError(path, "not a JSON object")
    return data


def _matrix(path: Path, block: dict, key: str, rows: int, cols: int) -> np.ndarray:
    cells = block.get("correct")
    if not isinstance(cells, list) or len(cells) != rows or any(not isinstance(r, list) or len(r) != cols for r in cells):
        raise DataError(path, f"{key}.correct is not a {rows} × {cols} matrix")
    try:
        x = np.array([[np.nan if v is None else float(v) for v in row] for row in cells], dtype=float).reshape(rows, cols)
    except (TypeError, ValueError):
        raise DataError(path, f"{key}.correct holds a value that is not 0, 1 or null") from None
    if (~np.isnan(x) & (x != 0) & (x != 1)).any():
        raise DataError(path, f"{key}.correct holds a value that is not 0, 1 or null")
    return x


def load_sweep(sweep_dir: Path) -> SweepFigures:
    """Read a sweep folder's per-item figures; a folder that is not a finished sweep is one
    line naming what is missing."""
    folder = Path(sweep_dir)
    if not folder.is_dir():
        raise JudgeAgentError(f"{folder}: no such folder (pass the folder `judgeagent sweep` wrote)")
    if not (folder / SWEEP_FILE).exists():
        raise JudgeAgentError(f"{folder}: not a sweep folder (no {SWEEP_FILE})")
    board_path = folder / f"{LEADERBOARD}.json"
    if not board_path.exists():
        raise JudgeAgentError(f"{board_path}: not found; the sweep has not finished (rerun the same `judgeagent sweep` command to finish it)")
    swept = [str(t.get("name")) for t in (_json(folder / SWEEP_FILE).get("targets") or []) if isinstance(t, dict) and t.get("name")]
    board = _json(board_path)
    m = board.get("matrix")
    if not isinstance(m, dict) or not isinstance(m.get("targets"), list) or not isinstance(m.get("items"), list):
        raise DataError(board_path, "no per-item matrix (matrix.targets, matrix.items): written by an older version? rerun the sweep")
    targets = [str(t) for t in m["targets"]]
    items = [str(i) for i in m["items"]]
    generated = _matrix(board_path, m, "matrix", len(targets), len(items))
    clusters = [str(c) for c in (m.get("clusters") or items)]
    if len(clusters) != len(items):
        raise DataError(board_path, f"matrix.clusters has {len(clusters)} entries for {len(items)} items")
    levels = _levels(folder, items, m.get("levels"))
    sm = board.get("seed_matrix") or {}
    questions = [str(q) for q in sm.get("questions") or []]
    seeds = _matrix(board_path, sm, "seed_matrix", len(targets), len(questions)) if questions else np.zeros((len(targets), 0))
    seed_clusters = [str(c) for c in (sm.get("clusters") or questions)]
    if len(seed_clusters) != len(questions):
        raise DataError(board_path, f"seed_matrix.clusters has {len(seed_clusters)} entries for {len(questions)} questions")
    return SweepFigures(
        folder=folder,
        targets=targets,
        unranked=[t for t in swept if t not in targets],
        generated=generated,
        clusters=clusters,
        levels=levels,
        seeds=seeds,
        seed_clusters=seed_clusters,
        n_bootstrap=int(board.get("n_bootstrap") or 2000),
        seed=int(board.get("seed") or 0),
        audit=block_of(board),
    )


def _levels(folder: Path, items: list[str], fallback) -> list[str]:
    """Each shared item's level as counted (a Hard question one passage answers counts as
    Medium), from shared_items.json; else the levels in the leaderboard's matrix."""
    by_id: dict[str, str] = {}
    path = folder / SHARED_ITEMS_FILE
    if path.exists():
        for it in _json(path).get("items") or []:
            if isinstance(it, dict) and it.get("item_id") is not None:
                by_id[str(it["item_id"])] = str(it.get("counted_as") or it.get("level") or "")
    fb = list(fallback) if isinstance(fallback, list) and len(fallback) == len(items) else [""] * len(items)
    return [by_id.get(i) or str(fb[j] or "") for j, i in enumerate(items)]


def read_reference(path: Path, targets: Sequence[str], unranked: Sequence[str] = ()) -> dict[str, float]:
    """A leaderboard file of ``model,score`` (a header row; other columns are ignored; higher
    is better). A model is named as in the sweep (``--targets``) or by its folder name. Every
    fault is one line naming the file and line: a missing column, a row with too few fields,
    an empty or non-numeric score, a model the sweep did not run, a model listed twice.
    ``unranked`` targets (in the sweep, without figures) are accepted and returned too."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8-sig")
    except FileNotFoundError:
        raise DataError(path, "not found") from None
    except (OSError, UnicodeDecodeError) as e:
        raise DataError(path, f"cannot be read as UTF-8 text ({e})") from None
    rows = list(csv.reader(text.splitlines()))
    if not rows or not any(cell.strip() for cell in rows[0]):
        raise DataError(path, "empty: expected a header row with the columns model,score", 1)
    header = [h.strip().lower() for h in rows[0]]
    for col in REFERENCE_COLUMNS:
        if col not in header:
            raise DataError(path, f"missing column {col!r} (the header has: {', '.join(rows[0]) or 'nothing'}; expected model,score)", 1)
    mi, si = header.index("model"), header.index("score")
    known = [*targets, *unranked]
    names = {t: t for t in known} | {slug(t): t for t in known}
    out: dict[str, float] = {}
    first_line: dict[str, int] = {}
    for line, row in enumerate(rows[1:], start=2):
        if not any(cell.strip() for cell in row):
            continue  # blank lines are allowed
        if len(row) <= max(mi, si):
            raise DataError(path, f"expected at least {max(mi, si) + 1} fields (model,score), got {len(row)}", line)
        model, raw = row[mi].strip(), row[si].strip()
        target = names.get(model) or names.get(slug(model)) if model else None
        if not model:
            raise DataError(path, "empty model name", line)
        if target is None:
            raise DataError(path, f"unknown model {model!r}: the sweep's targets are {', '.join(known)}", line)
        if target in out:
            raise DataError(path, f"model {model!r} is listed twice (first on line {first_line[target]})", line)
        try:
            score = float(raw)
        except ValueError:
            raise DataError(path, f"score {raw!r} of model {model!r} is not a number", line) from None
        if not math.isfinite(score):
            raise DataError(path, f"score {raw!r} of model {model!r} is not a finite number", line)
        out[target] = score
        first_line[target] = line
    if not out:
        raise DataError(path, "no model rows after the header", 1)
    return out


def validate(sweep_dir: Path, reference: Path | None = None, *, n_resamples: int | None = None, seed: int | None = None) -> dict:
    """The validity figures of a sweep (see the module's docstring), as a JSON-ready dict."""
    fig = load_sweep(sweep_dir)
    ref = read_reference(reference, fig.targets, fig.unranked) if reference is not None else None
    kw: dict = {"n_resamples": n_resamples or fig.n_bootstrap, "seed": fig.seed if seed is None else seed}
    scores = [None if not np.isfinite(v) else round(float(v), 4) for v in ranking.accuracies(fig.generated)]
    seed_scores = [None if not np.isfinite(v) else round(float(v), 4) for v in ranking.accuracies(fig.seeds)]
    answered = bool((~np.isnan(fig.generated)).any())
    on_valid = {t.name: t.accuracy for t in fig.audit.leaderboard.targets} if fig.audit is not None and fig.audit.leaderboard is not None else {}
    out: dict = {
        "sweep": str(fig.folder),
        "targets": [
            {"name": t, "generated_accuracy": s, "generated_valid_accuracy": on_valid.get(t), "seed_accuracy": a,
             "reference_score": None if ref is None else ref.get(t)}
            for t, s, a in zip(fig.targets, scores, seed_scores)
        ],
        # The generated items' audit, which qualifies every figure on them (None: never audited).
        "audit": None if fig.audit is None else fig.audit.model_dump(mode="json", exclude={"verdicts"}),
        "audit_line": audit_sentence(fig.audit, items="shared items", source=str(fig.folder)),
        "n_shared_items": len(fig.clusters),
        "n_seed_questions": len(fig.seed_clusters),
        "n_bootstrap": kw["n_resamples"],
        "seed": kw["seed"],
        "level": 0.95,
        "vs_seeds": None,
        "vs_reference": None,
        "reference": None if reference is None else str(reference),
        "not_on_reference": [] if ref is None else [t for t in fig.targets if t not in ref],
        "unranked": fig.unranked,
        "difficulty": None,
    }
    if not answered:
        return out | {"note": "no target answered a shared item: nothing to compare"}
    if fig.seeds.size and len(fig.targets) > 1:
        out["vs_seeds"] = ranking.rank_agreement(fig.generated, fig.clusters, fig.seeds, reference_clusters=fig.seed_clusters, **kw).to_dict()
    if ref is not None:
        vector = np.array([ref.get(t, np.nan) for t in fig.targets], dtype=float)
        out["vs_reference"] = ranking.rank_agreement(fig.generated, fig.clusters, vector, **kw).to_dict()
    if fig.seeds.size:
        out["difficulty"] = ranking.difficulty_check(
            fig.generated, fig.levels, fig.seeds, clusters=fig.clusters, seed_clusters=fig.seed_clusters, **kw
        ).to_dict()
    return out
