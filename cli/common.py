"""What every command shares: one-line errors, exit codes, the console."""

from __future__ import annotations

import functools
import sys

import typer
from rich.console import Console

from judgeagent.errors import JudgeAgentError

console = Console()
err_console = Console(stderr=True)


def fail(message: str, code: int = 2) -> "typer.Exit":
    """Print ``error: message`` on one line to stderr and return the Exit to raise."""
    err_console.print(f"[bold red]error:[/] {message}", highlight=False, soft_wrap=True)
    return typer.Exit(code)


def user_errors(func):
    """Turn JudgeAgentError into a one-line message and exit 2, never a traceback.

    Ctrl-C exits 130 after whatever the command saved on the way out.
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        try:
            return func(*args, **kwargs)
        except JudgeAgentError as e:
            raise fail(str(e), e.exit_code) from None
        except KeyboardInterrupt:
            err_console.print("interrupted; work done so far is saved (rerun the same command to resume)")
            raise typer.Exit(130) from None

    return wrapper


def is_interactive() -> bool:
    return sys.stderr.isatty()
