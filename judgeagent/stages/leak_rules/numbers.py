"""Options that are numbers ("3", "128", "4 m/s²", "3/16"), named by their value in digits or in
words ("Seven, not nine."), never by the data of a question's own stem used in a worked step."""

from __future__ import annotations

import functools
import re

from judgeagent.data.benchmark import Question
from judgeagent.stages.leak_normalize import spoken_numbers
from judgeagent.stages.leak_rules.questions import question_data
from judgeagent.stages.leak_rules.refs import OptionRef
from judgeagent.stages.leak_rules.text import compiled, folded_span
from judgeagent.stages.leak_rules.units import unit_at

# --- options that are numbers --------------------------------------------------------------------
# A time of day or a duration in hours and minutes ("4:30 pm", "1:15"), read as hours ("4.5"), so
# that "4:00" and "4:30" are two values rather than two fours.
_CLOCK = r"\d{1,2}:[0-5]\d(?![\d:])"
# "1", "3", "7", "11" (a pH), "32" ... "256" (bits), "4 m/s²": too short for the text match, so
# an option that is a number (with or without a unit) is named by that number written in digits.
# "2,250" is two thousand two hundred and fifty; "2,5" is two and a half.
# A whole number and a vulgar fraction ("4½ teaspoons") is one value.
_FRACTIONS = {"½": 1 / 2, "¼": 1 / 4, "¾": 3 / 4, "⅓": 1 / 3, "⅔": 2 / 3, "⅛": 1 / 8, "⅜": 3 / 8, "⅝": 5 / 8, "⅞": 7 / 8}
_VULGAR = r"\d*[" + "".join(_FRACTIONS) + r"]"
_NUMERIC_OPTION = re.compile(
    r"^\s*(?P<n>" + _CLOCK + r"|" + _VULGAR + r"|[-+−]?(?:\d{1,3}(?:,\d{3})+(?![\d,])|\d+(?:[.,]\d+)?))\s*(?P<unit>[^\d\s].{0,12})?$"
)
# A sign written against the number ("−7", "+10") is part of its value where the options are
# signed ("+7 points" beside "−7 points"); one after a word or a figure is a subtraction or a range.
_NUMBER = re.compile(
    r"(?:(?<![\w.,/^⁻:)−+-])(?P<sign>[+−-])(?=\d)|(?<![\w.,/^⁻−:-]))"
    r"(?P<n>" + _CLOCK + r"|" + _VULGAR + r"|\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?![\w]|[.,]\d)"
)
# A time of day after noon ("7:15 pm") is read on the 24-hour clock, so that "19:15" names it.
_PM = re.compile(r"(?i)\s*p\.?\s?m\b\.?")
# The words every option ends with after its number ("9,000 passengers per hour per direction",
# "2,250 passengers per hour per direction"): the options' unit, however long, said once for all;
# and those every option begins with before it ("About 8 stakes").
_SHARED_WORDS_MIN = 2  # options: two sharing words can be chance, but each still differs in its number


def without_shared_words(options: dict[str, str]) -> dict[str, str]:
    """The options with the words they all end with ("... passengers per hour") and begin with
    ("About 8 stakes", "About 13 stakes") taken off, when each then is a number; the options as
    they are otherwise."""
    bare = _without_shared_words(tuple(options.values()))
    return options if bare is None else dict(zip(options, bare, strict=True))


_LEADING_NUMBER = re.compile(r"[-+−]?\d")


# Asked for each sentence of a check and each question of its batch: read once per question.
@functools.lru_cache(maxsize=4096)
def _without_shared_words(texts: tuple[str, ...]) -> tuple[str, ...] | None:
    if len(texts) < _SHARED_WORDS_MIN:
        return None
    words = [t.split() for t in texts]
    n = 0
    while all(len(w) > n + 1 for w in words) and len({w[-1 - n].casefold() for w in words}) == 1:
        n += 1
    h = 0
    while all(len(w) > h + n + 1 for w in words) and len({w[h].casefold() for w in words}) == 1 and not _LEADING_NUMBER.match(words[0][h]):
        h += 1
    if h and not all(_LEADING_NUMBER.match(w[h]) for w in words):
        h = 0
    if n == 0 and h == 0:
        return None
    bare = tuple(" ".join(w[h : len(w) - n]) for w in words)
    if not all(re.search(r"\d[%.]?$", b) for b in bare):
        return None
    return bare


