"""Seed decontamination (LLM-as-an-Interviewer): rewrite the benchmark's seed questions before
they are asked, so that a target which memorised the published wording gains nothing from it.

Three modes, all done by the judge:

- ``paraphrase``  same meaning, same answer; multiple choice keeps its options and answer
                  letter, only the stem is reworded. A blind judge call must still reach the
                  original answer, or the original is used.
- ``modify``      a new question in the same domain and at the same difficulty, with a new
                  answer the judge supplies (MC: correct option + 3 distractors, placed at a
                  seeded position). A second, blind judge call must answer it the same way,
                  or the original is used.
- ``unclarify``   one key fact is removed from the stem, so the target has to ask for it or
                  state an assumption. The reference answer stays the original's: grading
                  compares the target's answer with the answer to the complete question.

A rewrite that fails (schema, empty, identical to the original or keeping its stem, or
unverified) keeps the original question, with ``ok=False`` and the reason in ``error``.
Question ids never change, so records of a decontaminated run line up with plain ones.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, replace

from judgeagent.batches import together
from judgeagent.budgets import DECON_VERIFY, DECONTAMINATE
from judgeagent.config import DECONTAMINATION_MODES
from judgeagent.data.benchmark import Question, QuestionType
from judgeagent.errors import ConfigError
from judgeagent.prompts import messages, render, schemas
from judgeagent.stages.answers import normalize_letter, normalize_phrase, phrase_match
from judgeagent.stages.extension import TYPE_RULES, Draft, assemble, validate
from judgeagent.stages.grading import format_question, grade
from judgeagent.stages.models import Models

MODES = DECONTAMINATION_MODES  # one list: the values EvalConfig.decontaminate accepts
MAX_TRIES = 2  # the first try plus one retry at a higher temperature

@dataclass
class Rewrite:
    original: Question
    question: Question  # the question to ask: the rewrite, or the original when ok is False
    mode: str
    ok: bool
    error: str | None = None

    def to_dict(self) -> dict:
        return {"mode": self.mode, "ok": self.ok, "error": self.error, "original": self.original.to_dict(), "question": self.question.to_dict()}

    @classmethod
    def from_dict(cls, d: dict) -> Rewrite:
        return cls(Question(**d["original"]), Question(**d["question"]), d["mode"], d["ok"], d.get("error"))


async def decontaminate(
    models: Models,
    questions: list[Question],
    qtype: QuestionType,
    mode: str,
    *,
    seed: int,
    contexts: dict[str, str] | None = None,
) -> list[Rewrite]:
    """Rewrite every question in ``mode``; one Rewrite per question, in order.

    ``contexts`` maps doc_id → article text, for reading questions (RMC): a modified
    question must be answerable from its article, so the judge sees it when writing and
    verifying one.
    """
    if mode not in MODES:
        raise ConfigError(f"--decontaminate must be {', '.join(MODES[:-1])} or {MODES[-1]} (got {mode!r})")
    contexts = contexts or {}
    # together(), not gather: a rewrite that brings no answer sets the batch aside, and its
    # siblings must stop asking for it.
    return list(await together(*(_rewrite_one(models, q, qtype, mode, seed, contexts.get(q.doc_id or "")) for q in questions)))


async def _rewrite_one(models: Models, q: Question, qtype: QuestionType, mode: str, seed: int, context: str | None) -> Rewrite:
    data, error = await ask_rewrite(models, q, qtype, mode, context)
    if data is None:
        return Rewrite(q, q, mode, False, error)
    new = build_question(data, q, qtype, mode, random.Random(f"{seed}|{q.id}|decontaminate"))
    # A paraphrase must keep the answer and a modify must have the one it claims: a blind
    # judge answering the rewrite is the check. (An unclarify is meant to be unanswerable.)
    if mode in ("modify", "paraphrase"):
        disagreement = await verify(models, new, qtype, context)
        if disagreement:
            return Rewrite(q, q, mode, False, f"verification failed: {disagreement}")
    return Rewrite(q, new, mode, True)


async def ask_rewrite(models: Models, q: Question, qtype: QuestionType, mode: str, context: str | None) -> tuple[dict | None, str | None]:
    """The judge's usable rewrite (as JSON), or None and every reason it was unusable."""
    msgs = rewrite_messages(q, qtype, mode, context)
    schema = {"paraphrase": schemas.DECON_PARAPHRASE, "unclarify": schemas.DECON_UNCLARIFY}.get(mode) or (
        schemas.DECON_MODIFY_MC if qtype.is_multiple_choice else schemas.DECON_MODIFY_PHRASE
    )
    reasons: list[str] = []
    for attempt in range(MAX_TRIES):
        # A different temperature on the retry: the journal would otherwise replay the same bad answer.
        res = await models.ask_judge(msgs, schema=schema, stage=DECONTAMINATE.name, max_tokens=DECONTAMINATE.max_tokens, temperature=None if attempt == 0 else 0.7)
        reason = res.error if not res.ok else check_rewrite(res.data, q, qtype, mode)
        if reason is None:
            return res.data, None
        reasons.append(reason)
        msgs = msgs + [
            {"role": "assistant", "content": res.text or ""},
            {"role": "user", "content": render("decon_retry", reason=reason)},
        ]
    return None, "; ".join(dict.fromkeys(reasons))


