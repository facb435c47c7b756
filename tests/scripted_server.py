"""A scripted OpenAI-compatible server on 127.0.0.1 for tests and benchmarks.

    def responder(body: dict) -> str | Fault:   # body: the request JSON
        return '{"answer": "B"}'

    with ScriptedServer(responder, delay=0.0) as srv:
        spec = ModelSpec("scripted", srv.base_url, "scripted-model")
        ...
        srv.push_faults(Fault.status(429, retry_after=0.1), Fault.drop())
        srv.requests        # request bodies received so far (a copy, thread-safe)
        srv.max_in_flight   # highest number of chat requests being served at once

Faults queued with ``push_faults`` are consumed one per chat request, before the
responder is asked; the responder may also return a Fault itself (e.g. to refuse a
``response_format`` it does not like). Usage counts are whitespace words, so accounting
can be checked exactly. uvicorn + starlette run in a background thread on a free port.
"""

from __future__ import annotations

import asyncio
import collections
import json
import socket
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route


@dataclass(frozen=True)
class Fault:
    kind: str  # status | drop | delay | truncated_json | invalid_json
    code: int = 500
    retry_after: float | None = None
    message: str | None = None
    seconds: float = 0.0
    echo_auth: bool = False  # put the request's Authorization header in the error (redaction tests)

    @staticmethod
    def status(
        code: int, retry_after: float | None = None, message: str | None = None, echo_auth: bool = False
    ) -> Fault:
        return Fault("status", code=code, retry_after=retry_after, message=message, echo_auth=echo_auth)

    @staticmethod
    def drop() -> Fault:
        """Close the connection half-way through the response."""
        return Fault("drop")

    @staticmethod
    def delay(seconds: float) -> Fault:
        """Wait, then answer normally."""
        return Fault("delay", seconds=seconds)

    @staticmethod
    def truncated_json() -> Fault:
        """Answer with the responder's content cut off inside (60% of it)."""
        return Fault("truncated_json")

    @staticmethod
    def invalid_json() -> Fault:
        return Fault("invalid_json")


class _DropResponse(Response):
    """Promise a body, send one byte of it, and stop: the server then closes the connection."""

    def __init__(self):
        super().__init__()

    async def __call__(self, scope, receive, send) -> None:
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [(b"content-type", b"application/json"), (b"content-length", b"1000")],
            }
        )
        await send({"type": "http.response.body", "body": b"{", "more_body": True})


def _words(text: str) -> int:
    return len(str(text).split())


def default_responder(body: dict) -> str:
    last = body["messages"][-1]["content"] if body.get("messages") else ""
    return f"echo: {last}"


