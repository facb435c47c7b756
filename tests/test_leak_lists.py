"""Guard 9's precision on advice written apart from the rules (fresh8 to fresh13): options listed
evenly in the judge's short forms, words the batch is about, praise of a habit, advice on the
answer's form, and the learned layer when it reads nothing."""

from __future__ import annotations

import pytest

from judgeagent.data.benchmark import Question
from judgeagent.stages.leak_learned import masked_text, weigh
from judgeagent.stages.leak_lists import hide_even_list
from judgeagent.stages.leak_rules import names_kind_of_answer, only_form, praise_of_form
from judgeagent.stages.leakage import find_leaks

MILK = Question(
    "m1",
    "What does a homogenizer do to milk?",
    "E",
    {
        "A": "It heats the milk to kill bacteria.",
        "B": "It removes the lactose from the milk.",
        "C": "It evaporates part of the water.",
        "D": "It adds vitamins A and D.",
        "E": "It breaks the fat globules into smaller ones so the cream does not separate.",
    },
)
WAGES = Question(
    "w1",
    "What does a monopsonist employer do compared with a competitive labour market?",
    "A",
    {
        "A": "It pays a lower wage and hires fewer workers.",
        "B": "It pays a higher wage and hires more workers.",
        "C": "It pays the same wage but hires fewer workers.",
        "D": "It pays a lower wage but hires more workers.",
    },
)
FRICTIONAL = Question(
    "w2",
    "Which statement best describes frictional unemployment?",
    "C",
    {
        "A": "Unemployment caused by a mismatch between workers' skills and the skills employers need.",
        "B": "Unemployment that rises and falls with the business cycle.",
        "C": "Short-term unemployment that arises while workers search for and move between jobs.",
        "D": "Unemployment caused by a wage floor set above the market-clearing level.",
        "E": "Joblessness among people who have stopped searching for work altogether.",
    },
)
SHIP = Question("w3", "Which battleship, launched in 1906, gave her name to a whole type of warship?", "Dreadnought")


@pytest.mark.parametrize(
    ("sentence", "hidden"),
    [
        (
            "Read all five statements: heat treatment, lactose removal, evaporating water, adding vitamins, changing fat globule size.",
            "Read all five statements: item, item, item, item, item.",
        ),
        (
            "Five statements, each on a different process: heating, lactose removal, evaporation, vitamins, fat globules.",
            "Five statements, each on a different process: item, item, item, item, item.",
        ),
        # What the sentence says of one item outside the list is still read.
        (
            "Of the five: heating, lactose removal, evaporation, vitamins, fat globule size, only the globules survive.",
            "Of the five: item, item, item, item, item, only the globules survive.",
        ),
        # Not a count of the options (four is not five), not a list of them (years).
        ("Weigh all four: heating, lactose removal, evaporation, vitamins.", None),
        ("In five years, prices, wages, and rents rose.", None),
    ],
)
def test_an_even_list_of_the_options_hides_its_items_and_nothing_else(sentence, hidden):
    assert hide_even_list(sentence, [MILK]) == (hidden or sentence)


def test_options_listed_evenly_in_short_forms_are_no_leak_but_a_verdict_beside_them_is():
    even = (
        "Read all five statements: heat treatment, lactose removal, evaporating water, adding vitamins, "
        "changing fat globule size. Then ask which describes what a homogenizer physically does."
    )
    assert find_leaks(even, [MILK]) == []
    picked = "Look at all five: heating, lactose removal, evaporation, vitamins, fat globules, and the last one is right."
    assert "pointer" in {d["kind"] for d in find_leaks(picked, [MILK])}


def test_words_the_batch_is_about_name_no_statement_option():
    topical = "Use a competitive labour market as your benchmark, where the wage equals the marginal revenue product."
    assert find_leaks(topical, [WAGES, FRICTIONAL]) == []
    # Words of the option that the batch does not use elsewhere still name it.
    named = "The wage floor set above market clearing is the one to rule out."
    assert ("w2", "elimination") in {(d["question_id"], d["kind"]) for d in find_leaks(named, [WAGES, FRICTIONAL])}


