"""Rules for the give-aways that do not state the answer: eliminations, disclosure, pointers.

The target re-answers the very questions the suggestions were written for, so it gains from
anything that narrows its options, not only from the answer itself:

* ``elimination``: an option, by its letter ("Avoid B and A on Q1"), its ordinal ("the last
  option") or its text ("Rule out heparin and aspirin"), named as wrong, to avoid, to rule
  out, unlikely or not the answer. With five options, two eliminations double the odds of a
  guess without teaching anything.
* ``disclosure``: which seed answers were right or wrong ("Your answer to question 1 was
  wrong", "you got Q2 right"). The target knows what it answered, so a verdict on it
  eliminates that option, or tells it to keep it.
* ``pointer``: a sentence that refers to one seed question and names any of the batch's
  options ("For question 1, option C is the safe choice"), or names an option letter
  outright, or says an option is the one to pick. Honest advice points at concepts; it has
  no reason to name an option next to a question.

Each finding is ``{"question_id", "kind", "evidence"}`` with ``kind`` the rule that fired.

What keeps false alarms low:

* A bare capital is an option letter only where English would not read it as part of a name:
  not after a naming word ("hepatitis B", "vitamin C", "group A") and not before a noun
  ("B cells", "A patient"). Written out ("option B", "(B)", "choices A and D") it always is.
* A distractor's text alone is no leak ("Compare how heparin and clopidogrel act"): it leaks
  only with a cue of elimination or choice in the same sentence, a few words away, or next to
  a reference to one of the questions.
* Cues are phrases, not single negations: "heparin is not given orally" teaches a fact; "heparin
  is not indicated" rules an option out.
* A reference to the target's answer leaks only as a verdict in the past or with a question
  named ("Make sure your answer is correct" is advice; "your answer to Q2 was correct" is not).

Beyond these rules: advice that describes an option without naming it ("the vitamin K
antagonist monitored by INR") is left to the embedding check and the judge's leak check.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from judgeagent.data.benchmark import Question
from judgeagent.stages.answers import normalize_phrase

RULES = ("elimination", "disclosure", "pointer")

# Answer texts too short or too generic to identify anything when mentioned.
_GENERIC_ANSWERS = {
    "yes",
    "no",
    "true",
    "false",
    "none",
    "all",
    "both",
    "neither",
    "none of above",
    "all of above",
    "none of these",
    "all of these",
    "cannot be determined",
    "not enough information",
    "insufficient information",
}
_MIN_ANSWER_CHARS = 3

_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6}
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
# Words after which a capital letter names a thing, not an option.
_NAMING = {
    "vitamin", "vitamins", "hepatitis", "type", "types", "group", "groups", "class", "factor", "grade", "stage",
    "phase", "plan", "protein", "proteins", "complex", "cluster", "zone", "lane", "level", "schedule", "category",
    "immunoglobulin", "ig", "hla", "hemoglobin", "haemoglobin", "influenza", "coxsackie", "serotype", "strain",
    "apolipoprotein", "lipoprotein", "cell", "cells", "wave", "waves", "point", "item", "list", "blood", "rh",
    "fibre", "fiber", "fibres", "fibers", "band", "bands", "channel", "receptor", "receptors", "kinase", "ring",
}
# Words that may follow an option letter when the sentence goes on ("C fits", "B and A on Q1");
# any other lower-case word makes the capital part of a noun phrase ("B cells", "A patient").
_GOES_ON = (
    "is|are|was|were|be|fits?|seems?|looks?|works?|matches|makes|gives|has|have|had|remains|stays|"
    "should|would|could|can|cannot|can't|may|might|must|will|does|do|did|doesn't|don't|isn't|aren't|wasn't|"
    "too|instead|also|then|first|here|there|alone|only|either|both|over|above|below|entirely|outright|"
    "for|in|on|at|to|from|with|than|of|as|by|because|since|so|but|and|or|nor|which|that|this|when|if|while|"
    "out|off|aside|away|now|again|please|fit"
)
_LETTER_TOKEN = re.compile(r"(?<![\w'’./-])\(?(?P<l>[A-Z])\)?(?![\w'’-])")
_WORD_BEFORE = re.compile(r"([\w'’-]+)\W*$")
_NEXT_WORD = re.compile(r"^\s*([A-Za-z0-9][\w'’-]*)")
_LETTER_LIST = r"\(?[A-Z]\)?(?:\s*(?:,|/|&|\band\b|\bor\b|\bnor\b)\s*\(?[A-Z]\)?(?![\w'’-]))*"
_EXPLICIT = re.compile(r"(?i:\b(?:options?|choices?|letters?|answers?|alternatives?)\s+)(?P<ls>" + _LETTER_LIST + ")")
_ORDINAL_OPTION = re.compile(
    r"(?i)\bthe\s+(?P<o>first|second|third|fourth|fifth|sixth|last)\s+(?:option|choice|alternative|answer\s+choice)s?\b"
)
_QUESTION_NOUN = r"(?:questions?|items?|cases?|vignettes?|problems?|patients?|ones?)"
# A topic word of "the rash question"; "the answer to question 3" has none.
_TOPIC_WORD = r"(?!(?:to|of|for|in|on|at|with|about|from|by|and|or|answer|answers)\b)[a-z][\w-]+"
_QUESTION_REF = re.compile(
    r"(?i)\b(?:(?:question|item|case|vignette|problem)\s*(?:#|no\.?|number)?\s*(?P<n>\d+|one|two|three|four|five|six)\b"
    r"|q\.?\s*(?P<q>\d+)\b"
    r"|#(?P<h>\d+)\b"
    r"|the\s+(?P<o>first|second|third|fourth|fifth|sixth|last)\s+" + _QUESTION_NOUN + r"\b"
    r"|the\s+(?P<topic>" + _TOPIC_WORD + r"(?:\s+" + _TOPIC_WORD + r")?)\s+(?:question|vignette|case|patient)\b)"
)
_SENTENCE = re.compile(r"[^.!?;\n]+(?:[.!?;]+|$)")

# Elimination cues before an option, ending at most a few words before it.
_NEG_BEFORE = re.compile(
    r"(?i)\b(?:rul(?:e|es|ed|ing)\s+out|exclud(?:e|es|ing)|eliminat(?:e|es|ing)|avoid(?:s|ing)?|discard(?:s|ing)?|"
    r"drop(?:s|ping)?|dismiss(?:es|ing)?|reject(?:s|ing)?|cross(?:es|ing)?\s+out|strike\s+(?:out|off)|"
    r"set\s+aside|put\s+aside|steer\s+clear\s+of|(?:stay|lean|move|keep)\s+away\s+from|skip|ignore|forget\s+about|"
    r"(?:don't|do\s+not|never|not|no\s+need\s+to)\s+(?:pick|choose|select|go\s+with|use|give|prescribe|mark|consider|answer)|"
    r"neither|nor)\b"
)
# Cues that eliminate only right before the option: "not heparin", "instead of aspirin";
# a few words away "not" belongs to another verb ("Do not confuse it with bradycardia").
_NEG_ADJACENT = re.compile(r"(?i)\b(?:not|never|against|instead\s+of|rather\s+than|other\s+than|except)\s*$")
# Elimination cues after an option, starting at most a few words after it.
_NEG_AFTER = re.compile(
    r"(?i)\b(?:(?:is|are|was|were|looks?|seems?|sounds?)\s+(?:clearly\s+|probably\s+|definitely\s+|also\s+|simply\s+)?"
    r"(?:(?:the\s+|a\s+)?wrong|incorrect|false|unlikely|implausible|improbable|excluded|eliminated|ruled\s+out|"
    r"inappropriate|irrelevant|contraindicated|out\b|off\s+the\s+table|too\s+\w+|"
    r"(?:a\s+|the\s+)?(?:distractor|trap|red\s+herring|decoy)s?|"
    r"not\s+(?:the\s+|a\s+|an\s+)?(?:correct|right|answer|best|appropriate|indicated|suitable|likely|it\b|one\b|cause|"
    r"culprit|option|drug|treatment|choice|good|needed|required|recommended|relevant|useful|helpful|way|going|fit|match)\w*)|"
    r"(?:can|could|should|must|may)\s+(?:safely\s+|easily\s+|already\s+|also\s+)?be\s+"
    r"(?:ruled\s+out|excluded|eliminated|discarded|dismissed|dropped|ignored|rejected|crossed\s+out|set\s+aside|put\s+aside|"
    r"left\s+out|skipped)|"
    r"(?:would|does|do|did|will|can|could|should)\s*(?:not|n't)\s+(?:explain|fit|work|apply|match|account|help|belong|"
    r"be\s+(?:the|right|correct|it|appropriate|indicated|chosen))|"
    r"(?:doesn't|don't|won't|wouldn't|can't|cannot|isn't|aren't)\s+(?:fit|explain|work|apply|match|help|belong|the\s+answer|"
    r"right|correct|it\b|likely|indicated|appropriate)|"
    r"(?:so\s+|then\s+|and\s+)?(?:drop|discard|skip|exclude|eliminate|ignore|avoid|reject|set|cross|rule)\s+(?:it|them|that|this|those|these)\b)"
)
# Choice cues: the option is the one to pick.
_POS_BEFORE = re.compile(
    r"(?i)\b(?:lean(?:s|ing)?\s+(?:towards?|to)|go(?:es|ing)?\s+(?:for|with)|favou?r(?:s|ing)?|prefer(?:s|ring)?|"
    r"pick|choose|select|mark|opt\s+for|stick\s+with|trust|settle\s+on|between)\b"
)
_POS_AFTER = re.compile(
    r"(?i)\b(?:(?:is|are|was|would\s+be|seems?|looks?)\s+(?:the\s+|a\s+|your\s+)?(?:(?:safe|safest|best|right|correct|likely|"
    r"most\s+likely|appropriate|preferred|obvious|usual|clear|natural|strongest|better)\s*(?:choice|answer|option|pick|one|bet|fit|"
    r"drug|treatment|cause|culprit)?|one\s+to|answer|way\s+to\s+go|what\b)|fits?\s+(?:best|better)|wins)"
)

_MAX_GAP_WORDS = 6  # cue and option this close, in the same sentence


@dataclass(frozen=True)
class OptionRef:
    """One option named in a sentence: by letter, ordinal or text."""

    letter: str
    question_id: str | None  # None: a letter that could belong to any question of the batch
    start: int
    end: int
    how: str  # "letter" | "bare letter" | "ordinal" | "text"


@dataclass(frozen=True)
class QuestionRef:
    question_id: str | None  # None when the reference does not settle which question
    start: int
    end: int


def find_rule_leaks(suggestions: str, questions: list[Question]) -> list[dict]:
    """The ``elimination``, ``disclosure`` and ``pointer`` findings in ``suggestions``."""
    leaks: list[dict] = []
    for sentence in _sentences(suggestions):
        qrefs = question_refs(sentence, questions)
        orefs = option_refs(sentence, questions)
        leaks += _disclosures(sentence, qrefs)
        leaks += _option_leaks(sentence, qrefs, orefs)
    return leaks


def _sentences(text: str) -> list[str]:
    return [m.group(0).strip() for m in _SENTENCE.finditer(text) if m.group(0).strip()]


def question_refs(sentence: str, questions: list[Question]) -> list[QuestionRef]:
    """Where a sentence refers to one of the batch's questions, and to which when it can tell."""
    refs = []
    for m in _QUESTION_REF.finditer(sentence):
        number = m.group("n") or m.group("q") or m.group("h")
        index: int | None
        if number:
            index = int(number) if number.isdigit() else _NUMBER_WORDS[number.lower()]
        elif m.group("o"):
            index = len(questions) if m.group("o").lower() == "last" else _ORDINALS[m.group("o").lower()]
        else:
            index = _topic_index(m.group("topic"), questions)
            if index is None and not _names_a_topic(m.group("topic")):
                continue
        qid = questions[index - 1].id if index and 1 <= index <= len(questions) else None
        refs.append(QuestionRef(qid, m.start(), m.end()))
    return refs


