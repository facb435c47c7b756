"""The paper's figures (docs/concepts/method.md §4), as percentages of the N seed questions.

ACC1 = right before / N, ACC2 = right after / N, CR = wrong→right / N,
CtE = right→wrong / N, and ΔACC = ACC2 − ACC1 = CR − CtE. The conditional rates
(CR among the initially wrong, CtE among the initially right) are extra columns.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass


@dataclass(frozen=True)
class PaperMetrics:
    # Every rate is None over no questions (all batches incomplete): a table shows "–", not 0.00.
    n_questions: int
    acc1: float | None
    acc2: float | None
    cr: float | None
    cte: float | None
    delta_acc: float | None
    cr_given_wrong: float | None  # None when nothing was wrong before
    cte_given_right: float | None  # None when nothing was right before

    def to_dict(self) -> dict:
        return asdict(self)


def _pct(count: int, total: int) -> float | None:
    return round(100.0 * count / total, 4) if total else None


def difference(a: float | None, b: float | None) -> float | None:
    """``a − b`` in points, or None when either rate is undefined."""
    return None if a is None or b is None else round(a - b, 4)


def paper_metrics(before: Sequence[bool], after: Sequence[bool]) -> PaperMetrics:
    """Metrics from paired correctness flags: ``before[i]`` in stage 1, ``after[i]`` re-asked."""
    if len(before) != len(after):
        raise ValueError(f"before has {len(before)} answers, after has {len(after)}")
    n = len(before)
    right1 = sum(before)
    right2 = sum(after)
    fixed = sum(1 for b, a in zip(before, after) if not b and a)
    broken = sum(1 for b, a in zip(before, after) if b and not a)
    wrong1 = n - right1
    return PaperMetrics(
        n_questions=n,
        acc1=_pct(right1, n),
        acc2=_pct(right2, n),
        cr=_pct(fixed, n),
        cte=_pct(broken, n),
        # From counts, so that ΔACC equals CR − CtE and ACC2 − ACC1 exactly up to rounding.
        delta_acc=_pct(right2 - right1, n),
        cr_given_wrong=_pct(fixed, wrong1),
        cte_given_right=_pct(broken, right1),
    )


def metrics_by_label(
    labels: Sequence[str | None], before: Sequence[bool], after: Sequence[bool]
) -> dict[str, dict]:
    """The same figures for each difficulty label; unlabeled questions go under "unlabeled"."""
    groups: dict[str, tuple[list[bool], list[bool]]] = defaultdict(lambda: ([], []))
    for label, b, a in zip(labels, before, after):
        g = groups[label or "unlabeled"]
        g[0].append(b)
        g[1].append(a)
    return {k: paper_metrics(*groups[k]).to_dict() for k in sorted(groups, key=_level_order)}


def accuracy_by_level(items: Iterable[tuple[str, bool]]) -> dict[str, dict]:
    """Extension accuracy per generated difficulty: {level: {n, correct, accuracy}}."""
    counts: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for level, ok in items:
        counts[level][0] += 1
        counts[level][1] += int(ok)
    return {
        lvl: {"n": counts[lvl][0], "correct": counts[lvl][1], "accuracy": _pct(counts[lvl][1], counts[lvl][0])}
        for lvl in sorted(counts, key=_level_order)
    }


def _level_order(label: str) -> tuple[int, str]:
    return ({"easy": 0, "medium": 1, "hard": 2}.get(label, 9), label)
