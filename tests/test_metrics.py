"""Paper metrics against hand-computed cases."""

import pytest

from judgeagent.metrics.figures import InterviewFigures
from judgeagent.metrics.scores import accuracy_by_level, metrics_by_label, paper_metrics
from judgeagent.metrics.summary import compute_metrics
from judgeagent.records import AnswerRecord, InterviewRecord


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


def _answers(flags):
    return [{"question_id": f"q{i}", "correct": f, "error": None} for i, f in enumerate(flags)]


def _record(i, before, after, controls=None) -> InterviewRecord:
    """The parts of a records.jsonl line that metrics.json is computed from."""
    validation = {"reanswers": _answers(after), "evaluation": {"suggestions": "…"}}
    if controls:
        validation["controls"] = {name: _answers(flags) for name, flags in controls.items()}
    seeds = [{"id": f"q{k}", "question": "?", "answer": "A", "difficulty": None} for k in range(len(before))]
    return InterviewRecord.from_json({"batch_index": i, "batch_id": f"b{i:04d}", "seed": seeds, "seed_answers": _answers(before),
                                      "validations": [validation], "rounds": [], "trajectory": []})


# Batch ΔACC, in questions: b0 +3 (three fixed), b1 +1, b2 −1 (one broken).
BATCHES = [
    ([False, False, False], [True, True, True]),
    ([True, False, True], [True, True, True]),
    ([True, True, False], [True, False, False]),
]


def test_metrics_json_carries_batch_statistics_next_to_the_question_level_ones():
    m = compute_metrics([_record(i, b, a) for i, (b, a) in enumerate(BATCHES)], bootstrap=500, seed=3)
    assert (m["n_questions"], m["n_batches"], m["acc1"], m["acc2"]) == (9, 3, pytest.approx(400 / 9, abs=1e-3), pytest.approx(700 / 9, abs=1e-3))
    assert m["ci"]["ci_method"] == "batch_bootstrap" and m["ci"]["n_batches"] == 3 and m["ci"]["n"] == 9
    assert m["ci_naive"]["ci_method"] == "question_bootstrap" and m["ci_naive"]["n"] == 9
    # Signs of (3, 1, −1): sums ±(3+1−1, 3+1+1, 3−1−1, 3−1+1) = ±(3, 5, 1, 3); |sum| ≥ 3 in 6 of 8.
    assert m["permutation"] == {"suggestions_vs_none": {"n_batches": 3, "n_nonzero": 3, "statistic": 3.0, "method": "exact",
                                                        "n_permutations": 8, "p_value": 0.75, "unit": "batch"}}
    # McNemar on the 9 questions as if independent: b = 1, c = 4; p = 2·(1 + 5)/2⁵ = 0.375.
    assert m["mcnemar"] == {"suggestions_vs_none": {"b": 1, "c": 4, "n_discordant": 5, "p_value": 0.375, "assumes": "independent questions"}}
    # ΔACC per question: (1,1,1), (0,1,0), (0,−1,0); mean ⅓. Naive Σ(x − ⅓)² = 4·4/9 + 4·1/9 + 16/9 = 4;
    # clustered Σ(y_i − 3·⅓)² = 2² + 0² + (−2)² = 8; design effect 8 / 4 = 2.
    assert m["design_effect"]["delta_acc"] == 2.0 and m["design_effect"]["method"] == "variance_ratio"
    assert m == compute_metrics([_record(i, b, a) for i, (b, a) in enumerate(BATCHES)], bootstrap=500, seed=3)


def test_controls_get_the_batch_test_too():
    # Plain re-ask: as before. Placebo: as after, so the suggestions beat it by nothing.
    recs = [_record(i, b, a, controls={"plain": b, "placebo": a}) for i, (b, a) in enumerate(BATCHES)]
    m = compute_metrics(recs, bootstrap=200)
    assert m["permutation"]["suggestions_vs_plain"] == m["permutation"]["suggestions_vs_none"]
    assert m["permutation"]["suggestions_vs_placebo"]["p_value"] == 1.0
    assert m["permutation"]["suggestions_vs_placebo"]["n_nonzero"] == 0
    assert m["mcnemar"]["suggestions_vs_placebo"]["n_discordant"] == 0
    assert m["mcnemar"]["suggestions_vs_plain"]["assumes"] == "independent questions"


def test_no_batches_no_interval():
    m = compute_metrics([])
    assert "ci" not in m and "design_effect" not in m
    assert m["permutation"]["suggestions_vs_none"]["p_value"] == 1.0