def _names_a_topic(words: str) -> bool:
    """"the rash question" refers to a question; "the same question", "the next case" do not say which."""
    return words.lower().split()[-1] not in {"same", "next", "other", "following", "above", "previous", "whole", "each", "every"}


def _topic_index(topic: str, questions: list[Question]) -> int | None:
    """The one question whose text shares a word stem with ``topic`` ("the rash question")."""
    stems = [w[:5] for w in re.findall(r"[a-z]{4,}", topic.lower())]
    hits = []
    for i, q in enumerate(questions, 1):
        text = " ".join([q.question, *(q.options or {}).values()]).lower()
        if stems and any(re.search(r"\b" + re.escape(s), text) for s in stems):
            hits.append(i)
    return hits[0] if len(hits) == 1 else None


def option_refs(sentence: str, questions: list[Question]) -> list[OptionRef]:
    """Every option of the batch that ``sentence`` names."""
    letters = {letter.upper() for q in questions for letter in (q.options or {})}
    if not letters:
        return []
    refs: list[OptionRef] = []
    explicit_spans = []
    for m in _EXPLICIT.finditer(sentence):
        for lm in re.finditer(r"[A-Z]", m.group("ls")):
            if lm.group(0) in letters:
                pos = m.start("ls") + lm.start()
                refs.append(OptionRef(lm.group(0), None, pos, pos + 1, "letter"))
        explicit_spans.append(m.span())
    for m in _LETTER_TOKEN.finditer(sentence):
        letter = m.group("l")
        if letter not in letters or any(lo <= m.start() < hi for lo, hi in explicit_spans):
            continue
        if m.group(0).startswith("(") and m.group(0).endswith(")"):
            refs.append(OptionRef(letter, None, m.start(), m.end(), "letter"))
        elif _reads_as_letter(sentence, m.start(), m.end()):
            refs.append(OptionRef(letter, None, m.start(), m.end(), "bare letter"))
    for m in _ORDINAL_OPTION.finditer(sentence):
        refs += _ordinal_refs(m, questions)
    refs += _text_refs(sentence, questions)
    return refs


