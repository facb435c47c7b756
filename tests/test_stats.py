"""Bootstrap intervals and McNemar's test against hand-computed cases and synthetic data."""

import numpy as np
import pytest

from judgeagent.metrics.stats import bootstrap_ci, mcnemar_exact, paired_bootstrap_ci, unpaired_gap_ci


def _pairs(b: int, c: int, same_right: int = 0, same_wrong: int = 0) -> tuple[list[bool], list[bool]]:
    """b right→wrong, c wrong→right, plus concordant pairs."""
    before = [True] * b + [False] * c + [True] * same_right + [False] * same_wrong
    after = [False] * b + [True] * c + [True] * same_right + [False] * same_wrong
    return before, after


def test_mcnemar_hand_computed():
    # n = 8 discordant, min = 1: 2 · (C(8,0) + C(8,1)) / 2^8 = 18 / 256.
    out = mcnemar_exact(*_pairs(1, 7, same_right=5, same_wrong=3))
    assert out == {"b": 1, "c": 7, "n_discordant": 8, "p_value": 0.0703125}


def test_mcnemar_no_discordant_pairs_is_one():
    assert mcnemar_exact(*_pairs(0, 0, same_right=4, same_wrong=2))["p_value"] == 1.0
    assert mcnemar_exact([], [])["p_value"] == 1.0


def test_mcnemar_is_symmetric_and_capped():
    assert mcnemar_exact(*_pairs(7, 1))["p_value"] == mcnemar_exact(*_pairs(1, 7))["p_value"]
    assert mcnemar_exact(*_pairs(3, 3))["p_value"] == 1.0
    assert mcnemar_exact(*_pairs(0, 1))["p_value"] == 1.0


def test_mcnemar_large_counts_do_not_overflow():
    p = mcnemar_exact(*_pairs(400, 600))["p_value"]
    assert 0.0 < p < 1e-8


def test_mcnemar_rejects_unpaired_lengths():
    with pytest.raises(ValueError):
        mcnemar_exact([True], [True, False])


def test_bootstrap_covers_true_mean_in_most_replications():
    p, n, covered = 0.6, 200, 0
    for rep in range(50):
        sample = np.random.default_rng(1000 + rep).random(n) < p
        lo, hi = bootstrap_ci(sample, n_resamples=1000, seed=rep)
        covered += lo <= p <= hi
    assert covered >= 43  # ≥ 85% for a nominal 95% interval


def test_bootstrap_is_deterministic_for_a_seed():
    sample = np.random.default_rng(3).random(50)
    assert bootstrap_ci(sample, seed=7) == bootstrap_ci(sample, seed=7)
    assert bootstrap_ci(sample, seed=7) != bootstrap_ci(sample, seed=8)


def test_bootstrap_brackets_the_mean_and_narrows_with_level():
    sample = np.random.default_rng(4).normal(10.0, 2.0, size=100)
    lo95, hi95 = bootstrap_ci(sample)
    lo50, hi50 = bootstrap_ci(sample, level=0.5)
    assert lo95 < sample.mean() < hi95
    assert lo95 < lo50 < hi50 < hi95


def test_empty_input_gives_none():
    assert bootstrap_ci([]) is None
    assert unpaired_gap_ci([], [True]) is None
    out = paired_bootstrap_ci([], [])
    assert out["n"] == 0 and out["acc1"] is None and out["acc2"] is None and out["delta_acc"] is None


def test_paired_ci_contains_observed_values_in_percent():
    before, after = _pairs(5, 15, same_right=50, same_wrong=30)  # ACC1 55%, ACC2 65%
    out = paired_bootstrap_ci(before, after, seed=1)
    assert out["n"] == 100
    assert out["acc1"][0] < 55.0 < out["acc1"][1]
    assert out["acc2"][0] < 65.0 < out["acc2"][1]
    assert out["delta_acc"][0] < 10.0 < out["delta_acc"][1]
    assert out == paired_bootstrap_ci(before, after, seed=1)


def test_paired_ci_of_difference_is_narrower_than_unpaired():
    # Answers that barely change: pairing removes the shared question-to-question variance.
    before, after = _pairs(2, 6, same_right=60, same_wrong=32)
    paired = paired_bootstrap_ci(before, after)["delta_acc"]
    unpaired = unpaired_gap_ci(after, before)
    assert paired[1] - paired[0] < (unpaired[1] - unpaired[0]) / 2


def test_paired_ci_rejects_unpaired_lengths():
    with pytest.raises(ValueError):
        paired_bootstrap_ci([True], [])


def test_unpaired_gap_ci_sign_and_determinism():
    a = [True] * 80 + [False] * 20
    b = [True] * 40 + [False] * 60
    lo, hi = unpaired_gap_ci(a, b, seed=2)
    assert 20.0 < lo < 40.0 < hi < 60.0
    assert unpaired_gap_ci(a, b, seed=2) == (lo, hi)
    assert unpaired_gap_ci(b, a, seed=2)[1] < 0
