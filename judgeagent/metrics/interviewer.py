"""LLM-as-an-Interviewer's figures: accuracy @k over the feedback-and-revision loop, and the
per-question score of the Interview Report.

A question's attempts are its answers in order: the first, then one revision after each
feedback. The loop stops at the first right answer, so a question is right @k when any of
its first k attempts is right. The score per question (0–5) is 3, 2 or 1 for a right answer
at the first, second or a later attempt (0 when never right), plus 1 per adequate follow-up
answer (rationale, clarification).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

SCORE_RANGES = (("high", 4, 5), ("middle", 2, 3), ("low", 0, 1))


def right_at(attempts: Sequence[bool], k: int) -> bool:
    return any(attempts[:k])


def accuracy_at(questions: Sequence[Sequence[bool]], k: int) -> float | None:
    """acc@k in percent over the questions; None without questions."""
    if not questions:
        return None
    return round(100.0 * sum(right_at(a, k) for a in questions) / len(questions), 4)


def question_score(attempts: Sequence[bool], adequate_followups: int) -> int:
    first_right = next((i for i, ok in enumerate(attempts) if ok), None)
    answer_points = 0 if first_right is None else max(1, 3 - first_right)
    return answer_points + adequate_followups


def score_range(score: int) -> str:
    return next(name for name, lo, hi in SCORE_RANGES if lo <= score <= hi)


@dataclass
class InterviewerFigures:
    """Accuracy @k (percent), the Interview Report's scores, and what the follow-ups and the
    leakage guard did."""

    n_questions: int
    accuracy_at: dict[str, float | None]
    mean_score: float | None
    score_ranges: dict[str, int]
    followups: dict[str, dict] = field(default_factory=dict)
    leakage: dict[str, int] = field(default_factory=dict)


def interviewer_metrics(questions: Sequence[Sequence[bool]], scores: Sequence[int], revisions: int) -> InterviewerFigures:
    return InterviewerFigures(
        n_questions=len(questions),
        accuracy_at={f"@{k}": accuracy_at(questions, k) for k in range(1, revisions + 1)},
        mean_score=round(sum(scores) / len(scores), 4) if scores else None,
        score_ranges={name: sum(1 for s in scores if lo <= s <= hi) for name, lo, hi in SCORE_RANGES},
    )
