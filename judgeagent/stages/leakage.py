"""The leakage guard: suggestions must guide the target, never hand it the answers.

The judge sees the correct answers when it writes its suggestions, and the target re-answers
the very same seed questions with them, so a suggestion that states an answer turns ΔACC
into a measure of copying. :func:`find_leaks` looks for four kinds of give-away;
:func:`guard_suggestions` asks the judge once to rewrite leaking suggestions and flags the
batch when the rewrite still leaks.

Choices, each made to keep false alarms low without letting plain give-aways through:

* ``answer_letter``: any explicit letter statement ("the answer is C", "option C is
  correct") naming one of the batch's option letters is a leak, whether or not it is a
  correct letter: in a batch of several questions it tells the target something about some
  question, and honest advice has no reason to name a letter at all. It is attributed to the
  questions whose correct letter it names, or to ``question_id`` None when it names none.
* ``option_text`` / ``reference_phrase``: the correct answer verbatim. Texts too short or too
  generic to identify anything ("no", "none of the above") are skipped, and a mention that is
  part of a longer option's text ("pulmonary hypertension" when the answer is
  "hypertension") does not count. A yes/no reference is caught only when the suggestions
  state "the answer is yes/no", since those words occur in any advice.
* ``embedding``: a sentence whose cosine to the correct answer's text (the option text, or
  the reference phrase) reaches the threshold and is closer to it than to every distractor.
  The answer text alone, not question + answer, because a sentence that merely restates a
  question's topic would be close to question + answer without revealing anything.
  With MiniLM, short sentences naming the answer ("It was Jeff Bezos.") score about 0.83,
  topical advice without it about 0.4, so 0.85 catches only near-restatements; a
  description that implies the answer without naming it is beyond any of these checks.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from judgeagent.data.benchmark import Question
from judgeagent.graph.embed_queue import EmbeddingQueue, embed
from judgeagent.prompts import messages, render
from judgeagent.stages.answers import normalize_phrase

LEAK_KINDS = ("option_text", "answer_letter", "reference_phrase", "embedding")

LEAK_REWRITE = {
    "type": "object",
    "properties": {"suggestions": {"type": "string"}},
    "required": ["suggestions"],
}

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

# An option letter ending a give-away phrase: "(C)", or a bare capital not followed by a
# lower-case word unless that word just goes on the sentence ("C because ..."): "select B
# cells" and "choose A drug" are English, not letters.
_GOES_ON = r"(?:because|since|for|as|in|on|and|or|but|so|here|there|which|this|that|to|is|was)\b"
_LETTER_END = r"(?:\((?P<paren>[A-Z])\)|(?P<letter>[A-Z])(?![\w'’-])(?!\s+(?!" + _GOES_ON + r")[a-z]))"
_CORRECT_AFTER = r"(?i:\s+(?:is|was)\s+(?:the\s+)?(?:correct|right|best|true|answer)\b)"
_LETTER_PATTERNS = [
    # "the answer is C", "correct answer: (C)", "the answer to question 2 is option C"
    re.compile(
        r"(?i:\banswers?(?:\s+(?:to|for)\s+(?:question\s*)?#?\d+)?\s*(?:is|was|would\s+be|should\s+be|=|:)\s*"
        r"(?:probably\s+|likely\s+|clearly\s+|definitely\s+)?(?:option\s+|choice\s+|letter\s+)?)" + _LETTER_END
    ),
    # "choose C", "pick option (C)", "go with C"
    re.compile(
        r"(?i:\b(?:choose|pick|select|go\s+with|mark|opt\s+for|circle)\s+(?:option\s+|choice\s+|letter\s+)?)"
        + _LETTER_END
    ),
    # "option C is correct", "choice (B) is the right answer"
    re.compile(r"(?i:\b(?:option|choice|letter)\s+)\(?(?P<letter>[A-Z])\)?" + _CORRECT_AFTER),
    # "(C) is right" anywhere; "C is the correct answer" only opening a sentence, since
    # "Vitamin C is the best source" is not about a letter.
    re.compile(r"\((?P<letter>[A-Z])\)" + _CORRECT_AFTER),
    re.compile(r"(?:^|(?<=[.!?:;\n])\s*)(?P<letter>[A-Z])(?i:\s+is\s+(?:the\s+)?(?:correct|right)\b)"),
]
_YES_NO_PATTERN = re.compile(r"\banswers?\s*(?:is|was|would\s+be|should\s+be|=|:)\s*[\"'“]?(yes|no)\b", re.I)
_PUNCT_AS_SPACE = re.compile(r"[^\w\s]")
_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+")


def _identifying(text: str) -> bool:
    """Whether an answer text is specific enough that its mention gives it away."""
    norm = normalize_phrase(text)
    return len(norm.replace(" ", "")) >= _MIN_ANSWER_CHARS and norm not in _GENERIC_ANSWERS


def _mention(text: str) -> re.Pattern:
    """Case-folded whole-word occurrences of ``text``, with any white space between its words."""
    words = [re.escape(w) for w in text.casefold().split()]
    return re.compile(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)")


def _option_text_leaks(folded: str, q: Question) -> list[dict]:
    correct = (q.options or {}).get(q.answer)
    if not correct or not _identifying(correct):
        return []
    # A mention inside a longer option that contains the answer points at that option instead.
    covered = [
        m.span()
        for letter, other in q.options.items()
        if letter != q.answer and correct.casefold() in other.casefold() and other.strip()
        for m in _mention(other).finditer(folded)
    ]
    for m in _mention(correct).finditer(folded):
        if not any(lo <= m.start() and m.end() <= hi for lo, hi in covered):
            return [_leak(q.id, "option_text", correct)]
    return []


def _reference_leaks(suggestions: str, q: Question) -> list[dict]:
    ref = normalize_phrase(q.answer)
    if ref in ("yes", "no"):
        m = next((m for m in _YES_NO_PATTERN.finditer(suggestions) if m.group(1).lower() == ref), None)
        return [_leak(q.id, "reference_phrase", m.group(0))] if m else []
    if not _identifying(q.answer):
        return []
    refs, texts = _phrase_forms(q.answer), _phrase_forms(suggestions)
    if any(f" {ref} " in f" {text} " for ref in refs for text in texts):
        return [_leak(q.id, "reference_phrase", q.answer)]
    return []


def _phrase_forms(text: str) -> set[str]:
    """The text normalised with punctuation dropped ("U.S." → "us") and, so that "Bezos's"
    still names "Bezos", with punctuation read as a space."""
    return {normalize_phrase(text), normalize_phrase(_PUNCT_AS_SPACE.sub(" ", text))}


def _letter_leaks(suggestions: str, questions: list[Question]) -> list[dict]:
    mc = [q for q in questions if q.options]
    letters = {letter.upper() for q in mc for letter in q.options}
    leaks = []
    for pattern in _LETTER_PATTERNS:
        for m in pattern.finditer(suggestions):
            letter = m.groupdict().get("paren") or m.group("letter")
            if letter not in letters:
                continue
            named = [q.id for q in mc if q.answer.upper() == letter] or [None]
            leaks.extend(_leak(qid, "answer_letter", m.group(0).strip()) for qid in named)
    return leaks


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in _SENTENCE_END.split(text) if s.strip()]


def _embedding_texts(suggestions: str, questions: list[Question]) -> tuple[list[str], list[Question], list[str]]:
    """The suggestion sentences, the questions with an identifying answer, and every text to
    embed: the sentences, then per question its answer text and its distractors."""
    sentences = _sentences(suggestions)
    targets = [q for q in questions if _identifying(q.answer_text)]
    if not sentences or not targets:
        return sentences, targets, []
    return sentences, targets, sentences + answer_texts(targets)


def answer_texts(questions: list[Question]) -> list[str]:
    """What the ``embedding`` check compares suggestion sentences with: per question with an
    identifying answer, its answer text, then its distractors."""
    return [t for q in questions if _identifying(q.answer_text) for t in (q.answer_text, *_distractors(q))]


def prime_guard(embedder: Any, questions: list[Question]) -> None:
    """Embed the answer texts of ``questions`` now, in one pass before the batches run.

    They are known up front; left to the guard, they would be embedded between a batch's
    feedback and its re-ask, on the batch's critical path, and the first batches would all
    embed theirs in the same pass.
    """
    if isinstance(embedder, EmbeddingQueue):
        embedder.encode(answer_texts(questions))


def _distractors(q: Question) -> list[str]:
    return [t for letter, t in (q.options or {}).items() if letter != q.answer and t.strip()]


def _embedding_leaks(suggestions: str, questions: list[Question], embedder: Any, threshold: float) -> list[dict]:
    sentences, targets, texts = _embedding_texts(suggestions, questions)
    if not texts:
        return []
    vecs = np.asarray(embedder.encode(texts), dtype=np.float32)  # one encode call for everything
    sims = vecs[: len(sentences)] @ vecs[len(sentences) :].T
    leaks = []
    answer = 0  # column of the current question's answer text in ``sims``
    for q in targets:
        n_distractors = len(_distractors(q))
        to_answer = sims[:, answer]
        # A sentence at least as close to a distractor is about the topic, not the answer.
        to_others = sims[:, answer + 1 : answer + 1 + n_distractors]
        closest_other = to_others.max(axis=1) if to_others.shape[1] else -1.0
        for i in np.flatnonzero((to_answer >= threshold) & (to_answer > closest_other)):
            leaks.append(_leak(q.id, "embedding", f"{sentences[i]} (cosine {to_answer[i]:.2f} to the answer)"))
        answer += 1 + n_distractors
    return leaks


def _leak(question_id: str | None, kind: str, evidence: str) -> dict:
    return {"question_id": question_id, "kind": kind, "evidence": evidence}


def find_leaks(
    suggestions: str, questions: list[Question], *, embedder: Any = None, similarity_threshold: float = 0.85
) -> list[dict]:
    """Every way ``suggestions`` give away an answer to ``questions``, as
    ``{"question_id", "kind", "evidence"}`` dicts (kinds in :data:`LEAK_KINDS`), without repeats.

    ``embedder`` (anything with ``encode(texts) -> (n, d)`` L2-normalised rows) adds the
    paraphrase check; without it only verbatim give-aways are found.
    """
    if not suggestions or not suggestions.strip():
        return []
    folded = suggestions.casefold()
    leaks = _letter_leaks(suggestions, questions)
    for q in questions:
        leaks += _option_text_leaks(folded, q) if q.options else _reference_leaks(suggestions, q)
    if embedder is not None:
        leaks += _embedding_leaks(suggestions, questions, embedder, similarity_threshold)
    unique = {(d["question_id"], d["kind"], d["evidence"]): d for d in leaks}
    return list(unique.values())


@dataclass
class LeakCheck:
    """What the guard did to one batch's suggestions."""

    suggestions: str  # the text the target is re-asked with
    leaks_before: list[dict] = field(default_factory=list)
    rewritten: bool = False
    leaks_after: list[dict] = field(default_factory=list)
    flagged: bool = False  # still leaking after the one rewrite (or the rewrite failed)
    rewrite_error: str | None = None

    def to_dict(self) -> dict:
        return asdict(self)


