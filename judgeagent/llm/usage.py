"""Accounting (requests, tokens, retries, latency, cost per model and per stage) and the budget.

The budget counts what costs money or quota: every HTTP request sent, retries and
re-asks included; cache and journal hits are free. Limits are checked *before* a request
is sent, so a run stops cleanly with BudgetExceeded and everything already answered is in
the journal.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from judgeagent.errors import BudgetExceeded


@dataclass
class TokenUsage:
    prompt_tokens: int = 0
    completion_tokens: int = 0  # everything generated, thinking included (as providers bill it)
    reasoning_tokens: int = 0  # of completion_tokens, spent thinking (reported or estimated)
    # Of prompt_tokens, read from the provider's prompt cache (a repeated prefix): billed at
    # the cached rate. Reported by the server, never estimated: 0 when it says nothing.
    cached_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.prompt_tokens + self.completion_tokens

    def add(self, other: TokenUsage) -> None:
        self.prompt_tokens += other.prompt_tokens
        self.completion_tokens += other.completion_tokens
        self.reasoning_tokens += other.reasoning_tokens
        self.cached_tokens += other.cached_tokens

    def to_dict(self) -> dict:
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "cached_tokens": self.cached_tokens,
            "total_tokens": self.total_tokens,
        }


def cost_usd(
    tokens: TokenUsage, price_in_per_1k: float, price_out_per_1k: float, price_cached_in_per_1k: float | None = None
) -> float:
    """What a call cost. Thinking is billed as output: it is inside completion_tokens.

    Prompt tokens read from the provider's cache cost ``price_cached_in_per_1k``; without a
    cached price they cost the full input price, so a cost is never understated.
    """
    cached = min(tokens.cached_tokens, tokens.prompt_tokens)
    cached_price = price_in_per_1k if price_cached_in_per_1k is None else price_cached_in_per_1k
    return (
        (tokens.prompt_tokens - cached) / 1000 * price_in_per_1k
        + cached / 1000 * cached_price
        + tokens.completion_tokens / 1000 * price_out_per_1k
    )


def cached_share(cached_tokens: int, prompt_tokens: int) -> float | None:
    """The share of prompt tokens read from the provider's prompt cache (None without prompts)."""
    return round(cached_tokens / prompt_tokens, 4) if prompt_tokens else None


def reasoning_cost_usd(tokens: TokenUsage, price_out_per_1k: float) -> float:
    """The part of :func:`cost_usd` paid for thinking."""
    return tokens.reasoning_tokens / 1000 * price_out_per_1k


@dataclass
class _Bucket:
    requests: int = 0  # chat() calls
    cached: int = 0  # of which answered from the journal/cache
    http_requests: int = 0  # requests actually sent, retries and re-asks included
    retries: int = 0  # transport retries (429/5xx/timeouts/connection)
    reasks: int = 0  # re-asks after unparsable / invalid structured output
    failures: int = 0  # chat() calls that returned ok=False
    withdrawn: int = 0  # chat() calls cancelled by their caller (a speculative check no longer wanted)
    prompt_tokens: int = 0  # of requests sent (cached answers excluded)
    cached_prompt_tokens: int = 0  # of prompt_tokens, read from the provider's prompt cache
    completion_tokens: int = 0
    reasoning_tokens: int = 0  # of completion_tokens, spent thinking
    cost_usd: float = 0.0
    reasoning_cost_usd: float = 0.0  # of cost_usd, paid for thinking
    batch_requests: int = 0  # of http_requests, sent as lines of Batch API jobs
    batch_cost_usd: float = 0.0  # of cost_usd, paid for them (at batch prices)
    latencies: list[float] = field(default_factory=list)  # of calls that went to the model

    def to_dict(self) -> dict:
        lat = sorted(self.latencies)
        return {
            "requests": self.requests,
            "cached": self.cached,
            "http_requests": self.http_requests,
            "retries": self.retries,
            "reasks": self.reasks,
            "failures": self.failures,
            "withdrawn": self.withdrawn,
            "prompt_tokens": self.prompt_tokens,
            "cached_prompt_tokens": self.cached_prompt_tokens,
            "cached_share": cached_share(self.cached_prompt_tokens, self.prompt_tokens),
            "completion_tokens": self.completion_tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "latency_p50_s": _pct(lat, 0.50),
            "latency_p95_s": _pct(lat, 0.95),
            "cost_usd": round(self.cost_usd, 6),
            "reasoning_cost_usd": round(self.reasoning_cost_usd, 6),
            "batch_requests": self.batch_requests,
            "live_requests": self.http_requests - self.batch_requests,
            "batch_cost_usd": round(self.batch_cost_usd, 6),
            "live_cost_usd": round(self.cost_usd - self.batch_cost_usd, 6),
        }


