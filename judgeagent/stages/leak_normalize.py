"""One normalisation of option, answer and suggestion text for every check of the leakage guard.

A suggestion may write an answer with trivial differences from the option it names: "Graves'
disease" for "Graves disease", "mitochondria" for "Mitochondrion", "the 4th Amendment" for
"Fourth Amendment", "Qin Shihuang" for "Qin Shi Huang", "photo-synthesis". Every text the
guard compares goes through :func:`tokens`, the suggestion as much as the option, so a match
never depends on which side wrote the variant (the normalisation is symmetric by
construction: both sides are reduced to the same stems).

A token's stem drops: case and accents; apostrophes (a possessive "'s" or "s'" goes with its
"s" below); "-ly", "-ing", "-ed"; a doubled final consonant but l, s, z and f ("pitting", "pit"); then any run of final "s"/"e" ("viruses", "virus",
"viruse" all give "viru"); a final "y" after a consonant as "i" ("body" and "bodies" give "bodi");
then one Latin or Greek ending ("-ion", "-on", "-um", "-us", "-a",
"-i", and a final "i" left over: "mitochondrion" and "mitochondria" give "mitochondr"). Stems are for matching only:
two different words rarely share one among a question's few options, and both sides of a
comparison always lose the same letters. Articles (a, an, the) are dropped; ordinal and
cardinal number words are written as digits ("fourth", "4th" and "4" all give "4").
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

ARTICLES = frozenset({"a", "an", "the"})
_NUMBERS = {
    "one": "1", "first": "1", "two": "2", "second": "2", "three": "3", "third": "3", "four": "4", "fourth": "4",
    "five": "5", "fifth": "5", "six": "6", "sixth": "6", "seven": "7", "seventh": "7", "eight": "8", "eighth": "8",
    "nine": "9", "ninth": "9", "ten": "10", "tenth": "10", "eleven": "11", "eleventh": "11", "twelve": "12", "twelfth": "12",
    # "the seventeenth century" for "17th century"
    **{w: str(n) for n, w in enumerate(
        "thirteen fourteen fifteen sixteen seventeen eighteen nineteen twenty".split(), start=13)},
    **{w: str(n) for n, w in enumerate(
        "thirteenth fourteenth fifteenth sixteenth seventeenth eighteenth nineteenth twentieth".split(), start=13)},
}
_ORDINAL_DIGITS = re.compile(r"^(\d+)(?:st|nd|rd|th)$")
_WORD = re.compile(r"[a-z0-9]+")
_APOSTROPHES = re.compile(r"['’‘`´]")
_LATIN = ("ion", "on", "um", "us", "a", "i")
_SUFFIXES = ("ly", "ing", "ed")
_MIN_STEM = 3
_UNDOUBLED = frozenset("bdgmnprt")


@functools.lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    """The matching stem of one lower-case word (see the module's doc)."""
    if word.isdigit():
        return word
    if word in _NUMBERS:
        return _NUMBERS[word]
    m = _ORDINAL_DIGITS.match(word)
    if m:
        return m.group(1)
    for suffix in _SUFFIXES:
        if word.endswith(suffix) and len(word) - len(suffix) >= 4:
            word = word[: -len(suffix)]
            break
    # "pitting" and "pit", "putting" and "putt" meet at "pit" and "put"; not "fill", "pass", "buzz", "staff"
    if len(word) >= 4 and word[-1] == word[-2] and word[-1] in _UNDOUBLED:
        word = word[:-1]
    while len(word) > _MIN_STEM and word[-1] in "se":
        word = word[:-1]
    # "scoby" and "scobies" (whose "es" went above) meet at "scobi"; not "key" and "keys"
    if len(word) >= 4 and word[-1] == "y" and word[-2] not in "aeiouy":
        word = word[:-1] + "i"
    for ending in _LATIN:
        if word.endswith(ending) and len(word) - len(ending) >= 4:
            word = word[: -len(ending)]
            break
    # "mitochondri-a" and "mitochondr-ion" meet at "mitochondr".
    return word[:-1] if word.endswith("i") and len(word) > 4 else word


@functools.lru_cache(maxsize=65_536)  # the rules fold one sentence for each of several checks
def fold(text: str) -> str:
    """Lower case, accents and apostrophes removed ("Graves'" → "graves", "Paraná" → "parana")."""
    text = unicodedata.normalize("NFKD", text)
    text = "".join(ch for ch in text if not unicodedata.combining(ch))
    return _APOSTROPHES.sub("", text.casefold())


@functools.lru_cache(maxsize=65_536)
def tokens(text: str) -> tuple[str, ...]:
    """The stems of ``text``'s words, articles dropped, in order; any punctuation (hyphens
    included) separates words."""
    return tuple(stem(w) for w in _WORD.findall(fold(text)) if w not in ARTICLES)


@functools.lru_cache(maxsize=65_536)
def normalized(text: str) -> str:
    """:func:`tokens` joined by single spaces: the form two texts are compared in."""
    return " ".join(tokens(text))


def squashed(text: str) -> str:
    """:func:`normalized` without its spaces: "Qin Shihuang" and "Qin Shi Huang" agree."""
    return normalized(text).replace(" ", "")


def contains(haystack: tuple[str, ...], needle: tuple[str, ...]) -> list[int]:
    """Start indexes where the token sequence ``needle`` occurs in ``haystack``."""
    n = len(needle)
    if not n:
        return []
    first = needle[0]
    # Only where the first word matches is the rest compared (the guard asks this of every
    # option and every sentence, and most words match nothing).
    return [i for i in range(len(haystack) - n + 1) if haystack[i] == first and haystack[i : i + n] == needle]


# The shortest stems :func:`near_miss` and :func:`same_word` read as variants of another: a
# shorter stem is only ever the same word as itself.
VARIANT_MIN = 6


def near_miss(a: str, b: str) -> bool:
    """Whether two stems of 6 letters or more differ by one edit ("bismark", "bismarck")."""
    if min(len(a), len(b)) < VARIANT_MIN or abs(len(a) - len(b)) > 1 or a == b:
        return a == b and len(a) >= VARIANT_MIN
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) == 1
    short, long_ = (a, b) if len(a) < len(b) else (b, a)
    return any(long_[:i] + long_[i + 1 :] == short for i in range(len(long_)))


