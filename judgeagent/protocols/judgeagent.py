"""``--protocol judgeagent`` (the default): the JudgeAgent interview, unchanged, plus the
paper's Appendix E.2 experiments when asked (``--reask-extended``, ``--transfer``; see
:mod:`judgeagent.protocols.appendix_e2`). They run after the interview, on its records and
over the same journal, so they never change its figures.
"""

from __future__ import annotations

from judgeagent.config import EvalConfig
from judgeagent.protocols import register
from judgeagent.protocols.base import Protocol
from judgeagent.report.compare import TABLE2


@register
class JudgeAgent(Protocol):
    name = "judgeagent"
    title = "JudgeAgent (Agent-as-Interviewer)"
    unit = "batch"
    compare_columns = TABLE2

    def execute(self, cfg: EvalConfig, *, progress: bool = True):
        from judgeagent.run import run_evaluation

        outcome = run_evaluation(cfg, progress=progress)
        if cfg.reask_extended or cfg.transfer:
            from judgeagent.protocols.appendix_e2 import run_appendix_e2

            outcome = run_appendix_e2(cfg, outcome)
        return outcome

    def headline(self, metrics: dict) -> list[str]:
        return appendix_e2_lines(metrics)  # the interview's own table is the CLI's print_outcome

    def compare_values(self, metrics: dict) -> dict:
        return {key: metrics.get(key) for _, key in TABLE2}

    def report_sections(self, run) -> list:
        from judgeagent.report.protocols import appendix_e2_sections

        return appendix_e2_sections(run)


def _pct(v) -> str:
    return "–" if v is None else f"{v:.2f}"


def appendix_e2_lines(m: dict) -> list[str]:
    """The Appendix E.2 figures, when the run has them."""
    lines = []
    if (rx := m.get("reask_extended")) is not None:
        f, s = rx["followups"], rx["seeds"]
        lines.append(f"re-asked follow-ups ({f['n_questions']}): ACC1 {_pct(f['acc1'])} → ACC2 {_pct(f['acc2'])}, CR {_pct(f['cr'])}, CtE {_pct(f['cte'])}"
                     f" (seeds: {_pct(s['acc1'])} → {_pct(s['acc2'])}, CR {_pct(s['cr'])}, CtE {_pct(s['cte'])})")
    if (tr := m.get("transfer")) is not None:
        if tr.get("error"):
            lines.append(f"transfer: {tr['error']}")
        else:
            ci, pl = tr["ci_delta_acc"], tr["placebo"]
            shown = "–" if ci is None else f"[{ci[0]:.1f}, {ci[1]:.1f}]"
            lines.append(f"transfer to {tr['n_questions']} held-out questions: ACC1 {_pct(tr['acc1'])} → ACC2 {_pct(tr['acc2'])}, "
                         f"ΔACC {_pct(tr['delta_acc'])} {shown}; placebo ΔACC {_pct(pl['delta_acc'])}; suggestions − placebo {_pct(tr['suggestions_minus_placebo']['delta'])}")
    return lines
