"""What an OpenAI-compatible server sends back, parsed once (the edge of the client).

A chat completion's JSON and an error body arrive as dicts; :mod:`judgeagent.llm.sender`
reads them through these models, so everything past it sees attributes. Providers differ
in what they fill in and how (a content that is a list of parts, usage without details,
DeepSeek's cache counts beside OpenAI's, an error ``code`` that is a number), so every field
is optional and a field of an unexpected shape reads as absent rather than failing the
reply: the sender's own checks decide what is malformed.
"""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field


def _int_or_none(v: Any) -> int | None:
    try:
        return None if v is None or isinstance(v, bool) else int(v)
    except (TypeError, ValueError):
        return None


def _dict_or_empty(v: Any) -> Any:
    return v if isinstance(v, dict) else {}


def _str_or_none(v: Any) -> str | None:
    return v if isinstance(v, str) else None


LenientInt = Annotated[int | None, BeforeValidator(_int_or_none)]
Text = Annotated[str | None, BeforeValidator(_str_or_none)]


class _Wire(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)


class CompletionDetails(_Wire):
    reasoning_tokens: LenientInt = None


class PromptDetails(_Wire):
    cached_tokens: LenientInt = None


class Usage(_Wire):
    prompt_tokens: LenientInt = None
    completion_tokens: LenientInt = None
    completion_tokens_details: Annotated[CompletionDetails, BeforeValidator(_dict_or_empty)] = Field(default_factory=CompletionDetails)
    prompt_tokens_details: Annotated[PromptDetails, BeforeValidator(_dict_or_empty)] = Field(default_factory=PromptDetails)
    prompt_cache_hit_tokens: LenientInt = None  # DeepSeek's count of cached prompt tokens

    @property
    def cached_tokens(self) -> int:
        """Prompt tokens the provider read from its prompt cache, as it reports them.

        OpenAI, DashScope, Gemini's and vLLM's OpenAI-compatible modes:
        ``usage.prompt_tokens_details.cached_tokens``. DeepSeek: ``usage.prompt_cache_hit_tokens``
        (beside ``prompt_cache_miss_tokens``; the two add up to ``prompt_tokens``). Both are
        parts of ``prompt_tokens``, never on top of it. A server that reports neither: 0.
        """
        cached = self.prompt_tokens_details.cached_tokens
        if cached is None:
            cached = self.prompt_cache_hit_tokens
        return max(0, cached or 0)


class Message(_Wire):
    content: Any = None  # a string, or e.g. a list of content parts
    reasoning_content: Text = None  # DeepSeek, vLLM, SGLang: thinking, never the answer
    reasoning: Text = None  # newer vLLM: the same


class Choice(_Wire):
    message: Annotated[Message, BeforeValidator(_dict_or_empty)] = Field(default_factory=Message)
    finish_reason: Text = None


class Completion(_Wire):
    choices: list[Any] = Field(default_factory=list)  # the sender reads the first as a Choice
    usage: Annotated[Usage | None, BeforeValidator(lambda v: v if isinstance(v, dict) else None)] = None
    model: Any = None


class ErrorBody(_Wire):
    """``{"error": {"message", "type", "param", "code"}}`` (OpenAI, DashScope, Zhipu), or the
    same fields at the top level."""

    message: Any = None
    param: Any = None
    code: Any = None
