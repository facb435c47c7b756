"""No interval narrower than the data: a bootstrap over fewer than MIN_UNITS batches (one
resamples to itself, two give three distinct resamples) shows its figure's whole range and
says so; from MIN_UNITS on, the interval is computed. With one, two and three batches."""

from __future__ import annotations

import numpy as np
import pytest

from judgeagent.metrics import ranking
from judgeagent.metrics.stats import MIN_UNITS, bootstrap_ci, clustered_bootstrap_ci, paired_bootstrap_ci, unpaired_gap_ci

# A batch of three seeds: two right before, three right after.
BATCH = ([True, True, False], [True, True, True])


def test_the_minimum_is_three():
    assert MIN_UNITS == 3


@pytest.mark.parametrize("n_batches", [1, 2])
def test_delta_acc_from_one_or_two_batches_is_the_whole_range(n_batches):
    ci = clustered_bootstrap_ci([BATCH] * n_batches, n_resamples=500, seed=0)
    assert (ci["acc1"], ci["acc2"], ci["delta_acc"]) == ((0.0, 100.0), (0.0, 100.0), (-100.0, 100.0))
    assert ci["thin"] is True and ci["n_batches"] == n_batches
    assert ci["note"] == (f"interval shown as the whole range: it rests on {n_batches} batch{'es' if n_batches > 1 else ''}, "
                          "fewer than the 3 a resampling interval needs")  # fmt: skip


def test_delta_acc_from_three_batches_is_computed():
    other = ([False, False, False], [True, False, False])
    ci = clustered_bootstrap_ci([BATCH, BATCH, other], n_resamples=2000, seed=0)
    assert "thin" not in ci
    # ΔACC per batch: +1/3, +1/3 and +1/3 of its three seeds: every resample gives +33.3 points.
    assert ci["delta_acc"] == (pytest.approx(33.3333, abs=1e-3), pytest.approx(33.3333, abs=1e-3))
    assert ci["acc1"][0] < ci["acc1"][1] and 0.0 <= ci["acc1"][0] and ci["acc1"][1] < 100.0


def test_the_question_level_and_unpaired_intervals_follow_the_same_rule():
    assert paired_bootstrap_ci([True, False], [True, True])["delta_acc"] == (-100.0, 100.0)
    assert "thin" not in paired_bootstrap_ci([True, False, True], [True, True, True], n_resamples=200)
    assert unpaired_gap_ci([True, False], [True, True, False]) == (-100.0, 100.0)
    assert unpaired_gap_ci([True, False, True], [False, False, True], n_resamples=200) != (-100.0, 100.0)
    assert bootstrap_ci([1.0, 2.0]) is None and bootstrap_ci([1.0, 2.0, 3.0], n_resamples=200) is not None


# Two targets, one item per batch: A right on all of them, B wrong on all.
def _two(n_batches: int):
    x = np.array([[1.0] * n_batches, [0.0] * n_batches])
    return ranking.rank_intervals(x, ["A", "B"], [f"b{i}" for i in range(n_batches)], n_resamples=500, seed=0)


@pytest.mark.parametrize("n_batches", [1, 2])
def test_ranks_from_one_or_two_batches_are_every_rank(n_batches):
    a, b = _two(n_batches)
    assert [(r.rank, r.rank_lo, r.rank_hi, r.label(), r.thin) for r in (a, b)] == [(1, 1, 2, "1st–2nd", True), (2, 1, 2, "1st–2nd", True)]


def test_ranks_from_three_batches_are_computed():
    a, b = _two(3)
    assert [(r.rank, r.rank_lo, r.rank_hi, r.label(), r.thin) for r in (a, b)] == [(1, 1, 1, "1st", False), (2, 2, 2, "2nd", False)]


@pytest.mark.parametrize(("n_batches", "thin"), [(1, True), (2, True), (3, False)])
def test_rank_agreement_and_accuracy_by_level(n_batches, thin):
    # Three targets, two items per batch, perfectly ordered the same on seeds and generated items.
    x = np.array([[1.0, 1.0] * n_batches, [1.0, 0.0] * n_batches, [0.0, 0.0] * n_batches])
    clusters = [f"b{i}" for i in range(n_batches) for _ in range(2)]
    a = ranking.rank_agreement(x, clusters, x, reference_clusters=clusters, n_resamples=300, seed=0)
    assert (a.spearman, a.thin) == (1.0, thin)
    if thin:
        assert (a.spearman_ci, a.kendall_ci) == ((-1.0, 1.0), (-1.0, 1.0))
    else:
        assert a.spearman_ci is not None and a.spearman_ci != (-1.0, 1.0)
    d = ranking.difficulty_check(x, ["Easy"] * x.shape[1], x, clusters=clusters, seed_clusters=clusters, n_resamples=300, seed=0)
    easy = d.row("Easy")
    assert easy is not None and easy.thin is thin and easy.accuracy == 50.0
    assert (easy.ci == (0.0, 100.0)) is thin and (easy.gap_ci == (-100.0, 100.0)) is thin
