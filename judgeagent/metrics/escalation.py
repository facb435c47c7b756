"""MACEval's escalation figures: the highest level held and ACC-AUC (MACEval's Eq. 3).

ACC(t) at level t is the share of seeds that held level t: answered at least one question of
that level right. ACC-AUC is the area under ACC(t) over the ordered levels, by trapezoids one
level unit wide, from the first level up to the first level where ACC falls to 0 (inclusive);
levels past it add nothing. It is reported in level units, normalised by the span of the
levels (``len(levels) − 1`` units, so 1.0 means every seed held every level), and with the
highest level that any seed held. docs/concepts/method.md also asks for the area divided by the number of
levels; that figure is reported too (``acc_auc_per_level``), though its maximum is
(n − 1)/n, not 1, because trapezoids over n levels span n − 1 units.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

LEVELS = ("easy", "medium", "hard")


def accuracy_by_level(held: Sequence[str | None], levels: Sequence[str] = LEVELS) -> list[float]:
    """ACC(t) per level: the share of seeds whose highest level held is t or above."""
    if not held:
        return [0.0 for _ in levels]
    rank = {lv: i for i, lv in enumerate(levels)}
    tops = [rank[h] if h is not None else -1 for h in held]
    return [sum(1 for top in tops if top >= i) / len(tops) for i in range(len(levels))]


def acc_auc(acc: Sequence[float]) -> float:
    """Trapezoids between consecutive levels, up to the first level where ACC is 0."""
    end = next((i for i, a in enumerate(acc) if a == 0), len(acc) - 1)
    return round(sum((acc[i] + acc[i + 1]) / 2.0 for i in range(end)), 6)


@dataclass
class EscalationFigures:
    """ACC by level (percent), ACC-AUC raw and normalised, the highest level held, and how the
    escalations went (questions asked and skipped, why each ended)."""

    n_seeds: int
    acc_by_level: dict[str, float]
    acc_auc: float
    acc_auc_normalised: float | None
    highest_level_held: str | None
    held_counts: dict[str, int]
    asked: int = 0
    skipped: int = 0
    ends: dict[str, int] = field(default_factory=dict)
    acc_auc_per_level: float | None = None


def escalation_metrics(held: Sequence[str | None], levels: Sequence[str] = LEVELS) -> EscalationFigures:
    """The figures from each seed's highest level held (None: none held)."""
    acc = accuracy_by_level(held, levels)
    auc = acc_auc(acc)
    span = len(levels) - 1
    reached = [lv for lv, a in zip(levels, acc) if a > 0]
    return EscalationFigures(
        n_seeds=len(held),
        acc_by_level={lv: round(100.0 * a, 4) for lv, a in zip(levels, acc)},
        acc_auc=auc,
        acc_auc_normalised=round(auc / span, 6) if span else None,
        acc_auc_per_level=round(auc / len(levels), 6) if levels else None,
        highest_level_held=reached[-1] if reached else None,
        held_counts={(lv or "none"): sum(1 for h in held if h == lv) for lv in (*levels, None)},
    )
