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
import socket
import threading
import time
import uuid
from dataclasses import dataclass
from collections.abc import Callable

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
    ):
        self.responder = responder or default_responder
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
            if fault is not None and fault.kind in ("status", "drop"):
                return self._fault_response(fault, request)
            content = self.responder(body)
            if isinstance(content, Fault):
                if content.kind in ("status", "drop"):
                    return self._fault_response(content, request)
                fault = content
            if fault is not None and fault.kind == "truncated_json":
                content = str(content)[: max(1, int(len(str(content)) * 0.6))]
            elif fault is not None and fault.kind == "invalid_json":
                content = "I think the answer is B, but I am not sure how to format it."
            return JSONResponse(self._completion(body, str(content)))
        finally:
            with self._lock:
                self._in_flight -= 1

    def _fault_response(self, fault: Fault, request: Request) -> Response:
        if fault.kind == "drop":
            return _DropResponse()
        message = fault.message or f"scripted fault {fault.code}"
        if fault.echo_auth:
            message += f" (got Authorization: {request.headers.get('authorization')})"
        headers = {"retry-after": f"{fault.retry_after:g}"} if fault.retry_after is not None else None
        return JSONResponse(
            {"error": {"message": message, "type": "scripted_error", "code": fault.code}},
            status_code=fault.code,
            headers=headers,
        )

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
    def start(self) -> ScriptedServer:
        app = Starlette(
            routes=[
                Route("/v1/chat/completions", self._chat, methods=["POST"]),
                Route("/v1/models", self._models, methods=["GET"]),
                Route("/v1/_stats", self._stats, methods=["GET"]),
                Route("/v1/_reset", self._reset, methods=["POST"]),
            ]
        )
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


class ScriptedServerProcess:
    """This module's server in its own process, for the benchmarks: a remote server does
    not share the client's GIL. ``interview`` (a JSON-able dict of
    ``interview_double.Script`` fields) makes it answer like the interview tests' target
    and judge; without it, every answer is "The answer is B because …"."""

    def __init__(self, delay: float, interview: dict | None = None):
        import json
        import subprocess
        import sys
        import tempfile

        args = [sys.executable, __file__, "--delay", str(delay)]
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
    args = ap.parse_args()
    responder = lambda b: "The answer is B because " + str(b["messages"][-1]["content"])  # noqa: E731
    if args.interview:
        from interview_double import Script  # beside this file, which is on sys.path as the script's folder

        with open(args.interview, encoding="utf-8") as f:
            responder = Script(**json.load(f))
    with ScriptedServer(responder, delay=args.delay, fast=True) as srv:
        print(srv.base_url, flush=True)
        sys.stdin.read()


if __name__ == "__main__":
    _serve_forever()
