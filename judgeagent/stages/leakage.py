"""The leakage guard: suggestions must guide the target, never hand it the answers.

The judge sees the correct answers when it writes its suggestions, and the target re-answers
the very same seed questions with them, so a suggestion that states an answer turns ΔACC
into a measure of copying. :func:`find_leaks` runs the rule layer: the checks on the answer
itself below (the first three declared in :mod:`judgeagent.stages.leak_rules.answer`), then
options named with a judgement, positions, the writer's pick, disclosure of right and wrong
seed answers (every rule an entry of :mod:`judgeagent.stages.leak_rules`, with the examples it
exists for), all on text normalised one way (:mod:`judgeagent.stages.leak_normalize`). With an embedder it adds the semantic layer
(:mod:`judgeagent.stages.leak_semantic`). With ``mode="judge"``,
:func:`guard_suggestions` adds the judge's leak check (:mod:`judgeagent.stages.leak_judge`).
Leaking suggestions are rewritten once by the judge; the batch is flagged when the rewrite
still leaks, or when a judge verdict stays unreadable (``check_failed``: fail closed).
Suggestions that are nothing but option letters ("D.") are flagged without a rewrite: every
word of them is the leak, so there is no advice to keep.

Choices, each made to keep false alarms low without letting plain give-aways through:

* ``answer_letter``: any explicit letter statement ("the answer is C", "option C is
  correct") naming one of the batch's option letters is a leak, whether or not it is a
  correct letter: in a batch of several questions it tells the target something about some
  question, and honest advice has no reason to name a letter at all. It is attributed to the
  questions whose correct letter it names, or to ``question_id`` None when it names none.
* ``option_text`` / ``reference_phrase``: the correct answer named, after normalisation, by
  its whole text or enough of its distinctive words, in a sentence that does not list it
  beside other options (a list singles none out). Texts too short or too generic to
  identify anything ("no", "none of the above") are skipped, and a mention that is part of
  a longer option's text ("pulmonary hypertension" when the answer is "hypertension") does
  not count. A yes/no reference is caught only when the suggestions state "the answer is
  yes/no", since those words occur in any advice.
* ``embedding``: a sentence whose cosine to the correct answer's text (the option text, or
  the reference phrase) reaches the threshold and is closer to it than to every distractor.
  The answer text alone, not question + answer, because a sentence that merely restates a
  question's topic would be close to question + answer without revealing anything.
  With MiniLM, short sentences naming the answer ("It was Jeff Bezos.") score about 0.83,
  topical advice without it about 0.4, so 0.85 catches only near-restatements; a
  description that implies the answer without naming it is left to the semantic layer
  (``semantic``), which catches about a quarter of such descriptions (bench/leak_guard.py).
  Like the semantic layer it reads fp32 vectors on every CPU
  (:mod:`judgeagent.graph.fixed_precision`): bf16 vectors moved these cosines by up to
  0.0021 on the leak corpus, and the nearest one lies 0.0027 from 0.85 (bench/precision.py).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from judgeagent.budgets import LEAK_REWRITE
from judgeagent.config import GuardOptions
from judgeagent.data.benchmark import Question
from judgeagent.graph.embed_queue import EmbeddingQueue, embed
from judgeagent.graph.fixed_precision import decision_embedder
from judgeagent.prompts import messages, render, schemas
from judgeagent.stages import leak_margins
from judgeagent.stages.leak_finding import LeakFinding
from judgeagent.stages.leak_judge import JudgeVerdict, judge_leak_check, resolve_leak_check
from judgeagent.stages.leak_learned import weigh
from judgeagent.stages.leak_lists import without_even_lists
from judgeagent.stages.leak_rules import RULES, find_rule_leaks
from judgeagent.stages.leak_rules import identifying as _identifying
from judgeagent.stages.leak_rules import sentences as rule_sentences
from judgeagent.stages.leak_rules.answer import another_form_leaks, letter_leaks, option_text_leaks, reference_leaks
from judgeagent.stages.leak_semantic import PLACEBO_SENTENCES, semantic_leaks, semantic_texts
from judgeagent.stages.leak_vectors import check_embedder
from judgeagent.stages.models import Models

# The checks on the answer itself: the guard before eliminations, disclosure and pointers.
ANSWER_RULES = ("option_text", "answer_letter", "reference_phrase")
ALL_RULES = ANSWER_RULES + RULES
LEAK_KINDS = ALL_RULES + ("embedding", "semantic", "learned", "judge")
# Written into every LeakCheck; a finished run's records keep what its guard decided. What each
# version changed, and which groups of the leak corpus measured it: docs/concepts/leak-rules.md.
GUARD_VERSION = 68


_SENTENCE_END = re.compile(r"(?<=[.!?;])\s+|\n+")


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


def guard_texts(suggestions: str, questions: list[Question]) -> list[str]:
    """Every text :func:`find_leaks` embeds to check ``suggestions`` against ``questions``,
    each once: the whole's, then each sentence's read alone (by the learned layer, and by the
    check of each sentence for its doubt)."""
    texts = _check_texts(suggestions, questions)
    for sentence in rule_sentences(suggestions):
        texts += _check_texts(sentence, questions)
    return list(dict.fromkeys(texts))


def _check_texts(suggestions: str, questions: list[Question]) -> list[str]:
    return _embedding_texts(suggestions, questions)[2] + semantic_texts(suggestions, questions)


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
    embedder = decision_embedder(embedder)
    if isinstance(embedder, EmbeddingQueue):
        embedder.encode(answer_texts(questions) + list(PLACEBO_SENTENCES) + _option_texts(questions))


def _option_texts(questions: list[Question]) -> list[str]:
    """What the semantic layer compares with besides the answer texts: every option, and, when
    some question has no options, every question's text (a phrase answer is scored beyond the
    closest question text of its batch)."""
    phrase = any(not q.options for q in questions)
    return [t for q in questions for t in [*(q.options or {}).values(), *([q.question] if phrase else [])] if t.strip()]


def _distractors(q: Question) -> list[str]:
    return [t for letter, t in (q.options or {}).items() if letter != q.answer and t.strip()]


def _embedding_leaks(suggestions: str, questions: list[Question], embedder: Any, threshold: float) -> list[LeakFinding]:
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
        leak_margins.note(to_answer, threshold)
        leak_margins.note(to_answer, closest_other)
        for i in np.flatnonzero((to_answer >= threshold) & (to_answer > closest_other)):
            leaks.append(_leak(q.id, "embedding", f"{sentences[i]} (cosine {to_answer[i]:.2f} to the answer)"))
        answer += 1 + n_distractors
    return leaks


def _leak(question_id: str | None, kind: str, evidence: str) -> LeakFinding:
    return LeakFinding(question_id, kind, evidence)


def find_leaks(
    suggestions: str,
    questions: list[Question],
    *,
    embedder: Any = None,
    similarity_threshold: float = 0.85,
    rules: tuple[str, ...] = ALL_RULES,
    semantic: bool = True,
    learned: bool = True,
) -> list[LeakFinding]:
    """Every way ``suggestions`` give away an answer to ``questions``, as findings (kinds in
    :data:`LEAK_KINDS`; the kind is the rule that fired), without repeats.

    ``rules`` picks the rules (:data:`ANSWER_RULES` alone is the guard as it was before the
    elimination, disclosure and pointer rules). ``embedder`` (anything with
    ``encode(texts) -> (n, d)`` L2-normalised rows) adds the paraphrase check and, unless
    ``semantic`` is False, the semantic layer (:mod:`judgeagent.stages.leak_semantic`); and
    unless ``learned`` is False (or ``semantic`` is), the learned layer weighs all their
    findings (:mod:`judgeagent.stages.leak_learned`).
    """
    if not suggestions or not suggestions.strip():
        return []
    # The rules read every option listed evenly in the judge's short forms as one item among
    # others (leak_lists); the semantic and learned layers read the text as written.
    ruled = without_even_lists(suggestions, questions)
    # The answer stated outright (leak_rules.answer), question by question, then the other rules.
    leaks = letter_leaks(ruled, questions) if "answer_letter" in rules else []
    for q in questions:
        if q.options and "option_text" in rules:
            leaks += option_text_leaks(ruled, q, questions)
        elif not q.options and "reference_phrase" in rules:
            leaks += reference_leaks(ruled, q, questions)
    if "reference_phrase" in rules:
        leaks += another_form_leaks(ruled, questions)
    leaks += [d for d in find_rule_leaks(ruled, questions) if d.kind in rules]
    if embedder is not None:
        # fp32 vectors (one verdict on any CPU: graph.fixed_precision), cached by text; every
        # text this check reads (the sentence checks of the doubt included) in one pass, so
        # each read below finds its rows in the cache.
        embedder = check_embedder(embedder)
        embedder.encode(guard_texts(suggestions, questions))
        leaks += _embedding_leaks(suggestions, questions, embedder, similarity_threshold)
        if semantic:
            leaks += semantic_leaks(suggestions, questions, embedder)
    unique = list(dict.fromkeys(leaks))
    if embedder is not None and semantic and learned:
        def fires(sentence: str) -> set[str]:
            return kinds_alone(sentence, questions, embedder=embedder, similarity_threshold=similarity_threshold, rules=rules)

        return weigh(unique, suggestions, questions, embedder, fires)
    return unique


def kinds_alone(
    sentence: str, questions: list[Question], *, embedder: Any, similarity_threshold: float = 0.85, rules: tuple[str, ...] = ALL_RULES
) -> set[str]:
    """The kinds of finding every layer but the learned one makes in ``sentence`` read alone:
    what the learned layer's doubt and the feedback classifier read of each sentence."""
    found = find_leaks(sentence, questions, embedder=embedder, similarity_threshold=similarity_threshold, rules=rules, learned=False)
    return {d.kind for d in found}


