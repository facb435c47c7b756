"""What ``--batch-api`` changes in a ``--dry-run``: the waves, the cost at batch prices, and
the wall time as waves × the provider's turnaround.

- **Waves.** Under ``--batch-api`` every unit runs at once, and a wave goes out when every
  running unit waits on the Batch API (judgeagent/llm/batch/waves.py): one job per model and
  wave, which the run waits for before its units move on. So a run takes as many waves as
  its longest unit's chain of waits (``callplan.unit_chain``: its requests to batched
  models one after another, where the protocol asks them one after another), plus its
  closing steps'. The units' chains are random (a regeneration, a round without a path, a
  dialogue that stops early), and the run waits for the longest of them: the expected
  figure is the expected maximum of the units' chains (a normal approximation), the range
  each unit's chain two standard deviations either side, within what it can be at all.
  Requests a provider fails (a 500 line, an expired job) are asked again in a later wave,
  which the estimate does not count.
- **Turnaround**: the seconds a job spends at the provider, from creation to completion.
  Measured on the finished jobs of earlier runs' journals (``batch_jobs.turnaround_s``, by
  the provider's own timestamps): of the same model where there are any, else of the same
  endpoint; else :data:`TURNAROUND_PRIOR_S`. The client's polling adds up to
  4 × ``--batch-api-poll-s`` a wave.
- **Cost**: the batched models' requests at their batch prices (``batch_discount`` or
  ``batch_price_in_per_1k`` / ``batch_price_out_per_1k`` in the registry), beside the same
  requests at live prices. Local models ignore ``--batch-api`` and are costed and timed as
  they run: one request at a time, live.
"""

from __future__ import annotations

import math
import sqlite3
import statistics
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from judgeagent.engine.callplan import Count

# Seconds a job spends at the provider when no earlier run measured it, (low, expected,
# high). High: the window OpenAI and DashScope promise ("We will process these requests
# within 24 hours", OpenAI's Batch API FAQ; DashScope's completion_window is 24h too).
# Expected: half an hour, what small jobs are reported to take in practice (half an hour
# to a few hours); low: a minute, a small job validated and run at once.
TURNAROUND_PRIOR_S = (60.0, 1800.0, 86400.0)
WINDOW_S = 86400.0  # no job is waited for longer: it expires and its rest is asked again
POLL_SLOWDOWN = 4.0  # polling slows to this many times --batch-api-poll-s while nothing changes


@dataclass(frozen=True)
class Range:
    """low, expected and high (the same as the estimate's Span, kept apart to avoid a cycle)."""

    low: float
    expected: float
    high: float


@dataclass
class BatchPlan:
    """What ``--batch-api`` does to a run: which models go through batch jobs, in how many
    waves, how long each wave takes."""

    models: list[str]  # asked through their providers' Batch APIs
    local: list[str]  # asked one by one although --batch-api is on (local models)
    waves: Range
    turnaround_s: Range
    turnaround_source: str
    poll_s: float
    expired: str = "retry"  # --batch-api-expired
    expired_retries: int = 2  # --batch-api-expired-retries

    @property
    def wave_s(self) -> Range:
        """One wave: the job's turnaround, and the client's next poll after it ends."""
        t, poll = self.turnaround_s, self.poll_s
        return Range(t.low + poll, t.expected + poll * POLL_SLOWDOWN / 2, t.high + poll * POLL_SLOWDOWN)

    @property
    def wall_s(self) -> Range:
        w, s = self.waves, self.wave_s
        return Range(w.low * s.low, w.expected * s.expected, w.high * s.high)

    def to_dict(self) -> dict:
        return {"models": self.models, "local": self.local, "waves": _list(self.waves), "turnaround_s": _list(self.turnaround_s, 1),
                "turnaround_source": self.turnaround_source, "wall_s": _list(self.wall_s, 1),
                "expired": {"policy": self.expired, "max_resubmissions": self.expired_retries,
                            "retry_wait_s": self.expired_retries * WINDOW_S}}  # fmt: skip


def _list(r: Range, digits: int = 0) -> list[float]:
    return [round(r.low, digits), round(r.expected, digits), round(r.high, digits)]


