"""Even enumerations of a question's options, in the judge's own short forms.

A judge often lists every option before asking the target to weigh each: "Read all five
statements: heat treatment, lactose removal, evaporating water, adding vitamins, changing fat
globule size", "The five options describe five behaviours: stopping before the markings, ...".
Such a list singles out none of them, but its items are short forms the rules cannot tie to one
option each, so a rule that recognises one item as the correct option's text (or a word of it
as a position or a verdict) reads it as named alone. Judges write such lists as clean advice.

:func:`without_even_lists` hides the items of such a list from the rules. A list is even when
the sentence counts as many things as a question of the batch has options ("all five", "the
four statements", "each of the five") and then lists at least that many less one. Only the
items are hidden, each on its own, so whatever the sentence says around the list ("..., and
the last one is right") is still read, and so is an item that carries a verdict of its own. The
same list is sometimes a run of short questions, one per option, after a sentence that asks of
every option; those questions are hidden too.
"""

from __future__ import annotations

import re

from judgeagent.data.benchmark import Question
from judgeagent.stages.leak_normalize import tokens
from judgeagent.stages.leak_rules import sentences
from judgeagent.stages.leak_rules.mentions import mentions_phrase
from judgeagent.stages.leak_rules.text import identifying
from judgeagent.stages.leak_rules.vocabulary import alternation

_COUNTS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7}
# A count of the options, then (within a few words) where the list begins: a colon, a dash, an
# opening bracket, or a comma after the counted noun ("Five statements, each leaning on ...").
# (a digit is a count only standing alone: "4" of "4,800 litres" or of the ratio "4:3" is no count
# of four options)
_COUNTED = re.compile(
    r"(?i)\b(?P<n>two|three|four|five|six|seven|(?<![\d.,:/])[2-7](?![.,:/]\d))\b(?P<head>[^:;()\u2014\u2013.!?]{0,70}?)(?P<open>:|\(|\s[\u2014\u2013-]\s|,)"
)
# The counted noun must be a kind of option, or nothing ("Look at all five:").
_OPTION_NOUN = re.compile(r"(?i)\b(?:" + alternation("option_nouns") + r")\b")
# Or no count, but every option: "For each statement, trace what travels from the key to the
# pallet — a pull, an electric current, a change in air pressure, or a fluid — ...".
# Then the list itself must be as long as some question's options, or one short.
_EACH = re.compile(
    r"(?i)\b(?:each|every|all(?:\s+the)?|any)\s+(?:of\s+the\s+)?(?P<noun>\w+)\b(?P<head>[^:;()\u2014\u2013.!?]{0,80}?)(?P<open>:|\s[\u2014\u2013-]\s)"
)
# Items are split at commas, but for the thousands separator of a number ("4,800, 48,000 or ...").
_COMMA = r"(?:,(?!\d{3}\b))"
_ITEM_SPLIT = re.compile(r"\s*(?:" + _COMMA + r"|;)\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+(?=(?:about\s+)?\w)", re.IGNORECASE)
# An item that says something of itself is not hidden: a verdict, a pointer or a claim.
_SAYS = re.compile(
    r"(?i)\b(?:right|correct|wrong|incorrect|true|false|best|answer|rule[sd]?\s+out|eliminat\w*|survives?|wins?|fits?|"
    r"works?|holds?|is|are|was|were|one|first|second|third|fourth|fifth|last|likel\w+|obvious\w*)\b"
)
HIDDEN = "item"


def _option_counts(questions: list[Question]) -> set[int]:
    return {len(q.options) for q in questions if q.options}


def even_list(sentence: str, questions: list[Question]) -> tuple[int, int] | None:
    """Where the items of an even enumeration of some question's options lie in ``sentence``."""
    counts = _option_counts(questions)
    for m in _COUNTED.finditer(sentence):
        word, head = m.group("n").lower(), m.group("head")
        n = int(word) if word.isdigit() else _COUNTS[word]
        # an adverb is no noun: "Evaluate all five evenly - dredging, masonry walls, ..."
        head = " ".join(w for w in head.split() if not w.lower().endswith("ly"))
        if n not in counts or len(head.split()) > 6 or (head.strip() and not _OPTION_NOUN.search(head)):
            continue
        start = m.end()
        colon = sentence.find(":", start, start + 60)
        if m.group("open") == "," and colon >= 0:  # "Five statements, each on one property: ..."
            start = colon + 1
        opener = m.group("open").strip()
        closer = ")" if opener == "(" else opener if opener in ("\u2014", "\u2013", "-") else ""
        end = sentence.find(closer, start) if closer else _dash(sentence, start)
        end = len(sentence) if end < 0 else end
        items = [x for x in _ITEM_SPLIT.split(sentence[start:end]) if x.strip()]
        if len(items) >= max(3, n - 1):
            return start, end
    for m in _EACH.finditer(sentence):
        if not _OPTION_NOUN.fullmatch(m.group("noun")):
            continue
        start, opener = m.end(), m.group("open").strip()
        end = sentence.find(opener, start) if opener != ":" else -1
        end = len(sentence) if end < 0 else end
        items = [x for x in _ITEM_SPLIT.split(sentence[start:end]) if x.strip()]
        if any(max(3, n - 1) <= len(items) <= n for n in counts):
            return start, end
    return None


