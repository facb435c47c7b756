"""Options that are quantities, named in another form: a percentage as a fraction ("seven eighths"
for 87.5%), a length in another unit ("about 22 kilometres" for 12 nautical miles), a ratio by its
parts ("three and a half parts to one" for 7:2), a range in other units ("27 to 28 inches" for
68–71 cm).

Both the options and the sentence are read as values in a base unit (units in ``lists/units.txt``)
and compared within :data:`TOLERANCE`. A value names an option only when it fits exactly one of
its question's options, is not written as that option writes it (digits in the option's own unit
are :mod:`~judgeagent.stages.leak_rules.numbers`' to find), and is not one of the data the
batch's questions give.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, replace

from judgeagent.data.benchmark import Question
from judgeagent.stages.leak_normalize import spoken_numbers
from judgeagent.stages.leak_rules.numbers import given_in_stems, without_shared_words
from judgeagent.stages.leak_rules.questions import question_data
from judgeagent.stages.leak_rules.refs import OptionRef
from judgeagent.stages.leak_rules.text import bracketed, folded_span
from judgeagent.stages.leak_rules.units import unit_at, units
from judgeagent.stages.leak_rules.vocabulary import entries

# Conversions round ("roughly 22 kilometres" for 12 nautical miles is 1% off); a wider margin
# would take one option's neighbour for it where options are close.
TOLERANCE = 0.02
_CELSIUS_ZERO = 273.15  # kelvin: temperatures are read in kelvin, compared in degrees Celsius

_FRACTION_WORDS = {
    "half": 2, "halves": 2, "third": 3, "thirds": 3, "quarter": 4, "quarters": 4, "fourth": 4, "fourths": 4,
    "fifth": 5, "fifths": 5, "sixth": 6, "sixths": 6, "seventh": 7, "sevenths": 7, "eighth": 8, "eighths": 8,
    "ninth": 9, "ninths": 9, "tenth": 10, "tenths": 10, "hundredth": 100, "hundredths": 100,
}


@dataclass(frozen=True)
class Quantity:
    """A value in its measure's base unit, where the text wrote it, and how."""

    measure: str  # "length", "fraction" (a share: 87.5% is 0.875), "ratio", "count" (no unit) ...
    value: float
    start: int
    end: int
    unit: str = ""  # as written ("%", "kilometres"; "" for none)
    high: float | None = None  # a range's upper end
    # Written in a form no option writes a plain number in ("65 thousand", "eleven and a half",
    # "up by 73 percent" for a factor of 1.73): such a count may name an option that is a number.
    derived: bool = False


# ("£50k": a thousands "k" right after the digits, read by _MULTIPLIER)
_DIGITS = re.compile(r"(?<![\w.,/])(?P<n>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?:\s*/\s*(?P<d>\d+))?(?!(?![kK]\b)\w|[.,]\d|/\d)")
_PERCENT = re.compile(r"[\s-]*(?:%|per[\s-]*cent\b|percent\b)", re.IGNORECASE)  # "forty-per-cent" too
_PER_MILLE = re.compile(r"[\s-]*(?:‰|parts?\s+per\s+thousand\b|per\s+mille\b)", re.IGNORECASE)  # "thirteen parts per thousand" is 1.3%
_FRACTION_AFTER = re.compile(r"(?i)[\s-]+(?P<d>" + "|".join(sorted(_FRACTION_WORDS, key=len, reverse=True)) + r")\b")
_A_FRACTION = re.compile(r"(?i)\b(?:a|an|one)\s+(?P<d>" + "|".join(sorted(set(_FRACTION_WORDS) - {"half", "halves"}, key=len, reverse=True)) + r")\b")
_AND_A_HALF = re.compile(r"(?i)\s+and\s+a\s+half\b")
_OF_A = re.compile(r"(?i)\s+of\s+an?\s+")
# "half of the members", "the half-of-members figure": a share of one half
_HALF_OF = re.compile(r"(?i)(?<![\w-])half(?=[\s-]+of\b)")
_RATIO_BETWEEN = re.compile(r"(?i)\s*(?:parts?\s+)?(?:[a-z]+\s+){0,2}?(?:to|:)\s*")
_RANGE_BETWEEN = re.compile(r"(?i)\s*(?:to|–|-|and|or)\s*")
# Between the numbers of a list that writes its unit once, after the last ("23, 24 or 25 months").
_LIST_BETWEEN = re.compile(r"(?i)\s*,\s*(?:(?:or|and)\s+)?|\s+(?:or|and)\s+")