def test_no_questions_no_rates_and_a_dash_in_every_table():
    # Every batch incomplete: nothing was measured, which is not an accuracy of 0.
    from rich.console import Console

    from judgeagent.protocols.judgeagent.terminal import metrics_table
    from judgeagent.report import sections

    m = compute_metrics([])
    assert {k: m[k] for k in ("n_questions", "acc1", "acc2", "cr", "cte", "delta_acc")} == {
        "n_questions": 0, "acc1": None, "acc2": None, "cr": None, "cte": None, "delta_acc": None
    }  # fmt: skip
    console = Console(width=120, record=True)
    console.print(metrics_table(InterviewFigures.from_json(m), "seeds"))
    assert console.export_text().split("\n")[4].split() == ["│", "0", "│", *["–", "│"] * 7]
    assert sections.headline(InterviewFigures.from_json(m)).rows == [["0", *["–"] * 7]]


def test_report_and_terminal_label_the_batch_test_and_mcnemar():
    from rich.console import Console

    from judgeagent.protocols.judgeagent.terminal import trust_table
    from judgeagent.report import sections

    m = compute_metrics([_record(i, b, a, controls={"plain": b, "placebo": a}) for i, (b, a) in enumerate(BATCHES)], bootstrap=200)
    t = sections.significance(InterviewFigures.from_json(m))
    assert t.columns[2] == "95% CI (batches)" and t.columns[5:] == ["batch permutation p", "McNemar exact p (independent questions)"]
    rows = {r[0]: r for r in t.rows}
    assert rows["with suggestions (ACC2)"][5:] == ["0.75 (3 of 3 batches changed; exact)", "0.375 (b=1, c=4)"]
    assert rows["placebo suggestion (control)"][5:] == ["1 (0 of 3 batches changed; exact)", "1 (b=0, c=0)"]
    assert "Design effect on ΔACC: 2.00" in sections.significance_note(InterviewFigures.from_json(m))
    console = Console(width=120, record=True)
    console.print(trust_table(InterviewFigures.from_json(m)))
    text = " ".join(console.export_text().split())  # the caption wraps at the table's width
    assert "CI over batches" in text and "McNemar assumes independent questions" in text and "design effect on ΔACC 2.00" in text
    # A run folder written before the batch statistics keeps its question-level labels.
    old = {k: v for k, v in m.items() if k not in ("permutation", "design_effect", "ci_naive")} | {"ci": m["ci_naive"] | {"ci_method": None}}
    old_figures = InterviewFigures.from_json(old)
    assert sections.significance(old_figures).columns == ["answers", "accuracy %", "95% CI", "ACC2 − this", "95% CI", "McNemar exact p (independent questions)"]
    assert sections.significance_note(old_figures).startswith("Intervals: paired bootstrap over the seed questions.")


def test_one_batch_gives_whole_range_intervals_and_the_report_says_why():
    from judgeagent.report import sections

    m = compute_metrics([_record(0, *BATCHES[0])], bootstrap=200)
    f = InterviewFigures.from_json(m)
    assert f.ci is not None and (f.ci.acc1, f.ci.delta_acc, f.ci.thin, f.ci.n_batches) == ((0.0, 100.0), (-100.0, 100.0), True, 1)
    assert sections.significance_note(f).startswith(
        "ACC1, ACC2 and ΔACC: interval shown as the whole range: it rests on 1 batch, fewer than the 3 a resampling interval needs. ")


def test_phrase_answers_report_em_and_f1():
    def kqa(correct, graded_by, em, f1, verdict=None):
        return {"question_id": "q", "correct": correct, "error": None, "graded_by": graded_by, "em": em, "f1": f1, "judge_verdict": verdict}

    answers = [kqa(True, "exact", True, 1.0), kqa(False, "f1", False, 0.0), kqa(True, "judge", False, 0.6667, "yes"),
               {"question_id": "q", "correct": False, "error": "missing answer", "graded_by": "none", "em": None, "f1": None, "judge_verdict": None}]
    rec = _record(0, [True, False, True, False], [True, True, True, False]).model_copy(update={"seed_answers": [AnswerRecord.from_json(a) for a in answers]})
    m = compute_metrics([rec], bootstrap=100)
    # EM 1 of 4 = 25%; mean F1 (1 + 0 + 0.6667 + 0) / 4 = 41.6675%.
    assert m["phrase_grading"] == {"n": 4, "em": 25.0, "f1": 41.6675, "graded_by": {"exact": 1, "f1": 1, "judge": 1, "none": 1}, "judge_asked": 1}
    assert compute_metrics([_record(0, [True], [True])], bootstrap=100)["phrase_grading"] is None
