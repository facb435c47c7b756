"""The one async client every stage talks to models through.

What a ``chat`` call does, in order:

1. Key the request (model identity, messages, sampling, schema, seed) and look it up in
   the run's journal, then the shared cache: a hit costs nothing and sends nothing.
2. Otherwise check the budget, wait for a slot of the model's concurrency semaphore and
   its requests/minute limiter, and send it through the ``openai`` package (its own
   retries off: ours honour Retry-After and are visible in the accounting).
3. Retry 429, 5xx, timeouts and dropped connections with exponential backoff and jitter,
   up to ``max_attempts``; anything else, or the cap, gives ``ok=False`` -- never an
   exception -- so the stage can record the failure and go on.
4. With a schema: ask for JSON via response_format in the form the server understands
   (adapting once per model if it refuses), also describe the schema in the prompt,
   repair and validate the reply, and re-ask up to twice with the error appended.
5. Commit the answer to the journal (and cache) at once, so a killed run resumes.

API keys are read from the environment when a request is built and are scrubbed from
every error message; they are never written anywhere.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import random
import re
import socket
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

import httpx2  # the HTTP library the openai package is built on
import openai

from judgeagent.errors import ConfigError
from judgeagent.llm import local_server
from judgeagent.llm.journal import Entry, Journal, request_key
from judgeagent.llm.registry import ModelSpec
from judgeagent.llm.structured import ParseError, parse_structured, reask_message, schema_instructions
from judgeagent.llm.usage import CallRecord, TokenUsage, UsageTracker, cost_usd

# Error kinds a failed LLMResult carries as the prefix of ``error`` ("http: ...").
ERROR_KINDS = ("http", "timeout", "connection", "parse", "empty")


@dataclass
class LLMResult:
    ok: bool
    text: str = ""
    data: Any = None  # parsed and validated JSON when a schema was given
    error: str | None = None  # "<kind>: message", kind one of ERROR_KINDS
    cached: bool = False
    attempts: int = 0  # HTTP requests this call sent (0 when cached)
    usage: TokenUsage = field(default_factory=TokenUsage)
    latency_s: float = 0.0
    model: str = ""  # the spec name
    key: str = ""  # the journal key

    @property
    def error_kind(self) -> str | None:
        return self.error.split(":", 1)[0] if self.error else None

    def to_dict(self) -> dict:
        return {
            "ok": self.ok,
            "text": self.text,
            "data": self.data,
            "error": self.error,
            "cached": self.cached,
            "attempts": self.attempts,
            "usage": self.usage.to_dict(),
            "latency_s": round(self.latency_s, 4),
            "model": self.model,
            "key": self.key,
        }


class _Failure(Exception):
    def __init__(self, kind: str, message: str):
        super().__init__(f"{kind}: {message}")
        self.kind = kind


@dataclass
class _Reply:
    text: str | None
    tokens: TokenUsage
    finish_reason: str | None


@dataclass
class _CallStats:
    http: int = 0
    retries: int = 0
    reasks: int = 0
    cost: float = 0.0
    tokens: TokenUsage = field(default_factory=TokenUsage)


class _RateLimiter:
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


# Structured-output request forms, most specific first. A model starts at the first form
# its kind supports and steps down, once for the whole process, if the server refuses one.
_FORMS_REMOTE = ["json_schema", "json_object+schema", "json_object", "none"]
_FORMS_LLAMA = ["json_object+schema", "none"]  # llama.cpp's server 500s on json_schema
_FORMS_FORCED = {
    "json_schema": ["json_schema", "none"],
    "json_object": ["json_object+schema", "none"],
    "none": ["none"],
}


def _response_format(form: str, schema: dict) -> dict | None:
    if form == "json_schema":
        name = re.sub(r"[^A-Za-z0-9_-]", "_", str(schema.get("title", "response")))[:64] or "response"
        return {"type": "json_schema", "json_schema": {"name": name, "schema": schema, "strict": False}}
    if form == "json_object+schema":
        return {"type": "json_object", "schema": schema}
    if form == "json_object":
        return {"type": "json_object"}
    return None


@dataclass
class _ModelState:
    forms: list[str]
    sem: asyncio.Semaphore
    limiter: _RateLimiter | None
    form_index: int = 0
    send_seed: bool = True  # cleared if the server refuses the seed parameter


def _words(text: str) -> int:
    return len(text.split())


def _retry_after(headers) -> float | None:
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


def _http_client(trust_env: bool):
    """openai's default HTTP client, with TCP_NODELAY.

    Without it, a request written as two segments (headers, then body) waits for the
    server's delayed ACK: ~40 ms per request, which dominated latency against fast
    servers. Proxies from the environment are ignored for loopback endpoints.
    """
    transport = httpx2.AsyncHTTPTransport(
        trust_env=trust_env,
        limits=httpx2.Limits(max_connections=1000, max_keepalive_connections=100, keepalive_expiry=30.0),
        socket_options=[(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)],
    )
    return openai.DefaultAsyncHttpxClient(transport=transport, trust_env=trust_env)


def _is_loopback(url: str) -> bool:
    host = urlparse(url).hostname or ""
    return host in ("127.0.0.1", "localhost", "::1")


class LLMClient:
    """Async, concurrent, retrying, journaling chat client. Use as ``async with LLMClient(...)``.

    - ``journal_path``: the run's SQLite journal (None: no journal, nothing replayed).
    - ``cache_path``: an optional cache shared between runs, read after the journal.
    - ``no_cache``: send every request even if an answer is stored (answers are still written).
    - ``max_requests`` / ``budget_usd``: stop with BudgetExceeded before a request that would
      exceed them (HTTP requests sent, retries and re-asks included / upper-bound cost).
    - ``max_attempts``: transport attempts per request (429, 5xx, timeouts, dropped connections).
    - ``backoff_base`` / ``backoff_max``: exponential backoff (seconds) between attempts, with
      jitter; a Retry-After header wins. Tests shrink ``backoff_base``.
    - ``max_reasks``: re-asks after an unparsable or schema-violating structured reply.
    """

    def __init__(
        self,
        journal_path: Path | None,
        *,
        cache_path: Path | None = None,
        no_cache: bool = False,
        max_requests: int | None = None,
        budget_usd: float | None = None,
        max_attempts: int = 6,
        timeout_s: float = 120.0,
        backoff_base: float = 0.5,
        backoff_max: float = 30.0,
        max_reasks: int = 2,
    ):
        self.journal = Journal(journal_path) if journal_path is not None else None
        self.cache = Journal(cache_path) if cache_path is not None else None
        self.no_cache = no_cache
        self.max_attempts = max(1, max_attempts)
        self.timeout_s = timeout_s
        self.backoff_base = backoff_base
        self.backoff_max = backoff_max
        self.max_reasks = max_reasks
        self.usage = UsageTracker(max_requests=max_requests, budget_usd=budget_usd)
        self._states: dict[str, _ModelState] = {}
        self._clients: dict[tuple[str, str], openai.AsyncOpenAI] = {}
        self._servers: dict[str, local_server.LocalServer] = {}
        self._local_lock: asyncio.Lock | None = None
        self._inflight: dict[str, asyncio.Future] = {}
        self._secrets: set[str] = set()

    @classmethod
    def from_config(cls, cfg, journal_path: Path | None) -> LLMClient:
        """From a ``judgeagent.config.LLMConfig``."""
        return cls(
            journal_path,
            cache_path=cfg.cache,
            no_cache=cfg.no_cache,
            max_requests=cfg.max_requests,
            budget_usd=cfg.budget_usd,
            max_attempts=cfg.max_attempts,
            timeout_s=cfg.timeout_s,
        )

    # ------------------------------------------------------------------ lifecycle
    async def __aenter__(self) -> LLMClient:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        clients, self._clients = list(self._clients.values()), {}
        for c in clients:
            try:
                await c.close()
            except Exception:
                pass
        servers, self._servers = list(self._servers.values()), {}
        for s in servers:
            local_server.release(s)
        for j in (self.journal, self.cache):
            if j is not None:
                j.close()

    # ------------------------------------------------------------------ endpoints
    def _state(self, spec: ModelSpec) -> _ModelState:
        st = self._states.get(spec.identity)
        if st is None:
            if spec.response_format != "auto":
                forms = _FORMS_FORCED[spec.response_format]
            else:
                forms = _FORMS_LLAMA if spec.is_local else _FORMS_REMOTE
            st = _ModelState(
                forms=list(forms),
                sem=asyncio.Semaphore(max(1, spec.concurrency)),
                limiter=_RateLimiter(spec.rpm) if spec.rpm else None,
            )
            self._states[spec.identity] = st
        return st

    def _key_for(self, spec: ModelSpec) -> str:
        key = spec.require_key()
        if spec.api_key_env is not None:
            self._secrets.add(key)
        return key

    async def _local_server(self, spec: ModelSpec) -> local_server.LocalServer:
        path = str(Path(spec.gguf).resolve())
        server = self._servers.get(path)
        if server is not None and server.running:
            return server
        if self._local_lock is None:
            self._local_lock = asyncio.Lock()
        async with self._local_lock:
            server = self._servers.get(path)
            local_server.install_exit_hooks()  # from the loop thread: signal handlers need it
            if server is None:
                server = await asyncio.to_thread(local_server.acquire, Path(path))
                self._servers[path] = server
            elif not server.running:  # it died: start it again (new port)
                await asyncio.to_thread(server.start)
        return server

    async def _endpoint(self, spec: ModelSpec) -> tuple[str, openai.AsyncOpenAI]:
        if spec.is_local:
            base_url, key = (await self._local_server(spec)).base_url, "not-needed"
        else:
            base_url, key = spec.base_url, self._key_for(spec)
        ck = (base_url, key)
        client = self._clients.get(ck)
        if client is None:
            http = _http_client(trust_env=not _is_loopback(base_url))
            client = openai.AsyncOpenAI(
                base_url=base_url, api_key=key, max_retries=0, timeout=self.timeout_s, http_client=http
            )
            self._clients[ck] = client
        return base_url, client

    def redact(self, text: str) -> str:
        """Remove any key (and anything that looks like one) from a message."""
        for s in self._secrets:
            if s:
                text = text.replace(s, "***")
        text = re.sub(r"(?i)(bearer\s+)[^\s\"',}]+", r"\1***", text)
        text = re.sub(r"\bsk-[A-Za-z0-9_\-]{6,}", "sk-***", text)
        return text

    # ------------------------------------------------------------------ preflight
    async def preflight(self, spec: ModelSpec) -> None:
        """Fail early, on one line, if the model cannot be used: key missing, endpoint down.

        Starts the bundled server for local models.
        """
        if spec.is_local:
            await self._local_server(spec)
            return
        self._key_for(spec)
        base_url, client = await self._endpoint(spec)
        try:
            await client.models.list(timeout=min(self.timeout_s, 15.0))
        except (openai.AuthenticationError, openai.PermissionDeniedError) as e:
            if spec.api_key_env is None:
                raise ConfigError(
                    f"model '{spec.name}': {base_url} wants an API key (HTTP {e.status_code}); define the model "
                    'in judgeagent.toml with api_key_env = "VAR_NAME"'
                ) from None
            raise ConfigError(
                f"model '{spec.name}': the key in {spec.api_key_env} was refused by {base_url} (HTTP {e.status_code})"
            ) from None
        except openai.APIStatusError:
            pass  # reachable; some servers have no /models
        except openai.APIConnectionError as e:
            reason = self.redact(str(e.__cause__ or e)).splitlines()[0] if str(e.__cause__ or e) else type(e).__name__
            raise ConfigError(f"model '{spec.name}': cannot reach {base_url} ({reason})") from None

    # ------------------------------------------------------------------ chat
    async def chat(
        self,
        spec: ModelSpec,
        messages: list[dict],
        *,
        schema: dict | None = None,
        stage: str = "misc",
        temperature: float | None = None,
        max_tokens: int | None = None,
        seed: int | None = 0,
        variant: str | None = None,
    ) -> LLMResult:
        t0 = time.monotonic()
        temperature = spec.temperature if temperature is None else temperature
        max_tokens = spec.max_tokens if max_tokens is None else max_tokens
        messages = [dict(m) for m in messages]
        key = request_key(
            spec.identity, messages, temperature=temperature, max_tokens=max_tokens, schema=schema, seed=seed,
            variant=variant,
        )
        hit = self._lookup(key)
        if hit is not None:
            return self._cached_result(spec, stage, key, hit, t0)

        # Identical requests in flight at once: wait for the first instead of paying twice.
        waiting = self._inflight.get(key)
        if waiting is not None:
            first = await asyncio.shield(waiting)
            if first is not None and first.ok:
                return self._cached_result(spec, stage, key, self._as_entry(first), t0)
        fut: asyncio.Future = asyncio.get_running_loop().create_future()
        self._inflight[key] = fut
        result: LLMResult | None = None
        try:
            result = await self._call(spec, messages, key, schema, stage, temperature, max_tokens, seed, t0)
            return result
        finally:
            self._inflight.pop(key, None)
            fut.set_result(result)

    # ------------------------------------------------------------------ decisions
    def recall(self, key: str) -> Any | None:
        """A timing-dependent decision this run's journal kept (see Journal.record_decision)."""
        return self.journal.decision(key) if self.journal is not None else None

    def remember(self, key: str, value: Any) -> None:
        if self.journal is not None:
            self.journal.record_decision(key, value)

    def _lookup(self, key: str) -> Entry | None:
        if self.no_cache:
            return None
        for store in (self.journal, self.cache):
            if store is not None:
                hit = store.get(key)
                if hit is not None:
                    return hit
        return None

    def _as_entry(self, r: LLMResult) -> Entry:
        return Entry(
            r.key, r.model, r.text, r.data, r.usage.prompt_tokens, r.usage.completion_tokens, r.latency_s, r.attempts
        )

    def _cached_result(self, spec: ModelSpec, stage: str, key: str, hit: Entry, t0: float) -> LLMResult:
        tokens = TokenUsage(hit.prompt_tokens, hit.completion_tokens)
        latency = time.monotonic() - t0
        self.usage.record(CallRecord(spec.name, stage, cached=True, ok=True, tokens=tokens, latency_s=latency))
        return LLMResult(True, hit.text, hit.data, None, True, 0, tokens, latency, spec.name, key)

    async def _call(self, spec, messages, key, schema, stage, temperature, max_tokens, seed, t0) -> LLMResult:
        stats = _CallStats()
        convo = _with_schema_prompt(messages, schema) if schema is not None else messages
        text, data, error = "", None, None
        try:
            while True:
                reply = await self._send(spec, convo, schema, temperature, max_tokens, seed, stats)
                if reply.text is None:
                    raise _Failure("empty", f"the model returned no content (finish_reason={reply.finish_reason})")
                text = reply.text
                if schema is None:
                    break
                try:
                    data = parse_structured(text, schema)
                    break
                except ParseError as e:
                    problem = str(e)
                    if reply.finish_reason == "length":
                        problem += f" (the reply hit max_tokens={max_tokens})"
                    if stats.reasks >= self.max_reasks:
                        raise _Failure("parse", f"{problem}; reply was: {text[:200]!r}") from None
                    stats.reasks += 1
                    convo = convo + [
                        {"role": "assistant", "content": text},
                        {"role": "user", "content": reask_message(problem, schema)},
                    ]
        except _Failure as f:
            error = self.redact(str(f))
        except asyncio.CancelledError:
            self.usage.record(
                CallRecord(
                    spec.name, stage, cached=False, ok=False, tokens=stats.tokens, latency_s=time.monotonic() - t0,
                    http_requests=stats.http, retries=stats.retries, reasks=stats.reasks, cost_usd=stats.cost,
                    withdrawn=True,
                )
            )  # fmt: skip
            raise
        latency = time.monotonic() - t0
        ok = error is None
        self.usage.record(
            CallRecord(
                spec.name, stage, cached=False, ok=ok, tokens=stats.tokens, latency_s=latency,
                http_requests=stats.http, retries=stats.retries, reasks=stats.reasks, cost_usd=stats.cost,
            )
        )  # fmt: skip
        # On a parse failure ``text`` keeps the last raw reply, for the stage's record.
        result = LLMResult(ok, text, data, error, False, stats.http, stats.tokens, latency, spec.name, key)
        if ok:
            entry = self._as_entry(result)
            request = {
                "model": spec.model, "messages": messages, "schema": schema,
                "temperature": temperature, "max_tokens": max_tokens, "seed": seed,
            }  # fmt: skip
            for store in (self.journal, self.cache):
                if store is not None:
                    store.put(entry, identity=spec.identity, stage=stage, request=request)
        return result

    def _estimate_cost(self, spec: ModelSpec, convo: list[dict], max_tokens: int) -> float:
        """Upper bound of one request's cost, for --budget-usd (prompt ~4 chars/token)."""
        prompt = sum(len(str(m.get("content", ""))) for m in convo) / 4
        return cost_usd(TokenUsage(int(prompt), max_tokens), spec.price_in_per_1k, spec.price_out_per_1k)

    def _backoff(self, attempt: int) -> float:
        return min(self.backoff_max, self.backoff_base * 2 ** (attempt - 1)) * random.uniform(0.5, 1.0)

    async def _send(self, spec, convo, schema, temperature, max_tokens, seed, stats: _CallStats) -> _Reply:
        """One answer from the model, retrying transient failures; raises _Failure."""
        st = self._state(spec)
        attempt = 0
        while True:
            form = st.forms[min(st.form_index, len(st.forms) - 1)] if schema is not None else "none"
            extra: dict = {}
            rf = _response_format(form, schema) if schema is not None else None
            if rf is not None:
                extra["response_format"] = rf
            if seed is not None and st.send_seed:
                extra["seed"] = seed
            _, client = await self._endpoint(spec)  # ConfigError (no key, server won't start) propagates
            estimate = self._estimate_cost(spec, convo, max_tokens)
            self.usage.reserve(estimate)  # BudgetExceeded propagates: the run stops cleanly
            stats.http += 1
            attempt += 1
            retry_after = None
            sent = False
            try:
                async with st.sem:
                    if st.limiter is not None:
                        await st.limiter.wait()
                    sent = True
                    # The plain-JSON form of chat.completions.create: the typed one spends
                    # milliseconds per call validating params we build ourselves anyway.
                    raw = await client.post(
                        "/chat/completions",
                        cast_to=httpx2.Response,
                        body={
                            "model": spec.model,
                            "messages": convo,
                            "temperature": temperature,
                            "max_tokens": max_tokens,
                            **extra,
                        },
                        options={"timeout": self.timeout_s},
                    )
                resp = raw.json()
            except asyncio.CancelledError:
                # Withdrawn by the caller. A remote API may still finish and bill a request it
                # received, so one that went out is charged at its upper bound.
                charged = estimate if sent else 0.0
                self.usage.settle(estimate, charged)
                stats.cost += charged
                raise
            except openai.APIStatusError as e:
                self.usage.settle(estimate, 0.0)
                body = self.redact(_status_text(e))
                if rf is not None and _mentions_response_format(body) and st.form_index < len(st.forms) - 1:
                    # The server refuses this structured-output form: step down for good.
                    if st.forms[st.form_index] == form:
                        st.form_index += 1
                    attempt -= 1  # not a transient failure; does not use up the retry cap
                    continue
                if "seed" in extra and 400 <= e.status_code < 500 and "seed" in body.lower():
                    st.send_seed = False  # sampling is still pinned by temperature; the key keeps the seed
                    attempt -= 1
                    continue
                kind, message = "http", f"HTTP {e.status_code}: {body}"
                if not (e.status_code in (408, 409, 425, 429) or e.status_code >= 500):
                    raise _Failure(kind, message) from None
                retry_after = _retry_after(e.response.headers)
            except openai.APITimeoutError:
                self.usage.settle(estimate, 0.0)
                kind, message = "timeout", f"no answer within {self.timeout_s:g} s"
            except openai.APIConnectionError as e:
                self.usage.settle(estimate, 0.0)
                kind, message = "connection", self.redact(str(e.__cause__ or e) or "connection failed")
            except ValueError as e:  # 200 with a body that is not JSON: a broken proxy or server
                self.usage.settle(estimate, 0.0)
                kind, message = "http", f"invalid response body ({e})"
                died = next((s.died() for s in self._servers.values() if s.died()), None) if spec.is_local else None
                if died:
                    message += f" ({died})"
            else:
                reply = _reply_from(resp, convo)
                actual = cost_usd(reply.tokens, spec.price_in_per_1k, spec.price_out_per_1k)
                self.usage.settle(estimate, actual)
                stats.tokens.add(reply.tokens)
                stats.cost += actual
                return reply
            if attempt >= self.max_attempts:
                raise _Failure(kind, f"{message} (gave up after {attempt} attempts)")
            stats.retries += 1
            delay = min(retry_after, 300.0) if retry_after is not None else self._backoff(attempt)
            await asyncio.sleep(delay)