# "4 × 10⁻⁸ m", "4 x 10^-8 m", "4e-8 m": a number in scientific notation.
_SUPERSCRIPT = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹⁻−", "0123456789--")
_SCIENTIFIC = re.compile(
    r"(?<![\w.,])(?P<m>\d+(?:\.\d+)?)(?:\s*[×x*]\s*10\s*(?:\^|\*\*)?\s*(?P<e>[-−⁻]?\s*[\d⁰¹²³⁴⁵⁶⁷⁸⁹]+)|e(?P<e2>[-+]?\d+))(?![\w.])"
)
# A decimal below one said to be a share: "a 0.30 market share", "0.03 to 0.05 by mass fraction".
# "0.85 of its grapes" too.
_SHARE_AFTER = re.compile(r"(?i)\s+(?:(?:[\w-]+\s+){0,3}?(?:share|fraction|proportion)s?\b|of\s+(?:the|its|their|his|her|all|each|every)\b)")
# ... or after: "an alcohol fraction of 0.6 to 0.95".
_SHARE_BEFORE = re.compile(r"(?i)\b(?:share|fraction|proportion)\s+of\s+(?:(?:about|around|roughly|between|from)\s+)?$")
# A count of a whole: "17 in 20", "seventeen grapes in every twenty", "nine out of ten".
_OUT_OF = re.compile(r"(?i)\s+(?:(?:[a-z]+\s+)?(?:out\s+of|in\s+every|of\s+every)|in)\s+")
# A spoken fraction of any denominator: "sixteen twenty-sevenths", "thirteen-twentieths".
_ORDINALS = {w: i for i, w in enumerate(
    "third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth thirteenth fourteenth fifteenth "
    "sixteenth seventeenth eighteenth nineteenth".split(), start=3)}
_ORDINALS |= {w: 10 * i for i, w in enumerate("twentieth thirtieth fortieth fiftieth sixtieth seventieth eightieth ninetieth".split(), start=2)}
_ORDINALS |= {"hundredth": 100, "thousandth": 1000}
_TENS_WORDS = {w: 10 * i for i, w in enumerate("twenty thirty forty fifty sixty seventy eighty ninety".split(), start=2)}
_SPOKEN_FRACTION = re.compile(
    r"(?i)\b(?P<n>\d+|[a-z]+(?:-[a-z]+)?)[\s-]+(?:(?P<t>" + "|".join(_TENS_WORDS) + r")[\s-])?(?P<o>"
    + "|".join(sorted(_ORDINALS, key=len, reverse=True)) + r")s\b"
)
_MULTIPLIER = re.compile(r"(?i)[\s-]+(?P<m>thousand|million|billion)\b|(?P<k>k)\b")
_MULTIPLIERS = {"thousand": 1e3, "million": 1e6, "billion": 1e9, "k": 1e3}
# "goes up by about 73 percent": the factor 1.73
_INCREASE = re.compile(r"(?i)\b(?:up|increases?|increased|rises?|rose|grows?|grew|higher|more)\s+by\s+(?:(?:about|roughly|around|nearly|almost|some)\s+)?$")
# Money, by its currency: "$570", "£1,500,000", "five hundred and seventy dollars", "1.5 million
# pounds" ("pounds" is read both as money and as a mass; only one of them fits a given option).
_CURRENCY_BEFORE = re.compile(r"(?:US|A|C|NZ)?(?P<c>[$£€])\s?$")
_CURRENCY_AFTER = re.compile(r"(?i)\s+(?P<w>dollars?|bucks|euros?|pounds?(?:\s+sterling)?|quid|USD|EUR|GBP)\b")
_CURRENCY = {"$": "$", "£": "£", "€": "€", "dollar": "$", "dollars": "$", "bucks": "$", "usd": "$", "euro": "€", "euros": "€",
             "eur": "€", "pound": "£", "pounds": "£", "quid": "£", "gbp": "£"}
