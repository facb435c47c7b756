"""Each target's place in a sweep, as sweep.json keeps it (the runner moves it, the
leaderboard reads it), and the shared items, as shared_items.json keeps them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from pydantic import BeforeValidator, Field

from judgeagent.records import JsonModel

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


class SharedItem(JsonModel):
    """A gate-passed follow-up of an interview that every target answers (shared_items.json)."""

    item_id: str
    level: str | None = None
    counted_as: str | None = None
    qtype: str = ""
    question: str = ""
    options: dict[str, str] | None = None
    answer: str = ""
    source_target: str = ""
    source_batch: str = ""
    cluster: str = ""  # the batch that wrote it, the bootstrap's unit

    @property
    def reported_level(self) -> str:
        return self.counted_as or self.level or ""


class SharedItems(JsonModel):
    items: list[SharedItem] = Field(default_factory=list)


class SavedTarget(JsonModel):
    """A target's state as an earlier session wrote it to sweep.json (its place in the folder
    is worked out again: only how far it got is carried over)."""

    name: str
    slug: str = ""  # its folder under targets/ and shared/
    status: Annotated[str, BeforeValidator(lambda v: v or PENDING)] = PENDING
    error: str | None = None
    shared_status: str | None = None
    shared_error: str | None = None
    shared_dir: str | None = None


class SavedSweepConfig(JsonModel):
    """The sweep's settings as sweep.json keeps them (what is read back of them)."""

    judge: str | None = None


class SweepFile(JsonModel):
    """What a rerun (and the audit) reads back of sweep.json."""

    config: SavedSweepConfig = Field(default_factory=SavedSweepConfig)
    created: str | None = None
    targets: Annotated[list[SavedTarget], BeforeValidator(lambda v: v or [])] = Field(default_factory=list)
