"""One attempt through an Inspect AI model instead of an HTTP request (the ``inspect`` extra).

When our protocols run as Inspect tasks (:mod:`judgeagent.inspect`), Inspect's models do the
talking: the target is the eval's ``--model``, the judge the model role ``judge``, KIEval's
evaluator the role ``evaluator``. The client (:mod:`judgeagent.llm.client`) builds every
request as it always does, the same :class:`~judgeagent.llm.request.ChatRequest` and the
same body; for a spec made by :func:`inspect_spec` its one attempt is
:meth:`InspectTransport.send` instead of :func:`~judgeagent.llm.sender.send_once`, so the
re-asks, the output-limit doubling, the thinking split and the token accounting above it are
shared, and so is everything Inspect does below ``Model.generate``: its retries, connection
limits, cache, batch mode, token limits and per-role usage.

The model is looked up with ``get_model(role=...)`` at each call, inside the sample's solver,
as Inspect's documentation asks (a role not bound on the command line falls back to
``--model``). What each call sent and got back is kept, when the solver asks for it
(:func:`recording`), so the sample's messages show the interview.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from judgeagent.llm.outcome import Failure, FailureKind, Reply
from judgeagent.llm.registry import ModelSpec
from judgeagent.llm.thinking import reasoning_share, split_thinking
from judgeagent.llm.usage import TokenUsage

if TYPE_CHECKING:
    from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput

    from judgeagent.llm.request import ChatRequest

SCHEME = "inspect://"
TARGET = "target"  # the eval's --model; every other role is a model role


def inspect_spec(role: str) -> ModelSpec:
    """The spec standing for the Inspect model of ``role`` (``target``: ``--model``).

    Its concurrency is high because Inspect's ``--max-connections`` is the limit that holds.
    Its structured output steps down the forms a remote server's does: a JSON schema, which
    Inspect passes on to providers that take one, then llama.cpp's JSON object with the schema
    (through ``extra_body``, which Inspect's OpenAI-compatible providers send as it is), then a
    plain JSON object, then the schema in the prompt alone."""
    return ModelSpec(name=f"inspect:{role}", base_url=f"{SCHEME}{role}", model=role, concurrency=1024, response_format="auto")


def is_inspect(spec: ModelSpec) -> bool:
    return spec.base_url.startswith(SCHEME)


@dataclass(frozen=True)
class Exchange:
    """One call as a sample's messages show it: who was asked, at which step, what, and the reply."""

    role: str
    model: str  # the Inspect model's name
    stage: str
    messages: tuple[dict[str, Any], ...]
    reply: str | None


_RECORDING: ContextVar[list[Exchange] | None] = ContextVar("judgeagent_inspect_exchanges", default=None)


@contextmanager
def recording() -> Iterator[list[Exchange]]:
    """Keep every call made in this context (and the tasks it starts) in the list yielded."""
    calls: list[Exchange] = []
    token = _RECORDING.set(calls)
    try:
        yield calls
    finally:
        _RECORDING.reset(token)


class InspectTransport:
    """Sends a request body through the Inspect model playing ``role``."""

    def __init__(self, role: str):
        self.role = role
        # Whether the model has answered a request with a JSON schema. Until it has, such a
        # request is tried once without Inspect's retries: llama.cpp's server answers a JSON
        # schema with a 500, which Inspect would retry for ever.
        self.takes_schema = False

    def model(self) -> Model:
        from inspect_ai.model import get_model

        return get_model() if self.role == TARGET else get_model(role=self.role)

    async def send(self, req: ChatRequest, body: dict[str, Any]) -> Reply | Failure:
        """One call. Inspect retries failed calls itself and raises when it gives up; that
        exception is the sample's error (``inspect eval-retry`` runs the sample again). A
        request the provider refuses (a 4xx other than a rate limit or a key, or any error
        about the reply's schema) comes back as a :class:`Failure`, so the client adapts to it
        as over HTTP: a server that takes no JSON schema is asked with the next
        structured-output form."""
        from inspect_ai.model import GenerateConfig

        model, messages, config = self.model(), chat_messages(body["messages"]), generate_config(body)
        structured = config.response_schema is not None or "response_format" in (config.extra_body or {})
        output = None
        if structured and not self.takes_schema:
            try:
                output = await model.generate(messages, config=config.merge(GenerateConfig(max_retries=0)))
            except Exception as e:
                if schema_refused(e):
                    return Failure(FailureKind.REFUSED_PARAMETER, one_line(str(e)), param="response_format")
                # anything else: asked again below, with Inspect's retries
        if output is None:
            try:
                output = await model.generate(messages, config=config)
            except Exception as e:
                if (refused := refusal(e)) is None:
                    raise
                return refused
        if structured:
            self.takes_schema = True
        calls = _RECORDING.get()
        if calls is not None:
            calls.append(Exchange(self.role, str(model), req.stage, tuple(body["messages"]), output.completion if not output.error else None))
        return reply_from_output(output, body["messages"])


def one_line(text: str) -> str:
    return " ".join(text.split())[:500]


def cause(error: BaseException) -> BaseException:
    """The provider's own error: Inspect raises tenacity's RetryError when it stops retrying."""
    last = getattr(error, "last_attempt", None)
    inner = last.exception() if last is not None and hasattr(last, "exception") else None
    return inner if isinstance(inner, BaseException) else error


def schema_refused(error: Exception) -> bool:
    """The error is about the reply's schema (llama.cpp: a 500 whose body names response_format)."""
    error = cause(error)  # type: ignore[assignment]
    text = f"{error} {getattr(error, 'body', '')}".lower()
    return any(w in text for w in ("response_format", "json_schema", "response_schema"))


def chat_messages(messages: list[dict[str, Any]]) -> list[ChatMessage]:
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

    kinds = {"system": ChatMessageSystem, "user": ChatMessageUser, "assistant": ChatMessageAssistant}
    return [kinds[m["role"]](content=str(m.get("content") or "")) for m in messages]


def generate_config(body: dict[str, Any]) -> GenerateConfig:
    """The body's sampling settings and reply schema, as Inspect's ``GenerateConfig``: only
    what the request sets, so the eval's own settings (``--max-retries``, ``--cache``...) hold."""
    from inspect_ai.model import GenerateConfig, ResponseSchema
    from inspect_ai.util import JSONSchema

    settings: dict[str, Any] = {}
    if body.get("temperature") is not None:
        settings["temperature"] = body["temperature"]
    limit = body.get("max_tokens") or body.get("max_completion_tokens")
    if limit:
        settings["max_tokens"] = int(limit)
    if body.get("seed") is not None:
        settings["seed"] = body["seed"]
    rf = body.get("response_format") or {}
    if rf.get("type") == "json_schema":
        js = rf["json_schema"]
        settings["response_schema"] = ResponseSchema(name=js["name"], json_schema=JSONSchema.model_validate(js["schema"]), strict=False)
    # The rest verbatim: a JSON-object form (llama.cpp's), options the server turned out to
    # want (enable_thinking), the user's extra_body.
    extra = {k: v for k, v in body.items() if k not in PLAIN or (k == "response_format" and rf.get("type") != "json_schema")}
    if extra:
        settings["extra_body"] = extra
    return GenerateConfig(**settings)


PLAIN = {"model", "messages", "temperature", "max_tokens", "max_completion_tokens", "seed", "response_format"}  # said through GenerateConfig


def refusal(error: Exception) -> Failure | None:
    """A provider's refusal of the request (an HTTP 4xx but a rate limit, a key or a conflict)
    as the client's Failure; None for anything else, which stays the sample's error."""
    error = cause(error)  # type: ignore[assignment]
    status = getattr(error, "status_code", None)
    if not isinstance(status, int) or not 400 <= status < 500 or status in (401, 403, 408, 409, 425, 429):
        return None
    from judgeagent.llm.sender import failure_from_status

    return failure_from_status(status, getattr(error, "body", None) or str(error))


STOPS = {"max_tokens": "length", "model_length": "length", "stop": "stop", "content_filter": "content_filter", "tool_calls": "tool_calls"}


def reply_from_output(output: ModelOutput, convo: list[dict[str, Any]]) -> Reply | Failure:
    """An Inspect ``ModelOutput`` as the client's :class:`Reply` (thinking apart from the answer)."""
    from inspect_ai.model import ContentReasoning

    if output.error and not output.completion:
        return Failure(FailureKind.SERVER_ERROR, one_line(str(output.error)))
    raw = output.completion
    answer, thinking, unterminated = split_thinking(raw) if raw else ("", "", False)
    message = output.message if output.choices else None
    parts = message.content if message is not None and isinstance(message.content, list) else []
    reasoning = "\n".join(p.reasoning for p in parts if isinstance(p, ContentReasoning) and p.reasoning)
    thinking = "\n".join(t for t in (reasoning, thinking) if t)
    return Reply(answer, raw, thinking, unterminated, tokens_of(output, convo, thinking, answer or ""), STOPS.get(output.stop_reason, "stop"),
                 str(output.model or ""))


def tokens_of(output: ModelOutput, convo: list[dict[str, Any]], thinking: str, answer: str) -> TokenUsage:
    u = output.usage
    if u is None:  # a provider without usage: words, as for an OpenAI-compatible server without it
        prompt = sum(len(str(m.get("content", "")).split()) for m in convo)
        return TokenUsage(prompt, len(answer.split()) + len(thinking.split()), len(thinking.split()))
    cached = u.input_tokens_cache_read or 0
    prompt = u.input_tokens + cached + (u.input_tokens_cache_write or 0)
    reasoning = u.reasoning_tokens if u.reasoning_tokens is not None else reasoning_share(u.output_tokens, thinking, answer)
    return TokenUsage(prompt, u.output_tokens, reasoning, cached)