def rewrite_messages(q: Question, qtype: QuestionType, mode: str, context: str | None) -> list[dict]:
    shown = format_question(1, q).removeprefix("Q1. ")
    kind = "mc" if qtype.is_multiple_choice else "phrase"
    if mode in ("paraphrase", "unclarify"):
        user = render(f"decon_{mode}", keep_rule=render(f"decon_keep_{kind}"), question=shown, answer=_answer_words(q))
    else:
        context_block = "\n" + render("decon_modify_context", context=context.strip()) + "\n" if context else ""
        user = render(
            "decon_modify",
            type_rule=TYPE_RULES[qtype],
            context_block=context_block,
            question=shown,
            answer=_answer_words(q),
            json_shape=render(f"shape_{kind}"),
        )
    return messages(render("decon_system"), user)


def _answer_words(q: Question) -> str:
    return f"{q.answer}. {q.answer_text}" if q.options else q.answer


def check_rewrite(data: object, q: Question, qtype: QuestionType, mode: str) -> str | None:
    """Why a judge's rewrite is unusable, or None when it is fine."""
    if mode == "modify":
        reason = validate(data, qtype, [q.question])
        if reason:
            return reason
        d = Draft.of(data)
        assert d is not None  # validate has checked it is an object
        new_answer = d.correct_option if qtype.is_multiple_choice else d.answer
        if phrase_match(new_answer, q.answer_text):
            return "same answer as the original"
        return None
    d = Draft.of(data)
    if d is None or not d.question.strip():
        return "empty question text"
    if normalize_phrase(d.question) == normalize_phrase(q.question):
        return "identical to the original"
    # Small judges append options or words to the untouched stem: that is no rewrite either.
    if normalize_phrase(q.question) in normalize_phrase(d.question):
        return "keeps the original wording"
    if mode == "unclarify" and not d.removed.strip():
        return "does not say which fact it removed"
    return None


def build_question(data: dict, q: Question, qtype: QuestionType, mode: str, rng: random.Random) -> Question:
    record = {"mode": mode, "original": {"question": q.question, "answer": q.answer, "options": q.options}}
    if mode == "modify":
        new = assemble(data, qtype, q.id, q.difficulty or "medium", rng)
        return replace(new, difficulty=q.difficulty, doc_id=q.doc_id, meta={**q.meta, **new.meta, "decontamination": record})
    d = Draft.model_validate(data)
    if mode == "unclarify":
        record["removed"] = d.removed.strip()
    return replace(q, question=d.question.strip(), meta={**q.meta, "decontamination": record})


async def verify(models: Models, q: Question, qtype: QuestionType, context: str | None) -> str | None:
    """Have the judge answer ``q`` without seeing its answer; why it disagrees, or None."""
    context_block = render("answer_context", context=context.strip()) + "\n\n" if context else ""
    user = render(
        "decon_verify_mc" if qtype.is_multiple_choice else "decon_verify_phrase",
        context_block=context_block,
        question=format_question(1, q).removeprefix("Q1. "),
    )
    res = await models.ask_judge(
        messages(render("decon_verify_system"), user),
        schema=schemas.decon_verify(sorted(q.options) if q.options else None),
        stage=DECON_VERIFY.name,
        max_tokens=DECON_VERIFY.max_tokens,
    )
    if not res.ok:
        return f"blind answer unusable ({res.error})"
    reply = str(res.data.get("answer", ""))
    if qtype.is_multiple_choice:
        agrees = normalize_letter(reply, q.options or {}) == q.answer
    else:
        agrees = (await grade(models, qtype, q, reply)).correct
    return None if agrees else f"the judge answered {reply!r} blind, the rewrite says {q.answer!r}"
