"""Uncertainty for the paper's figures: bootstrap confidence intervals and McNemar's test.

ΔACC on a few hundred seed questions moves by several points from sampling noise alone, so
a run reports how sure it is. Accuracies and their differences are in percent, like
:mod:`judgeagent.metrics.scores`.

Empty input: there is no interval, so the CI functions return None (JSON ``null``) rather
than NaN, which JSON cannot carry.
"""

from __future__ import annotations

from math import comb
from typing import Sequence

import numpy as np

# Resamples drawn per step of bootstrap_ci, so memory stays bounded for long samples.
_CHUNK = 256


def _bounds(stats: np.ndarray, level: float) -> tuple[float, float]:
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be between 0 and 1, got {level}")
    tail = (1.0 - level) / 2.0
    lo, hi = np.quantile(stats, [tail, 1.0 - tail])
    return round(float(lo), 4), round(float(hi), 4)


def bootstrap_ci(
    values: Sequence[float], *, n_resamples: int = 2000, seed: int = 0, level: float = 0.95
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the mean of ``values`` (in their own units); None when empty."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return None
    rng = np.random.default_rng(seed)
    means = np.empty(n_resamples)
    for lo in range(0, n_resamples, _CHUNK):
        k = min(_CHUNK, n_resamples - lo)
        means[lo : lo + k] = x[rng.integers(0, x.size, size=(k, x.size))].mean(axis=1)
    return _bounds(means, level)


def _paired(before: Sequence[bool], after: Sequence[bool]) -> tuple[np.ndarray, np.ndarray]:
    if len(before) != len(after):
        raise ValueError(f"before has {len(before)} answers, after has {len(after)}")
    return np.asarray(before, dtype=bool), np.asarray(after, dtype=bool)


def paired_bootstrap_ci(
    before: Sequence[bool],
    after: Sequence[bool],
    *,
    n_resamples: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> dict:
    """Intervals for ACC1, ACC2 and ΔACC (percent), resampling questions with both their answers.

    Returns ``{"n", "level", "n_resamples", "acc1": (lo, hi), "acc2": (lo, hi),
    "delta_acc": (lo, hi)}``; the three intervals are None when there are no questions.
    Resampling n questions jointly is drawing n times from the four (before, after)
    cells, so the cell counts are drawn as one multinomial: same distribution as resampling
    indices, without an n-by-resamples array.
    """
    b, a = _paired(before, after)
    n = int(b.size)
    out: dict = {"n": n, "level": level, "n_resamples": n_resamples}
    if n == 0:
        return out | {"acc1": None, "acc2": None, "delta_acc": None}
    cells = np.array([np.sum(b & a), np.sum(b & ~a), np.sum(~b & a), np.sum(~b & ~a)]) / n
    counts = np.random.default_rng(seed).multinomial(n, cells, size=n_resamples)
    acc1 = 100.0 * (counts[:, 0] + counts[:, 1]) / n
    acc2 = 100.0 * (counts[:, 0] + counts[:, 2]) / n
    return out | {"acc1": _bounds(acc1, level), "acc2": _bounds(acc2, level), "delta_acc": _bounds(acc2 - acc1, level)}


def unpaired_gap_ci(
    a: Sequence[bool], b: Sequence[bool], *, n_resamples: int = 2000, seed: int = 0, level: float = 0.95
) -> tuple[float, float] | None:
    """Interval (percentage points) for acc(a) − acc(b), resampling each group on its own; None if either is empty.

    Resampling a group of booleans with replacement is a binomial draw of its right answers.
    """
    na, nb = len(a), len(b)
    if na == 0 or nb == 0:
        return None
    rng = np.random.default_rng(seed)
    acc_a = 100.0 * rng.binomial(na, sum(map(bool, a)) / na, size=n_resamples) / na
    acc_b = 100.0 * rng.binomial(nb, sum(map(bool, b)) / nb, size=n_resamples) / nb
    return _bounds(acc_a - acc_b, level)


def mcnemar_exact(before: Sequence[bool], after: Sequence[bool]) -> dict:
    """Exact two-sided McNemar test: is right→wrong (b) as likely as wrong→right (c)?

    Under the null each discordant question flips either way with probability ½, so
    p = min(1, 2·P(X ≤ min(b, c))) with X ~ Bin(b + c, ½); p = 1 without discordant pairs.
    """
    bf, af = _paired(before, after)
    b = int(np.sum(bf & ~af))
    c = int(np.sum(~bf & af))
    n = b + c
    # Integer tail over 2^(n-1): exact, and Python's int division rounds correctly even for huge n.
    p = min(1.0, sum(comb(n, k) for k in range(min(b, c) + 1)) / 2 ** (n - 1)) if n else 1.0
    return {"b": b, "c": c, "n_discordant": n, "p_value": p}