def same_word(a: str, b: str) -> bool:
    """Whether two stems are forms of one word: a shared beginning of 6 letters or more that
    covers most of the shorter ("angiogram", "angiography")."""
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n >= VARIANT_MIN and n >= 0.7 * min(len(a), len(b))


# --- numbers written in words --------------------------------------------------------------------
# "four hundred and forty-three", "nineteen eighty-nine", "twelve fifteen", "nineteen oh five":
# a number answer spelt out is the answer (a year and a port number, both read aloud).
_UNITS = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen".split()
)}
_TENS = {w: 10 * i for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), start=2)}
# "two dozen frames each second" is 24 (but "half a dozen" is left unread)
_SCALES = {"hundred": 100, "thousand": 1000, "dozen": 12}
_NUMBER_WORD = r"(?:" + "|".join([*_UNITS, *_TENS, *_SCALES, "oh"]) + r")"
_SPOKEN = re.compile(r"(?i)(?<!half a )\b" + _NUMBER_WORD + r"(?:(?:[\s-]+|\s+and\s+)" + _NUMBER_WORD + r")*\b")


@dataclass(frozen=True)
class SpokenNumber:
    value: int
    start: int
    end: int
    words: int  # how many number words: "seven" is 1, "twelve fifteen" is 2


def spoken_numbers(text: str) -> list[SpokenNumber]:
    """The numbers ``text`` writes in words, read as a cardinal ("four hundred and forty-three")
    or, for two groups with no hundred or thousand, as a year ("nineteen eighty-nine")."""
    out = []
    for m in _SPOKEN.finditer(text):
        for start, end in _and_parts(m):
            words = [w for w in re.split(r"[\s-]+", text[start:end].lower()) if w != "and"]
            value = _read(words)
            if value is not None:
                out.append(SpokenNumber(value, start, end, len(words)))
    return out


def _and_parts(m: re.Match[str]) -> list[tuple[int, int]]:
    """The numbers a run of number words holds: "and" joins what follows a hundred or a thousand
    ("four hundred and forty"), and otherwise lists two numbers ("thirty and fifty")."""
    parts, start = [], m.start()
    for a in re.finditer(r"(?i)\s+and\s+", m.group(0)):
        before = m.group(0)[: a.start()].lower()
        if not re.search(r"(?:hundred|thousand|dozen)$", before):
            parts.append((start, m.start() + a.start()))
            start = m.start() + a.end()
    return [*parts, (start, m.end())]


def _read(words: list[str]) -> int | None:
    if words[0] == "oh":
        return None
    if any(w in _SCALES for w in words):
        total = current = 0
        for w in words:
            if w in _SCALES:
                current = max(current, 1) * _SCALES[w]
                if w == "thousand":
                    total, current = total + current, 0
            elif w == "oh":
                return None
            else:
                current += _UNITS.get(w, 0) + _TENS.get(w, 0)
        return total + current
    groups: list[int] = []
    open_tens = False  # the last group is a bare tens ("eighty") a unit may still join
    for w in words:
        if w in _TENS:
            groups.append(_TENS[w])
            open_tens = True
        elif w == "oh":
            groups.append(0)
            open_tens = True  # "oh five": the unit joins the zero
        elif open_tens and _UNITS[w] < 10:
            groups[-1] += _UNITS[w]
            open_tens = False
        else:
            groups.append(_UNITS[w])
            open_tens = False
    if len(groups) == 1:
        return groups[0]
    if len(groups) == 2 and 10 <= groups[0] <= 99:
        return groups[0] * 100 + groups[1]
    return None
