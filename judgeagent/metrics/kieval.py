"""The KIEval score (KIEval's published scorer) and conversation completeness.

Each 1–4 score of a turn is mapped 1→1, 2→3, 3→7, 4→10; turn ``t`` (counted from 0) weighs
exp(−0.2·t), so early turns, which every dialogue reaches, count most. A dialogue's score on
one aspect is the weighted mean of its turns' mapped scores ×10 (0–100); a run's is the mean
over its dialogues. A dialogue stopped early is scored on the turns it held; how many it held
is reported apart, as completeness.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from math import exp

SCORE_MAP = {1: 1.0, 2: 3.0, 3: 7.0, 4: 10.0}
DECAY = 0.2


def turn_weight(t: int) -> float:
    return exp(-DECAY * t)


def dialogue_score(scores: Sequence[int]) -> float | None:
    """One dialogue's KIEval score (0–100) from its turns' 1–4 scores; None without turns."""
    if not scores:
        return None
    weights = [turn_weight(t) for t in range(len(scores))]
    mean = sum(w * SCORE_MAP[int(s)] for w, s in zip(weights, scores)) / sum(weights)
    return round(10.0 * mean, 4)


def run_score(dialogues: Sequence[Sequence[int]]) -> float | None:
    """The mean over dialogues of their scores; dialogues without a scored turn are left out."""
    scores = [s for s in (dialogue_score(d) for d in dialogues) if s is not None]
    return round(sum(scores) / len(scores), 4) if scores else None


def completeness(turns_held: Sequence[int]) -> float | None:
    """Conversation completeness: the mean number of turns held per dialogue."""
    return round(sum(turns_held) / len(turns_held), 4) if turns_held else None


@dataclass
class EarlyStops:
    """The share of dialogues stopped early (percent), how many, and how often each reason was given."""

    rate: float | None
    n_stopped: int
    reasons: dict[str, int]


def early_stops(reasons: Sequence[str | None]) -> EarlyStops:
    stopped = [r for r in reasons if r]
    counts: dict[str, int] = {}
    for r in stopped:
        counts[r] = counts.get(r, 0) + 1
    rate = round(100.0 * len(stopped) / len(reasons), 4) if reasons else None
    return EarlyStops(rate, len(stopped), dict(sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))))


@dataclass
class KIEvalFigures:
    """A run's KIEval figures: scores 0–100 (None without a scored turn), turns held, early stops."""

    n_dialogues: int
    max_turns: int
    overall: float | None
    aspects: dict[str, float | None]
    completeness: float | None
    early_stop: EarlyStops


def kieval_figures(overall: Sequence[Sequence[int]], aspects: dict[str, Sequence[Sequence[int]]], turns_held: Sequence[int],
                   stop_reasons: Sequence[str | None], max_turns: int) -> KIEvalFigures:
    """From each dialogue's held turns' scores (overall and per aspect), turns held and stop reason."""
    return KIEvalFigures(
        n_dialogues=len(turns_held),
        max_turns=max_turns,
        overall=run_score(overall),
        aspects={a: run_score(d) for a, d in aspects.items()},
        completeness=completeness(turns_held),
        early_stop=early_stops(stop_reasons),
    )
