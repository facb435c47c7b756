"""The questions the quality gate rejected: from the run's records, or rebuilt from its journal.

A run made since the audit keeps each rejected question in its record (``generation_attempts``
entries carry ``question``, with the key at the letter it was given). An older record keeps,
for each try at a question, only why it failed and the gate's verdicts, not the question
itself. The journal keeps every generation request and its reply, so the question is rebuilt
as the run built it: the request whose excerpts are the round's path window and whose
difficulty is the round's, at the try's place in the conversation (a retry carries the
earlier replies), put together by the same code (``assemble``) with the key at the same seeded
position. A try that cannot be found either way is named instead.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

from judgeagent.audit.items import REJECTED, AuditItem
from judgeagent.audit.runrecords import Slot, provenance, rationale
from judgeagent.bank.fill import item_id
from judgeagent.errors import JudgeAgentError
from judgeagent.records import GateRecord, QuestionRecord

# The gate's checks that judge a question's soundness; the other two reject a copy.
VALIDITY_CHECKS = ("well_formed", "self_contained", "answerable")


def failed_checks(verdict: GateRecord) -> list[str]:
    return [name for name, c in verdict.checks.items() if c.passed is False and name != "needs_hops"]


def _generation_replies(run_dir: Path) -> list[tuple[str, int, dict]]:
    """(first user message, try number, parsed reply) of every journaled generation request."""
    from judgeagent.llm.journal import Journal

    path = run_dir / "journal.sqlite"
    if not path.exists():
        return []
    journal = Journal(path)
    try:
        rows = journal.replies("generation")
    finally:
        journal.close()
    out = []
    for request, data in rows:
        msgs = request.get("messages") or []
        users = [m for m in msgs if m.get("role") == "user"]
        if users and isinstance(data, dict):
            out.append((str(users[0].get("content", "")), len(users) - 1, data))
    return out


def rejected_items(run_dir: Path, all_slots: Sequence[Slot], *, qtype: str, seed: int, writer: str | None) -> tuple[list[AuditItem], list[str]]:
    """Every question the gate rejected as unsound, and notes on those that could not be found."""
    rebuild = _Rebuilder(run_dir, qtype, seed)
    out, copies = [], 0
    for slot in all_slots:
        for k, attempt in enumerate(slot.entry.generation_attempts or []):
            verdict = attempt.gate
            if verdict is None or verdict.passed:
                continue
            if not any(c in VALIDITY_CHECKS for c in failed_checks(verdict)):
                copies += 1
                continue
            recorded = attempt.question
            q = recorded if recorded is not None else rebuild(slot, k)
            if q is None:
                continue
            steps, chunks, missing = provenance(slot.entry.path)
            out.append(AuditItem(
                item_id=item_id(qtype, q.question, q.options, q.answer), ref=f"{slot.ref}, try {k + 1} (rejected)", qtype=qtype,
                question=q.question, options=q.options, key=q.answer, level=slot.entry.level or None, counted_as=None, status=REJECTED,
                batch=slot.batch, path=steps, chunks=chunks, gate=verdict.to_json(), written_by=writer, source=str(run_dir), rationale=rationale(q),
                missing=missing if recorded else [*missing, "the rejected question's text in the records (rebuilt from the journal's generation reply)"],
                recovered_from=None if recorded else "journal",
            ))  # fmt: skip
    notes = []
    if copies:
        notes.append(f"{copies} rejected question(s) left out: rejected only as a copy of a seed or an earlier question")
    notes += rebuild.notes()
    return out, notes


class _Rebuilder:
    """An older run's rejected question, rebuilt from the generation replies in its journal
    (read once, when the first question needs it)."""

    def __init__(self, run_dir: Path, qtype: str, seed: int):
        self.run_dir, self.qtype, self.seed = run_dir, qtype, seed
        self.replies: list[tuple[str, int, dict]] | None = None
        self.error: str | None = None
        self.lost = 0

    def __call__(self, slot: Slot, attempt: int) -> QuestionRecord | None:
        from judgeagent.batches import batch_seed
        from judgeagent.data.benchmark import QuestionType
        from judgeagent.graph import KnowledgePath
        from judgeagent.stages.extension import assemble, path_text
        from judgeagent.stages.gate import balanced_position

        if self.replies is None:
            try:
                self.replies = _generation_replies(self.run_dir)
            except JudgeAgentError as e:
                self.replies, self.error = [], str(e)
        path, level = slot.entry.path, slot.entry.level
        window = KnowledgePath.from_dict(path.to_json()) if path is not None else None
        source = path_text(window.texts, window.entities) if window else ""
        data = next((d for user, tries, d in self.replies if tries == attempt and source and user.rstrip().endswith(source) and f" {level.upper()} " in user), None)
        kind = QuestionType(self.qtype)
        if data is not None:
            position = balanced_position(batch_seed(self.seed, slot.batch, "letters"), slot.index) if kind.is_multiple_choice else None
            try:
                return QuestionRecord.of(assemble(data, kind, slot.qid, level, random.Random(slot.qid), position))
            except (KeyError, TypeError, ValueError, IndexError):
                pass
        self.lost += 1
        return None

    def notes(self) -> list[str]:
        if not self.lost:
            return []
        if self.error:
            return [f"{self.lost} rejected question(s) left out: {self.error}"]
        return [f"{self.lost} rejected question(s) left out: their generation reply is not in {self.run_dir / 'journal.sqlite'}"]
