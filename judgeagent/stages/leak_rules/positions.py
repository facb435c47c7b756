"""Options named by their place in the question's list: "the last option", "the fourth battle
listed", "second from the bottom", "the third one it is". A place is counted along each
question's own options; "first ionisation energy" (the question's wording), "the last of the
three items" (the batch's questions) and "from the first to the last" (an order of work) name
no place."""

from __future__ import annotations

import re

from judgeagent.data.benchmark import Question
from judgeagent.stages.leak_normalize import stem
from judgeagent.stages.leak_rules.questions import NUMBER_WORDS, ORDINALS, asked_for
from judgeagent.stages.leak_rules.refs import OptionRef
from judgeagent.stages.leak_rules.vocabulary import words

_LAST = {"last", "final", "bottom"}
_POSITION = r"(?:first|second|third|fourth|fifth|sixth|last|final|top|bottom)"
ORDINAL_OPTION = re.compile(
    r"(?i)(?:\bthe\s+(?:very\s+)?|^\s*)(?P<o>" + _POSITION + r")(?:\s+(?P<n>two|three|four)|"
    # a list of places: "the first, second and fourth options"
    r"(?:\s*,\s*(?:the\s+)?(?P<o3>" + _POSITION + r"))?(?:\s*,?\s*(?:,|and|or)\s*(?:the\s+)?(?P<o2>" + _POSITION + r")))?"
    r"\s+(?:(?:answer\s+)?(?:options?|choices?|alternatives?|answers?)\b"
    # "you should find yourself at the fourth letter" (but "the first letter of the term" spells,
    # "the final letter you give" is the target's answer, and "the first letter gives the heater
    # voltage" reads a code)
    r"|letters?\b(?!\s+(?:of|in|you|that\s+you|gives|stands|denotes|encodes|codes|indicates|means|tells|shows|marks|says)\b))"
)
# "Having eliminated the first three": places struck out, no option word needed.
STRUCK_PLACES = re.compile(
    r"(?i)\b(?:eliminat\w*|cross\w*\s+(?:off|out)|rul\w*\s+out|discard\w*|drop\w*|strik\w*\s+(?:off|out)|dismiss\w*|set\w*\s+aside|"
    r"skip\w*(?:\s+past)?|ignor\w*|pass\w*\s+over|leav\w*\s+out)"
    r"\s+the\s+(?P<o>first|last)\s+(?P<n>two|three|four)(?P<o2>)\b"
)

