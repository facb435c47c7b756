"""The placebo control: does *any* advice of the same length move ACC2, or the judge's?

Re-asking with a bland, content-free suggestion of the judge's length measures how much of
ΔACC comes from being asked twice with extra words in the prompt rather than from the
diagnosis.
"""

from __future__ import annotations

import random
from itertools import combinations_with_replacement

# Domain-free study advice: nothing here may be about any question, topic or option.
# Lengths are spread from about 45 to 100 characters so that one sentence or a few fit
# any target length from 50 characters up within the tolerance.
PLACEBO_SENTENCES = (
    "Read each question carefully before answering.",
    "Take your time and avoid rushing to a conclusion.",
    "Make sure you understand what is being asked before you reply.",
    "Consider every option before settling on one of them.",
    "Pay attention to the exact wording of each question.",
    "Think step by step and check that your reasoning is consistent.",
    "Stay calm and focused while you work through the questions.",
    "If a question seems difficult, break it into smaller parts.",
    "Double-check your answer once you have made a choice.",
    "Rely on what you know rather than on guesses.",
    "Keep your reasoning clear, simple and well organised from start to finish.",
    "Re-read the question when something in it seems unclear or ambiguous to you.",
    "Look out for words such as not, always or never, because they can change the meaning of a question.",
    "Answer in the format that is requested, and keep your final answer short and precise.",
    "Before you commit, ask yourself whether your answer really responds to the question as it is written.",
)

TOLERANCE = 0.15  # relative, for targets of at least 50 characters
_SEP = 1  # the space between sentences


def _cost(parts: tuple[str, ...]) -> int:
    return sum(len(s) + _SEP for s in parts)


def placebo_suggestion(length_chars: int, seed: int) -> str:
    """Bland advice of about ``length_chars`` characters (within ±15% from 50 up), fixed by ``seed``.

    Whole sentences from :data:`PLACEBO_SENTENCES` in a seeded order, preferring unused
    ones, so sentences repeat only in long texts. Always at least one sentence, so very
    short targets overshoot.
    """
    rng = random.Random(seed)
    longest = max(len(s) for s in PLACEBO_SENTENCES) + _SEP
    parts: list[str] = []
    size = 0  # length of " ".join(parts) + 1, so each sentence costs len + 1
    deck: list[str] = []
    # Fill in seeded order until at most three sentences are left to place...
    while size + 3 * longest < length_chars + _SEP:
        if not deck:
            deck = rng.sample(PLACEBO_SENTENCES, len(PLACEBO_SENTENCES))
        sentence = deck.pop()
        parts.append(sentence)
        size += len(sentence) + _SEP
    # ...then finish with one to three sentences: among those landing well inside the
    # tolerance, the first in seeded order that repeats the fewest sentences; else the closest.
    pool = rng.sample(PLACEBO_SENTENCES, len(PLACEBO_SENTENCES))
    candidates = [c for k in (1, 2, 3) for c in combinations_with_replacement(pool, k)]
    if parts:
        candidates.append(())
    used = set(parts)
    slack = TOLERANCE * length_chars / 2

    def rank(tail: tuple[str, ...]) -> tuple[float, int]:
        error = abs(size + _cost(tail) - _SEP - length_chars)
        repeats = len(tail) - len(set(tail) - used)
        return (0.0 if error <= slack else error, repeats)

    return " ".join(parts + list(min(candidates, key=rank)))
