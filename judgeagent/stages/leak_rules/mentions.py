"""Options and phrase answers named by their text: the whole text or enough of its distinctive
words, after the one normalisation (:mod:`judgeagent.stages.leak_normalize`), with slips,
other forms of a word, initials and letters spelt out.

A distinctive word is one of the option's own words that the question's stem and its other
options do not use and that is not a class noun ("disease"); an option that is a statement
is named by two of its words close together, never by one; a word inside a longer option's
mention is that option's."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from judgeagent.data.benchmark import Question
from judgeagent.stages.leak_normalize import VARIANT_MIN, contains, fold, near_miss, same_word, spoken_numbers, stem, tokens
from judgeagent.stages.leak_rules.numbers import counts_or_numbers, given_in_stems
from judgeagent.stages.leak_rules.quantities import measured_quantity
from judgeagent.stages.leak_rules.refs import OptionRef
from judgeagent.stages.leak_rules.symbols import symbol_spans
from judgeagent.stages.leak_rules.text import (
    EVERYDAY_ZIPF,
    FUNCTION,
    STOP,
    bracketed,
    cased_words,
    common_word,
    compiled,
    folded_span,
    identifying,
    word_spans,
    zipf,
)
from judgeagent.stages.leak_rules.vocabulary import entries

_MIN_DISTINCTIVE = 3  # letters in a distinctive stem; a shorter word must match as a whole text
_ABBREVIATION_MIN = 4  # "doxy" for "doxycycline": a prefix this long of a word of 7 letters or more
_STATEMENT_WORDS = 4  # an option with this many content words is a statement, not a name


@dataclass(frozen=True)
class _OptionForm:
    """How an option can be named: its whole text, its distinctive stems, its acronyms."""

    letter: str
    whole: tuple[str, ...]
    squashed: str
    distinctive: frozenset[str]
    acronyms: frozenset[str]
    longer: tuple[tuple[str, ...], ...]  # other options of the question that contain this one's text
    statement: bool  # a sentence ("Rivers release stored water at dawn"), not a name
    generic: bool  # its words are in every other option ("Vitamin A" beside "Vitamin C": "vitamin")
    unglossed: tuple[str, ...]  # its words without a parenthesis ("body-centred cubic (BCC)")
    # The distinctive stems long enough to be met in another form or with a slip (near_miss,
    # same_word): set apart once, so each word of a sentence is compared with these alone.
    variable: frozenset[str] = frozenset()
    # The distinctive stems long enough to be abbreviated (_ABBREVIATION_MIN letters and 4 more).
    abbreviable: frozenset[str] = frozenset()


@functools.lru_cache(maxsize=16_384)
def _forms(question: str, options: tuple[tuple[str, str], ...]) -> tuple[_OptionForm, ...]:
    stem_words = set(tokens(question))
    per_option = {letter: tokens(text) for letter, text in options}
    forms = []
    for letter, text in options:
        own = per_option[letter]
        others = {w for other, ws in per_option.items() if other != letter for w in ws}
        distinctive = frozenset(
            w for w in own
            if len(w) >= _MIN_DISTINCTIVE and not w.isdigit() and w not in STOP and w not in FUNCTION and w not in others and w not in stem_words
        )
        longer = tuple(ws for other, ws in per_option.items() if other != letter and len(ws) > len(own) and contains(ws, own))
        # (a parenthesis glosses a name: "Type IIx (fast glycolytic) skeletal fibres" is a name)
        bare_words = tokens(re.sub(r"^\s*(?:c\.|ca\.|circa|approx\.?|about|around|roughly)\s*", "", re.sub(r"\([^)]*\)", " ", text)))
        statement = sum(len(w) >= 3 and w not in STOP for w in bare_words) >= _STATEMENT_WORDS
        # A statement has no initials: "at dawn and dusk" is not "ADD".
        # Nor are initials another option writes too: "ABV" of "alcohol by volume" beside "About 5% ABV".
        acronyms = frozenset() if statement else _acronyms(text) - others
        generic = len(options) > 2 and all(set(own) <= set(ws) for other, ws in per_option.items() if other != letter)
        variable = frozenset(d for d in distinctive if len(d) >= VARIANT_MIN)
        abbreviable = frozenset(d for d in distinctive if len(d) >= _ABBREVIATION_MIN + 4)
        forms.append(
            _OptionForm(letter, own, "".join(own), distinctive, acronyms, longer, statement, generic, bare_words, variable, abbreviable)
        )
    return tuple(forms)


def _acronyms(text: str) -> frozenset[str]:
    """Initials of runs of two or more words ("CT pulmonary angiography" → "ctpa", "pa";
    "grievous bodily harm" → "gbh"); an upper-case word gives all its letters."""
    words = [w for w in re.findall(r"[A-Za-z]+", text) if w.lower() not in ("a", "an", "the", "of", "to", "or", "and", "for")]
    parts = [w.lower() if w.isupper() and len(w) <= 4 else w[0].lower() for w in words]
    out = set()
    for i in range(len(parts)):
        for j in range(i + 2, len(parts) + 1):
            acronym = "".join(parts[i:j])
            if len(acronym) >= 3:
                out.add(acronym)
    return frozenset(out)


def text_refs(sentence: str, questions: list[Question]) -> list[OptionRef]:
    """Options named by their text or by a distinctive word of it, after normalisation."""
    words = word_spans(sentence)
    stems = tuple(s for _, s, _, _ in words)
    joins = _joined_stems(stems)
    found = []
    # (a short form any question of the batch writes is the batch's word: "SCT" asked about in one
    # question names no option of another)
    asked = " ".join(q.question for q in questions)
    for q in questions:
        if not q.options:
            continue
        topic = _topic_words(q, questions)
        for form in _forms(q.question, tuple(q.options.items())):
            option = q.options[form.letter]
            # (nor one the question's other options write too: "ABV" of "Under 1.5% alcohol by volume
            # (ABV)" beside "About 5% ABV" is the unit they all share)
            elsewhere = asked + " " + " ".join(text for letter, text in q.options.items() if letter != form.letter)
            code = (
                _code_spans(sentence, option)
                or _bracketed_code_spans(sentence, option, elsewhere)
                or symbol_spans(sentence, option, asked)
            )
            if code:
                found.append((q, form.letter, code, True))
                continue
            if not identifying(q.options[form.letter]):
                continue
            spans, whole = _mention_spans(form, words, stems, joins, topic, fold(sentence))
            if not spans and not form.statement:
                spans = _spoken_initials(sentence, q.options[form.letter], q.question) or _core_written(sentence, form.letter, q)
                whole = bool(spans)
            if not spans:
                spans = _abbreviated(sentence, form.letter, q, questions)
                whole = bool(spans)
            # (a word of it in a label names it as wholly as its text: "the option about the congress can go")
            if not whole:
                labelled = _labelled(sentence, form, q, asked)
                spans, whole = (labelled, True) if labelled else (spans, whole)
            if not spans and form.statement:
                spans = _own_number(sentence, option, elsewhere)
                whole = bool(spans)
            spans = [
                sp for sp in spans
                if not _numbering(sentence, sp, option) and not _datum(sentence, sp, option, questions)
                and not _other_sign(sentence, sp, option) and not _adjective_use(sentence, option, q.question)
            ]
            if not whole:
                spans = [sp for sp in spans if not _common_use(sentence, sp, q.options[form.letter], questions, q)]
            if spans:
                found.append((q, form.letter, spans, whole))
    # One stretch of words names one thing: a word inside a longer mention of another option
    # ("Tom" of "Tom Stoppard", beside an option "Tom Buchanan") is that option's, not its own.
    longer = [(lo, hi, q.id, letter) for q, letter, spans, whole in found if whole for lo, hi in spans]
    refs = []
    for q, letter, spans, whole in found:
        spans = [
            (lo, hi) for lo, hi in spans
            if not any(a <= lo and hi <= b and b - a > hi - lo and (qid, ltr) != (q.id, letter) for a, b, qid, ltr in longer)
        ]
        if spans:
            lo, hi = spans[0]
            refs.append(OptionRef(letter, q.id, lo, hi, "text", whole))
    return refs


# An option called by a word of its own before a noun that stands for it: "the towel one", "the
# Thursday-evening statement", "the single-objection option", "the weather explanation". The word
# is one this option has and no other option of its question, and its other words are the option's
# too: a label, not the topic.
_LABEL = re.compile(
    r"(?i)\bthe\s+((?:[\w'’]+(?:-[\w'’]+)*\s+){0,2}?[\w'’]+(?:-[\w'’]+)*)\s+"
    r"(?:statement|one|option|choice|explanation|answer|reason|version|claim|account|reading|interpretation|idea)\b"
)
# The same by what it says, as a clause: "the idea that heat fuses iron to wood" beside the option
# "The heat fuses the iron to the wood, so ...". Two of its words the option's at least, and half.
_CLAUSE_LABEL = re.compile(
    r"(?i)\bthe\s+(?:idea|claim|notion|suggestion|view|statement|explanation|theory)\s+that\s+((?:[\w'’-]+\s+){1,11}?[\w'’-]+)"
    r"(?=\s+(?:can|could|should|must|may|is|isn['’]t|was|wasn['’]t|won['’]t|will|doesn['’]t|does|has|fails|falls|goes|belongs|needs|deserves)\b"
    r"|\s*[,;.:!?—–]|\s+-\s)"
)
# Or by what it is about: "the option about the deer fence can go" beside "The deer fence had to
# be repaired before ...".
_ABOUT_LABEL = re.compile(
    r"(?i)\bthe\s+(?:statement|option|choice|explanation|reason|claim|one)\s+(?:about|on|mentioning|involving|citing|blaming)\s+"
    r"(?:the\s+|a\s+|an\s+)?((?:[\w'’-]+\s+){0,2}?[\w'’-]+)"
    r"(?=\s+(?:can|could|should|must|may|is|isn['’]t|was|wasn['’]t|won['’]t|will|doesn['’]t|does|has|fails|falls|goes|belongs|needs|deserves)\b"
    r"|\s*[,;.:!?—–]|\s+-\s)"
)
# Or by a few of its words in quotes: "I'd take 'watch their feet' over 'watch their face'" beside
# the options "Watch your opponent's feet, ..." and "Watch your opponent's face, ...".
_QUOTED_LABEL = re.compile(r"(?:(?<=\s)|^)['‘\"“]((?:[\w%-]+\s+){1,6}[\w%-]+)['’\"”](?=[\s,.;:!?]|$)")
_NO_LABEL = frozenset(
    stem(w) for w in (
        "first second third fourth fifth last final other right correct wrong best worst likely obvious tempting plausible "
        "remaining only same next previous earlier later former latter key main true false"
    ).split()
)


def _labelled(sentence: str, form: _OptionForm, q: Question, asked: str) -> list[tuple[int, int]]:
    """Where ``sentence`` calls the option by a label. The stem may use the label's word too (a
    passage's statements are all in the passage): it is the other options that must not. A word
    of the label no option has ("evening" of "the Thursday-evening statement") is the writer's.
    Words in quotes that a question of the batch (``asked``, their texts) writes as they stand
    quote it, not an option ("pin down what 'holding the point' means")."""
    options = q.options or {}
    own = [w for w in tokens(options[form.letter]) if len(w) >= _MIN_DISTINCTIVE and w not in STOP and w not in FUNCTION]
    others = [w for letter, text in options.items() if letter != form.letter for w in tokens(text)]
    spans = []
    for pattern, least in ((_LABEL, 1), (_ABOUT_LABEL, 1), (_CLAUSE_LABEL, 2), (_QUOTED_LABEL, 2)):
        for m in pattern.finditer(sentence):
            if pattern is _QUOTED_LABEL and _DENIAL.search(m.group(1)) and not _DENIAL.search(options[form.letter]):
                continue
            label = set(tokens(m.group(1))) - _NO_LABEL  # ("the only Thursday one": "only" labels nothing)
            # (a little word is no short form of the option's: "over" of "the reason over one" beside "overcrowded")
            mine = {w for w in label if w not in STOP and w not in FUNCTION and _akin(w, own)}
            # (words in quotes that run in this option alone quote it, though each is in another:
            # 'a stroke to Tomasz' beside "A stroke to Priya" and "No let: Tomasz wins ...")
            # (and so do little words in quotes that the option opens with, or that are called an option:
            # "the 'as much as they like' option" beside "As much as they like, provided ...")
            if pattern is _QUOTED_LABEL and (len(mine) >= 2 or _called_option(sentence, m.end(), m.group(1), options[form.letter])) \
                    and _quotes_option(m.group(1), form.letter, options) and _spaced_tokens(m.group(1)) not in _spaced_tokens(asked):
                spans.append(folded_span(sentence, *m.span(1)))
                continue
            if len(mine) < least or (pattern is not _LABEL and 2 * len(mine) < len(label)):
                continue
            if pattern is _QUOTED_LABEL and _spaced_tokens(m.group(1)) in _spaced_tokens(asked):
                continue
            # (a little word is another option's only as itself, "against" is no form of "again", and
            # in a clause or a quote not even then: "the idea that heat fuses iron to wood" beside
            # "... chars the outer wood so that ...")
            little = {w for w in label if w in STOP or w in FUNCTION}
            shared = {w for w in label if _akin(w, others) and (w not in little or (pattern is _LABEL and w in others))}
            if mine - shared and shared <= mine:
                spans.append(folded_span(sentence, *m.span(1)))
    return spans


# An option that is a number and its unit ("125 m"), written as the operand of a step with the
# stem's own figure ("multiply the spread by 125 m", beside "125 metres for every degree"): the
# stem's datum. (Named otherwise, "the 12 cm choice can go", a stem's figure is a distractor.)
_NUMBER_AND_UNIT = re.compile(r"\s*(?P<n>\d[\d,]*(?:\.\d+)?)\s*[^\W\d_]{1,4}\.?\s*")
# ("subtract the 1.5 m depth")
_OPERAND = re.compile(r"(?i)(?:\b(?:by|times|plus|minus|per|into)|\b(?:subtract|add|deduct)(?:\s+the)?|[×*/+−])\s*$")


def _datum(sentence: str, span: tuple[int, int], option: str, questions: list[Question]) -> bool:
    number = _NUMBER_AND_UNIT.fullmatch(option)
    return number is not None and _OPERAND.search(fold(sentence)[: span[0]]) is not None and given_in_stems(number.group("n"), questions)


# A sign written against a figure names the options of that sign only: "−10 points" is not
# "+10 points", though their words are the same.
_SIGN_BEFORE = re.compile(r"(?<![\w.,)])([+−-])$")
_OPTION_SIGN = re.compile(r"\s*([+−-])(?=\s*\d)")


def _other_sign(sentence: str, span: tuple[int, int], option: str) -> bool:
    written = _SIGN_BEFORE.search(fold(sentence)[: span[0]])
    if written is None:
        return False
    own = _OPTION_SIGN.match(option)
    return (written.group(1) != "+") != (own is not None and own.group(1) != "+")


# A statement named by a number it alone gives ("the statement giving an exact age of 74.5 million
# years" beside "It is exactly 74.5 million years old."), one no other option nor the batch's
# questions write: a decimal, or three digits or more (not "the 10" of a "#10 blade").
_OWN_NUMBER = re.compile(r"(?<![\d.,])\d+\.\d+(?![\d.])|(?<![\d.,])\d{3,}(?![\d.,])")


def _own_number(sentence: str, option: str, elsewhere: str) -> list[tuple[int, int]]:
    spans = []
    for number in dict.fromkeys(_OWN_NUMBER.findall(option)):
        if not compiled(r"(?<![\d.,])" + re.escape(number) + r"(?![\d])").search(elsewhere):
            pattern = compiled(r"(?<![\d.,])" + re.escape(number) + r"(?![\d]|[.,]\d)")
            spans += [folded_span(sentence, *m.span()) for m in pattern.finditer(sentence)]
    return spans


# (a quote that denies what the option says is not its words: "'the magician knew nothing'"
# beside "... a card the magician already knew")
_DENIAL = re.compile(r"(?i)\b(?:not|no|nothing|never|none|nobody|neither|nor)\b|n['’]t\b")


_CALLED_OPTION = re.compile(r"(?i)\s*(?:option|one|choice|answer|statement)\b")
_OPENING_CLAUSE = re.compile(r"[^,;:.!?—–()]+")


def _called_option(sentence: str, end: int, quoted: str, option: str) -> bool:
    opening = _OPENING_CLAUSE.match(option)
    return _CALLED_OPTION.match(sentence, end) is not None or (opening is not None and tokens(opening.group()) == tokens(quoted))


def _quotes_option(quoted: str, letter: str, options: dict[str, str]) -> bool:
    words = tokens(quoted)
    runs_in = {other for other, text in options.items() if contains(tokens(text), words)}
    return len(words) >= 2 and runs_in == {letter}


@functools.lru_cache(maxsize=4096)  # a batch's wording, asked of every option of every sentence, and the words quoted
def _spaced_tokens(text: str) -> str:
    return " " + " ".join(tokens(text)) + " "


def _akin(word: str, words: list[str]) -> bool:
    """Whether ``word`` is one of ``words`` or one's shorter or longer form ("book", "booking")."""
    return any(word == w or (min(len(word), len(w)) >= 4 and (word.startswith(w) or w.startswith(word))) for w in words)


