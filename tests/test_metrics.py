"""Paper metrics against hand-computed cases."""

import pytest

from judgeagent.metrics.scores import accuracy_by_level, metrics_by_label, paper_metrics


def test_hand_computed_case():
    # 10 questions: 6 right before; 2 wrong→right, 1 right→wrong, so 7 right after.
    before = [True] * 6 + [False] * 4
    after = [True] * 5 + [False] + [True, True, False, False]
    m = paper_metrics(before, after)
    assert m.n_questions == 10
    assert m.acc1 == 60.0
    assert m.acc2 == 70.0
    assert m.cr == 20.0
    assert m.cte == 10.0
    assert m.delta_acc == 10.0
    assert m.delta_acc == pytest.approx(m.cr - m.cte)
    assert m.cr_given_wrong == 50.0  # 2 of the 4 wrong
    assert m.cte_given_right == pytest.approx(100 / 6, abs=1e-3)  # 1 of the 6 right


def test_conditional_rates_are_none_when_undefined():
    m = paper_metrics([True, True], [True, False])
    assert m.cr_given_wrong is None
    assert m.cte_given_right == 50.0
    assert paper_metrics([False], [False]).cte_given_right is None


def test_mismatched_lengths_are_an_error():
    with pytest.raises(ValueError):
        paper_metrics([True], [True, False])


def test_by_label_groups_and_orders():
    out = metrics_by_label(["hard", "easy", None, "easy"], [True, False, True, True], [True, True, False, True])
    assert list(out) == ["easy", "hard", "unlabeled"]
    assert out["easy"]["acc1"] == 50.0 and out["easy"]["acc2"] == 100.0 and out["easy"]["cr"] == 50.0
    assert out["unlabeled"]["cte"] == 100.0


def test_extension_accuracy_per_level():
    out = accuracy_by_level([("hard", True), ("easy", False), ("easy", True)])
    assert list(out) == ["easy", "hard"]
    assert out["easy"] == {"n": 2, "correct": 1, "accuracy": 50.0}