class ScriptedServer:
    def __init__(
        self,
        responder: Callable[[dict], str | Fault] | None = None,
        *,
        delay: float = 0.0,
        model_name: str = "scripted-model",
        fast: bool = False,
        provider: Provider | None = None,
    ):
        self.responder = responder or default_responder
        self.provider = provider  # answers the way a real provider does (see "Provider emulations")
        self.fast = fast
        self.delay = delay
        self.model_name = model_name
        self._lock = threading.Lock()
        self._faults: collections.deque[Fault] = collections.deque()
        self._requests: list[dict] = []
        self._headers: list[dict] = []
        self._arrivals: list[float] = []
        self._in_flight = 0
        self.max_in_flight = 0
        self.port: int | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None

    # ------------------------------------------------------------------ observation
    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def requests(self) -> list[dict]:
        with self._lock:
            return list(self._requests)

    @property
    def headers(self) -> list[dict]:
        with self._lock:
            return list(self._headers)

    @property
    def arrivals(self) -> list[float]:
        """time.monotonic() of each chat request's arrival."""
        with self._lock:
            return list(self._arrivals)

    @property
    def in_flight(self) -> int:
        return self._in_flight

    def push_faults(self, *faults: Fault) -> None:
        with self._lock:
            self._faults.extend(faults)

    def reset(self) -> None:
        with self._lock:
            self._requests.clear()
            self._headers.clear()
            self._arrivals.clear()
            self._faults.clear()
            self.max_in_flight = 0

    # ------------------------------------------------------------------ app
    async def _models(self, request: Request) -> Response:
        return JSONResponse(
            {"object": "list", "data": [{"id": self.model_name, "object": "model", "owned_by": "test"}]}
        )

    async def _stats(self, request: Request) -> Response:
        with self._lock:
            return JSONResponse({"requests": len(self._requests), "max_in_flight": self.max_in_flight})

    async def _reset(self, request: Request) -> Response:
        self.reset()
        return JSONResponse({"ok": True})

    async def _chat(self, request: Request) -> Response:
        body = await request.json()
        with self._lock:
            self._requests.append(body)
            self._headers.append(dict(request.headers))
            self._arrivals.append(time.monotonic())
            self._in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self._in_flight)
            fault = self._faults.popleft() if self._faults else None
        try:
            if fault is not None and fault.kind == "delay":
                await asyncio.sleep(fault.seconds)
                fault = None
            if self.delay:
                await asyncio.sleep(self.delay)
            status, payload, headers = self.respond(body, fault, self._in_flight, request.headers.get("authorization"))
            if payload is None:
                return _DropResponse()
            return JSONResponse(payload, status_code=status, headers=headers)
        finally:
            with self._lock:
                self._in_flight -= 1

    def respond(self, body: dict, fault: Fault | None = None, in_flight: int = 1, auth: str | None = None) -> tuple[int, dict | None, dict | None]:
        """(status, JSON body, headers) of one chat request, as this server answers it; a None
        body is a dropped connection. The batch server (tests/batch_server.py) answers each
        line of a job with it, so a run gets the same replies with or without --batch-api."""
        if fault is not None and fault.kind in ("status", "drop"):
            return self._fault_payload(fault, auth)
        if self.provider is not None:
            refusal = self.provider.refuse(body, in_flight)
            if refusal is not None:
                headers = {k: v for k, v in refusal.headers.items() if k.lower() not in ("content-length", "content-type")}
                return refusal.status_code, json.loads(bytes(refusal.body)), headers or None
        content = self.responder(body)
        if isinstance(content, Fault):
            if content.kind in ("status", "drop"):
                return self._fault_payload(content, auth)
            fault = content
        if fault is not None and fault.kind == "truncated_json":
            content = str(content)[: max(1, int(len(str(content)) * 0.6))]
        elif fault is not None and fault.kind == "invalid_json":
            content = "I think the answer is B, but I am not sure how to format it."
        completion = self._completion(body, str(content))
        if self.provider is not None:
            completion = self.provider.complete(completion, body)
        return 200, completion, None

    def _fault_payload(self, fault: Fault, auth: str | None) -> tuple[int, dict | None, dict | None]:
        if fault.kind == "drop":
            return 0, None, None
        message = fault.message or f"scripted fault {fault.code}"
        if fault.echo_auth:
            message += f" (got Authorization: {auth})"
        headers = {"retry-after": f"{fault.retry_after:g}"} if fault.retry_after is not None else None
        return fault.code, {"error": {"message": message, "type": "scripted_error", "code": fault.code}}, headers

    def _completion(self, body: dict, content: str) -> dict:
        prompt_words = sum(_words(m.get("content") or "") for m in body.get("messages", []))
        completion_words = _words(content)
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model", self.model_name),
            "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
            "usage": {
                "prompt_tokens": prompt_words,
                "completion_tokens": completion_words,
                "total_tokens": prompt_words + completion_words,
            },
        }

    # ------------------------------------------------------------------ lifecycle
    def routes(self) -> list[Route]:
        return [
            Route("/v1/chat/completions", self._chat, methods=["POST"]),
            Route("/v1/models", self._models, methods=["GET"]),
            Route("/v1/_stats", self._stats, methods=["GET"]),
            Route("/v1/_reset", self._reset, methods=["POST"]),
        ]

    def start(self) -> ScriptedServer:
        app = Starlette(routes=self.routes())
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        sock.bind(("127.0.0.1", 0))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(
            app,
            log_level="critical",
            lifespan="off",
            access_log=False,
            timeout_graceful_shutdown=1,
            backlog=4096,
            # The tests' faults are written against the pure-Python stack. The benchmarks'
            # server takes the C parser, so that it costs the machine about what a
            # remote endpoint would: nothing.
            http="httptools" if self.fast else "h11",
            loop="asyncio",
        )
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [sock]}, daemon=True)
        self._thread.start()
        deadline = time.monotonic() + 10
        while not self._server.started:
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("scripted server did not start")
            time.sleep(0.01)
        self._sock = sock
        return self

    def stop(self) -> None:
        if self._server is not None:
            self._server.should_exit = True
        if self._thread is not None:
            self._thread.join(timeout=10)
        try:
            self._sock.close()
        except Exception:
            pass

    def __enter__(self) -> ScriptedServer:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()


