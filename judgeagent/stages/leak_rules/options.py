"""Options named in a sentence, and whether the sentence singles one out: by its letter or place
(always: advice has no reason to name one), or by its text with a judgement, or asserted alone.

The rules read each question's named options apart (:class:`ByQuestion`); for each question
the first kind of mention decides: a letter or a place, else a bare letter, else the text. A
list that names every option side by side singles none out
(:func:`~judgeagent.stages.leak_rules.judgement.named_evenly`), and so does a sentence asked
of every option or warning against confusing two.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from judgeagent.data.benchmark import Question
from judgeagent.stages.leak_finding import LeakFinding
from judgeagent.stages.leak_normalize import contains, fold, tokens
from judgeagent.stages.leak_rules.judgement import (
    AS_HELP,
    CONFUSION_WARNING,
    NARROWED_TO,
    OPEN_CLAUSE,
    in_the_list,
    judgement,
    listed,
    named_evenly,
    only_weak,
    option_words,
    strip_phrases,
    study,
    without_open_questions,
)
from judgeagent.stages.leak_rules.naming import option_refs
from judgeagent.stages.leak_rules.questions import ORDINALS, QuestionRef
from judgeagent.stages.leak_rules.refs import OptionRef
from judgeagent.stages.leak_rules.rule import Example, Reading, Rule, finding

_NEAR_WORDS = 6
# A sentence that asks the same of every option ("note for each option whether ...", "Compute each
# of the five measures in the options (... the weighted mean)") singles none out, whichever it names
# on the way, unless it also says which is right.
_EACH_OPTION = re.compile(
    r"(?i)\b(?:for|of|to|on|with|through)\s+(?:each|every)\s+(?:option|choice|candidate|alternative|answer|one)\b"
    r"|\beach\s+of\s+the\s+(?:(?:two|three|four|five|six)\s+)?(?:[\w-]+\s+)?(?:options|choices|candidates|alternatives|answers)\b"
    r"|\beach\s+of\s+the\s+(?:two|three|four|five|six)\b|\b(?:every|each)\s+(?:option|choice|candidate|alternative)\b"
    # "The five options are seven days, the same evening, 48 hours, ...": the list read out whole
    # ("The four statements cover lifting the hand ..., keeping a knuckle ..., and kneeling out a turn")
    r"|^\W*(?:\w+\s*:\s*)?the\s+(?:(?:two|three|four|five|six)\s+)?(?:options|choices|alternatives)\s+(?:are|offer|describe|give|cover|include|mention)\b"
    r"|^\W*(?:\w+\s*:\s*)?the\s+(?:two|three|four|five|six)\s+(?:statements|claims|explanations|reasons)\s+(?:are|offer|describe|give|cover|include|mention)\b"
)
_PICKED = re.compile(r"(?i)\b(?:right|wrong|correct|incorrect|the\s+answer|the\s+one\b|pick|choose|go\s+with)")
# Two options named side by side and compared ("Options A and B are both extra-axial", "A and B
# premiered within two years of each other"): neither is singled out, unless the sentence says
# which is right or that the answer is among them ("A and D are both still possible").
_PAIR = re.compile(r"\b(?P<a>[A-E])\)?\s+and\s+\(?(?P<b>[A-E])\b")
_SIDE_BY_SIDE = re.compile(r"(?i)\b(?:both|each\s+other|either\s+of\s+them|neither|compare|comparing|apart|distinguish|differ|in\s+common|alike)\b")
_NARROWED = re.compile(r"(?i)\b(?:possible|plausible|candidates?|contenders?|in\s+the\s+running|left|remain(?:s|ing)?|viable|likely|could\s+be|one\s+of|between\s+(?:them|those|these))\b")


# Two options set against each other, on some criterion: "Weigh B against D on ...", "Compare
# option A with option C", "Set B beside D", and a second pair after it, "and option B against
# option E". "Against" or "versus" compares alone; "with", "beside" or "and" only after a verb of
# comparing.
_OPTION = r"(?:(?i:options?|answers?|choices?)\s+)?\(?"
_WEIGHED = re.compile(
    r"(?:(?i:\b(?:weigh|compare|contrast|set|put|hold|test|check|measure|pit|play)\s+(?:off\s+)?)" + _OPTION + r"(?P<a>[A-E])\)?\s+"
    r"(?i:against|with|versus|vs\.?|beside|alongside|next\s+to|and)\s+"
    r"|(?<![\w'’])" + _OPTION + r"(?P<c>[A-E])\)?\s+(?i:against|versus|vs\.?)\s+)" + _OPTION + r"(?P<b>[A-E])\)?(?![\w'’])"
)

# The same pairs named by their places: "Weigh the second option against the third", "Contrast
# the fourth and fifth options on ...", "the first and third options differ in ...".
_PLACE = r"(?P<{}>first|second|third|fourth|fifth|sixth|last|final)"
_OPTION_NOUN = r"(?:\s+(?:answer\s+)?(?:options?|choices?|answers?|alternatives?))?"
_PLACES_WEIGHED = re.compile(
    r"(?i)\b(?:weigh|compare|contrast|set|put|hold|test|check|measure|pit|play)\s+(?:off\s+)?the\s+" + _PLACE.format("a") + _OPTION_NOUN
    + r"\s+(?:against|with|versus|vs\.?|beside|alongside|next\s+to|and)\s+(?:the\s+)?" + _PLACE.format("b") + r"\b"
    r"|\bthe\s+" + _PLACE.format("c") + _OPTION_NOUN + r"\s+(?:against|versus|vs\.?)\s+(?:the\s+)?" + _PLACE.format("d") + r"\b"
)
_PLACE_PAIR = re.compile(r"(?i)\bthe\s+" + _PLACE.format("a") + r"\s+and\s+(?:the\s+)?" + _PLACE.format("b") + r"\s+(?:answer\s+)?(?:options|choices|answers|alternatives)\b")
_COMPARING = re.compile(r"(?i)\b(?:weigh|contrast|compare|comparing|versus|against)\b")


def _letters(place: str, lasts: list[str]) -> list[str]:
    return lasts if place.lower() in ("last", "final") else ["ABCDEF"[ORDINALS[place.lower()] - 1]]


def _place_pairs(sentence: str, questions: list[Question]) -> list[tuple[str, str]]:
    """The pairs of options a sentence sets against each other by their places, as letters ("the
    last" is the last letter of each question with options)."""
    lasts = sorted({list(q.options)[-1] for q in questions if q.options})
    found = [(m.group("a") or m.group("c"), m.group("b") or m.group("d")) for m in _PLACES_WEIGHED.finditer(sentence)]
    if not found and (_SIDE_BY_SIDE.search(sentence) or _COMPARING.search(sentence)):
        found = [(m.group("a"), m.group("b")) for m in _PLACE_PAIR.finditer(sentence)]
    return [(x, y) for a, b in found for x in _letters(a, lasts) for y in _letters(b, lasts)]


def _compared(n: Named, refs: list[OptionRef]) -> bool:
    """Whether the sentence names options only in pairs set side by side to be compared ("A and
    B are both ...", "weigh B against D on ..."), picking none and narrowing to none."""
    pairs = [(m.group("a") or m.group("c"), m.group("b")) for m in _WEIGHED.finditer(n.sentence)]
    pairs += _place_pairs(n.sentence, n.questions)
    if not pairs:
        pair = _PAIR.search(n.sentence)
        if pair is None or _SIDE_BY_SIDE.search(n.sentence) is None:
            return False
        pairs = [(pair.group("a"), pair.group("b"))]
    if any(a == b for a, b in pairs) or not {r.letter for r in refs} <= {x for pair in pairs for x in pair}:
        return False
    return not n.picked and _NARROWED.search(n.sentence) is None


@dataclass(frozen=True)
class Named:
    """What one sentence says of the options it names, read once for every option rule."""

    sentence: str
    question_refs: list[QuestionRef]
    refs: list[OptionRef]  # the options named, less those named evenly in a list of every option
    phrases: list[list[str]]  # the words of each mention by text
    plain: str  # the sentence without options' own words, open questions and offers of help
    judged: str | None  # "negative", "positive" or None
    study: bool  # a study instruction
    open_spans: list[tuple[int, int]]
    each: bool  # asked of every option, or a warning against confusing two
    picked: bool  # says which is right or wrong
    questions: list[Question]  # the batch


@dataclass(frozen=True)
class Group:
    """The options of one question a sentence names, by how."""

    where: str | None  # the question (or the one the sentence refers to)
    positional: list[OptionRef]  # by letter ("option B") or place ("the last option")
    bare: list[OptionRef]  # a lone capital read as a letter
    texts: list[OptionRef]  # by text


def named(reading: Reading) -> Named | None:
    """What the sentence says of the options it names (None: it names none)."""
    if "options" not in reading.shared:
        reading.shared["options"] = _named(reading.sentence, reading.question_refs, reading.option_refs, reading.questions)
    return reading.shared["options"]


def _named(sentence: str, qrefs: list[QuestionRef], all_refs: list[OptionRef], questions: list[Question]) -> Named | None:
    orefs = [r for r in all_refs if not named_evenly(sentence, r, all_refs, questions)]
    if not orefs:
        return None
    phrases = option_words(sentence, orefs, questions)
    # An option's own words judge nothing, and neither does a question left open ("ask whether the
    # contract was breached") or the offer of help: all are read out before the sentence is judged.
    plain = re.sub(r"(?i)^\s*" + AS_HELP, " ", without_open_questions(strip_phrases(sentence, phrases)))
    picked = _PICKED.search(plain) is not None
    each = (_EACH_OPTION.search(sentence) or CONFUSION_WARNING.search(sentence)) is not None and not picked
    open_spans = [m.span() for m in OPEN_CLAUSE.finditer(fold(sentence))]
    return Named(sentence, qrefs, orefs, phrases, plain, judgement(plain, orefs), study(sentence), open_spans, each, picked, questions)


def groups(n: Named) -> list[Group]:
    """The named options, question by question (in the order first named)."""
    named_question = next((r.question_id for r in n.question_refs if r.question_id), None)
    by_question: dict[str | None, list[OptionRef]] = {}
    for ref in n.refs:
        by_question.setdefault(ref.question_id, []).append(ref)
    return [
        Group(
            qid or named_question,
            [r for r in refs if r.how in ("letter", "ordinal")],
            [r for r in refs if r.how == "bare letter"],
            [r for r in refs if r.how == "text"],
        )
        for qid, refs in by_question.items()
    ]


def _judged_kind(n: Named) -> str:
    return "elimination" if n.judged == "negative" else "pointer"


def _letter_or_place(n: Named, g: Group) -> list[LeakFinding]:
    if not g.positional:
        return []
    named_letters = {r.letter for r in g.positional if r.how == "letter"}
    # unless "Options A, B, C, D and E each describe ...": every option named evenly
    if len(named_letters) >= 3 and len(named_letters) == len(g.positional) and not n.picked:
        return []
    # and "Options A and D describe the equipment, B and C the air": three letters or more, some
    # bare, each named once and judged neither way (four of five ruled out leave the fifth)
    letters = named_letters | {r.letter for r in g.bare}
    if named_letters == {r.letter for r in g.positional} and len(letters) >= 3 and len(g.positional) + len(g.bare) == len(letters) \
            and not n.picked and n.judged is None:
        return []
    if _compared(n, g.positional):
        return []
    return [finding(g.where, _judged_kind(n), n.sentence)]


_EACH_LETTER = re.compile(
    r"(?i:\b(?:assess|weigh|check|test|evaluate|consider|examine|judge|review|go\s+through|compare|read)\s+(?:options?\s+)?)"
    r"\(?[A-E]\)?(?:\s*(?:,|and|or)\s*\(?[A-E]\)?)+\s+(?i:each)\b"
)


def _bare_letter(n: Named, g: Group) -> list[LeakFinding]:
    if g.positional or not g.bare:
        return []
    letters = {r.letter for r in g.bare}
    # unless it lists several as the options to go through ("each of the five vitamins, C, D, K, B12 and A"),
    # and does not rule them out together ("B, C and D either misstate the rule or ...")
    # ("weigh A, B, C and D each on their own merits": a check asked of each letter listed)
    each = n.each or _EACH_LETTER.search(n.sentence) is not None
    if (len(letters) >= 2 and (each or (len(letters) >= 3 and not n.picked and n.judged != "negative"))) or _compared(n, g.bare):
        return []
    return [finding(g.where, _judged_kind(n), n.sentence)]


def _asserted(n: Named, g: Group) -> list[OptionRef]:
    """The text mentions outside a question left open."""
    return [r for r in g.texts if not any(a <= r.start and r.end <= b for a, b in n.open_spans)]


def _strongly_judged(n: Named, g: Group) -> bool:
    """Whether the sentence judges the option named by its text. One word of a longer option
    ("light" of "Visible light") is judged only by the words around it: in a long sentence a
    judgement elsewhere is about something else."""
    asserted = _asserted(n, g)
    if any(r.whole for r in g.texts):
        near = n.judged
    else:
        near = judgement(strip_phrases(_around(n.sentence, asserted), n.phrases), asserted) if asserted else None
    return bool(near) and not (n.study and only_weak(n.plain))


def _text_judged(n: Named, g: Group) -> list[LeakFinding]:
    if g.positional or g.bare or not g.texts or n.each:
        return []
    return [finding(g.where, _judged_kind(n), n.sentence)] if _strongly_judged(n, g) else []


def _text_singled_out(n: Named, g: Group) -> list[LeakFinding]:
    if g.positional or g.bare or not g.texts or n.each or _strongly_judged(n, g):
        return []
    # (not an option's name that is also what another question asks about: "Pip count: each
    # checker counts ..." labels the pip-count question, beside a tool question with "Pip count" among its options)
    asserted = [r for r in _asserted(n, g) if not _another_questions_words(n, r)]
    if len({r.letter for r in g.texts}) != 1 or not asserted or in_the_list(n.sentence, g.texts):
        return []
    # (one rare word of an option, with no judgement near it, is the topic's word: "cable" of "The
    # cable housing is frayed"; so the option is singled out by its name, or in a sentence that
    # refers to a question)
    if (not n.study and any(r.whole for r in asserted)) or n.question_refs:
        return [finding(g.where, "pointer", n.sentence)]
    return []


def _another_questions_words(n: Named, ref: OptionRef) -> bool:
    text = fold(n.sentence)
    # only as the label opening the sentence, before its colon
    if not re.fullmatch(r"[\s\d.)•*-]*", text[: ref.start]) or not re.match(r"\s*:", text[ref.end :]):
        return False
    words = tokens(text[ref.start : ref.end])
    return bool(words) and any(
        q.id != ref.question_id and contains(tuple(tokens(q.question)), tuple(words)) for q in n.questions
    )


# The answer said to be one of a few options listed with "or": "It's 3, 19 or 41", "Your answer
# should be either 1:10,000 or 1:15,200", "It has to be one of Smith's or Barton's". Fewer than
# all the options, so the list narrows them.
_AMONG_WORDS = (
    r"(?:\bit['’]?s|\b(?:it|answer|that|this|value|figure|result|one|number|choice|pick|count|total|tally|sum|amount|"
    # what is measured: "The length is 140 cm, 200 cm or 240 cm"
    r"length|height|width|depth|distance|weight|mass|speed|temperature|volume|dose|price|cost|pressure|frequency|duration|angle|area|mean|average|median|"
    # ("The interval from D to E half-flat is 150, 200 or 250 cents")
    r"interval|gap|ratio|rate|share|proportion|percentage|size|age)(?:\s+(?:from|of|for|between|above|below)\s+[^,;.:!?]{1,40}?)?\s*(?:['’]s|is|was|(?:is|are)\s+going\s+to\s+be|(?:should|must|has\s+to|will|would|can\s+only)\s+be|"
    r"(?:should|must|will)\s+come\s+(?:out\s+)?(?:to|as)|comes\s+(?:out\s+)?(?:to|as))|\b(?:should|must|will)\s+come\s+out\s+(?:to|as)|\bone\s+of|\beither|\bbetween|\bamong|\bdown\s+to"
    # where a right working ends: "you'll land on 0.25, 0.5 or 1 mL"
    r"|\b(?:land|end\s+up)\s+(?:on|with|at)"
    # "Sensible answers here are around 320 Pa, 790 Pa or 2,380 Pa"
    r"|\banswers\s+(?:here\s+)?(?:are|would\s+be|will\s+be)(?:\s+(?:around|about|roughly|approximately))?)"
    # "it will come out as either E4 or E6", "the symbol decodes either to a clay or to a silt",
    # "it fits one of the two pasteurisation methods, HTST or LTLT"
    # "It's one of three: the cancel-if-anyone-objects option, ..."
    # ("It's really DLI, photoperiod or VPD")
    r"(?:\s+(?:really|probably|likely|realistically))?"
    r"\s+(?:either\s+(?:(?:to|as|in|at|on|with)\s+)?|the\s+(?:(?:two|three|four|2|3|4)\s+(?:[\w-]+\s+){0,2}?[\w-]+\s*[,:—–]\s*)?"
    r"|(?:two|three|four|2|3|4)\s*[:—–]\s*(?:the\s+)?)?"
)
_AMONG = re.compile(_AMONG_WORDS + "$")


# The same list read item by item, for mentions whose places in the sentence do not line up
# ("It's 1.1, 5.0 or 12": numbers are found in the sentence as written, texts in its folded form):
# after the same words, up to the end of the clause; each item names one option, or nothing at
# the end ("..., the two wheels in the list").
_AMONG_LIST = re.compile(
    r"(?i)" + _AMONG_WORDS
    + r"(?P<list>(?:[^;.!?—–:]|(?<=\d)[.:](?=\d))+?)(?=\s*(?:[;!?—–]|:\s|\.(?:\s|$)|,\s+(?:so|and|then|but|depending|check|think|decide|weigh)\b|$))"
)
_ITEM_SEPARATOR = re.compile(r"(?i),\s+(?:or\s+)?|\s+or\s+")
# After "one of" or "among" a list may run with "and": "It's one of 8%, 10% and 12%", "Decide
# among accretion, glitches, and magnetic braking".
_ONE_OF_WORDS = r"(?:one\s+of|among)\s+(?:the\s+)?"
_ONE_OF = re.compile(r"(?i)\b" + _ONE_OF_WORDS + "$")
_ITEM_SEPARATOR_AND = re.compile(r"(?i),\s+(?:(?:or|and)\s+)?|\s+(?:or|and)\s+")
_ONE_OF_LEAD = re.compile(r"(?i)" + _ONE_OF_WORDS)
_CLAUSE = re.compile(r"[^;!?—–:]*?(?=\s*(?:[;!?—–]|:\s|\.(?:\s|$)|$))")


def _items_named(sentence: str, question: Question) -> list[str] | None:
    """The options a list after "it's", "either" or "one of" names item by item, or None."""
    for m in _AMONG_LIST.finditer(sentence):
        items, start = m.group("list"), m.start("list")
        lead = _ONE_OF_LEAD.match(items)  # "It's one of ..."
        one_of = lead is not None or _ONE_OF.search(sentence[:start]) is not None
        if one_of:  # the list runs on to the clause's end, past ", and"
            items = _CLAUSE.match(sentence, start + (lead.end() if lead else 0)).group(0)  # type: ignore[union-attr]
        if not (re.search(r"(?i)\bor\b", items) or (one_of and re.search(r"(?i)\band\b", items))):
            continue
        letters: list[str] = []
        for i, item in enumerate((_ITEM_SEPARATOR_AND if one_of else _ITEM_SEPARATOR).split(items)):
            # (the lead words took the first item's article, which a label needs: "among the towel one, ...")
            refs = option_refs("the " + item if i == 0 and re.match(r"(?i)\s*the\s+$", sentence[start - 4 : start]) else item, [question])
            named = {r.letter for r in refs if r.whole} or {r.letter for r in refs}
            if len(named) > 1 or (not named and len(letters) < 2):
                break
            letters += named
        else:
            if len(letters) >= 2 and len(set(letters)) == len(letters):
                return letters
    return None


def _narrowed_list(n: Named, g: Group) -> list[LeakFinding]:
    if g.positional or g.bare or len(g.texts) < 2 or n.each:
        return []
    question = next((q for q in n.questions if q.id == g.where), None)
    if question is None or not question.options:
        return []
    # one mention per letter where two readings of it overlap (its digits, and its value)
    texts = [r for i, r in enumerate(g.texts) if not any(o.letter == r.letter and o.start < r.end and r.start < o.end for o in g.texts[:i])]
    own = listed(n.sentence, texts, question)
    if own is not None and 2 <= len({r.letter for r in own}) < len(question.options):
        # (mentions found in the folded text and in the sentence as written may be a letter apart)
        text = fold(n.sentence)
        before = re.sub(r"\S+$", "", text[: own[0].start])
        between = text[own[0].start : own[-1].start]
        if (re.search(r"\bor\b", between) and _AMONG.search(before)) or (re.search(r"\b(?:and|or|versus|vs)\b", between) and NARROWED_TO.search(before)):
            return [finding(g.where, "narrowed", n.sentence)]
    items = _items_named(n.sentence, question)
    if items is not None and len(items) < len(question.options):
        return [finding(g.where, "narrowed", n.sentence)]
    return []


def _around(sentence: str, refs: list[OptionRef]) -> str:
    """The words of ``sentence`` within a few of the mentions ``refs`` (folded offsets)."""
    text = fold(sentence)
    lo, hi = min(r.start for r in refs), max(r.end for r in refs)
    before = re.findall(r"\S+", text[:lo])[-_NEAR_WORDS:]
    after = re.findall(r"\S+", text[hi:])[:_NEAR_WORDS]
    return " ".join([*before, text[lo:hi], *after])


_ON_GROUP: dict[str, Callable[[Named, Group], list[LeakFinding]]] = {}


def _option_rule(code: str, kinds: tuple[str, ...], catches: str, on_group: Callable[[Named, Group], list[LeakFinding]],
                 leaks: tuple[Example, ...], clean: tuple[Example, ...]) -> Rule:
    def matcher(reading: Reading) -> list[LeakFinding]:
        n = named(reading)
        return [] if n is None else [f for g in groups(n) for f in on_group(n, g)]

    _ON_GROUP[code] = on_group
    return Rule(code, kinds, catches, matcher, (), leaks, clean)


@dataclass(frozen=True)
class ByQuestion:
    """The option rules, question by question: each question's named options are read by every
    rule in turn (the rules take disjoint cases: a letter or place, else a bare letter, else the
    text), so the findings come question by question."""

    name: str
    rules: tuple[Rule, ...]

    def findings(self, reading: Reading) -> list[LeakFinding]:
        n = named(reading)
        if n is None:
            return []
        return [f for g in groups(n) for rule in self.rules for f in _ON_GROUP[rule.code](n, g)]


LETTER_OR_PLACE = _option_rule(
    "options.letter_or_place",
    ("pointer", "elimination"),
    "an option named by its letter or its place in the list, whatever the sentence says of it (elimination when it judges it negatively); "
    "not three letters or more named once each and judged neither way (\"Options A and D describe the equipment, B and C the air\")",
    _letter_or_place,
    leaks=(
        Example("Option B is the one to keep.", "written for the rule"),
        Example("The last option is a trap.", "guard 2"),
        Example("Looking at the options, go with the fourth.", "guard 6"),
        Example("Having eliminated the first three, you are left with one.", "guard 2"),
        Example("The answer sits in second place.", "guard 6"),
        Example("Both sources agree there, so the first, second and fourth options are all consistent.", "guard 22: fresh40"),
        Example("Top of the list.", "guard 62: fresh120, position"),
        Example("Third statement down.", "guard 62: fresh120, position"),
        Example("Second statement on the list for the treaty question.", "guard 62: fresh122, position"),
        Example("Read the four options in order and you'll see the first is the only one that ended a war.", "guard 62: fresh119, position"),
        Example("Last option.", "guard 63: fresh121, position"),
        Example("Date the four carefully and you get the second option.", "guard 63: fresh114, position"),
        Example("For the treaty, I'd settle on the middle option of the five.", "guard 63: fresh122, position"),
    ),
    clean=(
        Example("Options A, B, C and D each describe a different settlement; compare them.", "guard 7: fresh6, fresh7"),
        Example("Weigh the five options one at a time.", "fresh20"),
        Example("Keep the final answer itself crisp.", "fresh18"),
        Example("Work from the first option to the last.", "guard 5"),
        Example("Options A and B are both collections outside the brain; say what separates them.", "guard 17: fresh29, fresh30"),
        Example("Weigh option B against option D on their source: an amendment in one, an inference in the other.", "guard 19: fresh33, fresh34"),
        Example("Weigh option A against option C on T-cell function, and option B against option E on the IgM level.", "guard 19: fresh34"),
        Example("Weigh the second option against the third on how long each took to build.", "guard 20: fresh35"),
        Example("Contrast the first and fourth options on which came later.", "guard 20: fresh35, fresh36"),
        Example("Compare the first and last options on what each is used for.", "guard 23: fresh35, fresh43"),
        Example("Options A and D name a treaty, B and C something else; sort them that way first.", "guard 37: fresh73, a whole message"),
        Example("Set up the sum carefully: the time to the top is given, and so is the distance.", "guard 60: fresh118, a whole message"),
        Example("Which of those has happened when the top is one colour but the sides are scrambled?", "guard 62: fresh121"),
        Example("Several options may be permitted, but only one is the last permitted moment.", "guard 62: fresh121"),
    ),
)
BARE_LETTER = _option_rule(
    "options.bare_letter",
    ("pointer", "elimination"),
    "a lone option letter anywhere, also as the last step of a worked sequence (\"Step 3: that gives C\")",
    _bare_letter,
    leaks=(
        Example("Step 3: that gives C.", "guard 5"),
        Example("It comes down to B.", "written for the rule"),
        Example("So that corresponds to C.", "guard 6"),
        Example("A and D are both still possible; the timing decides.", "written for the rule"),
        Example("B, C and D either misstate the date or name the wrong city.", "guard 23: fresh43"),
    ),
    clean=(
        Example("Water boils at 100 °C at sea level.", "guard 5"),
        Example("Remember that E = mc² links mass and energy.", "guard 5"),
        Example("In the usual shorthand (C for cross, T for twist), the order matters.", "fresh18"),
        Example("Start from the lowest C of the scale.", "fresh16"),
        Example("Read what E. M. Forster wrote about plot.", "guard 5"),
        Example("Go through the letters A to E in order.", "guard 6"),
        Example("A and B premiered within two years of each other.", "guard 17: fresh29, fresh30"),
        Example("Write the growth as rB(1 − B/K) and differentiate it with respect to B.", "guard 20: fresh35"),
        Example("Weigh A, B, C and D each on their own merits, and don't eliminate one for its length.", "guard 23: fresh7"),
    ),
)
TEXT_JUDGED = _option_rule(
    "options.text_judged",
    ("pointer", "elimination"),
    "an option named by its text (or a distinctive word of it, or a label of its own words: \"the towel one\", \"the Thursday-evening statement\", \"the time-commitment reading\") with a judgement: positive, negative, comparative or conditional",
    _text_judged,
    leaks=(
        Example("Westphalia is the settlement you want.", "written for the rule"),
        Example("Rule out Utrecht: it came much later.", "written for the rule"),
        Example("Argon is far too rare to be the main gas.", "written for the rule"),
        Example("Choose the mitochondrion over the ribosome.", "written for the rule"),
        Example("The rotation statement can go; weigh the rest against how the land heats.", "guard 43: fresh83, a whole message", "values"),
        Example("Argon, which is the classic slip here.", "guard 45: fresh90, text_judgement"),
        Example("I'd take 'the tide pushes surface air' over 'the rotation of the Earth'.", "guard 55: fresh107, preference", "values"),
        Example("The statement giving an exact age of 12.8 thousand years can be dropped.", "guard 65: fresh128, text_judgement", "figures"),
        Example("The 125 m figure can go; it is the rate, not the height.", "guard 65: fresh128", "figures"),
        Example("I'd pick 19:15 over 20:15.", "guard 66: fresh129, preference", "figures"),
        Example("Rule out −5 points first.", "guard 66: written for the rule", "figures"),
        Example("Allowance: the 'as much as they like' option contradicts the notice, so drop it.", "guard 68: fresh133, a whole message", "allowance"),
    ),
    clean=(
        Example("Go through Utrecht, Westphalia, Versailles and Vienna one at a time and date each.", "guard 6"),
        Example("Be careful not to confuse the ribosome with the lysosome.", "guard 5"),
        Example("Ask whether the ribosome has any DNA of its own.", "guard 6"),
        Example("Note for each option whether it is an organelle with a membrane.", "guard 6"),
        Example("Keep 'the tide pushes surface air' and 'the rotation of the Earth' clearly separate in your head.", "guard 55: fresh8", "values"),
        Example("The four options are Utrecht, Westphalia, Versailles and Vienna; date each, or rule it out for lack of a date.",
                "guard 60: fresh117"),
        Example("Keep apart the idea of a ribosome and the idea of a lysosome, which the question treats as different.", "guard 61: fresh119"),
        Example("Get the order right, and multiply the spread, not either temperature, by 125 m.", "guard 65: fresh128, a whole message", "figures"),
        Example("There is a special case in the rules for the 10-off area of the triangle.", "guard 66: fresh129", "figures"),
        Example("It's a good way of seeing the traps a question-setter has laid.", "guard 66: fresh130", "figures"),
        Example("Don't assume a cold morning means 'the land never warms faster'.", "guard 66: fresh130", "values"),
        Example("Don't read 'as much' as the whole tree; find the limit in the notice.", "guard 68: written for the rule", "allowance"),
        Example("Write the fraction as 30/400 first and simplify it before converting.", "guard 68: fresh133", "shares"),
        Example("The four statements cover warm land, a warm sea, the tide and the Earth's rotation; weigh each against an afternoon.",
                "guard 68: fresh132", "values"),
    ),
)
TEXT_SINGLED_OUT = _option_rule(
    "options.text_singled_out",
    ("pointer",),
    "an option named by its text alone, asserted without any judgement (\"The Peace of Westphalia was signed in two towns.\")",
    _text_singled_out,
    leaks=(
        Example("The Peace of Westphalia was signed in two towns.", "written for the rule"),
        Example("On the second question, think of the mitochondrion.", "written for the rule"),
    ),
    clean=(
        Example("Recall what the mitochondrion does in a cell.", "guard 2"),
        Example("Compare the Golgi apparatus, the ribosome and the lysosome.", "guard 2"),
        Example("Piece count: each player fills the dark squares of three rows, so count them.", "guard 60: fresh117, a whole message", "labels"),
        Example("Second, subtract the 125 m rise and compare with the list.", "guard 66: fresh130", "figures"),
        Example("Multiply 2 by 2½ cups; the stem gives both.", "guard 67: written for the rule", "figures"),
    ),
)
NARROWED_LIST = _option_rule(
    "options.narrowed_list",
    ("narrowed",),
    "the answer said to be one of a few options named by their texts with \"or\" (or lying between them: \"choosing between 64 and 128\"), fewer than all of them (\"It's 64 or 128\")",
    _narrowed_list,
    leaks=(
        Example("It's 64 or 128; count the groups to tell which.", "guard 20: fresh35, fresh36", "values"),
        Example("Your answer should be either 48 or 128.", "guard 20: fresh36", "values"),
        Example("It has to be one of 32, 64 or 128.", "written for the rule", "values"),
        Example("It's 32, 48 or 64; check which.", "guard 22: fresh42", "values"),
        Example("The size of each group is 32, 48 or 64; count to tell which.", "guard 59: fresh116, a whole message", "values"),
        Example("For that question, the mean will be 32, 48 or 64, so recheck the total.", "guard 65: fresh127, a whole message", "values"),
        Example("It's really 64 or 128, and only one of those counts the bits.", "guard 65: fresh84, listed", "values"),
        Example("You're choosing between 64 and 128; count the groups.", "guard 27: fresh48", "values"),
        Example("Narrow it to three: 32, 48 or 64. Then decide.", "guard 62: fresh122, listed", "values"),
        Example("You're really choosing between seven and eleven for pure water.", "guard 62: fresh121, listed", "values"),
        Example("The contenders are 32 and 64; count the groups.", "guard 63: fresh123, listed", "values"),
        Example("To my mind the real contenders are 0, −5 and −10 points, so weigh those three.", "guard 66: fresh129, listed", "figures"),
        Example("For the dye, your answer should be 4½ or 5 teaspoons, so set up the proportion.", "guard 67: fresh131, a whole message", "figures"),
        Example("You'll find the answer among the middle three values, 32, 48 and 64.", "guard 67: fresh132, a whole message", "values"),
        Example("The contenders are the randomised trial, the single-blind demonstration and the field survey; ask which removes the cues.", "guard 66: fresh123, listed", "designs"),
        Example("I'd focus on three values - 32, 48 and 64 - and ask which fits.", "guard 63: fresh123, listed", "values"),
        Example("The plausible range is 32, 48 or 64 bits.", "guard 63: fresh123, listed", "values"),
        Example("It comes down to 48 and 128.", "guard 27: fresh38, fresh48", "values"),
        Example("Your shortlist should really be just 64 and 128.", "guard 31: fresh59, listed", "values"),
        Example("You can confine yourself to two values, 48 and 128; decide by the group count.", "guard 31: fresh58, listed", "values"),
        Example("The count will come out as either 48 or 128.", "guard 32: fresh61, listed", "values"),
        Example("The realistic candidates are 64 and 128.", "guard 32: fresh62, listed", "values"),
        Example("It's one of 32, 64 and 128.", "guard 33: fresh64, listed", "values"),
        Example("Decide among 32, 48, and 128.", "guard 33: fresh64, listed", "values"),
        Example("I'd narrow this to MRI or CT.", "guard 41: fresh82, listed", "codes"),
        Example("Convert with care and you'll land on 4.5–5.5 or 6.0–7.0.", "guard 41: fresh81, listed", "codes"),
        Example("Shortlist: 32, 64 and 128.", "guard 41: fresh81, listed", "values"),
        Example("Sensible answers here are around 32, 48 or 64, depending on what you count.", "guard 42: fresh84, listed", "values"),
        Example("The plausible answers are 32, 64 and 128, so count the groups.", "guard 60: fresh118, a whole message", "values"),
        Example("Narrow it to the three short lengths — 32, 48 or 64 — and then count the groups.", "guard 42: fresh84, listed", "values"),
        Example("It's either the tide statement or the rotation one.", "guard 43: fresh86, listed", "values"),
        Example("Shortlist: the 4.5–5.5 band, the 6.0–7.0 band and the 7.0–8.0 band.", "guard 43: fresh81, listed", "codes"),
        Example("The description fits one of the two scans, MRI or CT, so decide between those.", "guard 44: fresh87, a whole message", "codes"),
        Example("Narrow it to £4.20 or £5.00, then reread the fare table.", "guard 44: fresh88, a whole message", "fares"),
        Example("It's 6B+ or 7A+.", "guard 44: fresh88, listed", "fares"),
        Example("The count is going to be 32, 48 or 64; test each against the groups.", "guard 46: fresh91, listed", "values"),
        Example("I'd shortlist DQ, DNF and the YC warning and test each against the rule.", "guard 47: fresh94, listed", "rulings"),
        Example("I'd shortlist 40 and 60 and test both against the speed.", "guard 47: fresh94, listed", "rulings"),
        Example("Your answer will be 3:30, 4:00 or 4:30 pm; count back from closing.", "guard 47: fresh93, listed", "rulings"),
        Example("Narrow it to O2, Ar and CO2, and think about what each does in the lungs.", "guard 54: fresh105, listed", "mc"),
        Example("Narrow your thinking to three candidates — oxygen, argon and carbon dioxide.", "guard 54: fresh105, listed", "mc"),
        Example("The price is £3.50, £4.20 or £5.00; check the fare table.", "guard 54: fresh105, listed", "fares"),
    ),
    clean=(
        Example("Is it 32, 48, 64 or 128 bits? Count the groups of the address.", "written for the rule", "values"),
        Example("Compare 64 and 128 on how many hexadecimal groups each would need.", "written for the rule", "values"),
        Example("The answer is 1, 7, 11 or 14, and only the ion product of water tells you which.", "written for the rule", "values"),
        Example("Decide between 64 and 128 bits by counting the hexadecimal groups.", "written for the rule", "values"),
        Example("Recall what CT, MRI, PET and a plain radiograph each use to form an image.", "written for the rule", "codes"),
        Example("Watch the units: a minute is 60 seconds and a second is 1000 ms.", "guard 47: fresh93", "rulings"),
        Example("Review what oxygen, argon and CO2 each do in the lungs.", "written for the rule", "mc"),
    ),
)
OPTION_RULES = ByQuestion("options", (LETTER_OR_PLACE, BARE_LETTER, TEXT_JUDGED, TEXT_SINGLED_OUT, NARROWED_LIST))
