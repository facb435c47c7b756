"""Stage 3: the judge's evaluation of a batch, whose suggestions the target re-answers with."""

from __future__ import annotations

from dataclasses import dataclass

from judgeagent.budgets import FEEDBACK
from judgeagent.prompts import messages, render, schemas
from judgeagent.stages.models import Models

FIELDS = ("flaws_knowledge", "flaws_capability", "comprehensive_performance", "suggestions")


@dataclass
class RecordItem:
    """One asked question as the judge sees it."""

    kind: str  # "seed" | "follow-up"
    question: str
    options: dict | None
    correct_answer: str
    target_answer: str | None
    correct: bool
    difficulty: str | None


def format_record(items: list[RecordItem]) -> str:
    blocks = []
    for i, it in enumerate(items, 1):
        lines = [f"#{i} ({it.kind}, difficulty: {it.difficulty or 'unlabeled'})", f"Question: {it.question.strip()}"]
        for letter, text in (it.options or {}).items():
            lines.append(f"  {letter}. {text}")
        lines.append(f"Correct answer: {it.correct_answer}")
        lines.append(f"Model's answer: {it.target_answer if it.target_answer is not None else '(none)'}")
        lines.append(f"Result: {'right' if it.correct else 'wrong'}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


async def evaluate_batch(models: Models, items: list[RecordItem], *, stage: str = "feedback") -> tuple[dict | None, str | None]:
    """The judge's four-field evaluation, or (None, error) when it could not be had."""
    msgs = messages(render("feedback_system"), render("feedback", record=format_record(items)))
    res = await models.ask_judge(msgs, schema=schemas.FEEDBACK, stage=stage, max_tokens=FEEDBACK.max_tokens)
    if not res.ok:
        return None, res.error
    return {k: str(res.data.get(k, "")).strip() for k in FIELDS}, None
