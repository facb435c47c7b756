"""What the terminal shows after a JudgeAgent run: the paper's figures, by difficulty, the
trust checks (controls, tests, leakage, quality gate) and the Appendix E.2 figures."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from rich.table import Table


def _fmt(v) -> str:
    return "–" if v is None else f"{v:.2f}"


def metrics_table(m: dict, title: str) -> Table:
    t = Table(title=title, show_lines=False)
    for col in ("N", "ACC1", "ACC2", "CR", "CtE", "ΔACC", "CR|wrong", "CtE|right"):
        t.add_column(col, justify="right")
    t.add_row(
        str(m["n_questions"]), _fmt(m["acc1"]), _fmt(m["acc2"]), _fmt(m["cr"]), _fmt(m["cte"]),
        _fmt(m["delta_acc"]), _fmt(m["cr_given_wrong"]), _fmt(m["cte_given_right"]),
    )
    return t


def breakdown_table(m: dict) -> Table | None:
    if not m.get("by_difficulty"):
        return None
    t = Table(title="By difficulty label")
    for col in ("label", "N", "ACC1", "ACC2", "CR", "CtE"):
        t.add_column(col, justify="right")
    for label, x in m["by_difficulty"].items():
        t.add_row(label, str(x["n_questions"]), _fmt(x["acc1"]), _fmt(x["acc2"]), _fmt(x["cr"]), _fmt(x["cte"]))
    return t


def _ci(m: dict, key: str) -> str:
    ci = (m.get("ci") or {}).get(key)
    return "–" if not ci else f"[{ci[0]:.1f}, {ci[1]:.1f}]"


def trust_table(m: dict) -> Table | None:
    """ΔACC against the controls, with its interval and two tests: the batch permutation test and
    McNemar's (which treats the questions as independent), plus the leak-free ACC2."""
    if "mcnemar" not in m:
        return None
    unit = "batches" if (m.get("ci") or {}).get("ci_method") == "batch_bootstrap" else "questions"
    deff = (m.get("design_effect") or {}).get("delta_acc")
    caption = "p batches: sign-flip permutation over batch ΔACC; McNemar assumes independent questions"
    t = Table(title=f"Does the feedback help? (95% bootstrap CI over {unit})",
              caption=caption if deff is None else f"{caption}; design effect on ΔACC {deff:.2f}")
    for col in ("comparison", "ACC", "ΔACC from it", "p batches", "p McNemar"):
        t.add_column(col, justify="right")
    tests, perm = m["mcnemar"], m.get("permutation") or {}

    def p(name: str) -> list[str]:
        batch = perm.get(f"suggestions_vs_{name}")
        return ["–" if batch is None else f"{batch['p_value']:.3g}", f"{tests[f'suggestions_vs_{name}']['p_value']:.3g}"]

    t.add_row("ACC1 (no suggestions, first ask)", f"{_fmt(m['acc1'])} {_ci(m, 'acc1')}", f"{_fmt(m['delta_acc'])} {_ci(m, 'delta_acc')}", *p("none"))
    for name, label in (("plain", "plain re-ask"), ("placebo", "placebo suggestion")):
        c = (m.get("controls") or {}).get(name)
        if c:
            t.add_row(label, _fmt(c["acc"]), _fmt(m["controls"][f"suggestions_minus_{name}"]), *p(name))
    t.add_row("ACC2 (with suggestions)", f"{_fmt(m['acc2'])} {_ci(m, 'acc2')}", "", "", "")
    leak = m.get("leakage") or {}
    if leak.get("batches_checked"):
        lf = leak["leak_free"]
        t.add_row(f"ACC2, leak-free batches ({lf['n_batches']})", _fmt(lf["acc2"]), _fmt(lf["delta_acc"]), "", "")
    return t


def gate_line(m: dict) -> str | None:
    g = m.get("gate") or {}
    checks = {k: v for k, v in (g.get("checks") or {}).items() if v.get("run")}
    if not checks:
        return None
    rates = ", ".join(f"{k} {v['passed']}/{v['run']}" for k, v in checks.items())
    return f"quality gate: {rates}"


def ablation_table(metrics: dict) -> Table:
    t = Table(title="Ablation (same seed answers)")
    for col in ("setting", "ACC1", "ACC2", "CR", "CtE", "ΔACC"):
        t.add_column(col, justify="right")
    for name, m in metrics.items():
        t.add_row(name, _fmt(m["acc1"]), _fmt(m["acc2"]), _fmt(m["cr"]), _fmt(m["cte"]), _fmt(m["delta_acc"]))
    return t


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


def headline(outcome: Any, cfg: Any) -> list[Any]:
    """The renderables ``judgeagent evaluate`` prints for a finished run of this protocol."""
    m = outcome.metrics
    if m.get("ablation"):
        ablation = json.loads((Path(outcome.folder.path) / "ablation.json").read_text(encoding="utf-8"))
        return [ablation_table(ablation["metrics"])]
    out: list[Any] = [metrics_table(m, f"{cfg.target} on {Path(cfg.data).name} (judge: {cfg.judge})")]
    if (bt := breakdown_table(m)) is not None:
        out.append(bt)
    ext = m["extension"]
    out.append(f"follow-up questions: {ext['asked']} asked, {ext['skipped']} skipped")
    if (tt := trust_table(m)) is not None:
        out.append(tt)
    if (gl := gate_line(m)) is not None:
        out.append(gl)
    leak = m.get("leakage") or {}
    if leak.get("batches_checked"):
        out.append(f"suggestion leaks: {leak['batches_leaking']} of {leak['batches_checked']} batches, "
                   f"{leak['batches_rewritten']} rewritten, {leak['batches_flagged']} still leaking (flagged)"
                   + (f", {leak['batches_check_failed']} leak check failed" if leak.get("batches_check_failed") else ""))
    return out + appendix_e2_lines(m)
