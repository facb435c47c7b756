"""``judgeagent audit SOURCE``, ``audit import LABELS_FILE...`` and ``audit AUDIT_DIR``: the audit
of generated questions (judgeagent.audit). Every flag of the first form is a field of
AuditConfig."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.table import Table

from judgeagent.audit.config import AuditConfig
from judgeagent.cli.app import app
from judgeagent.cli.common import console, err_console, user_errors
from judgeagent.cli.options import build_config, config_flags, with_config_flags
from judgeagent.errors import JudgeAgentError
from judgeagent.exits import OK, exit_code

_AUDIT = "Audit"
_MODEL = "Model auditor"
FLAGS = config_flags(AuditConfig, {
    _AUDIT: ("sample", "seed", "include_rejected", "suspects", "out"),
    _MODEL: ("auditor", "auditor_scope", "llm.models_file", "llm.max_requests", "llm.budget_usd", "llm.max_attempts", "llm.timeout_s", "llm.no_cache"),
}, aliases={"llm.models_file": ("--models",), "llm.timeout_s": ("--timeout",)})  # fmt: skip

HELP = (
    "`audit SOURCE`: draw a seeded stratified random sample of the generated questions of a run folder, a sweep folder or a "
    "graph's question bank, and write an audit folder (SOURCE/audit) with audit.html, a page to label them on (open it from "
    "disk; labels are kept in the browser and exported as a file). `audit import LABELS_FILE...`: take people's exported "
    "labels in, and print the invalid-item rate with its 95% interval, per defect and per level, and the agreement between "
    "auditors. `audit AUDIT_DIR`: print the figures again. With --auditor MODEL, a model audits the items too."
)


@app.command("audit", help=HELP)
@user_errors
@with_config_flags(FLAGS)
def audit_command(
    given: dict,
    args: Annotated[list[str], typer.Argument(metavar="SOURCE | import LABELS_FILE... | AUDIT_DIR",
                                              help="A run, sweep or graph folder to audit; `import` and labels files; or an audit folder.")],
    audit_dir: Annotated[Path | None, typer.Option("--audit", help="audit import: the audit folder (default: the one the labels file names).",
                                                   rich_help_panel=_AUDIT)] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the figures as JSON.", rich_help_panel=_AUDIT)] = False,
) -> None:
    # One command with an optional leading word: a Typer group cannot take SOURCE before its subcommand.
    from judgeagent.audit import audit, audit_results, import_labels

    if args and args[0] == "import":
        if len(args) < 2:
            raise JudgeAgentError("usage: judgeagent audit import LABELS_FILE... [--audit AUDIT_DIR]")
        if given:
            raise JudgeAgentError("`judgeagent audit import` takes only labels files and --audit; the other options belong to `judgeagent audit SOURCE`")
        results = None
        for name in args[1:]:
            done = import_labels(Path(name), audit_dir)
            results = done.results
            console.print(f"{name}: {done.auditor}: {done.added} new label(s), {done.changed} changed, {done.total} in all "
                          f"(audit folder {done.audit_dir})", highlight=False, soft_wrap=True)  # fmt: skip
            _carried(done.carried, as_json)
        _print(results, as_json)
        return
    if len(args) != 1:
        raise JudgeAgentError("usage: judgeagent audit SOURCE [--sample N] [--seed S] [--auditor MODEL] [--out DIR]  |  "
                              "judgeagent audit import LABELS_FILE...  |  judgeagent audit AUDIT_DIR")  # fmt: skip
    if audit_dir is not None:
        raise JudgeAgentError("--audit belongs to `judgeagent audit import LABELS_FILE`")
    if (Path(args[0]) / "design.json").exists():
        if given:
            raise JudgeAgentError(f"{args[0]} is an audit folder: it takes no option but --json (draw a new audit from its source instead)")
        _print(audit_results(Path(args[0])), as_json)
        return
    cfg = build_config(AuditConfig, FLAGS, given | {"source": args[0]})
    result = audit(cfg, say=lambda line: console.print(line, highlight=False, soft_wrap=True))
    if not as_json:
        console.print(f"{result.sampled} of {result.population} item(s) drawn ({result.kind} {cfg.source}), {result.suspects} suspect(s) after them",
                      highlight=False, soft_wrap=True)  # fmt: skip
        for note in result.notes:
            console.print(f"note: {note}", highlight=False, soft_wrap=True)
        console.print(f"audit folder: {result.audit_dir}\npage: {result.page}\nthen: judgeagent audit import LABELS_FILE", highlight=False, soft_wrap=True)
    _carried(result.carried, as_json)
    for w in result.warnings:
        err_console.print(f"[yellow]warning:[/] {w}", highlight=False, soft_wrap=True)
    _print(result.results, as_json)
    if (code := exit_code(result.status)) != OK:
        # On stderr: with --json, stdout stays the figures alone.
        err_console.print(f"[yellow]model auditor: {result.status.replace('_', ' ')}; rerun the same command to retry the items "
                          f"it gave no verdict on (exit code {code})[/]", highlight=False, soft_wrap=True)  # fmt: skip
        raise typer.Exit(code)


def _carried(carried, as_json: bool) -> None:
    """Which figures files and reports now carry the audit (on stderr with --json, so stdout stays JSON)."""
    out = err_console if as_json else console
    if carried.updated:
        out.print("updated with the audit: " + ", ".join(str(p) for p in carried.updated), highlight=False, soft_wrap=True)
    for note in carried.notes:
        out.print(f"note: {note}", highlight=False, soft_wrap=True)


def _pct(est: dict | None) -> str:
    if not est or est.get("estimate") is None:
        return "–"
    lo, hi = est["ci"]
    return f"{100 * est['estimate']:.1f}% [{100 * lo:.1f}, {100 * hi:.1f}]"


def _kappa(k: dict) -> str:
    if k.get("kappa") is None:
        return "undefined" if k.get("n") else "–"
    lo, hi = k["ci"]
    return f"{k['kappa']:.2f} [{lo:.2f}, {hi:.2f}]"


def _print(results: dict | None, as_json: bool) -> None:
    if results is None:
        return
    if as_json:
        typer.echo(json.dumps(results, indent=2, ensure_ascii=False))
        return
    if results["basis"] == "none":
        console.print(f"no label yet: open the page, label, export, then `judgeagent audit import FILE` ({results['n_sample']} in the sample)",
                      highlight=False, soft_wrap=True)  # fmt: skip
        return
    inv = results.get("invalid") or {}
    who = "people: " + ", ".join(results["auditors"]) if results["basis"] == "people" else f"the model auditor {results['model_auditor']} alone (no person yet)"
    console.print(f"invalid items: {_pct(inv)} of {inv.get('population', 0)} ({results['n_labelled']} of {results['n_sample']} sampled items labelled; {who})",
                  highlight=False, soft_wrap=True)  # fmt: skip
    if srs := inv.get("as_simple_random_sample"):
        w, cp = srs["wilson"], srs["clopper_pearson"]
        console.print(f"  as a simple random sample, {srs['k']} of {srs['n']}: Wilson [{100 * w[0]:.1f}, {100 * w[1]:.1f}], "
                      f"Clopper-Pearson [{100 * cp[0]:.1f}, {100 * cp[1]:.1f}]", highlight=False, soft_wrap=True)  # fmt: skip
    t = Table(title="invalid-item rate, 95% interval (Korn-Graubard, stratified)", box=box.SIMPLE_HEAD, pad_edge=False)
    for col in ("", "share [95% CI]", "labelled", "with it"):
        t.add_column(col, justify="left" if not col else "right", no_wrap=True)
    for name, est in (results.get("by_defect") or {}).items():
        t.add_row(name, _pct(est), str(est.get("n", 0)), str(est.get("hits", 0)))
    for name, est in (results.get("by_level") or {}).items():
        t.add_row(f"level {name}: invalid", _pct(est), str(est.get("n", 0)), str(est.get("hits", 0)))
    console.print(t)
    if gate := results.get("gate"):
        console.print("quality gate: " + "; ".join(f"{k.replace('_', ' ')} {_pct(v)}" for k, v in gate.items()), highlight=False, soft_wrap=True)
    for a in results.get("agreement") or []:
        console.print(f"agreement {a['first']} / {a['second']} on {a['n']} items: κ valid/invalid {_kappa(a['valid_vs_invalid'])}, "
                      f"κ labels {_kappa(a['labels'])}; {len(a['disagreements'])} disagreement(s)", highlight=False, soft_wrap=True)  # fmt: skip
        for d in a["disagreements"][:10]:
            console.print(f"  {d['item_id']} ({d['ref']}): {', '.join(d['first'])} / {', '.join(d['second'])}", highlight=False, soft_wrap=True)
    if m := results.get("model_vs_people"):
        console.print(f"model auditor {results['model_auditor']} vs people on {m['n']} items: κ valid/invalid {_kappa(m['valid_vs_invalid'])}, "
                      f"κ labels {_kappa(m['labels'])}", highlight=False, soft_wrap=True)  # fmt: skip
        k = m["valid_vs_invalid"]
        if k.get("n"):
            console.print(f"  confusion (rows people, columns model; {', '.join(k['categories'])}): {k['table']}", highlight=False, soft_wrap=True)
    s = results.get("suspects") or {}
    if s.get("n"):
        console.print(f"suspects (not in the rate): {s['n_labelled']} of {s['n']} labelled, {s['n_invalid']} invalid", highlight=False, soft_wrap=True)
    for w in results.get("warnings") or []:
        err_console.print(f"[yellow]warning:[/] {w}", highlight=False, soft_wrap=True)
