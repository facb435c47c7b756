"""How close a leak check came to another verdict: the distance of each score it decided on
from the threshold it was compared with.

The guard's layers compare numbers computed from MiniLM vectors with fixed thresholds (a cosine,
a score over the content-free baseline, the learned layer's probability). Vectors differ in
their last bits between CPUs; only a check with a number that near a threshold can change its
verdict. :func:`recording` collects, for the checks run inside it, the smallest such distance
each layer saw, so the checks that could flip can be told from the ones that cannot (the
precision test reruns only those on another CPU's kernels). Outside it nothing is kept.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

import numpy as np

_smallest: ContextVar[list[float] | None] = ContextVar("leak_margins", default=None)


@contextmanager
def recording() -> Iterator[list[float]]:
    """A one-item list holding the smallest margin noted inside (``inf`` when none was)."""
    box = [float("inf")]
    token = _smallest.set(box)
    try:
        yield box
    finally:
        _smallest.reset(token)


def note(scores: object, threshold: object) -> None:
    """Note how far ``scores`` (a number or an array) came from ``threshold`` (the same shape,
    or one number)."""
    box = _smallest.get()
    if box is None:
        return
    gap = np.abs(np.asarray(scores, dtype=np.float64) - np.asarray(threshold, dtype=np.float64))
    if gap.size:
        box[0] = min(box[0], float(gap.min()))