@dataclass
class LeakCheck:
    """What the guard did to one batch's suggestions."""

    suggestions: str  # the text the target is re-asked with
    leaks_before: list[LeakFinding] = field(default_factory=list)
    rewritten: bool = False
    leaks_after: list[LeakFinding] = field(default_factory=list)
    # Not counted leak-free: still leaking after the one rewrite, the rewrite failed, or the
    # judge's leak check could not be read (check_failed).
    flagged: bool = False
    rewrite_error: str | None = None
    mode: str = "rules"  # "rules" | "judge" | "off" (see leak_judge.resolve_leak_check)
    judge_before: list[dict] = field(default_factory=list)  # JudgeVerdict dicts, per seed question
    judge_after: list[dict] = field(default_factory=list)  # the same, on the rewrite
    check_failed: bool = False  # a judge verdict stayed unreadable after its retry: never counted clean
    guard_version: int = GUARD_VERSION

    def to_dict(self) -> dict:
        # By hand: the judge's lists hold plain dicts, never changed once made, and
        # dataclasses.asdict's deep copy was a tenth of a replay from the journal.
        out = {k: list(v) if isinstance(v, list) else v for k, v in self.__dict__.items()}
        out["leaks_before"] = [d.to_dict() for d in self.leaks_before]
        out["leaks_after"] = [d.to_dict() for d in self.leaks_after]
        return out