def _status_text(e: openai.APIStatusError) -> str:
    body = e.body
    if isinstance(body, dict):
        err = body.get("error", body)
        msg = err.get("message") if isinstance(err, dict) else err
        text = msg if isinstance(msg, str) else json.dumps(body)[:500]
    elif body is not None:
        text = str(body)
    else:
        text = e.message
    return " ".join(str(text).split())[:500]


def _mentions_response_format(text: str) -> bool:
    t = text.lower()
    return any(w in t for w in ("response_format", "json_schema", "json_object", "response format"))


def _reply_from(resp: dict, convo: list[dict]) -> _Reply:
    if not isinstance(resp, dict):
        resp = {}
    choices = resp.get("choices") or [{}]
    choice = choices[0] if isinstance(choices[0], dict) else {}
    message = choice.get("message") if isinstance(choice.get("message"), dict) else {}
    text = message.get("content")
    if text is not None and not isinstance(text, str):
        text = json.dumps(text)  # e.g. a list of content parts
    finish = choice.get("finish_reason")
    u = resp.get("usage")
    if isinstance(u, dict) and u.get("prompt_tokens") is not None:
        tokens = TokenUsage(int(u.get("prompt_tokens") or 0), int(u.get("completion_tokens") or 0))
    else:  # a server without usage: estimate by words so accounting is never empty
        tokens = TokenUsage(sum(_words(str(m.get("content", ""))) for m in convo), _words(text or ""))
    return _Reply(text, tokens, finish)


def _with_schema_prompt(messages: list[dict], schema: dict) -> list[dict]:
    """Describe the schema in the system message too: not every server enforces response_format."""
    note = schema_instructions(schema)
    out = [dict(m) for m in messages]
    if out and out[0].get("role") == "system":
        out[0]["content"] = f"{out[0].get('content', '')}\n\n{note}"
    else:
        out.insert(0, {"role": "system", "content": note})
    return out
