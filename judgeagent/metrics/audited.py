"""Figures recomputed on the generated items an audit found valid, beside the figures on all
of them; and the audit block that metrics.json and leaderboard.json carry (pure: no I/O).

An audit (:mod:`judgeagent.audit`) labels a random sample of the generated items behind a
figure. Its invalid-item rate says how many of those items are broken; the figures here say
what the run's or the sweep's figures become without them:

- :func:`accuracy_on_valid`: accuracy per level on every answered generated item, and on
  those audited valid (a run's extension accuracy);
- :func:`leaderboard_on_valid`: a sweep's shared-item accuracies, θ, rank intervals and
  pairwise tests on the items audited valid, and :func:`rank_changes`, how the ranking moved.

"Audited valid" means labelled and found valid (``verdicts[item] is True``): an item nobody
labelled is in neither set. After a full audit (every item labelled, as ``--sample`` at or
above the population gives) the valid figures are the figures on the sound items; after a
partial one they rest on the sample's valid items alone, which are few but drawn at random,
so they are unbiased for the sound items and say so by their width. Taking "all items but
those found invalid" instead would keep every unlabelled broken item in the figure.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from pydantic import BaseModel, Field

from judgeagent.metrics import ranking
from judgeagent.metrics.scores import accuracy_by_level
from judgeagent.metrics.stats import thin_note

Basis = Literal["people", "model auditor", "none"]


# ----------------------------------------------------------------------------- the block's parts
class Rate(BaseModel):
    """A share of the items with its 95% interval (the audit's design-based one)."""

    estimate: float | None = None
    ci: list[float] | None = None
    n: int = 0  # items labelled
    hits: int = 0  # of them, with the property
    population: int = 0  # items it speaks for


class LevelAccuracy(BaseModel):
    n: int
    correct: int
    accuracy: float | None  # percent


class AccuracyOnValid(BaseModel):
    """A run's accuracy on its generated items, on all of them and on those audited valid."""

    what: str  # "follow-up questions" (the extension accuracy), "bank items", ...
    overall: LevelAccuracy
    overall_valid: LevelAccuracy
    by_level: dict[str, LevelAccuracy]
    by_level_valid: dict[str, LevelAccuracy]
    n_items: int  # answers to generated items
    n_valid: int  # of them, to items audited valid
    n_invalid: int  # to items audited invalid
    n_unlabelled: int


class TargetOnValid(BaseModel):
    name: str
    accuracy: float | None  # percent, on the valid shared items it answered
    n: int
    theta: float | None = None
    theta_se: float | None = None
    rank: int | None = None
    rank_lo: int | None = None
    rank_hi: int | None = None
    rank_label: str | None = None
    rank_all: int | None = None  # its rank on all shared items


class PairOnValid(BaseModel):
    a: str
    b: str
    n_shared: int
    a_only: int
    b_only: int
    diff: float | None
    p_value: float
    p_holm: float
    significant: bool


class LeaderboardOnValid(BaseModel):
    """A sweep's comparison redone on the shared items audited valid."""

    n_items: int
    n_valid: int
    n_invalid: int
    n_unlabelled: int
    targets: list[TargetOnValid] = Field(default_factory=list)  # best first
    pairwise: list[PairOnValid] = Field(default_factory=list)
    ranking_changed: bool | None = None  # None: nothing to rank on
    changes: list[str] = Field(default_factory=list)  # "a: 1st on all items, 2nd on valid items"
    note: str = ""
    interval_note: str = ""  # the rank intervals rest on too few batches: shown as the full range


class AuditBlock(BaseModel):
    """What metrics.json (a run) and leaderboard.json (a sweep) say of the audit of their
    generated items: the invalid-item rate with its interval, per defect and per level, who
    labelled how many, each labelled item's verdict, and the figures on the valid items."""

    audit_id: str
    audit_dir: str
    updated: str
    basis: Basis  # whose labels the figures rest on
    auditors: list[str] = Field(default_factory=list)
    model_auditor: str | None = None
    population: int  # the generated items that enter the figures
    n_sample: int
    n_labelled: int  # of the sample
    invalid: Rate | None = None
    by_defect: dict[str, Rate] = Field(default_factory=dict)
    by_level: dict[str, Rate] = Field(default_factory=dict)
    method: str = ""
    verdicts: dict[str, bool] = Field(default_factory=dict)  # item id → audited valid; every labelled item, sample and suspects
    accuracy: AccuracyOnValid | None = None  # a run
    records_sha256: str | None = None  # a run: its records.jsonl when the figures were computed (a rerun keeps the block only if unchanged)
    leaderboard: LeaderboardOnValid | None = None  # a sweep
    notes: list[str] = Field(default_factory=list)


# ----------------------------------------------------------------------------- a run
@dataclass(frozen=True)
class Answered:
    """One answer to a generated item: which item, the level it counts as, right or not."""

    item_id: str
    level: str
    correct: bool


def _overall(answers: Sequence[Answered]) -> LevelAccuracy:
    right = sum(a.correct for a in answers)
    return LevelAccuracy(n=len(answers), correct=right, accuracy=round(100.0 * right / len(answers), 4) if answers else None)


def _levels(answers: Sequence[Answered]) -> dict[str, LevelAccuracy]:
    return {lv: LevelAccuracy(**v) for lv, v in accuracy_by_level((a.level, a.correct) for a in answers).items()}


def accuracy_on_valid(answers: Sequence[Answered], verdicts: Mapping[str, bool], what: str) -> AccuracyOnValid:
    """Accuracy overall and per level on every answer, and on the answers to items audited valid."""
    valid = [a for a in answers if verdicts.get(a.item_id) is True]
    invalid = sum(1 for a in answers if verdicts.get(a.item_id) is False)
    return AccuracyOnValid(
        what=what, overall=_overall(answers), overall_valid=_overall(valid), by_level=_levels(answers), by_level_valid=_levels(valid),
        n_items=len(answers), n_valid=len(valid), n_invalid=invalid, n_unlabelled=len(answers) - len(valid) - invalid,
    )  # fmt: skip


# ----------------------------------------------------------------------------- a sweep
def keep_valid(item_ids: Sequence[str], verdicts: Mapping[str, bool]) -> np.ndarray:
    """Which items (columns) were audited valid."""
    return np.array([verdicts.get(i) is True for i in item_ids], dtype=bool)


def rank_changes(names: Sequence[str], before: Mapping[str, int | None], after: Mapping[str, int | None]) -> list[str]:
    """Each target whose point rank differs between all items (``before``) and valid items."""

    def word(r: int | None) -> str:
        return "unranked" if r is None else ranking.ordinal(r)

    return [f"{n}: {word(before.get(n))} on all items, {word(after.get(n))} on valid items" for n in names if before.get(n) != after.get(n)]


Calibrate = Callable[[np.ndarray], tuple[list[float | None], list[float | None]]]


def leaderboard_on_valid(correct, names: Sequence[str], item_ids: Sequence[str], clusters: Sequence[str], verdicts: Mapping[str, bool],
                         ranks_all: Mapping[str, int | None], *, n_resamples: int, seed: int, calibrate: Calibrate | None = None) -> LeaderboardOnValid:
    """The sweep's comparison on the shared items audited valid: each target's accuracy, θ
    (``calibrate``: targets × items → θ and SE per target; none given, none computed), rank
    with its bootstrap interval over the batches that wrote the items, exact McNemar per pair
    (Holm), and how the point ranking differs from ``ranks_all`` (the ranks on all items)."""
    x = np.asarray(correct, dtype=float).reshape(len(names), len(item_ids))
    keep = keep_valid(item_ids, verdicts)
    labelled = sum(1 for i in item_ids if i in verdicts)
    empty = LeaderboardOnValid(n_items=len(item_ids), n_valid=int(keep.sum()), n_invalid=labelled - int(keep.sum()), n_unlabelled=len(item_ids) - labelled)
    xv = x[:, keep]
    if not keep.any() or not (~np.isnan(xv)).any():
        return empty.model_copy(update={"note": "no shared item audited valid has an answer yet: nothing to rank on"})
    cv = [c for c, k in zip(clusters, keep) if k]
    ranks = ranking.rank_intervals(xv, names, cv, n_resamples=n_resamples, seed=seed)
    pairs = ranking.pairwise_tests(xv, names, None, seed=seed) if len(names) > 1 else []
    theta, se = calibrate(xv) if calibrate is not None else ([None] * len(names), [None] * len(names))
    rows = [TargetOnValid(name=r.target, accuracy=r.score, n=r.n_items, theta=t, theta_se=s, rank=r.rank, rank_lo=r.rank_lo, rank_hi=r.rank_hi,
                          rank_label=r.label(), rank_all=ranks_all.get(r.target)) for r, t, s in zip(ranks, theta, se)]  # fmt: skip
    rows.sort(key=lambda r: (r.rank if r.rank is not None else 10**6, -(r.accuracy or 0.0), r.name))
    changes = rank_changes(names, ranks_all, {r.name: r.rank for r in rows})
    interval_note = thin_note(len(set(cv))) if any(r.thin for r in ranks) else ""
    return empty.model_copy(update={"targets": rows, "pairwise": [PairOnValid(**p.to_dict()) for p in pairs], "ranking_changed": bool(changes),
                                    "changes": changes, "interval_note": interval_note})  # fmt: skip