def _pct(sorted_vals: list[float], q: float) -> float | None:
    if not sorted_vals:
        return None
    i = min(len(sorted_vals) - 1, max(0, round(q * (len(sorted_vals) - 1))))
    return round(sorted_vals[i], 4)


@dataclass
class CallRecord:
    """What one chat() call cost; handed to UsageTracker.record."""

    model: str
    stage: str
    cached: bool
    ok: bool
    tokens: TokenUsage
    latency_s: float
    http_requests: int = 0
    retries: int = 0
    reasks: int = 0
    cost_usd: float = 0.0
    reasoning_cost_usd: float = 0.0
    withdrawn: bool = False  # cancelled by the caller before its answer was used
    batch_requests: int = 0  # of http_requests, lines of Batch API jobs
    batch_cost_usd: float = 0.0  # of cost_usd, paid for those lines


class UsageTracker:
    """Thread-safe counters plus the request/cost budget."""

    def __init__(self, max_requests: int | None = None, budget_usd: float | None = None):
        self.max_requests = max_requests
        self.budget_usd = budget_usd
        self._lock = threading.Lock()
        self._total = _Bucket()
        self._models: dict[str, _Bucket] = {}
        self._model_info: dict[str, dict] = {}  # what was learned about each model (see note_model)
        self._stages: dict[str, _Bucket] = {}
        self._sent = 0  # HTTP requests sent or about to be sent
        self._spent = 0.0  # cost of completed requests
        self._reserved = 0.0  # upper-bound cost of requests in flight

    # ------------------------------------------------------------------ budget
    def reserve(self, estimate_usd: float) -> None:
        """Claim one HTTP request; raise BudgetExceeded if it would break a limit."""
        with self._lock:
            if self.max_requests is not None and self._sent + 1 > self.max_requests:
                raise BudgetExceeded(
                    f"request limit reached: {self._sent} requests sent (--max-requests {self.max_requests}); "
                    "answers so far are saved, rerun the same command to resume"
                )
            if self.budget_usd is not None and self._spent + self._reserved + estimate_usd > self.budget_usd:
                raise BudgetExceeded(
                    f"budget reached: ${self._spent:.4f} spent, the next request could cost up to "
                    f"${estimate_usd:.4f} (--budget-usd {self.budget_usd}); answers so far are saved, "
                    "rerun the same command to resume"
                )
            self._sent += 1
            self._reserved += estimate_usd

    def release(self, estimate_usd: float) -> None:
        """Take back a reservation for a request that was not sent after all (a batched line
        whose job was cancelled before it ran: it is reserved again when sent live)."""
        with self._lock:
            self._sent = max(0, self._sent - 1)
            self._reserved = max(0.0, self._reserved - estimate_usd)

    def settle(self, estimate_usd: float, actual_usd: float) -> None:
        """Replace a reservation by the actual cost once the response (or failure) is in."""
        with self._lock:
            self._reserved = max(0.0, self._reserved - estimate_usd)
            self._spent += actual_usd

    @property
    def requests_sent(self) -> int:
        return self._sent

    @property
    def spent_usd(self) -> float:
        return self._spent

    # ------------------------------------------------------------------ accounting
    def record(self, rec: CallRecord) -> None:
        with self._lock:
            for bucket in (
                self._total,
                self._models.setdefault(rec.model, _Bucket()),
                self._stages.setdefault(rec.stage, _Bucket()),
            ):
                bucket.requests += 1
                bucket.cached += int(rec.cached)
                bucket.failures += int(not rec.ok and not rec.withdrawn)
                bucket.withdrawn += int(rec.withdrawn)
                bucket.http_requests += rec.http_requests
                bucket.retries += rec.retries
                bucket.reasks += rec.reasks
                bucket.cost_usd += rec.cost_usd
                bucket.reasoning_cost_usd += rec.reasoning_cost_usd
                bucket.batch_requests += rec.batch_requests
                bucket.batch_cost_usd += rec.batch_cost_usd
                if not rec.cached:  # replayed answers cost no tokens in this run
                    bucket.prompt_tokens += rec.tokens.prompt_tokens
                    bucket.cached_prompt_tokens += rec.tokens.cached_tokens
                    bucket.completion_tokens += rec.tokens.completion_tokens
                    bucket.reasoning_tokens += rec.tokens.reasoning_tokens
                    bucket.latencies.append(rec.latency_s)

    def note_model(self, model: str, **info) -> None:
        """Keep what the client learned about a model, shown beside its counters in summary():
        ``reasoning`` (it thinks before answering), ``sampled`` (it only runs at temperature 1,
        so its answers are samples), ``temperature`` (the one sent), ``token_param``,
        ``served_models`` (the response.model strings seen)."""
        with self._lock:
            self._model_info.setdefault(model, {}).update(info)

    def model_info(self, model: str) -> dict:
        with self._lock:
            return dict(self._model_info.get(model, {}))

    def summary(self) -> dict:
        """JSON-serialisable totals: {"total": {...}, "models": {name: {...}}, "stages": {stage: {...}}}."""
        with self._lock:
            models = {k: v.to_dict() for k, v in sorted(self._models.items())}
            for name, info in self._model_info.items():
                models.setdefault(name, _Bucket().to_dict()).update(info)
            return {
                "total": self._total.to_dict(),
                "models": models,
                "stages": {k: v.to_dict() for k, v in sorted(self._stages.items())},
                "limits": {"max_requests": self.max_requests, "budget_usd": self.budget_usd},
            }


