"""The batch's questions as the rules read them: which one a sentence refers to ("question 2",
"the rash question"), and what each asks for ("drug" in "Which drug should be started?")."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from judgeagent.data.benchmark import Question
from judgeagent.stages.leak_normalize import fold, stem, tokens
from judgeagent.stages.leak_rules.text import STOP
from judgeagent.stages.leak_rules.vocabulary import words

ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "top": 1}
NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_QUESTION_NOUN = r"(?:questions?|items?|cases?|vignettes?|problems?|patients?|ones?)"
# A topic word of "the rash question"; "the answer to question 3" has none.
_TOPIC_WORD = r"(?!(?:to|of|for|in|on|at|with|about|from|by|and|or|answer|answers|same|next|other|whole)\b)[a-z][\w'’-]+"
_QUESTION_REF = re.compile(
    r"(?i)\b(?:(?:question|item|case|vignette|problem)\s*(?:#|no\.?|number)?\s*(?P<n>\d+|one|two|three|four|five|six)\b"
    r"|q\.?\s*(?P<q>\d+)\b"
    r"|#(?P<h>\d+)\b"
    r"|the\s+(?P<o>first|second|third|fourth|fifth|sixth|last)\s+" + _QUESTION_NOUN + r"\b"
    r"|the\s+(?P<topic>" + _TOPIC_WORD + r"(?:\s+" + _TOPIC_WORD + r"){0,3})\s+(?:question|vignette|case|answer|date)\b)"
)


@dataclass(frozen=True)
class QuestionRef:
    question_id: str | None  # None when the reference does not settle which question
    start: int
    end: int


def asked_in(sentence: str, questions: list[Question]) -> str | None:
    """The one question whose asked-for noun ("battle", "layer") the sentence uses, if one."""
    words = {stem(w) for w in re.findall(r"[a-z]+", fold(sentence))}
    hit = [q.id for q in questions if {stem(n) for n in asked_for(q.question)} & words]
    return hit[0] if len(hit) == 1 else None


# A question about a person: "Who wrote ...?", "Which Prussian statesman ...?".
PERSON_NOUNS = words("person_nouns")

# What a question asks for: the noun after its "which"/"what".
_WH_NOUN = re.compile(r"(?i)\b(?:which|what)\s+(?:(?:is|was|are|were)\s+(?:the|a|an)\s+)?((?:[a-z][\w-]*\s+){0,3}[a-z][\w-]*)")
# Where the noun phrase after "which"/"what" ends, and the words in it that are not its noun.
_NP_END = words("noun_phrase_ends")
_NOT_NOUN = words("not_asked_nouns")


@functools.lru_cache(maxsize=4096)
def asked_for(question: str) -> frozenset[str]:
    """The nouns a question asks for: "drug" in "Which drug should be started?", "diagnosis" in
    "What is the most likely diagnosis?" (each word of the phrase up to its verb: harmless when
    one is not the noun, since no advice writes "the produces is")."""
    nouns: set[str] = set()
    for m in _WH_NOUN.finditer(question):
        for word in m.group(1).lower().split():
            if word in _NP_END:
                break
            if word not in _NOT_NOUN and len(word) >= 3:
                nouns.add(word)
    return frozenset(nouns)


def asks_for_a_person(question: str) -> bool:
    return re.search(r"(?i)\bwho(?:m|se)?\b", question) is not None or bool(asked_for(question) & PERSON_NOUNS)


def question_refs(sentence: str, questions: list[Question]) -> list[QuestionRef]:
    """Where a sentence refers to one of the batch's questions, and to which when it can tell."""
    refs = []
    for m in _QUESTION_REF.finditer(sentence):
        number = m.group("n") or m.group("q") or m.group("h")
        index: int | None
        if number:
            index = int(number) if number.isdigit() else NUMBER_WORDS[number.lower()]
        elif m.group("o"):
            index = len(questions) if m.group("o").lower() == "last" else ORDINALS[m.group("o").lower()]
        else:
            index = _topic_index(m.group("topic"), questions)
        qid = questions[index - 1].id if index and 1 <= index <= len(questions) else None
        refs.append(QuestionRef(qid, m.start(), m.end()))
    return refs


def _topic_index(topic: str, questions: list[Question]) -> int | None:
    """The one question whose text shares a word stem with ``topic`` ("the rash question")."""
    stems = [t for t in tokens(topic) if len(t) >= 4 and t not in STOP]
    hits = []
    for i, q in enumerate(questions, 1):
        text = set(tokens(" ".join([q.question, q.answer if not q.options else "", *(q.options or {}).values()])))
        if any(s in text or any(w.startswith(s[:5]) for w in text if len(s) >= 5) for s in stems):
            hits.append(i)
    return hits[0] if len(hits) == 1 else None


# A reading passage quoted before the question ("Passage: '...' How far in advance ..."): what
# it says is what the question asks the reader to find, not data to work with.
_PASSAGE = re.compile(r"^\s*Passage:")
# Where the passage ends: "Question:", or its closing quote before the question's last sentence.
_PASSAGE_END = re.compile(r"\n\s*Question:\s*|['\"’”]\s+(?=[A-Z][^?]*\?\s*$)")


def question_data(stem: str) -> str:
    """The text of a question whose values are data to work with: its passage left out."""
    if not _PASSAGE.match(stem):
        return stem
    ends = list(_PASSAGE_END.finditer(stem))
    return stem[ends[-1].end() :] if ends else stem
