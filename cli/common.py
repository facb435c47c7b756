"""What every command shares: one-line errors, exit codes, the console."""

from __future__ import annotations

import functools

import typer
from rich.console import Console
from rich.markup import escape

from judgeagent.errors import JudgeAgentError

console = Console()
err_console = Console(stderr=True)


def fail(message: str, code: int = 2) -> typer.Exit:
    """Print ``error: message`` on one line to stderr and return the Exit to raise."""
    err_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


def user_errors(func):
    """Turn JudgeAgentError into a one-line message and its exit code, never a traceback.

    Exit codes: 2 for anything the user must fix or decide (bad input, a missing key, a
    budget reached, a model that stopped answering: the circuit breaker); 130 for Ctrl-C.
    Every stop leaves the run folder resumable; the message says how to go on.
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except JudgeAgentError as e:
            folder = getattr(e, "run_folder", None)
            # Escaped: the message is plain text ("pip install 'judgeagent[ray]'"), not rich markup.
            raise fail(escape(str(e)) + (f" (run folder: {folder})" if folder else ""), e.exit_code) from None
        except KeyboardInterrupt:
            err_console.print("interrupted; work done so far is saved (rerun the same command to resume)")
            raise typer.Exit(130) from None

    return wrapper
