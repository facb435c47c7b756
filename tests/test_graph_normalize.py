"""Entity normalisation: spaCy spans and free-text queries to node names."""

from __future__ import annotations

import pytest

from judgeagent.graph.normalize import clean, is_valid_name, normalize_query


@pytest.mark.parametrize(
    "text, expected",
    [
        ("The patients took warfarin. Warfarin thins the blood.", ["patient", "warfarin", "blood"]),
        ("Its effect is monitored with the international normalized ratio.",
         ["effect", "international normalized ratio"]),
        ("Many drugs interact with the cytochrome P450 system.", ["drug", "cytochrome p450 system"]),
        ("Robert Hooke joined the Royal Society in London.", ["robert hooke", "royal society", "london"]),
        ("It is x. They saw it.", []),
        ("Aspirin inhibits platelets.", ["aspirin", "platelet"]),
    ],
)
def test_spacy_extraction_normalises(spacy_extractor, text, expected):
    assert spacy_extractor.extract([text]) == [expected]


def test_numbers_dates_and_leading_words_are_dropped(spacy_extractor):
    [names] = spacy_extractor.extract(["These 3 cavities and Lewy bodies were found in 1660 by two doctors."])
    # "these 3" stripped, head noun lemmatised, proper name kept; the year and "two" dropped
    assert "cavity" in names and "lewy body" in names and "doctor" in names
    assert not any(ch.isdigit() for n in names for ch in n)
    assert "two" not in names


def test_merge_is_case_insensitive_and_labels_keep_a_surface_form(spacy_extractor):
    a, b = spacy_extractor.extract(["ASPIRIN helps.", "Aspirin inhibits platelets."])
    assert "aspirin" in a and "aspirin" in b
    label, kind = spacy_extractor.labels["aspirin"]
    assert label.casefold() == "aspirin"


def test_named_entity_kind_is_recorded(spacy_extractor):
    spacy_extractor.extract(["Robert Hooke joined the Royal Society in London."])
    assert spacy_extractor.labels["robert hooke"] == ("Robert Hooke", "PERSON")
    assert spacy_extractor.labels["london"][1] == "GPE"


def test_each_text_lists_an_entity_once(spacy_extractor):
    [names] = spacy_extractor.extract(["Warfarin and warfarin and WARFARIN interact with warfarin."])
    assert names.count("warfarin") == 1


@pytest.mark.parametrize(
    "text, expected",
    [
        ("Warfarin", "warfarin"),
        ("  the   Royal Society ", "royal society"),
        ("its effect.", "effect"),
        ("The", "the"),  # never strips a name down to nothing
        ("Chest PAIN", "chest pain"),
    ],
)
def test_normalize_query(text, expected):
    assert normalize_query(text) == expected


def test_valid_names():
    assert not is_valid_name("x")
    assert not is_valid_name("1660")
    assert not is_valid_name("--")
    assert is_valid_name("b12")
    assert clean("Ａｓｐｉｒｉｎ\n tablets") == "aspirin tablets"


@pytest.mark.slow
def test_worker_processes_give_the_same_entities_as_one_process():
    from judgeagent.data import load_benchmark
    from judgeagent.graph.extract import SpacyExtractor

    texts = [c.text for c in load_benchmark("data/medqa-demo").chunks]
    texts = (texts * 4)[:300]  # enough texts for the worker pool to start
    one, two = SpacyExtractor(workers=1), SpacyExtractor(workers=2)
    assert two.extract(texts) == one.extract(texts)
    assert two.labels == one.labels


@pytest.mark.parametrize(
    "name, fragment",
    [
        ("[transcriber's note", True),  # an opening bracket that never closes
        ("3v.", True),  # cut at a period that ends no abbreviation
        ("note]", True),
        ('"the raven', True),
        ("-ish", True),
        ("u.s.", False),  # an abbreviation's last period
        ("vitamin b12", False),
        ("factor (viii)", False),
        ("transcriber's note", False),
    ],
)
def test_fragments(name, fragment):
    from judgeagent.graph.normalize import is_fragment

    assert is_fragment(name) is fragment


def test_dates_amounts_and_their_noun_chunks_are_dropped_and_counted(spacy_extractor):
    [names] = spacy_extractor.extract(["Last year in March the patients took 20 mg of warfarin for two weeks."])
    assert "warfarin" in names and "patient" in names
    assert not {"last year", "year", "march", "two weeks", "week"} & set(names)
    assert spacy_extractor.dropped == {"numeric": 4}


def test_names_longer_than_the_cap_are_dropped_and_counted(spacy_extractor):
    from judgeagent.graph.normalize import MAX_ENTITY_WORDS

    colours = "red blue green yellow orange purple brown black white grey pink"
    [names] = spacy_extractor.extract([f"The committee listed the {colours} cars of the town."])
    assert MAX_ENTITY_WORDS == 8
    assert names == ["committee", "town"]
    assert spacy_extractor.dropped == {"too_long": 1}


def test_extractor_name_carries_the_rules_version(spacy_extractor):
    from judgeagent.graph.extract import RULES_VERSION

    assert spacy_extractor.name.endswith(f"+rules{RULES_VERSION}")  # old graphs rebuild
    assert RULES_VERSION == 2
