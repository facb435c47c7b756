"""``judgeagent evaluate`` and ``judgeagent ablate``. Every flag is one EvalConfig field."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer
from rich.table import Table

from judgeagent.cli.app import app
from judgeagent.cli.common import console, user_errors
from judgeagent.config import DifficultyConfig, EvalConfig, GraphConfig, LLMConfig, default_workers
from judgeagent.errors import ConfigError

_RUN = "Run"
_ABL = "Ablation"
_LLM = "Models and budget"
_DIF = "Difficulty controller"
_TRUST = "Trust: quality gate, leakage, controls, statistics"
DECONTAMINATE_MODES = ("paraphrase", "modify", "unclarify")


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
    """ΔACC against the controls, with its interval and McNemar's p, plus question quality and leaks."""
    if "mcnemar" not in m:
        return None
    t = Table(title="Does the feedback help? (95% bootstrap CI, McNemar exact p)")
    for col in ("comparison", "ACC", "ΔACC from it", "p"):
        t.add_column(col, justify="right")
    tests = m["mcnemar"]
    t.add_row("ACC1 (no suggestions, first ask)", f"{_fmt(m['acc1'])} {_ci(m, 'acc1')}", f"{_fmt(m['delta_acc'])} {_ci(m, 'delta_acc')}",
              f"{tests['suggestions_vs_none']['p_value']:.3g}")
    for name, label in (("plain", "plain re-ask"), ("placebo", "placebo suggestion")):
        c = (m.get("controls") or {}).get(name)
        if c:
            t.add_row(label, _fmt(c["acc"]), _fmt(m["controls"][f"suggestions_minus_{name}"]), f"{tests[f'suggestions_vs_{name}']['p_value']:.3g}")
    t.add_row("ACC2 (with suggestions)", f"{_fmt(m['acc2'])} {_ci(m, 'acc2')}", "", "")
    leak = m.get("leakage") or {}
    if leak.get("batches_checked"):
        lf = leak["leak_free"]
        t.add_row(f"ACC2, leak-free batches ({lf['n_batches']})", _fmt(lf["acc2"]), _fmt(lf["delta_acc"]), "")
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