def journal_usage(
    rows: list[tuple],
    prices: dict[str, tuple[float, float]],
    batch_rows: list[tuple] | None = None,
    batch_prices: dict[str, tuple[float, float]] | None = None,
) -> dict:
    """Whole-run totals from :meth:`Journal.totals` rows, per model, per stage and overall.

    A row is (model, stage, answers, prompt tokens, completion tokens[, reasoning tokens]).
    ``prices`` maps a model name to (price in, price out) per 1k tokens; unknown models cost 0.
    ``batch_rows`` (``totals(via="batch")``: a part of ``rows``) are the answers that came in
    Batch API jobs: costed at ``batch_prices`` instead, and counted apart (``batch_answers``,
    ``batch_cost_usd``).
    """

    def zero() -> dict:
        return {"answers": 0, "prompt_tokens": 0, "completion_tokens": 0, "reasoning_tokens": 0, "cost_usd": 0.0}

    def tokens(row: tuple) -> TokenUsage:
        return TokenUsage(row[3], row[4], int(row[5]) if len(row) > 5 else 0)

    batched = {(r[0], r[1]): r for r in batch_rows or []}
    models: dict[str, dict] = {}
    stages: dict[str, dict] = {}
    total = zero()
    for row in rows:
        model, stage, answers = row[0], row[1], row[2]
        used, via_batch = tokens(row), batched.get((model, stage))
        cost = cost_usd(used, *prices.get(model, (0.0, 0.0)))
        if via_batch is not None:
            b = tokens(via_batch)
            live_price, batch_price = prices.get(model, (0.0, 0.0)), (batch_prices or {}).get(model, (0.0, 0.0))
            batch_cost = cost_usd(b, *batch_price)
            cost += batch_cost - cost_usd(b, *live_price)
        for bucket in (models.setdefault(model, zero()), stages.setdefault(stage, zero()), total):
            bucket["answers"] += answers
            bucket["prompt_tokens"] += used.prompt_tokens
            bucket["completion_tokens"] += used.completion_tokens
            bucket["reasoning_tokens"] += used.reasoning_tokens
            bucket["cost_usd"] += cost
            if via_batch is not None:
                bucket["batch_answers"] = bucket.get("batch_answers", 0) + via_batch[2]
                bucket["batch_cost_usd"] = bucket.get("batch_cost_usd", 0.0) + batch_cost
    for bucket in (*models.values(), *stages.values(), total):
        bucket["cost_usd"] = round(bucket["cost_usd"], 6)
        if "batch_cost_usd" in bucket:
            bucket["batch_cost_usd"] = round(bucket["batch_cost_usd"], 6)
    return {"total": total, "models": models, "stages": stages}
