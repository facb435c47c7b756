"""Entity normalisation: turn a spaCy span, or a user's free text, into a node name.

Two spellings of one concept must land on one node, so names are case-folded, the head
noun is lemmatised ("Lewy bodies" → "lewy body"), and words that carry no identity
("the", "its", "many", "3") are stripped from the front. Only the last word is lemmatised:
lemmatising modifiers mangles terms ("normalized ratio" → "normalize ratio").
"""

from __future__ import annotations

import re
import unicodedata

# NER labels that are numbers or dates: poor graph connectors and the issue drops numbers.
NUMERIC_LABELS = frozenset({"CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "MONEY", "DATE", "TIME"})

# Parts of speech stripped from the edges of a span (leading determiners, pronouns, numbers).
_EDGE_POS = frozenset({"DET", "PRON", "NUM", "PUNCT", "SYM", "CCONJ", "ADP", "PART", "SPACE"})

# The query-side counterpart of the spaCy rules, for text normalised without a model.
_LEADING_WORDS = frozenset(
    "a an the this that these those its their his her our your my some any many most other such "
    "several each every".split()
)

_WS = re.compile(r"\s+")
_HAS_LETTER = re.compile(r"[^\W\d_]")


def clean(text: str) -> str:
    """Case-fold, unify Unicode forms and collapse whitespace."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text)).strip().casefold()


def is_valid_name(name: str) -> bool:
    """A name needs two characters and at least one letter (drops "7", "x", "--")."""
    return len(name) >= 2 and bool(_HAS_LETTER.search(name))


def normalize_span(span, label: str | None = None) -> tuple[str, str] | None:
    """(node name, display label) for a spaCy span, or None when nothing is left.

    ``label`` is the span's NER label when it is a named entity; numeric ones are dropped.
    """
    if label in NUMERIC_LABELS:
        return None
    tokens = list(span)
    start, end = 0, len(tokens)
    while start < end and (tokens[start].pos_ in _EDGE_POS or tokens[start].is_stop):
        start += 1
    while end > start and tokens[end - 1].pos_ in _EDGE_POS:
        end -= 1
    kept = tokens[start:end]
    if not kept or all(t.is_stop or t.like_num or t.is_punct for t in kept):
        return None
    words = []
    for i, tok in enumerate(kept):
        last = i == len(kept) - 1
        # Only common nouns are lemmatised: proper names keep their spelling.
        word = tok.lemma_ if last and tok.pos_ == "NOUN" and tok.lemma_ else tok.text
        words.append(word + ("" if last else tok.whitespace_))
    name = clean("".join(words))
    if not is_valid_name(name):
        return None
    display = "".join(t.text + ("" if i == len(kept) - 1 else t.whitespace_) for i, t in enumerate(kept))
    return name, _WS.sub(" ", display).strip()


def normalize_query(text: str) -> str:
    """Normalise free text without a model, to test whether it already names a node.

    This is deliberately simple: it only strips leading determiners/pronouns and folds
    case. Anything it does not turn into an exact node name goes to the embedding index.
    """
    words = clean(text).strip(" .,;:!?\"'()[]").split(" ")
    while len(words) > 1 and words[0] in _LEADING_WORDS:
        words = words[1:]
    return " ".join(words)