_QUALIFIER = re.compile(r"(?i)^\s*(?:about|approximately|approx\.?|roughly|around|circa|c\.|~|≈)\s*")
# A span said to recur ("Every 3 years", "once every two years", "triennial") is a period: it is
# named by another period, not by a span of the same length ("terms of more than two years").
_EVERY = re.compile(r"(?i)^\s*(?:once\s+)?every\s+")
_EVERY_BEFORE = re.compile(r"(?i)\bevery\s+$")
_RECURRING = re.compile(r"(?i)enni(?:al|ally)$")

Number = tuple[float, int, int, bool, bool]  # (value, start, end, written as a fraction, derived)


def _numbers(text: str) -> list[Number]:
    """Every number written in digits, as a digit fraction ("7/8"), in words, or as a spoken
    fraction ("seven eighths", "a fifth", "sixty-four hundredths", "three and a half")."""
    out: list[Number] = []
    for m in _DIGITS.finditer(text):
        value = float(m.group("n").replace(",", ""))
        if m.group("d"):
            if float(m.group("d")) == 0:
                continue
            value /= float(m.group("d"))
        out.append((value, m.start(), m.end(), bool(m.group("d")), False))
    for m in _SCIENTIFIC.finditer(text):
        exponent = (m.group("e") or m.group("e2")).translate(_SUPERSCRIPT).replace(" ", "")
        out.append((float(m.group("m")) * 10 ** int(exponent), m.start(), m.end(), False, True))
    for m in _SPOKEN_FRACTION.finditer(text):
        over = _ORDINALS[m.group("o").lower()] + (_TENS_WORDS[m.group("t").lower()] if m.group("t") else 0)
        top = m.group("n")
        if top.isdigit():
            count = int(top)
        else:  # the numerator in words, and nothing else ("sixteen", never "the")
            spoken = spoken_numbers(top)
            count = spoken[0].value if len(spoken) == 1 and spoken[0].end - spoken[0].start == len(top) else 0
        if count:
            out.append((count / over, m.start(), m.end(), True, True))
    for m in _A_FRACTION.finditer(text):  # "a fifth", "one third"
        out.append((1 / _FRACTION_WORDS[m.group("d").lower()], m.start(), m.end(), True, True))
    for m in _HALF_OF.finditer(text):
        out.append((0.5, m.start(), m.end(), True, True))
    for n in spoken_numbers(text):
        f = _FRACTION_AFTER.match(text, n.end)
        if f and n.value > 1 or f and f.group("d").lower() not in ("half", "halves"):
            out.append((n.value / _FRACTION_WORDS[f.group("d").lower()], n.start, f.end(), True, True))
        else:
            out.append((float(n.value), n.start, n.end, False, n.words > 1))
    out.sort(key=lambda x: (x[1], -x[2]))
    merged: list[Number] = []
    for value, start, end, fraction, derived in out:
        if merged and start < merged[-1][2]:
            continue  # "one" inside "one third", already read
        half = _AND_A_HALF.match(text, end)
        if half and not fraction:
            value, end, derived = value + 0.5, half.end(), True
        times = _MULTIPLIER.match(text, end)
        if times and not fraction:
            value, end, derived = value * _MULTIPLIERS[(times.group("m") or times.group("k")).lower()], times.end(), True
        merged.append((value, start, end, fraction, derived))
    return merged


