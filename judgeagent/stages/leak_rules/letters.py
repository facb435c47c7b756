"""Option letters: "option B", "(C)", "B and A on Q1", "that gives C"; never a unit ("25 °C"), a
symbol ("E = hf"), an initial ("E. M. Forster"), a note ("middle C") or part of a name
("Company B")."""

from __future__ import annotations

import re

from judgeagent.stages.leak_rules.vocabulary import alternation, words

# Words after which a capital letter names a thing, not an option ("vitamin C", "type B").
_NAMING = words("letter_naming_words")
# Words that may follow an option letter when the sentence goes on ("C fits", "B and A on Q1");
# any other lower-case word makes the capital part of a noun phrase ("B cells", "A patient").
_GOES_ON = alternation("letter_goes_on")
LETTER_TOKEN = re.compile(r"(?<![\w'’./-])\(?(?P<l>[A-Z])\)?(?![\w'’-])")
_WORD_BEFORE = re.compile(r"([\w'’-]+)\W*$")
_NEXT_WORD = re.compile(r"^\s*([A-Za-z0-9][\w'’-]*)")
_LETTER_LIST = r"\(?[A-Z]\)?(?:\s*(?:,|/|&|\band\b|\bor\b|\bnor\b)\s*\(?[A-Z]\)?(?![\w'’-]))*"
EXPLICIT = re.compile(r"(?i:\b(?:options?|choices?|letters?|answers?|alternatives?)\s+)(?P<ls>" + _LETTER_LIST + ")")
# A lower-case letter after "answer:" or "option" ("Answer: b.", "choice c,"), ending its clause.
LOWER_EXPLICIT = re.compile(r"(?i:\b(?:options?|choices?|answers?|letters?)\s*[:#]?\s*)\(?(?P<l>[a-f])\)?(?=\s*(?:[.,;:!?)]|$))")
BETWEEN = re.compile(r"\bbetween\s+\(?([A-Z])\)?\s+and\s+\(?([A-Z])\)?(?![\w'’])")


def reads_as_letter(sentence: str, start: int, end: int) -> bool:
    """Whether a lone capital reads as an option letter rather than part of a name or an article."""
    before = _WORD_BEFORE.search(sentence[:start])
    if before and before.group(1).lower() in _NAMING and sentence[before.end(1) : start].strip() in ("", "-"):
        # "to" names a letter only as the end of a range ("from A to K", "among A to E"); "that
        # corresponds to C" and "it points to D" name an option.
        if before.group(1).lower() != "to" or re.search(r"(?<![\w'’])\(?[A-Z]\)?\s*(?:up\s+)?to\s*$", sentence[:start]):
            return False
    if re.search(r"[A-Z][-–]$", sentence[:start]) or sentence[end : end + 1] in ("-", "–"):  # "A-T", "G-C": base pairs; "A–D"
        return False
    if re.match(r"\s*(?:to|through|thru|–)\s*\(?[A-Z]\)?(?![\w'’])", sentence[end:]):  # "A to E": a range, every option
        return False
    if re.search(r"(?<![\w'’])\(?[A-Z]\)?\s*(?:to|through|thru)\s*$", sentence[:start]):  # its end: "A through E"
        return False
    if names_something_else(sentence, start, end):
        return False
    nxt = _NEXT_WORD.match(sentence[end:])
    if nxt is None:
        return True
    word = nxt.group(1)
    if word[0].isupper() and len(word) == 1:  # "B and A", "A, B"
        return True
    return word[0].islower() and re.fullmatch(_GOES_ON, word) is not None


# A capital that is a unit ("25 °C", "a current of 2 A"), a symbol in a formula ("E = hf"), an
# initial ("E. M. Forster", "C. S. Lewis") or an abbreviation ("E. coli"), or part of a proper
# name ("Company B", "Appendix C"), names no option.
_UNIT_BEFORE = re.compile(r"(?:\d\s*|°\s*)$")
_FORMULA = re.compile(r"^\s*[=<>+*/^×·≈−]|[=<>+*/^×·≈−]\s*$")


def _symbol_elsewhere(sentence: str, letter: str) -> bool:
    """Whether the capital is a formula's symbol somewhere in the sentence ("rB(1 − B/K)"): then
    "with respect to B" in the same sentence is that symbol too."""
    op = r"[=<>+*/^×·≈−]"
    return re.search(rf"{op}\s*{letter}(?![\w'’])|(?<![\w'’]){letter}\s*{op}|(?<=[a-z0-9]){letter}(?![a-z])", sentence) is not None
_INITIAL_AFTER = re.compile(r"^\.\s*(?:[A-Z]\.|[a-z])")
_INITIAL_BEFORE = re.compile(r"(?<![\w'’])[A-Z]\.\s*$")
_NAME_BEFORE = re.compile(r"(?<=[a-z,;:]\s)[A-Z][a-z]+\s+$")


# A musical note: "the lowest C", "middle C", "an F sharp", "the key of G".
_NOTE_BEFORE = re.compile(r"(?i)\b(?:lowest|highest|bottom|middle|low|high|tenor|treble|bass|note|key\s+of)\s+$")
# A letter of a legend: "in the usual shorthand (C for cross, T for twist)".
_LEGEND = re.compile(r"(?i)^\s+(?:for|stands\s+for)\s+(?!(?:the|a|an|this|that|these|those|question|item|q\d|number|both|all|each|one|it|them)\b)[a-z]+\s*[,;)]")
_NOTE_AFTER = re.compile(r"(?i)^(?:[♯♭#]|\s+(?:sharp|flat|major|minor|natural)\b)")


def names_something_else(sentence: str, start: int, end: int) -> bool:
    """Whether the lone capital at ``start`` is a unit, a symbol, an initial, a musical note or
    part of a name."""
    before, after = sentence[:start], sentence[end:]
    if _UNIT_BEFORE.search(before) or _FORMULA.search(before) or _FORMULA.search(after):
        return True
    if _symbol_elsewhere(sentence, sentence[start:end].strip("()")):
        return True
    if _NOTE_BEFORE.search(before) or _NOTE_AFTER.match(after) or _LEGEND.match(after):
        return True
    if _INITIAL_AFTER.match(after) or _INITIAL_BEFORE.search(before):
        return True
    return _NAME_BEFORE.search(before) is not None
