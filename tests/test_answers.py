import pytest

from judgeagent.stages.answers import normalize_letter, normalize_phrase, phrase_match

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
