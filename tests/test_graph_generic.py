"""Generic entities: common English weighed against this corpus (judgeagent.graph.generic)."""

from __future__ import annotations

from pathlib import Path

import pytest

from judgeagent.graph.generic import LIFT_MIN, MIN_CHUNKS, generic_names, is_domain_word, zipf

MEDQA_DEMO = Path(__file__).resolve().parents[1] / "data" / "medqa-demo"


@pytest.mark.parametrize(
    "observed, expected, domain",
    [
        (2, 0.4, True),  # 2 >= 5 x 0.4
        (2, 0.41, False),
        (1, 0.01, False),  # one chunk is no evidence, however rare the word
        (30, 1.25, True),
        (2, 11.2, False),
    ],
)
def test_domain_word_needs_a_lift_and_two_chunks(observed, expected, domain):
    assert (LIFT_MIN, MIN_CHUNKS) == (5.0, 2)
    assert is_domain_word(observed, expected) is domain


def test_common_words_go_rare_and_characteristic_words_stay():
    # 4 chunks of 100 words. "heart" is a word of entities in 3 chunks where general
    # English predicts about 0.08: a domain word. "time" (1 chunk, ~0.7 expected) and
    # "way" are generic; "warfarin" is too rare in English to be generic at all; "b12"
    # and "chest pain" are not single plain words.
    chunks = [["time", "heart failure", "b12"], ["heart", "warfarin"], ["heart rate", "way"], ["chest pain"]]
    assert zipf("heart") > 5 and zipf("warfarin") < 4
    assert generic_names(chunks, [100] * 4) == {"time", "way"}


def test_no_candidates_and_empty_corpus():
    assert generic_names([["warfarin"], []], [10, 0]) == set()
    assert generic_names([], []) == set()


def test_medqa_demo_keeps_its_domain_terms(spacy_extractor):
    """The figures the module docstring quotes: which common words survive on medqa-demo."""
    from judgeagent.data import load_benchmark

    texts = [c.text for c in load_benchmark(MEDQA_DEMO).chunks]
    ents = spacy_extractor.extract(texts)
    generic = generic_names(ents, [len(t.split()) for t in texts])
    single = {n for e in ents for n in e}
    for word in ("heart", "blood", "kidney", "patient", "dose"):
        assert word in single and word not in generic, word
    for word in ("time", "way", "day", "man", "point", "group"):
        assert word in single and word in generic, word
