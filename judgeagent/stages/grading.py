"""Stage 1 (and the re-asks of stage 3): ask the target a batch of questions in one prompt,
read its JSON reply and grade each answer (docs/concepts/method.md §2).

An answer the model gave but that cannot be read counts as wrong and says why in
``Answer.error``. A call that brought no answer back at all (endpoint down, timeout, quota,
cut off at the output limit) is not the model's answer: ``Models`` raises CallFailed for it
before anything here is graded, and the run writes the batch as incomplete.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from judgeagent.batches import Batch, together
from judgeagent.budgets import GRADING, PHRASE_JUDGE, answer_tokens
from judgeagent.data.benchmark import Benchmark, Question, QuestionType
from judgeagent.errors import CallFailed
from judgeagent.prompts import messages, render, schemas
from judgeagent.stages.answers import (  # noqa: F401  (NULL_ANSWERS, is_null_answer: still importable from here)
    NULL_ANSWERS,
    PhraseScore,
    is_null_answer,
    normalize_letter,
    normalize_phrase,
    score_phrase,
)
from judgeagent.stages.models import Models


@dataclass
class Answer:
    question_id: str
    reply: str | None  # what the target wrote
    chosen: str | None  # the option letter it picked (MC) or its normalised phrase (QA)
    correct: bool
    graded_by: str  # "letter" | "exact" | "f1" | "yes/no" | "null" | "judge" | "none"
    error: str | None = None
    # Phrase answers: SQuAD exact match and token F1 against the reference, and the judge's
    # own verdict ("yes" / "no") when it was asked; None where they do not apply.
    em: bool | None = None
    f1: float | None = None
    judge_verdict: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)  # every field is a plain value: asdict's deep copy costs a replay 5%

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> Answer:
        return cls(**d)


def format_question(i: int, q: Question) -> str:
    lines = [f"Q{i}. {q.question.strip()}"]
    for letter, text in (q.options or {}).items():
        lines.append(f"{letter}. {text}")
    return "\n".join(lines)


def answer_messages(
    qtype: QuestionType,
    questions: list[Question],
    *,
    context: str | None = None,
    passages: str | None = None,
    suggestions: str | None = None,
) -> list[dict]:
    """The target's prompt: what repeats first, what varies last.

    Every request about one article (seed batch, follow-up, re-ask, controls) begins with
    the same bytes: the system message (with the reply schema's description, see
    :func:`answer_schema`), the article, the fixed instructions. Providers bill such a
    repeated prefix at their cached rate and llama.cpp reuses its KV cache for it. What
    differs between them (a follow-up's passages, the examiner's advice, the questions and
    their count) comes after, so it never breaks the shared prefix.
    """
    shared = [render("answer_context", context=context.strip())] if context else []
    shared.append(render("answer_batch_mc" if qtype.is_multiple_choice else "answer_batch_phrase"))
    varying = [render("answer_passages", passages=passages.strip())] if passages else []
    if suggestions:
        varying.append(render("answer_advice", suggestions=suggestions.strip()))
    questions_text = "\n\n".join(format_question(i + 1, q) for i, q in enumerate(questions))
    varying.append(render("answer_questions", n=len(questions), questions=questions_text))
    return messages(render("answer_system"), "\n\n".join(shared + varying))


def answer_schema(qtype: QuestionType, questions: list[Question], *, shared: bool = False) -> dict:
    """The reply schema. ``shared`` (a request about an article): the same schema for every
    request about it, because its description sits in the system message, ahead of the
    article (and OpenAI puts a ``json_schema`` ahead of the prompt): no answer count, and the
    four letters of a generated question along with the seeds' own. The prompt still asks for
    exactly n answers; a reply with fewer leaves the rest unanswered (graded wrong)."""
    letters = None
    if qtype.is_multiple_choice:
        letters = sorted({k for q in questions for k in (q.options or {})} | (set(schemas.MC_LETTERS) if shared else set()))
    return schemas.answer_batch(None if shared else len(questions), letters)


def passages_outside(article: str | None, texts: list[str], source: str) -> str | None:
    """A follow-up's ``source`` (its numbered passages, as the judge wrote from them) when
    one of its passage ``texts`` is not part of ``article``; None when the article holds
    them all, so the follow-up is asked with the article alone, like the seeds."""
    flat = " ".join((article or "").split())
    if all(" ".join(t.split()) in flat for t in texts):
        return None
    return source


async def ask_batch(
    models: Models,
    qtype: QuestionType,
    questions: list[Question],
    *,
    stage: str,
    context: str | None = None,
    passages: str | None = None,
    suggestions: str | None = None,
    variant: str | None = None,
) -> list[Answer]:
    """Ask ``questions`` in one prompt and grade every answer.

    ``context`` is the text every request about it shares (an RMC article); ``passages``
    what only this request adds to it. ``variant`` asks again a prompt that was already
    asked, as a fresh request.
    """
    msgs = answer_messages(qtype, questions, context=context, passages=passages, suggestions=suggestions)
    schema = answer_schema(qtype, questions, shared=context is not None)
    result = await models.ask_target(msgs, schema=schema, stage=stage, max_tokens=answer_tokens(len(questions)), variant=variant)
    replies: list[str | None] = [None] * len(questions)
    error = None
    if result.ok and isinstance(result.data, dict):
        items = result.data.get("response") or []
        for i, item in enumerate(items[: len(questions)]):
            if isinstance(item, dict) and item.get("answer") is not None:
                replies[i] = str(item["answer"])
        if len(items) < len(questions):
            error = f"the reply has {len(items)} answers for {len(questions)} questions"
    else:  # the model's own unusable reply (parse / empty): failed calls never reach here
        error = result.error or "no reply"
    # The answers are graded at once: the judge's verdicts on several phrase answers are
    # independent, so under --batch-api they share one wave instead of one wave each.
    return list(await together(*(grade(models, qtype, q, reply, error=error if reply is None else None) for q, reply in zip(questions, replies))))


async def grade_seeds(models: Models, bench: Benchmark, batch: Batch) -> list[Answer]:
    """Stage 1: the target answers a batch's seed questions once, in one prompt."""
    return await ask_batch(models, bench.qtype, batch.questions, stage=GRADING.name, context=batch.context)