# ----------------------------------------------------------------------------- waves
def expected_max_z(n: int) -> float:
    """The expected largest of ``n`` standard normal draws (Blom's approximation): how far the
    longest of ``n`` similar units' chains is expected to run past their mean."""
    if n <= 1:
        return 0.0
    return statistics.NormalDist().inv_cdf((n - 0.375) / (n + 0.25))


def waves(chains: dict[str, list[Count]], closing: dict[str, Count], n_units: int) -> Range:
    """The run's waves from each scenario's unit chains (``chains["low"]``, ``["expected"]``,
    ``["high"]``: one per planned unit) and closing chains; ``n_units``: the units to ask."""
    z = expected_max_z(n_units)

    def longest(units: list[Count], k: float) -> float:
        """The longest unit's chain at ``k`` standard deviations from its mean, within what it can be."""
        return max((min(c.hi, max(c.lo, c.mean + k * math.sqrt(max(0.0, c.var)))) for c in units), default=0.0)

    # A scenario sets every rate at one end of its range, and a high rate can mean fewer
    # requests (a gate that passes more needs fewer tries): the range spans all three.
    low = min(longest(units, -2.0) + longest([closing[s]], -2.0) for s, units in chains.items())
    high = max(longest(units, max(2.0, z + 1.0)) + longest([closing[s]], 2.0) for s, units in chains.items())
    expected = longest(chains["expected"], z) + closing["expected"].mean
    expected = max(low, min(high, expected))
    return Range(float(math.floor(low + 1e-9)), float(round(expected)), float(math.ceil(high - 1e-9)))


def combined_waves(parts: Iterable[Range]) -> Range:
    """Several runs in one event loop (a sweep's targets) share their waves: the longest run's."""
    items = list(parts)
    return Range(max(r.low for r in items), max(r.expected for r in items), max(r.high for r in items))


def plus(r: Range, low: float, expected: float, high: float) -> Range:
    return Range(r.low + low, r.expected + expected, r.high + high)


# ----------------------------------------------------------------------------- turnaround
def read_turnarounds(journal: Path) -> list[tuple[str, str, float]]:
    """(model identity, endpoint, seconds at the provider) of each job an earlier run saw to
    its end (completed or expired; not one cancelled at a deadline, failed or never sent)."""
    db = sqlite3.connect(f"file:{journal}?mode=ro", uri=True, timeout=2.0)
    try:
        columns = {row[1] for row in db.execute("PRAGMA table_info(batch_jobs)")}
        if "turnaround_s" not in columns:  # a journal from before the Batch API, or before its timings
            return []
        rows = db.execute(
            "SELECT identity, base_url, turnaround_s FROM batch_jobs WHERE collected = 1 AND deadline_cancelled = 0 "
            "AND turnaround_s IS NOT NULL AND status IN ('completed', 'expired')"
        ).fetchall()
    finally:
        db.close()
    return [(str(i), str(u), float(t)) for i, u, t in rows]


def turnaround(measured: Sequence[tuple[str, str, float]], identities: Sequence[tuple[str, str]]) -> tuple[Range, str]:
    """The turnaround of one wave's jobs and where it comes from. ``identities``: the batched
    models' (identity, endpoint). A wave waits for its slowest job, so the slowest model's
    figure counts: measured for a model when earlier runs saw its jobs, else for its
    endpoint, else the prior."""
    picked: list[tuple[Range, str]] = []
    for identity, base_url in identities:
        by_model = [t for i, _, t in measured if i == identity]
        by_endpoint = [t for _, u, t in measured if u == base_url]
        seen, what = (by_model, "model") if by_model else (by_endpoint, "endpoint")
        if seen:
            r = Range(min(seen), statistics.median(seen), min(WINDOW_S, max(seen) * 2))
            picked.append((r, f"measured on {len(seen)} job(s) of earlier runs (same {what})"))
        else:
            picked.append((Range(*TURNAROUND_PRIOR_S), "prior (no earlier job of these models; the providers promise 24 h)"))
    if not picked:
        return Range(*TURNAROUND_PRIOR_S), "prior"
    slowest = max(picked, key=lambda p: p[0].expected)
    low = max(r.low for r, _ in picked)
    high = max(r.high for r, _ in picked)
    return Range(low, slowest[0].expected, high), slowest[1]
