"""A run's records, read for the audit: where questions were written and what each asked.

The records come typed through their protocol's record model; the audit needs from them only
where questions were written (:class:`Slot`, which the protocol that wrote the records says:
``Protocol.audit_slots``) and what each asked question carries (:func:`asked_item`). The
protocols are asked through the registry: nothing here knows one by its name or its records.
"""

from __future__ import annotations

from pathlib import Path

from judgeagent.audit.items import PASSED, UNGATED, AuditItem, PathStep, SourceChunk
from judgeagent.bank.fill import item_id
from judgeagent.engine.protocol import AuditSlot as Slot
from judgeagent.engine.registry import AnyProtocol, protocol_class
from judgeagent.metrics.audited import Answered
from judgeagent.records import PathRecord, QuestionRecord, UnitRecord
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


def protocol_of(config: RunConfig) -> AnyProtocol:
    """The protocol that wrote the run, from the registry."""
    return protocol_class(config.protocol or "judgeagent")()


def slots(record: UnitRecord, protocol: AnyProtocol) -> list[Slot]:
    """Where ``record`` holds a question its protocol wrote (none for a protocol that writes none)."""
    return protocol.audit_slots(record)


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
    for chunk in chunks:
        chunk.cited = [text for chunk_id, text in slot.cited if chunk_id == chunk.chunk_id]
    if gate is None and not any(a.gate is not None for a in slot.entry.generation_attempts or []):
        missing.append("the quality gate's verdict (the gate was off, or the run predates it)")
    return AuditItem(
        item_id=item_id(qtype, q.question, q.options, q.answer), ref=slot.ref, qtype=qtype, question=q.question, options=q.options,
        key=q.answer, level=slot.level if slot.own_level else slot.entry.level, counted_as=slot.entry.counted_as, status=PASSED if gate else UNGATED, batch=slot.batch,
        path=steps, chunks=chunks, gate=gate.to_json() if gate else None, written_by=writer, source=source, rationale=rationale(q),
        missing=missing,
    )  # fmt: skip


def answered(run_dir: Path, config: RunConfig) -> tuple[list[Answered], str]:
    """Every answer the run's figures count to an audited item (its main arm's), with the
    item's id, the level it counts as and whether it was right; and what the items are called."""
    protocol, qtype = protocol_of(config), config.question_type
    what = protocol.audited_accuracy or protocol.audited_items or "generated questions"
    arm = config.settings.main_arm
    recs = protocol.audited_records([r for r in records(run_dir, config) if record_setting(r) == arm], config.options)
    return [a for rec in recs for a in protocol.audited_answers(rec, qtype)], what
