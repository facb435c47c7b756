"""The interview summary: one judge call that condenses every batch's evaluation.

The per-batch evaluations say what went wrong in three to six questions each; a reader
wants the pattern across the whole run. The judge gets a compact digest of every batch
(scores before and after its advice, the follow-ups' difficulty and results, and the four
evaluation fields) and returns strengths, weaknesses, knowledge and reasoning gaps, and
how the target responded to the feedback. ``evaluate`` stores the result as summary.json;
the report only reads it.
"""

from __future__ import annotations

from collections.abc import Sequence

from judgeagent.budgets import SUMMARY
from judgeagent.errors import JudgeAgentError
from judgeagent.prompts import messages, render, schemas
from judgeagent.records import AnswerRecord, InterviewRecord

LIST_FIELDS = ("strengths", "weaknesses", "knowledge_gaps", "reasoning_gaps")
FIELDS = (*LIST_FIELDS, "response_to_feedback")

# The digest must fit a small judge's context (the bundled model has 8k tokens) next to
# its reply, so a long run is sampled: evenly spaced batches, each field cut short.
MAX_PROMPT_CHARS = 12_000
FIELD_CHARS = 300


def _right(answers: Sequence[AnswerRecord]) -> int:
    return sum(1 for a in answers if a.correct)


def _cut(text: str, n: int = FIELD_CHARS) -> str:
    text = " ".join(str(text or "").split())
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def _answered(record: InterviewRecord) -> list[tuple[str, AnswerRecord]]:
    """(level, answer) of every follow-up the target answered."""
    return [(rd.level, rd.answer) for rd in record.rounds if rd.answer is not None]


def batch_digest(record: InterviewRecord) -> str:
    """A few lines on one batch: its scores, follow-ups and the judge's evaluation."""
    n, final = len(record.seed), record.last
    after = _right(final.reanswers)
    lines = [f"Batch {record.batch_id}: original questions right {_right(record.seed_answers)}/{n} before advice, {after}/{n} after."]
    if asked := _answered(record):
        follow = ", ".join(f"{level} {'right' if a.correct else 'wrong'}" for level, a in asked)
        lines.append(f"Follow-ups: {follow}.")
    ev = final.evaluation
    if ev is not None:
        lines.append(f"Knowledge flaws: {_cut(ev.flaws_knowledge)}")
        lines.append(f"Reasoning flaws: {_cut(ev.flaws_capability)}")
        lines.append(f"Overall: {_cut(ev.comprehensive_performance)}")
        lines.append(f"Advice given: {_cut(ev.suggestions)}")
    else:
        lines.append("No evaluation (the examiner's reply could not be used).")
    return "\n".join(lines)


def _sample(items: list, k: int) -> list:
    """``k`` evenly spaced items, first and last included, in their order."""
    if k >= len(items):
        return list(items)
    if k <= 1:
        return items[:1]
    step = (len(items) - 1) / (k - 1)
    return [items[round(i * step)] for i in range(k)]


def summary_prompt(records: Sequence[InterviewRecord], max_chars: int = MAX_PROMPT_CHARS) -> list[dict]:
    records = sorted(records, key=lambda r: r.batch_index)
    n_q = sum(len(r.seed) for r in records)
    before = sum(_right(r.seed_answers) for r in records)
    after = sum(_right(r.last.reanswers) for r in records)
    asked = [a for r in records for _, a in _answered(r)]
    overall = (
        f"{before}/{n_q} original questions right before the advice, {after}/{n_q} after; "
        f"{_right(asked)}/{len(asked)} follow-up questions right."
    )
    digests = [batch_digest(r) for r in records]
    shown = digests
    # Shrink the sample until the digest fits; the overall line still covers every batch.
    while len(shown) > 1 and sum(len(d) + 2 for d in shown) > max_chars:
        shown = _sample(digests, max(1, len(shown) * 2 // 3))
    note = f"(Only {len(shown)} of the {len(digests)} batches are shown below, evenly spaced.)\n" if len(shown) < len(digests) else ""
    user = render(
        "summary",
        n_batches=len(records),
        n_questions=n_q,
        n_followups=len(asked),
        overall=overall,
        sampled_note=note,
        batches="\n\n".join(shown),
    )
    return messages(render("summary_system"), user)


def clean_summary(data: dict) -> dict:
    """The judge's reply in a fixed shape: four lists of non-empty strings and one string."""
    out: dict = {}
    for key in LIST_FIELDS:
        value = data.get(key) or []
        if isinstance(value, str):
            value = [value]
        out[key] = [s for s in (" ".join(str(v).split()) for v in value) if s]
    out["response_to_feedback"] = " ".join(str(data.get("response_to_feedback") or "").split())
    return out


async def summarize_interview(models, records: Sequence[InterviewRecord]) -> dict:
    """One judge call over the run's records; ``{"error": …}`` when it cannot be had.

    ``records`` are one setting's records (for an ablation run, the full method's).
    """
    if not records:
        return {"error": "no batch records to summarise"}
    if not any(v.evaluation is not None for r in records for v in r.validations):
        return {"error": "no batch has an evaluation to summarise"}
    try:
        res = await models.ask_judge(summary_prompt(records), schema=schemas.SUMMARY, stage=SUMMARY.name, max_tokens=SUMMARY.max_tokens)
    except JudgeAgentError as e:  # e.g. the budget ran out: the run's results stand without a summary
        return {"error": str(e)}
    if not res.ok:
        return {"error": res.error or "no reply"}
    if not isinstance(res.data, dict):
        return {"error": "the judge's reply was not a JSON object"}
    return clean_summary(res.data)
