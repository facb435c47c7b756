"""From call plans to the estimate's lines: per model and stage, requests (with the client's
re-asks), prompt and completion tokens, cost and busy seconds, each as a range; and the wall
time they add up to.

The plans are made three times (every rate at its low, expected and high end); the range of
a line also holds two standard deviations of the units' own randomness. What no earlier run
measured comes from priors: a reply's completion tokens from its call's stage
(:class:`~judgeagent.budgets.Stage`), seconds per request and re-asks per request from the
tables below.
"""

from __future__ import annotations

import math
import statistics
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from judgeagent.config import EvalConfig
from judgeagent.engine.callplan import Call
from judgeagent.estimation.history import History, Measured
from judgeagent.estimation.model import Estimate, Line, ModelInfo, Span, server_queues
from judgeagent.llm.registry import ModelSpec

# Seconds per request when no earlier run measured them: a fixed part plus prompt tokens read
# and completion tokens written per second. Local: the bundled 135M model on 2 cores (it
# writes 25-35 tokens/s); remote: a hosted model's typical time to first token and speed.
LATENCY_PRIORS = {"local": (0.15, 600.0, 30.0), "remote": (0.6, 20000.0, 60.0)}
REASK_PRIORS = {"local": (0.0, 0.05, 0.25), "remote": (0.0, 0.01, 0.05)}  # client re-asks per request


@dataclass
class Sums:
    """One (model, stage)'s sums over the planned units, for one scenario."""

    mean: float = 0.0
    var: float = 0.0
    lo: float = 0.0
    hi: float = 0.0
    prompt: float = 0.0  # expected prompt tokens
    max_tokens: float = 0.0  # a request's answer budget, weighted by count
    completion: float = 0.0  # its stage's completion prior, weighted by count
    kinds: int = 0  # calls of the plans summed here, and their prompt tokens, budgets and priors unweighted
    kind_prompt: float = 0.0  # (for a stage expected to send nothing, its high end still costs tokens)
    kind_max_tokens: float = 0.0
    kind_completion: float = 0.0

    def add(self, call: Call, k: float, tokens: float) -> None:
        """``k`` units' worth of ``call``, whose prompt is ``tokens`` long."""
        c = call.count
        self.mean += k * c.mean
        self.var += k * c.var
        self.lo += k * c.lo
        self.hi += k * c.hi
        self.prompt += k * c.mean * tokens
        self.max_tokens += k * c.mean * call.budget
        self.completion += k * c.mean * call.stage.completion
        self.kinds += 1
        self.kind_prompt += tokens
        self.kind_max_tokens += call.budget
        self.kind_completion += call.stage.completion

    def per(self, total: float, kind_total: float) -> float:
        return total / self.mean if self.mean > 1e-9 else (kind_total / self.kinds if self.kinds else 0.0)

    def per_prompt(self) -> float:
        return self.per(self.prompt, self.kind_prompt)

    def per_max_tokens(self) -> float:
        return self.per(self.max_tokens, self.kind_max_tokens)

    def per_completion(self) -> float:
        """The completion tokens a reply at this stage is expected to take, before measuring."""
        return self.per(self.completion, self.kind_completion)


Plans = dict[str, list[tuple[Call, float]]]  # scenario → (call, units it stands for)


def sums(plans: Plans, roles: Mapping[str, ModelSpec], counted: Mapping[int, int]) -> dict[str, dict[tuple[str, str], Sums]]:
    """Each scenario's sums per (model, stage); ``counted``: a prompt's tokens by id()."""
    out: dict[str, dict[tuple[str, str], Sums]] = {}
    for s, pairs in plans.items():
        acc: dict[tuple[str, str], Sums] = {}
        for c, k in pairs:
            spec = roles.get(c.role)
            if spec is None:
                raise ValueError(f"a call plan names the role {c.role!r}, which the run does not have")
            acc.setdefault((spec.name, c.stage.name), Sums()).add(c, k, counted[id(c.messages)] + c.growth * c.repeats)
        out[s] = acc
    return out


