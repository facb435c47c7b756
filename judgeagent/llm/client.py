"""The one async client every stage talks to models through.

It puts the layers of the model package together; each has one job and its own tests:

- :class:`~judgeagent.llm.request.ChatRequest` (request.py): the immutable request, which
  alone gives the cache key, the journal record and the HTTP body;
- :func:`~judgeagent.llm.sender.send_once` (sender.py): one attempt, a typed outcome;
- :class:`~judgeagent.llm.retry.RetryPolicy` (retry.py): which failures to retry, how long
  to wait (Retry-After wins), when to give up;
- :class:`~judgeagent.llm.negotiation.ModelState` (negotiation.py): what each server has
  taught us (refused options, ``max_completion_tokens``, a fixed temperature, thinking);
- :class:`~judgeagent.llm.store.AnswerStore` (store.py): the journal and the shared cache;
- :class:`~judgeagent.llm.local_server.LocalServerPool`: the bundled llama.cpp servers;
- :class:`~judgeagent.llm.breaker.CircuitBreaker` (breaker.py): stop asking a dead model.
- :class:`~judgeagent.llm.batch.BatchHub` (batch/): for a batched model, one attempt is a line of
  the next wave's Batch API job instead of an HTTP request; its Reply or Failure comes back the
  same, so everything above (re-asks, retries, negotiation, the store) is shared.

What a ``chat`` call does: look the request up in the store (a hit costs nothing); else
send it (budget, concurrency, rate limit, retries, adaptation); strip thinking from the
reply; with a schema parse and validate it, re-asking up to twice; a reply cut off at the
output limit with no usable answer is sent again once with the limit doubled; commit the
answer at once. A call that fails returns ``ok=False`` with a typed :class:`Failure`
(``result.failure.kind``), never an exception, and is never stored; ``result.incomplete``
tells a failed call (no answer: the batch is incomplete) from an unusable answer (graded
wrong). Budgets raise BudgetExceeded and a failing model raises CircuitOpen.

API keys are read from the environment when a request is built and are scrubbed from
every error message; they are never written anywhere.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import openai

from judgeagent.config import LLMConfig
from judgeagent.errors import ConfigError
from judgeagent.llm.batch import SEND_LIVE, BatchHub, BatchLedger, BatchSettings
from judgeagent.llm.batch.display import PlainLines, RichLines
from judgeagent.llm.batch.report import batch_report
from judgeagent.llm.breaker import CircuitBreaker
from judgeagent.llm.connect import openai_client
from judgeagent.llm.journal import Entry
from judgeagent.llm.local_server import LocalServerPool, check_gguf
from judgeagent.llm.negotiation import ModelState
from judgeagent.llm.outcome import Failure, FailureKind, Reply
from judgeagent.llm.registry import ModelSpec
from judgeagent.llm.request import FORMS_LLAMA, ChatRequest
from judgeagent.llm.retry import RateLimiter, RetryPolicy
from judgeagent.llm.sender import send_once
from judgeagent.llm.store import AnswerStore
from judgeagent.llm.structured import ParseError, parse_structured, reask_message
from judgeagent.llm.usage import CallRecord, TokenUsage, UsageTracker, cost_usd, journal_usage, reasoning_cost_usd

_FORMS_LLAMA = FORMS_LLAMA  # the form local (is_local) specs start with; kept for the tests
MAX_ADAPTATIONS = 8  # refusals adapted to within one request; each changes state, so few are possible


@dataclass
class LLMResult:
    ok: bool
    text: str = ""  # the visible answer, thinking removed
    data: Any = None  # parsed and validated JSON when a schema was given
    error: str | None = None  # one-line message of the failure
    cached: bool = False
    attempts: int = 0  # HTTP requests this call sent (0 when cached)
    usage: TokenUsage = field(default_factory=TokenUsage)
    latency_s: float = 0.0
    model: str = ""  # the spec name
    key: str = ""  # the journal key
    failure: Failure | None = None
    served_model: str = ""  # response.model of the answer
    sampled: bool = False  # sent at a temperature above 0 (asked for, or imposed by the server): a sample
    via: str = "live"  # how the last reply came: "live" or "batch" (a Batch API job)

    @property
    def error_kind(self) -> FailureKind | None:
        return self.failure.kind if self.failure is not None else None

    @property
    def incomplete(self) -> bool:
        """No answer came back (endpoint, budget of tokens, quota...): do not grade it wrong."""
        return self.failure is not None and not self.failure.kind.is_answer

    def to_dict(self) -> dict:
        return {
            "ok": self.ok, "text": self.text, "data": self.data, "error": self.error,
            "error_kind": self.error_kind.value if self.error_kind else None, "cached": self.cached,
            "attempts": self.attempts, "usage": self.usage.to_dict(), "latency_s": round(self.latency_s, 4),
            "model": self.model, "key": self.key, "served_model": self.served_model, "sampled": self.sampled, "via": self.via,
        }  # fmt: skip


@dataclass
class _CallStats:
    http: int = 0
    retries: int = 0
    reasks: int = 0
    cost: float = 0.0
    reasoning_cost: float = 0.0
    tokens: TokenUsage = field(default_factory=TokenUsage)
    limit: int = 0  # the output limit of the last request sent
    last: Reply | None = None
    batch: int = 0  # of ``http``, requests sent as lines of Batch API jobs
    batch_cost: float = 0.0  # of ``cost``, paid at batch prices
    via: str = "live"  # how the last attempt went
    expired: int = 0  # times this request came back expired from a Batch API job


class Transport(Protocol):
    """Another way to make one attempt than an HTTP request to the spec's endpoint (Inspect's
    models: :class:`judgeagent.llm.inspect_model.InspectTransport`)."""

    async def send(self, req: ChatRequest, body: dict) -> Reply | Failure: ...


class LLMClient:
    """Async, concurrent, retrying, journaling chat client. Use as ``async with LLMClient(...)``.

    - ``journal_path``: the run's SQLite journal (None: no journal, nothing replayed).
    - ``settings``: the run's :class:`~judgeagent.config.LLMConfig` (the shared cache, replay,
      budgets, attempts, timeout, circuit breaker, Batch API); its fields are the only place
      their defaults are written, so ``LLMClient(path)`` is a client with the defaults.
    - ``backoff_base``, ``backoff_max``, ``rate_limit_patience_s``: the rest of the retry
      policy (see retry.py, whose defaults they are). Tests shrink ``backoff_base``.
    - ``max_reasks``: re-asks after an unparsable or schema-violating structured reply.
    """

    def __init__(
        self,
        journal_path: Path | None,
        settings: LLMConfig | None = None,
        *,
        backoff_base: float = RetryPolicy.backoff_base,
        backoff_max: float = RetryPolicy.backoff_max,
        rate_limit_patience_s: float = RetryPolicy.rate_limit_patience,
        max_reasks: int = 2,
        transports: Mapping[str, Transport] | None = None,
    ):
        settings = settings if settings is not None else LLMConfig()
        # Models asked through something else than their endpoint, by spec identity: under
        # Inspect, its models (llm/inspect_model.py). One attempt is then ``transport.send``.
        self.transports: dict[str, Transport] = dict(transports or {})
        self.store = AnswerStore(journal_path, settings.cache, settings.no_cache)
        self.policy = RetryPolicy(settings.max_attempts, backoff_base, backoff_max, rate_limit_patience=rate_limit_patience_s)
        self.breaker = CircuitBreaker(settings.breaker_window, settings.breaker_failure_share)
        self.timeout_s = settings.timeout_s
        self.max_reasks = max_reasks
        self.usage = UsageTracker(max_requests=settings.max_requests, budget_usd=settings.budget_usd)
        self.pool = LocalServerPool()
        self._states: dict[str, ModelState] = {}
        self._limiters: dict[str, RateLimiter] = {}
        self._clients: dict[tuple[str, str], openai.AsyncOpenAI] = {}
        self._inflight: dict[str, asyncio.Future] = {}
        self._secrets: set[str] = set()
        # The Batch API (judgeagent/llm/batch/): every remote model with --batch-api, or with
        # batch_api = true in judgeagent.toml, is asked through the event loop's hub.
        self.batch_api = settings.batch_api
        self.batch_expired, self.batch_expired_retries = settings.batch_api_expired, settings.batch_api_expired_retries
        self.expired_counts: dict[str, int] = {"lines": 0, "resubmitted": 0, "sent_live": 0, "left_incomplete": 0}
        self.batch_settings = BatchSettings(settings.batch_api_poll_s, settings.batch_api_deadline_s, self.policy)
        self._hub: BatchHub | None = None
        self._ledger: BatchLedger | None = None
        self._batch_notes: list[str] = []
        self._display: RichLines | PlainLines | None = None

    @classmethod
    def from_config(cls, cfg: LLMConfig, journal_path: Path | None) -> LLMClient:
        """The client of a run: ``cfg`` is its ``EvalConfig.llm``."""
        return cls(journal_path, cfg)

    @property
    def journal(self):
        return self.store.journal

    @property
    def cache(self):
        return self.store.cache

    # ------------------------------------------------------------------ lifecycle
    async def __aenter__(self) -> LLMClient:
        return self

    async def __aexit__(self, *exc) -> None:
        await self.aclose()

    async def aclose(self) -> None:
        if self._hub is not None:
            hub, self._hub = self._hub, None
            await hub.detach(self)
        clients, self._clients = list(self._clients.values()), {}
        for c in clients:
            try:
                await c.close()
            except Exception:
                pass
        self.pool.close()
        self.store.close()

    # ------------------------------------------------------------------ endpoints
    def _state(self, spec: ModelSpec) -> ModelState:
        st = self._states.get(spec.identity)
        if st is None:
            st = self._states[spec.identity] = ModelState.for_spec(spec)
            if spec.rpm:
                self._limiters[spec.identity] = RateLimiter(spec.rpm)
        return st

    def _key_for(self, spec: ModelSpec) -> str:
        key = spec.require_key()
        if spec.api_key_env is not None:
            self._secrets.add(key)
        return key

    async def _endpoint(self, spec: ModelSpec) -> tuple[str, openai.AsyncOpenAI]:
        if spec.is_local:
            base_url, key = (await self.pool.get(spec.gguf)).base_url, "not-needed"
        else:
            base_url, key = spec.base_url, self._key_for(spec)
        ck = (base_url, key)
        client = self._clients.get(ck)
        if client is None:
            client = self._clients[ck] = openai_client(base_url, key, self.timeout_s)
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
    async def preflight(self, spec: ModelSpec, *, start: bool = True) -> None:
        """Fail early, on one line, if the model cannot be used: key missing, endpoint down.

        Starts the bundled server for local models, or with ``start=False`` only checks that
        it can be started (its GGUF file is there and is one); it then starts on the first
        request, so a run replayed from its journal, which sends nothing, starts no server.
        With the Batch API on, a remote model's requests will wait for their wave from here
        on; a local one is asked one by one, and says so once.
        """
        if spec.identity in self.transports:
            return  # its driver (Inspect) checks its own models
        self._batch_setup(spec)
        if spec.is_local:
            if start:
                await self.pool.get(spec.gguf)
            else:
                check_gguf(spec.gguf)
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

    # ------------------------------------------------------------------ the Batch API
    def batched(self, spec: ModelSpec) -> bool:
        """Whether ``spec``'s requests go through its provider's Batch API."""
        return spec.batched(self.batch_api)

    def _batch_setup(self, spec: ModelSpec) -> BatchHub | None:
        """The event loop's hub once a batched model is used (None otherwise); a local model
        asked to batch is noted, once."""
        if spec.is_local and (self.batch_api or spec.batch_api):
            note = f"model '{spec.name}' runs here (bundled llama.cpp server): the Batch API does not apply, its requests are sent one by one"
            if note not in self._batch_notes:
                self._batch_notes.append(note)
                if self._display is not None:
                    self._display.note(note)
        if not self.batched(spec):
            return None
        if self._hub is None:
            self._hub = BatchHub.attach(self)
            self._ledger = BatchLedger(self.store.journal, self.batch_settings, self.timeout_s, self.redact, self.store.no_cache)
            if self._display is not None:
                self._hub.display = self._display
        return self._hub

    @property
    def batching(self) -> bool:
        """Some model of this client is asked through a Batch API (units should then all run at once)."""
        return self._hub is not None

    def unit(self, name: str) -> AbstractContextManager:
        """The engine's hook for waves: the calling task runs one unit of work (a seed batch, a
        seed, an item, the closing steps) until the block ends. A wave of batched requests goes
        out when every unit running waits on the Batch API (see llm/batch/waves.py)."""
        return self._hub.barrier.unit(name) if self._hub is not None else nullcontext()

    def show_batches(self, progress: Any) -> None:
        """Show the jobs in flight as lines of ``progress`` (a rich Progress whose first column
        shows each task's description), and the notes above it; where its console is no
        terminal (a log), where a live display draws nothing, as plain lines instead."""
        console = progress.console
        if console.is_terminal:
            self._display = RichLines(progress)
        else:
            self._display = PlainLines(lambda text: console.print(text, highlight=False, markup=False, soft_wrap=True))
        for note in self._batch_notes:
            self._display.note(note)
        if self._hub is not None:
            self._hub.display = self._display

    def batch_summary(self) -> dict | None:
        """The run's Batch API jobs (every session, from the journal), this session's waves,
        and the notes; None when no model was batched."""
        if self._ledger is None:
            return {"notes": list(self._batch_notes)} if self._batch_notes else None
        report = batch_report(self._ledger, self._hub.stats if self._hub is not None else None, self._batch_notes)
        return report | {"expired": {"policy": self.batch_expired, "max_resubmissions": self.batch_expired_retries} | self.expired_counts}

    def run_total(self, specs: list[ModelSpec]) -> dict:
        """Every session's answers in the journal, costed at each model's prices (those that came
        in Batch API jobs at its batch prices): what the whole run cost."""
        if self.journal is None:
            return journal_usage([], {})
        prices = {m.name: (m.price_in_per_1k, m.price_out_per_1k) for m in specs}
        batch_prices = {m.name: m.batch_prices for m in specs}
        return journal_usage(self.journal.totals(), prices, self.journal.totals(via="batch"), batch_prices)

    async def _batch_attempt(self, req: ChatRequest, body: dict, stats: _CallStats) -> Reply | Failure | None:
        """One attempt as a line of the next wave's job: its Reply or Failure, or None when its
        job was cancelled at the deadline before it ran (then it is sent live)."""
        spec = req.spec
        hub = self._batch_setup(spec)
        assert hub is not None and self._ledger is not None
        estimate = _estimate_cost(spec, body, batch=True)
        self.usage.reserve(estimate)
        waiting = hub.ask(self._ledger, spec, self._key_for(spec), req.key, req.stage, body, self.batch_settings, self.timeout_s)
        try:
            got = await waiting.answer()
        except asyncio.CancelledError:
            self.usage.settle(estimate, estimate if waiting.sent else 0.0)  # a line sent is billed whether or not it is read
            raise
        except BaseException:
            self.usage.settle(estimate, 0.0)
            raise
        if got == SEND_LIVE or not isinstance(got, (Reply, Failure)):
            self.usage.release(estimate)
            return None
        stats.http += 1
        stats.batch += 1
        stats.via = "batch"
        if isinstance(got, Failure):
            self.usage.settle(estimate, 0.0)
            if got.kind is FailureKind.EXPIRED:
                stats.expired += 1
                self.expired_counts["lines"] += 1
                if self.batch_expired == "live":  # --batch-api-expired live: this attempt goes one by one now
                    self.expired_counts["sent_live"] += 1
                    return None
            return got
        actual = cost_usd(got.tokens, *spec.batch_prices)
        self.usage.settle(estimate, actual)
        stats.tokens.add(got.tokens)
        stats.cost += actual
        stats.batch_cost += actual
        stats.reasoning_cost += reasoning_cost_usd(got.tokens, spec.batch_prices[1])
        return got

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
        """Ask ``spec``. ``temperature`` / ``max_tokens`` default to the spec's; ``max_tokens``
        is the budget of the visible answer (a thinking model's allowance is added)."""
        t0 = time.monotonic()
        req = ChatRequest.build(
            spec, messages, schema=schema, stage=stage, temperature=temperature, max_tokens=max_tokens, seed=seed,
            variant=variant,
        )  # fmt: skip
        hit = self.store.lookup(req.key)
        if hit is not None:
            return self._replayed(req, hit, t0)
        # Identical requests in flight at once: wait for the first instead of paying twice.
        waiting = self._inflight.get(req.key)
        if waiting is not None:
            with self._hub.parked_elsewhere() if self._hub is not None else nullcontext():
                first = await asyncio.shield(waiting)
            if first is not None and first.ok:
                return self._replayed(req, self._entry(first), t0)
        self.breaker.check(spec.name)
        fut: asyncio.Future = asyncio.get_running_loop().create_future()
        self._inflight[req.key] = fut
        result: LLMResult | None = None
        try:
            result = await self._call(req, t0)
        finally:
            self._inflight.pop(req.key, None)
            fut.set_result(result)
        self.breaker.record(spec.name, result.failure)
        self.breaker.check(spec.name)
        return result

    # ------------------------------------------------------------------ decisions
    def recall(self, key: str) -> Any | None:
        """A timing-dependent decision this run's journal kept (see Journal.record_decision)."""
        return self.store.decision(key)

    def remember(self, key: str, value: Any) -> None:
        self.store.remember(key, value)

    # ------------------------------------------------------------------ one call
    def _entry(self, r: LLMResult) -> Entry:
        u = r.usage
        return Entry(r.key, r.model, r.text, r.data, u.prompt_tokens, u.completion_tokens, r.latency_s, r.attempts,
                     u.reasoning_tokens, r.served_model, r.via)  # fmt: skip

    def _replayed(self, req: ChatRequest, hit: Entry, t0: float) -> LLMResult:
        tokens = TokenUsage(hit.prompt_tokens, hit.completion_tokens, hit.reasoning_tokens)
        latency = time.monotonic() - t0
        self.usage.record(CallRecord(req.spec.name, req.stage, cached=True, ok=True, tokens=tokens, latency_s=latency))
        return LLMResult(True, hit.text, hit.data, None, True, 0, tokens, latency, req.spec.name, req.key,
                         served_model=hit.served_model)  # fmt: skip

    async def _call(self, req: ChatRequest, t0: float) -> LLMResult:
        """Send, then account for the outcome once: usage, store."""
        stats = _CallStats()
        try:
            outcome = await self._answer(req, stats)
        except asyncio.CancelledError:
            self._account(req, stats, t0, ok=False, withdrawn=True)
            raise
        latency = self._account(req, stats, t0, ok=not isinstance(outcome, Failure))
        last = stats.last
        st = self._state(req.spec)
        result = LLMResult(
            True, (last.text or "") if last else "", None, None, False, stats.http, stats.tokens, latency, req.spec.name, req.key,
            served_model=last.served_model if last else "", sampled=st.sampled or req.temperature > 0, via=stats.via,
        )  # fmt: skip
        if isinstance(outcome, Failure):
            failure = outcome.with_message(self.redact(outcome.message))
            # ``text`` keeps the last reply, for the stage's record.
            result.ok, result.error, result.failure = False, failure.message, failure
            return result
        result.data = outcome
        self.store.commit(req, self._entry(result))
        return result

    def _account(self, req: ChatRequest, stats: _CallStats, t0: float, *, ok: bool, withdrawn: bool = False) -> float:
        latency = time.monotonic() - t0
        self.usage.record(
            CallRecord(
                req.spec.name, req.stage, cached=False, ok=ok, tokens=stats.tokens, latency_s=latency,
                http_requests=stats.http, retries=stats.retries, reasks=stats.reasks, cost_usd=stats.cost,
                reasoning_cost_usd=stats.reasoning_cost, withdrawn=withdrawn, batch_requests=stats.batch, batch_cost_usd=stats.batch_cost,
            )
        )  # fmt: skip
        return latency

    async def _answer(self, req: ChatRequest, stats: _CallStats) -> Any | Failure:
        """The parsed answer (None without a schema), or why there is none.

        Re-asks after an unusable structured reply; doubles the output limit once after a
        reply cut off with no usable answer (thinking ate the budget).
        """
        convo, scale = req.conversation(), 1
        while True:
            reply = await self._send(req, convo, scale, stats)
            if isinstance(reply, Failure):
                return reply
            data, problem = _usable(req, reply)
            if problem is None:
                return data
            if reply.cut_short:
                if scale == 1:
                    scale = 2
                    continue
                return self._truncated(req, reply, stats)
            if not reply.text:
                return Failure(FailureKind.EMPTY, f"the model returned no content (finish_reason={reply.finish_reason})")
            if stats.reasks >= self.max_reasks:
                return Failure(FailureKind.PARSE, f"{problem}; reply was: {reply.text[:200]!r}")
            stats.reasks += 1
            convo = convo + [
                {"role": "assistant", "content": reply.text},
                {"role": "user", "content": reask_message(problem, req.schema or {})},
            ]

    def _truncated(self, req: ChatRequest, reply: Reply, stats: _CallStats) -> Failure:
        where = "while thinking" if reply.thinking_unterminated or not reply.text else "in the middle of its answer"
        return Failure(
            FailureKind.TRUNCATED,
            f"the reply was cut off at the output limit {where}, also with the limit doubled to {stats.limit} tokens "
            f"({reply.tokens.reasoning_tokens} spent thinking); raise max_tokens or reasoning_allowance of model "
            f"'{req.spec.name}' in judgeagent.toml",
        )

    async def _send(self, req: ChatRequest, convo: list[dict], scale: int, stats: _CallStats) -> Reply | Failure:
        """One reply from the model: adapt to refusals, retry transient failures."""
        st = self._state(req.spec)
        attempt, adapted, waited = 0, 0, 0.0
        while True:
            wire = st.wire(req, scale)
            body = req.body(convo, wire)
            stats.limit = wire.limit
            got = await self._attempt(req, st, body, stats)
            if isinstance(got, Reply):
                stats.last = got
                st.observe(got)
                self._note(req.spec, st)
                return got
            # Adapted now, or already by a concurrent request refused the same way.
            refused = got.kind in (FailureKind.REFUSED_PARAMETER, FailureKind.BAD_REQUEST)
            if adapted < MAX_ADAPTATIONS and (st.learn(got, body) or (refused and req.body(convo, st.wire(req, scale)) != body)):
                adapted += 1  # not a transient failure; does not use up the retry cap
                self._note(req.spec, st)
                continue
            if got.kind is FailureKind.EXPIRED:
                # Not a transient failure of the endpoint: --batch-api-expired decides, with its
                # own cap (each try may take another completion window), not --max-attempts.
                if self.batch_expired == "retry" and stats.expired <= self.batch_expired_retries:
                    self.expired_counts["resubmitted"] += 1
                    stats.retries += 1
                    continue  # a new line in the next wave's job
                self.expired_counts["left_incomplete"] += 1
                return got.with_message(f"{got.message} ({self._expired_why(stats.expired)})")
            attempt += 1
            delay = self.policy.delay(got, attempt, waited)
            if delay is None:
                return got if attempt == 1 else got.with_message(f"{got.message} (gave up after {attempt} attempts)")
            stats.retries += 1
            waited += delay
            # A batched request's next wave is its wait; but a full queue at the provider
            # (a job refused for its enqueued-token limit) is waited out first, as a 429 is.
            if stats.via != "batch" or got.kind is FailureKind.RATE_LIMITED:
                await asyncio.sleep(delay)

    def _expired_why(self, times: int) -> str:
        if self.batch_expired == "stop":
            return "expired; --batch-api-expired stop: left incomplete, rerun the command to send it again"
        return f"expired {times} time(s), {self.batch_expired_retries} resubmission(s) allowed by --batch-api-expired-retries"

    async def _attempt(self, req: ChatRequest, st: ModelState, body: dict, stats: _CallStats) -> Reply | Failure:
        """One HTTP request, inside the budget, the concurrency slot and the rate limit; or, for
        a batched model, one line of a Batch API job."""
        spec = req.spec
        if (transport := self.transports.get(spec.identity)) is not None:
            return await self._transport_attempt(transport, req, st, body, stats)
        if self.batched(spec):
            got = await self._batch_attempt(req, body, stats)
            if got is not None:
                return got
        stats.via = "live"
        _, client = await self._endpoint(spec)  # ConfigError (no key, server won't start) propagates
        estimate = _estimate_cost(spec, body)
        self.usage.reserve(estimate)  # BudgetExceeded propagates: the run stops cleanly
        stats.http += 1
        sent = False
        try:
            async with st.sem:
                limiter = self._limiters.get(spec.identity)
                if limiter is not None:
                    await limiter.wait()
                sent = True
                got = await send_once(client, body, self.timeout_s)
        except asyncio.CancelledError:
            # Withdrawn by the caller. A remote API may still finish and bill a request it
            # received, so one that went out is charged at its upper bound.
            charged = estimate if sent else 0.0
            self.usage.settle(estimate, charged)
            stats.cost += charged
            raise
        if isinstance(got, Failure):
            self.usage.settle(estimate, 0.0)
            died = self.pool.died() if spec.is_local else None
            return got.with_message(f"{got.message} ({died})") if died else got
        actual = cost_usd(got.tokens, spec.price_in_per_1k, spec.price_out_per_1k, spec.price_cached_in_per_1k)
        self.usage.settle(estimate, actual)
        stats.tokens.add(got.tokens)
        stats.cost += actual
        stats.reasoning_cost += reasoning_cost_usd(got.tokens, spec.price_out_per_1k)
        return got

    async def _transport_attempt(self, transport: Transport, req: ChatRequest, st: ModelState, body: dict, stats: _CallStats) -> Reply | Failure:
        """One attempt through the spec's transport; its driver prices and limits it."""
        stats.via = "live"
        stats.http += 1
        async with st.sem:
            got = await transport.send(req, body)
        if isinstance(got, Reply):
            stats.tokens.add(got.tokens)
        return got

    def _note(self, spec: ModelSpec, st: ModelState) -> None:
        """Keep what was learned about the model where the run's summary shows it."""
        self.usage.note_model(
            spec.name, reasoning=st.reasoning, sampled=st.sampled, token_param=st.token_param,
            temperature_sent=st.fixed_temperature, served_models=sorted(st.served_models),
        )  # fmt: skip

    def model_notes(self, spec: ModelSpec) -> dict:
        """What this client learned about ``spec`` so far (see UsageTracker.note_model)."""
        return self.usage.model_info(spec.name)


def _usable(req: ChatRequest, reply: Reply) -> tuple[Any, str | None]:
    """(parsed data, None) when the reply can be used, else (None, what is wrong)."""
    if not reply.text:
        return None, "no answer in the reply"
    if req.schema is None:
        return None, None
    try:
        return parse_structured(reply.text, req.schema), None
    except ParseError as e:
        return None, str(e)


def _estimate_cost(spec: ModelSpec, body: dict, batch: bool = False) -> float:
    """Upper bound of one request's cost, for --budget-usd (prompt ~4 chars/token)."""
    prompt = sum(len(str(m.get("content", ""))) for m in body.get("messages", [])) / 4
    limit = body.get("max_tokens") or body.get("max_completion_tokens") or 0
    prices = spec.batch_prices if batch else (spec.price_in_per_1k, spec.price_out_per_1k)
    return cost_usd(TokenUsage(int(prompt), int(limit)), *prices)
