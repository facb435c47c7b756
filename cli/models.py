"""`judgeagent models`: list the models JudgeAgent knows, and optionally check they answer."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass
from pathlib import Path

import typer
from rich.table import Table

from judgeagent.cli.app import app
from judgeagent.cli.common import console, user_errors
from judgeagent.errors import ConfigError
from judgeagent.llm.registry import unavailable

CHECK_PROMPT = "Count from 1 to 20, separated by spaces."
CHECK_MAX_TOKENS = 48


@dataclass
class CheckRow:
    """One model's --check result as the table and the plain lines show it."""

    status: str = ""  # OK, FAIL or SKIP
    latency: str = ""
    tps: str = ""
    detail: str = ""


def _key_status(spec) -> str:
    if spec.api_key_env is None:
        return "not needed"
    return "yes" if spec.api_key() is not None else "no"


async def _check_all(specs, strict: bool) -> list[CheckRow]:
    """One tiny request per model. ``strict`` (--only): a model that cannot be used is an error."""
    from judgeagent.config import LLMConfig
    from judgeagent.llm import LLMClient

    async with LLMClient(None, LLMConfig(no_cache=True, max_attempts=2, timeout_s=60.0)) as client:
        return [await _check_one(client, spec, strict) for spec in specs]


async def _check_one(client, spec, strict: bool) -> CheckRow:
    """The check row for one model: SKIP without its key, FAIL if it cannot start or answer.

    Without --only, one unusable model must not hide the others, so its failure is a row;
    with --only the user named it, so a configuration error is raised instead.
    """
    if spec.api_key() is None and not strict:
        return CheckRow(status="SKIP", detail=f"{spec.api_key_env} not set")
    if (why := unavailable(spec)) is not None and not strict:  # an optional model whose extra is not installed
        return CheckRow(status="SKIP", detail=why)
    try:
        server_start = await _timed_preflight(client, spec)
    except ConfigError as e:
        if strict:
            raise
        return CheckRow(status="FAIL", detail=str(e))
    r = await client.chat(
        spec,
        [{"role": "user", "content": CHECK_PROMPT}],
        stage="check",
        max_tokens=CHECK_MAX_TOKENS,
    )  # at the model's own temperature: a model that only takes 1 is checked as it will run
    if not r.ok:
        return CheckRow(status="FAIL", detail=r.error or "")
    tps = r.usage.completion_tokens / r.latency_s if r.latency_s > 0 else 0.0
    detail = f"{r.usage.completion_tokens} tokens"
    if server_start is not None:
        detail += f"; server started in {server_start:.1f} s"
    return CheckRow(status="OK", latency=f"{r.latency_s:.2f} s", tps=f"{tps:.1f}", detail=detail)


async def _timed_preflight(client, spec) -> float | None:
    """Preflight the model; for a local one, the seconds its server took to start.

    Starting a bundled llama.cpp server takes far longer than the request itself, so the
    check reports it apart rather than letting it inflate the latency.
    """
    if not spec.is_local:
        await client.preflight(spec)
        return None
    t0 = time.monotonic()
    await client.preflight(spec)
    return time.monotonic() - t0


@app.command("models")
@user_errors
def models(
    check: bool = typer.Option(False, "--check", help="Send one tiny request to each model that has its key."),
    only: list[str] = typer.Option(
        None, "--only", help="Only this model (repeatable); also accepts provider:model, URL@model, local:PATH."
    ),
    models_file: Path = typer.Option(
        None, "--models", help="Models file (default: ./judgeagent.toml when present).", dir_okay=False
    ),
) -> None:
    """List the models JudgeAgent knows (presets + judgeagent.toml); --check that they answer.

    Add or override models in ./judgeagent.toml under \\[models.NAME] with base_url, model, api_key_env (the variable's name: keys are read only from the environment), temperature, max_tokens, concurrency, rpm, price_in_per_1k, price_out_per_1k (USD; preset prices are editable the same way) or gguf (a local model file).

    Any command also takes provider:model (openai:gpt-4o-mini), URL@model and local:PATH.gguf.
    """
    from judgeagent.llm import load_registry

    registry = load_registry(models_file)
    specs = [registry.resolve(n) for n in only] if only else registry.specs()

    if check and only:
        for spec in specs:  # with --only, a missing key is an error, before anything is sent
            spec.require_key()
    results = asyncio.run(_check_all(specs, strict=bool(only))) if check else None

    console.print(_models_table(specs, registry.source))
    if results is not None:
        console.print(_checks_table(specs, results))
        _echo_check_lines(specs, results)
        if any(r.status == "FAIL" for r in results):
            raise typer.Exit(1)


def _models_table(specs, source: Path | None) -> Table:
    """What each model resolves to: where it is served, under which name, key and price."""
    title = "Models" + (f" (presets + {source})" if source else " (presets)")
    table = Table(title=title, title_justify="left")
    table.add_column("name", no_wrap=True)
    table.add_column("base_url", overflow="fold")
    table.add_column("model", overflow="fold")
    table.add_column("key env", overflow="fold")
    table.add_column("key set")
    table.add_column("$/1k in/out", no_wrap=True)
    for spec in specs:
        table.add_row(
            spec.name,
            "bundled llama.cpp server" if spec.is_local else spec.base_url,
            spec.gguf.name if spec.is_local and spec.gguf is not None else spec.model,
            spec.api_key_env or "-",
            _key_status(spec),
            f"{spec.price_in_per_1k:g}/{spec.price_out_per_1k:g}",
        )
    return table


def _checks_table(specs, results: list[CheckRow]) -> Table:
    """The --check results, coloured for a person reading the terminal."""
    checks = Table(title="Check: one tiny request each", title_justify="left")
    checks.add_column("name", no_wrap=True)
    checks.add_column("result", no_wrap=True)
    checks.add_column("latency", no_wrap=True)
    checks.add_column("tokens/s", no_wrap=True)
    checks.add_column("detail", overflow="fold")
    for spec, row in zip(specs, results):
        colour = {"OK": "green", "FAIL": "red", "SKIP": "yellow"}.get(row.status, "white")
        checks.add_row(spec.name, f"[{colour}]{row.status}[/]", row.latency, row.tps, row.detail)
    return checks


def _echo_check_lines(specs, results: list[CheckRow]) -> None:
    """Plain lines too, for logs and scripts: "local: OK 0.52 s 38.1 tokens/s"."""
    for spec, row in zip(specs, results):
        line = f"{spec.name}: {row.status}"
        if row.status == "OK":
            line += f" {row.latency} {row.tps} tokens/s"
        elif row.detail:
            line += f" ({row.detail})"
        typer.echo(line)
