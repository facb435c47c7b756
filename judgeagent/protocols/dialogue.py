"""What the dialogue protocols share: a transcript as text, the target's free-text turn, and
the models' JSON replies read as typed objects (:class:`Reply`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Annotated, Self

from pydantic import BaseModel, BeforeValidator, ConfigDict, ValidationError

from judgeagent.budgets import Stage
from judgeagent.data.benchmark import Question
from judgeagent.prompts import messages, render, schemas
from judgeagent.stages.models import Models

if TYPE_CHECKING:
    from judgeagent.llm.client import LLMResult

NO_REPLY = "(no reply)"


def _text(value: object) -> str:
    return "" if value is None else str(value).strip()


Text = Annotated[str, BeforeValidator(_text)]  # any JSON value, as stripped text ("" for none)


class Reply(BaseModel):
    """A model's JSON reply as its protocol reads it; keys it does not know are ignored."""

    model_config = ConfigDict(extra="ignore")

    @classmethod
    def read(cls, result: LLMResult) -> Self | None:
        """The reply of ``result``, or None when it brought none this model can be read from."""
        if not result.ok or not isinstance(result.data, dict):
            return None
        try:
            return cls.model_validate(result.data)
        except ValidationError:
            return None


class TargetTurn(Reply):
    reply: Text = ""
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
    turn = TargetTurn.read(res)
    if turn is None:
        return None, res.error or "no reply"
    return (turn.reply, None) if turn.reply else (None, "empty reply")
