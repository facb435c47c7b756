"""The Typer application. Each command group lives in its own module and registers here."""

from __future__ import annotations

import os
import signal
import sys

# Air-gapped by design: models load from installed packages, never from a hub.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import typer

app = typer.Typer(
    name="judgeagent",
    help=(
        "JudgeAgent: evaluate an LLM the way an interviewer would.\n\n"
        "Typical use: `judgeagent build-graph data/medqa-demo`, then "
        "`judgeagent evaluate --target local --judge local --limit 6`."
    ),
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)


def _print_version(value: bool) -> None:
    if value:
        from judgeagent import __version__

        typer.echo(f"judgeagent {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_print_version, is_eager=True, help="Print the version and exit."),
) -> None:
    """JudgeAgent: evaluate an LLM the way an interviewer would."""


@app.command()
def version() -> None:
    """Print the JudgeAgent version."""
    from judgeagent import __version__

    typer.echo(__version__)


def _register() -> None:
    # Imported for their side effect of adding commands to `app`; a module that is not
    # written yet is simply absent from the CLI.
    import importlib

    for mod in ("graph", "models", "evaluate", "seeds", "report", "bank", "sweep", "validate", "audit"):
        try:
            importlib.import_module(f"judgeagent.cli.{mod}")
        except ModuleNotFoundError as e:
            if e.name != f"judgeagent.cli.{mod}":
                raise


_register()


def main() -> None:
    # A process started with SIGINT ignored (a script's background job, some launchers)
    # keeps it ignored, and asyncio then never hears Ctrl-C: only SIGTERM stopped a run.
    # For this command Ctrl-C always means stop (the run is resumable).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        app()
    except SystemExit as e:
        if e.code == 130:  # Ctrl-C: the run is saved and the message printed (cli/common.py)
            # Skip the interpreter's teardown: collecting torch, spaCy and FAISS objects takes
            # a second or more, and the user asked to stop now.
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(130)
        raise


if __name__ == "__main__":
    main()
