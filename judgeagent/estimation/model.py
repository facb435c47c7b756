"""The estimate as data: ranges (:class:`Span`), one model at one stage (:class:`Line`), the
models' facts (:class:`ModelInfo`), one run's estimate (:class:`Estimate`) and several runs'
combined (:func:`combine`). Pure arithmetic: nothing here reads a file or a plan."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field

from judgeagent.estimation.batch import BatchPlan, combined_waves

LOCAL_START_S = 3.0  # starting the bundled llama server for a model


@dataclass(frozen=True)
class RateRange:
    """A rate of the plans as the estimate used it: its range and where it came from."""

    low: float
    expected: float
    high: float
    source: str  # "prior", or "measured: N/M in earlier runs ..."


# ----------------------------------------------------------------------------- ranges
@dataclass(frozen=True)
class Span:
    """A quantity that is random before the run: its low end, expected value and high end."""

    low: float
    expected: float
    high: float

    @classmethod
    def zero(cls) -> Span:
        return cls(0.0, 0.0, 0.0)

    def __add__(self, other: Span) -> Span:
        return Span(self.low + other.low, self.expected + other.expected, self.high + other.high)

    def scaled(self, k: float) -> Span:
        return Span(self.low * k, self.expected * k, self.high * k)

    def larger(self, other: Span) -> Span:
        """The larger of the two at each end (the longer of two waits)."""
        return Span(max(self.low, other.low), max(self.expected, other.expected), max(self.high, other.high))

    def contains(self, value: float) -> bool:
        return self.low <= value <= self.high

    def to_list(self, digits: int = 0) -> list[float]:
        return [round(self.low, digits), round(self.expected, digits), round(self.high, digits)]


@dataclass
class Line:
    """One model at one stage (or a total)."""

    model: str
    stage: str
    requests: Span
    prompt_tokens: Span
    completion_tokens: Span
    cost_usd: Span
    busy_s: Span  # seconds of the model's time (before concurrency)

    def __add__(self, other: Line) -> Line:
        return Line(self.model, self.stage, self.requests + other.requests, self.prompt_tokens + other.prompt_tokens,
                    self.completion_tokens + other.completion_tokens, self.cost_usd + other.cost_usd, self.busy_s + other.busy_s)

    def to_dict(self) -> dict[str, object]:
        return {"model": self.model, "stage": self.stage, "requests": self.requests.to_list(), "prompt_tokens": self.prompt_tokens.to_list(),
                "completion_tokens": self.completion_tokens.to_list(), "cost_usd": self.cost_usd.to_list(6), "busy_s": self.busy_s.to_list(1)}


def _zero_line(model: str, stage: str) -> Line:
    z = Span.zero()
    return Line(model, stage, z, z, z, z, z)


@dataclass
class ModelInfo:
    """A model of the estimate, as its wall time and cost need it."""

    name: str
    identity: str
    server: str  # the requests that queue together: a remote endpoint's identity, or "local" for every bundled-server model (they share the cores)
    concurrency: int
    local: bool
    price_in_per_1k: float
    price_out_per_1k: float
    measured: str  # where its tokens and times come from
    batched: bool = False  # asked through its provider's Batch API (--batch-api, or batch_api = true)
    batch_prices: tuple[float, float] = (0.0, 0.0)  # (in, out) per 1k tokens in a batch job

    def cost(self, line: Line, batch: bool) -> Span:
        """``line``'s tokens at this model's batch prices (``batch``, when it is batched) or live ones."""
        if not (batch and self.batched):
            return line.cost_usd
        pin, pout = self.batch_prices
        p, c = line.prompt_tokens, line.completion_tokens
        return Span(*(i / 1000 * pin + o / 1000 * pout for i, o in ((p.low, c.low), (p.expected, c.expected), (p.high, c.high))))


@dataclass
class Estimate:
    """The expected cost of one run (or, combined, of several), per model and stage."""

    lines: list[Line]
    models: dict[str, ModelInfo]
    wall_s: Span
    units: int  # units still to ask
    units_done: int  # finished before (a resumed run does not ask them again)
    protocol: str
    run_dir: str
    notes: list[str] = field(default_factory=list)
    rates: dict[str, RateRange] = field(default_factory=dict)  # rate name → its range and where it came from
    budget_usd: float | None = None
    max_requests: int | None = None
    parts: int = 1  # runs combined into this estimate
    batch: BatchPlan | None = None  # with --batch-api: the waves, their turnaround, which models

    def batch_cost(self, model: str | None = None) -> Span:
        """What the run costs with the batched models' requests at batch prices (the others
        live): of one model, or of all."""
        out = Span.zero()
        for ln in self.lines:
            info = self.models.get(ln.model)
            if model is None or ln.model == model:
                out = out + (info.cost(ln, batch=self.batch is not None) if info is not None else ln.cost_usd)
        return out

    # ------------------------------------------------------------------ totals
    def by_model(self) -> dict[str, Line]:
        out: dict[str, Line] = {}
        for ln in self.lines:
            out[ln.model] = out.get(ln.model, _zero_line(ln.model, "all")) + ln
        return out

    def by_stage(self, model: str) -> dict[str, Line]:
        return {ln.stage: ln for ln in self.lines if ln.model == model}

    def total(self) -> Line:
        out = _zero_line("all", "all")
        for ln in self.lines:
            out = out + ln
        return out

    # ------------------------------------------------------------------ combining
    def __add__(self, other: Estimate) -> Estimate:
        return combine([self, other])

    # ------------------------------------------------------------------ the budget
    def warnings(self) -> list[str]:
        """Whether --budget-usd or --max-requests would stop the run: at the expected cost, or
        only at the high end of the range."""
        total, out = self.total(), []
        limits: list[tuple[str, float | None, Span, Callable[[float], str]]] = [
            ("--budget-usd", self.budget_usd, self.batch_cost(), lambda v: f"${v:.4f}"),
            ("--max-requests", self.max_requests, total.requests, lambda v: f"{v:.0f} requests"),
        ]
        for flag, limit, span, fmt in limits:
            if limit is None:
                continue
            if span.expected > limit:
                out.append(f"{flag} {limit:g} would stop the run: it is expected to need {fmt(span.expected)} (range {fmt(span.low)}–{fmt(span.high)})")
            elif span.high > limit:
                out.append(f"{flag} {limit:g} may stop the run: the expected {fmt(span.expected)} fits, the high end {fmt(span.high)} does not")
        return out

    def to_dict(self) -> dict[str, object]:
        return {
            "protocol": self.protocol, "run_dir": self.run_dir, "units": self.units, "units_done": self.units_done, "parts": self.parts,
            "lines": [ln.to_dict() for ln in self.lines],
            "models": {k: ln.to_dict() for k, ln in self.by_model().items()},
            "total": self.total().to_dict(), "wall_s": self.wall_s.to_list(1),
            "rates": {k: asdict(v) for k, v in self.rates.items()}, "notes": self.notes, "warnings": self.warnings(),
            "measured": {k: m.measured for k, m in self.models.items()},
            "batch_api": (self.batch.to_dict() | {"cost_usd": self.batch_cost().to_list(6)}) if self.batch is not None else None,
        }  # fmt: skip


def combine(estimates: Iterable[Estimate]) -> Estimate:
    """Several runs' estimates as one (a sweep: one per target, the judge shared).

    Requests, tokens and cost add up per model and stage. Wall time: the runs go on at once,
    so it is the slowest shared server's queue (the sum of every run's busy time on it, over
    its concurrency) or the longest single run, whichever is longer."""
    items = list(estimates)
    if not items:
        raise ValueError("combine() needs at least one estimate")
    lines: dict[tuple[str, str], Line] = {}
    models: dict[str, ModelInfo] = {}
    for e in items:
        for ln in e.lines:
            key = (ln.model, ln.stage)
            lines[key] = lines[key] + ln if key in lines else ln
        models.update(e.models)
    notes = list(dict.fromkeys(n for e in items for n in e.notes))
    budgets = [e.budget_usd for e in items if e.budget_usd is not None]
    maxreq = [e.max_requests for e in items if e.max_requests is not None]
    out = Estimate(list(lines.values()), models, Span.zero(), sum(e.units for e in items), sum(e.units_done for e in items),
                   ",".join(dict.fromkeys(e.protocol for e in items)), "", notes, items[0].rates,
                   max(budgets) if budgets else None, max(maxreq) if maxreq else None, sum(e.parts for e in items))
    queues = server_queues(out.lines, models)
    longest = Span(max(e.wall_s.low for e in items), max(e.wall_s.expected for e in items), max(e.wall_s.high for e in items))
    out.wall_s = longest.larger(queues)
    batched = [e.batch for e in items if e.batch is not None]
    if batched:  # the runs share one event loop, so their waves too: the longest run's
        first = batched[0]
        out.batch = BatchPlan(sorted({m for b in batched for m in b.models}), sorted({m for b in batched for m in b.local}),
                              combined_waves(b.waves for b in batched), first.turnaround_s, first.turnaround_source, first.poll_s,
                              first.expired, first.expired_retries)  # fmt: skip
        out.wall_s = batch_wall(out)
    return out


def batch_wall(est: Estimate) -> Span:
    """Under --batch-api: the waves times a wave's time, or the live models' queue if longer."""
    assert est.batch is not None
    w = est.batch.wall_s
    live = server_queues([ln for ln in est.lines if not est.models[ln.model].batched], est.models)
    return Span(w.low, w.expected, w.high).larger(live)


def server_queues(lines: list[Line], models: dict[str, ModelInfo]) -> Span:
    """The longest server queue: each server's busy time over its concurrency, plus the
    bundled server's start."""
    busy: dict[str, Span] = {}
    conc: dict[str, int] = {}
    for ln in lines:
        m = models.get(ln.model)
        if m is None:
            continue
        busy[m.server] = busy.get(m.server, Span.zero()) + ln.busy_s
        conc[m.server] = max(1, min(conc.get(m.server, m.concurrency), m.concurrency))
    worst = Span.zero()
    for server, s in busy.items():
        q = s.scaled(1 / conc[server])
        if server == "local":
            q = q + Span(LOCAL_START_S, LOCAL_START_S, LOCAL_START_S)
        worst = worst.larger(q)
    return worst