class Endpoint:
    """A responder behind a switch: while ``down(body, n)`` says so (``n``: requests seen so
    far), the server answers ``fault`` (by default a 503, as a provider's overloaded upstream
    does). Tests flip ``down`` to kill an endpoint and bring it back."""

    def __init__(self, responder, down=lambda body, n: False, fault: Fault | None = None):
        self.responder, self.down, self.seen = responder, down, 0
        self.fault = fault or Fault.status(503, message="upstream unavailable")

    def __call__(self, body: dict):
        self.seen += 1
        if self.down(body, self.seen):
            return self.fault
        return self.responder(body)


# --------------------------------------------------------------------------- provider emulations
#
# Each emulation makes the scripted server behave as one kind of real endpoint does, as
# documented (sources in tests/test_providers.py). Token counts are whitespace words, as
# everywhere in this server; thinking counts against the output limit, as it does on
# every provider: a small limit leaves an unterminated <think> and finish_reason "length".

THINK_PASSAGE = (
    'Okay, let me think this through. The answer format is {"response": [{"answer": "E"}]} and '
    'I should weigh each option: {"A": "unlikely", "B": "possible", "C": "doubtful"} before I decide. '
)


def thinking_text(words: int) -> str:
    """``words`` words of thinking, with braces and JSON-like drafts in it (as real ones have)."""
    pool = THINK_PASSAGE.split()
    return " ".join(pool[i % len(pool)] for i in range(words))


def error_response(status: int, error: dict, headers: dict | None = None, **extra) -> JSONResponse:
    return JSONResponse({"error": error, **extra}, status_code=status, headers=headers)


class Provider:
    """Base: accepts every request and answers plainly."""

    served_model: str | None = None  # response.model, when the provider names a snapshot

    def refuse(self, body: dict, in_flight: int) -> Response | None:
        return None

    def complete(self, completion: dict, body: dict) -> dict:
        if self.served_model:
            completion["model"] = self.served_model
        return completion


def _limit(body: dict) -> int:
    for name in ("max_completion_tokens", "max_tokens"):
        if body.get(name) is not None:
            return int(body[name])
    return 1 << 30


class Thinking(Provider):
    """A thinking model. ``style``: where its thinking goes.

    - ``inline``: content is ``<think>…</think>`` then the answer (Ollama, vLLM without a
      reasoning parser, llama.cpp serving Qwen3 / DeepSeek-R1 distills);
    - ``reasoning_content`` / ``reasoning``: a message field beside clean content (DeepSeek's
      API, vLLM / SGLang with a reasoning parser; newer vLLM calls it ``reasoning``); content
      is null when the limit is reached while thinking;
    - ``hidden``: not returned at all, only counted in
      ``usage.completion_tokens_details.reasoning_tokens`` (OpenAI's reasoning models);
      content is "" when the limit is reached while thinking.
    """

    def __init__(self, style: str = "inline", think_words: int = 200, served_model: str | None = None):
        assert style in ("inline", "reasoning_content", "reasoning", "hidden")
        self.style = style
        self.think_words = think_words
        self.served_model = served_model

    def complete(self, completion: dict, body: dict) -> dict:
        completion = super().complete(completion, body)
        choice = completion["choices"][0]
        answer = choice["message"]["content"]
        limit, words = _limit(body), answer.split()
        think = min(self.think_words, limit)
        said = max(0, min(len(words), limit - think))
        cut = think + len(words) > limit
        shown = None if think < self.think_words or (cut and said == 0) else (answer if not cut else " ".join(words[:said]))
        thought = thinking_text(think)
        message = choice["message"]
        if self.style == "inline":
            closed = think == self.think_words
            message["content"] = f"<think>\n{thought}" + (f"\n</think>\n\n{shown or ''}" if closed else "")
        elif self.style == "hidden":
            message["content"] = shown or ""
        else:
            message["content"] = shown
            message[self.style] = thought
        choice["finish_reason"] = "length" if cut else "stop"
        usage = completion["usage"]
        usage["completion_tokens"] = think + said
        usage["total_tokens"] = usage["prompt_tokens"] + think + said
        if self.style == "hidden":
            usage["completion_tokens_details"] = {"reasoning_tokens": think}
        return completion


class OpenAIReasoning(Thinking):
    """OpenAI's o-series / GPT-5 chat completions: ``max_tokens`` and any temperature but 1
    are refused with a 400 whose error names the parameter; reasoning is hidden and counted."""

    def __init__(self, think_words: int = 200, served_model: str = "o4-mini-2025-04-16"):
        super().__init__("hidden", think_words, served_model)

    def refuse(self, body: dict, in_flight: int) -> Response | None:
        if "max_tokens" in body:
            return error_response(400, {
                "message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
                "type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter",
            })  # fmt: skip
        if "temperature" in body and body["temperature"] != 1:
            return error_response(400, {
                "message": f"Unsupported value: 'temperature' does not support {body['temperature']} with this model. "
                "Only the default (1) value is supported.",
                "type": "invalid_request_error", "param": "temperature", "code": "unsupported_value",
            })  # fmt: skip
        return None