def _reads_as_letter(sentence: str, start: int, end: int) -> bool:
    """Whether a lone capital reads as an option letter rather than part of a name or an article."""
    before = _WORD_BEFORE.search(sentence[:start])
    if before and before.group(1).lower() in _NAMING and sentence[before.end(1) : start].strip() in ("", "-"):
        return False
    nxt = _NEXT_WORD.match(sentence[end:])
    if nxt is None:
        return True
    word = nxt.group(1)
    if word[0].isupper() and len(word) == 1:  # "B and A", "A, B"
        return True
    return word[0].islower() and re.fullmatch(_GOES_ON, word) is not None


def _ordinal_refs(m: re.Match, questions: list[Question]) -> list[OptionRef]:
    refs = []
    for q in questions:
        letters = list(q.options or {})
        if not letters:
            continue
        index = len(letters) if m.group("o").lower() == "last" else _ORDINALS[m.group("o").lower()]
        if 1 <= index <= len(letters):
            refs.append(OptionRef(letters[index - 1], None, m.start(), m.end(), "ordinal"))
    return refs[:1] if len({r.letter for r in refs}) == 1 else refs


def _text_refs(sentence: str, questions: list[Question]) -> list[OptionRef]:
    """Option texts named in full, not as part of a longer option of the same question."""
    folded = sentence.casefold()
    refs = []
    for q in questions:
        options = q.options or {}
        for letter, text in options.items():
            if not identifying(text):
                continue
            longer = [o for other, o in options.items() if other != letter and text.casefold() in o.casefold()]
            covered = [mm.span() for o in longer for mm in mention(o).finditer(folded)]
            for mm in mention(text).finditer(folded):
                if not any(lo <= mm.start() and mm.end() <= hi for lo, hi in covered):
                    refs.append(OptionRef(letter, q.id, mm.start(), mm.end(), "text"))
    return refs


