import asyncio
import json

import pytest

from judgeagent.data.benchmark import Question, QuestionType
from judgeagent.llm.client import LLMResult
from judgeagent.stages.answers import (
    answer_forms,
    exact_match,
    normalize_letter,
    normalize_phrase,
    phrase_match,
    score_phrase,
    token_f1,
)
from judgeagent.stages.grading import Answer, grade

OPTS = {"A": "Aspirin", "B": "Coxsackie B virus", "C": "Warfarin", "D": "Heparin"}


@pytest.mark.parametrize(
    "reply,letter",
    [
        ("B", "B"),
        ("b)", "B"),
        ("(b)", "B"),
        ("B. Coxsackie B virus", "B"),
        ("The answer is (C)", "C"),
        ("Answer: d", "D"),
        ("warfarin", "C"),
        ("Option A", "A"),
        ("E", None),
        ("", None),
        (None, None),
        ("I am not sure", None),
    ],
)
def test_letters(reply, letter):
    assert normalize_letter(reply, OPTS) == letter


def test_phrases():
    assert normalize_phrase("The  Norvala Robotics!") == "norvala robotics"
    assert phrase_match("norvala robotics.", "Norvala Robotics")
    assert phrase_match("Yes, it did.", "Yes")
    assert not phrase_match("No", "Yes")
    assert not phrase_match("", "Yes")


# ----------------------------------------------------------------------------- KQA: EM and F1
MOYNIHAN = 'Daniel Patrick "Pat" Moynihan'


def test_forms_drop_nicknames_and_asides_but_never_keep_the_aside_alone():
    assert answer_forms(MOYNIHAN) == ["daniel patrick pat moynihan", "daniel patrick moynihan", "pat moynihan"]
    assert answer_forms("Daniel Patrick \u201cPat\u201d Moynihan") == answer_forms(MOYNIHAN)
    assert answer_forms("Daniel 'Pat' Moynihan") == ["daniel pat moynihan", "daniel moynihan", "pat moynihan"]
    assert answer_forms("Paris (France)") == ["paris france", "paris"]
    assert answer_forms("O'Brien's law") == ["obriens law"]  # an apostrophe is not a quote
    assert answer_forms("(none)") == ["none"] and answer_forms(None) == []


@pytest.mark.parametrize(
    "reply,reference,em,f1",
    [
        # A nickname or an article in the reference: an exact match after normalisation.
        ("Daniel Patrick Moynihan", MOYNIHAN, True, 1.0),
        ("Pat Moynihan", MOYNIHAN, True, 1.0),
        ("the Kidney.", "kidney", True, 1.0),
        # Without the nickname forms: {daniel patrick moynihan} in {daniel patrick pat moynihan}:
        # P = 3/3, R = 3/4, F1 = 2·1·¾ / (1 + ¾) = 6/7.
        ("Daniel Patrick Moynihan", "Daniel Patrick Pat Moynihan", False, 6 / 7),
        # "moynihan" against the best form "pat moynihan": P = 1, R = ½, F1 = 2/3.
        ("Moynihan", MOYNIHAN, False, 2 / 3),
        # "cat sat" against "cat sat on mat": P = 1, R = ½, F1 = 2/3.
        ("The cat sat", "A cat sat on the mat", False, 2 / 3),
        # Repeated words count once each: "paris paris" against "paris": P = ½, R = 1, F1 = 2/3.
        ("Paris, Paris", "Paris", False, 2 / 3),
        ("Moynihan, Daniel Patrick", "Daniel Patrick Moynihan", False, 1.0),
        ("the liver", "the kidney", False, 0.0),
        ("", "the kidney", False, 0.0),
    ],
)
def test_exact_match_and_token_f1_hand_computed(reply, reference, em, f1):
    assert exact_match(reply, reference) is em
    assert token_f1(reply, reference) == pytest.approx(f1)


