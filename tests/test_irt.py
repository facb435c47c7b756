"""The bank's maths: 2PL probabilities, Fisher information, EAP, item-rest correlation,
Spearman's ρ, adaptive item selection, and recovery on a simulated panel."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate

from judgeagent.bank.adaptive import AdaptiveTest, simulate
from judgeagent.bank.irt import eap, fisher_information, item_rest_correlation, naive_difficulty, p_correct, spearman
from judgeagent.bank.simulation import adaptive_replication, make_panel, recovery


def test_probability_and_information_by_hand():
    assert p_correct(0.5, 2.0, 0.5) == 0.5
    assert float(fisher_information(0.5, 2.0, 0.5)) == pytest.approx(1.0)  # a²/4 at θ = b
    # at θ = b + ln 3 / a, P = 3/4 and the information is a² · 3/16
    assert float(p_correct(math.log(3), 1.0, 0.0)) == pytest.approx(0.75)
    assert float(fisher_information(math.log(3), 1.0, 0.0)) == pytest.approx(0.1875)
    assert list(fisher_information(0.0, [1.0, 2.0], [0.0, 0.0])) == pytest.approx([0.25, 1.0])


def test_eap_without_answers_is_the_prior():
    theta, se = eap([], [], [])
    assert theta == pytest.approx(0.0, abs=1e-12)
    assert se == pytest.approx(1.0, abs=1e-3)  # N(0, 1), cut at ±4


def test_eap_after_one_answer_matches_steins_lemma():
    # Posterior ∝ φ(θ)σ(θ). Its mean is E[Zσ(Z)] / E[σ(Z)] = E[σ'(Z)] / (1/2) (Stein's lemma, and
    # E[σ(Z)] = 1/2 by symmetry), computed here by adaptive quadrature, independently of the grid.
    sig = lambda z: 1 / (1 + math.exp(-z))  # noqa: E731
    e_slope, _ = integrate.quad(lambda z: math.exp(-z * z / 2) / math.sqrt(2 * math.pi) * sig(z) * (1 - sig(z)), -12, 12)
    theta, _ = eap([1.0], [1.0], [0.0])
    assert theta == pytest.approx(2 * e_slope, abs=1e-3)
    assert eap([0.0], [1.0], [0.0])[0] == pytest.approx(-theta, abs=1e-12)


def test_item_rest_correlation_by_hand():
    x = np.array([[1, 1, 0], [1, 0, 0], [0, 1, 1], [1, 1, 1]])
    r = item_rest_correlation(x)
    # item 0: answers (1, 1, 0, 1) against rest shares (1/2, 0, 1, 1)
    assert r[0] == pytest.approx(-0.375 / math.sqrt(0.75 * 0.6875))
    assert r[1] == pytest.approx(1 / 3)
    assert r[2] == pytest.approx(0.0)
    # a missing answer leaves fewer than 3 targets on item 2: undefined, not a flag
    mask = np.array([[1, 1, 0], [1, 1, 0], [1, 1, 1], [1, 1, 1]])
    assert math.isnan(item_rest_correlation(x, mask)[2])


def test_spearman_with_ties():
    assert spearman([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.8)
    assert spearman([0, 0, 1, 2], [0.1, -0.2, 0.5, 0.3]) == pytest.approx(3.5 / math.sqrt(4.5 * 5))
    assert spearman([1, 1, 1], [1, 2, 3]) is None


def test_naive_difficulty_by_hand():
    x = np.array([[1, 1], [1, 1], [0, 1], [0, 1]])
    assert list(naive_difficulty(x)) == pytest.approx([0.0, -math.log(9)])  # (2+½)/5 and (4+½)/5 right


def test_adaptive_picks_the_most_informative_item():
    test = AdaptiveTest(np.ones(3), np.array([-2.0, 0.0, 2.0]), target_se=0.01)
    assert test.next_item() == 1  # b = 0 is closest to θ = 0
    step = test.record(1, True)
    assert step.information == pytest.approx(0.25)
    assert step.theta > 0 and test.next_item() == 2
    test.record(2, False)
    assert test.next_item() == 0
    test.record(0, True)
    assert (test.next_item(), test.stop_reason, test.used) == (None, "items ran out", [1, 2, 0])


def test_adaptive_stops_at_the_target_se_or_the_item_limit():
    a, b = np.full(40, 2.0), np.linspace(-2, 2, 40)
    done = simulate(a, b, lambda j: b[j] < 0.3, target_se=0.5)
    assert done.stop_reason == "target SE reached"
    assert done.se <= 0.5 < done.steps[-2].se
    limited = simulate(a, b, lambda j: b[j] < 0.3, target_se=0.01, max_items=4)
    assert (len(limited.steps), limited.stop_reason) == (4, "item limit reached")


def test_recovery_bounds_on_small_simulated_panels():
    """The issue's simulation, small: 300 items, 5% flipped keys, 10 seeded panels of 20
    targets and one of 100."""
    small = [recovery(make_panel(20, 300, seed=s)) for s in range(10)]
    assert min(r["theta_r"] for r in small) >= 0.95
    assert all(r["b_r"] >= r["b_r_naive"] - 0.01 for r in small)
    assert np.mean([r["b_r"] for r in small]) >= np.mean([r["b_r_naive"] for r in small])
    assert np.mean([r["flipped_flagged"] for r in small]) >= 0.80
    assert np.mean([r["good_flagged"] for r in small]) <= 0.05
    large = recovery(make_panel(100, 300, seed=0))
    assert large["b_r"] >= 0.90 and large["theta_r"] >= 0.95


def test_adaptive_testing_with_fitted_parameters():
    rep = adaptive_replication(make_panel(100, 300, seed=100), (0.2,))[0.2]
    assert rep["share"] <= 0.20
    assert rep["rho"] >= 0.95
