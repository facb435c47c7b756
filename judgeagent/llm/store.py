"""Where answers are kept: the run's journal, then an optional cache shared between runs.

Only answers are stored. A failed call is never written, so a rerun asks it again; a
replayed answer costs nothing. Decisions that depended on timing live in the journal
only (they belong to one run).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from judgeagent.llm.journal import Entry, Journal
from judgeagent.llm.request import ChatRequest


class AnswerStore:
    def __init__(self, journal_path: Path | None, cache_path: Path | None = None, no_cache: bool = False):
        # A run's own journal is read ahead: a rerun asks for nearly all of it. The shared
        # cache may hold many runs' answers, so it is looked up one answer at a time.
        self.journal = Journal(journal_path, read_ahead=True) if journal_path is not None else None
        self.cache = Journal(cache_path) if cache_path is not None else None
        self.no_cache = no_cache  # send every request; answers are still written

    def lookup(self, key: str) -> Entry | None:
        if self.no_cache:
            return None
        for store in (self.journal, self.cache):
            if store is not None:
                hit = store.get(key)
                if hit is not None:
                    return hit
        return None

    def commit(self, request: ChatRequest, entry: Entry) -> None:
        """Write one answer at once, so a killed run resumes from it."""
        record = request.journal_record()
        for store in (self.journal, self.cache):
            if store is not None:
                store.put(entry, identity=request.spec.identity, stage=request.stage, request=record)

    def decision(self, key: str) -> Any | None:
        return self.journal.decision(key) if self.journal is not None else None

    def remember(self, key: str, value: Any) -> None:
        if self.journal is not None:
            self.journal.record_decision(key, value)

    def close(self) -> None:
        for store in (self.journal, self.cache):
            if store is not None:
                store.close()
