"""Every option a sentence names, by letter, place, number or text: the core the rules read.

Naming is code, not data: a letter is read by what stands around it, a place is counted along
the question's own list, a number is compared by value, a text by its stems
(:mod:`judgeagent.stages.leak_rules.letters`, :mod:`~judgeagent.stages.leak_rules.positions`,
:mod:`~judgeagent.stages.leak_rules.numbers`, :mod:`~judgeagent.stages.leak_rules.quantities`,
:mod:`~judgeagent.stages.leak_rules.mentions`).
"""

from __future__ import annotations

import functools
import re

from judgeagent.data.benchmark import Question
from judgeagent.stages.leak_rules.letters import BETWEEN, EXPLICIT, LETTER_TOKEN, LOWER_EXPLICIT, reads_as_letter
from judgeagent.stages.leak_rules.mentions import text_refs
from judgeagent.stages.leak_rules.numbers import number_refs
from judgeagent.stages.leak_rules.positions import FIRST_TO_LAST, ORDINAL_OPTION, STRUCK_PLACES, list_places, list_positions, ordinal_refs
from judgeagent.stages.leak_rules.quantities import quantity_refs
from judgeagent.stages.leak_rules.refs import OptionRef


def option_refs(sentence: str, questions: list[Question]) -> list[OptionRef]:
    """Every option of the batch that ``sentence`` names."""
    return list(_cached_option_refs(sentence, _Batch(questions)))


class _Batch:
    """A batch's questions, hashed and compared by what the rules read of them (id, text, answer,
    options), so that what a sentence names can be cached across calls."""

    __slots__ = ("questions", "key", "hash")

    def __init__(self, questions: list[Question]) -> None:
        self.questions = questions
        self.key = tuple((q.id, q.question, q.answer, None if q.options is None else tuple(q.options.items())) for q in questions)
        self.hash = hash(self.key)

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Batch) and self.key == other.key


# One check asks this of each sentence several times (the option_text check once per question with
# options, then the rules), and the learned layer's check of each sentence alone asks it again.
@functools.lru_cache(maxsize=4096)
def _cached_option_refs(sentence: str, batch: _Batch) -> tuple[OptionRef, ...]:
    return tuple(_option_refs(sentence, batch.questions))


def _option_refs(sentence: str, questions: list[Question]) -> list[OptionRef]:
    letters = {letter.upper() for q in questions for letter in (q.options or {})}
    if not letters:
        return []
    refs: list[OptionRef] = []
    explicit_spans = []
    for m in EXPLICIT.finditer(sentence):
        if re.match(r"\s*(?:to|through|thru|–|-)\s*\(?[A-Z]\)?(?![\w'’])", sentence[m.end() :]):
            explicit_spans.append((m.start(), m.end() + 12))  # "options A to E": a range, every option
            continue
        for lm in re.finditer(r"[A-Z]", m.group("ls")):
            if lm.group(0) in letters:
                pos = m.start("ls") + lm.start()
                refs.append(OptionRef(lm.group(0), None, pos, pos + 1, "letter"))
        explicit_spans.append(m.span())
    for m in LOWER_EXPLICIT.finditer(sentence):
        letter = m.group("l").upper()
        if letter in letters:
            refs.append(OptionRef(letter, None, m.start("l"), m.end("l"), "letter"))
    # "anything between A and E": the whole list of a question, no letter singled out
    lasts = {list(q.options)[-1] for q in questions if q.options}
    spans_all = [m.span() for m in BETWEEN.finditer(sentence) if m.group(1) == "A" and m.group(2) in lasts]
    for m in LETTER_TOKEN.finditer(sentence):
        letter = m.group("l")
        if letter not in letters or any(lo <= m.start() < hi for lo, hi in explicit_spans + spans_all):
            continue
        if m.group(0).startswith("(") and m.group(0).endswith(")"):
            refs.append(OptionRef(letter, None, m.start(), m.end(), "letter"))
        elif reads_as_letter(sentence, m.start(), m.end()):
            refs.append(OptionRef(letter, None, m.start(), m.end(), "bare letter"))
    if not FIRST_TO_LAST.search(sentence):
        for m in ORDINAL_OPTION.finditer(sentence):
            # "keep the final answer itself crisp": the answer the target commits to
            if re.fullmatch(r"(?i)(?:the\s+)?final\s+answers?", m.group(0).strip()):
                continue
            refs += ordinal_refs(m, questions)
        for m in STRUCK_PLACES.finditer(sentence):
            refs += ordinal_refs(m, questions)
    refs += list_positions(sentence, questions)
    if not FIRST_TO_LAST.search(sentence):
        refs += list_places(sentence, questions)
    refs += text_refs(sentence, questions)
    refs += number_refs(sentence, questions)
    # A quantity read whole ("three and a half parts copper to one part tin": 7:2) outranks
    # what its words name alone ("three": the option 3:2).
    quantities = quantity_refs(sentence, questions)
    refs = [r for r in refs if not any(q.start <= r.start and r.end <= q.end and (q.end - q.start) > (r.end - r.start)
                                       and q.question_id == r.question_id and q.letter != r.letter for q in quantities)]
    return refs + quantities
