"""What the terminal shows after a JudgeAgent run: the paper's figures, by difficulty, the
trust checks (controls, tests, leakage, quality gate) and the Appendix E.2 figures."""

from __future__ import annotations

from pathlib import Path

from rich.table import Table

from judgeagent.config import EvalConfig
from judgeagent.engine.services import RunOutcome
from judgeagent.metrics.figures import Ablation, InterviewFigures, PaperFigures, paper_values
from judgeagent.records import Json


def _fmt(v: float | None) -> str:
    return "–" if v is None else f"{v:.2f}"


def metrics_table(m: InterviewFigures, title: str) -> Table:
    t = Table(title=title, show_lines=False)
    for col in ("N", "ACC1", "ACC2", "CR", "CtE", "ΔACC", "CR|wrong", "CtE|right"):
        t.add_column(col, justify="right")
    t.add_row(str(m.n_questions), _fmt(m.acc1), _fmt(m.acc2), _fmt(m.cr), _fmt(m.cte), _fmt(m.delta_acc), _fmt(m.cr_given_wrong), _fmt(m.cte_given_right))
    return t


def breakdown_table(m: InterviewFigures) -> Table | None:
    if not m.by_difficulty:
        return None
    t = Table(title="By difficulty label")
    for col in ("label", "N", "ACC1", "ACC2", "CR", "CtE"):
        t.add_column(col, justify="right")
    for label, x in m.by_difficulty.items():
        t.add_row(label, str(x.n_questions), _fmt(x.acc1), _fmt(x.acc2), _fmt(x.cr), _fmt(x.cte))
    return t


def _ci(m: InterviewFigures, key: str) -> str:
    ci = m.ci.of(key) if m.ci else None
    return "–" if not ci else f"[{ci[0]:.1f}, {ci[1]:.1f}]"


def trust_table(m: InterviewFigures) -> Table | None:
    """ΔACC against the controls, with its interval and two tests: the batch permutation test and
    McNemar's (which treats the questions as independent), plus the leak-free ACC2."""
    if not m.mcnemar:
        return None
    unit = "batches" if m.ci and m.ci.over_batches else "questions"
    deff = m.design_effect.delta_acc if m.design_effect else None
    caption = "p batches: sign-flip permutation over batch ΔACC; McNemar assumes independent questions"
    t = Table(title=f"Does the feedback help? (95% bootstrap CI over {unit})",
              caption=caption if deff is None else f"{caption}; design effect on ΔACC {deff:.2f}")
    for col in ("comparison", "ACC", "ΔACC from it", "p batches", "p McNemar"):
        t.add_column(col, justify="right")

    def p(name: str) -> list[str]:
        batch, mcnemar = m.permutation.get(f"suggestions_vs_{name}"), m.mcnemar.get(f"suggestions_vs_{name}")
        return ["–" if batch is None else f"{batch.p_value:.3g}", "–" if mcnemar is None else f"{mcnemar.p_value:.3g}"]

    t.add_row("ACC1 (no suggestions, first ask)", f"{_fmt(m.acc1)} {_ci(m, 'acc1')}", f"{_fmt(m.delta_acc)} {_ci(m, 'delta_acc')}", *p("none"))
    for name, label in (("plain", "plain re-ask"), ("placebo", "placebo suggestion")):
        control, minus = m.controls.named(name)
        if control:
            t.add_row(label, _fmt(control.acc), _fmt(minus), *p(name))
    t.add_row("ACC2 (with suggestions)", f"{_fmt(m.acc2)} {_ci(m, 'acc2')}", "", "", "")
    if m.leakage.batches_checked:
        lf = m.leakage.leak_free
        t.add_row(f"ACC2, leak-free batches ({lf.n_batches})", _fmt(lf.acc2), _fmt(lf.delta_acc), "", "")
    return t


def gate_line(m: InterviewFigures) -> str | None:
    checks = {k: v for k, v in m.gate.checks.items() if v.run}
    if not checks:
        return None
    return "quality gate: " + ", ".join(f"{k} {v.passed}/{v.run}" for k, v in checks.items())


