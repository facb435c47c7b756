"""What the dialogue protocols share: a transcript as text, and the target's free-text turn."""

from __future__ import annotations

from judgeagent.budgets import Stage
from judgeagent.data.benchmark import Question
from judgeagent.prompts import messages, render, schemas
from judgeagent.stages.models import Models

NO_REPLY = "(no reply)"
REPLY_TOKENS = 200  # the target's free-text turn


def reply_stage(name: str, completion: float) -> Stage:
    """A stage at which the target replies in free text to a dialogue's question."""
    return Stage(name, REPLY_TOKENS, completion)


def transcript(turns: list[tuple[str, str | None]]) -> str:
    """(question, reply) pairs as the examiner/candidate exchange both roles read."""
    if not turns:
        return "(nothing yet)"
    return "\n".join(f"Examiner: {q.strip()}\nCandidate: {(r or NO_REPLY).strip()}" for q, r in turns)


def question_text(q: Question) -> str:
    """A seed as it is put in a dialogue: the question, and its options when it has them."""
    lines = [q.question.strip()]
    lines += [f"{letter}. {text}" for letter, text in (q.options or {}).items()]
    return "\n".join(lines)


def reply_messages(history: list[tuple[str, str | None]], question: str) -> list[dict[str, str]]:
    return messages(render("dialogue_system"), render("dialogue_turn", dialogue=transcript(history), question=question.strip()))


async def target_reply(models: Models, history: list[tuple[str, str | None]], question: str, *, stage: Stage) -> tuple[str | None, str | None]:
    """The target's reply to one question of a dialogue: (reply, error)."""
    res = await models.ask_target(reply_messages(history, question), schema=schemas.DIALOGUE_REPLY, stage=stage.name, max_tokens=stage.max_tokens)
    if not res.ok or not isinstance(res.data, dict):
        return None, res.error or "no reply"
    reply = str(res.data.get("reply", "")).strip()
    return (reply, None) if reply else (None, "empty reply")
