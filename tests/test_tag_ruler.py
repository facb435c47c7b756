"""The graph's attribute ruler gives every token what spaCy's AttributeRuler gives it."""

from __future__ import annotations

import pytest
import spacy
from spacy.tokens import Doc

from judgeagent.graph.extract import SPACY_MODEL, load_pipeline
from judgeagent.graph.tag_ruler import TagRuler

ATTRS = ["TAG", "POS", "MORPH", "LEMMA", "DEP", "HEAD", "ENT_IOB", "ENT_TYPE", "NORM"]

# Sentences of our own that reach every kind of entry the English model's ruler has: the tag
# map, words ("a", "his", "I" as a subject, "but" as an adverb), two words in a row ("gonna",
# "let's", "y'all", "ain't"), a regular expression ("nothin'"), dependencies alone (auxiliaries,
# "there" before "is") and runs of spaces.
TEXTS = [
    "I think a doctor and an engineer met his sister at the station.",
    "We're gonna need a bigger boat, but let's not panic.",
    "Y'all ain't seen nothin' yet, said the ranger  to   the hikers.",
    "There is a valve that was replaced because it had failed twice.",
    "She could have been told earlier; all but two pumps were running.\n\nIts seal leaked.",
    "Whether the bridge holds depends on what the inspectors find.",
    "Gotta go: c'mon, the ferry leaves at noon and its crew won't wait.",
    "",
]


def both(nlp, text: str, ruler) -> tuple[Doc, Doc]:
    """``text`` parsed up to the ruler, then given to spaCy's ruler and to ``ruler``."""
    with nlp.select_pipes(enable=[p for p in nlp.pipe_names if p not in ("attribute_ruler", "ner")]):
        doc = nlp(text)
    theirs, ours = doc, Doc(doc.vocab).from_bytes(doc.to_bytes())
    nlp.get_pipe("attribute_ruler")(theirs)
    ruler(ours)
    return theirs, ours


def test_the_english_models_ruler_and_ours_set_the_same_attributes(spacys_pipeline):
    ours = TagRuler(spacys_pipeline.vocab).take(spacys_pipeline.get_pipe("attribute_ruler"))
    # Every kind of entry is read without spaCy's Matcher, so the test compares our code.
    assert ours.by_tag and ours.by_word and ours.arrayed and not len(ours.others)
    for text in TEXTS:
        theirs, mine = both(spacys_pipeline, text, ours)
        assert [(t.text, t.pos_, str(t.morph), t.lemma_) for t in mine] == \
               [(t.text, t.pos_, str(t.morph), t.lemma_) for t in theirs], text


def test_the_pipeline_the_graph_loads_gives_spacys_tokens(spacys_pipeline):
    ours = load_pipeline(SPACY_MODEL)
    assert isinstance(ours.get_pipe("attribute_ruler"), TagRuler)
    for text in TEXTS:
        a, b = spacys_pipeline(text), ours(text)
        assert (a.to_array(ATTRS) == b.to_array(ATTRS)).all(), text
        assert [(e.text, e.label_) for e in a.ents] == [(e.text, e.label_) for e in b.ents]
    article = ours("He bought a lamp.")[2]
    assert (article.pos_, str(article.morph)) == ("DET", "Definite=Ind|PronType=Art")


def hand_ruler():
    """A blank pipeline with a ruler of our own that uses what the English one does not:
    two entries for one tag, a word entry before its tag's entry, an operator, a negative index."""
    nlp = spacy.blank("en")
    ruler = nlp.add_pipe("attribute_ruler")
    ruler.add([[{"TAG": "NN"}]], {"POS": "NOUN", "MORPH": "Number=Sing"})
    ruler.add([[{"LOWER": "lamp", "TAG": "NN"}]], {"LEMMA": "LAMP", "POS": "PROPN"})  # before the next tag entry
    ruler.add([[{"TAG": "NN"}]], {"POS": "X"})  # a later entry for the same tag wins over both
    ruler.add([[{"TAG": "DT"}]], {"POS": "DET"})
    ruler.add([[{"LOWER": {"IN": ["a", "an"]}, "TAG": {"NOT_IN": ["NN"]}}]], {"MORPH": "Definite=Ind"})
    ruler.add([[{"LOWER": "very", "OP": "+"}, {"TAG": "JJ"}]], {"POS": "ADJ"}, index=-1)  # an operator
    ruler.add([[{"LOWER": {"REGEX": "^o+h$"}}, {"IS_SPACE": False}]], {"POS": "INTJ"}, index=0)
    ruler.add([[{"TAG": "NN"}, {"LOWER": "lamp"}]], {"NORM": "lampe"}, index=-1)  # sets NORM: not from the table
    return nlp, ruler


@pytest.mark.parametrize("words, tags", [
    (["a", "lamp", "and", "an", "oil", "lamp"], ["DT", "NN", "CC", "DT", "NN", "NN"]),
    (["very", "very", "bright", "ooh", "lamp"], ["RB", "RB", "JJ", "UH", "NN"]),
    (["oh", " ", "a"], ["UH", "_SP", "NN"]),
    (["lamp"], ["NN"]),
])
def test_a_hand_written_ruler_is_followed_entry_by_entry(words, tags):
    nlp, theirs = hand_ruler()
    ours = TagRuler(nlp.vocab).take(theirs)
    assert len(ours.others) == 1  # the operator's entry goes to spaCy's Matcher
    a, b = Doc(nlp.vocab, words=words, tags=tags), Doc(nlp.vocab, words=words, tags=tags)
    theirs(a), ours(b)
    assert [(t.pos_, str(t.morph), t.lemma_, t.norm_) for t in b] == [(t.pos_, str(t.morph), t.lemma_, t.norm_) for t in a]
    if words == ["lamp"]:
        assert (b[0].pos_, b[0].lemma_, str(b[0].morph)) == ("X", "LAMP", "Number=Sing")
