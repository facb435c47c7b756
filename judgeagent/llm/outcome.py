"""What one attempt at a model call comes back with: a :class:`Reply` or a typed :class:`Failure`.

A failure's :class:`FailureKind` is what the layers above decide on: the retry policy
retries some kinds, the negotiation adapts to a refused parameter, the circuit breaker
counts endpoint failures, and a stage tells "the call failed" (the batch is incomplete)
from "the model answered badly" (graded wrong) with :attr:`FailureKind.is_answer`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum

from judgeagent.llm.usage import TokenUsage


class FailureKind(str, Enum):
    RATE_LIMITED = "rate_limited"  # HTTP 429 (or a provider's rate-limit code): wait and retry
    QUOTA = "quota"  # out of credit or of a daily/5-hour quota: retrying does not help
    REFUSED_PARAMETER = "refused_parameter"  # a 4xx naming an option the server will not take
    BAD_REQUEST = "bad_request"  # any other 4xx
    AUTH = "auth"  # 401 / 403: the key is missing, wrong or not allowed this model
    SERVER_ERROR = "server_error"  # 5xx, 408, 409, 425
    TIMEOUT = "timeout"  # no answer within timeout_s
    UNREACHABLE = "unreachable"  # connection refused or dropped
    MALFORMED = "malformed"  # a 200 whose body is not a chat completion
    TRUNCATED = "truncated"  # stopped at the output limit with no usable answer, budget doubled once
    EMPTY = "empty"  # the model returned no content, and was not cut short
    PARSE = "parse"  # the model's reply did not fit the schema, re-asks included
    EXPIRED = "expired"  # a Batch API job's window ended before the request ran (--batch-api-expired decides)

    @property
    def is_answer(self) -> bool:
        """True when the model did answer and the answer is unusable: graded wrong.

        Every other kind means no answer came back; the caller must not grade it.
        """
        return self in (FailureKind.PARSE, FailureKind.EMPTY)

    def __str__(self) -> str:
        return self.value


@dataclass(frozen=True)
class Failure:
    kind: FailureKind
    message: str  # one line, already free of secrets
    status: int | None = None  # HTTP status, when there was one
    param: str | None = None  # error.param, or the parameter the message names
    code: str | None = None  # error.code as the provider sent it (e.g. "unsupported_value", "1302")
    retry_after: float | None = None  # seconds the server asked us to wait

    def with_message(self, message: str) -> Failure:
        return Failure(self.kind, message, self.status, self.param, self.code, self.retry_after)

    def __str__(self) -> str:
        return self.message


@dataclass
class Reply:
    """One completion as the server sent it, with the thinking separated from the answer."""

    text: str | None  # the visible answer: content with terminated <think> blocks removed
    raw_text: str | None = None  # content exactly as sent
    thinking: str = ""  # think-block text, or message.reasoning_content / message.reasoning
    thinking_unterminated: bool = False  # an opening <think> never closed: cut off while thinking
    tokens: TokenUsage = field(default_factory=TokenUsage)
    finish_reason: str | None = None
    served_model: str = ""  # response.model: what the server says answered

    @property
    def cut_short(self) -> bool:
        return self.finish_reason == "length"

    @property
    def reasons(self) -> bool:
        """The reply shows that the model thinks before it answers."""
        return bool(self.thinking) or self.thinking_unterminated or self.tokens.reasoning_tokens > 0