def _dash(sentence: str, start: int) -> int:
    """Where a list that opened without a dash ends at one: "..., or no deadline — tie each to
    a sentence" goes on with advice after the dash, not with an item."""
    m = re.compile(r"\s[\u2014\u2013-]\s").search(sentence, start)
    return m.start() if m else len(sentence)


def _hide_items(span: str, questions: list[Question]) -> str:
    parts = re.split(r"(\s*(?:" + _COMMA + r"|;)\s*(?:(?:and|or)\s+)?|\s+(?:and|or)\s+)", span)
    return "".join(p if i % 2 or not p.strip() or (_SAYS.search(p) and not _option_own(p, questions)) or re.fullmatch(r"\s*[A-Z]\s*", p)
                   or (_phrase_answer(p, questions) and not _option_own(p, questions)) else HIDDEN for i, p in enumerate(parts))


def _option_own(item: str, questions: list[Question]) -> bool:
    """Whether every word of ``item`` is a word of one option: then its "second" or "right" is
    the option's own ("the second tine from the right" of "On the second tine in from the right
    edge"), no place or verdict said of it."""
    words = set(tokens(item))
    return bool(words) and any(words <= set(tokens(text)) for q in questions for text in (q.options or {}).values())


def _phrase_answer(item: str, questions: list[Question]) -> bool:
    """Whether the item names the answer of a question without options: a list of terms with
    the answer among them ("one of these four: spore, hypha, mycelium, sporangium") is a shortlist
    of a question that has none, not an even list of options. (Unless the item is in an option's
    own words: "the heddle rod" listed among five options, one of them "The heddle rod pressing
    down on the warp", names that option, which the target is shown.)"""
    return any(not q.options and identifying(q.answer) and mentions_phrase(item, q.answer, q.question) for q in questions)


def hide_even_list(sentence: str, questions: list[Question]) -> str:
    """``sentence`` with the items of its even enumeration, if any, replaced by ``item``."""
    where = even_list(sentence, questions)
    if where is None:
        return sentence
    start, end = where
    body = sentence[start:end].rstrip()
    stop = len(body) - len(body.rstrip(".!?"))
    return sentence[:start] + " " + _hide_items(body[: len(body) - stop], questions).strip() + body[len(body) - stop :] + sentence[end:]


# The same list spread over sentences: one asking of every option, then a run of short questions,
# one per option ("Read every option against the notice. Is a week-ahead booking required? Two
# household members? The donation? ..."). Each question names one option, as the items of a list
# do, and none says more of it than the others.
_OF_EVERY = re.compile(
    r"(?i)\b(?:each|every|all(?:\s+the)?)\s+(?:(?:three|four|five|six)\s+)?(?:\w+\s+)?(?:" + alternation("option_nouns") + r")\b"
    r"|\ball\s+(?:three|four|five|six)\b"
)
_RUN = 3  # questions in a run: fewer are a comparison, not every option
# (a question that calls one option right is a hint, not an item)
_VERDICT_ASKED = re.compile(r"(?i)\b(?:right|correct|wrong|incorrect|best|answer|obvious\w*|clearly)\b")


def _question_runs(text: str) -> list[str]:
    """The questions of each run that follows a sentence asking of every option."""
    said = sentences(text)
    runs: list[str] = []
    for i, sentence in enumerate(said):
        if not _OF_EVERY.search(sentence):
            continue
        j = i + 1
        while j < len(said) and said[j].rstrip().endswith("?") and not _VERDICT_ASKED.search(said[j]):
            j += 1
        if j - i - 1 >= _RUN:
            runs += said[i + 1 : j]
    return runs


def without_even_lists(text: str, questions: list[Question]) -> str:
    """``text`` with every sentence's even enumeration hidden (sentences split as the rules split
    them), and every run of questions, one per option, after a sentence asking of each."""
    for question in _question_runs(text):
        text = text.replace(question, HIDDEN + "?", 1)
    for sentence in sentences(text):
        hidden = hide_even_list(sentence, questions)
        if hidden != sentence:
            text = text.replace(sentence, hidden, 1)
    return text