@pytest.mark.parametrize(
    ("sentence", "praise"),
    [
        ("Your habit of defining terms before using them was good last round.", True),
        ("The way you laid out your reasoning this time was good.", True),
        ("Your grasp of hive architecture in your earlier reply was good.", True),
        ("You did well previously to notice the difference between training and trellising.", True),
        ("You were right to think about the slope of the supply curve.", True),
        # Verdicts on an answer stay disclosures.
        ("Your instinct on the glacier question was correct.", False),
        ("You were right on the second question.", False),
        ("You got the first one right.", False),
    ],
)
def test_praise_of_a_habit_is_not_a_verdict_on_an_answer(sentence, praise):
    assert praise_of_form(sentence) is praise
    found = {d["kind"] for d in find_leaks(sentence, [WAGES, FRICTIONAL, SHIP])}
    assert ("disclosure" in found) is not praise


@pytest.mark.parametrize(
    ("sentence", "form"),
    [
        ("A single noun is expected.", True),
        ("A one- or two-word answer is ideal.", True),
        ("Specialised compounds are fine, but the core term is what's being tested.", True),
        ("A short answer with a one-line reason is fine.", True),
        ("Dreadnought is the answer.", False),
    ],
)
def test_advice_on_the_answers_form_asserts_no_answer(sentence, form):
    assert only_form(sentence) is form
    assert (find_leaks(sentence, [WAGES, SHIP]) == []) is form


def test_the_kind_of_answer_with_a_possessive_is_no_pointer():
    assert names_kind_of_answer("The answer is a ship's name.")
    assert find_leaks("The answer is a ship's name.", [SHIP]) == []


def test_the_word_answer_is_not_the_masked_phrase_answer():
    assert masked_text("Carry that clarity into the re-answer. Dreadnought fits.", [SHIP]).split() == [
        "Carry", "that", "clarity", "into", "the", "re-answer.", "ANSWERKEY", "fits."
    ]


def test_the_learned_layer_flags_nothing_it_did_not_read(monkeypatch):
    # Every sentence is praise of form or advice on it: the model reads no term, so even a
    # model sure of a leak (p = 0.99 forced here) has no evidence to flag.
    from judgeagent.stages import leak_learned

    monkeypatch.setattr(leak_learned, "leak_probability", lambda s, q, e: (0.99, masked_text(s, q)))
    assert weigh([], "Your write-up was clear and well reasoned. A single noun is expected.", [SHIP], None) == []
    assert [d["kind"] for d in weigh([], "It was the first of its type.", [SHIP], None)] == ["learned"]


# --- guard 10, read from fresh14 -------------------------------------------------------------


def test_a_dash_opens_an_even_list_too():
    sentence = "Consider each of the five proposed purposes in turn — heating, lactose removal, evaporation, vitamins, fat globules — and ask which fits."
    assert hide_even_list(sentence, [MILK]) == "Consider each of the five proposed purposes in turn —  item, item, item, item, item— and ask which fits."
    assert find_leaks(sentence, [MILK]) == []


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        ("What you wrote for the battleship is incorrect.", "disclosure"),
        ("It would flood the turret, so the decorative option is wrong.", "elimination"),
    ],
)
def test_an_answer_given_or_an_option_named_by_what_it_says_is_judged(sentence, kind):
    assert kind in {d["kind"] for d in find_leaks(sentence, [WAGES, SHIP])}


@pytest.mark.parametrize(
    "sentence",
    [
        "Last time you were good about estimating how much energy was involved.",
        "In your earlier answers you tied wages to productivity, which is exactly the right frame.",
        "Your explanation last time was a bit generic.",
    ],
)
def test_a_habit_praised_or_a_form_criticised_is_no_disclosure(sentence):
    assert praise_of_form(sentence)
    assert "disclosure" not in {d["kind"] for d in find_leaks(sentence, [WAGES, SHIP])}