# An option that is a short code of letters and digits ("6B+", "7A", "F3"): named where it is
# written as it stands, "6B" not inside "6B+".
_SHORT_CODE = re.compile(r"(?=[^\s]*\d)(?=[^\s]*[A-Za-z])[A-Za-z\d][A-Za-z\d+/.-]{1,6}")


def _code_spans(sentence: str, option: str) -> list[tuple[int, int]]:
    text = option.strip()
    if not _SHORT_CODE.fullmatch(text):
        return []
    pattern = compiled(r"(?<![\w+/.-])" + re.escape(text) + r"(?![\w+/-]|\.\d)")
    return [folded_span(sentence, *m.span()) for m in pattern.finditer(sentence)]


# An option's own short form, in brackets: "Disqualification (DQ)", "A yellow card (YC) warning only",
# "Execution score (E-score)"; not a Roman numeral ("manganese(IV) oxide").
_BRACKETED_CODE = re.compile(r"\((?P<code>(?![IVXL]+\))(?=(?:[^)]*[A-Z]){2})[A-Z][A-Za-z\d+]{0,4}[A-Z\d]|[A-Z]{1,3}-[a-z]{2,8})\)")


def _bracketed_code_spans(sentence: str, option: str, asked: str) -> list[tuple[int, int]]:
    """Where the sentence writes the short form an option gives itself in brackets, unless the
    batch's questions (``asked``, their texts) write it too (then it is their word)."""
    spans = []
    for m in _BRACKETED_CODE.finditer(option):
        pattern = compiled(r"(?<![\w-])" + re.escape(m.group("code")) + r"s?(?![\w-])")
        if not pattern.search(asked):
            spans += [folded_span(sentence, *w.span()) for w in pattern.finditer(sentence)]
    return spans


