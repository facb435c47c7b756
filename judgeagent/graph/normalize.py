"""Entity normalisation: turn a spaCy span, or a user's free text, into a node name.

Two spellings of one concept must land on one node, so names are case-folded, the head
noun is lemmatised ("Lewy bodies" → "lewy body"), and words that carry no identity
("the", "its", "many", "3") are stripped from the front. Only the last word is lemmatised:
lemmatising modifiers mangles terms ("normalized ratio" → "normalize ratio").

A span that cannot be a useful node is dropped with a reason, which the extractor counts
for ``graph-info``:

- ``numeric``: a date, time, number, amount or ordinal (NER labels in
  :data:`NUMERIC_LABELS`), or a noun chunk made only of such an entity's words
  ("last year", "March"): poor graph connectors, and never what a question is about;
- ``fragment``: punctuation debris of a noisy text ("[transcriber's note", "3v.");
- ``too_long``: more than :data:`MAX_ENTITY_WORDS` words, i.e. a table row or list that
  one noun chunk swallowed; it names nothing and would pad every embedding batch.

Common words ("time", "year") are dropped later, per corpus (:mod:`judgeagent.graph.generic`),
because whether a word is generic depends on the corpus it is in.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

# NER labels that are numbers or dates: poor graph connectors and the issue drops numbers.
NUMERIC_LABELS = frozenset({"CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "MONEY", "DATE", "TIME"})

# Parts of speech stripped from the edges of a span (leading determiners, pronouns, numbers).
_EDGE_POS = frozenset({"DET", "PRON", "NUM", "PUNCT", "SYM", "CCONJ", "ADP", "PART", "SPACE"})

# The query-side counterpart of the spaCy rules, for text normalised without a model.
_LEADING_WORDS = frozenset(
    "a an the this that these those its their his her our your my some any many most other such "
    "several each every".split()
)

# Real entities average 2-3 words; past 8 a "name" is a swallowed table row or list.
MAX_ENTITY_WORDS = 8

NUMERIC, FRAGMENT, TOO_LONG = "numeric", "fragment", "too_long"

_WS = re.compile(r"\s+")
_HAS_LETTER = re.compile(r"[^\W\d_]")
_BRACKETS = {"(": ")", "[": "]", "{": "}", "“": "”"}


@dataclass(frozen=True)
class SpanName:
    """What a span becomes: a node ``name`` with its ``display`` form, or a drop ``reason``.

    Both ``name`` and ``reason`` are None when nothing named was left (a pronoun, "it").
    """

    name: str | None
    display: str = ""
    reason: str | None = None


def clean(text: str) -> str:
    """Case-fold, unify Unicode forms and collapse whitespace."""
    return _WS.sub(" ", unicodedata.normalize("NFKC", text)).strip().casefold()


def is_valid_name(name: str) -> bool:
    """A name needs two characters and at least one letter (drops "7", "x", "--")."""
    return len(name) >= 2 and bool(_HAS_LETTER.search(name))


def is_fragment(name: str) -> bool:
    """Punctuation debris: unbalanced brackets or quotes, or a word cut at a non-letter edge.

    A name must begin with a letter or digit and end with one, or with a closing bracket
    that closes, or with the last period of an abbreviation ("u.s.", not "3v.").
    """
    depth: list[str] = []
    for ch in name:
        if ch in _BRACKETS:
            depth.append(_BRACKETS[ch])
        elif ch in _BRACKETS.values():
            if not depth or depth.pop() != ch:
                return True
    if depth or name.count('"') % 2:
        return True
    first, last = name[0], name[-1]
    if not first.isalnum():
        return True
    if last.isalnum() or last in ")]}":
        return False
    return not (last == "." and "." in name[:-1] and not any(c.isdigit() for c in name))


def name_span(span, label: str | None = None, lemma: Callable | None = None) -> SpanName:
    """The node name of a spaCy span, or why it has none.

    ``label`` is the span's NER label when it is a named entity, None for a noun chunk.
    ``lemma(token)`` gives a head noun's lemma (None: the token's own ``lemma_``, as a
    pipeline with a lemmatizer sets it).
    """
    if label in NUMERIC_LABELS:
        return SpanName(None, span.text, NUMERIC)
    tokens = list(span)
    start, end = 0, len(tokens)
    while start < end and (tokens[start].pos_ in _EDGE_POS or tokens[start].is_stop):
        start += 1
    while end > start and tokens[end - 1].pos_ in _EDGE_POS:
        end -= 1
    kept = tokens[start:end]
    if not kept or all(t.is_stop or t.like_num or t.is_punct for t in kept):
        return SpanName(None)
    if all(t.ent_type_ in NUMERIC_LABELS or t.is_stop or t.is_punct for t in kept):
        return SpanName(None, span.text, NUMERIC)  # a noun chunk that is only a date or amount
    if sum(not t.is_punct for t in kept) > MAX_ENTITY_WORDS:
        return SpanName(None, span.text, TOO_LONG)
    words = []
    for i, tok in enumerate(kept):
        last = i == len(kept) - 1
        # Only common nouns are lemmatised: proper names keep their spelling.
        word = tok.text
        if last and tok.pos_ == "NOUN":
            word = (lemma(tok) if lemma is not None else tok.lemma_) or tok.text
        words.append(word + ("" if last else tok.whitespace_))
    name = clean("".join(words))
    display = _WS.sub(" ", "".join(t.text + ("" if i == len(kept) - 1 else t.whitespace_)
                                   for i, t in enumerate(kept))).strip()
    if not is_valid_name(name):
        return SpanName(None)
    if is_fragment(name):
        return SpanName(None, display, FRAGMENT)
    return SpanName(name, display)


def normalize_span(span, label: str | None = None) -> tuple[str, str] | None:
    """(node name, display label) for a spaCy span, or None when it names nothing useful."""
    got = name_span(span, label)
    return (got.name, got.display) if got.name is not None else None


def normalize_query(text: str) -> str:
    """Normalise free text without a model, to test whether it already names a node.

    This is deliberately simple: it only strips leading determiners/pronouns and folds
    case. Anything it does not turn into an exact node name goes to the embedding index.
    """
    words = clean(text).strip(" .,;:!?\"'()[]").split(" ")
    while len(words) > 1 and words[0] in _LEADING_WORDS:
        words = words[1:]
    return " ".join(words)
