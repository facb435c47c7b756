"""The JSONL files of a Batch API job, as OpenAI documents them (and every OpenAI-compatible
batch endpoint copies): pure functions, no I/O.

Input, one request per line: ``{"custom_id", "method": "POST", "url": "/v1/chat/completions",
"body"}``, the body exactly what the live path would POST (the same ChatRequest builds
both). Output and error files, one line per request, in any order, matched by custom_id:
``{"id", "custom_id", "response": {"status_code", "request_id", "body"}, "error"}``. A
request the model answered has status 200 and the chat completion as its body; one that
failed has the error body a live call would have had (a 400 naming the parameter, a 500);
one that never ran has ``response: null`` and ``error.code`` ``batch_expired`` (the window
ended first) or ``batch_cancelled`` (the job was cancelled first).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from judgeagent.llm.journal import canonical
from judgeagent.llm.outcome import Failure, FailureKind, Reply
from judgeagent.llm.sender import failure_from_status, reply_from

CHAT_URL = "/v1/chat/completions"
MAX_LINES = 50_000  # OpenAI's per-job limit (DashScope's too)
MAX_BYTES = 95 * 1024 * 1024  # under the smallest documented input file: DashScope's 100 MB (OpenAI's is 200 MB)


def custom_id(key: str, body: dict, seq: int) -> str:
    """The line's id: the request's journal key and the exact body sent (a re-ask, a doubled
    limit or a negotiated parameter makes another body), then how many times this same body
    was sent before. At most 47 characters."""
    return f"ja-{body_hash(key, body)}-{seq}"


def body_hash(key: str, body: dict) -> str:
    return hashlib.sha256(f"{key}\n{canonical(body)}".encode()).hexdigest()[:40]


def split_id(cid: str) -> tuple[str, int]:
    """(body hash, sequence number) of a custom_id made by :func:`custom_id`."""
    head, _, seq = cid.rpartition("-")
    return head.removeprefix("ja-"), int(seq)


def input_line(cid: str, body: dict, url: str = CHAT_URL) -> str:
    return json.dumps({"custom_id": cid, "method": "POST", "url": url, "body": body}, ensure_ascii=False, separators=(",", ":"))


def chunks(lines: list[str]) -> list[list[int]]:
    """Indexes of ``lines`` split into files a provider accepts (line count and size)."""
    out: list[list[int]] = [[]]
    size = 0
    for i, line in enumerate(lines):
        n = len(line.encode()) + 1
        if out[-1] and (len(out[-1]) >= MAX_LINES or size + n > MAX_BYTES):
            out.append([])
            size = 0
        out[-1].append(i)
        size += n
    return out if out[0] else []


def parse_jsonl(text: str) -> dict[str, dict]:
    """custom_id -> line of an output or error file. Blank or unreadable lines are skipped
    (a request with no line is asked again, never taken as answered)."""
    out: dict[str, dict] = {}
    for raw in text.splitlines():
        if not raw.strip():
            continue
        try:
            line = json.loads(raw)
        except ValueError:
            continue
        if isinstance(line, dict) and isinstance(line.get("custom_id"), str):
            out[line["custom_id"]] = line
    return out


@dataclass(frozen=True)
class NotRun:
    """The job ended before this request ran: ``why`` is "expired", "cancelled" or "missing"
    (in neither file). Nothing was billed for it."""

    why: str
    message: str


Outcome = Reply | Failure | NotRun


def outcome(line: dict | None, convo: list[dict]) -> Outcome:
    """What one line says about its request: the reply, the failure a live call would have
    had, or that it never ran."""
    if line is None:
        return NotRun("missing", "the job ended without a line for this request in its output or error file")
    response = line.get("response")
    error = line.get("error")
    if isinstance(response, dict) and response.get("status_code") is not None:
        status = int(response["status_code"])
        body: Any = response.get("body")
        if status == 200 and isinstance(body, dict):
            return reply_from(body, convo)
        return failure_from_status(status, body if body is not None else {"error": error})
    code = str((error or {}).get("code") or "") if isinstance(error, dict) else ""
    message = str((error or {}).get("message") or code or "no response") if isinstance(error, dict) else "no response"
    if code == "batch_expired":
        return NotRun("expired", f"batch_expired: {message}")
    if code == "batch_cancelled":
        return NotRun("cancelled", f"batch_cancelled: {message}")
    if code == "request_timeout":
        return Failure(FailureKind.TIMEOUT, f"request_timeout: {message}")
    if code == "token_limit_exceeded":  # its job was refused for the provider's full queue: nothing ran
        return Failure(FailureKind.RATE_LIMITED, f"{code}: {message}", code=code)
    return Failure(FailureKind.SERVER_ERROR, f"{code or 'error'}: {message}", code=code or None)