def _spoken_initials(sentence: str, name: str, question_text: str) -> list[tuple[int, int]]:
    """Where the sentence writes a name of three words or more by the initials of every word but
    an article, little words too, in capitals ("ICOM" for "International Council of Museums",
    "BOE" for "Bank of England"), when the question does not itself: the name's acronyms leave
    its little words out."""
    words = [w for w in re.findall(r"[A-Za-z]+", re.sub(r"['’]s\b", "", name)) if w.lower() not in ("a", "an", "the")]
    return _initials_written(sentence, words, question_text)


def _initials_written(sentence: str, words: list[str], question_text: str) -> list[tuple[int, int]]:
    """Where the sentence writes the first letters of three ``words`` or more in capitals (a
    plural too, a number word as its digit), unless the question writes them."""
    if len(words) < 3:
        return []
    spans = []
    # (a count may be its digit: "F2L" for "first two layers")
    counted = "".join(_NUMBER_WORDS[w.lower()] if w.lower() in _COUNTS else w[0] for w in words)
    for initials in dict.fromkeys(("".join(w[0] for w in words).upper(), counted.upper())):
        if compiled(r"(?<![\w-])" + initials + r"(?![\w-])").search(question_text):
            continue
        # (a hyphen may join them to a word: "PAT-tested")
        spans += [m.span() for m in compiled(r"(?<![\w-])" + initials + r"s?(?![\w]|-[A-Z\d])").finditer(sentence)]
    return spans


# Initials in capitals that may take more letters of a word, or a number word's digit:
# "SSB" for "Single sideband", "DCS" for "decompression sickness", "2C1R" for "Second cousin once removed".
_WRITTEN_CAPITALS = re.compile(r"(?<![\w-])(?=[A-Z\d]*[A-Z][A-Z\d]*[A-Z\d])[A-Z\d]{2,6}(?=s?(?![\w-]))")
_COUNTS = ("one", "two", "three", "four", "five")
_NUMBER_WORDS = {
    "one": "1", "first": "1", "once": "1", "single": "1", "two": "2", "second": "2", "twice": "2", "double": "2",
    "three": "3", "third": "3", "thrice": "3", "triple": "3", "four": "4", "fourth": "4", "five": "5", "fifth": "5",
}