class RecordedLeakCheck(LeakCheck):
    """A check a finished run recorded, read back as it was written.

    A finished run replays with its own figures: the verdict of the guard it ran with, not of
    the guard in this checkout (which may flag what that one passed, and so ask the judge for a
    rewrite the run never made). ``to_dict`` gives back the record unchanged, ``guard_version``
    included or (for a check made before it was written) left out.
    """

    def __init__(self, record: dict) -> None:
        super().__init__(**{k: v for k, v in record.items() if k in LeakCheck.__dataclass_fields__})
        self.leaks_before = [LeakFinding.from_dict(d) for d in record.get("leaks_before", [])]
        self.leaks_after = [LeakFinding.from_dict(d) for d in record.get("leaks_after", [])]
        self.record = dict(record)

    def to_dict(self) -> dict:
        return dict(self.record)


def _describe(leaks: list[LeakFinding]) -> str:
    what = {
        "option_text": "states the text of a correct option",
        "answer_letter": "names an answer letter",
        "reference_phrase": "states a reference answer",
        "embedding": "paraphrases a correct answer",
        "semantic": "singles out an option by its meaning",
        "learned": "reads as a give-away as a whole (the guard's learned layer)",
        "elimination": "rules out an option",
        "disclosure": "says which earlier answers were right or wrong",
        "pointer": "points to an option of a question",
        "pick": "gives the writer's own pick",
        "narrowed": "narrows an answer to a few options it names",
        "struck_out": "strikes out an option it names",
        "verdict": "calls an earlier answer right or wrong",
        "judge": "picks out or eliminates an option (judge's check)",
    }
    return "\n".join(f"- {what[d.kind]}: {d.evidence}" for d in leaks)


async def _find_leaks_async(suggestions: str, questions: list[Question], embedder: Any, threshold: float) -> list[LeakFinding]:
    if embedder is None:
        return find_leaks(suggestions, questions)
    # Embedded first, off the event loop (batched with other batches' texts when the embedder
    # is an EmbeddingQueue); find_leaks then finds every vector in the cache.
    queue = check_embedder(embedder)
    await embed(queue, guard_texts(suggestions, questions))
    return find_leaks(suggestions, questions, embedder=queue, similarity_threshold=threshold)