def _value(number: str) -> str:
    """A number as written in an option, with a dot for its decimal point and no thousands commas."""
    clock = re.fullmatch(r"(\d{1,2}):(\d\d)", number)
    if clock:
        return repr(int(clock.group(1)) + int(clock.group(2)) / 60)
    if number[-1:] in _FRACTIONS:
        return repr(int(number[:-1] or 0) + _FRACTIONS[number[-1]])
    if re.fullmatch(r"[-+−]?\d{1,3}(?:,\d{3})+", number):
        number = number.replace(",", "")
    return number.replace(",", ".").replace("−", "-").lstrip("+")
# The numbers a question's text gives, "1,200" as one.
_STEM_NUMBER = re.compile(
    r"(?<![\w.,:])" + _CLOCK + r"|(?<![\w.])" + _VULGAR + r"|(?<![\w.,])\d{1,3}(?:,\d{3})+(?![\w.,]\d)|(?<![\w.])\d+(?:\.\d+)?(?![\w.]\d)"
)
# A number that counts steps, questions or list items ("Step 2", "(3)", "question 1") is not a value.
_COUNTING = re.compile(r"(?i)(?:\b(?:step|steps|question|questions|q|item|items|part|no|number|point|stage)\s*|#|\()$")


def _numeric_options(q: Question) -> dict[str, tuple[str, bool, tuple[str, float] | None, bool]]:
    """Letter → (the number, whether its option has a % sign, its unit's measure and size, whether
    it is a time after noon) for the options that are numbers."""
    out = {}
    bare = without_shared_words(q.options or {})
    for letter, text in (q.options or {}).items():
        m = _NUMERIC_OPTION.match(text) or _NUMERIC_OPTION.match(bare[letter])
        if m and not re.match(r"\s*/\s*\d", m.group("unit") or ""):  # "3/16" is a fraction, not a 3
            unit = unit_at(m.string, m.end("n"))
            number = _value(m.group("n"))
            pm = _PM.match(m.group("unit") or "") is not None and float(number) < 12
            out[letter] = (number, "%" in (m.group("unit") or ""), unit[1:3] if unit else None, pm)
    return out


def counts_or_numbers(sentence: str, start: int, end: int) -> bool:
    """Whether the digits at ``start:end`` count steps or questions ("question 4"), number an item of
    a list ("4) Your tone ..."), are part of a decimal ("1.3") or a factor of a product of a word and
    a number or a bracket ("hours = days × 24", "(110 − 13.72) ÷ 9", "rise over run times 100"; not "35 × 28 yards", nor what a product comes to,
    after "="): no value, so no option's."""
    before, after = sentence[:start], sentence[end:]
    in_a_decimal = re.match(r"[.,]\d", after) and not re.match(r"\.0+(?!\d)", after)  # "570.00" is 570
    if re.search(r"\d[.,]$", before) or in_a_decimal:
        return True
    # ("rise over run times 100")
    if re.search(r"(?:[^\W\d]|\))\s*(?:[×*÷]|\b(?i:times|multiplied\s+by|divided\s+by))\s*$", before) or re.match(r"\s*[×*÷]\s*(?:[^\W\d]|\()", after):
        return True
    return _COUNTING.search(before) is not None or (re.match(r"\s*[).:](?!\d)", after) is not None and start < 4)


# "the value 20", "an option of 20", "20 is ...": a number put forward as a candidate answer.
_AS_CANDIDATE_BEFORE = re.compile(r"(?i)\b(?:value|answer|option|choice|figure|result|reading|number)\s+(?:of\s+)?$")
_AS_CANDIDATE_AFTER = re.compile(r"(?i)^\s*(?:[^\w\s]{1,3}\s*)?(?:is|was|would|could|can|must|comes|fits|matches|looks)\b")


def given_in_stems(number: str, questions: list[Question]) -> bool:
    """Whether ``number`` is one of the data the batch's questions give ("falls by 20%", "20 m/s in 5 s")."""
    n = float(_value(number))
    return any(float(_value(x)) == n for q in questions for x in _STEM_NUMBER.findall(question_data(q.question)))


def _stem_number(m: re.Match, sentence: str, questions: list[Question]) -> bool:
    """Whether a number is one of the data the batch's questions give, used in a worked step rather
    than put forward as a candidate answer."""
    if not given_in_stems(m.group("n"), questions):
        return False
    before, after = sentence[: m.start()], sentence[m.end() :]
    in_a_list = re.search(r"(?i)(?:,|\band|\bor)\s*$", before) or re.match(r"(?i)\s*(?:,|and\b|or\b)", after)
    return not (in_a_list or _AS_CANDIDATE_BEFORE.search(before) or _AS_CANDIDATE_AFTER.match(after))