def quantities(text: str) -> list[Quantity]:
    """Every quantity ``text`` writes: a number with its unit or percent sign, a ratio of two, or a
    range ("between 0.68 and 0.71 metres", "27 to 28 inches", "68–71 cm")."""
    numbers = _numbers(text)
    out: list[Quantity] = []
    for i, (value, start, end, fraction, derived) in enumerate(numbers):
        pct = _PERCENT.match(text, end)
        mille = _PER_MILLE.match(text, end)
        unit = unit_at(text, end)
        of_a = _OF_A.match(text, end) if (fraction or 0 < value < 1) and not unit else None
        if of_a:  # "three tenths of a decibel" is 0.3 dB, "0.918 of an inch" 0.918 in
            unit = unit_at(text, of_a.end())
        before, after = _CURRENCY_BEFORE.search(text[max(0, start - 4) : start]), _CURRENCY_AFTER.match(text, end)
        if after and not fraction:
            word = after.group("w").lower().split()[0]
            out.append(Quantity("money " + _CURRENCY[word], value, start, after.end(), after.group("w"), derived=derived))
        if before and not fraction:
            out.append(Quantity("money " + before.group("c"), value, start - len(before.group(0)), end, before.group("c"), derived=derived))
        elif pct and _INCREASE.search(text[:start]):
            out.append(Quantity("count", 1 + value / 100, start, pct.end(), "%", derived=True))
        elif pct:
            out.append(Quantity("fraction", value / 100, start, pct.end(), "%"))
        elif mille:
            out.append(Quantity("fraction", value / 1000, start, mille.end(), "‰"))
        elif unit:
            name, measure, size, offset, stop = unit
            out.append(Quantity(measure, value * size + offset, start, stop, name))
            if of_a and fraction:  # and the share itself ("twelve hundredths of a milligram" for 0.12 mg/kg)
                out.append(Quantity("fraction", value, start, end, derived=derived))
        elif not fraction and 0 < value < 1 and "." in text[start:end] and (_SHARE_AFTER.match(text, end) or _SHARE_BEFORE.search(text[:start])):
            out.append(Quantity("fraction", value, start, end))
        else:
            out.append(Quantity("fraction" if fraction else "count", value, start, end, derived=derived))
            out += _unit_of_the_list(text, numbers, i)
        if i + 1 < len(numbers):
            nxt_value, nxt_start, nxt_end, _, _ = numbers[i + 1]
            between = text[end:nxt_start]
            if nxt_value and _RATIO_BETWEEN.fullmatch(between):
                out.append(Quantity("ratio", value / nxt_value, start, nxt_end))
            elif not (pct or unit or fraction) and 0 < value <= nxt_value and _OUT_OF.fullmatch(between):
                out.append(Quantity("fraction", value / nxt_value, start, nxt_end, derived=True))
            if _RANGE_BETWEEN.fullmatch(between):
                high_unit, high_pct = unit_at(text, nxt_end), _PERCENT.match(text, nxt_end)
                if high_unit:
                    name, measure, size, offset, stop = high_unit
                    out.append(Quantity(measure, value * size + offset, start, stop, name, nxt_value * size + offset))
                elif high_pct:
                    out.append(Quantity("fraction", value / 100, start, high_pct.end(), "%", nxt_value / 100))
                elif 0 < value < nxt_value <= 1 and "." in text[nxt_start:nxt_end] and (
                        _SHARE_AFTER.match(text, nxt_end) or _SHARE_BEFORE.search(text[:start])):
                    out.append(Quantity("fraction", value, start, nxt_end, high=nxt_value))
    out += _compounds(text, out) + _halves(text)
    out += _paces(text, out)
    out = [_recurring(q) if q.measure == "time" and (_EVERY_BEFORE.search(text[: q.start]) or _RECURRING.search(q.unit)) else q for q in out]
    # Two shares of one whole ("78 per cent copper and 22 per cent tin"): their ratio too.
    shares = [q for q in out if q.measure == "fraction" and q.unit == "%" and q.high is None]
    for a, b in zip(shares, shares[1:]):
        if abs(a.value + b.value - 1) <= 0.011 and b.value:
            out.append(Quantity("ratio", a.value / b.value, a.start, b.end))
    return out


def _recurring(q: Quantity) -> Quantity:
    return replace(q, measure="every " + q.measure)


def _once(q: Quantity) -> Quantity:
    return replace(q, measure=q.measure.removeprefix("every "))


# Between the parts of one quantity written in two units ("1 hour 30 minutes", "5 ft, 10 in",
# "2 days and 4 hours").
_COMPOUND_BETWEEN = re.compile(r"(?i)\s*(?:,\s*)?(?:and\s+)?")


