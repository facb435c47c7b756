"""Rank intervals, pairwise tests, rank agreement and the difficulty check
(judgeagent/metrics/ranking.py) against hand-computed cases and seeded simulations."""

import numpy as np
import pytest

from judgeagent.metrics.ranking import (
    LevelStep,
    accuracies,
    difficulty_check,
    holm,
    kendall_tau_b,
    ordinal,
    pairwise_tests,
    rank_agreement,
    rank_intervals,
    spearman,
)

NAN = float("nan")


def _simulated(abilities, n_items: int, seed: int) -> np.ndarray:
    """Right with probability σ(ability − difficulty), difficulties N(0, 1)."""
    rng = np.random.default_rng(seed)
    b = rng.normal(size=n_items)
    p = 1.0 / (1.0 + np.exp(-(np.asarray(abilities)[:, None] - b[None, :])))
    return (rng.random(p.shape) < p).astype(float)


# ----------------------------------------------------------------------------- rank intervals
def test_accuracies_skip_unanswered_items():
    out = accuracies([[1, 0, NAN, 1], [NAN, NAN, NAN, NAN], [0, 0, 0, 1]])
    assert out[0] == pytest.approx(200 / 3) and np.isnan(out[1]) and out[2] == 25.0


def test_ordinal_labels():
    assert [ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 101, 111)] == [
        "1st",
        "2nd",
        "3rd",
        "4th",
        "11th",
        "12th",
        "13th",
        "21st",
        "22nd",
        "23rd",
        "101st",
        "111th",
    ]


def test_rank_intervals_separated_targets_are_certain():
    # A right on every item and B wrong on every one: no resample can change the order.
    # C answered nothing (failed calls): no score, ranked after every scored target.
    x = [[1, 1, 1, 1], [0, 0, 0, 0], [NAN, NAN, NAN, NAN]]
    out = rank_intervals(x, ["A", "B", "C"], n_resamples=200)
    assert [(r.target, r.score, r.n_items, r.rank, r.rank_lo, r.rank_hi) for r in out] == [
        ("A", 100.0, 4, 1, 1, 1),
        ("B", 0.0, 4, 2, 2, 2),
        ("C", None, 0, 3, 3, 3),
    ]
    assert [r.label() for r in out] == ["1st", "2nd", "3rd"]
    assert out[0].to_dict()["label"] == "1st"


def test_rank_intervals_tied_targets_share_both_ranks():
    # Identical answers tie in every resample: each is 1st at best and 2nd at worst.
    x = [[1, 0, 1, 0, 1], [1, 0, 1, 0, 1], [0, 0, 0, 0, 0]]
    out = rank_intervals(x, ["A", "B", "C"], n_resamples=300, seed=3)
    assert [(r.rank, r.rank_lo, r.rank_hi) for r in out[:2]] == [(1, 1, 2), (1, 1, 2)]
    assert out[0].label() == "1st–2nd"
    assert out[0].score == 60.0


def test_rank_intervals_close_targets_overlap():
    # B beats A by one item in four: resamples often reverse or tie them. With 2/4 vs 3/4
    # a resample gives A all of its right items with P = (1/2)^4 (6.25% > 2.5%), so A's
    # interval reaches 1st; B reaches 2nd.
    x = [[1, 1, 0, 0], [1, 1, 1, 0]]
    a, b = rank_intervals(x, ["A", "B"], n_resamples=2000, seed=0)
    assert (a.rank, a.rank_lo, a.rank_hi) == (2, 1, 2)
    assert (b.rank, b.rank_lo, b.rank_hi) == (1, 1, 2)


def test_one_cluster_holding_every_item_claims_no_certainty():
    # Resampling one cluster always redraws all items, so its interval would be the observed
    # rank: certainty the data do not have. It is the full range instead, and says so.
    x = [[1, 1, 0, 0], [1, 1, 1, 0], [1, 0, 0, 0]]
    out = rank_intervals(x, ["A", "B", "C"], clusters=["k"] * 4, n_resamples=100)
    assert [(r.rank, r.rank_lo, r.rank_hi, r.thin) for r in out] == [(2, 1, 3, True), (1, 1, 3, True), (3, 1, 3, True)]


def test_singleton_clusters_equal_no_clusters():
    x = _simulated([1.0, 0.5, 0.0], 40, seed=1)
    plain = rank_intervals(x, ["a", "b", "c"], seed=7, n_resamples=500)
    single = rank_intervals(x, ["a", "b", "c"], clusters=list(range(40)), seed=7, n_resamples=500)
    assert plain == single


