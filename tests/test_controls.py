"""The placebo suggestion: length-matched, seeded, and made only of the bland sentences."""

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