def identifying(text: str) -> bool:
    """Whether an answer or option text is specific enough that its mention gives it away."""
    norm = normalize_phrase(text)
    return len(norm.replace(" ", "")) >= _MIN_ANSWER_CHARS and norm not in _GENERIC_ANSWERS


@functools.lru_cache(maxsize=16_384)  # re's own cache holds 512: a large run names thousands of options
def mention(text: str) -> re.Pattern:
    """Case-folded whole-word occurrences of ``text``, with any white space between its words."""
    words = [re.escape(w) for w in text.casefold().split()]
    return re.compile(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)")


def _words_between(sentence: str, lo: int, hi: int) -> int:
    return len(re.findall(r"[\w'’-]+", sentence[lo:hi])) if hi > lo else 0


def _cue_before(pattern: re.Pattern, sentence: str, ref: OptionRef) -> re.Match | None:
    hits = [m for m in pattern.finditer(sentence[: ref.start]) if _words_between(sentence, m.end(), ref.start) <= _MAX_GAP_WORDS]
    return hits[-1] if hits else None


def _cue_after(pattern: re.Pattern, sentence: str, ref: OptionRef) -> re.Match | None:
    m = pattern.search(sentence, ref.end)
    return m if m and _words_between(sentence, ref.end, m.start()) <= _MAX_GAP_WORDS else None