def model_info(spec: ModelSpec, cfg: EvalConfig, h: History) -> ModelInfo:
    m = h.models.get(spec.identity)
    runs = len(m.runs) if m else 0
    measured = f"measured on {runs} earlier run(s)" if runs else "priors (no earlier run of this model)"
    server = "local" if spec.is_local else spec.identity
    return ModelInfo(spec.name, spec.identity, server, max(1, min(spec.concurrency, cfg.concurrency * 3)), spec.is_local,
                     spec.price_in_per_1k, spec.price_out_per_1k, measured, spec.batched(cfg.llm.batch_api), spec.batch_prices)


def model_factor(m: Measured, priors: Mapping[str, float]) -> float:
    """How much more (or less) this model wrote than the priors, over the stages measured:
    the prior of a stage it was never seen at is scaled by it."""
    measured = [(sum(v), len(v) * priors[s]) for s, v in m.completion.items() if v and priors.get(s)]
    wrote, expected = sum(a for a, _ in measured), sum(b for _, b in measured)
    return min(10.0, max(0.1, wrote / expected)) if expected else 1.0


def line(model: str, stage: str, accs: Sequence[Sums], spec: ModelSpec, h: History, priors: Mapping[str, float]) -> Line:
    """One model and stage: calls (with the client's re-asks), tokens, cost and busy time."""
    _, exp_acc, _ = accs
    m = h.models.get(spec.identity)
    kind = "local" if spec.is_local else "remote"
    requests = _requests(accs, m, kind)
    # Prompt tokens: our count per request, corrected by the model's measured ratio.
    ratio = m.ratio() if m else None
    slack = 0.1 if ratio is not None else 0.2
    per_prompt = exp_acc.per_prompt() * (ratio or 1.0)
    prompt = Span(requests.low * per_prompt * (1 - slack), requests.expected * per_prompt, requests.high * per_prompt * (1 + slack))
    mu, c_lo, c_hi = _completion(stage, exp_acc, spec, m, requests, priors)
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


def _spread(acc: Sums) -> float:
    return 2.0 * math.sqrt(max(0.0, acc.var))


def _requests(accs: Sequence[Sums], m: Measured | None, kind: str) -> Span:
    """Calls over the three scenarios, widened by the units' own randomness, with the client's re-asks."""
    means = [a.mean for a in accs]
    exp_acc = accs[1]
    calls_low = max(min(a.lo for a in accs), min(means) - _spread(exp_acc))
    calls_high = min(max(a.hi for a in accs), max(means) + _spread(exp_acc))
    r_lo, r_exp, r_hi = REASK_PRIORS[kind]
    if m and m.calls >= 20:
        r_exp = m.reasks / m.calls
        r_hi = max(r_exp * 2, r_exp + 0.02)
        r_lo = 0.0
    return Span(calls_low * (1 + r_lo), exp_acc.mean * (1 + r_exp), calls_high * (1 + r_hi))


def _completion(stage: str, acc: Sums, spec: ModelSpec, m: Measured | None, requests: Span,
                priors: Mapping[str, float]) -> tuple[float, float, float]:
    """Completion tokens per reply: (expected, low, high), measured or from the stage's prior."""
    max_tokens = acc.per_max_tokens()
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
        mu = acc.per_completion() * (model_factor(m, priors) if m else 1.0)
        mu = min(mu, max_tokens) if max_tokens else mu
        c_lo, c_hi = 0.4 * mu, min(max_tokens or 2 * mu, 2 * mu)
    if spec.reasoning:
        # A thinking model's reasoning is billed as completion: half its allowance expected.
        extra = spec.reasoning_allowance
        mu, c_lo, c_hi = mu + extra / 2, c_lo + extra / 8, c_hi + extra
    return mu, c_lo, c_hi


def wall(est: Estimate, cfg: EvalConfig) -> Span:
    """The longest server queue, or the units' own chains run ``concurrency`` at a time."""
    queue = server_queues(est.lines, est.models)
    units = max(1, est.units)
    waves = math.ceil(units / max(1, cfg.concurrency))
    chain = Span.zero()
    for ln in est.lines:
        chain = chain + ln.busy_s
    per_unit = chain.scaled(waves / units)  # one unit's requests, one after another
    return queue.larger(per_unit)
