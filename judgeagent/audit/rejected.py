"""The questions the quality gate rejected, rebuilt from the run's journal.

A record keeps, for each try at a question, only why it failed and the gate's verdicts, not
the question itself. The journal keeps every generation request and its reply, so the
question is rebuilt as the run built it: the request whose excerpts are the round's path
window and whose difficulty is the round's, at the try's place in the conversation (a
retry carries the earlier replies), put together by the same code (``assemble``) with the
key at the same seeded position. A try that cannot be found is named instead.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from pathlib import Path

from judgeagent.audit.items import REJECTED, AuditItem
from judgeagent.audit.runrecords import Slot, provenance
from judgeagent.bank.fill import item_id
from judgeagent.errors import JudgeAgentError

# The gate's checks that judge a question's soundness; the other two reject a copy.
VALIDITY_CHECKS = ("well_formed", "self_contained", "answerable")


def failed_checks(verdict: dict) -> list[str]:
    return [name for name, c in (verdict.get("checks") or {}).items() if c.get("passed") is False and name != "needs_hops"]


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
    """Every question the gate rejected as unsound, and notes on those that could not be rebuilt."""
    from judgeagent.batches import batch_seed
    from judgeagent.data.benchmark import QuestionType
    from judgeagent.graph import KnowledgePath
    from judgeagent.stages.extension import assemble, path_text
    from judgeagent.stages.gate import balanced_position

    try:
        replies = _generation_replies(run_dir)
    except JudgeAgentError as e:
        return [], [f"rejected questions left out: {e}"]
    kind = QuestionType(qtype)
    out, lost, copies = [], 0, 0
    for slot in all_slots:
        attempts = slot.entry.get("generation_attempts") or []
        path = slot.entry.get("path")
        level = str(slot.entry.get("level") or "")
        for k, attempt in enumerate(attempts):
            verdict = attempt.get("gate")
            if not verdict or verdict.get("passed"):
                continue
            failed = failed_checks(verdict)
            if not any(c in VALIDITY_CHECKS for c in failed):
                copies += 1
                continue
            window = KnowledgePath.from_dict(path) if path else None
            source = path_text(window.texts, window.entities) if window else ""
            data = next((d for user, tries, d in replies if tries == k and source and user.rstrip().endswith(source) and f" {level.upper()} " in user), None)
            if data is None:
                lost += 1
                continue
            position = balanced_position(batch_seed(seed, slot.batch, "letters"), slot.index) if kind.is_multiple_choice else None
            try:
                q = assemble(data, kind, slot.qid, level, random.Random(slot.qid), position)
            except (KeyError, TypeError, ValueError, IndexError):
                lost += 1
                continue
            steps, chunks, missing = provenance(path)
            out.append(AuditItem(
                item_id=item_id(qtype, q.question, q.options, q.answer), ref=f"{slot.ref}, try {k + 1} (rejected)", qtype=qtype,
                question=q.question, options=q.options, key=q.answer, level=level or None, counted_as=None, status=REJECTED, batch=slot.batch,
                path=steps, chunks=chunks, gate=verdict, written_by=writer, source=str(run_dir), rationale=(q.meta or {}).get("rationale") or None,
                missing=[*missing, "the rejected question's text in the records (rebuilt from the journal's generation reply)"], recovered_from="journal",
            ))  # fmt: skip
    notes = []
    if copies:
        notes.append(f"{copies} rejected question(s) left out: rejected only as a copy of a seed or an earlier question")
    if lost:
        notes.append(f"{lost} rejected question(s) left out: their generation reply is not in {run_dir / 'journal.sqlite'}")
    return out, notes
