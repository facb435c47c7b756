"""What Inspect's log shows of an interview: samples, their messages, their scores, the metrics.

- A sample is one unit (a seed batch, or a seed): its input the seed questions, its target
  their answers.
- Its messages are the interview as it went, call by call: what the target was asked and
  what it answered, and between them the judge's own turns (the questions it wrote, its
  feedback, its checks), each labelled in its text and in ``metadata["speaker"]``.
- Its score's value holds each graded reply by where it sits in the record
  (``seed_answers[0]``, ``rounds[1].answer``, ``validations[0].reanswers[2]``: 1 right, 0
  wrong; KIEval's turns: the evaluator's 1–4); the metadata holds the follow-ups' difficulty
  levels, the difficulty controller's trajectory and the unit's records, from which
- the task's metric recomputes the run's figures with the protocol's own metrics code
  (ACC1, ACC2, ΔACC and its interval, CR, CtE; KIEval's score; ACC-AUC), so ``inspect
  eval-retry`` and ``inspect score`` give the figures of every sample of the log.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from judgeagent.data.benchmark import Question
from judgeagent.engine.protocol import Grade, Protocol
from judgeagent.engine.registry import protocol_class
from judgeagent.llm.inspect_model import TARGET, Exchange
from judgeagent.records import UnitRecord

if TYPE_CHECKING:
    from inspect_ai.model import ChatMessage
    from inspect_ai.scorer import SampleScore

STORE_KEY = "judgeagent"  # the sample's store entry the solver leaves for the scorer


def question_text(q: Question) -> str:
    lines = [q.question.strip(), *(f"{k}. {v}" for k, v in (q.options or {}).items())]
    return "\n".join(lines)


def last_user(messages: Sequence[dict[str, Any]]) -> str:
    return next((str(m.get("content") or "") for m in reversed(messages) if m.get("role") == "user"), "")


def dialogue(calls: Sequence[Exchange]) -> list[ChatMessage]:
    """The unit's calls as a conversation: the target's prompts (user) and answers
    (assistant), the judge's turns between them (user, labelled with its role and step)."""
    from inspect_ai.model import ChatMessageAssistant, ChatMessageUser

    out: list[ChatMessage] = []
    for c in calls:
        meta = {"speaker": c.role, "stage": c.stage, "model": c.model}
        if c.role == TARGET:
            out.append(ChatMessageUser(content=last_user(c.messages), metadata={"speaker": "interviewer", "stage": c.stage}))
            out.append(ChatMessageAssistant(content=c.reply if c.reply is not None else "(no answer)", model=c.model, metadata=meta))
        else:
            out.append(ChatMessageUser(content=f"[{c.role}, {c.stage}]\n{c.reply if c.reply is not None else '(no answer)'}", metadata=meta))
    return out


def score_parts(protocol: Protocol[Any, Any], options: dict[str, Any], seed: int, records: Sequence[UnitRecord]) -> dict[str, Any]:
    """What the scorer turns into the sample's score (kept in the sample's store): each
    graded reply (an ablation's under its arm's name), the follow-ups' levels, the records."""
    value: dict[str, float] = {}
    levels: dict[str, str] = {}
    graded: list[Grade] = []
    for r in records:
        arm = f"{getattr(r, 'setting', '')}/" if len(records) > 1 else ""
        for g in protocol.grades(r):
            graded.append(g)
            value[arm + g.key] = g.value
            if g.level:
                levels[arm + g.key] = g.level
    binary = all(g.value in (0.0, 1.0) for g in graded)
    if not graded:
        explanation = "no reply graded (see the records: why the interview stopped)"
    elif binary:
        explanation = f"{sum(g.value for g in graded):g} of {len(graded)} graded replies right"
    else:
        explanation = f"{len(graded)} scored turns, mean {sum(g.value for g in graded) / len(graded):.2f}"
    trajectories = {str(getattr(r, "setting", "full")): t for r in records if (t := getattr(r, "trajectory", None))}
    return {"value": value, "explanation": explanation,
            "metadata": {"levels": levels, "trajectory": trajectories, "protocol": protocol.name, "options": options, "seed": seed,
                         "records": [r.to_json() for r in records]}}  # fmt: skip


def run_figures(scores: Sequence[SampleScore]) -> dict[str, float]:
    """The run's figures over every scored sample, from the records their scores carry."""
    from judgeagent.inspect.session import figures

    metas = [s.score.metadata for s in scores if s.score.metadata and "records" in s.score.metadata]
    if not metas:
        return {}
    first = metas[0]
    protocol = protocol_class(first["protocol"])()
    options = protocol.options.model_validate(first["options"])
    records = [protocol.records.from_json(r) for m in metas for r in m["records"]]
    return figures(protocol, options, int(first["seed"]), records)