def test_clusters_widen_intervals_when_answers_move_together():
    # Items asked in batches of 10 whose answers move together: per item the two targets
    # look far apart (70 vs 30 items right) but there are only 10 pieces of evidence: a
    # batch resample draws 5 or fewer of a's 7 batches with P ≈ 0.15. Item-level resampling
    # calls the order certain; batch resampling does not.
    a = np.repeat([1, 1, 1, 1, 1, 1, 1, 0, 0, 0], 10).astype(float)
    b = 1.0 - a
    x = np.vstack([a, b])
    batches = np.repeat(np.arange(10), 10)
    naive = rank_intervals(x, ["a", "b"], n_resamples=2000, seed=0)
    clustered = rank_intervals(x, ["a", "b"], clusters=batches, n_resamples=2000, seed=0)
    assert [(r.rank_lo, r.rank_hi) for r in naive] == [(1, 1), (2, 2)]
    assert [(r.rank_lo, r.rank_hi) for r in clustered] == [(1, 2), (1, 2)]


def test_rank_intervals_cover_the_true_order_on_simulated_targets():
    abilities = [2.0, 1.0, 0.0, -1.0, -2.0]
    hits = 0
    for rep in range(10):
        x = _simulated(abilities, 150, seed=rep)
        out = rank_intervals(x, list("ABCDE"), clusters=np.arange(150) // 5, n_resamples=500, seed=rep)
        hits += sum(r.rank_lo <= true <= r.rank_hi for true, r in enumerate(out, start=1))
        assert all(r.rank_lo <= r.rank <= r.rank_hi for r in out)
    assert hits >= 45  # of 50 intervals


def test_rank_intervals_reject_bad_input():
    with pytest.raises(ValueError, match="2 target names for 3 rows"):
        rank_intervals([[1], [0], [1]], ["a", "b"])
    with pytest.raises(ValueError, match="other than 0, 1 and NaN"):
        rank_intervals([[0.5]], ["a"])
    with pytest.raises(ValueError, match="clusters has 1 ids for 2 items"):
        rank_intervals([[1, 0]], ["a"], clusters=["x"])


# ----------------------------------------------------------------------------- pairwise
def test_holm_hand_computed():
    # Sorted 0.005, 0.01, 0.03, 0.04 times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04 → monotone 0.06.
    assert holm([0.01, 0.04, 0.03, 0.005]) == pytest.approx([0.03, 0.06, 0.06, 0.02])
    assert holm([0.5, 0.9]) == [1.0, 1.0]
    assert holm([]) == []


def test_pairwise_mcnemar_with_holm_hand_computed():
    a = [1, 1, 1, 1, 1, 0, 0, 0, 0, 0]
    b = [0] * 10
    c = [NAN] + [0] * 9  # C failed item 0: A and C share 9 items
    out = pairwise_tests([a, b, c], ["A", "B", "C"])
    ab, ac, bc = out
    # A–B: 5 discordant, all A: p = 2 · (1/2)^5 = 0.0625. A–C: 4 of 9 shared: 2/16 = 0.125.
    assert (ab.a, ab.b, ab.n_shared, ab.a_only, ab.b_only, ab.diff) == ("A", "B", 10, 5, 0, 50.0)
    assert (ac.n_shared, ac.a_only, ac.b_only) == (9, 4, 0)
    assert ac.diff == pytest.approx(44.4444)
    assert (ab.p_value, ac.p_value, bc.p_value) == (0.0625, 0.125, 1.0)
    # Holm over 3 pairs: 0.0625·3 = 0.1875, 0.125·2 = 0.25, 1.
    assert (ab.p_holm, ac.p_holm, bc.p_holm) == pytest.approx((0.1875, 0.25, 1.0))
    assert [t.significant for t in out] == [False, False, False]
    assert {t.method for t in out} == {"mcnemar_exact"}
    assert (bc.n_shared, bc.a_only, bc.b_only, bc.diff) == (9, 0, 0, 0.0)


def test_pairwise_clustered_counts_a_batch_once():
    # A's 5 wins are all in one batch: the sign-flip over two batches (net +5 and 0) has
    # one non-zero batch, and both signs reach |5|: p = 1.
    a = [1, 1, 1, 1, 1, 0, 0, 0, 0, 0]
    b = [0] * 10
    (t,) = pairwise_tests([a, b], ["A", "B"], clusters=["x"] * 5 + ["y"] * 5)
    assert (t.method, t.a_only, t.b_only, t.p_value, t.p_holm) == ("cluster_sign_flip", 5, 0, 1.0, 1.0)


def test_pairwise_significant_on_separated_targets():
    x = _simulated([2.0, -2.0], 200, seed=4)
    (t,) = pairwise_tests(x, ["strong", "weak"])
    assert t.significant and t.p_holm < 1e-10 and t.diff > 40


# ----------------------------------------------------------------------------- agreement
def test_spearman_and_kendall_hand_computed():
    # y ranks (1, 2.5, 2.5): rho = 1.5 / √(2 · 1.5) = 0.8660; tau-b = 2 / √(3 · 2) = 0.8165.
    assert spearman([1, 2, 3], [1, 2, 2]) == 0.866
    assert kendall_tau_b([1, 2, 3], [1, 2, 2]) == 0.8165
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == -1.0
    assert kendall_tau_b([1, 2, 3, 4], [4, 3, 2, 1]) == -1.0
    assert spearman([1, 1, 1], [1, 2, 3]) is None
    assert kendall_tau_b([1], [1]) is None
    assert spearman([1, 2, NAN, 3], [1, 2, 9, 3]) == 1.0  # the NaN pair is left out


def test_spearman_and_kendall_match_scipy_with_ties():
    stats = pytest.importorskip("scipy.stats")
    rng = np.random.default_rng(5)
    for _ in range(20):
        x, y = rng.integers(0, 4, 9), rng.integers(0, 4, 9)
        assert spearman(x, y) == pytest.approx(stats.spearmanr(x, y).statistic, abs=1e-4)
        assert kendall_tau_b(x, y) == pytest.approx(stats.kendalltau(x, y).statistic, abs=1e-4)


def test_rank_agreement_hand_computed_with_fixed_reference():
    # Generated scores 100, 50, 0; reference ranks A, C, B. rho: ranks (3,2,1) vs (3,1,2)
    # → 1/2. tau-b: pairs AB +, AC +, BC − → 1/3. One cluster: every resample is the data,
    # so the intervals are the whole range rather than the point.
    x = [[1, 1], [1, 0], [0, 0], [1, 1]]
    ref = [3.0, 1.0, 2.0, NAN]  # the fourth target is not on the reference: left out
    out = rank_agreement(x, ["k", "k"], ref, n_resamples=50)
    assert (out.n_targets, out.spearman, out.kendall, out.thin) == (3, 0.5, 0.3333, True)
    assert out.spearman_ci == (-1.0, 1.0) and out.kendall_ci == (-1.0, 1.0)
    assert out.to_dict()["spearman_ci"] == [-1.0, 1.0]


def test_rank_agreement_resamples_both_matrices():
    abilities = [1.0, 0.5, 0.0, -0.5, -1.0]
    generated = _simulated(abilities, 300, seed=1)
    seeds = _simulated(abilities, 200, seed=2)
    out = rank_agreement(generated, None, seeds, reference_clusters=np.arange(200) // 4, seed=3)
    assert out.spearman == 1.0 and out.kendall == 1.0
    lo, hi = out.spearman_ci
    assert (lo, hi) == (0.9, 1.0)  # both sides noisy: neighbours swap in some resamples
    assert out.kendall_ci == (0.8, 1.0)  # one swapped pair: tau 0.8, rho 0.9
    reversed_ = rank_agreement(generated, None, -np.asarray(abilities))
    assert reversed_.spearman == -1.0


def test_rank_agreement_needs_two_targets():
    out = rank_agreement([[1, 0]], None, [1.0])
    assert (out.n_targets, out.spearman, out.spearman_ci) == (1, None, None)
    with pytest.raises(ValueError, match="reference has 3 targets, correct has 2"):
        rank_agreement([[1], [0]], None, [1.0, 2.0, 3.0])


# ----------------------------------------------------------------------------- difficulty
def test_difficulty_check_hand_computed():
    seeds = [[1, 1, 0, 0], [1, 0, 0, 0]]  # 3 of 8: 37.5%
    generated = [[1, 1, 1, 0], [1, 0, 0, 0]]
    levels = ["easy", "easy", "medium", "hard"]  # case does not matter
    out = difficulty_check(generated, levels, seeds, n_resamples=2000, seed=0)
    got = {r.level: (r.n_items, r.n_answers, r.accuracy, r.gap_vs_seeds) for r in out.rows}
    assert got == {
        "seeds": (4, 8, 37.5, None),
        "all generated": (4, 8, 50.0, 12.5),
        "Easy": (2, 4, 75.0, 37.5),
        "Medium": (1, 2, 50.0, 12.5),
        "Hard": (1, 2, 0.0, -37.5),
    }
    assert [r.level for r in out.rows] == ["seeds", "all generated", "Easy", "Medium", "Hard"]
    assert out.ordered is True
    # Hard is one item, Easy two: too few to resample, so their intervals are the whole
    # range (0 to 100, and -100 to 100 against the seeds): not shown harder.
    hard = out.row("Hard")
    assert (hard.ci, hard.gap_ci, hard.thin) == ((0.0, 100.0), (-100.0, 100.0), True)
    assert out.hard_harder_than_seeds is False
    assert out.to_dict()["rows"][0]["level"] == "seeds"
    assert [r.n_clusters for r in out.rows] == [4, 4, 2, 1, 1]  # no clusters: each item its own
    assert [r.thin for r in out.rows] == [False, False, True, True, True]
    # All generated: four items, enough to resample; its interval is computed.
    everything = out.row("all generated")
    assert everything.ci is not None and 0.0 <= everything.ci[0] < 50.0 < everything.ci[1] <= 100.0
    # Steps between levels of one or two items: the whole range, so not ordered by intervals.
    assert out.steps == [LevelStep("Easy", "Medium", 25.0, (-100.0, 100.0)), LevelStep("Medium", "Hard", 50.0, (-100.0, 100.0))]
    assert out.to_dict()["steps"][0] == {"easier": "Easy", "harder": "Medium", "gap": 25.0, "ci": [-100.0, 100.0]}
    assert out.ordered_by_intervals is False


def test_difficulty_check_flags_easy_generated_items_and_inverted_levels():
    rng = np.random.default_rng(0)
    n_targets = 4
    seeds = (rng.random((n_targets, 200)) < 0.4).astype(float)
    # Generated items are easier than the seeds, and "Hard" is the easiest of all.
    share = {"Easy": 0.7, "Medium": 0.8, "Hard": 0.9}
    levels = [("Easy", "Medium", "Hard")[j % 3] for j in range(300)]
    generated = np.array([[rng.random() < share[lv] for lv in levels] for _ in range(n_targets)], dtype=float)
    generated[0, :10] = NAN
    out = difficulty_check(generated, levels, seeds, clusters=[j // 3 for j in range(300)], seed=1)
    assert out.generated_easier_than_seeds is True
    assert out.ordered is False and out.ordered_by_intervals is False
    assert [st.gap < 0 for st in out.steps] == [True, True]
    assert out.row("Easy").n_clusters == 100  # items written 3 per batch, one level each in turn
    assert out.hard_harder_than_seeds is False
    assert out.row("all generated").n_answers == 4 * 300 - 10
    assert out.row("Hard").gap_ci[0] > 30


def test_difficulty_check_keeps_unknown_levels_and_handles_missing_ones():
    out = difficulty_check([[1, 0, 1]], ["Hard", "hard", "single-hop"], [[1, 0]], n_resamples=200)
    assert [r.level for r in out.rows] == ["seeds", "all generated", "Hard", "single-hop"]
    assert out.ordered is None  # only one of Easy/Medium/Hard present
    with pytest.raises(ValueError, match="levels has 1 entries for 3 generated items"):
        difficulty_check([[1, 0, 1]], ["Hard"], [[1]])


def test_the_bootstraps_row_by_row_forms_are_scipys_correlations():
    """_spearman_rows and _kendall_rows (every resample at once) give, row by row, what
    scipy's spearmanr and kendalltau give; an all-tied row is NaN in both."""
    import warnings

    from scipy import stats

    from judgeagent.metrics.ranking import _kendall_rows, _spearman_rows

    rng = np.random.default_rng(3)
    x = rng.integers(0, 4, (200, 5)).astype(float)
    y = rng.integers(0, 4, (200, 5)).astype(float)
    x[0] = 2.0  # no spread
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stats.ConstantInputWarning)
        rho = [stats.spearmanr(a, b).statistic for a, b in zip(x, y)]
        tau = [stats.kendalltau(a, b).statistic for a, b in zip(x, y)]
    np.testing.assert_allclose(_spearman_rows(x, y), rho, atol=1e-12, equal_nan=True)
    np.testing.assert_allclose(_kendall_rows(x, y), tau, atol=1e-12, equal_nan=True)
    assert np.isnan(_spearman_rows(x, y)[0]) and np.isnan(_kendall_rows(x, y)[0])
