"""The kinds of request a run sends: each one's usage stage, its answer budget and what a reply
is expected to take.

The code that sends a request and the call plan that counts it for ``--dry-run``
(:mod:`judgeagent.engine.callplan`) both read these, so the stage a request is booked under
and the ``max_tokens`` it is sent with cannot differ between the run and its estimate. (A
``max_tokens`` is part of a request's journal key: changing one makes a finished run ask again.)

The stages every protocol shares are here; a protocol's own stages (KIEval's interactor, the
interviewer's feedback) are declared the same way in its module.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Stage:
    """One kind of request: the usage stage it is booked under, its answer budget, and the
    completion tokens one reply is expected to take when no earlier run measured them (the
    estimate's prior: replies vary, so its range is 40% to twice this, at most the budget)."""

    name: str
    max_tokens: int
    completion: float


# The target answers questions in one prompt: a JSON list with one short answer each.
ANSWER_BASE_TOKENS = 40
ANSWER_TOKENS_PER_QUESTION = 40


def answer_tokens(n_questions: int) -> int:
    """The answer budget of a prompt that asks ``n_questions`` questions."""
    return ANSWER_BASE_TOKENS + ANSWER_TOKENS_PER_QUESTION * n_questions


def answering(name: str, completion: float) -> Stage:
    """A stage at which the target answers questions (its budget grows with their number:
    :func:`answer_tokens`; ``max_tokens`` here is that of one question)."""
    return Stage(name, answer_tokens(1), completion)


# The target's answers, by the stage that asks them.
GRADING = answering("grading", 40)  # the seed questions, first asked
VALIDATION = answering("validation", 40)  # the seeds again, with the suggestions
CONTROL_PLAIN = answering("control-plain", 40)
CONTROL_PLACEBO = answering("control-placebo", 40)
EXTENSION = answering("extension", 15)  # a follow-up question
REASK_EXTENDED = answering("reask-extended", 15)
TRANSFER = answering("transfer", 40)
TRANSFER_PLACEBO = answering("transfer-placebo", 40)

# The judge's requests.
GENERATION = Stage("generation", 400, 110)  # a follow-up question written from a path window
GATE_MC = Stage("gate", 16, 10)  # the gate's judge answers a multiple-choice question from the passages
GATE_PHRASE = Stage("gate", 40, 10)  # ... or a phrase question
PHRASE_JUDGE = Stage("grading-judge", 20, 8)  # the yes/no verdict on a phrase answer EM and F1 leave open
FEEDBACK = Stage("feedback", 600, 220)  # the four-field evaluation of a batch
LEAK_CHECK = Stage("leak-check", 200, 40)  # the judge's leak check of advice, per question
LEAK_REWRITE = Stage("leak-rewrite", 600, 110)  # advice that leaked, rewritten once
SUMMARY = Stage("summary", 700, 300)  # the closing interview summary
DECONTAMINATE = Stage("decontaminate", 400, 90)  # a seed rewritten
DECON_VERIFY = Stage("decontaminate", 40, 10)  # the blind judge's answer that verifies a rewrite


def gate_stage(multiple_choice: bool) -> Stage:
    return GATE_MC if multiple_choice else GATE_PHRASE
