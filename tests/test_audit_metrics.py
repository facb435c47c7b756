"""The audit's estimators (judgeagent/metrics/audit.py) against values worked out by hand."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats

from judgeagent.metrics.audit import (
    Stratum,
    clopper_pearson,
    cohen_kappa,
    confusion,
    korn_graubard,
    share_of_hits,
    share_variance,
    stratified_proportion,
    wilson,
)


def test_wilson_by_hand():
    # 3 of 10: p = 0.3, z² = 3.841459; centre 0.4920730 / 1.3841459 = 0.3555066,
    # half 1.959964 · √(0.021 + 0.0096036) / 1.3841459 = 0.2477153
    lo, hi = wilson(3, 10)
    assert lo == pytest.approx(0.107791, abs=1e-6) and hi == pytest.approx(0.603222, abs=1e-6)
    # 0 of 10: the interval starts at 0 and reaches z²/n / (1 + z²/n) = 0.277533
    assert wilson(0, 10) == pytest.approx((0.0, 0.277533), abs=1e-6)
    assert wilson(0, 0) == (0.0, 1.0)


def test_clopper_pearson_by_hand():
    # 0 of n: the upper end solves (1 − p)^n = α/2, so p = 1 − 0.025^(1/n)
    assert clopper_pearson(0, 10) == pytest.approx((0.0, 1 - 0.025 ** 0.1), abs=1e-9)
    assert clopper_pearson(10, 10) == pytest.approx((0.025 ** 0.1, 1.0), abs=1e-9)
    # 1 of 1: the lower end solves p = α/2
    assert clopper_pearson(1, 1) == pytest.approx((0.025, 1.0), abs=1e-9)
    # 2 of 4: the ends solve P(X ≥ 2 | p) = 0.025 and P(X ≤ 2 | p) = 0.025 for X ~ Bin(4, p)
    lo, hi = clopper_pearson(2, 4)
    assert stats.binom.sf(1, 4, lo) == pytest.approx(0.025, abs=1e-9)
    assert stats.binom.cdf(2, 4, hi) == pytest.approx(0.025, abs=1e-9)


def test_stratified_estimate_and_variance_by_hand():
    # Stratum A: 100 items, 10 labelled, 2 invalid; stratum B: 50 items, 5 labelled, none invalid.
    strata = [Stratum(100, 10, 2), Stratum(50, 5, 0)]
    est = stratified_proportion(strata)
    assert est.estimate == pytest.approx(20 / 150)
    # Var A = (1 − 0.1) · (10/9 · 0.2 · 0.8) / 10 = 0.016, weighted (100/150)² → 0.0071111; B adds nothing.
    assert share_variance(strata[0]) == pytest.approx(0.016)
    assert est.se == pytest.approx(math.sqrt(0.016 * (100 / 150) ** 2))
    # n* = p(1 − p) / v = 16.25, times (t_0.975,14 / t_0.975,13)² = 0.985626 → 16.0164
    assert est.df == 13 and est.n == 15 and est.hits == 2 and est.population == 150
    assert est.n_effective == pytest.approx(16.25 * (2.144787 / 2.160369) ** 2, rel=1e-5)
    x, n = est.estimate * est.n_effective, est.n_effective
    assert est.ci == pytest.approx((stats.beta.ppf(0.025, x, n - x + 1), stats.beta.ppf(0.975, x + 1, n - x)))


def test_finite_population_correction_and_census():
    # Half of a stratum labelled: the variance is half of what an infinite population's would be.
    half = share_variance(Stratum(20, 10, 5))
    assert half == pytest.approx(0.5 * (10 / 9 * 0.25) / 10)
    # Every item labelled: the share is known, the interval is the point.
    est = stratified_proportion([Stratum(8, 8, 2), Stratum(4, 4, 1)])
    assert est.estimate == pytest.approx(3 / 12) and est.ci == (0.25, 0.25) and est.se == 0


def test_a_stratum_of_one_labelled_item_gets_the_largest_variance():
    # S² at most N / (4(N − 1)) = 5/16; Var = (1 − 1/5) · 5/16 / 1 = 0.25
    assert share_variance(Stratum(5, 1, 0)) == pytest.approx(0.25)
    assert share_variance(Stratum(5, 1, 1)) == pytest.approx(0.25)


def test_one_stratum_with_no_hit_is_clopper_pearson():
    est = stratified_proportion([Stratum(10**9, 12, 0)])
    assert est.estimate == 0 and est.n_effective == 12
    assert est.ci == pytest.approx(clopper_pearson(0, 12))


def test_homogeneous_strata_do_not_give_a_point_interval():
    # Each stratum gave one answer throughout: v̂ = 0, but the population is not known whole.
    est = stratified_proportion([Stratum(30, 2, 2), Stratum(30, 2, 0)])
    assert est.estimate == pytest.approx(0.5) and est.se == 0
    assert est.ci[0] < 0.2 and est.ci[1] > 0.8


def test_strata_without_labels_are_left_out():
    est = stratified_proportion([Stratum(10, 4, 1), Stratum(90, 0, 0)])
    assert est.population == 10 and est.estimate == pytest.approx(0.25)
    assert stratified_proportion([Stratum(10, 0, 0)]).estimate is None


def test_korn_graubard_reduces_to_clopper_pearson_without_design():
    (lo, hi), n_eff = korn_graubard(0.25, 0.25 * 0.75 / 20, 20, 19)
    assert n_eff == pytest.approx(20) and (lo, hi) == pytest.approx(clopper_pearson(5, 20))


def test_share_of_hits_by_hand():
    # Passed: 90 items, 9 labelled, 1 invalid (total 10); rejected: 30 items, 6 labelled, 4 invalid (total 20).
    strata = [Stratum(90, 9, 1), Stratum(30, 6, 4)]
    est = share_of_hits(strata, [False, True])
    assert est.estimate == pytest.approx(20 / 30)
    r, total = 20 / 30, 30.0
    v = ((0 - r) / total) ** 2 * 90**2 * share_variance(strata[0]) + ((1 - r) / total) ** 2 * 30**2 * share_variance(strata[1])
    assert est.se == pytest.approx(math.sqrt(v))
    assert est.n == 5 and est.hits == 4
    assert share_of_hits([Stratum(10, 5, 0)], [True]).estimate is None


def test_kappa_by_hand():
    # 50 items: A valid & B valid 20, A valid & B invalid 5, A invalid & B valid 10, both invalid 15.
    a = ["valid"] * 25 + ["invalid"] * 25
    b = ["valid"] * 20 + ["invalid"] * 5 + ["valid"] * 10 + ["invalid"] * 15
    k = cohen_kappa(a, b)
    assert k.categories == ["invalid", "valid"] and k.table == [[15, 10], [5, 20]]
    # p_o = 0.7, p_e = 0.5·0.6 + 0.5·0.4 = 0.5, κ = 0.4
    assert k.observed == pytest.approx(0.7) and k.expected == pytest.approx(0.5) and k.kappa == pytest.approx(0.4)
    # Fleiss–Cohen–Everitt: (0.10972 + 0.36·0.283 − 0.01) / (50 · 0.25) = 0.016128
    assert k.se == pytest.approx(math.sqrt(0.016128))
    assert k.ci == pytest.approx((0.4 - 1.959964 * math.sqrt(0.016128), 0.4 + 1.959964 * math.sqrt(0.016128)), abs=1e-6)


def _kappa_of(p: np.ndarray) -> float:
    po, pe = np.trace(p), p.sum(1) @ p.sum(0)
    return (po - pe) / (1 - pe)


def test_kappa_se_is_the_delta_method_variance_under_multinomial_sampling():
    """An independent check of the closed form: the delta method, with the gradient of κ in the
    cell shares taken numerically, on an uneven 3 × 3 table."""
    counts = np.array([[14, 3, 2], [4, 9, 1], [2, 2, 11]], float)
    n = counts.sum()
    p = counts / n
    grad = np.zeros_like(p)
    for i, j in np.ndindex(p.shape):
        step = np.zeros_like(p)
        step[i, j] = 1e-6
        grad[i, j] = (_kappa_of(p + step) - _kappa_of(p - step)) / 2e-6
    g, flat = grad.ravel(), p.ravel()
    variance = (g**2 @ flat - (g @ flat) ** 2) / n
    a = [i for i, j in np.ndindex(p.shape) for _ in range(int(counts[i, j]))]
    b = [j for i, j in np.ndindex(p.shape) for _ in range(int(counts[i, j]))]
    k = cohen_kappa(a, b)
    assert k.kappa == pytest.approx(_kappa_of(p))
    assert k.se == pytest.approx(math.sqrt(variance), rel=1e-5)


def test_kappa_undefined_and_perfect():
    assert cohen_kappa([], []).kappa is None
    one = cohen_kappa(["valid"] * 4, ["valid"] * 4)
    assert one.kappa is None and one.observed == 1
    perfect = cohen_kappa(["a", "b", "a", "b"], ["a", "b", "a", "b"])
    assert perfect.kappa == 1 and perfect.se == 0 and perfect.ci == (1.0, 1.0)
    with pytest.raises(ValueError):
        confusion(["a"], [])
