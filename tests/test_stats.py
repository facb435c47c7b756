"""Bootstrap intervals, the batch permutation test, McNemar's test and the design effect,
against hand-computed cases and synthetic data."""

import numpy as np
import pytest

from judgeagent.metrics.stats import (
    batch_differences,
    bootstrap_ci,
    clustered_bootstrap_ci,
    design_effect,
    mcnemar_exact,
    paired_bootstrap_ci,
    sign_flip_test,
    unpaired_gap_ci,
)


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


# ----------------------------------------------------------------------------- batches
def _correlated_batches(n_batches: int, size: int, seed: int, noise: float = 0.0) -> list[tuple[list[bool], list[bool]]]:
    """Batches whose seeds move together: a batch is known or not as a whole, and the
    suggestions fix a whole unknown batch or none of it (the shared-advice effect). With
    ``noise``, each answer then flips on its own with that probability."""
    rng = np.random.default_rng(seed)
    batches = []
    for _ in range(n_batches):
        known = bool(rng.random() < 0.5)
        fixed = known or bool(rng.random() < 0.4)
        before = [known != bool(rng.random() < noise) for _ in range(size)]
        after = [fixed != bool(rng.random() < noise) for _ in range(size)]
        batches.append((before, after))
    return batches


def _flat(batches):
    return [f for b, _ in batches for f in b], [f for _, a in batches for f in a]


def _width(ci):
    return ci[1] - ci[0]


def test_clustered_interval_is_at_least_as_wide_as_the_naive_one_for_correlated_batches():
    batches = _correlated_batches(30, 3, seed=11)
    clustered = clustered_bootstrap_ci(batches, seed=5)
    naive = paired_bootstrap_ci(*_flat(batches), seed=5)
    assert clustered["n"] == naive["n"] == 90 and clustered["n_batches"] == 30
    assert clustered["ci_method"] == "batch_bootstrap"
    for key in ("acc1", "acc2", "delta_acc"):
        assert _width(clustered[key]) >= _width(naive[key]), key
    # Answers identical within a batch of 3: the variance ratio is 1 + (3 − 1)·1 = 3 exactly,
    # so the clustered interval is about √3 as wide.
    deff = design_effect(batches)
    assert (deff["acc1"], deff["acc2"], deff["delta_acc"]) == (3.0, 3.0, 3.0)
    assert _width(clustered["delta_acc"]) >= 1.4 * _width(naive["delta_acc"])


def test_clustered_interval_is_seeded_and_contains_the_observed_figures():
    batches = _correlated_batches(20, 3, seed=2, noise=0.2)
    before, after = _flat(batches)
    acc1, acc2 = 100 * sum(before) / 60, 100 * sum(after) / 60
    out = clustered_bootstrap_ci(batches, seed=3)
    assert out == clustered_bootstrap_ci(batches, seed=3)
    assert out != clustered_bootstrap_ci(batches, seed=4)
    assert out["acc1"][0] <= acc1 <= out["acc1"][1]
    assert out["acc2"][0] <= acc2 <= out["acc2"][1]
    assert out["delta_acc"][0] <= acc2 - acc1 <= out["delta_acc"][1]


def test_clustered_interval_handles_unequal_batches_and_empty_input():
    # One batch of 1 right and two of 3 wrong. A resample draws three batches; the small one
    # k times, k ~ Binomial(3, 1/3): none (ACC1 0, chance 8/27), once (1 right of 7 questions:
    # 14.3, not the 33.3 that averaging batch accuracies would give; chance 12/27), twice (2 of
    # 5: 40, 6/27) or three times (100, 1/27). The middle 20% falls on "once".
    batches = [([True], [True]), ([False] * 3, [False] * 3), ([False] * 3, [False] * 3)]
    assert clustered_bootstrap_ci(batches, n_resamples=4000, seed=0, level=0.99)["acc1"] == (0.0, 100.0)
    assert clustered_bootstrap_ci(batches, n_resamples=4000, seed=0, level=0.2)["acc1"] == (14.2857, 14.2857)
    # Two batches are too few to resample (tests/test_thin_intervals.py): the whole range, at any level.
    assert clustered_bootstrap_ci(batches[:2], n_resamples=4000, seed=0, level=0.2)["acc1"] == (0.0, 100.0)
    empty = clustered_bootstrap_ci([])
    assert (empty["n"], empty["n_batches"], empty["acc1"], empty["delta_acc"]) == (0, 0, None, None)
    with pytest.raises(ValueError):
        clustered_bootstrap_ci([([True], [])])


