"""The circuit breaker: stop asking a model that keeps failing.

Every call that went to a model ends, after its retries, as an answer or a failure. When
more than ``max_failure_share`` of the last ``window`` calls to one model failed (by
default more than 4 of the last 20), the endpoint is taken to be down, out of quota or
misconfigured, and every further call to that model raises :class:`CircuitOpen`. The run
then stops cleanly; its folder stays resumable, and no budget is burnt on a dead endpoint.

A reply the model did give but that is unusable (``FailureKind.is_answer``) is the
model's answer, not an endpoint failure, and counts as a success here.
"""

from __future__ import annotations

import collections
import threading

from judgeagent.errors import JudgeAgentError
from judgeagent.llm.outcome import Failure, FailureKind


class CircuitOpen(JudgeAgentError):
    """A model failed too often; ``model`` and ``last_error`` say which and why."""

    def __init__(self, model: str, last_error: str, failed: int, window: int):
        self.model = model
        self.last_error = last_error
        self.failed = failed
        self.window = window
        super().__init__(
            f"model '{model}' stopped answering: {failed} of its last {window} requests failed after retries "
            f"(last error: {last_error}); answers so far are saved, rerun the same command to resume"
        )


class CircuitBreaker:
    def __init__(self, window: int, max_failure_share: float):  # LLMConfig.breaker_window, .breaker_failure_share
        self.window = max(1, window)
        self.max_failure_share = max_failure_share
        self._lock = threading.Lock()
        self._recent: dict[str, collections.deque[bool]] = {}
        self._last_error: dict[str, str] = {}
        self._open: dict[str, CircuitOpen] = {}

    def record(self, model: str, failure: Failure | None) -> None:
        """One call's outcome after retries; ``failure`` None (or an answer) is a success."""
        # An expired batch line says the provider's queue was slow, not that the model is down:
        # --batch-api-expired decides about it, and a whole expired job must not stop the run.
        failed = failure is not None and not failure.kind.is_answer and failure.kind is not FailureKind.EXPIRED
        with self._lock:
            recent = self._recent.setdefault(model, collections.deque(maxlen=self.window))
            recent.append(failed)
            if failure is not None and failed:
                self._last_error[model] = f"{failure.kind}: {failure.message}"
            count = sum(recent)
            if count > self.max_failure_share * self.window and model not in self._open:
                self._open[model] = CircuitOpen(model, self._last_error[model], count, len(recent))

    def check(self, model: str) -> None:
        """Raise CircuitOpen if ``model`` has failed too often."""
        with self._lock:
            err = self._open.get(model)
        if err is not None:
            raise CircuitOpen(err.model, err.last_error, err.failed, err.window)

    def is_open(self, model: str) -> bool:
        with self._lock:
            return model in self._open