def _describe(leaks: list[dict]) -> str:
    what = {
        "option_text": "states the text of a correct option",
        "answer_letter": "names an answer letter",
        "reference_phrase": "states a reference answer",
        "embedding": "paraphrases a correct answer",
    }
    return "\n".join(f"- {what[d['kind']]}: {d['evidence']}" for d in leaks)


async def _find_leaks_async(suggestions: str, questions: list[Question], embedder: Any, threshold: float) -> list[dict]:
    if embedder is None:
        return find_leaks(suggestions, questions)
    # Embedded first, off the event loop (batched with other batches' texts when the embedder
    # is an EmbeddingQueue); find_leaks then finds every vector in the cache.
    queue = embedder if isinstance(embedder, EmbeddingQueue) else EmbeddingQueue(embedder)
    await embed(queue, _embedding_texts(suggestions, questions)[2])
    return find_leaks(suggestions, questions, embedder=queue, similarity_threshold=threshold)


async def guard_suggestions(
    models: Any, suggestions: str, questions: list[Question], *, embedder: Any = None, threshold: float = 0.85
) -> LeakCheck:
    """Check ``suggestions``; if they leak, have the judge rewrite them once and check again."""
    before = await _find_leaks_async(suggestions, questions, embedder, threshold)
    if not before:
        return LeakCheck(suggestions)
    user = render("leak_rewrite", suggestions=suggestions.strip(), leaks=_describe(before))
    msgs = messages(render("leak_rewrite_system"), user)
    res = await models.ask_judge(msgs, schema=LEAK_REWRITE, stage="leak-rewrite", max_tokens=600)
    rewrite = str(res.data.get("suggestions", "")).strip() if res.ok and isinstance(res.data, dict) else ""
    if not rewrite:
        error = res.error if not res.ok else "empty rewrite"
        return LeakCheck(suggestions, leaks_before=before, leaks_after=before, flagged=True, rewrite_error=error)
    after = await _find_leaks_async(rewrite, questions, embedder, threshold)
    return LeakCheck(rewrite, leaks_before=before, rewritten=True, leaks_after=after, flagged=bool(after))
