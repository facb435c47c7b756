"""``judgeagent evaluate`` and ``judgeagent ablate``. Every flag is one EvalConfig field."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from judgeagent.cli.app import app
from judgeagent.cli.common import console, eval_config, user_errors
from judgeagent.cli.options import config_flags, with_config_flags
from judgeagent.config import EvalConfig

_RUN = "Run"
_ABL = "Ablation"
_LLM = "Models and budget"
_DIF = "Difficulty controller"
_TRUST = "Trust: quality gate, leakage, controls, statistics"
_BANK = "Question bank (no generation)"
_PROTO = "Protocols and Appendix E.2"

# The flags, by help panel, in the order --help lists them.
PANELS = {
    _RUN: (
        "target", "judge", "data", "graph", "rebuild_graph", "batch_size", "rounds", "hops", "limit", "seed", "concurrency",
        "eval_every_round", "reask_correct", "out", "resume", "report", "summary", "graph_build.workers",
    ),
    _ABL: ("no_graph", "fixed_difficulty", "no_extension"),
    _PROTO: ("protocol", "evaluator", "kieval_turns", "revisions", "reask_extended", "transfer"),
    _LLM: ("llm.models_file", "llm.cache", "llm.no_cache", "llm.max_requests", "llm.budget_usd", "llm.max_attempts", "llm.timeout_s",
           "llm.breaker_window", "llm.breaker_failure_share"),
    _DIF: ("difficulty.gain_easy", "difficulty.gain_medium", "difficulty.gain_hard", "difficulty.t1", "difficulty.t2", "difficulty.hard_wrong_penalty"),
    _BANK: ("bank", "bank_size", "bank_seed", "adaptive", "target_se"),
    _TRUST: ("gate", "check_hops", "gate_overlap", "seed_similarity", "generation_tries", "leak_threshold", "leak_check", "controls", "bootstrap", "decontaminate"),
}
# Earlier spellings of renamed flags, still accepted.
ALIASES = {"llm.models_file": ("--models",), "llm.timeout_s": ("--timeout",)}
FLAGS = config_flags(EvalConfig, PANELS, ALIASES)
CONFIG_HELP = (
    "Re-create a run from its config.json and continue it in that folder (a finished run replays with zero "
    "requests); flags given beside it override the saved settings."
)


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


def incomplete_line(m: dict) -> str | None:
    """The batches left out of the figures because a model call brought no answer, and why."""
    inc = m.get("incomplete") or {}
    if not inc.get("n_batches"):
        return None
    why = ", ".join(f"{reason}: {n}" for reason, n in inc["reasons"].items())
    return f"[yellow]incomplete: {inc['n_batches']} batch(es) left out of the figures ({why}); rerun the same command to retry them[/]"


def ablation_table(metrics: dict) -> Table:
    t = Table(title="Ablation (same seed answers)")
    for col in ("setting", "ACC1", "ACC2", "CR", "CtE", "ΔACC"):
        t.add_column(col, justify="right")
    for name, m in metrics.items():
        t.add_row(name, _fmt(m["acc1"]), _fmt(m["acc2"]), _fmt(m["cr"]), _fmt(m["cte"]), _fmt(m["delta_acc"]))
    return t


def print_outcome(cfg: EvalConfig, m: dict) -> None:
    console.print(metrics_table(m, f"{cfg.target} on {Path(cfg.data).name} (judge: {cfg.judge})"))
    if (bt := breakdown_table(m)) is not None:
        console.print(bt)
    ext = m["extension"]
    console.print(f"follow-up questions: {ext['asked']} asked, {ext['skipped']} skipped")
    if (il := incomplete_line(m)) is not None:
        console.print(il)
    if (tt := trust_table(m)) is not None:
        console.print(tt)
    if (gl := gate_line(m)) is not None:
        console.print(gl)
    leak = m.get("leakage") or {}
    if leak.get("batches_checked"):
        console.print(f"suggestion leaks: {leak['batches_leaking']} of {leak['batches_checked']} batches, "
                      f"{leak['batches_rewritten']} rewritten, {leak['batches_flagged']} still leaking (flagged)")


def _make_command(ablation: bool):
    @with_config_flags(FLAGS)
    def command(
        given: dict,
        config: Annotated[Path | None, typer.Option(help=CONFIG_HELP, rich_help_panel=_RUN)] = None,
    ) -> None:
        cfg = eval_config(FLAGS, given, config, "ablate" if ablation else "evaluate")
        if cfg.bank is not None:
            from judgeagent.cli.bank import run_bank_command

            return run_bank_command(cfg, ablation)
        from judgeagent import evaluate
        from judgeagent.protocols import get_protocol
        from judgeagent.run import run_evaluation

        # evaluate: the Python API's own call, for any --protocol.
        outcome = run_evaluation(cfg, ablation=True) if ablation else evaluate(cfg, progress=True).outcome
        if ablation:
            console.print(ablation_table(outcome.metrics))
            if (il := incomplete_line(outcome.metrics["full"])) is not None:
                console.print(il)
        else:
            if "acc1" in outcome.metrics["full"]:  # the JudgeAgent interview's figures
                print_outcome(cfg, outcome.metrics["full"])
            for line in get_protocol(cfg.protocol).headline(outcome.metrics["full"]):
                console.print(line, highlight=False)
        if cfg.report:
            console.print(f"report: {outcome.folder.path / 'report.html'} (and report.md)")
        console.print(f"run folder: {outcome.folder.path}")

    command.__doc__ = (
        "Run the four ablation settings (full, no graph, fixed medium difficulty, no extension) on the same seed answers."
        if ablation
        else "Interview a target model: grade the seed questions, extend with graph-based follow-ups at an adaptive difficulty, then validate the judge's feedback (ACC1 → ACC2)."
    )
    return user_errors(command)


app.command("evaluate")(_make_command(False))
app.command("ablate")(_make_command(True))