async def grade(models: Models, qtype: QuestionType, q: Question, reply: str | None, *, error: str | None = None) -> Answer:
    if reply is None:
        return Answer(q.id, None, None, False, "none", error or "missing answer")
    if qtype.is_multiple_choice:
        letter = normalize_letter(reply, q.options or {})
        return Answer(q.id, reply, letter, letter == q.answer, "letter", None if letter else "no option letter in reply")
    score = score_phrase(reply, q.answer)
    if score.correct is not None:
        return Answer(q.id, reply, normalize_phrase(reply), score.correct, score.rule, em=score.em, f1=score.f1)
    return await judge_phrase(models, q, reply, score)


async def judge_phrase(models: Models, q: Question, reply: str, score: PhraseScore | None = None) -> Answer:
    """The yes/no LLM judgement of a phrase answer whose EM and F1 could not decide it."""
    score = score or score_phrase(reply, q.answer)
    msgs = messages(
        render("judge_phrase_system"),
        render("judge_phrase", question=q.question, reference=q.answer, candidate=reply),
    )
    res = await models.ask_judge(msgs, schema=schemas.PHRASE_JUDGEMENT, stage=PHRASE_JUDGE.name, max_tokens=PHRASE_JUDGE.max_tokens)
    if not res.ok:
        # The judge's reply, not the target's, is unusable: grading the target wrong would
        # count the judge's failure against it. The batch is left incomplete and, since an
        # unusable reply is never journaled, a rerun asks the judge again.
        raise CallFailed(models.judge.name, "grading-judge", "unreadable verdict", res.error or "no verdict")
    verdict = str(res.data.get("equivalent", "")).strip().lower()
    return Answer(q.id, reply, normalize_phrase(reply), verdict == "yes", "judge", em=score.em, f1=score.f1, judge_verdict=verdict or None)