def _make_command(ablation: bool):
    def command(
        target: Annotated[str, typer.Option(help="Model under evaluation: a name from `judgeagent models`, provider:model, URL@model or local:/path.gguf.", rich_help_panel=_RUN)] = "local",
        judge: Annotated[str, typer.Option(help="Model that writes questions and feedback (same forms as --target).", rich_help_panel=_RUN)] = "local",
        data: Annotated[Path, typer.Option(help="Benchmark folder (MedQA, MultiHop-RAG, QuALITY or generic JSONL; detected).", rich_help_panel=_RUN)] = EvalConfig.data,
        graph: Annotated[Optional[Path], typer.Option(help="Context graph folder (default: graphs/<data name>; built when missing).", rich_help_panel=_RUN)] = None,
        batch_size: Annotated[int, typer.Option(help="Seed questions per batch (one prompt). RMC batches never mix articles.", rich_help_panel=_RUN)] = 3,
        rounds: Annotated[int, typer.Option(help="Extension rounds per batch.", rich_help_panel=_RUN)] = 3,
        hops: Annotated[int, typer.Option(help="Knowledge-path hops per generated question.", rich_help_panel=_RUN)] = 2,
        limit: Annotated[Optional[int], typer.Option(help="Use only the first N seed questions.", rich_help_panel=_RUN)] = None,
        seed: Annotated[int, typer.Option(help="Seed for path sampling, option order and model calls.", rich_help_panel=_RUN)] = 0,
        concurrency: Annotated[int, typer.Option(help="Batches interviewed at once.", rich_help_panel=_RUN)] = 8,
        no_graph: Annotated[bool, typer.Option("--no-graph", help="Ablation: path chunks drawn at random from the corpus.", rich_help_panel=_ABL)] = False,
        fixed_difficulty: Annotated[Optional[str], typer.Option(help="Ablation: easy|medium|hard for every generated question.", rich_help_panel=_ABL)] = None,
        no_extension: Annotated[bool, typer.Option("--no-extension", help="Ablation: feedback from the seed answers only.", rich_help_panel=_ABL)] = False,
        eval_every_round: Annotated[bool, typer.Option("--eval-every-round", help="Feedback and validation after round 0..R (gives by_round).", rich_help_panel=_RUN)] = False,
        reask_correct: Annotated[bool, typer.Option("--reask-correct", help="Also re-ask batches the target got fully right.", rich_help_panel=_RUN)] = False,
        out: Annotated[Optional[Path], typer.Option(help="Run folder (default: runs/<date>-<target>-<data>).", rich_help_panel=_RUN)] = None,
        resume: Annotated[Optional[Path], typer.Option(help="Continue the run in this folder (rerunning the same command does too).", rich_help_panel=_RUN)] = None,
        models: Annotated[Optional[Path], typer.Option(help="Model registry file (default: ./judgeagent.toml when present).", rich_help_panel=_LLM)] = None,
        cache: Annotated[Optional[Path], typer.Option(help="Shared request cache (SQLite), beside the run's own journal.", rich_help_panel=_LLM)] = None,
        no_cache: Annotated[bool, typer.Option("--no-cache", help="Do not replay requests from the journal or cache.", rich_help_panel=_LLM)] = False,
        max_requests: Annotated[Optional[int], typer.Option(help="Stop cleanly before sending more requests than this.", rich_help_panel=_LLM)] = None,
        budget_usd: Annotated[Optional[float], typer.Option(help="Stop cleanly before spending more than this (model prices from the registry).", rich_help_panel=_LLM)] = None,
        max_attempts: Annotated[int, typer.Option(help="Attempts per request before it is recorded as failed.", rich_help_panel=_LLM)] = 6,
        timeout: Annotated[float, typer.Option(help="Seconds per request attempt.", rich_help_panel=_LLM)] = 120.0,
        gain_easy: Annotated[float, typer.Option(rich_help_panel=_DIF, help="Gain of a correct Easy answer.")] = 1.0,
        gain_medium: Annotated[float, typer.Option(rich_help_panel=_DIF, help="Gain of a correct Medium (or unlabeled) answer.")] = 1.5,
        gain_hard: Annotated[float, typer.Option(rich_help_panel=_DIF, help="Gain of a correct Hard answer.")] = 2.0,
        t1: Annotated[float, typer.Option(rich_help_panel=_DIF, help="Score at or below which the next question is Easy.")] = 0.5,
        t2: Annotated[float, typer.Option(rich_help_panel=_DIF, help="Score above which the next question is Hard.")] = 1.0,
        hard_wrong_penalty: Annotated[float, typer.Option(rich_help_panel=_DIF, help="Score lost by a wrong Hard answer (reference code: 0.2).")] = 0.0,
        no_report: Annotated[bool, typer.Option("--no-report", help="Do not write report.html / report.md.", rich_help_panel=_RUN)] = False,
        no_summary: Annotated[bool, typer.Option("--no-summary", help="Skip the judge's end-of-run interview summary (summary.json).", rich_help_panel=_RUN)] = False,
        workers: Annotated[int, typer.Option(help="spaCy processes when the graph has to be built (default: one per core, up to 4).", rich_help_panel=_RUN)] = default_workers(),
        no_gate: Annotated[bool, typer.Option("--no-gate", help="Do not check generated questions (well-formed, answerable from the path, not a copy or duplicate).", rich_help_panel=_TRUST)] = False,
        check_hops: Annotated[bool, typer.Option("--check-hops/--no-check-hops", help="Hard questions must fail when any one path chunk is removed; else they count as single-hop.", rich_help_panel=_TRUST)] = True,
        gate_overlap: Annotated[bool, typer.Option("--gate-overlap/--no-gate-overlap", help="Send the gate's answerable check while the question is embedded, and withdraw it if the question is a copy (only when the judge takes parallel requests; saves a wait, may spend a call).", rich_help_panel=_TRUST)] = True,
        seed_similarity: Annotated[float, typer.Option(help="Cosine to a seed question at or above which a generated one is a copy.", rich_help_panel=_TRUST)] = 0.9,
        generation_tries: Annotated[int, typer.Option(min=1, help="Tries per follow-up question before the round is skipped.", rich_help_panel=_TRUST)] = 3,
        leak_threshold: Annotated[float, typer.Option(help="Cosine of a suggestion sentence to an answer at or above which it leaks.", rich_help_panel=_TRUST)] = 0.85,
        controls: Annotated[bool, typer.Option("--controls/--no-controls", help="Also re-ask with no suggestions and with a placebo suggestion.", rich_help_panel=_TRUST)] = True,
        bootstrap: Annotated[int, typer.Option(min=100, help="Bootstrap resamples for the 95% confidence intervals.", rich_help_panel=_TRUST)] = 2000,
        decontaminate: Annotated[Optional[str], typer.Option(help="Rewrite the seed questions first: paraphrase|modify|unclarify.", rich_help_panel=_TRUST)] = None,
    ) -> None:
        if fixed_difficulty is not None and fixed_difficulty not in ("easy", "medium", "hard"):
            raise ConfigError(f"--fixed-difficulty must be easy, medium or hard (got {fixed_difficulty!r})")
        if decontaminate is not None and decontaminate not in DECONTAMINATE_MODES:
            raise ConfigError(f"--decontaminate must be paraphrase, modify or unclarify (got {decontaminate!r})")
        cfg = EvalConfig(
            target=target, judge=judge, data=data, graph=graph, batch_size=batch_size, rounds=rounds, hops=hops,
            limit=limit, seed=seed, concurrency=concurrency, no_graph=no_graph, fixed_difficulty=fixed_difficulty,
            no_extension=no_extension, eval_every_round=eval_every_round, reask_correct=reask_correct, out=out, resume=resume,
            report=not no_report, summary=not no_summary,
            gate=not no_gate, check_hops=check_hops, gate_overlap=gate_overlap, seed_similarity=seed_similarity, generation_tries=generation_tries,
            leak_threshold=leak_threshold, controls=controls, bootstrap=bootstrap, decontaminate=decontaminate,
            difficulty=DifficultyConfig(gain_easy, gain_medium, gain_hard, t1, t2, hard_wrong_penalty),
            llm=LLMConfig(models_file=models, cache=cache, no_cache=no_cache, max_requests=max_requests,
                          budget_usd=budget_usd, max_attempts=max_attempts, timeout_s=timeout),
            graph_build=GraphConfig(workers=workers, judge=judge),
        )
        from judgeagent.run import run_evaluation

        outcome = run_evaluation(cfg, ablation=ablation)
        if ablation:
            console.print(ablation_table(outcome.metrics))
        else:
            m = outcome.metrics["full"]
            console.print(metrics_table(m, f"{target} on {Path(data).name} (judge: {judge})"))
            if (bt := breakdown_table(m)) is not None:
                console.print(bt)
            ext = m["extension"]
            console.print(f"follow-up questions: {ext['asked']} asked, {ext['skipped']} skipped")
            if (tt := trust_table(m)) is not None:
                console.print(tt)
            if (gl := gate_line(m)) is not None:
                console.print(gl)
            leak = m.get("leakage") or {}
            if leak.get("batches_checked"):
                console.print(f"suggestion leaks: {leak['batches_leaking']} of {leak['batches_checked']} batches, "
                              f"{leak['batches_rewritten']} rewritten, {leak['batches_flagged']} still leaking (flagged)")
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
