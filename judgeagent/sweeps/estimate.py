"""``judgeagent sweep --dry-run``: what a sweep will cost, before it sends anything.

Each target's interview is estimated as the run it will be (``judgeagent.estimate``; a
resumed sweep counts only what is left). The shared-items pass cannot be known before the
interviews: every target will be asked every gate-passed follow-up of every interview, one
request each, so it is estimated from the interviews' expected follow-ups, each priced like
the target's own follow-up answers.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

from judgeagent.budgets import EXTENSION
from judgeagent.sweeps.config import SweepConfig
from judgeagent.sweeps.folder import SweepFolder, target_slugs

if TYPE_CHECKING:
    from judgeagent.estimation import Estimate

SHARED_STAGE = "shared items"
FOLLOWUP_STAGE = EXTENSION.name  # the target's answers to follow-ups, in the estimate's stages


def estimate_sweep(cfg: SweepConfig) -> tuple[Estimate, dict[str, Estimate]]:
    """(the combined estimate, {target: its own estimate}); nothing is sent or started."""
    from judgeagent.estimation import Span, combine, estimate
    from judgeagent.sweeps.runner import finished

    folder = SweepFolder.for_config(cfg)
    slugs = target_slugs(cfg.names)
    per = {t: estimate(cfg.eval_config(t, folder.target_dir(s))) for t, s in slugs.items()}
    if cfg.shared:
        followups = Span.zero()
        for t, est in per.items():
            ln = est.by_stage(t).get(FOLLOWUP_STAGE)
            if ln is not None:
                followups = followups + ln.requests
        for t, est in per.items():
            ln = est.by_stage(t).get(FOLLOWUP_STAGE)
            if ln is None or ln.requests.expected <= 0 or finished(folder.shared_dir(slugs[t])):
                continue
            k = 1.0 / ln.requests.expected  # one follow-up answer's tokens, cost and time

            def each(span: Span, k: float = k, followups: Span = followups) -> Span:
                return Span(followups.low * span.expected * k, followups.expected * span.expected * k, followups.high * span.expected * k)

            est.lines.append(replace(ln, stage=SHARED_STAGE, requests=followups, prompt_tokens=each(ln.prompt_tokens),
                                     completion_tokens=each(ln.completion_tokens), cost_usd=each(ln.cost_usd), busy_s=each(ln.busy_s)))  # fmt: skip
    total = combine(per.values())
    total.budget_usd = total.max_requests = None  # the limits hold per run: each run's warnings say so
    if total.batch is not None and cfg.shared:
        # After the interviews, every target answers the shared items at once: one more wave
        # (two when phrase answers need the judge's verdict).
        from judgeagent.estimation.batch import plus
        from judgeagent.estimation.model import batch_wall

        total.batch.waves = plus(total.batch.waves, 1, 1, 2)
        total.wall_s = batch_wall(total)
    return total, per


def render(cfg: SweepConfig) -> str:
    from judgeagent.estimation import render_text

    total, per = estimate_sweep(cfg)
    out = [f"sweep of {len(per)} target(s), judge {cfg.judge}: per target, expected (low–high)"]
    for t, est in per.items():
        ln = est.total()
        cost = est.batch_cost()
        out.append(f"  {t}: {ln.requests.expected:.0f} requests ({ln.requests.low:.0f}–{ln.requests.high:.0f}), "
                   f"${cost.expected:.4f} (${cost.low:.4f}–${cost.high:.4f})" + (" at batch prices" if est.batch is not None else ""))  # fmt: skip
        out += [f"  warning ({t}): {w}" for w in est.warnings()]
    if cfg.shared:
        out.append(f"'{SHARED_STAGE}': every target answers every gate-passed follow-up of every interview, one request each; "
                   "estimated from the interviews' expected follow-ups")  # fmt: skip
    out += ["", render_text(total)]
    return "\n".join(out)