# --- positions in the question's list, without the word "option" ----------------------------------
# "The fourth battle listed", "the second value in the list", "the last entry in the options",
# "The last of the four boundary types", "Of the five elements listed, the last one", "Among the
# five cities, the second one": an ordinal counted along the options as the question lists them.
_ORD = (
    r"(?P<o>first|second|third|fourth|fifth|sixth|last|final|penultimate|top|bottom|middle|1st|2nd|3rd|4th|5th|6th|"
    r"(?:second|next)[-\s](?:to|from)[-\s](?:the\s+)?(?:last|end|bottom))"
)
_LISTED = (
    r"(?:listed|offered|given|shown|provided|presented|on\s+offer|"
    r"(?:in|on|from)\s+(?:the|your|that|this)\s+(?:list|options|choices|alternatives|answer\s+list)|"
    r"(?:among|of)\s+the\s+(?:options|choices|alternatives))"
)
_COUNT = r"(?P<n>two|three|four|five|six|[2-9])"
# (never a verb: "the time to the top is given" is no place in the list)
_NOUNS = r"(?P<noun>(?:(?!(?:is|are|was|were|be|been)\b)[a-z][\w-]*\s+){0,2}?)"
_LIST_POSITION = [
    re.compile(r"(?i)\bthe\s+(?:very\s+)?" + _ORD + r"\s+" + _NOUNS + r"(?P<listed>" + _LISTED + r")\b"),
    re.compile(
        r"(?i)(?:\bthe\s+|^\s*)" + _ORD + r"\s+(?:one\s+)?of\s+the\s+(?:" + _COUNT + r"\b\s*)?(?P<listed>(?:listed|offered|given)\s+)?"
        r"(?P<noun>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)?"
    ),
    re.compile(
        r"(?i)\b(?:of|among|from)\s+(?:the|these|those)\s+(?:" + _COUNT + r"\s+)?(?P<noun>[a-z][\w-]*(?:\s+of)?(?:\s+[a-z][\w-]*)?)??"
        r"\s*(?P<listed>" + _LISTED + r")?\s*,?\s+(?:it\s+is\s+|it's\s+|that's\s+)?the\s+" + _ORD + r"\b"
    ),
]
# "Work from the first to the last": every option in turn, none singled out.
# "listed third", "third on the list", "second from the bottom", "at the bottom of the list",
# "number four on the list": the same places, worded from the list's side.
_LIST_PLACE = [
    re.compile(r"(?i)\b(?:listed|offered|given|named|placed|appearing)\s+" + _ORD + r"\b"),
    # ("Second statement on the list", "Third statement down", "the fourth option down")
    re.compile(r"(?i)\b" + _ORD + r"\s+(?:(?:one|option|statement|entry|item|choice|answer|value)\s+)?(?:on|in)\s+(?:the|your|that)\s+list\b"),
    re.compile(r"(?i)\b" + _ORD + r"\s+(?:one|option|statement|entry|item|choice|answer|value)\s+down\b"),
    # a sentence that is a place alone: "Top of the list.", "Middle of the list.", "Last option."
    re.compile(r"(?i)^\s*(?:the\s+)?(?:very\s+)?(?P<o>top|bottom|middle)\s+of\s+the\s+(?:list|options|choices)\s*[.!]?\s*$"),
    re.compile(r"(?i)^\s*(?:the\s+)?(?:very\s+)?" + _ORD + r"\s+(?:one|option|statement|entry|item|choice|answer|value)\s*[.!]?\s*$"),
    # "the middle option of the five"
    re.compile(r"(?i)\bthe\s+" + _ORD + r"\s+(?:value|option|statement|entry|item|choice|answer)\s+of\s+the\s+(?:two|three|four|five|six)\b"),
    re.compile(r"(?i)\b(?P<o>second|third|2nd|3rd)\s+from\s+the\s+(?P<end>top|bottom|end|start)\b"),
    re.compile(r"(?i)\b(?:at\s+)?the\s+(?P<o>bottom|end|top|start|head)\s+of\s+(?:the|your|that)\s+(?:list|options|choices)\b"),
    re.compile(r"(?i)\b(?:number|no\.?|entry|item)\s+(?P<o>[1-6]|one|two|three|four|five|six)\s+(?:on|in)\s+(?:the|your|that)\s+list\b"),
    # not "the five options one at a time"
    re.compile(r"(?i)\b(?:options?|choices?|alternatives?)\s+(?:number\s+|no\.?\s*|#\s*)?(?P<o>[1-6]|one|two|three|four|five|six)\b"
               r"(?!\s*(?:%|per)|\s+(?:at\s+a\s+time|by\s+one|after\s+(?:the\s+)?(?:other|another)))"),
    # "Number two is your best bet", never "question number two is harder"
    re.compile(
        r"(?i)(?<!question\s)(?<!step\s)(?<!item\s)(?<!part\s)\b(?:number|no\.)\s+(?P<o>[1-6]|one|two|three|four|five|six)\s+"
        r"(?:is\s+(?:your|the|right|correct|it)|was\s+(?:right|correct|it)|fits|wins|it\s+is)\b"
    ),
    re.compile(r"(?i)\bthe\s+" + _ORD + r"[-\s](?:listed|named|mentioned|given)\b"),
    re.compile(r"(?i)\bthe\s+(?P<o>penultimate|(?:second|next)[-\s]to[-\s]last)\s+(?:options?|choices?|ones?|entry|answers?|alternatives?)\b"),
    re.compile(r"(?i)\b(?P<o>last)\s+but\s+one\b(?P<end>)"),
    re.compile(r"(?i)\b(?:entry|option|choice|answer|name|one)\s+at\s+the\s+(?P<o>top|bottom|end|start|head)\b(?!\s+of\s+(?:the\s+)?(?:page|stem|question))"),
    # "the answer sits in second place", "in the fourth position"; never "in the first place".
    re.compile(r"(?i)\bin\s+(?:the\s+)?(?P<o>second|third|fourth|fifth|sixth|last|final|2nd|3rd|4th|5th|6th)\s+(?:place|position|spot|slot)\b"),
]
# In a sentence that speaks of the options or the list, "the fourth", "the second one", "the
# very end" count along it ("Looking at the options, go with the fourth"), unless what follows
# is a step, a time or the like ("the first step").
_SPEAKS_OF_LIST = re.compile(r"(?i)\b(?:list|listed|options|choices|alternatives|offered)\b")
_BARE_PLACE = re.compile(
    r"(?i)\bthe\s+(?:very\s+)?" + _ORD + r"(?P<e>)(?:\s+one)?\b"
    r"(?!\s+(?:step|steps|time|times|thing|things|question|questions|item|items|stem|part|parts|word|words|line|lines|half|"
    r"place|point|sentence|clue|fact|law|two|three|few|of|in|on|from|with|to|and|or|at|is|was|option|options|choice|choices|"
    r"alternative|alternatives|answer|answers|carefully|[a-z]+ing|[a-z]+ly)\b)"
    # (nor a participle before its noun: "only one is the last permitted moment"; "the last listed" is a place)
    r"(?!\s+(?!(?:listed|named|offered|given|shown|mentioned|printed)\b)[a-z]+ed\s+[a-z])"
)
# A place said to be the answer, with no list word needed: "the fourth one is the match", "The
# third one it is", "The middle value is right", "It's the last one." Advice has no reason to
# call a place in the list right.
_PLACE_ASSERTED = [
    re.compile(
        r"(?i)\bthe\s+(?:very\s+)?" + _ORD + r"(?:\s+(?:one|value|entry|figure|number|name|term))?\s+(?:it\s+is\b|is\s+(?:it\b|"
        # (not "is one": "when the top is one colour"; "the first is the only one that touches on ...")
        r"the\s+(?:only\s+)?one\b|(?:the\s+)?(?:answer|match|winner|right|correct|best)\b)|fits\b|wins\b|matches\b)"
    ),
    re.compile(r"(?i)\b(?:it['’]s|it\s+is|that['’]s|that\s+is|go\s+with|pick|choose)\s+the\s+(?:very\s+)?" + _ORD + r"(?:\s+one)?\s*(?:[.,;:!]|$)"),
    re.compile(r"(?i)\b(?:go\s+with|pick|choose|take|circle|mark)\s+the\s+(?:very\s+)?" + _ORD + r"\s+one\b"),
    re.compile(
        r"(?i)\b(?:go\s+with|pick|choose|circle|mark|select|it['’]s|it\s+is|that['’]s|that\s+is|you(?:['’]ll|\s+will)?\s+get)\s+the\s+(?:very\s+)?" + _ORD
        + r"\s+(?:[\w-]+\s+)?(?:one|option|choice|entry|answer|statement|explanation|range|value|figure|date|description|name|term)s?\b"
    ),
    re.compile(r"(?i)\b(?:leaves?|leaving|left\s+with)\s+(?:you\s+(?:with\s+)?)?(?:only\s+|just\s+)?the\s+" + _ORD + r"(?:\s+one)?\s*(?:[.,;:!]|$)"),
    re.compile(
        r"(?i)\b(?:corresponds?\s+to|points?\s+to|lands?\s+(?:you\s+)?on|leads?\s+(?:you\s+)?to|matches|end\s+up\s+(?:on|with|at)|arrive\s+at)\s+"
        # ("you end up on the middle option of the five")
        r"the\s+(?:very\s+)?" + _ORD + r"(?:\s+(?:one|entry|name|item|value|choice|option))?"
        r"\s*(?:[.,;:!]|$|\s+rather\s+than\b|\s+(?:of|out\s+of)\s+(?:the\s+)?(?:two|three|four|five|six|[2-6])\b)"
    ),
]
# "The final explanation is the historically accurate one": a place and a noun, said to be right.
_PLACE_NOUN_RIGHT = re.compile(
    r"(?i)\bthe\s+" + _ORD + r"\s+(?!(?:step|steps|time|thing|question|questions|item|part|word|line|half|point|sentence|clue|fact)\b)"
    r"[a-z]+\s+(?:is|was)\s+(?:the\s+)?(?:\w+ly\s+)?(?:right|correct|accurate|true|valid|best)\s+(?:one|answer|option|choice)\b"
)
# "Line up the five substances ... the fourth one": the options counted, then a place among them.
_COUNTED = re.compile(r"(?i)\b(?:the|these|those|all)\s+" + _COUNT + r"\s+[a-z]")
_PLACE_ONE = re.compile(r"(?i)\bthe\s+(?:very\s+)?" + _ORD + r"\s+one\b(?!['’]s)")
# Every option in its turn ("read the first one before the others", "each of them"): none singled out.
_ALL_IN_TURN = re.compile(r"(?i)\b(?:the\s+others|the\s+rest|each|every|all|both|in\s+turn|one\s+at\s+a\s+time|one\s+by\s+one)\b")
_PLACE_WORDS = {"end": "last", "start": "first", "head": "first", "one": "first", "two": "second", "three": "third",
                "four": "fourth", "five": "fifth", "six": "sixth"}