def _abbreviated(sentence: str, letter: str, q: Question, questions: list[Question]) -> list[tuple[int, int]]:
    """Where the sentence writes option ``letter`` by initials in capitals of two of its words
    or more, in a row (:func:`_abbreviates`), when no other option of the question reads so
    and the batch's own wording does not use the letters: "BOD over COD", "CW or SSB", "type I
    DCS". Two letters only as the initials of the whole option ("CW" for "Continuous wave")."""
    written = list(_WRITTEN_CAPITALS.finditer(sentence))
    if not written:
        return []
    wording = " ".join([o.question for o in questions] + [t for o in questions for t in (o.options or {}).values()])
    spans = []
    for m in written:
        caps = m.group(0)
        # (in capitals: "AGE" is initials even where the batch writes "age")
        if compiled(r"(?<![\w-])" + re.escape(caps) + r"(?![\w-])").search(wording):
            continue
        readers = [other for other, text in (q.options or {}).items() if _initials_of(caps, text, _shared_words(q))]
        if readers == [letter]:
            spans.append(folded_span(sentence, *m.span()))
    return spans


def _shared_words(q: Question) -> frozenset[str]:
    """The words two options of ``q`` or more have: the kind they all are ("pasteurisation")."""
    seen = [{w.lower() for w in re.findall(r"[A-Za-z]+", text)} for text in (q.options or {}).values()]
    return frozenset(w for w in set().union(*seen) if sum(w in ws for ws in seen) >= 2) if seen else frozenset()


@functools.lru_cache(maxsize=16_384)
def _initials_of(caps: str, option: str, shared: frozenset[str] = frozenset()) -> bool:
    """Whether ``caps`` abbreviate two words of ``option`` or more in a row. Of a longer name
    (:data:`_STATEMENT_WORDS` words), only its last words, where its head noun is ("DCS" of
    "Type I decompression sickness"), or all but a last word that other options share, the kind
    they all are ("HTST" of "High-temperature short-time pasteurisation"); a gloss in brackets
    is no part of a name ("LTLT" of "Low-temperature long-time (vat) pasteurisation"); a
    sentence is never abbreviated."""
    words = [w.lower() for w in re.findall(r"[A-Za-z]+|\d+", re.sub(r"\([^)]*\)", " ", option)) if w.lower() not in _LITTLE]
    if len(words) < 2 or (len(caps) == 2 and len(words) != 2) or len(words) > _STATEMENT_WORDS + 1:
        return False
    n = len(words)
    runs = [(i, j) for i in range(n - 1) for j in (range(i + 2, n + 1) if n < _STATEMENT_WORDS else (n,))]
    if n >= 3 and words[-1] in shared:
        runs.append((0, n - 1))
    letters = caps.lower()
    numbered = [_NUMBER_WORDS.get(w, w) for w in words]
    return any(
        len(letters) >= j - i and _abbreviates(letters, spelled[i:j]) for spelled in (words, numbered) for i, j in runs
    )


_DASH = r"\s*(?:[-–—]|to)\s*"


def _core_written(sentence: str, letter: str, q: Question) -> list[tuple[int, int]]:
    """Where the sentence writes option ``letter``, a range whose other words every option of the
    question shares ("pH 7.5–8.3" among pH ranges), by its range alone: "7.5–8.3", "7.5 to 8.3".
    The shared words say what kind of value every option is; the range is what tells them apart."""
    options = q.options or {}
    if len(options) < 3:
        return []
    words = {other: set(re.findall(r"[^\W\d_]+", text.lower())) for other, text in options.items()}
    frame = set.intersection(*words.values())
    own = options[letter]
    core = " ".join(w for w in re.findall(r"\S+", own) if w.lower().strip(".,()") not in frame).strip(" ,;")
    if not re.fullmatch(r"\d+(?:\.\d+)?\s*[-–—]\s*\d+(?:\.\d+)?", core):
        return []
    lo, hi = re.split(r"\s*[-–—]\s*", core)
    pattern = compiled(r"(?<![\w.])" + re.escape(lo) + _DASH + re.escape(hi) + r"(?![\w]|\.\d)")
    return [folded_span(sentence, *m.span()) for m in pattern.finditer(sentence)]


_ORDINAL = re.compile(r"(?i)\s*(?:\d+(?:st|nd|rd|th)|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth)\s*")


def _numbering(sentence: str, span: tuple[int, int], option: str) -> bool:
    """Whether a number met where an option is one only numbers the sentence's own list ("4)
    ..."), is part of a decimal ("1.4") or of a compound modifier ("a one-line summary"), or
    counts where the option is a place ("two places" beside the option "Second")."""
    written = sentence[span[0] : span[1]]
    if not all(t.isdigit() for t in tokens(written)):
        return False
    if _ORDINAL.fullmatch(option) and (written.isdigit() or spoken_numbers(written)):
        return True
    return counts_or_numbers(sentence, *span) or re.match(r"-[a-z]", sentence[span[1] :]) is not None


# A one-word option that is a name in capitals ("Good", "Fine": coin grades) written in lower
# case before a noun of the sentence's own ("a good way of seeing the traps") is the adjective.
_ADJECTIVE_ZIPF = 4.5  # words as common as "rare" and "fine"; not "haiku" nor "carabiner", which are nouns after "a"
_ADJECTIVE_BEFORE = re.compile(r"(?i)\b(?:a|an|very|quite|really|so|too|pretty)\s+$")
# (a grade named and then "and", "is", "has" ...: "a grab and a hook beam" names the option "Grab")
_NOT_A_NOUN = frozenset(
    "and or but nor is was are were has had have does did can will would should could may might must that which who so then than "
    "to of in on at for with by from".split()
)
_NOUN_AFTER = re.compile(r"\s+(?!(?:one|option|choice|answer|grade|pick|label|name|term|category)s?\b)[a-z]{3,}")


def _adjective_use(sentence: str, option: str, question: str) -> bool:
    word = option.strip()
    if re.fullmatch(r"[A-Z][a-z]+", word) is None or zipf(word.lower()) < _ADJECTIVE_ZIPF:
        return False
    # (before the noun the question asks about it is the option: "a progressive tax" when it asks which tax)
    asked = set(tokens(question))
    said = list(compiled(r"(?i)(?<![\w'’-])" + word + r"(?![\w'’-])").finditer(sentence))
    return bool(said) and all(
        m.group(0)[0].islower() and _ADJECTIVE_BEFORE.search(sentence[: m.start()])
        and (noun := _NOUN_AFTER.match(sentence, m.end())) is not None and noun.group(0).strip() not in _NOT_A_NOUN
        and not set(tokens(noun.group(0))) & asked
        for m in said
    )


def _common_use(sentence: str, span: tuple[int, int], option: str, questions: list[Question], own: Question) -> bool:
    """Whether one word of an option, met alone, is the sentence's own ordinary word rather than
    a mention of the option: a word another question of the batch is about ("market" when a
    question asks about a market, beside an option "Open market operations"), or a title's or
    name's capitalised word written in lower case ("the sea" beside "The Old Man and the Sea")."""
    word = fold(sentence)[span[0] : span[1]]
    w = stem(word)
    if any(w in tokens(q.question) for q in questions if q is not own):
        return True
    titled = {stem(t.casefold()) for t in re.findall(r"(?<=\s)[A-Z][a-z]+", option)}
    if w not in titled:
        return False
    said = [m.group(0) for m in compiled(r"(?i)(?<![\w'’])" + re.escape(word) + r"\w*").finditer(sentence)]
    return bool(said) and all(x[0].islower() for x in said)


def _topic_words(q: Question, questions: list[Question]) -> frozenset[str]:
    """The stems the batch uses to say what it is about: every question's text and the other
    questions' options. Advice on the topic uses them whatever the answer."""
    texts = [o.question for o in questions] + [t for o in questions if o is not q for t in (o.options or {}).values()]
    return _stems_of(tuple(texts))


