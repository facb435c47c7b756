"""spaCy's attribute ruler with its entries looked up by tag and word: the same tokens, a fraction of the cost.

The English pipelines' ``attribute_ruler`` holds about 180 entries, each a one-token pattern
and the attributes it sets: the tag map, one entry per fine-grained tag ("a token tagged NN
gets POS NOUN and Number=Sing"), and exceptions for words ("a" tagged DT is an indefinite
article; "i" as a subject). spaCy tries every pattern at every token with its Matcher and then
sets each token's attributes one Python call at a time, which cost more than its parser on
real prose (16% of the pipeline). Here the tag map is a table looked up for all tokens at once,
the word exceptions are looked up by the token's lower-case form, and the few others (two
words in a row, a dependency, a regular expression) are tested on arrays of the token
attributes; an entry none of these can read goes through spaCy's Matcher as before. Where
several entries touch a token they are applied in spaCy's order, the later entry winning, so
every token gets what spaCy's ruler gives it (``bench/tag_ruler.py`` compares the two).
"""

from __future__ import annotations

import re
from typing import Any, cast

import numpy as np
from spacy.attrs import DEP, IS_SPACE, LEMMA, LOWER, MORPH, POS, TAG
from spacy.language import Language
from spacy.matcher import Matcher
from spacy.tokens import Doc
from spacy.tokens._retokenize import set_token_attrs

FACTORY = "judgeagent_tag_ruler"
# What a tag-map entry may set and still be applied from the table; an entry that sets
# anything else (NORM, an extension) goes through the Matcher.
TABLE_ATTRS = (POS, MORPH, LEMMA)
# What the other patterns may test and still be tested on arrays; READ's columns.
KEYS = {"LOWER": LOWER, "TAG": TAG, "DEP": DEP, "IS_SPACE": IS_SPACE}
READ = [LOWER, TAG, DEP, IS_SPACE]
WORD_KEYS = ("LOWER", "TAG", "DEP")  # what a word exception may test

Test = tuple[int, bool, frozenset]  # (column of READ, whether the value must be in the set, the set)
# One test of an array pattern: (its token's offset in the pattern, column of READ,
# how: "in", "not_in", "bool" or "regex", what)
TokenTest = tuple[int, int, str, Any]


