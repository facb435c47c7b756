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
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Annotated, Any

import numpy as np
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from judgeagent.errors import DataError, JudgeAgentError
from judgeagent.metrics import ranking
from judgeagent.metrics.audited import AuditBlock
from judgeagent.report.audited import audit_sentence, block_of
from judgeagent.sweeps.folder import LEADERBOARD, SHARED_ITEMS_FILE, SWEEP_FILE, slug

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


def _json(path: Path) -> dict[str, Any]:
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


class _Block(BaseModel):
    # What leaderboard.json holds is checked here, with messages naming the field, so every
    # field is read as it is (Any) and judged below.
    model_config = ConfigDict(extra="ignore")

    targets: Any = None
    items: Any = None
    questions: Any = None
    clusters: Any = None
    levels: Any = None
    correct: Any = None


def _block(v: Any) -> Any:
    return v if isinstance(v, dict) else None


class _Board(BaseModel):
    """leaderboard.json as validate reads it: the per-item matrices and the bootstrap's settings."""

    model_config = ConfigDict(extra="ignore")

    matrix: Annotated[_Block | None, BeforeValidator(_block)] = None
    seed_matrix: Annotated[_Block, BeforeValidator(lambda v: _block(v) or {})] = Field(default_factory=_Block)
    n_bootstrap: Any = None
    seed: Any = None


class _SweepTarget(BaseModel):
    model_config = ConfigDict(extra="ignore")

    name: Any = None


class _SweepFile(BaseModel):
    model_config = ConfigDict(extra="ignore")

    targets: Annotated[list[Any], BeforeValidator(lambda v: v if isinstance(v, list) else [])] = Field(default_factory=list)

    def names(self) -> list[str]:
        return [str(t.name) for t in (_SweepTarget.model_validate(t) for t in self.targets if isinstance(t, dict)) if t.name]


def _matrix(path: Path, block: _Block, key: str, rows: int, cols: int) -> np.ndarray:
    cells = block.correct
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
    swept = _SweepFile.model_validate(_json(folder / SWEEP_FILE)).names()
    raw_board = _json(board_path)
    board = _Board.model_validate(raw_board)
    m = board.matrix
    if m is None or not isinstance(m.targets, list) or not isinstance(m.items, list):
        raise DataError(board_path, "no per-item matrix (matrix.targets, matrix.items): written by an older version? rerun the sweep")
    targets = [str(t) for t in m.targets]
    items = [str(i) for i in m.items]
    generated = _matrix(board_path, m, "matrix", len(targets), len(items))
    clusters = [str(c) for c in (m.clusters or items)]
    if len(clusters) != len(items):
        raise DataError(board_path, f"matrix.clusters has {len(clusters)} entries for {len(items)} items")
    levels = _levels(folder, items, m.levels)
    sm = board.seed_matrix
    questions = [str(q) for q in sm.questions or []]
    seeds = _matrix(board_path, sm, "seed_matrix", len(targets), len(questions)) if questions else np.zeros((len(targets), 0))
    seed_clusters = [str(c) for c in (sm.clusters or questions)]
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
        n_bootstrap=int(board.n_bootstrap or 2000),
        seed=int(board.seed or 0),
        audit=block_of(raw_board),
    )


class _SharedItem(BaseModel):
    model_config = ConfigDict(extra="ignore")

    item_id: Any = None
    level: Any = None
    counted_as: Any = None


def _levels(folder: Path, items: list[str], fallback: object) -> list[str]:
    """Each shared item's level as counted (a Hard question one passage answers counts as
    Medium), from shared_items.json; else the levels in the leaderboard's matrix."""
    by_id: dict[str, str] = {}
    path = folder / SHARED_ITEMS_FILE
    if path.exists():
        shared = _json(path).get("items")  # the file's one table: the edge
        for raw in shared if isinstance(shared, list) else []:
            if isinstance(raw, dict) and (it := _SharedItem.model_validate(raw)).item_id is not None:
                by_id[str(it.item_id)] = str(it.counted_as or it.level or "")
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