@functools.lru_cache(maxsize=4096)  # asked for every sentence of a check: the batch's texts are the same each time
def _stems_of(texts: tuple[str, ...]) -> frozenset[str]:
    return frozenset(w for t in texts for w in tokens(t))


def _joined_stems(stems: tuple[str, ...]) -> dict[str, tuple[int, int]]:
    """Each run of two to four stems of a sentence written together ("photo" "synthes" as
    "photosynthes"), with the first (start, end) word indexes that give it: worked out once per
    sentence rather than once per option."""
    joins: dict[str, tuple[int, int]] = {}
    for i in range(len(stems)):
        joined = stems[i]
        for j in range(i + 1, min(i + 4, len(stems))):
            joined += stems[j]
            joins.setdefault(joined, (i, j))
    return joins


def _mention_spans(
    form: _OptionForm,
    words: list[tuple[str, str, int, int]],
    stems: tuple[str, ...],
    joins: dict[str, tuple[int, int]],
    topic: frozenset[str] = frozenset(),
    folded: str = "",
) -> tuple[list[tuple[int, int]], bool]:
    """Where the sentence names the option, and whether by enough of it to name it alone.

    Words of an option that is a statement name it only when one of them is not a word the
    batch is about (``topic``): "wage" and "market" in advice on a labour-economics batch are
    its subject, not the option "Unemployment caused by a wage floor set above the
    market-clearing level"."""
    n = len(form.whole)
    covered = {i for ws in form.longer for j in contains(stems, ws) for i in range(j, j + len(ws))}
    spans = [(words[i][2], words[i + n - 1][3]) for i in contains(stems, form.whole) if i not in covered]
    if not spans and len(form.unglossed) >= 2 and form.unglossed != form.whole:  # named without its gloss
        m = len(form.unglossed)
        spans = [(words[i][2], words[i + m - 1][3]) for i in contains(stems, form.unglossed) if i not in covered]
    if spans and not form.generic:
        return spans, True
    spans = []
    # The whole text written without its spaces ("photo-synthesis", "Qin Shihuang").
    if len(form.squashed) >= 6:
        joined = joins.get(form.squashed)  # (_joined_stems)
        if joined:
            i, j = joined
            return [(words[i][2], words[j][3])], True
    hit: set[str] = set()
    topical: set[str] = set()  # the hits the batch's own words make ("preparation" for "prepared")
    everyday: set[str] = set()  # the hits made by everyday words ("end" of "ends up", "air", "water")
    acronym = False
    rare = False
    where: list[tuple[int, str]] = []  # (word index, distinctive word) of each hit
    for i, (w, s, lo, hi) in enumerate(words):
        if i in covered:
            continue
        # Another form of an option's word is no mention of it when the batch itself uses that form:
        # "temperatures" beside "Tempering" in a batch that asks about a critical temperature.
        # (Only stems of VARIANT_MIN letters or more can be another form or a slip of one another;
        # a shorter one names a distinctive word only by being it. The order of ``matched`` does
        # not matter: it is read as a set below.)
        if len(s) >= VARIANT_MIN and s not in topic:
            matched = [d for d in form.variable if s == d or near_miss(s, d) or same_word(s, d)]
            # (nor is a form of a word the batch uses: "performers" beside "Performance amplifier",
            # where another question asks where buskers "perform")
            if matched and s not in form.variable and any(same_word(s, t) for t in topic if t not in form.variable):
                matched = []
        else:
            matched = [s] if s in form.distinctive else []
        if not matched and form.abbreviable and _ABBREVIATION_MIN <= len(w) <= 6:
            matched = [d for d in form.abbreviable if len(d) >= len(w) + 4 and d.startswith(w)]
        if matched:
            spans.append((lo, hi))
            hit.update(matched)
            topical.update(d for d in matched if d in topic or s in topic)
            where += [(i, d) for d in matched]
            everyday_word = zipf(w) >= EVERYDAY_ZIPF
            rare = rare or not everyday_word
            if everyday_word:
                everyday.update(matched)
        elif len(w) >= 3 and w in form.acronyms:
            spans.append((lo, hi))
            acronym = True
    whole = acronym or len(hit) >= min(2, len(form.distinctive))
    # A statement with one distinctive word is not named by that word alone when it is an everyday
    # one ("hands" beside "Declarer leads first, from their own hand").
    if whole and form.statement and not acronym and len(hit) < 2 and not rare:
        whole = False
    if whole and form.statement and not acronym and not hit - topical:
        whole = False
    # Two words of a statement name it only if neither is an everyday word (unless they are all of
    # its distinctive words that are not): "cable" and "ends up" beside "The cable housing is frayed
    # at the lever end", "water" and "column" beside "... through the water column".
    # (unless they run together as in the option: "the field survey" of "An open field survey in
    # which ...", "the single-blind demonstration" of "A single-blind demonstration in front of ...")
    if whole and form.statement and not acronym and len(hit - everyday) < 2 and hit - everyday != form.distinctive - everyday \
            and not _run_of_own_words(words, form, folded):
        whole = False
    # An option that is a statement ("Predators migrate away whenever prey are abundant") shares
    # its words with any advice on the topic ("know", "luminosity", "sound"): one of them alone
    # is no mention of it, two are. Of a shorter option, one everyday word ("different" of
    # "Differences in air pressure") is no mention either.
    statement = form.statement
    if not whole and (statement or not rare):
        return [], False
    if whole and statement and not acronym and not _close(where):
        return [], False  # its words scattered over a long sentence ("roughly ... hydrogen")
    return spans, whole


def _run_of_own_words(words: list[tuple[str, str, int, int]], form: _OptionForm, folded: str) -> bool:
    """Whether two of the option's distinctive words, not both everyday ones ("straight away"),
    stand in the sentence as a label of it: a run of its words as it writes them, after an article
    and ending an item of a list ("the field survey;", "the single-blind demonstration and ...")."""
    pairs = set(zip(form.whole, form.whole[1:]))
    start = 0
    for i, (_, s, _, hi) in enumerate(words):
        if i == 0 or (words[i - 1][1], s) not in pairs:
            start = i
        own = {(w, t) for w, t, _, _ in words[start : i + 1] if t in form.distinctive and len(t) >= 4}
        if len(own) < 2 or all(zipf(w) >= EVERYDAY_ZIPF for w, _ in own):
            continue
        after = folded[hi : words[i + 1][2]] if i + 1 < len(words) else ""
        item_ends = re.search(r"[,;:—–]", after) or (i + 1 < len(words) and words[i + 1][0] in ("and", "or", "versus", "vs"))
        item_starts = re.search(r"(?:[,;:—–]|\band|\bor)\s*(?:the|an?)\s+$", folded[: words[start][2]])
        if (item_ends or item_starts) and re.search(r"\b(?:the|an?)\s+$", folded[: words[start][2]]):
            return True
    return False


