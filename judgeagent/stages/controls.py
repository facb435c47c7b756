"""The placebo control: does *any* note of the same length move ACC2, or the judge's advice?

Re-asking with a content-free note of the judge's length measures how much of ΔACC comes
from being asked twice with extra words in the prompt rather than from the diagnosis. The
note says nothing and asks nothing: generic study advice is itself a treatment.
"""

from __future__ import annotations

import random
from itertools import combinations_with_replacement

import numpy as np

# Content-free sentences: statements about the note itself, none about any question, topic
# or option, and no instruction either. "Think step by step" or "check your answer" is an
# active intervention (it can move accuracy by itself), so a placebo made of such advice
# would measure a second treatment, not the effect of extra words in the prompt.
# Lengths are spread from about 45 to 100 characters so that one sentence or a few fit
# any target length from 50 characters up within the tolerance.
PLACEBO_SENTENCES = (
    "The questions below are shown a second time.",
    "This note is added to every batch in the same way.",
    "The same questions appear again, in the same order as before.",
    "Each batch in this set comes with a short note like this one.",
    "The wording of the questions has not been changed.",
    "This paragraph is a fixed text and is not about any question.",
    "Notes of this kind have about the same length in every batch.",
    "Nothing in this note refers to a particular question or topic.",
    "Questions of this kind are common in written examinations.",
    "The set was put together for an evaluation of language models.",
    "This text comes from a fixed list of sentences and does not change with the questions.",
    "The format of the reply is the same as in the first round of this session.",
    "Some questions in this set are longer than others and give more details.",
    "Several batches of questions are processed in this session, each on its own and with a note like this.",
    "This sentence, like the others in the note, is here only to give the note its length.",
)

TOLERANCE = 0.15  # relative, for targets of at least 50 characters
_SEP = 1  # the space between sentences

# The tails of one to three sentences, as rows of positions into a shuffled deck (NONE pads
# shorter tails), in the order Python's combinations_with_replacement gives them. Scoring all
# 815 at once in numpy, not one by one in Python, matters: every re-asked batch makes a
# placebo, and a replayed run of 1,273 questions spent a fifth of its time here.
NONE = len(PLACEBO_SENTENCES)
_TAILS = np.array(
    [c + (NONE,) * (3 - k) for k in (1, 2, 3) for c in combinations_with_replacement(range(NONE), k)], dtype=np.intp
)
_TAILS_OR_NONE = np.vstack([_TAILS, np.full((1, 3), NONE, dtype=np.intp)])  # no tail: when sentences are placed already


def placebo_suggestion(length_chars: int, seed: int) -> str:
    """A content-free note of about ``length_chars`` characters (within ±15% from 50 up), fixed by ``seed``.

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
    tails = _TAILS_OR_NONE if parts else _TAILS
    used = set(parts)
    cost = np.array([len(s) + _SEP for s in pool] + [0])[tails].sum(axis=1)
    error = np.abs(size + cost - _SEP - length_chars)
    off = np.where(error <= TOLERANCE * length_chars / 2, 0.0, error)
    # A sentence repeats when it is already in the text or earlier in the tail (rows are sorted).
    unused = np.array([s not in used for s in pool] + [False])[tails]
    first = np.ones_like(unused)
    first[:, 1:] = tails[:, 1:] != tails[:, :-1]
    repeats = (tails != NONE).sum(axis=1) - (unused & first).sum(axis=1)
    best = tails[np.lexsort((repeats, off))[0]]  # lexsort is stable: the first of the best, as min() gives
    return " ".join(parts + [pool[i] for i in best if i != NONE])