class ScriptedJudge:
    """Stands in for Models: the phrase judge replies with a fixed verdict and counts requests."""

    def __init__(self, verdict: str = "no"):
        self.verdict = verdict
        self.requests: list[str] = []

    async def ask_judge(self, messages, *, schema, stage, max_tokens, temperature=0.0):
        self.requests.append(stage)
        data = {"equivalent": self.verdict}
        return LLMResult(ok=True, text=json.dumps(data), data=data)


def _grade(reply: str, reference: str, judge: ScriptedJudge) -> Answer:
    q = Question("q1", "Who was it?", reference, None, None)
    return asyncio.run(grade(judge, QuestionType.KQA, q, reply))


@pytest.mark.parametrize(
    "reply,reference,correct,graded_by",
    [
        # EM: right whatever the judge would say; a judge that says "no" to everything is not asked.
        ("Daniel Patrick Moynihan", MOYNIHAN, True, "exact"),
        ("Pat Moynihan", MOYNIHAN, True, "exact"),
        ("The Kidney", "kidney", True, "exact"),
        # F1 = 1 (F1_RIGHT): the same words in another order.
        ("Moynihan, Daniel Patrick", "Daniel Patrick Moynihan", True, "f1"),
        # F1 = 0 (F1_WRONG): no word in common.
        ("the liver", "the kidney", False, "f1"),
        ("  ", "the kidney", False, "f1"),
        # Yes / no references: the first word decides.
        ("Yes, it did.", "Yes", True, "yes/no"),
        ("No, never", "Yes", False, "yes/no"),
        # Null queries: any way of declining is right.
        ("It cannot be determined", "Insufficient information.", True, "null"),
        ("insufficient information", "Insufficient information.", True, "exact"),
    ],
)
def test_bands_decided_without_the_judge(reply, reference, correct, graded_by):
    judge = ScriptedJudge("no")
    a = _grade(reply, reference, judge)
    assert (a.correct, a.graded_by, judge.requests, a.judge_verdict) == (correct, graded_by, [], None)
    assert a.em == exact_match(reply, reference) and a.f1 == round(token_f1(reply, reference), 4)


@pytest.mark.parametrize(
    "reply,reference,f1",
    [
        ("Moynihan", MOYNIHAN, 0.6667),  # 0 < F1 < 1: a shortened name, or another person
        ("George W Bush", "George H. W. Bush", 0.8571),  # P = 1, R = ¾: a word more is another man
        ("It is located in Paris", "Paris", 0.3333),  # {it is located in paris}: P = ⅕, R = 1
        ("NYC", "New York City", 0.0),  # no shared word, but initials: an abbreviation is judged
        ("Correct.", "Yes", 0.0),  # a yes/no reference answered without yes or no
    ],
)
def test_the_judge_is_asked_only_in_the_middle_band_and_its_verdict_is_recorded(reply, reference, f1):
    for verdict, correct in (("yes", True), ("no", False)):
        judge = ScriptedJudge(verdict)
        a = _grade(reply, reference, judge)
        assert judge.requests == ["grading-judge"]
        assert (a.correct, a.graded_by, a.em, a.f1, a.judge_verdict) == (correct, "judge", False, f1, verdict)
        # The record written to records.jsonl carries the field's figures next to the verdict.
        assert {k: a.to_dict()[k] for k in ("em", "f1", "judge_verdict")} == {"em": False, "f1": f1, "judge_verdict": verdict}


def test_score_phrase_names_its_band():
    assert score_phrase("Moynihan", MOYNIHAN).correct is None
    assert score_phrase("Pat Moynihan", MOYNIHAN).rule == "exact"


def test_answer_records_written_before_em_and_f1_still_load():
    old = {"question_id": "q1", "reply": "B", "chosen": "B", "correct": True, "graded_by": "letter", "error": None}
    a = Answer.from_dict(old)
    assert (a.em, a.f1, a.judge_verdict) == (None, None, None)
    assert Answer.from_dict(a.to_dict()) == a