@dataclass(frozen=True)
class TargetScores:
    name: str
    generated_accuracy: float | None  # % right on the shared generated items
    generated_valid_accuracy: float | None  # % right on the shared items audited valid (None: not audited)
    seed_accuracy: float | None  # ACC1 on the seed questions
    reference_score: float | None  # from --reference


@dataclass(frozen=True)
class Validation:
    """The validity figures of a sweep; ``to_dict`` is ``judgeagent validate --json``."""

    sweep: str
    targets: list[TargetScores]
    n_shared_items: int
    n_seed_questions: int
    n_bootstrap: int
    seed: int
    level: float
    vs_seeds: ranking.Agreement | None
    vs_reference: ranking.Agreement | None
    reference: str | None
    not_on_reference: list[str]
    unranked: list[str]
    difficulty: ranking.DifficultyCheck | None
    audit: AuditBlock | None  # the generated items' audit, which qualifies every figure on them (None: never audited)
    audit_line: str
    note: str | None = None  # why there is nothing to compare

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "note"}
        out |= {"targets": [asdict(t) for t in self.targets]}
        out |= {k: None if out[k] is None else out[k].to_dict() for k in ("vs_seeds", "vs_reference", "difficulty")}
        out |= {"audit": None if self.audit is None else self.audit.model_dump(mode="json", exclude={"verdicts"})}
        return out if self.note is None else out | {"note": self.note}


def validate(sweep_dir: Path, reference: Path | None = None, *, n_resamples: int | None = None, seed: int | None = None) -> Validation:
    """The validity figures of a sweep (see the module's docstring)."""
    fig = load_sweep(sweep_dir)
    ref = read_reference(reference, fig.targets, fig.unranked) if reference is not None else None
    n_boot, boot_seed = n_resamples or fig.n_bootstrap, fig.seed if seed is None else seed
    scores = [None if not np.isfinite(v) else round(float(v), 4) for v in ranking.accuracies(fig.generated)]
    seed_scores = [None if not np.isfinite(v) else round(float(v), 4) for v in ranking.accuracies(fig.seeds)]
    answered = bool((~np.isnan(fig.generated)).any())
    on_valid = {t.name: t.accuracy for t in fig.audit.leaderboard.targets} if fig.audit is not None and fig.audit.leaderboard is not None else {}
    vs_seeds = vs_reference = difficulty = None
    if answered and fig.seeds.size and len(fig.targets) > 1:
        vs_seeds = ranking.rank_agreement(fig.generated, fig.clusters, fig.seeds, reference_clusters=fig.seed_clusters,
                                          n_resamples=n_boot, seed=boot_seed)
    if answered and ref is not None:
        vector = np.array([ref.get(t, np.nan) for t in fig.targets], dtype=float)
        vs_reference = ranking.rank_agreement(fig.generated, fig.clusters, vector, n_resamples=n_boot, seed=boot_seed)
    if answered and fig.seeds.size:
        difficulty = ranking.difficulty_check(fig.generated, fig.levels, fig.seeds, clusters=fig.clusters, seed_clusters=fig.seed_clusters,
                                              n_resamples=n_boot, seed=boot_seed)
    return Validation(
        sweep=str(fig.folder),
        targets=[TargetScores(t, s, on_valid.get(t), a, None if ref is None else ref.get(t)) for t, s, a in zip(fig.targets, scores, seed_scores)],
        n_shared_items=len(fig.clusters),
        n_seed_questions=len(fig.seed_clusters),
        n_bootstrap=n_boot,
        seed=boot_seed,
        level=0.95,
        vs_seeds=vs_seeds,
        vs_reference=vs_reference,
        reference=None if reference is None else str(reference),
        not_on_reference=[] if ref is None else [t for t in fig.targets if t not in ref],
        unranked=fig.unranked,
        difficulty=difficulty,
        audit=fig.audit,
        audit_line=audit_sentence(fig.audit, items="shared items", source=str(fig.folder)),
        note=None if answered else "no target answered a shared item: nothing to compare",
    )
