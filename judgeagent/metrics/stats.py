"""Uncertainty for the paper's figures: bootstrap intervals, a batch-level permutation test,
McNemar's test and the design effect.

ΔACC on a few hundred seed questions moves by several points from sampling noise alone, so
a run reports how sure it is. Accuracies and their differences are in percent, like
:mod:`judgeagent.metrics.scores`.

The seeds of a batch share one prompt and one set of suggestions, so their answers are not
independent (docs/concepts/method.md §4). The run's headline interval therefore resamples whole batches
(:func:`clustered_bootstrap_ci`) and its test flips the sign of whole batches' ΔACC
(:func:`sign_flip_test`). The question-level tools (:func:`paired_bootstrap_ci`,
:func:`mcnemar_exact`) stay for comparison; they assume independent questions, and
:func:`design_effect` says by how much that assumption understates the variance.

Empty input: there is no interval, so the CI functions return None (JSON ``null``) rather
than NaN, which JSON cannot carry.

Thin input: a bootstrap of k units has only C(2k-1, k) distinct resamples (one batch
resamples to itself; two give three), so below :data:`MIN_UNITS` units its percentile
interval claims a certainty the data do not have (a point, for one batch). Every interval
here and in :mod:`judgeagent.metrics.ranking` is then widened to the whole range its figure
can take, and marked ``thin`` with a one-line note (:func:`thin_note`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy.stats import binomtest

# Resamples drawn per step of bootstrap_ci, so memory stays bounded for long samples.
_CHUNK = 256

# The fewest units (batches, clusters of items, or questions where those are the units) a
# bootstrap interval is computed from; below it, the interval is the figure's whole range.
MIN_UNITS = 3
ACC_RANGE = (0.0, 100.0)  # an accuracy, percent
GAP_RANGE = (-100.0, 100.0)  # a difference of two accuracies, points


def thin(n_units: int) -> bool:
    """Too few units for a resampling interval to mean anything (one always is)."""
    return n_units < MIN_UNITS


def thin_note(n_units: int, unit: str = "batch") -> str:
    """The one line that says why an interval is shown as the whole range."""
    return (f"interval shown as the whole range: it rests on {n_units} {unit}{'' if n_units == 1 else 'es' if unit.endswith('h') else 's'}, "
            f"fewer than the {MIN_UNITS} a resampling interval needs")


def _bounds(stats: np.ndarray, level: float) -> tuple[float, float]:
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be between 0 and 1, got {level}")
    tail = (1.0 - level) / 2.0
    lo, hi = np.quantile(stats, [tail, 1.0 - tail])
    return round(float(lo), 4), round(float(hi), 4)


def bootstrap_ci(
    values: Sequence[float], *, n_resamples: int = 2000, seed: int = 0, level: float = 0.95
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of the mean of ``values`` (in their own units); None when
    there are fewer than MIN_UNITS values (their units, and so the range to widen to, are not
    known here: no interval is shown rather than one narrower than the data)."""
    x = np.asarray(values, dtype=float)
    if thin(int(x.size)):
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

    This treats the questions as independent, which a run's are not: they share batches
    (see :func:`clustered_bootstrap_ci`). metrics.json keeps it as ``ci_naive``.

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
    if thin(n):
        return out | {"acc1": ACC_RANGE, "acc2": ACC_RANGE, "delta_acc": GAP_RANGE, "thin": True, "note": thin_note(n, "question")}
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
    if thin(min(na, nb)):
        return GAP_RANGE
    rng = np.random.default_rng(seed)
    acc_a = 100.0 * rng.binomial(na, sum(map(bool, a)) / na, size=n_resamples) / na
    acc_b = 100.0 * rng.binomial(nb, sum(map(bool, b)) / nb, size=n_resamples) / nb
    return _bounds(acc_a - acc_b, level)