def list_places(sentence: str, questions: list[Question]) -> list[OptionRef]:
    """Options named by a place worded from the list's side ("listed third", "second from the bottom")."""
    refs = []
    if _SPEAKS_OF_LIST.search(sentence) and not _ALL_IN_TURN.search(sentence):
        for m in _BARE_PLACE.finditer(sentence):
            o = _PLACE_WORDS.get((m.group("e") or "").lower(), (m.group("o") or m.group("e") or "").lower())
            o = {"bottom": "last", "top": "first"}.get(o, o)
            refs += _positions(o, None, m.start(), m.end(), questions)
    for pattern in (*_PLACE_ASSERTED, _PLACE_NOUN_RIGHT):
        for m in pattern.finditer(sentence):
            refs += _positions(_place_word(m.group("o")), None, m.start(), m.end(), questions)
    counted = _COUNTED.search(sentence)
    if counted and not _ALL_IN_TURN.search(sentence):
        for m in _PLACE_ONE.finditer(sentence):
            refs += _positions(_place_word(m.group("o")), counted.group("n"), m.start(), m.end(), questions)
    for pattern in _LIST_PLACE:
        for m in pattern.finditer(sentence):
            o = m.group("o").lower()
            o = _PLACE_WORDS.get(o, o)
            if o.isdigit():
                o = f"{o}th"
            end = (m.groupdict().get("end") or "").lower()
            if m.groupdict().get("end") == "" and o == "last":  # "last but one"
                o = "second to last"
            elif end in ("bottom", "end"):
                o = "second to last" if o.startswith(("second", "2")) else "third to last"
            refs += _positions(o, None, m.start(), m.end(), questions)
    return refs