def _compounds(text: str, found: list[Quantity]) -> list[Quantity]:
    """Each quantity written as two parts of one measure, the larger unit first, as one value:
    "1 hour 30 minutes" is 5,400 seconds, as "ninety minutes" is."""
    plain = sorted((q for q in found if q.unit and q.high is None and not q.measure.startswith(("count", "fraction", "money"))),
                   key=lambda q: q.start)
    out = []
    for a, b in zip(plain, plain[1:]):
        size_a, size_b = _size_of(a), _size_of(b)
        if a.measure == b.measure and size_a > size_b > 0 and _COMPOUND_BETWEEN.fullmatch(text[a.end : b.start]):
            out.append(Quantity(a.measure, a.value + b.value, a.start, b.end, a.unit, derived=True))
    return out


# A pace is a time per distance: "4:59 per km", "4.98 minutes per kilometre", "7 min 30 s a mile".
_PER = re.compile(r"(?i)\s*(?:/|\b(?:per|a|an|each|every)\b)\s*")
_CLOCK = re.compile(r"(?<![\w:.])(?P<m>\d{1,2}):(?P<s>[0-5]\d)(?![\d:])(?:\s*(?:mins?|minutes?)\b)?")


def _paces(text: str, found: list[Quantity]) -> list[Quantity]:
    """Each pace the text writes, as the speed it is (metres per second), so that "about 12 km/h"
    and "4.98 minutes per kilometre" are both the option "4:59 per km"."""
    plain = [q for q in found if q.measure == "time" and q.high is None]
    # the whole of "4 min 59 s", not its "59 s" alone
    times = [(q.start, q.end, q.value) for q in plain if not any(o.start < q.start and o.end >= q.end for o in plain)]
    times += [(m.start(), m.end(), 60 * int(m.group("m")) + int(m.group("s"))) for m in _CLOCK.finditer(text)]
    out = []
    for start, end, seconds in times:
        per = _PER.match(text, end)
        unit = unit_at(text, per.end()) if per and seconds else None
        if unit is not None and unit[1] == "length":
            name, _, size, _, stop = unit
            out.append(Quantity("speed", size / seconds, start, stop, name, derived=True))
    return out


_ONE = re.compile(r"(?i)\b(?:an?|one)\b")
_A_SINGLE = re.compile(r"(?i)\b(?:a\s+single|one\s+single|just\s+one)\b")
_HALF_A = re.compile(r"(?i)\bhalf\s+(?:an?|one)\b")
# A unit that is itself a span of smaller ones is a value even alone: "a fortnight" is 14 days,
# and "triennial" (a span and its adjective in one word) three years.
_A_SPAN = re.compile(r"(?i)\b(?:a|one)(?=\s+(?:fortnight|decade)\b)|(?<![\w-])(?=(?:bi|tri|quadr|quinqu|sept)enni(?:al|ally)\b)")


def _halves(text: str) -> list[Quantity]:
    """A unit and a half, half of one, or a single one, written without digits: "an hour and a
    half" is 1.5 hours, "half a metre" 0.5 metres, "a single year" one year, "a fortnight" two weeks."""
    out = []
    for pattern, times in ((_HALF_A, 0.5), (_A_SINGLE, 1.0), (_A_SPAN, 1.0), (_ONE, 1.5)):
        for m in pattern.finditer(text):
            unit = unit_at(text, m.end())
            if unit is None or unit[1] in ("count", "fraction"):
                continue
            name, measure, size, offset, stop = unit
            if times == 1.5:  # "an hour" alone is a way of speaking ("twice an hour"); with "and a half" a value
                half = _AND_A_HALF.match(text, stop)
                if not half:
                    continue
                stop = half.end()
            out.append(Quantity(measure, times * size + offset, m.start(), stop, name, derived=True))
    return out


def _size_of(q: Quantity) -> float:
    return next((size for name, _, size, _ in units() if name == q.unit or name == q.unit.lower()), 0.0)


