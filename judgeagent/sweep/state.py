"""Each target's place in a sweep, as sweep.json keeps it (the runner moves it, the
leaderboard reads it)."""

from __future__ import annotations

from dataclasses import dataclass

OK, INCOMPLETE, FAILED, PENDING = "ok", "incomplete", "failed", "pending"


@dataclass
class TargetState:
    """One target's place in the sweep, as sweep.json keeps it."""

    name: str
    slug: str
    status: str = PENDING  # of its interview: ok | incomplete | failed | pending
    error: str | None = None
    run_dir: str = ""
    shared_status: str | None = None  # of its shared-items run (None: not run)
    shared_error: str | None = None
    shared_dir: str | None = None

    @property
    def usable(self) -> bool:
        """Its interview has figures (finished, or finished but for some incomplete batches)."""
        return self.status in (OK, INCOMPLETE)
