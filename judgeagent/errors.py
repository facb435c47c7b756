"""User-facing errors.

Anything a user can fix (a bad file, a missing key, an unreachable endpoint) is raised
as a :class:`JudgeAgentError`. The CLI prints its message on one line and exits with
code 2, never a traceback. Messages name the file and line, or the setting, at fault.
"""

from __future__ import annotations

from pathlib import Path


class JudgeAgentError(Exception):
    """An error the user can act on; ``str(err)`` is the whole one-line message."""

    exit_code = 2
    run_folder: Path | None = None  # set when the error stops a run: the CLI names the folder to resume


class DataError(JudgeAgentError):
    """A benchmark folder or file that cannot be read."""

    def __init__(self, path: Path | str, message: str, line: int | None = None):
        self.path = Path(path)
        self.line = line
        where = f"{self.path}:{line}" if line is not None else f"{self.path}"
        super().__init__(f"{where}: {message}")


class ConfigError(JudgeAgentError):
    """A setting, model name, key or endpoint that is wrong."""


class BudgetExceeded(JudgeAgentError):
    """A --max-requests / --budget-usd limit was reached; work done so far is saved."""


class CallFailed(JudgeAgentError):
    """A model request failed after its retries: no answer came back (endpoint down, timeout,
    quota, output limit...). It is never graded as a wrong answer: the run writes the batch
    as incomplete, and rerunning the command retries it. ``kind`` is the FailureKind's value."""

    def __init__(self, model: str, stage: str, kind: str, message: str):
        self.model, self.stage, self.kind = model, stage, kind
        super().__init__(f"model '{model}' ({stage}): {kind}: {message}")


class RunInterrupted(JudgeAgentError):
    """Ctrl-C: the requests in flight were cancelled, the run folder kept resumable."""

    exit_code = 130
