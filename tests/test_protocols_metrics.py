"""The protocols' pure maths against hand-computed values: the KIEval score, accuracy @k and
the question score, ACC-AUC, and the transfer experiment's split and nearest source."""

from __future__ import annotations

from math import exp

import pytest

from judgeagent.metrics import escalation, interviewer, kieval
from judgeagent.protocols.judgeagent.appendix_e2 import nearest_source, split_batches
from judgeagent.protocols.kieval import unusable


def test_kieval_maps_scores_and_weights_turns():
    assert [kieval.SCORE_MAP[s] for s in (1, 2, 3, 4)] == [1, 3, 7, 10]
    assert kieval.dialogue_score([4]) == 100.0 and kieval.dialogue_score([1]) == 10.0
    # (3 → 7 at weight 1, 1 → 1 at weight e^-0.2) / (1 + e^-0.2), ×10
    assert kieval.dialogue_score([3, 1]) == pytest.approx(10 * (7 + exp(-0.2)) / (1 + exp(-0.2)), abs=1e-4) == pytest.approx(42.9900, abs=1e-4)
    assert kieval.dialogue_score([]) is None
    # the mean over dialogues, each scored on its own turns
    assert kieval.run_score([[4], [2, 2], []]) == pytest.approx((100.0 + 30.0) / 2)
    assert kieval.completeness([5, 2, 0]) == pytest.approx(7 / 3, abs=1e-4)
    assert kieval.early_stops([None, "repeats an earlier reply", "no usable reply", "repeats an earlier reply"]) == kieval.EarlyStops(
        rate=75.0, n_stopped=3, reasons={"repeats an earlier reply": 2, "no usable reply": 1}
    )


def test_a_reply_is_unusable_when_missing_or_repeated():
    assert unusable(None, "timeout", []) == "no usable reply (timeout)"
    assert unusable("Potassium.", None, ["potassium."]) == "repeats an earlier reply"
    assert unusable("Sodium.", None, ["Potassium."]) is None


def test_accuracy_at_k_and_the_question_score():
    questions = [[True], [False, True], [False, False, True], [False, False, False]]
    assert [interviewer.accuracy_at(questions, k) for k in (1, 2, 3)] == [25.0, 50.0, 75.0]
    assert interviewer.accuracy_at([], 1) is None
    assert [interviewer.question_score(q, 1) for q in questions] == [4, 3, 2, 1]
    assert interviewer.question_score([True], 2) == 5 and interviewer.score_range(5) == "high" and interviewer.score_range(1) == "low"


@pytest.mark.parametrize(
    "acc, auc",
    [
        ([1.0, 1.0, 1.0], 2.0),  # every level held: the whole span
        ([1.0, 0.5, 0.0], 1.0),  # (1 + .5)/2 + (.5 + 0)/2
        ([1.0, 0.0, 0.5], 0.5),  # ends at the first level at 0: Hard's 0.5 adds nothing
        ([0.0, 0.0, 0.0], 0.0),
        ([0.75, 0.5, 0.25], 1.0),  # (.75 + .5)/2 + (.5 + .25)/2
    ],
)
def test_acc_auc_is_trapezoids_up_to_the_first_zero(acc, auc):
    assert escalation.acc_auc(acc) == pytest.approx(auc)


def test_escalation_metrics_from_the_levels_held():
    m = escalation.escalation_metrics(["hard", None, "easy", "medium"])
    assert m.acc_by_level == {"easy": 75.0, "medium": 50.0, "hard": 25.0}
    assert (m.acc_auc, m.acc_auc_normalised, m.highest_level_held) == (1.0, 0.5, "hard")
    assert m.acc_auc_per_level == pytest.approx(1 / 3, abs=1e-6)
    assert m.held_counts == {"easy": 1, "medium": 1, "hard": 1, "none": 1}


def test_the_transfer_split_is_seeded_and_halves():
    ids = [f"b{i:04d}" for i in range(7)]
    source, held = split_batches(ids, 3)
    assert (len(source), len(held)) == (4, 3) and sorted(source + held) == ids
    assert split_batches(list(reversed(ids)), 3) == (source, held)  # the order given does not matter
    assert split_batches(ids, 4) != (source, held)


def test_the_nearest_source_shares_most_entities_else_is_most_similar():
    sources = {"b1": {"kidney", "potassium"}, "b2": {"kidney"}, "b3": {"heart"}}
    assert nearest_source({"kidney", "potassium", "sodium"}, sources, None) == ("b1", "2 shared entities")
    assert nearest_source({"kidney"}, sources, None) == ("b1", "1 shared entities")  # a tie: the first id
    assert nearest_source({"lung"}, sources, {"b1": 0.2, "b2": 0.1, "b3": 0.6}) == ("b3", "chunk similarity 0.600")
