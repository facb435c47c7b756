"""A run's records, read for the audit: where questions were written and what each asked.

The records come typed through their protocol's record model (judgeagent/records.py); the
audit needs from them only where questions were written (:class:`Slot`: an interview's
rounds, an escalation's steps, a contamination probe's questions) and what each asked
question carries (:func:`asked_item`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from judgeagent.audit.items import PASSED, UNGATED, AuditItem, PathStep, SourceChunk
from judgeagent.bank.fill import item_id
from judgeagent.metrics.audited import Answered
from judgeagent.protocols.contamination import ProbeRecord
from judgeagent.protocols.escalate import EscalationRecord
from judgeagent.protocols.seeds import SeedRecord
from judgeagent.records import BankItemRecord, FollowUpRecord, InterviewRecord, PathRecord, QuestionRecord, UnitRecord
from judgeagent.report.load import RunConfig, record_setting

NO_LINKS = ("links: the run recorded the path's entities and chunks, not the edge walked between two entities (or whether the walk jumped); "
            "runs made since the sampler records them have it")


def read_config(run_dir: Path) -> RunConfig:
    """The run's config.json; one line naming it when it is missing or unreadable."""
    from judgeagent.report.load import _read_json

    return RunConfig.from_json(_read_json(run_dir / "config.json", "config.json"))


def records(run_dir: Path, config: RunConfig) -> list[UnitRecord]:
    """The run's finished records in batch order, read only (a torn last line is skipped, not rewritten)."""
    from judgeagent.report.load import typed_records

    return sorted(typed_records(run_dir, config.protocol or "judgeagent"), key=lambda r: r.batch_index)


@dataclass
class Slot:
    """One place of a run record where a question was written: an interview round, an
    escalation step, a contamination probe's question."""

    batch: str
    ref: str
    index: int  # the path window the writer was given (what places the key letter)
    qid: str  # the id the run gave the question written there
    entry: FollowUpRecord  # level, path, question, gate, generation_attempts, counted_as


def slots(record: UnitRecord) -> list[Slot]:
    batch = record.batch_id
    if isinstance(record, SeedRecord):
        return [Slot(batch, f"{batch} ({record.kind.replace('_', '-')})", record.batch_index, batch, record.written)]
    if isinstance(record, ProbeRecord):
        return [Slot(batch, f"{batch} question {i + 1} (for seed {g.seed_id})", i, f"{batch}-c{i + 1}", g) for i, g in enumerate(record.generated)]
    if isinstance(record, EscalationRecord):
        word, tag, rounds = "step", "e", record.rounds
    elif isinstance(record, InterviewRecord):
        word, tag, rounds = "round", "r", record.rounds
    else:
        return []
    return [Slot(batch, f"{batch} {word} {rd.round}", rd.round - 1, f"{batch}-{tag}{rd.round}", rd) for rd in rounds]


def provenance(path: PathRecord | None) -> tuple[list[PathStep], list[SourceChunk], list[str]]:
    """The path's entities with the link walked between each two, its chunks (each once, in
    path order), and what is missing."""
    steps = path.steps if path is not None else []
    if not steps:
        return [], [], ["the knowledge path and its source chunks (none recorded)"]
    chunks: dict[str, str] = {}
    for s in steps:
        chunks.setdefault(s.chunk_id, s.text)
    out = [PathStep(s.entity, s.chunk_id, s.via, s.via_chunk, s.edge, s.edge_weight) for s in steps]
    # A window's first step may carry the link from the step before the window: it links to nothing shown.
    out[0] = PathStep(out[0].entity, out[0].chunk_id)
    # Runs before the sampler recorded links have no "via" on any step after the first.
    missing = [NO_LINKS] if len(steps) > 1 and not any("via" in s.model_fields_set for s in steps[1:]) else []
    return out, [SourceChunk(c, t) for c, t in chunks.items()], missing


def rationale(question: QuestionRecord) -> str | None:
    """The writer's own reason for the key, when it gave one."""
    why = question.meta.get("rationale")
    return str(why) if why else None


def asked_item(slot: Slot, qtype: str, *, writer: str | None, source: str) -> AuditItem | None:
    """The question a slot asked, or None when none was (a skipped round)."""
    q, gate = slot.entry.question, slot.entry.gate
    if q is None:
        return None
    steps, chunks, missing = provenance(slot.entry.path)
    if gate is None and not any(a.gate is not None for a in slot.entry.generation_attempts or []):
        missing.append("the quality gate's verdict (the gate was off, or the run predates it)")
    return AuditItem(
        item_id=item_id(qtype, q.question, q.options, q.answer), ref=slot.ref, qtype=qtype, question=q.question, options=q.options,
        key=q.answer, level=slot.entry.level, counted_as=slot.entry.counted_as, status=PASSED if gate else UNGATED, batch=slot.batch,
        path=steps, chunks=chunks, gate=gate.to_json() if gate else None, written_by=writer, source=source, rationale=rationale(q),
        missing=missing,
    )  # fmt: skip


# What a run's accuracy on its generated items is called in its figures.
WHAT = {"judgeagent": "follow-up questions (the extension accuracy)", "escalate": "escalation questions", "contamination": "generated questions",
        "bank": "bank items"}


def answered(run_dir: Path, config: RunConfig) -> tuple[list[Answered], str]:
    """Every answer the run's figures count to a generated item (its main arm's), with the
    item's id, the level it counts as and whether it was right; and what the items are called."""
    protocol, qtype = config.protocol or "judgeagent", config.question_type
    recs = records(run_dir, config)
    what = WHAT.get(protocol, "generated questions")
    if protocol == "bank":
        return [Answered(r.item_id, r.level or "unlabeled", r.correct) for r in recs if isinstance(r, BankItemRecord) and r.item_id], what
    arm = config.settings.main_arm
    out = []
    for rec in recs:
        if record_setting(rec) != arm:
            continue
        for s in slots(rec):
            q, a = s.entry.question, s.entry.answer
            if q is not None and a is not None:
                out.append(Answered(item_id(qtype, q.question, q.options, q.answer), s.entry.reported_level or "unknown", a.correct))
    return out, what