def test_batch_differences_count_net_corrections():
    batches = [([False, False, True], [True, True, True]), ([True, True], [True, False]), ([], [])]
    assert batch_differences(batches) == [2, -1]


def test_sign_flip_test_matches_the_hand_enumeration():
    # Batch ΔACC (in questions) d = (2, 1, −1, 0); observed |Σd| = 2. The zero batch adds
    # nothing to any sum (it doubles both counts), so enumerate the 2³ signs of (2, 1, −1):
    #   +2+1−1 = 2   +2+1+1 = 4   +2−1−1 = 0   +2−1+1 = 2
    #   −2+1−1 = −2  −2+1+1 = 0   −2−1−1 = −4  −2−1+1 = −2
    # |sum| ≥ 2 in 6 of the 8, so p = 6/8 = 0.75.
    out = sign_flip_test([2, 1, -1, 0])
    assert out == {"n_batches": 4, "n_nonzero": 3, "statistic": 2.0, "method": "exact", "n_permutations": 8, "p_value": 0.75}
    # Five batches all +1: only all-plus and all-minus reach |Σ| = 5, so p = 2/2⁵ = 0.0625,
    # the smallest p five batches can give (McNemar on 15 such questions would say 6e-5).
    assert sign_flip_test([1, 1, 1, 1, 1])["p_value"] == 0.0625
    # (3, −1): sums ±3±1 are 4, 2, −2, −4; |sum| ≥ |3 − 1| = 2 in all four, p = 1.
    assert sign_flip_test([3, -1])["p_value"] == 1.0
    assert sign_flip_test([0, 0])["p_value"] == 1.0
    assert sign_flip_test([])["p_value"] == 1.0


def test_sign_flip_test_is_exact_up_to_sixteen_changed_batches_then_monte_carlo():
    assert sign_flip_test([1] * 16)["method"] == "exact"
    assert sign_flip_test([1] * 16)["p_value"] == 2 / 2**16
    out = sign_flip_test([2, 1, -1, 0], exact_max=2, n_permutations=20000, seed=1)
    assert out["method"] == "monte_carlo" and out["n_permutations"] == 20000
    assert out["p_value"] == pytest.approx(0.75, abs=0.01)  # the exact value, within ~3 standard errors
    assert out == sign_flip_test([2, 1, -1, 0], exact_max=2, n_permutations=20000, seed=1)
    # Never 0: with no draw as extreme as 20 batches all +1, p = 1 / (1 + draws).
    assert sign_flip_test([1] * 20, n_permutations=999, seed=0)["p_value"] == 1 / 1000


def test_design_effect_hand_computed():
    # ΔACC per question: batch A (1, 1), batch B (0, 0); mean ½.
    # naive Σ(x − ½)² = 4·¼ = 1; clustered Σ(y_i − 2·½)² = (2 − 1)² + (0 − 1)² = 2; ratio 2.
    together = [([False, False], [True, True]), ([True, True], [True, True])]
    assert design_effect(together)["delta_acc"] == 2.0
    # Batches (1, 0) and (1, 0): the totals equal their expectation, clustered variance 0.
    apart = [([False, True], [True, True]), ([False, True], [True, True])]
    assert design_effect(apart)["delta_acc"] == 0.0
    # One batch, right before and after: nothing varies, so there is nothing to inflate.
    out = design_effect([([True, True], [True, True])])
    assert (out["acc1"], out["acc2"], out["delta_acc"], out["mean_batch_size"]) == (None, None, None, 2.0)
    assert out["method"] == "variance_ratio"


def test_design_effect_is_one_for_batches_of_one():
    batches = [([b], [a]) for b, a in zip(*_pairs(3, 5, same_right=7, same_wrong=2))]
    out = design_effect(batches)
    assert (out["acc1"], out["acc2"], out["delta_acc"]) == (1.0, 1.0, 1.0)
