"""One attempt: send a body, return a :class:`Reply` or a typed :class:`Failure`. Never retries.

Error bodies are read the way providers write them: OpenAI's ``{"error": {"message",
"type", "param", "code"}}``; DashScope's (the same, with ``param: null`` and a message
that may be Chinese); Zhipu's ``{"error": {"code": "1302", "message": "…"}}``, where the
code, not the HTTP status, says whether a 429 is a passing rate limit or an exhausted
quota. Retry-After / retry-after-ms headers become ``Failure.retry_after``.
"""

from __future__ import annotations

import email.utils
import json
import time
from typing import Any

import httpx2  # the HTTP library the openai package is built on
import openai
from pydantic import ValidationError

from judgeagent.llm.outcome import Failure, FailureKind, Reply
from judgeagent.llm.thinking import reasoning_share, split_thinking
from judgeagent.llm.usage import TokenUsage
from judgeagent.llm.wire import Choice, Completion, ErrorBody, Usage

# error.code values meaning "no more until the quota resets / you pay", even under 429:
# OpenAI's insufficient_quota; Zhipu's 1113 (in arrears), 1304 (daily limit),
# 1308 / 1310 (5-hour / weekly limit), 1309 (plan expired).
QUOTA_CODES = {"insufficient_quota", "1113", "1304", "1308", "1309", "1310"}
# error.code values that say a parameter was refused, whatever the message's language.
PARAM_CODES = {"unsupported_parameter", "unsupported_value", "invalid_parameter", "invalid_parameter_error", "1210", "1213", "1214", "1215"}


async def send_once(http: openai.AsyncOpenAI, body: dict, timeout_s: float) -> Reply | Failure:
    """POST /chat/completions once. Cancellation propagates; everything else is an outcome."""
    try:
        # The plain-JSON form of chat.completions.create: the typed one spends
        # milliseconds per call validating params we build ourselves anyway.
        raw = await http.post("/chat/completions", cast_to=httpx2.Response, body=body, options={"timeout": timeout_s})
        resp = raw.json()
    except openai.APIStatusError as e:
        return failure_from_status(e.status_code, e.body if e.body is not None else e.message, e.response.headers)
    except openai.APITimeoutError:
        return Failure(FailureKind.TIMEOUT, f"no answer within {timeout_s:g} s")
    except openai.APIConnectionError as e:
        return Failure(FailureKind.UNREACHABLE, " ".join(str(e.__cause__ or e).split()) or "connection failed")
    except ValueError as e:  # 200 with a body that is not JSON: a broken proxy or server
        return Failure(FailureKind.MALFORMED, f"invalid response body ({e})")
    return reply_from(resp, body.get("messages", []))


# --------------------------------------------------------------------------- failures


def error_fields(body: Any) -> tuple[str, str | None, str | None]:
    """(message, param, code) of an error body, tolerant of every shape seen in the wild."""
    err = body.get("error", body) if isinstance(body, dict) else body
    if isinstance(err, dict):
        e = ErrorBody.model_validate(err)
        text = e.message if isinstance(e.message, str) else json.dumps(body, ensure_ascii=False)[:500]
        return _one_line(text), str(e.param) if e.param else None, str(e.code) if e.code not in (None, "") else None
    return _one_line(str(err) if err is not None else ""), None, None


def failure_from_status(status: int, body: Any, headers=None) -> Failure:
    message, param, code = error_fields(body)
    kind = _status_kind(status, param, code)
    detail = f"HTTP {status}: {message}"
    if param or code:
        detail += " (" + ", ".join(f"{k}={v}" for k, v in (("param", param), ("code", code)) if v) + ")"
    return Failure(kind, detail, status, param, code, retry_after(headers))


def _status_kind(status: int, param: str | None, code: str | None) -> FailureKind:
    if code in QUOTA_CODES:
        return FailureKind.QUOTA
    if status == 429:
        return FailureKind.RATE_LIMITED
    if status in (401, 403):
        return FailureKind.AUTH
    if status in (408, 409, 425) or status >= 500:
        return FailureKind.SERVER_ERROR
    if param or code in PARAM_CODES:
        return FailureKind.REFUSED_PARAMETER
    return FailureKind.BAD_REQUEST


def retry_after(headers) -> float | None:
    """Seconds from Retry-After / retry-after-ms (OpenAI), None if absent or unreadable."""
    if headers is None:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000)
        except ValueError:
            pass
    ra = headers.get("retry-after")
    if not ra:
        return None
    try:
        return max(0.0, float(ra))
    except ValueError:
        try:
            when = email.utils.parsedate_to_datetime(ra)
            return max(0.0, when.timestamp() - time.time())
        except (TypeError, ValueError):
            return None


def _one_line(text: str) -> str:
    return " ".join(str(text).split())[:500]


# --------------------------------------------------------------------------- replies


def reply_from(resp: Any, convo: list[dict]) -> Reply | Failure:
    """A chat completion's first choice, with thinking set apart from the answer.

    ``message.reasoning_content`` (DeepSeek, vLLM, SGLang) and ``message.reasoning`` (newer
    vLLM) are thinking, never the answer; so are terminated ``<think>`` blocks in content.
    """
    try:
        completion = Completion.model_validate(resp) if isinstance(resp, dict) else None
    except ValidationError:
        completion = None
    if completion is None or not completion.choices or not isinstance(completion.choices[0], dict):
        return Failure(FailureKind.MALFORMED, "the response has no choices")
    choice = Choice.model_validate(completion.choices[0])  # only the first is read
    message = choice.message
    raw = message.content
    if raw is not None and not isinstance(raw, str):
        raw = json.dumps(raw)  # e.g. a list of content parts
    answer, thinking, unterminated = split_thinking(raw) if raw else ("" if raw is not None else None, "", False)
    field_thinking = next((t for t in (message.reasoning_content, message.reasoning) if t is not None), "")
    thinking = "\n".join(t for t in (field_thinking, thinking) if t)
    tokens = _tokens(completion.usage, convo, raw or "", thinking, answer or "")
    return Reply(answer, raw, thinking, unterminated, tokens, choice.finish_reason, str(completion.model or ""))


def _tokens(u: Usage | None, convo: list[dict], raw: str, thinking: str, answer: str) -> TokenUsage:
    if u is not None and u.prompt_tokens is not None:
        prompt = u.prompt_tokens
        completion = u.completion_tokens or 0
        reported = u.completion_tokens_details.reasoning_tokens
        reasoning = reported if reported is not None else reasoning_share(completion, thinking, answer)
        return TokenUsage(prompt, completion, reasoning, min(prompt, u.cached_tokens))
    # A server without usage: estimate by words so accounting is never empty.
    prompt = sum(len(str(m.get("content", "")).split()) for m in convo)
    think = len(thinking.split())
    return TokenUsage(prompt, len(answer.split()) + think, think)
