"""``judgeagent evaluate``, ``ablate``, ``contamination`` and ``protocols``.

Every flag is one field: of the shared EvalConfig, or of a protocol's options model (its
help panel names the protocols it belongs to). A command builds the EvalConfig, calls
``judgeagent.evaluate`` and prints what the protocol says about the result. ``ablate`` is
``evaluate --ablation``; ``contamination`` is ``evaluate --protocol contamination``.
"""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Annotated, Any

import typer
from pydantic import BaseModel, ValidationError
from rich.table import Table

from judgeagent.cli.app import app
from judgeagent.cli.common import console, user_errors
from judgeagent.cli.options import ConfigFlag, build_config, describe_error, field_info, help_text, with_config_flags
from judgeagent.config import EvalConfig
from judgeagent.engine.registry import protocols
from judgeagent.exits import EMPTY, OK, PARTIAL, exit_code

_RUN = "Run"
_LLM = "Models and budget"
BATCH_FLAGS = ("llm.batch_api", "llm.batch_api_deadline", "llm.batch_api_poll_s", "llm.batch_api_expired",
               "llm.batch_api_expired_retries")  # shared with `sweep`
SHARED_PANELS = {
    _RUN: ("target", "judge", "data", "graph", "rebuild_graph", "seed", "concurrency", "out", "resume", "report", "protocol", "graph_build.workers"),
    _LLM: ("llm.models_file", "llm.cache", "llm.no_cache", "llm.max_requests", "llm.budget_usd", "llm.max_attempts", "llm.timeout_s",
           "llm.breaker_window", "llm.breaker_failure_share", *BATCH_FLAGS),
}
# Earlier spellings of renamed flags, still accepted.
ALIASES = {"llm.models_file": ("--models",), "llm.timeout_s": ("--timeout",)}
CONFIG_HELP = (
    "Re-create any run from its config.json and continue it in that folder (a finished run replays with zero "
    "requests); flags given beside it override the saved settings."
)


def option_fields() -> dict[tuple[str, ...], tuple[Any, list[str]]]:
    """Every protocol option as a flag path → (field info, the protocols it belongs to), in
    --help order; a nested model (the difficulty controller) gives one flag per field."""
    out: dict[tuple[str, ...], tuple[Any, list[str]]] = {}
    for name, cls in protocols().items():
        for field, info in cls.options.model_fields.items():
            sub = info.annotation
            paths = [(field, s) for s in sub.model_fields] if isinstance(sub, type) and issubclass(sub, BaseModel) else [(field,)]
            for path in paths:
                if path not in out:
                    out[path] = (field_info(cls.options, path), [])
                out[path][1].append(name)
    return out


def panel_name(owners: list[str]) -> str:
    """The help panel of the options a set of protocols shares."""
    known = protocols()
    if len(owners) == len(known) - 1 and "bank" not in owners:
        return "Seed questions (every protocol but bank)"
    if len(owners) == 1:
        return f"{known[owners[0]].title} (--protocol {owners[0]})"
    return f"Shared by --protocol {', '.join(owners)}"


def all_flags() -> list[ConfigFlag]:
    flags = [ConfigFlag(tuple(p.split(".")), field_info(EvalConfig, tuple(p.split("."))), tuple(ALIASES.get(p, ())), panel)
             for panel, paths in SHARED_PANELS.items() for p in paths]
    for path, (info, owners) in option_fields().items():
        flags.append(ConfigFlag(path, info, (), panel_name(owners)))
    names = [f.flag for f in flags]
    assert len(names) == len(set(names)), f"two fields give the same flag: {names}"
    return flags


def _with_protocol_names(flags: list[ConfigFlag]) -> list[ConfigFlag]:
    """--protocol's help names the registered protocols, which the config model cannot know."""
    out = []
    for f in flags:
        if f.path == ("protocol",):
            info = copy.copy(f.info)
            info.description = f"How the target is interviewed: {', '.join(protocols())} (`judgeagent protocols NAME` lists each one's options)."
            f = ConfigFlag(f.path, info, f.aliases, f.panel)
        out.append(f)
    return out


