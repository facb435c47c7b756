"""The placebo suggestion: length-matched, seeded, made only of the fixed sentences, and
content-free: no sentence instructs the target or is about any question."""

import re

import pytest

from judgeagent.stages.controls import PLACEBO_SENTENCES, TOLERANCE, placebo_suggestion


@pytest.mark.parametrize("seed", [0, 1, 17])
def test_length_within_tolerance(seed):
    for length in list(range(50, 200)) + list(range(200, 2001, 23)) + [2000]:
        text = placebo_suggestion(length, seed)
        assert abs(len(text) - length) <= TOLERANCE * length, (length, len(text))


def test_same_seed_same_text_and_seeds_differ():
    assert placebo_suggestion(600, 5) == placebo_suggestion(600, 5)
    assert len({placebo_suggestion(600, s) for s in range(6)}) > 1


def _sentences(text: str) -> list[str]:
    return re.split(r"(?<=\.) ", text)


@pytest.mark.parametrize("length", [0, 10, 50, 333, 1500, 5000])
def test_built_only_from_the_fixed_sentences(length):
    parts = _sentences(placebo_suggestion(length, 3))
    assert parts and all(p in PLACEBO_SENTENCES for p in parts)


def test_short_targets_still_get_one_sentence():
    assert placebo_suggestion(0, 0) in PLACEBO_SENTENCES


def test_long_targets_use_every_sentence_before_repeating():
    parts = _sentences(placebo_suggestion(1500, 9))
    assert set(PLACEBO_SENTENCES) <= set(parts)


# Verbs that, opening a sentence, make it an instruction to reason or to answer in some way.
IMPERATIVE_VERBS = {
    "think", "reason", "read", "re-read", "reread", "consider", "check", "double-check", "verify", "review", "recall",
    "remember", "analyse", "analyze", "focus", "pay", "avoid", "rely", "break", "look", "answer", "choose", "pick",
    "compare", "eliminate", "take", "make", "stay", "keep", "ask", "weigh", "reflect", "evaluate", "examine",
    "identify", "use", "be", "try", "start", "work", "note", "watch", "beware", "ensure", "don't", "do", "never",
}
# Words that address or steer the target, wherever they are.
STEERING = re.compile(r"(?i)\b(?:you|your|yourself|should|must|step by step|carefully|make sure|before you|try to|remember)\b")


@pytest.mark.parametrize("sentence", PLACEBO_SENTENCES)
def test_no_placebo_sentence_is_an_instruction(sentence):
    first = sentence.split()[0].strip(",.").lower()
    assert first not in IMPERATIVE_VERBS
    assert STEERING.search(sentence) is None


def test_the_old_step_by_step_advice_is_gone():
    assert not any("step by step" in s.lower() or s.startswith("Think") for s in PLACEBO_SENTENCES)


def test_sentence_lengths_span_what_the_length_match_needs():
    lengths = sorted(len(s) for s in PLACEBO_SENTENCES)
    assert (lengths[0], lengths[-1], len(set(PLACEBO_SENTENCES))) == (44, 102, 15)
