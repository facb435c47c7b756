"""The estimate as text: one row per model and stage, per model totals, the total, the wall
time, where the rates came from, and the budget warnings."""

from __future__ import annotations

from collections.abc import Callable

from judgeagent.estimation.batch import WINDOW_S, BatchPlan
from judgeagent.estimation.model import Estimate, Line, Span


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


def cell(span: Span, fmt: Callable[[float], str] = _n) -> str:
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
    measured = [k for k, v in est.rates.items() if v.source != "prior"]
    if measured:
        out.append("rates measured on earlier runs: " + ", ".join(f"{k} {est.rates[k].expected:.2f}" for k in measured))
    out.append("rates from priors: " + (", ".join(k for k, v in est.rates.items() if v.source == "prior") or "none"))
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
    return out + expired_lines(b, live, at_batch)


def expired_lines(b: BatchPlan, live: Span, at_batch: Span) -> list[str]:
    """What each --batch-api-expired choice costs, in money and in time, if jobs expire (the
    provider returns what it did not run within its window); the one chosen is marked."""
    window = _dur(WINDOW_S)
    choices = {
        "retry": f"sent again in a new job at batch prices, up to {b.expired_retries} more time(s): no extra cost, "
                 f"up to {_dur(b.expired_retries * WINDOW_S) if b.expired_retries else '0 s'} more wait ({window} a try)",
        "live": f"sent one by one at once, at live prices: up to {_usd(live.high - at_batch.high)} more if every request expired, "
                "no wait past the window",
        "stop": "left incomplete (exit code 3): nothing more spent or waited; rerun the command to send them again",
    }  # fmt: skip
    return [f"if a job expires ({window} window; --batch-api-expired {b.expired}):"] + [
        f"  {'*' if name == b.expired else ' '} {name}: {text}" for name, text in choices.items()]