FLAGS = _with_protocol_names(all_flags())


def run_config(given: dict, config: Path | None, forced: dict | None = None) -> EvalConfig:
    """The EvalConfig of a run command: the flags given, over a saved config.json if one is
    named, with what the command itself implies (``forced``); the protocol's options checked
    here, so a bad or foreign flag is one line before anything runs."""
    from judgeagent.cli.common import fail
    from judgeagent.engine.options import foreign_settings, resolve
    from judgeagent.engine.registry import protocol_class
    from judgeagent.engine.replay import saved_config

    forced = forced or {}
    for key, value in forced.items():
        if key in given and str(given[key]).lower() != str(value).lower():
            raise fail(f"--{key.replace('_', '-')} {given[key]} does not go with this command, which runs --{key.replace('_', '-')} {value}")
    given = given | forced
    base = saved_config(config, given) if config is not None else None
    cfg = build_config(EvalConfig, FLAGS, given, base=base, source=config)
    if cfg.protocol not in protocols():  # unknown, or one with its own command (seeds): one line listing the known ones
        protocol_class(cfg.protocol)
        raise fail(f"--protocol {cfg.protocol} is run by `judgeagent {cfg.protocol}`, not by this command")

    def named(key: str) -> str:
        return f"--{key.replace('_', '-')}" if key in given or config is None else f"{config}: {key}"

    if (why := foreign_settings(cfg.protocol, cfg.options, named=named)) is not None:
        raise fail(why)
    try:
        _, options = resolve(cfg)
    except ValidationError as e:
        model = protocols()[cfg.protocol].options
        by_path = {f.path: f for f in FLAGS}
        raise fail("; ".join(describe_error(model, err, by_path, given, config) for err in e.errors())) from None
    return cfg.model_copy(update={"options": options.model_dump(mode="json")})


def run_and_print(cfg: EvalConfig) -> None:
    """Run ``cfg`` through the Python API and print what its protocol says of the result."""
    from judgeagent import evaluate
    from judgeagent.engine.registry import get_protocol

    result = evaluate(cfg, progress=True, console=console)
    for line in get_protocol(result.protocol).headline(result.outcome, cfg):
        console.print(line, highlight=False)
    if (il := incomplete_line(result.metrics)) is not None:
        console.print(il)
    if (bl := batch_line(result.metrics)) is not None:
        console.print(bl, highlight=False)
    if cfg.report and get_protocol(result.protocol).writes_report:
        console.print(f"report: {result.run_dir / 'report.html'} (and report.md)")
    console.print(f"run folder: {result.run_dir}")
    if result.exit_code != OK:
        raise typer.Exit(result.exit_code)


def batch_line(m: dict) -> str | None:
    """How this session's requests went, batched or one by one, and what each way cost."""
    usage = m.get("llm_usage") or {}
    batch, total = usage.get("batch_api"), usage.get("total") or {}
    if not batch or "jobs" not in batch:
        return None
    line = (f"Batch API: {batch['waves']} waves, {batch['jobs']} jobs; {total.get('batch_requests', 0)} requests in batch jobs "
            f"(${total.get('batch_cost_usd', 0):.4f}), {total.get('live_requests', 0)} one by one (${total.get('live_cost_usd', 0):.4f})")
    if batch.get("deadline_cancelled_jobs"):
        line += (f"; {batch['deadline_cancelled_jobs']} job(s) cancelled at the deadline, {batch['sent_live_after_deadline']} of their "
                 "requests then sent one by one")
    if (exp := batch.get("expired") or {}).get("lines"):
        line += f"; {expired_words(exp)}"
    return line


