"""Cost before the run: ``judgeagent evaluate ... --dry-run`` and ``judgeagent.estimate(cfg)``.

What a run will send, per model and stage: requests, prompt and completion tokens, cost, and
the wall time, each as a range (low, expected, high), because regenerations, rounds without
a knowledge path, gate failures, re-asks and early stops are random. Nothing is sent, no
model is loaded (the bundled llama server is not started) and no graph is built or read.

How it is made:

1. The run is opened as the engine opens it (models, benchmark, units, run folder), so the
   units still to ask are exactly those a real run would ask (a resumed run asks less).
2. The protocol's :meth:`~judgeagent.engine.protocol.Protocol.call_plan` lists each unit's
   requests: the prompt of each, rendered from the real templates on the unit's real seed
   questions, and how many of each as a random count built from a few probabilities (the
   gate's pass rate, a seed's accuracy, ...). The plans are made three times, with every
   probability at the low, expected and high end of its range; the range of the total also
   holds two standard deviations of the units' own randomness.
3. Prompt tokens are counted with MiniLM's word-piece tokenizer (installed with the
   package, loaded in milliseconds), plus 4 tokens per message and 3 per request for the
   chat format. For remote models this stands in for the provider's BPE tokenizer (for
   English prose within about 15%); once an earlier run of the same model is in a journal,
   the ratio of the tokens that model reported to our count of the same prompts corrects it.
4. Earlier runs supply measured rates where they exist: every run folder under runs/ (and
   beside ``--out``, and the run folder itself when it is resumed) with a journal.sqlite
   and config.json. From their journals: completion tokens per request by model and stage,
   seconds per request, the tokenizer ratio, the client's re-asks; from their records:
   the gate's pass rate, seed accuracy, paths found, phrase answers the judge decided,
   leaking advice, dialogue turns held. Anything not measured is a documented prior
   (``PRIORS`` in judgeagent/engine/callplan.py, ``COMPLETION_PRIORS`` and
   ``LATENCY_PRIORS`` here); the output says which is which.
5. With ``--batch-api`` (or ``batch_api = true`` for a model), the batched models' requests
   are costed at batch prices beside live ones, and the wall time is the run's waves times
   the provider's turnaround (judgeagent/batch_estimate.py).
"""

from __future__ import annotations

import json
import math
import random
import sqlite3
import statistics
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgeagent.batch_estimate import BatchPlan, combined_waves, read_turnarounds, turnaround, waves
from judgeagent.config import RUNS_DIR, EvalConfig
from judgeagent.engine.callplan import SCENARIOS, Call, Count, Rates, unit_chain

PER_MESSAGE_TOKENS = 4  # the chat format's role markers and separators, per message
PER_REQUEST_TOKENS = 3  # and the assistant turn's opening
MAX_PLANNED_UNITS = 120  # beyond this many units, a seeded sample is planned and scaled up
HISTORY_FOLDERS = 30  # the most recent earlier run folders read for measured rates
SAMPLED_PROMPTS = 40  # journal prompts per model recounted for the tokenizer ratio

# Completion tokens of one reply by stage, when no earlier run measured them: what a
# schema-following reply of each kind takes (an answer letter or phrase per question in
# JSON; a question with four options and a rationale; the four evaluation fields; ...).
# Replies vary, so the low end is 40% of this and the high end twice it (at most the
# stage's max_tokens).
COMPLETION_PRIORS: dict[str, float] = {
    "grading": 40, "validation": 40, "control-plain": 40, "control-placebo": 40, "extension": 15, "contamination": 30,
    "reask-extended": 15, "transfer": 40, "transfer-placebo": 40, "escalate": 15, "bank": 15, "answer": 30,
    "interviewer-answer": 15, "interviewer-revision": 15,
    "generation": 110, "gate": 10, "grading-judge": 8, "feedback": 220, "leak-check": 40, "leak-rewrite": 110,
    "summary": 300, "decontaminate": 90, "kieval-interactor": 40, "kieval-target": 70, "kieval-evaluator": 220,
    "interviewer-feedback": 60, "interviewer-followups": 50, "interviewer-followup-answer": 70, "interviewer-grade": 60,
    "interview-report": 250,
}  # fmt: skip
DEFAULT_COMPLETION_SHARE = 0.3  # of max_tokens, for a stage not in the table