def _unit_of_the_list(text: str, numbers: list[Number], i: int) -> list[Quantity]:
    """The bare number ``numbers[i]`` with the unit or percent sign written once after the last
    number of its list ("23" of "23, 24 or 25 months" is 23 months), or nothing."""
    value, start, end, fraction, _ = numbers[i]
    j = i
    while j + 1 < len(numbers) and _LIST_BETWEEN.fullmatch(text[numbers[j][2] : numbers[j + 1][1]]):
        j += 1
    if j == i or fraction:
        return []
    last = numbers[j][2]
    unit, pct = unit_at(text, last), _PERCENT.match(text, last)
    if unit:
        name, measure, size, offset, _ = unit
        return [Quantity(measure, value * size + offset, start, end, name)]
    return [Quantity("fraction", value / 100, start, end, "%")] if pct else []


# Every sentence of a check reads its batch's options and stems again: both are read once.
@functools.lru_cache(maxsize=4096)
def option_quantity(text: str) -> Quantity | None:
    """What an option's whole text is as a quantity ("87.5%", "12 nautical miles", "7:2",
    "68–71 cm", "0.64"), or None when it is anything else."""
    qualified = _QUALIFIER.match(text)  # "about 7 : 2"
    text = text[qualified.end() :] if qualified else text
    every = _EVERY.match(text)
    if every:
        q = option_quantity(text[every.end() :])
        return _recurring(q) if q is not None and q.measure == "time" else None
    ratio = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*:\s*(\d+(?:\.\d+)?)\s*", text)
    if ratio:
        if float(ratio.group(2)) == 0:
            return None
        return Quantity("ratio", float(ratio.group(1)) / float(ratio.group(2)), 0, len(text))
    found = [q for q in quantities(text) if q.start <= len(text) - len(text.lstrip())]
    if not found:
        return None
    q = max(found, key=lambda q: (q.end, q.high is not None))
    if text[q.end :].strip():
        return None
    if q.measure == "count" and 0 < q.value < 1:  # "0.64" where the options are shares
        return Quantity("fraction", q.value, q.start, q.end)
    return q


def _off(a: Quantity, b: Quantity) -> float | None:
    """How far apart two quantities are, relatively (the worse end of a range), or None when
    they measure different things."""
    if a.measure != b.measure or (a.high is None) != (b.high is None):
        return None
    # a temperature is compared on the Celsius scale: 2% of 333 K would take 55 °C for 60 °C
    zero = _CELSIUS_ZERO if a.measure == "temperature" else 0.0
    off = abs(a.value - b.value) / max(abs(a.value - zero), abs(b.value - zero), 1e-12)
    if a.high is not None and b.high is not None:
        off = max(off, abs(a.high - b.high) / max(abs(a.high - zero), abs(b.high - zero), 1e-12))
    return off


def _fits(a: Quantity, b: Quantity) -> bool:
    off = _off(a, b)
    return off is not None and off <= TOLERANCE


def _the_one_it_fits(q: Quantity, options: dict[str, Quantity]) -> str | None:
    """The option ``q`` fits, if one: the only one within :data:`TOLERANCE`, or among several
    ("just under 68 percent" among 67.35% and 67.94%) the nearest by three times over."""
    offs = sorted((off, letter) for letter, o in options.items() if (off := _off(q, o)) is not None and off <= TOLERANCE)
    # one value inside one option's range ("about 140 °F" for 57–63 °C)
    inside = [letter for letter, o in options.items()
              if q.high is None and o.high is not None and o.measure == q.measure and o.value <= q.value <= o.high]
    if not offs and len(inside) == 1:
        return inside[0]
    if not offs:
        return None
    if len(offs) == 1 or offs[0][0] * 3 <= offs[1][0]:
        return offs[0][1]
    return None


def _same_form(q: Quantity, option: str, sentence: str) -> bool:
    """Whether the sentence writes the quantity as the option does (left to numbers.py)."""
    return sentence[q.start : q.end].strip().casefold() == option.strip().casefold()


@functools.cache
def _about_the_batch() -> re.Pattern:
    nouns = sorted(entries("work_nouns") + entries("question_nouns"), key=len, reverse=True)
    return re.compile(r"(?i)\s+of\s+(?:your|the|these|those|this|all|my)\s+(?:\w+\s+)?(?:" + "|".join(nouns) + r")\b")