def ablation_table(metrics: dict[str, InterviewFigures]) -> Table:
    t = Table(title="Ablation (same seed answers)")
    for col in ("setting", "ACC1", "ACC2", "CR", "CtE", "ΔACC"):
        t.add_column(col, justify="right")
    for name, m in metrics.items():
        t.add_row(name, _fmt(m.acc1), _fmt(m.acc2), _fmt(m.cr), _fmt(m.cte), _fmt(m.delta_acc))
    return t


def _paper(m: PaperFigures) -> str:
    return f"ACC1 {_fmt(m.acc1)} → ACC2 {_fmt(m.acc2)}, CR {_fmt(m.cr)}, CtE {_fmt(m.cte)}"


def appendix_e2_lines(m: InterviewFigures) -> list[str]:
    """The Appendix E.2 figures, when the run has them."""
    lines = []
    if (rx := m.reask_extended) is not None:
        f, s = rx.followups, rx.seeds
        lines.append(f"re-asked follow-ups ({f.n_questions}): {_paper(f)} (seeds: {_fmt(s.acc1)} → {_fmt(s.acc2)}, CR {_fmt(s.cr)}, CtE {_fmt(s.cte)})")
    if (tr := m.transfer) is not None:
        if tr.error:
            lines.append(f"transfer: {tr.error}")
        else:
            ci = tr.ci_delta_acc
            shown = "–" if ci is None else f"[{ci[0]:.1f}, {ci[1]:.1f}]"
            lines.append(f"transfer to {tr.n_questions} held-out questions: ACC1 {_fmt(tr.acc1)} → ACC2 {_fmt(tr.acc2)}, "
                         f"ΔACC {_fmt(tr.delta_acc)} {shown}; placebo ΔACC {_fmt(tr.placebo.delta_acc)}; "
                         f"suggestions − placebo {_fmt(tr.suggestions_minus_placebo.delta)}")
            if tr.note:
                lines.append(f"transfer: {tr.note}")
    return lines


def compare_values(metrics: Json) -> dict[str, float | None]:
    """The paper's figures for ``compare`` (Table 2's columns and the ablation's)."""
    return paper_values(InterviewFigures.from_json(metrics))


def headline_figures(metrics: Json) -> dict[str, float | None]:
    """The paper's figures, the 95% interval of ΔACC and the number of seed questions, as
    another tool's log shows the run's metrics."""
    m = InterviewFigures.from_json(metrics)
    ci = m.ci.delta_acc if m.ci is not None else None
    return paper_values(m) | {"delta_acc_ci_low": ci[0] if ci else None, "delta_acc_ci_high": ci[1] if ci else None,
                              "n_questions": float(m.n_questions)}


def headline(outcome: RunOutcome, cfg: EvalConfig) -> list[object]:
    """The renderables ``judgeagent evaluate`` prints for a finished run of this protocol."""
    m = InterviewFigures.from_json(outcome.metrics)
    if m.ablation:
        ablation = Ablation.model_validate_json((Path(outcome.folder.path) / "ablation.json").read_text(encoding="utf-8"))
        return [ablation_table(ablation.metrics)]
    out: list[object] = [metrics_table(m, f"{cfg.target} on {Path(cfg.data).name} (judge: {cfg.judge})")]
    if (bt := breakdown_table(m)) is not None:
        out.append(bt)
    out.append(f"follow-up questions: {m.extension.asked} asked, {m.extension.skipped} skipped")
    if (tt := trust_table(m)) is not None:
        out.append(tt)
    if m.ci is not None and m.ci.thin and m.ci.note:
        out.append(f"ACC1, ACC2 and ΔACC: {m.ci.note}")
    if (gl := gate_line(m)) is not None:
        out.append(gl)
    leak = m.leakage
    if leak.batches_checked:
        out.append(f"suggestion leaks: {leak.batches_leaking} of {leak.batches_checked} batches, "
                   f"{leak.batches_rewritten} rewritten, {leak.batches_flagged} still leaking (flagged)"
                   + (f", {leak.batches_check_failed} leak check failed" if leak.batches_check_failed else ""))
    return out + appendix_e2_lines(m)