# Seconds per request when no earlier run measured them: a fixed part plus prompt tokens read
# and completion tokens written per second. Local: the bundled 135M model on 2 cores (it
# writes 25-35 tokens/s); remote: a hosted model's typical time to first token and speed.
LATENCY_PRIORS = {"local": (0.15, 600.0, 30.0), "remote": (0.6, 20000.0, 60.0)}
LOCAL_START_S = 3.0  # starting the bundled llama server for a model
REASK_PRIORS = {"local": (0.0, 0.05, 0.25), "remote": (0.0, 0.01, 0.05)}  # client re-asks per request


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

    def to_dict(self) -> dict:
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
        return Span(*(p / 1000 * pin + c / 1000 * pout for p, c in zip((line.prompt_tokens.low, line.prompt_tokens.expected, line.prompt_tokens.high),
                                                                        (line.completion_tokens.low, line.completion_tokens.expected,
                                                                         line.completion_tokens.high))))  # fmt: skip


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
    rates: dict[str, dict] = field(default_factory=dict)  # rate → {"low", "expected", "high", "source"}
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
        limits = [("--budget-usd", self.budget_usd, self.batch_cost(), lambda v: f"${v:.4f}"),
                  ("--max-requests", self.max_requests, total.requests, lambda v: f"{v:.0f} requests")]
        for flag, limit, span, fmt in limits:
            if limit is None:
                continue
            if span.expected > limit:
                out.append(f"{flag} {limit:g} would stop the run: it is expected to need {fmt(span.expected)} (range {fmt(span.low)}–{fmt(span.high)})")
            elif span.high > limit:
                out.append(f"{flag} {limit:g} may stop the run: the expected {fmt(span.expected)} fits, the high end {fmt(span.high)} does not")
        return out

    def to_dict(self) -> dict:
        return {
            "protocol": self.protocol, "run_dir": self.run_dir, "units": self.units, "units_done": self.units_done, "parts": self.parts,
            "lines": [ln.to_dict() for ln in self.lines],
            "models": {k: ln.to_dict() for k, ln in self.by_model().items()},
            "total": self.total().to_dict(), "wall_s": self.wall_s.to_list(1),
            "rates": self.rates, "notes": self.notes, "warnings": self.warnings(),
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
    queues = _server_queues(out.lines, models)
    longest = Span(max(e.wall_s.low for e in items), max(e.wall_s.expected for e in items), max(e.wall_s.high for e in items))
    out.wall_s = Span(*(max(getattr(longest, k), getattr(queues, k)) for k in ("low", "expected", "high")))
    batched = [e.batch for e in items if e.batch is not None]
    if batched:  # the runs share one event loop, so their waves too: the longest run's
        first = batched[0]
        out.batch = BatchPlan(sorted({m for b in batched for m in b.models}), sorted({m for b in batched for m in b.local}),
                              combined_waves(b.waves for b in batched), first.turnaround_s, first.turnaround_source, first.poll_s)  # fmt: skip
        out.wall_s = batch_wall(out)
    return out


def batch_wall(est: Estimate) -> Span:
    """Under --batch-api: the waves times a wave's time, or the live models' queue if longer."""
    assert est.batch is not None
    w = est.batch.wall_s
    live = _server_queues([ln for ln in est.lines if not est.models[ln.model].batched], est.models)
    return Span(max(w.low, live.low), max(w.expected, live.expected), max(w.high, live.high))


def _server_queues(lines: list[Line], models: dict[str, ModelInfo]) -> Span:
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
        worst = Span(max(worst.low, q.low), max(worst.expected, q.expected), max(worst.high, q.high))
    return worst


# ----------------------------------------------------------------------------- tokens
def _tokenizer():
    from judgeagent.minilm import tokenizer

    return tokenizer()[0]


def count_prompts(prompts: list[list[dict]]) -> list[int]:
    """Prompt tokens of each request: word-pieces of every message, plus the chat format's."""
    texts, owners = [], []
    for i, msgs in enumerate(prompts):
        for m in msgs:
            texts.append(str(m.get("content") or ""))
            owners.append(i)
    counts = [PER_REQUEST_TOKENS + PER_MESSAGE_TOKENS * len(msgs) for msgs in prompts]
    if texts:
        for owner, enc in zip(owners, _tokenizer().encode_batch(texts, add_special_tokens=False)):
            counts[owner] += len(enc.ids)
    return counts


# ----------------------------------------------------------------------------- history
@dataclass
class Measured:
    """What earlier runs showed of one model (by identity)."""

    completion: dict[str, list[int]] = field(default_factory=dict)  # stage → completion tokens per reply
    latency: dict[str, list[float]] = field(default_factory=dict)  # stage → seconds per reply
    prompt_pairs: list[tuple[int, int]] = field(default_factory=list)  # (reported prompt tokens, our count)
    calls: int = 0
    reasks: int = 0
    runs: set = field(default_factory=set)

    def ratio(self) -> float | None:
        ours = sum(o for _, o in self.prompt_pairs)
        return sum(r for r, _ in self.prompt_pairs) / ours if ours and len(self.prompt_pairs) >= 3 else None


@dataclass
class History:
    models: dict[str, Measured] = field(default_factory=dict)  # identity → measured
    counts: dict[str, list[int]] = field(default_factory=dict)  # rate → [events, of how many]
    folders: list[str] = field(default_factory=list)
    turnarounds: list[tuple[str, str, float]] = field(default_factory=list)  # (identity, endpoint, seconds) of finished batch jobs


def _folders(cfg: EvalConfig, own: Path) -> list[Path]:
    """Earlier run folders to learn from: the run's own (when resumed), the other folders under
    runs/ and beside --out, newest first."""
    roots = [RUNS_DIR]
    if cfg.out is not None:
        roots.append(Path(cfg.out).parent)
    if cfg.resume is not None:
        roots.append(Path(cfg.resume).parent)
    found: dict[Path, float] = {}
    if (own / "journal.sqlite").exists():
        found[own.resolve()] = float("inf")
    for root in roots:
        if not root.is_dir():
            continue
        # Run folders, and the runs inside a sweep folder (SWEEP/targets/<t>/, SWEEP/shared/<t>/).
        for j in (*root.glob("*/journal.sqlite"), *root.glob("*/*/*/journal.sqlite")):
            if (j.parent / "config.json").exists():
                found.setdefault(j.parent.resolve(), j.stat().st_mtime)
    return sorted(found, key=lambda p: -found[p])[:HISTORY_FOLDERS]


# Whose behaviour a rate measures: an earlier run teaches it only when those roles were played
# by the same models as in this run (a weak judge's gate pass rate says nothing of a strong one's).
RATE_ROLES: dict[str, frozenset[str]] = {
    "seed_accuracy": frozenset({"target"}), "phrase_judged": frozenset({"target", "judge"}), "path_found": frozenset(),
    "hard_share": frozenset({"target", "judge"}), "try_reaches_gate": frozenset({"judge"}), "try_accepted": frozenset({"judge"}),
    "leaks": frozenset({"judge"}), "turn_held": frozenset({"target", "judge"}),
}  # fmt: skip


def read_history(cfg: EvalConfig, own: Path, identities: set[str], roles: dict[str, str] | None = None) -> History:
    """Measured rates from earlier runs' journals and records: tokens and times of the models
    in ``identities``; rates from runs whose roles were played by the same models (``roles``:
    role → identity in this run)."""
    from judgeagent.llm import load_registry

    h = History()
    registry = load_registry(cfg.llm.models_file)
    for folder in _folders(cfg, own):
        try:
            _read_journal(folder, h, identities)
            h.turnarounds += read_turnarounds(folder / "journal.sqlite")
            _read_records(folder, h, _same_roles(folder, roles or {}, registry))
            _read_usage(folder, h, registry)
        except (OSError, sqlite3.Error, json.JSONDecodeError, KeyError, TypeError, ValueError):
            continue  # an unreadable folder teaches nothing; the estimate still stands on priors
        h.folders.append(str(folder))
    return h


def _read_journal(folder: Path, h: History, identities: set[str]) -> None:
    db = sqlite3.connect(f"file:{folder / 'journal.sqlite'}?mode=ro", uri=True, timeout=2.0)
    try:
        rows = db.execute("SELECT identity, stage, prompt_tokens, completion_tokens, latency_s FROM responses").fetchall()
        for identity, stage, _p, completion, latency in rows:
            m = h.models.setdefault(identity, Measured())
            m.completion.setdefault(stage, []).append(int(completion))
            m.latency.setdefault(stage, []).append(float(latency))
            m.runs.add(str(folder))
        for identity in identities:
            sample = db.execute(
                "SELECT request, prompt_tokens FROM responses WHERE identity = ? ORDER BY key LIMIT ?", (identity, SAMPLED_PROMPTS)
            ).fetchall()
            msgs = [json.loads(r)["messages"] for r, _ in sample]
            if msgs:
                ours = count_prompts(msgs)
                h.models.setdefault(identity, Measured()).prompt_pairs += [(int(p), o) for (_, p), o in zip(sample, ours) if p > 0]
    finally:
        db.close()


def _read_usage(folder: Path, h: History, registry: Any) -> None:
    """The client's re-asks per request sent, from metrics.json (names → identities via config.json)."""
    metrics = json.loads((folder / "metrics.json").read_text()) if (folder / "metrics.json").exists() else {}
    config = json.loads((folder / "config.json").read_text())
    names = {}
    for info in (config.get("models") or {}).values():
        names[info["name"]] = info
    usage = (metrics.get("llm_usage") or {}).get("models") or {}
    for name, u in usage.items():
        info = names.get(name)
        if not info:
            continue
        try:
            identity = registry.resolve(name).identity
        except Exception:  # a model this machine does not know (another judgeagent.toml): nothing learnt from its usage
            continue
        sent = int(u.get("requests", 0)) - int(u.get("cached", 0))
        if sent > 0:
            m = h.models.setdefault(identity, Measured())
            m.calls += sent
            m.reasks += int(u.get("reasks", 0))


def _same_roles(folder: Path, roles: dict[str, str], registry: Any) -> frozenset[str]:
    """The roles an earlier run's models played as this run's do (by identity)."""
    models = json.loads((folder / "config.json").read_text()).get("models") or {}
    same = set()
    for role, identity in roles.items():
        try:
            if registry.resolve(models[role]["name"]).identity == identity:
                same.add(role)
        except Exception:  # a role it did not have, or a model this machine does not know
            continue
    return frozenset(same)


def _add(h: History, rate: str, events: int, of: int, same: frozenset[str] | None = None) -> None:
    if same is not None and not RATE_ROLES.get(rate, frozenset()) <= same:
        return
    c = h.counts.setdefault(rate, [0, 0])
    c[0] += events
    c[1] += of


def _read_records(folder: Path, h: History, same: frozenset[str]) -> None:
    path = folder / "records.jsonl"
    if not path.exists():
        return
    for line in path.read_text(encoding="utf-8").splitlines()[:5000]:
        try:
            r = json.loads(line)
        except json.JSONDecodeError:
            continue
        answers = r.get("seed_answers") or []
        _add(h, "seed_accuracy", sum(1 for a in answers if a.get("correct")), len(answers), same)
        phrase = [a for a in answers if a.get("graded_by") in ("exact", "f1", "judge", "yes/no", "null")]
        _add(h, "phrase_judged", sum(1 for a in phrase if a.get("graded_by") == "judge"), len(phrase), same)
        rounds = [*(r.get("rounds") or []), *(r.get("generated") or [])]
        _add(h, "path_found", sum(1 for rd in rounds if rd.get("skipped") != "no knowledge path"), len(rounds), same)
        _add(h, "hard_share", sum(1 for rd in rounds if rd.get("level") == "hard"), sum(1 for rd in rounds if rd.get("level")), same)
        tries = [t for rd in rounds for t in rd.get("generation_attempts") or []]
        gated = [t for t in tries if "gate" in t]
        _add(h, "try_reaches_gate", sum(1 for t in gated if ((t["gate"].get("checks") or {}).get("answerable") or {}).get("passed") is not None), len(tries), same)
        if gated:
            _add(h, "try_accepted", sum(1 for t in tries if t.get("ok")), len(tries), same)
        for v in r.get("validations") or []:
            leak = v.get("leak")
            if leak:
                _add(h, "leaks", 1 if leak.get("leaks_before") else 0, 1, same)
        d = r.get("dialogue")
        if d:
            _add(h, "turn_held", d.get("turns_held", 0), len(d.get("turns") or []), same)


def rates_from(h: History) -> Rates:
    rates = Rates.priors()
    runs = len(h.folders)
    for name, (events, of) in h.counts.items():
        if name in rates.values and of > 0:
            rates.measured(name, events / of, of, f"measured: {events}/{of} in earlier runs of the same models (of {runs} read)")
    return rates


# ----------------------------------------------------------------------------- the estimate
@dataclass
class _Acc:
    """One (model, stage)'s sums over the planned units, for one scenario."""

    mean: float = 0.0
    var: float = 0.0
    lo: float = 0.0
    hi: float = 0.0
    prompt: float = 0.0  # expected prompt tokens
    max_tokens: float = 0.0  # a request's answer budget, weighted by count
    kinds: int = 0  # calls of the plans summed here, and their prompt tokens and budgets unweighted
    kind_prompt: float = 0.0  # (for a stage expected to send nothing, its high end still costs tokens)
    kind_max_tokens: float = 0.0

    def per_prompt(self) -> float:
        return self.prompt / self.mean if self.mean > 1e-9 else (self.kind_prompt / self.kinds if self.kinds else 0.0)

    def per_max_tokens(self) -> float:
        return self.max_tokens / self.mean if self.mean > 1e-9 else (self.kind_max_tokens / self.kinds if self.kinds else 0.0)


def estimate(cfg: EvalConfig) -> Estimate:
    """What running ``cfg`` will send and cost, without sending anything (see the module docstring).

    Bad settings raise the same one-line errors a run does (an unknown model, a missing data
    folder); a missing API key does not matter here."""
    from judgeagent.engine.options import resolve
    from judgeagent.engine.protocol import Protocol
    from judgeagent.engine.run import RunContext

    protocol, options = resolve(cfg)
    cfg = cfg.model_copy(update={"options": options.model_dump(mode="json")})
    ctx = RunContext.open(protocol, cfg, options, progress=False)
    ctx.done = ctx.folder.read_records()
    todo = protocol.todo(ctx)
    roles = {"target": ctx.target, "judge": ctx.judge, **ctx.roles}
    history = read_history(cfg, ctx.folder.path, {s.identity for s in roles.values()}, {r: s.identity for r, s in roles.items()})
    rates = rates_from(history)
    notes: list[str] = []
    if type(protocol).call_plan is Protocol.call_plan:
        notes.append(f"--protocol {protocol.name} has no call plan of its own: counted as one answer per unit (a lower bound)")
    planned = todo
    if len(todo) > MAX_PLANNED_UNITS:
        planned = sorted(random.Random(cfg.seed).sample(todo, MAX_PLANNED_UNITS), key=lambda u: u.index)
        notes.append(f"{len(todo)} units: {len(planned)} of them planned (seeded sample), scaled up")
    scale = len(todo) / len(planned) if planned else 0.0

    # Every scenario's calls; the prompts counted once (the plans render the same prompts).
    plans: dict[str, list[tuple[Call, float]]] = {}
    per_unit: dict[str, list[list[Call]]] = {}
    closing: dict[str, list[Call]] = {}
    for s in SCENARIOS:
        sc = rates.scenario(s)
        per_unit[s] = [protocol.call_plan(ctx, u, sc) for u in planned]
        closing[s] = protocol.call_plan(ctx, None, sc) if todo or not ctx.done else []  # the closing requests, once per run
        plans[s] = [(c, scale) for calls in per_unit[s] for c in calls] + [(c, 1.0) for c in closing[s]]
    prompts = {id(c.messages): c.messages for calls in plans.values() for c, _ in calls}
    counted = dict(zip(prompts, count_prompts(list(prompts.values()))))

    accs: dict[str, dict[tuple[str, str], _Acc]] = {}
    for s, pairs in plans.items():
        acc: dict[tuple[str, str], _Acc] = {}
        for c, k in pairs:
            spec = roles.get(c.role)
            if spec is None:
                raise ValueError(f"{protocol.name}: a call plan names the role {c.role!r}, which the run does not have")
            a = acc.setdefault((spec.name, c.stage), _Acc())
            a.mean += k * c.count.mean
            a.var += k * c.count.var
            a.lo += k * c.count.lo
            a.hi += k * c.count.hi
            tokens = counted[id(c.messages)] + c.growth * c.repeats
            a.prompt += k * c.count.mean * tokens
            a.max_tokens += k * c.count.mean * c.max_tokens
            a.kinds += 1
            a.kind_prompt += tokens
            a.kind_max_tokens += c.max_tokens
        accs[s] = acc

    infos = {spec.name: _model_info(spec, cfg, history) for spec in roles.values()}
    lines = []
    keys = sorted({k for acc in accs.values() for k in acc})
    for model, stage in keys:
        spec = next(sp for sp in roles.values() if sp.name == model)
        lines.append(_line(model, stage, [accs[s].get((model, stage), _Acc()) for s in SCENARIOS], spec, infos[model], history))
    est = Estimate(lines, infos, Span.zero(), len(todo), len(ctx.units) - len(todo), protocol.name, str(ctx.folder.path), notes,
                   {k: {"low": round(v[0], 3), "expected": round(v[1], 3), "high": round(v[2], 3), "source": rates.sources[k]}
                    for k, v in rates.values.items()},
                   cfg.llm.budget_usd, cfg.llm.max_requests)  # fmt: skip
    est.wall_s = _wall(est, cfg, ctx, accs)
    est.batch = _batch_plan(cfg, roles, per_unit, closing, len(todo), history)
    if est.batch is not None:
        est.wall_s = batch_wall(est)
    elif cfg.llm.batch_api:
        notes.append("--batch-api: every model of this run is local, so nothing goes through a Batch API")
    if ctx.units and len(todo) < len(ctx.units):
        notes.append(f"{len(ctx.units) - len(todo)} of {len(ctx.units)} units are finished in {ctx.folder.path}: only the rest is counted")
    if _needs_graph(protocol, ctx) and not (cfg.graph_dir() / "manifest.json").exists():
        notes.append(f"the graph {cfg.graph_dir()} is not built yet: building it adds time (not counted), and no model request")
    return est


def _batch_plan(cfg: EvalConfig, roles: dict[str, Any], per_unit: dict[str, list[list[Call]]], closing: dict[str, list[Call]], n_units: int,
                h: History) -> BatchPlan | None:  # fmt: skip
    """The waves and their turnaround when some model of the run goes through a Batch API."""
    batched = {role: spec for role, spec in roles.items() if spec.batched(cfg.llm.batch_api)}
    if not batched:
        return None

    def chain(calls: list[Call]) -> Count:
        return unit_chain(calls, lambda role: role in batched)

    chains = {s: [chain(calls) for calls in per_unit[s]] for s in SCENARIOS}
    ends = {s: chain(closing[s]) for s in SCENARIOS}
    seen = list({spec.identity: (spec.identity, spec.base_url) for spec in batched.values()}.values())
    took, source = turnaround(h.turnarounds, seen)
    local = sorted({spec.name for spec in roles.values() if spec.is_local and (cfg.llm.batch_api or spec.batch_api)})
    return BatchPlan(sorted({spec.name for spec in batched.values()}), local, waves(chains, ends, n_units), took, source, cfg.llm.batch_api_poll_s)


def _needs_graph(protocol: Any, ctx: Any) -> bool:
    opts = ctx.options
    if protocol.name == "bank":
        return False
    if protocol.name == "judgeagent":
        return opts.rounds > 0 and not opts.no_extension
    return protocol.name != "interviewer"


def _model_info(spec: Any, cfg: EvalConfig, h: History) -> ModelInfo:
    m = h.models.get(spec.identity)
    runs = len(m.runs) if m else 0
    measured = f"measured on {runs} earlier run(s)" if runs else "priors (no earlier run of this model)"
    server = "local" if spec.is_local else spec.identity
    batched = spec.batched(cfg.llm.batch_api)
    return ModelInfo(spec.name, spec.identity, server, max(1, min(spec.concurrency, cfg.concurrency * 3)), spec.is_local,
                     spec.price_in_per_1k, spec.price_out_per_1k, measured, batched, spec.batch_prices)


def _spread(acc: _Acc) -> float:
    return 2.0 * math.sqrt(max(0.0, acc.var))


def _prior_completion(stage: str, max_tokens: float) -> float:
    return COMPLETION_PRIORS.get(stage, DEFAULT_COMPLETION_SHARE * max_tokens)


def _model_factor(m: Measured) -> float:
    """How much more (or less) this model wrote than the priors, over the stages measured:
    the prior of a stage it was never seen at is scaled by it."""
    measured = [(sum(v), len(v) * COMPLETION_PRIORS[s]) for s, v in m.completion.items() if v and s in COMPLETION_PRIORS]
    wrote, expected = sum(a for a, _ in measured), sum(b for _, b in measured)
    return min(10.0, max(0.1, wrote / expected)) if expected else 1.0


def _line(model: str, stage: str, accs: list[_Acc], spec: Any, info: ModelInfo, h: History) -> Line:
    """One model and stage: calls (with the client's re-asks), tokens, cost and busy time."""
    low_acc, exp_acc, high_acc = accs
    means = [a.mean for a in accs]
    calls_low = max(min(a.lo for a in accs), min(means) - _spread(exp_acc))
    calls_high = min(max(a.hi for a in accs), max(means) + _spread(exp_acc))
    calls_exp = exp_acc.mean
    m = h.models.get(spec.identity)
    kind = "local" if spec.is_local else "remote"
    r_lo, r_exp, r_hi = REASK_PRIORS[kind]
    if m and m.calls >= 20:
        r_exp = m.reasks / m.calls
        r_hi = max(r_exp * 2, r_exp + 0.02)
        r_lo = 0.0
    requests = Span(calls_low * (1 + r_lo), calls_exp * (1 + r_exp), calls_high * (1 + r_hi))

    # Prompt tokens: our count per request, corrected by the model's measured ratio.
    per_prompt = exp_acc.per_prompt()
    ratio = m.ratio() if m else None
    slack = 0.1 if ratio is not None else 0.2
    per_prompt *= ratio or 1.0
    prompt = Span(requests.low * per_prompt * (1 - slack), requests.expected * per_prompt, requests.high * per_prompt * (1 + slack))

    # Completion tokens per reply: measured mean and spread, else the stage's prior.
    max_tokens = exp_acc.per_max_tokens()
    seen = (m.completion.get(stage) if m else None) or []
    if seen:
        # The mean of this many replies varies as sd / sqrt(n); and the earlier run's mean
        # itself is known only to about 30% / sqrt(its replies).
        mu = statistics.fmean(seen)
        sd = statistics.pstdev(seen) if len(seen) > 1 else 0.3 * mu
        known = 0.3 / math.sqrt(len(seen))
        c_lo = max(0.0, mu - 2 * sd / math.sqrt(max(1.0, requests.low))) * (1 - known)
        c_hi = (mu + 2 * sd / math.sqrt(max(1.0, requests.high))) * (1 + known)
    else:
        mu = _prior_completion(stage, max_tokens) * (_model_factor(m) if m else 1.0)
        mu = min(mu, max_tokens) if max_tokens else mu
        c_lo, c_hi = 0.4 * mu, min(max_tokens or 2 * mu, 2 * mu)
    if spec.reasoning:
        # A thinking model's reasoning is billed as completion: half its allowance expected.
        extra = spec.reasoning_allowance
        mu, c_lo, c_hi = mu + extra / 2, c_lo + extra / 8, c_hi + extra
    completion = Span(requests.low * c_lo, requests.expected * mu, requests.high * c_hi)
    cost = Span(*(p / 1000 * spec.price_in_per_1k + c / 1000 * spec.price_out_per_1k
                  for p, c in zip((prompt.low, prompt.expected, prompt.high), (completion.low, completion.expected, completion.high))))

    # Busy seconds: measured seconds per reply at this stage, else the prior's speeds.
    lat = (m.latency.get(stage) if m else None) or []
    if len(lat) >= 3:
        s_exp = statistics.fmean(lat)
        s_lo, s_hi = s_exp * 0.7, s_exp * 1.5
    else:
        fixed, read, write = LATENCY_PRIORS[kind]
        s_exp = fixed + per_prompt / read + mu / write
        s_lo, s_hi = s_exp * 0.5, s_exp * 2.0
    busy = Span(requests.low * s_lo, requests.expected * s_exp, requests.high * s_hi)
    return Line(model, stage, requests, prompt, completion, cost, busy)


def _wall(est: Estimate, cfg: EvalConfig, ctx: Any, accs: dict) -> Span:
    """The longest server queue, or the units' own chains run ``concurrency`` at a time."""
    queue = _server_queues(est.lines, est.models)
    units = max(1, est.units)
    waves = math.ceil(units / max(1, cfg.concurrency))
    chain = Span.zero()
    for ln in est.lines:
        chain = chain + ln.busy_s
    per_unit = chain.scaled(waves / units)  # one unit's requests, one after another
    return Span(*(max(getattr(queue, k), getattr(per_unit, k)) for k in ("low", "expected", "high")))


# ----------------------------------------------------------------------------- rendering
def _n(v: float) -> str:
    if v >= 10_000_000:
        return f"{v / 1e6:.0f}M"
    if v >= 100_000:
        return f"{v / 1e3:.0f}k"
    return f"{v:,.0f}"


def _usd(v: float) -> str:
    return "$0" if v == 0 else (f"${v:.4f}" if v < 1 else f"${v:,.2f}")


def _dur(s: float) -> str:
    if s < 90:
        return f"{s:.0f} s"
    if s < 5400:
        return f"{s / 60:.0f} min"
    if s < 172800:
        return f"{s / 3600:.1f} h"
    return f"{s / 86400:.1f} days"


def cell(span: Span, fmt=_n) -> str:
    """``expected (low–high)``."""
    return f"{fmt(span.expected)} ({fmt(span.low)}–{fmt(span.high)})"


def render_text(est: Estimate) -> str:
    """The estimate as plain text: one row per model and stage, per model totals, the total,
    the wall time, where the rates came from, and the budget warnings."""
    batch = est.batch

    def costs(ln: Line, model: str | None) -> tuple[str, ...]:
        """The live cost, and with --batch-api the cost at batch prices beside it."""
        if batch is None:
            return (cell(ln.cost_usd, _usd),)
        info = est.models.get(model) if model is not None else None
        at_batch = info.cost(ln, batch=True) if info is not None else est.batch_cost()
        return cell(ln.cost_usd, _usd), cell(at_batch, _usd)

    rows: list[tuple[str, ...]] = [("model", "stage", "requests", "prompt tokens", "completion tokens", "cost", *(("at batch prices",) if batch else ()))]
    for model, total in est.by_model().items():
        for stage, ln in sorted(est.by_stage(model).items()):
            rows.append((model, stage, cell(ln.requests), cell(ln.prompt_tokens), cell(ln.completion_tokens), *costs(ln, model)))
        rows.append((model, "all stages", cell(total.requests), cell(total.prompt_tokens), cell(total.completion_tokens), *costs(total, model)))
    t = est.total()
    rows.append(("total", "", cell(t.requests), cell(t.prompt_tokens), cell(t.completion_tokens), *costs(t, None)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = [f"estimate (nothing sent): --protocol {est.protocol}, {est.units} unit(s) to ask"
           + (f", {est.units_done} finished" if est.units_done else "") + (f", {est.parts} runs combined" if est.parts > 1 else "")]
    out.append("expected (low–high)")
    for i, r in enumerate(rows):
        out.append("  ".join(v.ljust(w) if j < 2 else v.rjust(w) for j, (v, w) in enumerate(zip(r, widths))).rstrip())
        if i == 0:
            out.append("  ".join("-" * w for w in widths))
    if batch is not None:
        out += batch_lines(est)
    out.append(f"wall time: {_dur(est.wall_s.expected)} ({_dur(est.wall_s.low)}–{_dur(est.wall_s.high)})"
               + (" = waves × (turnaround + a poll)" if batch is not None else ""))
    for name, m in est.models.items():
        out.append(f"{name}: {m.measured}")
    measured = [k for k, v in est.rates.items() if v["source"] != "prior"]
    if measured:
        out.append("rates measured on earlier runs: " + ", ".join(f"{k} {est.rates[k]['expected']:.2f}" for k in measured))
    out.append("rates from priors: " + (", ".join(k for k, v in est.rates.items() if v["source"] == "prior") or "none"))
    out += [f"note: {n}" for n in est.notes]
    out += [f"warning: {w}" for w in est.warnings()]
    return "\n".join(out)


def batch_lines(est: Estimate) -> list[str]:
    """What --batch-api does: which models batch, the waves, both costs, the turnaround."""
    b = est.batch
    assert b is not None
    w, t = b.waves, b.turnaround_s
    live, at_batch = est.total().cost_usd, est.batch_cost()
    out = [f"Batch API: {', '.join(b.models)} through batch jobs"
           + (f"; {', '.join(b.local)} local, so asked one by one" if b.local else ""),
           f"waves: {w.expected:.0f} ({w.low:.0f}–{w.high:.0f}): the requests ready at the same point of the run go out together, "
           "one job per model and wave, and the run waits for each wave",
           f"cost: {cell(at_batch, _usd)} at batch prices, against {cell(live, _usd)} live",
           f"turnaround per job: {_dur(t.expected)} ({_dur(t.low)}–{_dur(t.high)}), {b.turnaround_source}"]  # fmt: skip
    return out