@functools.lru_cache(maxsize=1024)
def _stem_data(stem: str) -> tuple[Quantity, ...]:
    """Every quantity a question's own text gives to work with (its data; a passage's are not)."""
    return tuple(quantities(question_data(stem)))


def _stem_quantities(stem: str) -> tuple[Quantity, ...]:
    """The quantities with a measure that a question's own text gives (its data)."""
    return tuple(q for q in _stem_data(stem) if q.measure != "count")


def quantity_refs(sentence: str, questions: list[Question]) -> list[OptionRef]:
    """Options that are quantities, named by a value of another form that fits only that option;
    never a share of the batch's own material ("a quarter of your answers")."""
    found = [q for q in quantities(sentence)
             if (q.measure != "count" or q.derived) and not _about_the_batch().match(sentence, q.end)]
    if not found:
        return []
    stems = [q for question in questions for q in _stem_quantities(question.question)]
    refs = []
    for question in questions:
        bare = without_shared_words(question.options or {})
        options = {letter: option_quantity(text) or option_quantity(bare[letter]) for letter, text in (question.options or {}).items()}
        valued = {letter: q for letter, q in options.items() if q is not None}
        if len(valued) < 2:
            continue
        # a span said to recur names a plain one where no option recurs ("every 69 hours" for "2.87 days")
        recurs = any(o.measure.startswith("every ") for o in valued.values())
        for q in found if recurs else [_once(q) for q in found]:
            if any(_fits(q, s) for s in stems) or _stems_over_stems(sentence[q.start : q.end], questions):
                continue
            letter = _the_one_it_fits(q, valued)
            if letter is not None and not _same_form(q, question.options[letter], sentence):  # type: ignore[index]
                refs.append(OptionRef(letter, question.id, *folded_span(sentence, q.start, q.end), "text"))
    return refs


# A fraction of two figures the stems give is the working's first step, not a value put forward:
# "Write the fraction as 36/480 first" beside "480 birds were ringed ... 36 of them".
_DIGIT_FRACTION = re.compile(r"(\d[\d,]*(?:\.\d+)?)\s*/\s*(\d[\d,]*(?:\.\d+)?)")


def _stems_over_stems(written: str, questions: list[Question]) -> bool:
    m = _DIGIT_FRACTION.fullmatch(written.strip())
    return m is not None and given_in_stems(m.group(1), questions) and given_in_stems(m.group(2), questions)


def measured_quantity(text: str) -> Quantity | None:
    """What ``text`` is as a measured quantity ("30 kt", "1 hour 30 minutes"), or None when it
    is anything else, a bare count or a share included. An answer given with something in
    brackets after it is what its main form is."""
    q = option_quantity(text)
    if q is None and (forms := bracketed(text)):  # "100 °C (212 °F)", "about 100 °C (or slightly above)"
        q = option_quantity(forms[0])
    return q if q is not None and q.measure not in ("count", "fraction") else None


def names_quantity(sentence: str, answer: str, questions: list[Question]) -> bool:
    """Whether ``sentence`` gives a phrase answer that is a measured quantity ("30 kt") in
    another form ("about 55 km/h"), or a decimal ("0.60") by its value ("0.6", "three-fifths"):
    a value that fits it and is none of the questions' data."""
    target = measured_quantity(answer)
    if target is not None:
        stems = [q for question in questions for q in _stem_quantities(question.question)]
        return any(_fits(q, target) and not any(_fits(q, s) for s in stems) for q in quantities(sentence))
    decimal = _decimal(answer)
    if decimal is None:
        return False
    data = [q.value for question in questions for q in _stem_data(question.question)]
    return any(q.measure in ("count", "fraction") and q.high is None and abs(q.value - decimal) <= TOLERANCE / 4 * decimal
               and not any(abs(q.value - d) <= TOLERANCE / 4 * decimal for d in data) for q in quantities(sentence))


def _decimal(answer: str) -> float | None:
    """A phrase answer that is a bare number with a decimal point ("0.60", "62.5"), as a value;
    None for anything else (a whole number is too common a word of advice to be read so)."""
    m = re.fullmatch(r"\s*(\d+\.\d+)\s*", answer)
    return float(m.group(1)) if m and float(m.group(1)) > 0 else None