class TagRuler:
    """A pipeline component equal to the ``AttributeRuler`` it is made from (:meth:`take`)."""

    def __init__(self, vocab) -> None:
        self.vocab = vocab
        self.attrs: list[dict[int, Any]] = []  # the ruler's entries, in its order
        self.indices: list[int] = []
        self.by_tag: dict[int, list[int]] = {}  # tag hash -> its tag-map entries, ascending
        self.tag_keys = np.zeros(0, dtype=np.uint64)  # the tags with entries, sorted: row i is tag_keys[i]
        self.table: dict[int, np.ndarray] = {}  # attribute -> value per tag row
        self.has: dict[int, np.ndarray] = {}  # attribute -> whether a tag row sets it
        self.by_word: dict[int, list[tuple[int, tuple[Test, ...]]]] = {}  # lower-case hash -> (entry, tests)
        self.word_keys = np.zeros(0, dtype=np.uint64)
        self.arrayed: list[tuple[int, list[tuple[int, list[TokenTest]]]]] = []  # (entry, [(length, tests)])
        self.others = Matcher(vocab)
        self._regex: dict[tuple[str, int], bool] = {}  # (expression, string hash) -> found

    def take(self, ruler) -> TagRuler:
        """Take over ``ruler``'s entries (a loaded spaCy ``AttributeRuler``)."""
        self.attrs, self.indices = list(ruler.attrs), list(ruler.indices)
        self.by_tag, self.by_word, self.arrayed, self.others = {}, {}, [], Matcher(self.vocab)
        for i, entry in enumerate(ruler.patterns):
            one_token = self.indices[i] in (0, -1) and all(len(p) == 1 for p in entry["patterns"])
            tags = _tags_only(entry["patterns"]) if one_token and set(self.attrs[i]) <= set(TABLE_ATTRS) else None
            words = [self._word_tests(p[0]) for p in entry["patterns"]] if one_token else [None]
            if tags is not None:
                for name in tags:
                    self.by_tag.setdefault(self.vocab.strings.add(name), []).append(i)
            elif all(w is not None for w in words):
                for lowers, tests in words:  # type: ignore[misc]
                    for lower in lowers:
                        self.by_word.setdefault(lower, []).append((i, tests))
            elif all(arrayed := [self._array_pattern(p) for p in entry["patterns"]]):
                self.arrayed.append((i, arrayed))  # type: ignore[arg-type]
            else:
                self.others.add(str(i), entry["patterns"])
        self.tag_keys = np.array(sorted(self.by_tag), dtype=np.uint64)
        self.word_keys = np.array(sorted(self.by_word), dtype=np.uint64)
        # One row per tag with entries, and a last row for every other tag, which sets nothing.
        self.table = {a: np.zeros(len(self.tag_keys) + 1, dtype=np.uint64) for a in TABLE_ATTRS}
        self.has = {a: np.zeros(len(self.tag_keys) + 1, dtype=bool) for a in TABLE_ATTRS}
        for row, tag in enumerate(self.tag_keys.tolist()):
            for i in self.by_tag[tag]:  # ascending: a later entry overwrites, as in spaCy
                for attr, value in self.attrs[i].items():
                    self.table[attr][row], self.has[attr][row] = value, True
        return self

    def _word_tests(self, token: dict) -> tuple[set[int], tuple[Test, ...]] | None:
        """(the lower-case forms, the other tests) of a one-token pattern that names its words
        and tests only words, tags and dependencies by value or set; None for any other."""
        if "LOWER" not in token or not set(token) <= set(WORD_KEYS):
            return None
        tests: list[Test] = []
        for key, value in token.items():
            if isinstance(value, str):
                test: Test = (READ.index(KEYS[key]), True, frozenset({self.vocab.strings.add(value)}))
            elif isinstance(value, dict) and len(value) == 1 and set(value) <= {"IN", "NOT_IN"}:
                (op, values), = value.items()
                if not all(isinstance(v, str) for v in values):
                    return None
                test = (READ.index(KEYS[key]), op == "IN", frozenset(self.vocab.strings.add(v) for v in values))
            else:
                return None
            tests.append(test)
        lower = next(t for t in tests if t[0] == READ.index(LOWER))
        if not lower[1]:
            return None  # NOT_IN on the word names no word to look it up by
        return set(lower[2]), tuple(tests)

    def _array_pattern(self, pattern: list[dict]) -> tuple[int, list[TokenTest]] | None:
        """(length, tests) of a pattern, or None if it tests anything else (an operator such
        as ``OP``, another attribute, another predicate). Regular expressions come last: each
        costs a Python call per token it reads, so it reads only where every other test held."""
        tests: list[TokenTest] = []
        for k, token in enumerate(pattern):
            if not token or not set(token) <= set(KEYS):
                return None
            for key, value in token.items():
                col = READ.index(KEYS[key])
                if key == "IS_SPACE":
                    if not isinstance(value, bool):
                        return None
                    tests.append((k, col, "bool", value))
                elif isinstance(value, str):
                    tests.append((k, col, "in", [np.uint64(self.vocab.strings.add(value))]))
                elif isinstance(value, dict) and len(value) == 1 and set(value) <= {"IN", "NOT_IN", "REGEX"}:
                    (how, what), = value.items()
                    if how == "REGEX":
                        tests.append((k, col, "regex", re.compile(what)))
                    elif all(isinstance(v, str) for v in what):
                        tests.append((k, col, how.lower(), [np.uint64(self.vocab.strings.add(v)) for v in what]))
                    else:
                        return None
                else:
                    return None
        return len(pattern), sorted(tests, key=lambda t: t[2] == "regex")

    def _holds(self, values: np.ndarray, how: str, what: Any) -> np.ndarray:
        """Which of one column's values pass one test, as spaCy's Matcher reads them."""
        if how in ("in", "not_in"):
            inside = values == what[0]  # the sets are a few tags or words: faster than np.isin
            for v in what[1:]:
                inside |= values == v
            return inside if how == "in" else ~inside
        if how == "bool":
            return (values != 0) == what
        found = []  # regex: searched in the attribute's string, once per string ever seen
        for h in values.tolist():
            key = (what.pattern, h)
            if key not in self._regex:
                self._regex[key] = bool(what.search(self.vocab.strings[h]))
            found.append(self._regex[key])
        return np.array(found, dtype=bool)

    def _array_matches(self, read: np.ndarray) -> list[tuple[int, int, int]]:
        """(entry, start, end) of every match of the arrayed entries."""
        out: list[tuple[int, int, int]] = []
        for entry, patterns in self.arrayed:
            for length, tests in patterns:
                starts = len(read) - length + 1
                if starts <= 0:
                    continue
                ok = np.ones(starts, dtype=bool)
                for k, col, how, what in tests:
                    if how == "regex":
                        at = np.flatnonzero(ok)
                        ok[at] = self._holds(read[at + k, col], how, what)
                    else:
                        ok &= self._holds(read[k : k + starts, col], how, what)
                out.extend((entry, int(s), int(s) + length) for s in np.flatnonzero(ok))
        return out

    def __call__(self, doc: Doc) -> Doc:
        if not len(doc):
            return doc
        read = doc.to_array(READ).reshape(len(doc), len(READ))
        tags = read[:, READ.index(TAG)]
        rows = np.searchsorted(self.tag_keys, tags)
        known = rows < len(self.tag_keys)
        known[known] = self.tag_keys[rows[known]] == tags[known]
        rows[~known] = len(self.tag_keys)
        attrs = [a for a in TABLE_ATTRS if self.has[a].any()]
        if attrs:
            current = doc.to_array(attrs).reshape(len(doc), len(attrs))
            for col, attr in enumerate(attrs):
                current[:, col] = np.where(self.has[attr][rows], self.table[attr][rows], current[:, col])
            doc.from_array(attrs, current)  # type: ignore[arg-type]
        self._apply_exceptions(doc, read)
        return doc

    def pipe(self, docs, batch_size: int = 128):
        """Each doc in turn, as spaCy's components offer."""
        for doc in docs:
            yield self(doc)

    def _apply_exceptions(self, doc: Doc, read: np.ndarray) -> None:
        """Every entry touching a token an exception matched, in the ruler's order: the tag-map
        entries already applied are applied again so that a later one still wins."""
        touched: dict[int, set[int]] = {}
        lowers = read[:, READ.index(LOWER)]
        for token in np.flatnonzero(np.isin(lowers, self.word_keys)).tolist():
            values = read[token].tolist()
            for entry, tests in self.by_word[values[0]]:
                if all((values[col] in allowed) == inside for col, inside, allowed in tests):
                    touched.setdefault(token, set()).add(entry)
        others = [(int(self.vocab.strings[m]), s, e) for m, s, e in self.others(doc, allow_missing=True, as_spans=False)] if len(self.others) else []
        for entry, start, end in self._array_matches(read) + others:
            index = self.indices[entry]
            token = (start if index >= 0 else end) + index
            if not start <= token < end:
                raise ValueError(f"attribute ruler entry {entry}: index {index} is outside the match {start}:{end}")
            touched.setdefault(token, set()).add(entry)
        tags = read[:, READ.index(TAG)]
        for token, entries in sorted(touched.items()):
            for entry in sorted(entries | set(self.by_tag.get(int(tags[token]), ()))):
                set_token_attrs(doc[token], self.attrs[entry])


def _tags_only(patterns: list) -> list[str] | None:
    """The tags of a list of one-token patterns that each test the tag alone, else None."""
    tags = []
    for pattern in patterns:
        if len(pattern) != 1 or set(pattern[0]) != {"TAG"} or not isinstance(pattern[0]["TAG"], str):
            return None
        tags.append(pattern[0]["TAG"])
    return tags


@Language.factory(FACTORY)
def make_tag_ruler(nlp: Language, name: str) -> TagRuler:
    return TagRuler(nlp.vocab)


def speed_up(nlp: Language, name: str = "attribute_ruler") -> None:
    """Put a :class:`TagRuler` in place of ``nlp``'s attribute ruler ``name``, if it has one."""
    if name not in nlp.pipe_names:
        return
    ruler = nlp.get_pipe(name)
    nlp.replace_pipe(name, FACTORY)
    cast(TagRuler, nlp.get_pipe(name)).take(ruler)