def states_option(sentence: str, q: Question, letter: str) -> bool:
    """Whether ``sentence`` states option ``letter``'s text, not two words of a statement: its
    whole text, or at least half of its distinctive words. "That one comes from lung
    over-expansion" shares two words with "Air trapped in the lungs expands ... and can
    over-expand and tear lung tissue" and states none of it: a verdict beside it is
    still read by the rules, as a finding the learned layer may doubt."""
    form = next(f for f in _forms(q.question, tuple((q.options or {}).items())) if f.letter == letter)
    if not form.statement:
        return True
    stems = tuple(s for _, s, _, _ in word_spans(sentence))
    if contains(stems, form.whole) or (len(form.unglossed) >= 2 and contains(stems, form.unglossed)):
        return True
    hits = {d for d in form.distinctive if any(s == d or near_miss(s, d) or same_word(s, d) for s in stems)}
    return len(hits) >= max(2, (len(form.distinctive) + 1) // 2)


def _close(where: list[tuple[int, str]], window: int = 8) -> bool:
    """Whether two different words of an option stand within ``window`` words of each other."""
    return any(d1 != d2 and abs(i1 - i2) <= window for i1, d1 in where for i2, d2 in where)


def names_option(sentence: str, question: Question, letter: str) -> bool:
    """Whether ``sentence`` names option ``letter`` of ``question`` by its text (normalised)."""
    return any(r.letter == letter for r in text_refs(sentence, [question]))


def batch_wording(q: Question, questions: list[Question]) -> str:
    """The question's own text and the other questions' texts and options: a word of a phrase
    answer that the batch uses elsewhere ("bee" of "bee space" in a batch on beeswax and worker
    bees) names the batch's subject, not the answer."""
    others = [o for o in questions if o is not q]
    return " ".join([q.question] + [o.question for o in others] + [t for o in others for t in (o.options or {}).values()])


_FRAMING = frozenset({"by", "in", "at", "on", "from", "with", "for", "to", "into", "onto", "via", "through"})


def mentions_phrase(sentence: str, phrase: str, question_text: str = "", *, head_alone: bool = False) -> bool:
    """Whether ``sentence`` names the phrase answer ``phrase``: its normalised text, the text
    without spaces, a one-letter slip in a long word, or one of its distinctive words (one
    that the question itself does not use), another form of such a word ("subliming" for
    "sublimation"), its initials ("DNS" for "Domain Name System") or its letters spelt out
    ("S-U-B-L-I-M-A-T-I-O-N").

    A distinctive word that is also a common English word ("deep" of "Challenger Deep", "cost"
    of "opportunity cost") names the answer alone only when it is the answer's one distinctive
    word (the question's own wording supplies the rest: "median" when it asks which nerve) or
    when it keeps the answer's capital in mid-sentence ("the Deep"); otherwise it needs
    another of the answer's words in the sentence, since advice uses such words in their
    ordinary sense ("the ocean is deep there", "the cost of a choice"). A slip or another form
    must not be a common word in its own right: "similar" is a word, not a slip of "simile".

    The last word of a longer answer is often its class ("antibody" of "anti-centromere
    antibody", "smog" of "photochemical smog"), which advice names to ask for the kind of
    answer: alone it names the answer only with ``head_alone`` (the pointer rule
    :data:`~judgeagent.stages.leak_rules.pointer.ANSWER_HEAD`, whose finding the learned layer
    weighs)."""
    sentence = _SPELLED.sub(lambda m: re.sub(r"[-.]", "", m.group(0)), sentence)
    words = word_spans(sentence)
    stems = tuple(s for _, s, _, _ in words)
    whole = tokens(phrase)
    if not whole:
        return False
    if contains(stems, whole) or _bracketed_form_named(stems, phrase, question_text):
        return True
    # ("a monthly draw" for "by a monthly draw": the preposition frames the answer)
    if len(whole) >= 3 and whole[0] in _FRAMING and contains(stems, whole[1:]):
        return True
    if measured_quantity(phrase) is not None:
        # "1 hour 30 minutes": its words are units, which name the kind of answer ("give hours and
        # minutes"); its value in another form is names_quantity's to find.
        return False
    if _initials_named(sentence, phrase, question_text) or _code_named(sentence, phrase, question_text):
        return True
    # "END" for "Environmental Noise Directive (Directive 2002/49/EC)": the main form's initials
    if (forms := bracketed(phrase)) and _initials_named(sentence, forms[0], question_text):
        return True
    if _expansion_named(sentence, phrase, question_text) or _expansion_named(sentence, _bracketed_initials(phrase), question_text):
        return True
    squashed = "".join(whole)
    joined = ["".join(stems[i : i + k]) for k in range(1, 5) for i in range(len(stems) - k + 1)]
    if len(squashed) >= 6 and squashed in joined:
        return True
    # The same on the words as written, since a compound and its parts stem apart ("keystone" and
    # "key stone" give "keyst" and "key ston").
    raw = re.sub(r"[^a-z0-9]", "", fold(phrase))
    folded = [w for w, _, _, _ in words]
    # ("sidelap" for "side lap": one word as written, its stem "sidelap" against "sid" "lap")
    if len(raw) >= 6 and raw in {"".join(folded[i : i + k]) for k in range(1, 5) for i in range(len(folded) - k + 1)}:
        return True
    if _pair_named(sentence, phrase, question_text) or _clipped_named(folded, phrase) or _contracted_named(folded, phrase):
        return True
    asked = set(tokens(question_text))
    distinctive = {w for w in whole if len(w) >= 3 and not w.isdigit() and w not in STOP and w not in asked}
    if not distinctive and _ordinal_named(sentence, phrase, question_text):
        return True
    # "Treatment Table 6": its number tells it from the other tables, so "the tables are numbered"
    # names none of them; its common word and its number together do ("Hercules" of "LC-130
    # Hercules" is no common word).
    numbers = {w for w in whole if w.isdigit()}
    # An answer that is one hyphenated term binds its first word to the rest: "tilt" alone is a
    # movement, "silt" a sediment; "tilt-in-space" and "silt-out" are the terms.
    one_term = re.fullmatch(r"\s*([^\W\d_]+)(?:-[^\W\d_]+)+\s*", phrase)
    bound = {stem(fold(one_term.group(1)))} if one_term else set()
    capitals = {stem(fold(w)) for w in re.findall(r"[^\W\d_]+", phrase) if w[0].isupper()}
    written = {fold(w) for w in re.findall(r"[^\W\d_]+", phrase)}
    cased = cased_words(sentence, len(words))
    quoted = {fold(m.group(1)) for m in _QUOTED_WORD.finditer(sentence)}
    hit: set[str] = set()
    # A long distinctive word hyphenated ("cross-overs" for "crossover steps"): the parts stem
    # apart ("cro" "over"), their join as written does not. (Not two words: "cross over" is a verb.)
    parted = {stem(fold(m.group(0)).replace("-", "")) for m in re.finditer(r"[^\W\d_]+(?:-[^\W\d_]+){1,2}", sentence)}
    for d in distinctive:
        if len(d) >= 6 and d in parted:
            if len(distinctive) == 1:
                return True
            hit.add(d)
    for i, (w, written_stem, _, _) in enumerate(words):
        for d in distinctive:
            # "drew" and "drawn" are "draw" itself, which the stemmer cannot see
            s = d if _irregular_bases().get(w) == d else written_stem
            # (a tool's name quoted as the verb it comes from: 'rice' of "potato ricer")
            agent = w in quoted and any(stem(a) == d and a.endswith("er") and w in (a[:-1], a[:-2]) for a in written)
            variant = s != d and (
                agent or near_miss(s, d) or same_word(s, d) or (len(d) >= 5 and len(s) > len(d) and s.startswith(d))
            )
            if s != d and not variant:
                continue
            if variant and ((common_word(w) and w not in quoted) or s in asked):
                # A word of its own, not a slip or a form of the answer's (unless quoted as a
                # word: "if a recipe tells you to 'rice' the potatoes" beside "potato ricer"); or
                # one the question itself uses ("ethanol" in a question whose answer is "methanol").
                continue
            # Beside a proper name, the answer's lower-case words are class nouns ("limit" of
            # "Roche limit", "discontinuity" of "Mohorovičić discontinuity"); and another form
            # of one word of a longer answer ("genetics" of "genetic drift") is that word's own.
            head = not head_alone and len(distinctive) > 1 and d == whole[-1] and d not in capitals
            # Another form of a name's word is that name's only with its capital ("Newtonian"
            # beside "Newton's rings", never "globally" beside "Svalbard Global Seed Vault").
            lower_variant = len(distinctive) > 1 and (
                variant and (d not in capitals or not cased[i][:1].isupper())
                # "globally" of "Global" (but "the monitors" of "USS Monitor" is its plural)
                or d in capitals and not cased[i][:1].isupper() and w not in written and re.sub(r"e?s$", "", w) not in written
            )
            alone = not (capitals and d not in capitals) and not lower_variant and not head and d not in bound
            if not head_alone and _other_compound(stems, i, whole, d) and (
                (len(distinctive) == 1 and common_word(w)) or stems[i + 1] in _question_nouns()
            ):
                # "the safety factor" beside "safety line", "the overtraining question" beside
                # "overtraining syndrome": a pointer the learned layer weighs
                continue
            if alone and (not common_word(w) or not numbers and (len(distinctive) == 1 or (d in capitals and i > 0 and cased[i][:1].isupper()))):
                return True
            hit.add(d)
    return len(hit | (numbers & (set(stems) | _roman_numbers(sentence)) if hit else set())) >= 2


# A passage to read holds its answer's words, so none of them is distinctive; but a name of the
# answer's own, no word of general English ("Ropewalk" of "the Old Ropewalk", "Oduya" of "Ms
# Oduya, the orchestra manager"), written with its capital, names it still.
_PASSAGE_MIN = 400


def passage_name_named(sentence: str, phrase: str, question: str) -> bool:
    """Whether ``sentence`` names the answer of a question that is a passage to read by a name of
    the answer's own (see above)."""
    if len(question) < _PASSAGE_MIN:
        return False
    names = [w for w in re.findall(r"(?<![\w'’-])[A-Z][a-z]{3,}(?![\w'’-])", phrase) if not common_word(w.lower())]
    return any(compiled(r"(?<![\w'’-])" + name + r"(?![\w'’-])").search(sentence) for name in names)


# One word in quotes, as a word is quoted for itself ("to 'rice' the potatoes").
_QUOTED_WORD = re.compile(r"(?:(?<=\s)|^)['‘\"“]([^\W\d_]+)['’\"”](?=[\s,.;:!?]|$)")


@functools.cache
def _irregular_bases() -> dict[str, str]:
    """The stem of each irregular verb form's base form ("drew" → "draw"), from lists/irregular_forms.txt."""
    out: dict[str, str] = {}
    for line in entries("irregular_forms"):
        base, *forms = line.split()
        out.update({f: stem(base) for f in forms if f != base})
    return out


_CLIP_MIN = 3  # letters kept of the clipped word: "pro" of "protection"


def _clipped_named(folded: list[str], phrase: str) -> bool:
    """Whether the words of the sentence (``folded``) hold the phrase answer with its last word
    clipped, spaced or run together: "tree pro" and "treepro" for "tree protection", as people
    who use a term every day say it. The clipped word keeps at least three letters and loses at
    least three, and the words before it are written whole."""
    whole = [w for w in re.findall(r"[a-z0-9]+", fold(phrase)) if w not in ("a", "an", "the")]
    if len(whole) < 2 or not whole[-1].isalpha() or len(whole[-1]) < 2 * _CLIP_MIN:
        return False
    head, last = whole[:-1], whole[-1]
    clips = {last[:k] for k in range(_CLIP_MIN, len(last) - _CLIP_MIN + 1)}
    n = len(head)
    for i in range(len(folded) - n + 1):
        if folded[i : i + n] == head and i + n < len(folded) and folded[i + n] in clips:
            return True
    joined = "".join(head)
    return any(w.startswith(joined) and w[len(joined) :] in clips for w in folded)


def _contracted_named(folded: list[str], phrase: str) -> bool:
    """Whether the words of the sentence (``folded``) write out in full a one-word answer that is
    their contraction: "tsubu anko" for "tsubuan", the first word whole and the second clipped
    into it. The first word is no common word ("car petrol" is not "carpet")."""
    whole = re.findall(r"[a-z0-9]+", fold(phrase))
    if len(whole) != 1 or not whole[0].isalpha() or len(whole[0]) < 2 * _CLIP_MIN:
        return False
    answer = whole[0]
    for first, second in zip(folded, folded[1:], strict=False):
        rest = answer[len(first) :]
        if len(first) >= _CLIP_MIN and len(rest) >= 2 and answer.startswith(first) and second.startswith(rest) \
                and len(second) > len(rest) and not common_word(first):
            return True
    return False


# Two numbers joined, in any of the ways they are written: "10-20" and "10:20" for "10/20 rule".
_PAIR = re.compile(r"(?<![\d.,])(\d+)\s*[/:–-]\s*(\d+)(?![\d.,])")


def _pair_named(sentence: str, phrase: str, question_text: str) -> bool:
    pairs = {m.groups() for m in _PAIR.finditer(phrase)} - {m.groups() for m in _PAIR.finditer(question_text)}
    return bool(pairs) and any(m.groups() in pairs for m in _PAIR.finditer(sentence))


_ORDINAL_WORDS = re.compile(r"(?i)\b(?:first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|twelfth)\b")


def _ordinal_named(sentence: str, phrase: str, question_text: str) -> bool:
    """Whether ``sentence`` writes the place that is all an answer names beyond the question's own
    words ("seventh position" when the question asks which position): as "7th", "seventh" or a
    Roman "VII"."""
    places = {stem(w.lower()) for w in _ORDINAL_WORDS.findall(phrase)} | {m.group(1) for m in re.finditer(r"\b(\d+)(?:st|nd|rd|th)\b", phrase)}
    places -= {stem(w.lower()) for w in _ORDINAL_WORDS.findall(question_text)}
    if not places:
        return False
    written = {stem(w.lower()) for w in _ORDINAL_WORDS.findall(sentence)} | {m.group(1) for m in re.finditer(r"\b(\d+)(?:st|nd|rd|th)\b", sentence)}
    written |= {n for n in _roman_numbers(sentence) if int(n) >= 2}
    # one place alone: "from first to seventh" counts the places, it picks none
    return len(written) == 1 and bool(places & written)


_ROMAN = re.compile(r"(?<![\w-])(?=[IVX]{1,5}(?![\w-]))(X{0,3})(IX|IV|V?I{0,3})(?![\w-])")


def _roman_numbers(sentence: str) -> set[str]:
    """The numbers a sentence writes in Roman numerals ("Table VI"), as digits; "I" alone is a word."""
    found = set()
    for m in _ROMAN.finditer(sentence):
        if m.group(0) in ("", "I"):
            continue
        tail = {"IX": 9, "IV": 4}.get(m.group(2), ("V" in m.group(2)) * 5 + m.group(2).count("I"))
        found.add(str(10 * len(m.group(1)) + tail))
    return found


@functools.cache
def _question_nouns() -> frozenset[str]:
    return frozenset(stem(fold(w)) for w in entries("question_nouns"))


def _other_compound(stems: tuple[str, ...], i: int, whole: tuple[str, ...], d: str) -> bool:
    """Whether the answer's word ``d``, a modifier in it, stands at ``i`` before another word
    than the answer's next: "safety factor" beside the answer "safety line", "the overtraining
    question" beside "overtraining syndrome"."""
    at = whole.index(d) if d in whole else -1
    if at < 0 or at == len(whole) - 1 or i + 1 >= len(stems):
        return False
    after = stems[i + 1]
    return after != whole[at + 1] and after.isalpha() and after not in FUNCTION


# Letters spelt out one by one: "S-U-B-L-I-M-A-T-I-O-N", "D.N.S".
_SPELLED = re.compile(r"(?<![\w-])(?:[A-Za-z][-.]){2,}[A-Za-z](?![\w-])")


def _initials_named(sentence: str, phrase: str, question_text: str) -> bool:
    """Whether the sentence writes a phrase answer of three words or more by its initials, in
    capitals ("DNS" for "Domain Name System"), or one of two words or more by initials that take
    more letters of a word ("HCM" for "hypertrophic cardiomyopathy"), when the question does not
    itself use them."""
    every = re.findall(r"[A-Za-z]+", re.sub(r"['’]s\b", "", phrase))  # "LOF" for "Lloyd's Open Form"
    words = [w for w in every if w.lower() not in ("a", "an", "the", "of", "and", "for", "to", "or")]
    # with its little words too, where they make three: "DOE" for "doctrine of equivalents"
    spoken = [w for w in every if w.lower() not in ("a", "an", "the")]
    # and with an article inside it: "SOTG" for "Spirit of the Game"
    if any(_initials_written(sentence, ws, question_text) for ws in (words, spoken, every)):
        return True
    # and without a last word that only names the kind the question asks for: "EOS" for
    # "end-of-stroke switch" where the question asks "What is this switch called?"
    kind = compiled(r"(?i)\b" + re.escape(every[-1]) + r"\b") if every else None
    if kind is not None and kind.search(question_text):
        if any(len(ws) >= 4 and _initials_written(sentence, ws[:-1], question_text) for ws in (words, spoken, every)):
            return True
    # Two words by two initials only in quotes, where they stand as a term: "'RD' these days" for
    # "Rhythm Dance" (bare, two capitals are too often something else)
    if len(words) == 2:
        pair = (words[0][0] + words[1][0]).upper()
        if pair not in question_text and re.search(r"[‘'\"“]" + pair + r"[’'\"”]", sentence):
            return True
        # or in lower case where that is no word ("Patterns shorten it to 'ds'" for "double stitch")
        if not common_word(pair.lower()) and re.search(r"[‘'\"“]" + pair.lower() + r"[’'\"”]", sentence) \
                and not re.search(r"(?<![\w-])" + pair.lower() + r"(?![\w-])", question_text):
            return True
    # Initials that take more than the first letter of a word: "HCM" for "hypertrophic cardiomyopathy",
    # and "NRB" for "non-rebreathing system", whose last word names only its kind (a STOP word)
    runs = [words] + ([words[:-1]] if len(words) >= 3 and words[-1].lower() in STOP else [])
    lowered = [[w.lower() for w in run] for run in runs if len(run) >= 2]
    for caps in _CAPITALS.findall(sentence):
        if caps not in question_text and any(len(caps) > len(run) and _abbreviates(caps.lower(), run) for run in lowered):
            return True
    return False


_CAPITALS = re.compile(r"(?<![\w-])[A-Z]{3,6}(?![\w-])")


def _abbreviates(letters: str, words: list[str]) -> bool:
    """Whether ``letters`` are the words' first letters in order, each followed by none or more
    later letters of its own word ("hcm": "hypertrophic", "cardiomyopathy")."""
    if not words:
        return not letters
    if not letters or letters[0] != words[0][0]:
        return False
    for cut in range(1, len(letters) - len(words) + 2):
        if _in_order(letters[1:cut], words[0][1:]) and _abbreviates(letters[cut:], words[1:]):
            return True
    return False


def _in_order(letters: str, word: str) -> bool:
    rest = iter(word)
    return all(c in rest for c in letters)


_LITTLE = ("a", "an", "the", "of", "and", "for", "to", "or", "in", "on")

# The bracketed form names the answer alone when it is initials ("SPF") or two words or more; one
# plain word ("(minimum)", "(doline)") is left to the distinctive words of the whole.
_ABBREVIATION = re.compile(r"^[A-Z][A-Za-z]*[A-Z]$")


def _bracketed_initials(phrase: str) -> str:
    """The initials a phrase answer gives in brackets ("CMP" of "chemical mechanical planarization
    (CMP)"), or ""."""
    forms = bracketed(phrase)
    return forms[1] if forms and _ABBREVIATION.match(forms[1]) else ""


def _bracketed_form_named(stems: tuple[str, ...], phrase: str, question_text: str) -> bool:
    """Whether the sentence (its word stems) writes either form of a phrase answer given as
    "main (other)" whole: the whole answer names it, and so does each of its forms, unless the
    question itself writes that form."""
    given = bracketed(phrase)
    if given is None:
        return False
    main, other = given
    forms = [main]
    if len(other.split()) >= 2 and not re.match(r"(?i)(?:also|or|i\.e|e\.g|called|known)\b", other) or _ABBREVIATION.match(other):
        forms.append(other)
    asked = set(tokens(question_text))
    for form in forms:
        words = tokens(form)
        if words and contains(stems, words) and not set(words) <= asked:
            return True
    return False


def _expansion_named(sentence: str, phrase: str, question_text: str) -> bool:
    """Whether the sentence spells out a phrase answer that is initials of three to six capitals
    ("optical time-domain reflectometer" for "OTDR"), when the question does not itself."""
    letters = phrase.strip()
    if not re.fullmatch(r"[A-Z]{3,6}", letters):
        return False
    words = [w for w in re.findall(r"[A-Za-z]+", sentence) if w.lower() not in _LITTLE]
    for i in range(len(words) - len(letters) + 1):
        run = words[i : i + len(letters)]
        if all(len(w) >= 3 for w in run) and "".join(w[0] for w in run).upper() == letters:
            spelled = r"\W+".join(map(re.escape, run))
            if compiled(r"(?i)\b" + spelled + r"\b").search(question_text) is None:
                return True
    return False


# A code in a phrase answer, letters and digits joined ("N-1", "CYP27B1", "H2O2"): named when
# the sentence writes it, in any case, and the batch's wording does not.
_CODE = re.compile(r"(?<![\w-])(?=[\w-]*\d)(?=[\w-]*[A-Za-z])[A-Za-z\d]+(?:-[A-Za-z\d]+)*(?![\w-])")


def _code_named(sentence: str, phrase: str, wording: str) -> bool:
    for code in _CODE.findall(phrase):
        pattern = compiled(r"(?i)(?<![\w-])" + re.escape(code) + r"(?![\w-])")
        if len(code) >= 3 and pattern.search(sentence) and not pattern.search(wording):
            return True
    return False