def _place_word(word: str) -> str:
    o = word.lower()
    return {"bottom": "last", "top": "first"}.get(o, o)


FIRST_TO_LAST = re.compile(
    r"(?i)\b(?:from|between|with|at)\s+the\s+(?:first|top)\b.{0,60}?\b(?:to|and|through)\s+the\s+(?:last|final|bottom)\b"
)
# Nouns of the batch's questions themselves ("the last of the three items"): not the options.
_QUESTION_NOUNS = words("question_nouns")


def list_positions(sentence: str, questions: list[Question]) -> list[OptionRef]:
    """Options named by their place in the question's list, with or without the word "option"."""
    if FIRST_TO_LAST.search(sentence):
        return []
    refs = []
    for pattern in _LIST_POSITION:
        for m in pattern.finditer(sentence):
            noun = (m.group("noun") or "").split()
            listed = bool(m.group("listed"))
            count = m.groupdict().get("n")
            if any(w.lower() in _QUESTION_NOUNS for w in noun) and not listed:
                continue  # "the last of the three items": the batch's questions, not an option
            if not (listed or count or _asked_noun(noun, questions)):
                continue  # "the last of them": nothing says it counts along the options
            if _questions_own_phrase(m.group("o"), noun, questions):
                continue
            refs += _positions(m.group("o"), count, m.start(), m.end(), questions)
    return refs


def _asked_noun(noun: list[str], questions: list[Question]) -> bool:
    """Whether ``noun`` is what a question asks for ("Of the temperatures, ..." when one asks "At
    what temperature ..."): the options are such things."""
    asked = {stem(n) for q in questions for n in asked_for(q.question)}
    return any(stem(w.lower()) in asked for w in noun)


def _questions_own_phrase(ordinal: str, noun: list[str], questions: list[Question]) -> bool:
    """Whether "first ionisation ..." is the wording of a question ("the highest first
    ionisation energy"), not a place in a list."""
    if not noun:
        return False
    phrase = f"{ordinal} {noun[0]}".lower()
    return any(phrase in " ".join(q.question.lower().split()) for q in questions)


def _positions(ordinal: str, count: str | None, start: int, end: int, questions: list[Question]) -> list[OptionRef]:
    """The option letters at ``ordinal`` in each question with options (with ``count`` of them, if given)."""
    o = re.sub(r"[-\s]+", " ", ordinal.lower())
    n = NUMBER_WORDS.get(count.lower(), 0) if count and not count.isdigit() else int(count or 0)
    refs = []
    for q in questions:
        letters = list(q.options or {})
        if not letters or (n and len(letters) != n and any(len(x.options or {}) == n for x in questions)):
            continue
        if o in _LAST:
            index = len(letters) - 1
        elif o == "middle":  # only an odd number of options has one
            index = len(letters) // 2 if len(letters) % 2 else -1
        elif o.startswith(("second", "next", "penultimate")) and ("last" in o or "end" in o or "bottom" in o or o == "penultimate"):
            index = len(letters) - 2
        elif o == "third to last":
            index = len(letters) - 3
        else:
            index = ORDINALS.get(o, int(o[0]) if o[0].isdigit() else 0) - 1
        if 0 <= index < len(letters):
            refs.append(OptionRef(letters[index], None, start, end, "ordinal"))
    return refs


def ordinal_refs(m: re.Match, questions: list[Question]) -> list[OptionRef]:
    refs = []
    positions = [m.group(g).lower() for g in ("o", "o3", "o2") if g in m.re.groupindex and m.group(g)]
    count = NUMBER_WORDS.get((m.group("n") or "").lower(), 1)
    for q in questions:
        letters = list(q.options or {})
        if not letters:
            continue
        for position in positions:
            if position in _LAST:
                picked = letters[len(letters) - count :]
            else:
                first = ORDINALS[position] - 1
                picked = letters[first : first + count]
            refs += [OptionRef(letter, None, m.start(), m.end(), "ordinal") for letter in picked]
    return refs