def mcnemar_exact(before: Sequence[bool], after: Sequence[bool]) -> dict:
    """Exact two-sided McNemar test: is right→wrong (b) as likely as wrong→right (c)?

    Under the null each discordant question flips either way with probability ½: the
    two-sided exact binomial test of b successes in b + c trials (scipy's ``binomtest``,
    which for p = ½ is min(1, 2·P(X ≤ min(b, c)))); p = 1 without discordant pairs.
    """
    bf, af = _paired(before, after)
    b = int(np.sum(bf & ~af))
    c = int(np.sum(~bf & af))
    n = b + c
    p = float(binomtest(b, n, 0.5).pvalue) if n else 1.0
    return {"b": b, "c": c, "n_discordant": n, "p_value": p}


# ----------------------------------------------------------------------------- batches
# One batch's answers: (right before, right after), one flag per seed question.
BatchFlags = tuple[Sequence[bool], Sequence[bool]]

CLUSTERED = "batch_bootstrap"  # what metrics.json's "ci" now is
NAIVE = "question_bootstrap"  # the former "ci", kept as "ci_naive"


def _batch_counts(batches: Sequence[BatchFlags]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per batch: its size, right before and right after. Empty batches are left out."""
    sizes, right1, right2 = [], [], []
    for before, after in batches:
        b, a = _paired(before, after)
        if b.size:
            sizes.append(b.size)
            right1.append(int(b.sum()))
            right2.append(int(a.sum()))
    return np.array(sizes, dtype=np.int64), np.array(right1, dtype=np.int64), np.array(right2, dtype=np.int64)


def clustered_bootstrap_ci(
    batches: Sequence[BatchFlags], *, n_resamples: int = 2000, seed: int = 0, level: float = 0.95
) -> dict:
    """Intervals for ACC1, ACC2 and ΔACC (percent), resampling whole batches with their answers.

    Each resample draws as many batches as the run has, with replacement, and computes the
    figures over the questions they hold (a ratio, since batches may differ in size, as
    RMC's articles do). Answers that move together inside a batch then move together in
    every resample, so the interval carries their correlation. With one question per batch
    its resamples have the distribution of the question-level :func:`paired_bootstrap_ci`.

    Returns the keys of :func:`paired_bootstrap_ci` plus ``n_batches`` and ``ci_method``.
    """
    n, r1, r2 = _batch_counts(batches)
    out: dict = {"n": int(n.sum()), "n_batches": int(n.size), "level": level, "n_resamples": n_resamples, "ci_method": CLUSTERED}
    if n.size == 0:
        return out | {"acc1": None, "acc2": None, "delta_acc": None}
    if thin(int(n.size)):
        return out | {"acc1": ACC_RANGE, "acc2": ACC_RANGE, "delta_acc": GAP_RANGE, "thin": True, "note": thin_note(int(n.size))}
    rng = np.random.default_rng(seed)
    acc1, acc2 = np.empty(n_resamples), np.empty(n_resamples)
    for lo in range(0, n_resamples, _CHUNK):
        k = min(_CHUNK, n_resamples - lo)
        idx = rng.integers(0, n.size, size=(k, n.size))
        total = n[idx].sum(axis=1)
        acc1[lo : lo + k] = 100.0 * r1[idx].sum(axis=1) / total
        acc2[lo : lo + k] = 100.0 * r2[idx].sum(axis=1) / total
    return out | {"acc1": _bounds(acc1, level), "acc2": _bounds(acc2, level), "delta_acc": _bounds(acc2 - acc1, level)}


def batch_differences(batches: Sequence[BatchFlags]) -> list[int]:
    """Each batch's net corrections: right after minus right before (ΔACC·N/100 summed over batches)."""
    _, right1, right2 = _batch_counts(batches)
    return [int(x) for x in right2 - right1]


# Rows of sign assignments scored per step, so memory stays bounded for many batches.
_FLIP_CHUNK = 4096


def sign_flip_test(
    diffs: Sequence[float], *, n_permutations: int = 10000, seed: int = 0, exact_max: int = 16
) -> dict:
    """Two-sided paired permutation test of "no effect", flipping the sign of whole batches.

    Under the null the suggestions change nothing, so a batch's answers before and after are
    exchangeable and its difference ``d_i`` is as likely to have either sign. The statistic
    is |Σ d_i| and p is the share of sign assignments s with |Σ s_i·d_i| ≥ the observed one.
    Batches are the unit, so answers that move together within a batch are not counted as
    independent evidence (unlike :func:`mcnemar_exact`).

    A batch with d_i = 0 adds nothing to any sum and only doubles both counts, so just the k
    non-zero batches are flipped: all 2^k assignments when k ≤ ``exact_max`` (p exact),
    otherwise ``n_permutations`` seeded random ones with p = (1 + hits) / (1 + draws), which is
    never 0. Returns ``{"n_batches", "n_nonzero", "statistic" (Σ d_i), "method",
    "n_permutations", "p_value"}``.
    """
    d = np.asarray(diffs, dtype=float)
    nz = d[d != 0]
    k = int(nz.size)
    observed = abs(float(nz.sum()))
    # Sums of whole numbers are exact in float64; the tolerance only matters for fractional d.
    threshold = observed - 1e-9 * max(1.0, observed)
    out = {"n_batches": int(d.size), "n_nonzero": k, "statistic": round(float(d.sum()), 4)}
    if k <= exact_max:
        hits = _exact_flip_hits(nz, threshold)
        return out | {"method": "exact", "n_permutations": 2**k, "p_value": hits / 2**k}
    rng = np.random.default_rng(seed)
    hits = 0
    for lo in range(0, n_permutations, _FLIP_CHUNK):
        signs = rng.choice(np.array([-1.0, 1.0]), size=(min(_FLIP_CHUNK, n_permutations - lo), k))
        hits += int(np.sum(np.abs(signs @ nz) >= threshold))
    return out | {"method": "monte_carlo", "n_permutations": n_permutations, "p_value": (1 + hits) / (1 + n_permutations)}


def _exact_flip_hits(nz: np.ndarray, threshold: float) -> int:
    """How many of the 2^k sign assignments reach |Σ s_i·d_i| ≥ threshold."""
    k = nz.size
    hits = 0
    for lo in range(0, 2**k, _FLIP_CHUNK):
        codes = np.arange(lo, min(lo + _FLIP_CHUNK, 2**k))
        signs = ((codes[:, None] >> np.arange(k)) & 1) * 2.0 - 1.0
        hits += int(np.sum(np.abs(signs @ nz) >= threshold))
    return hits


def design_effect(batches: Sequence[BatchFlags]) -> dict:
    """How much batching inflates the variance of ACC1, ACC2 and ΔACC: Var_clustered / Var_naive.

    This is the variance ratio (Kish's design effect), not the 1 + (m − 1)·ρ formula fed with
    a separately estimated ICC. Both variances are the plain linearised estimates for a mean
    over N questions, with no small-sample correction on either side, so they compare like
    for like (x_j a question's value, x̄ their mean, y_i a batch's total, n_i its size):

        naive      Σ_j (x_j − x̄)² / N²        the N answers independent
        clustered  Σ_i (y_i − n_i·x̄)² / N²    the batches independent

    For batches of equal size m the ratio is exactly 1 + (m − 1)·ρ, with ρ the pairwise
    within-batch correlation of the answers about x̄; the ratio also covers unequal sizes.
    1: batching changes nothing; 3: a question-level interval is √3 times too narrow.
    A figure is None when every question has the same value (no variance to inflate).
    """
    n, r1, r2 = _batch_counts(batches)
    out: dict = {"method": "variance_ratio", "n_batches": int(n.size), "mean_batch_size": round(float(n.mean()), 4) if n.size else None}
    before = [np.asarray(b, bool) for b, _ in batches]
    after = [np.asarray(a, bool) for _, a in batches]
    values = {
        "acc1": [b.astype(float) for b in before],
        "acc2": [a.astype(float) for a in after],
        "delta_acc": [a.astype(float) - b.astype(float) for b, a in zip(before, after)],
    }
    for key, per_batch in values.items():
        out[key] = _variance_ratio([v for v in per_batch if v.size])
    return out


def _variance_ratio(per_batch: list[np.ndarray]) -> float | None:
    if not per_batch:
        return None
    x = np.concatenate(per_batch)
    mean = x.mean()
    naive = float(np.sum((x - mean) ** 2))
    if naive == 0.0:
        return None
    clustered = float(sum((v.sum() - v.size * mean) ** 2 for v in per_batch))
    return round(clustered / naive, 4)