class DashScopeQwen3(Provider):
    """DashScope's OpenAI-compatible mode serving an open Qwen3 model: a non-streaming call
    without a top-level ``enable_thinking: false`` is refused (param null, code
    invalid_parameter_error)."""

    def refuse(self, body: dict, in_flight: int) -> Response | None:
        if body.get("enable_thinking") is not False:
            return error_response(
                400,
                {"code": "invalid_parameter_error", "param": None, "type": "invalid_request_error",
                 "message": "parameter.enable_thinking must be set to false for non-streaming calls"},
                request_id=uuid.uuid4().hex,
            )  # fmt: skip
        return None


class ZhipuRateLimit(Provider):
    """Zhipu's free tier (GLM-4-Flash): more requests in flight than ``max_concurrency``, and
    a burst of ``storm`` requests at first, get HTTP 429 with error code 1302 and a Chinese
    message, plus Retry-After (seconds, scaled down for tests)."""

    def __init__(self, max_concurrency: int = 1, storm: int = 4, retry_after: float = 0.05):
        self.max_concurrency = max_concurrency
        self.storm = storm
        self.retry_after = retry_after
        self.refused = 0

    def refuse(self, body: dict, in_flight: int) -> Response | None:
        if self.storm > 0 or in_flight > self.max_concurrency:
            self.storm = max(0, self.storm - 1)
            self.refused += 1
            return error_response(
                429, {"code": "1302", "message": "您当前使用该API的并发数过高，请降低并发，或联系客服增加限额"},
                headers={"retry-after": f"{self.retry_after:g}"},
            )
        return None


class RefusesOptions(Provider):
    """A server that refuses some options with an unhelpful 400.

    ``refused`` names body keys, or ``response_format:TYPE`` for one structured-output form.
    ``style`` "zh": Zhipu's generic code 1210 ("API 调用参数有误，请检查文档"), naming no
    parameter; "param": an English "Invalid request." that names it only in error.param.
    """

    def __init__(self, style: str = "zh", refused: tuple[str, ...] = ("seed", "response_format")):
        self.style = style
        self.refused = refused

    def _hit(self, body: dict) -> str | None:
        for name in self.refused:
            key, _, kind = name.partition(":")
            if key in body and (not kind or (body[key] or {}).get("type") == kind):
                return key
        return None

    def refuse(self, body: dict, in_flight: int) -> Response | None:
        hit = self._hit(body)
        if hit is None:
            return None
        if self.style == "zh":
            return error_response(400, {"code": "1210", "message": "API 调用参数有误，请检查文档"})
        return error_response(400, {"message": "Invalid request.", "type": "invalid_request_error", "param": hit, "code": None})



def _prompt_tokens(body: dict, *, schema_first: bool) -> list[tuple[str, str]]:
    """The prompt as the server would tokenize it: whitespace words, each tagged with its
    message's role (a role boundary is part of the prefix). With ``schema_first`` the
    ``response_format`` comes first as one untagged unit (it is not counted in prompt_tokens,
    like everything here that is not message words)."""
    tokens: list[tuple[str, str]] = []
    if schema_first and body.get("response_format"):
        tokens.append(("response_format", json.dumps(body["response_format"], sort_keys=True)))
    for i, m in enumerate(body.get("messages", [])):
        tokens += [(f"{i}:{m.get('role')}", w) for w in str(m.get("content") or "").split()]
    return tokens


def _common(a: list, b: list) -> int:
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def _counted(tokens: list[tuple[str, str]], n: int) -> int:
    """Of the first ``n`` tokens, those prompt_tokens counts (message words)."""
    return sum(1 for role, _ in tokens[:n] if role != "response_format")


class OpenAIPromptCache(Provider):
    """OpenAI's automatic prompt caching, as documented: a prompt of 1024 tokens or more
    hits the longest prefix it shares with an earlier request, counted in blocks of 128
    beyond the first 1024; the structured-output schema is a prefix of the system message,
    so a different schema shares nothing. Reported as
    ``usage.prompt_tokens_details.cached_tokens`` (part of prompt_tokens). DashScope's
    OpenAI-compatible mode reports its implicit cache in the same field. ``minimum`` and
    ``block`` shrink for prompts of test size."""

    def __init__(self, minimum: int = 1024, block: int = 128):
        self.minimum, self.block = minimum, block
        self.seen: list[list[tuple[str, str]]] = []

    def complete(self, completion: dict, body: dict) -> dict:
        completion = super().complete(completion, body)
        tokens = _prompt_tokens(body, schema_first=True)
        shared = _counted(tokens, max((_common(tokens, old) for old in self.seen), default=0))
        self.seen.append(tokens)
        cached = 0 if shared < self.minimum else self.minimum + (shared - self.minimum) // self.block * self.block
        usage = completion["usage"]
        usage["prompt_tokens_details"] = {"cached_tokens": min(cached, usage["prompt_tokens"]), "audio_tokens": 0}
        return completion