def expired_words(exp: dict) -> str:
    """What became of the requests that came back expired, and what that choice cost."""
    done = {"retry": f"{exp['resubmitted']} resubmitted at batch price (each try can take another 24 h window)",
            "live": f"{exp['sent_live']} sent one by one at the full price",
            "stop": "not sent again"}[exp["policy"]]  # fmt: skip
    left = f", {exp['left_incomplete']} left incomplete (reason expired)" if exp.get("left_incomplete") else ""
    return f"{exp['lines']} request(s) came back expired (--batch-api-expired {exp['policy']}): {done}{left}"


def incomplete_line(m: dict) -> str | None:
    """The units left out of the figures because a model call brought no answer, and why; it
    names the exit code the run ends with, so a log says what the shell saw."""
    inc = m.get("incomplete") or {}
    if not inc.get("n_batches"):
        return None
    why = ", ".join(f"{reason}: {n}" for reason, n in inc["reasons"].items())
    status = m.get("status") or PARTIAL
    head = "nothing answered: every batch" if status == EMPTY else f"incomplete: {inc['n_batches']} batch(es)"
    return (f"[yellow]{head} left out of the figures ({why}); rerun the same command to retry them "
            f"(exit code {exit_code(status)})[/]")


DRY_RUN_HELP = (
    "Send nothing: print the expected requests, prompt and completion tokens, cost per model and stage, and wall "
    "time, each with a range, and whether --budget-usd / --max-requests would stop the run; with --batch-api, the "
    "waves, the cost at batch prices beside the live one, and the wall time as waves × the provider's turnaround."
)


def print_estimate(cfg: EvalConfig) -> None:
    """``--dry-run``: the run's estimate (judgeagent.estimate), nothing sent."""
    from judgeagent.estimation import estimate, render_text

    console.print(render_text(estimate(cfg)), highlight=False, markup=False, soft_wrap=True)


def _make_command(forced: dict, doc: str):
    @with_config_flags(FLAGS)
    def command(
        given: dict,
        config: Annotated[Path | None, typer.Option(help=CONFIG_HELP, rich_help_panel=_RUN)] = None,
        dry_run: Annotated[bool, typer.Option("--dry-run", help=DRY_RUN_HELP, rich_help_panel=_LLM)] = False,
    ) -> None:
        cfg = run_config(given, config, forced)
        print_estimate(cfg) if dry_run else run_and_print(cfg)

    command.__doc__ = doc
    return user_errors(command)


app.command("evaluate")(_make_command({}, (
    "Interview a target model with a protocol (default judgeagent: grade the seed questions, extend with graph-based "
    "follow-ups at an adaptive difficulty, then validate the judge's feedback, ACC1 → ACC2). A flag of another "
    "protocol than --protocol is refused.")))
app.command("ablate")(_make_command({"ablation": True}, (
    "Run the four ablation arms of the judgeagent protocol (full, no graph, fixed medium difficulty, no extension) "
    "on the same seed answers: `evaluate --ablation`.")))
app.command("contamination")(_make_command({"protocol": "contamination"}, (
    "Contamination probe: grade the seed questions, then new questions about the same entities at matched "
    "difficulty; a large positive gap (seed − generated accuracy) suggests the seeds leaked into training "
    "(`evaluate --protocol contamination`).")))


@app.command("protocols")
@user_errors
def list_protocols(name: Annotated[str | None, typer.Argument(help="A protocol: list its options.")] = None) -> None:
    """The protocols `evaluate --protocol` runs, or one protocol's options with their defaults."""
    from judgeagent.engine.registry import protocol_class

    if name is None:
        t = Table(title="protocols (judgeagent evaluate --protocol NAME)")
        t.add_column("name")
        t.add_column("what it runs")
        for key, cls in protocols().items():
            t.add_row(key, cls.title)
        console.print(t)
        return
    cls = protocol_class(name)
    t = Table(title=f"--protocol {name}: {cls.title}")
    t.add_column("flag", no_wrap=True)
    t.add_column("what it sets")
    for f in FLAGS:
        if f.path[0] in cls.options.model_fields:
            t.add_row(f.decls()[0], help_text(f.info))
    console.print(t)
