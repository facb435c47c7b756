"""How a run ended, as one word in metrics.json and one exit code for the shell.

A script or a CI job reads only the exit code, so 0 must mean that every unit was run to its
end: a run that left units out of its figures, or answered nothing at all, says so with its
own code (rerunning the same command retries exactly what is missing). The table is written
out for users in docs/reference/exit-codes.md; a test keeps the two in step.
"""

from __future__ import annotations

from typing import Literal

OK = 0  # every unit finished
CRASH = 1  # an unexpected error (a bug): Python's own code for an uncaught exception
USER_ERROR = 2  # bad input or setting, a missing key, a refused Batch API, a budget reached, a model that stopped answering
INCOMPLETE = 3  # finished, but some units were left out of the figures: rerun to retry them
NOTHING_ANSWERED = 4  # finished, and no unit could be asked to its end: the figures are empty
INTERRUPTED = 130  # Ctrl-C (128 + SIGINT, as shells report it)

Status = Literal["complete", "incomplete", "nothing_answered"]
COMPLETE, PARTIAL, EMPTY = "complete", "incomplete", "nothing_answered"

CODES: dict[str, int] = {COMPLETE: OK, PARTIAL: INCOMPLETE, EMPTY: NOTHING_ANSWERED}


def run_status(n_units: int, n_finished: int, complete: bool) -> Status:
    """``complete`` when every unit finished (and the run was not cut short); ``nothing_answered``
    when there were units and none finished; ``incomplete`` otherwise."""
    if complete:
        return "complete"
    if n_units > 0 and n_finished == 0:
        return "nothing_answered"
    return "incomplete"


def combined(statuses: list[str]) -> Status:
    """The status of several runs taken together (a sweep's targets): complete only when every
    one is; nothing answered only when none answered anything."""
    if all(s == COMPLETE for s in statuses):
        return "complete"
    if statuses and all(s == EMPTY for s in statuses):
        return "nothing_answered"
    return "incomplete"


def exit_code(status: str | None) -> int:
    """The exit code of a run that ended with ``status`` (an unknown or missing status, as an
    old metrics.json has, counts as incomplete: never claim success that was not recorded)."""
    return CODES.get(status or "", INCOMPLETE)