class DeepSeekPromptCache(Provider):
    """DeepSeek's context caching on disk, as documented: a request hits a persisted prefix
    unit only if it contains the whole unit; units are persisted at the end of each request's
    input, and for a prefix common to several requests once it is detected. So the second
    request about an article hits nothing (it does not contain the first whole prompt), and
    every later one hits the shared prefix. Reported as ``usage.prompt_cache_hit_tokens`` and
    ``usage.prompt_cache_miss_tokens``, which add up to prompt_tokens."""

    def __init__(self):
        self.units: set[tuple[tuple[str, str], ...]] = set()
        self.prompts: list[list[tuple[str, str]]] = []

    def complete(self, completion: dict, body: dict) -> dict:
        completion = super().complete(completion, body)
        tokens = _prompt_tokens(body, schema_first=False)
        hit = max((len(u) for u in self.units if tuple(tokens[: len(u)]) == u), default=0)
        for old in self.prompts:  # common-prefix detection
            n = _common(tokens, old)
            if n:
                self.units.add(tuple(tokens[:n]))
        self.units.add(tuple(tokens))
        self.prompts.append(tokens)
        usage = completion["usage"]
        hit = min(_counted(tokens, hit), usage["prompt_tokens"])
        usage["prompt_cache_hit_tokens"] = hit
        usage["prompt_cache_miss_tokens"] = usage["prompt_tokens"] - hit
        return completion

class ScriptedServerProcess:
    """This module's server in its own process, for the benchmarks: a remote server does
    not share the client's GIL. ``interview`` (a JSON-able dict of
    ``interview_double.Script`` fields) makes it answer like the interview tests' target
    and judge; without it, every answer is "The answer is B because …"."""

    def __init__(self, delay: float, interview: dict | None = None, thinking: int = 0):
        import json
        import subprocess
        import sys
        import tempfile

        args = [sys.executable, __file__, "--delay", str(delay)]
        if thinking:
            args += ["--thinking", str(thinking)]  # a thinking model: that many words in <think> per reply
        self._plan = None
        if interview is not None:
            self._plan = tempfile.NamedTemporaryFile("w", suffix=".json", delete=False)
            json.dump(interview, self._plan)
            self._plan.close()
            args += ["--interview", self._plan.name]
        self.proc = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        self.base_url = self.proc.stdout.readline().strip()
        if not self.base_url:
            raise RuntimeError("scripted server process did not start")

    def stats(self) -> dict:
        import httpx

        return httpx.get(self.base_url + "/_stats", trust_env=False).json()

    def reset(self) -> None:
        import httpx

        httpx.post(self.base_url + "/_reset", trust_env=False)

    def close(self) -> None:
        import os

        self.proc.stdin.close()
        self.proc.wait(timeout=10)
        if self._plan is not None:
            os.unlink(self._plan.name)

    def __enter__(self) -> ScriptedServerProcess:
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _serve_forever() -> None:
    """``python tests/scripted_server.py --delay 0.2 [--interview PLAN.json]``: what
    :class:`ScriptedServerProcess` runs. Prints the base URL, then serves until stdin
    closes. GET /v1/_stats returns {"requests": n, "max_in_flight": m}; POST /v1/_reset
    clears them."""
    import argparse
    import json
    import sys

    ap = argparse.ArgumentParser()
    ap.add_argument("--delay", type=float, default=0.0)
    ap.add_argument("--interview", help="JSON file of interview_double.Script fields")
    ap.add_argument("--thinking", type=int, default=0, help="answer as a thinking model: N words of <think> per reply")
    args = ap.parse_args()
    responder = lambda b: "The answer is B because " + str(b["messages"][-1]["content"])  # noqa: E731
    if args.interview:
        from interview_double import Script  # beside this file, which is on sys.path as the script's folder

        with open(args.interview, encoding="utf-8") as f:
            responder = Script(**json.load(f))
    provider = Thinking("inline", args.thinking) if args.thinking else None
    with ScriptedServer(responder, delay=args.delay, fast=True, provider=provider) as srv:
        print(srv.base_url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    _serve_forever()
