"""The estimate as text: one row per model and stage, per model totals, the total, the wall
time, where the rates came from, and the budget warnings."""

from __future__ import annotations

from collections.abc import Callable

from judgeagent.estimation.model import Estimate, Span


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
    return f"{s / 3600:.1f} h"


def cell(span: Span, fmt: Callable[[float], str] = _n) -> str:
    """``expected (low–high)``."""
    return f"{fmt(span.expected)} ({fmt(span.low)}–{fmt(span.high)})"


def render_text(est: Estimate) -> str:
    """The estimate as plain text: one row per model and stage, per model totals, the total,
    the wall time, where the rates came from, and the budget warnings."""
    rows = [("model", "stage", "requests", "prompt tokens", "completion tokens", "cost")]
    for model, total in est.by_model().items():
        for stage, ln in sorted(est.by_stage(model).items()):
            rows.append((model, stage, cell(ln.requests), cell(ln.prompt_tokens), cell(ln.completion_tokens), cell(ln.cost_usd, _usd)))
        rows.append((model, "all stages", cell(total.requests), cell(total.prompt_tokens), cell(total.completion_tokens), cell(total.cost_usd, _usd)))
    t = est.total()
    rows.append(("total", "", cell(t.requests), cell(t.prompt_tokens), cell(t.completion_tokens), cell(t.cost_usd, _usd)))
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    out = [f"estimate (nothing sent): --protocol {est.protocol}, {est.units} unit(s) to ask"
           + (f", {est.units_done} finished" if est.units_done else "") + (f", {est.parts} runs combined" if est.parts > 1 else "")]
    out.append("expected (low–high)")
    for i, r in enumerate(rows):
        out.append("  ".join(v.ljust(w) if j < 2 else v.rjust(w) for j, (v, w) in enumerate(zip(r, widths))).rstrip())
        if i == 0:
            out.append("  ".join("-" * w for w in widths))
    out.append(f"wall time: {_dur(est.wall_s.expected)} ({_dur(est.wall_s.low)}–{_dur(est.wall_s.high)})")
    for name, m in est.models.items():
        out.append(f"{name}: {m.measured}")
    measured = [k for k, v in est.rates.items() if v.source != "prior"]
    if measured:
        out.append("rates measured on earlier runs: " + ", ".join(f"{k} {est.rates[k].expected:.2f}" for k in measured))
    out.append("rates from priors: " + (", ".join(k for k, v in est.rates.items() if v.source == "prior") or "none"))
    out += [f"note: {n}" for n in est.notes]
    out += [f"warning: {w}" for w in est.warnings()]
    return "\n".join(out)
