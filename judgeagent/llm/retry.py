"""When to try a failed attempt again, and how long to wait first.

Transient kinds are retried: rate limits, server errors, timeouts, dropped connections
and garbled bodies. A server's Retry-After wins over our backoff (capped per wait).
Rate limits get their own patience, in seconds waited rather than attempts, because a
free tier can answer 429 for minutes (GLM-4-Flash's low concurrency) and every retry
there is expected. Everything else fails at once: retrying a refused key or an
exhausted quota only burns time.
"""

from __future__ import annotations

import asyncio
import random
import time
from dataclasses import dataclass

from judgeagent.config import LLMConfig
from judgeagent.llm.outcome import Failure, FailureKind

RETRYABLE = frozenset(
    {FailureKind.RATE_LIMITED, FailureKind.SERVER_ERROR, FailureKind.TIMEOUT, FailureKind.UNREACHABLE, FailureKind.MALFORMED}
)


@dataclass(frozen=True)
class RetryPolicy:
    # attempts per request for transient failures other than 429 (the client passes --max-attempts)
    max_attempts: int = LLMConfig.model_fields["max_attempts"].default
    backoff_base: float = 0.5  # seconds; doubled each attempt, with jitter in [0.5, 1]
    backoff_max: float = 30.0
    max_wait: float = 300.0  # the longest single Retry-After we honour
    rate_limit_patience: float = 600.0  # total seconds a request may wait out 429s

    def delay(self, failure: Failure, attempt: int, waited: float = 0.0) -> float | None:
        """Seconds to wait before attempt ``attempt + 1``, or None to give up.

        ``attempt`` counts the attempts made so far; ``waited`` the seconds already waited.
        """
        if failure.kind not in RETRYABLE:
            return None
        if failure.kind is FailureKind.RATE_LIMITED:
            wait = self._wait(failure, attempt)
            if attempt >= max(self.max_attempts, 2) and waited + wait > self.rate_limit_patience:
                return None
            return wait
        if attempt >= self.max_attempts:
            return None
        return self._wait(failure, attempt)

    def _wait(self, failure: Failure, attempt: int) -> float:
        if failure.retry_after is not None:
            return min(failure.retry_after, self.max_wait)
        return self.backoff(attempt)

    def backoff(self, attempt: int) -> float:
        return min(self.backoff_max, self.backoff_base * 2 ** (attempt - 1)) * random.uniform(0.5, 1.0)


class RateLimiter:
    """Spaces request starts evenly: at most ``rpm`` per minute, no bursts."""

    def __init__(self, rpm: int):
        self.interval = 60.0 / rpm
        self._next = 0.0
        self._lock = asyncio.Lock()

    async def wait(self) -> None:
        async with self._lock:
            now = time.monotonic()
            start = max(now, self._next)
            self._next = start + self.interval
        if start > now:
            await asyncio.sleep(start - now)