def number_refs(sentence: str, questions: list[Question]) -> list[OptionRef]:
    """Options that are numbers, named by their number in digits: not a count of steps or items,
    not a percentage when the option is none (a stem's "falls by 20%" beside an option "20")."""
    refs = []
    for q in questions:
        # A fraction ("3/16") by its own text, never by its numerator.
        for letter, text in (q.options or {}).items():
            frac = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
            if frac:
                for m in compiled(r"(?<![\d/.])" + frac.group(1) + r"\s*/\s*" + frac.group(2) + r"(?![\d/])").finditer(sentence):
                    refs.append(OptionRef(letter, q.id, *folded_span(sentence, m.start(), m.end()), "text"))
        numbers = _numeric_options(q)
        if len(numbers) < 2:  # numbers are values only where the options are values
            continue
        for m in _NUMBER.finditer(sentence):
            if counts_or_numbers(sentence, m.start("n"), m.end()) or _compound(sentence, m.end()):
                continue
            percent = re.match(r"\s*(?:%|per\s*cent|percent)", sentence[m.end() :]) is not None
            if _stem_number(m, sentence, questions):
                continue
            # (a number in another unit is another value: "60 seconds" beside an option "60 ms")
            written = unit_at(sentence, m.end())
            value = -float(_value(m.group("n"))) if m.group("sign") in ("−", "-") else float(_value(m.group("n")))
            # (a time after noon is named on the 24-hour clock too: "19:15" for "7:15 pm")
            clock = re.match(r"(?i)\s*[ap]\.?\s?m\b", sentence[m.end() :]) is None
            for letter, (number, has_percent, unit, pm) in numbers.items():
                other_unit = written is not None and unit is not None and written[1:3] != unit
                same = value == float(number) or (pm and clock and value == float(number) + 12)
                if same and percent <= has_percent and not other_unit:
                    refs.append(OptionRef(letter, q.id, *folded_span(sentence, m.start(), m.end()), "text"))
        # Spelt out, put forward as a candidate ("Seven, not nine.", "it's eleven"); a lone number
        # word elsewhere is a count or a step ("the three answers", "differ by exactly one").
        # A sign spelt out makes a value of a lone word ("set plus seven aside").
        signed = any(re.match(r"\s*[+−-]\s*\d", text) for text in (q.options or {}).values())
        for n in spoken_numbers(sentence):
            # (only where the options are signed: "plus one sentence" is no value)
            sign = _SPOKEN_SIGN.search(sentence[: n.start]) if signed else None
            if n.words == 1 and not sign and not (n.value > 1 and _spoken_candidate(sentence, n.start, n.end)):
                continue
            value = -n.value if sign and sign.group(1).lower() != "plus" else n.value
            for letter, (number, has_percent, _, _) in numbers.items():
                if value == float(number) and not has_percent:
                    refs.append(OptionRef(letter, q.id, *folded_span(sentence, n.start, n.end), "text"))
    return refs


def _compound(sentence: str, end: int) -> bool:
    """Whether the number ending at ``end`` is part of a compound name or modifier ("the 10-off
    area", "a one-line summary"), not of a value in a unit ("the 10-day option") nor a range ("4-to-8")."""
    after = sentence[end:]
    if not re.match(r"-[a-z]", after) or re.match(r"-[a-z]+-\d", after):
        return False
    return unit_at(sentence[:end] + " " + sentence[end + 1 :], end) is None


_SPOKEN_SIGN = re.compile(r"(?i)\b(plus|minus|negative)\s+$")


def _spoken_candidate(sentence: str, start: int, end: int) -> bool:
    before, after = sentence[:start], sentence[end:]
    contrast = re.match(r"(?i)\s*,?\s*(?:not|rather\s+than|over|instead\s+of)\b", after) is not None
    asserted = re.search(r"(?i)\b(?:it['’]s|it\s+is|answer\s+is|go\s+with|pick|choose)\s+$", before) is not None
    # one of two put side by side: "choosing between thirty and fifty per second"
    # (not a count: "between two years")
    paired = (re.search(r"(?i)\b(?:between|either)\s+$", before) is not None and re.match(r"(?i)\s+(?:and|or)\s", after) is not None) \
        or re.search(r"(?i)\b(?:between|either)\s+[\w-]+\s+(?:and|or)\s+$", before) is not None
    return contrast or asserted or paired or (not before.strip() and re.match(r"\s*[,.!]", after) is not None)