async def _check(
    models: Any, suggestions: str, questions: list[Question], mode: str, embedder: Any, threshold: float
) -> tuple[list[LeakFinding], list[JudgeVerdict]]:
    """The rule layer's findings, then, in ``judge`` mode, the judge's verdicts and findings."""
    leaks = await _find_leaks_async(suggestions, questions, embedder, threshold)
    verdicts = await judge_leak_check(models, suggestions, questions) if mode == "judge" else []
    return leaks + [v.finding() for v in verdicts if v.leaks], verdicts


async def guard_suggestions(
    models: Any,
    suggestions: str,
    questions: list[Question],
    *,
    embedder: Any = None,
    threshold: float = 0.85,
    mode: str = "rules",
) -> LeakCheck:
    """Check ``suggestions``; if they leak, have the judge rewrite them once and check again
(unless they are nothing but option letters: then they are flagged as they are).

    ``mode`` is ``rules``, ``judge`` (rules, then the judge's leak check per seed question) or
    ``off`` (no check: the suggestions pass as written).
    """
    if mode == "off":
        return LeakCheck(suggestions, mode="off")
    before, verdicts = await _check(models, suggestions, questions, mode, embedder, threshold)
    judged = [v.to_dict() for v in verdicts]
    failed = _unread(verdicts)
    if not before:
        # Nothing found, but a verdict that could not be read is no verdict: fail closed.
        return LeakCheck(suggestions, mode=mode, judge_before=judged, flagged=failed, check_failed=failed)
    if only_letters(suggestions, questions):
        # Nothing but the leak: no advice for a rewrite to keep, so none is asked for; flagged
        # as an empty rewrite is. (The bundled judge, asked to rewrite "D.", never closed its
        # JSON: 600 tokens, then 1200, cut off; a call with no answer, so the batch was left
        # incomplete, and every rerun the same at temperature 0.)
        return LeakCheck(
            suggestions, leaks_before=before, leaks_after=before, flagged=True, rewrite_error=NOTHING_TO_KEEP, mode=mode,
            judge_before=judged, check_failed=failed,
        )
    user = render("leak_rewrite", suggestions=suggestions.strip(), leaks=_describe(before))
    msgs = messages(render("leak_rewrite_system"), user)
    res = await models.ask_judge(msgs, schema=schemas.LEAK_REWRITE, stage=LEAK_REWRITE.name, max_tokens=LEAK_REWRITE.max_tokens)
    rewrite = str(res.data.get("suggestions", "")).strip() if res.ok and isinstance(res.data, dict) else ""
    if not rewrite:
        error = res.error if not res.ok else "empty rewrite"
        return LeakCheck(
            suggestions, leaks_before=before, leaks_after=before, flagged=True, rewrite_error=error, mode=mode, judge_before=judged,
            check_failed=failed,
        )
    after, verdicts_after = await _check(models, rewrite, questions, mode, embedder, threshold)
    failed_after = _unread(verdicts_after)
    return LeakCheck(
        rewrite, leaks_before=before, rewritten=True, leaks_after=after, flagged=bool(after) or failed_after, mode=mode,
        judge_before=judged, judge_after=[v.to_dict() for v in verdicts_after], check_failed=failed_after,
    )


NOTHING_TO_KEEP = "no rewrite asked: the suggestions are nothing but option letters, no advice to keep"


@dataclass
class LeakGuard:
    """The leakage guard with the run's settings: checks (and if need be rewrites) an advice
    text against the questions it will be shown with."""

    models: Models
    embedder: object
    threshold: float
    mode: str

    @classmethod
    def of(cls, models: Models, embedder: object, options: GuardOptions) -> LeakGuard:
        """The guard a protocol's ``leak_threshold`` and ``leak_check`` ask for (``auto``: by the judge)."""
        return cls(models, embedder, options.leak_threshold, resolve_leak_check(options.leak_check, models.judge))

    async def check(self, text: str, questions: list[Question]) -> LeakCheck:
        return await guard_suggestions(self.models, text, questions, embedder=self.embedder, threshold=self.threshold, mode=self.mode)


def only_letters(suggestions: str, questions: list[Question]) -> bool:
    """Whether ``suggestions`` hold nothing but the batch's option letters ("D.", "(B)", "A, C"):
    every word of them is the leak, so a rewrite could only drop them all or make advice up."""
    words = re.findall(r"\w+", suggestions)
    letters = {letter for q in questions for letter in q.options or {}}
    return bool(words) and all(w in letters for w in words)


def _unread(verdicts: list[JudgeVerdict]) -> bool:
    """Whether any of the judge's verdicts stayed unreadable (see leak_judge)."""
    return any(v.verdict is None for v in verdicts)
