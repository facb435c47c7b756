"""Computerised adaptive testing over calibrated bank items: pure, no models, no I/O.

Each step asks the unused item with the most Fisher information at the current ability
estimate, then re-estimates θ. It stops once the standard error reaches the target, or when
the items (or the allowed number of items) run out.

θ is estimated by EAP (posterior mean under a N(0, 1) prior, SE = posterior SD) rather than
maximum likelihood: after the first few answers, which are often all right or all wrong,
the likelihood has no maximum and an ML θ is ±∞, while EAP is always finite and its SE is
the honest spread of the posterior. With a normal prior it is also what the calibration
itself reports, so an adaptive θ and a full-bank θ are on one scale. The bias toward the
prior mean fades as items accumulate.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from judgeagent.bank.irt import eap, fisher_information


@dataclass
class Step:
    item: int  # index into the item arrays
    information: float  # at the θ it was chosen at
    correct: bool
    theta: float  # after the answer
    se: float


@dataclass
class AdaptiveTest:
    """One target's adaptive test over items (a, b)."""

    a: np.ndarray
    b: np.ndarray
    target_se: float
    max_items: int | None = None
    steps: list[Step] = field(default_factory=list)
    theta: float = 0.0
    se: float = 1.0

    def __post_init__(self) -> None:
        self.a, self.b = np.asarray(self.a, float), np.asarray(self.b, float)
        self.theta, self.se = eap([], [], [])

    @property
    def used(self) -> list[int]:
        return [s.item for s in self.steps]

    @property
    def stop_reason(self) -> str | None:
        """Why the test is over, or None while it goes on."""
        if self.se <= self.target_se:
            return "target SE reached"
        if len(self.steps) >= len(self.a):
            return "items ran out"
        if self.max_items is not None and len(self.steps) >= self.max_items:
            return "item limit reached"
        return None

    def next_item(self) -> int | None:
        """The unused item with the most information at the current θ (None when over)."""
        if self.stop_reason is not None:
            return None
        info = fisher_information(self.theta, self.a, self.b)
        info[self.used] = -np.inf
        return int(np.argmax(info))

    def record(self, item: int, correct: bool) -> Step:
        """Add one answer and re-estimate θ and its SE."""
        info = float(fisher_information(self.theta, self.a[item], self.b[item]))
        items = [*self.used, item]
        answers = [s.correct for s in self.steps] + [bool(correct)]
        self.theta, self.se = eap(np.array(answers, float), self.a[items], self.b[items])
        step = Step(item, info, bool(correct), self.theta, self.se)
        self.steps.append(step)
        return step


def simulate(a, b, answers: Callable[[int], bool], target_se: float, max_items: int | None = None) -> AdaptiveTest:
    """Run a whole adaptive test with a synchronous ``answers(item) -> correct``."""
    test = AdaptiveTest(a, b, target_se, max_items)
    while (item := test.next_item()) is not None:
        test.record(item, answers(item))
    return test