def _option_leaks(sentence: str, qrefs: list[QuestionRef], orefs: list[OptionRef]) -> list[dict]:
    """An option named with an elimination cue is an elimination; with a choice cue, next to a
    question, or as an explicit letter, a pointer. Bare letters need a cue or a question."""
    leaks = []
    named_question = next((r.question_id for r in qrefs if r.question_id), None)
    for ref in orefs:
        qid = ref.question_id or named_question
        if (
            _cue_before(_NEG_BEFORE, sentence, ref)
            or _NEG_ADJACENT.search(sentence[: ref.start])
            or _cue_after(_NEG_AFTER, sentence, ref)
        ):
            leaks.append(_finding(qid, "elimination", sentence))
        elif (
            qrefs
            or ref.how in ("letter", "ordinal")
            or _cue_before(_POS_BEFORE, sentence, ref)
            or _cue_after(_POS_AFTER, sentence, ref)
        ):
            leaks.append(_finding(qid, "pointer", sentence))
    return leaks


_YOUR_ANSWER = r"\byour\s+(?:[\w-]+\s+){0,2}?(?:answers?|choices?|responses?|picks?|selections?|repl(?:y|ies)|guess(?:es)?)\b"
_VERDICT = r"(?:wrong|incorrect|right|correct|mistaken|a\s+mistake|an\s+error|off|fine|good|accurate|inaccurate|spot\s+on|false|true)"
_VERDICT_ADV = r"(?:right|wrong(?:ly)?|correct(?:ly)?|incorrect(?:ly)?|well|badly|mistakenly)"
_HEDGE = re.compile(r"(?i)\b(?:sure|ensure|check|checking|verify|confirm|whether|if|until|unless|so\s+that)\s+(?:that\s+)?$")
_DISCLOSURES = [
    # "your answer to question 1 was wrong", "only your second answer was correct"
    re.compile(r"(?i)" + _YOUR_ANSWER + r"[^.;]{0,40}?\b(?:was|were|is|are)\s+(?:\w+\s+){0,2}?" + _VERDICT + r"\b"),
    # "you got Q2 right", "you answered the thyroid question correctly"
    re.compile(r"(?i)\byou\s+(?:got|had|answered|chose|picked|selected|marked|handled|solved)\b[^.;]{0,50}?\b" + _VERDICT_ADV + r"\b"),
    # "you were right about the rash question"
    re.compile(r"(?i)\byou\s+(?:were|was)\s+(?:\w+\s+)?(?:right|wrong|correct|incorrect|mistaken)\s+(?:on|about|for|in|with)\b"),
]
_NEEDS_QUESTION = [
    # "you missed the first question", "you erred on Q2"
    re.compile(r"(?i)\byou\s+(?:missed|erred\s+on|failed|slipped\s+on|blew|nailed|aced)\s+$"),
    # "keep your answer to question 2", "reconsider your answer for Q1"
    re.compile(
        r"(?i)\b(?:keep|stick\s+with|(?:don't|do\s+not)\s+change|change|revise|reconsider|switch|flip|rethink|fix|correct)\s+"
        r"your\s+(?:\w+\s+)?(?:answers?|choices?|responses?)\s+(?:to|for|on|in)\s+$"
    ),
]
_QUESTION_VERDICT = re.compile(
    r"(?i)^\s*(?:(?:was|were|is)\s+(?:answered\s+|got\s+|handled\s+)?" + _VERDICT_ADV + r"|\s*[:=\-–—]\s*" + _VERDICT + r"\b)"
)


def _disclosures(sentence: str, qrefs: list[QuestionRef]) -> list[dict]:
    """Whether the target's seed answers were right or wrong, said outright."""
    qid = next((r.question_id for r in qrefs if r.question_id), None)
    for pattern in _DISCLOSURES:
        for m in pattern.finditer(sentence):
            if not _HEDGE.search(sentence[: m.start()]):
                return [_finding(qid, "disclosure", sentence)]
    for ref in qrefs:
        before, after = sentence[: ref.start], sentence[ref.end :]
        if any(p.search(before) for p in _NEEDS_QUESTION) or _QUESTION_VERDICT.match(after):
            return [_finding(ref.question_id, "disclosure", sentence)]
    return []


def _finding(question_id: str | None, kind: str, evidence: str) -> dict:
    return {"question_id": question_id, "kind": kind, "evidence": evidence}
