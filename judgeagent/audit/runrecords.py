"""Today's run records, read for the audit: the one module that knows their shape.

``records.jsonl`` holds plain dicts as each protocol writes them (see judgeagent/records.py).
The audit needs from them only where questions were written (:class:`Slot`) and what each
asked question carries (:func:`asked_item`); when the records become typed models, this
module is the one to switch.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from judgeagent.audit.items import PASSED, UNGATED, AuditItem, PathStep, SourceChunk
from judgeagent.bank.fill import item_id
from judgeagent.metrics.audited import Answered

NO_LINKS = ("links: the run recorded the path's entities and chunks, not the edge walked between two entities (or whether the walk jumped); "
            "runs made since the sampler records them have it")


def read_config(run_dir: Path) -> dict:
    """The run's config.json; one line naming it when it is missing or unreadable."""
    from judgeagent.report.load import _read_json

    return _read_json(run_dir / "config.json", "config.json")


def records(run_dir: Path) -> list[dict]:
    """The run's finished records in batch order, read only (a torn last line is skipped, not rewritten)."""
    from judgeagent.report.load import read_records

    return sorted(read_records(run_dir / "records.jsonl"), key=lambda r: r.get("batch_index", 0))


@dataclass
class Slot:
    """One place of a run record where a question was written: an interview round, an
    escalation step, a contamination probe's question."""

    batch: str
    ref: str
    index: int  # the path window the writer was given (what places the key letter)
    qid: str  # the id the run gave the question written there
    entry: dict  # level, path, question, gate, generation_attempts, counted_as


def slots(record: dict, protocol: str) -> list[Slot]:
    batch = str(record.get("batch_id"))
    if protocol == "contamination":
        return [Slot(batch, f"{batch} question {i + 1} (for seed {g.get('seed_id')})", i, f"{batch}-c{i + 1}", g)
                for i, g in enumerate(record.get("generated") or [])]  # fmt: skip
    word, tag = ("step", "e") if protocol == "escalate" else ("round", "r")
    return [Slot(batch, f"{batch} {word} {rd.get('round')}", int(rd.get("round", 1)) - 1, f"{batch}-{tag}{rd.get('round')}", rd)
            for rd in record.get("rounds") or []]  # fmt: skip


def provenance(path: dict | None) -> tuple[list[PathStep], list[SourceChunk], list[str]]:
    """The path's entities with the link walked between each two, its chunks (each once, in
    path order), and what is missing."""
    steps = (path or {}).get("steps") or []
    if not steps:
        return [], [], ["the knowledge path and its source chunks (none recorded)"]
    chunks: dict[str, str] = {}
    for s in steps:
        chunks.setdefault(str(s.get("chunk_id")), str(s.get("text") or ""))
    out = [PathStep(str(s.get("entity")), str(s.get("chunk_id")), s.get("via"), s.get("via_chunk"), s.get("edge"), s.get("edge_weight")) for s in steps]
    # A window's first step may carry the link from the step before the window: it links to nothing shown.
    out[0] = PathStep(out[0].entity, out[0].chunk_id)
    # Runs before the sampler recorded links have no "via" on any step after the first.
    missing = [NO_LINKS] if len(steps) > 1 and not any("via" in s for s in steps[1:]) else []
    return out, [SourceChunk(c, t) for c, t in chunks.items()], missing


def asked_item(slot: Slot, qtype: str, *, writer: str | None, source: str) -> AuditItem | None:
    """The question a slot asked, or None when none was (a skipped round)."""
    q = slot.entry.get("question")
    if not q:
        return None
    gate = slot.entry.get("gate")
    steps, chunks, missing = provenance(slot.entry.get("path"))
    if gate is None and not any("gate" in a for a in slot.entry.get("generation_attempts") or []):
        missing.append("the quality gate's verdict (the gate was off, or the run predates it)")
    return AuditItem(
        item_id=item_id(qtype, q["question"], q.get("options"), q["answer"]), ref=slot.ref, qtype=qtype,
        question=q["question"], options=q.get("options"), key=q["answer"], level=slot.entry.get("level"),
        counted_as=slot.entry.get("counted_as"), status=PASSED if gate else UNGATED, batch=slot.batch, path=steps,
        chunks=chunks, gate=gate, written_by=writer, source=source, rationale=(q.get("meta") or {}).get("rationale") or None,
        missing=missing,
    )  # fmt: skip


def model_name(model: dict | None) -> str | None:
    if not model:
        return None
    return str(model.get("name") or model.get("model") or "") or None


def main_arm(config: dict) -> str:
    arms = (config.get("settings") or {}).get("settings") or []
    first = arms[0] if arms else None
    return str(first.get("name")) if isinstance(first, dict) and first.get("name") else "full"


# What a run's accuracy on its generated items is called in its figures.
WHAT = {"judgeagent": "follow-up questions (the extension accuracy)", "escalate": "escalation questions", "contamination": "generated questions",
        "bank": "bank items"}


def answered(run_dir: Path, config: dict) -> tuple[list[Answered], str]:
    """Every answer the run's figures count to a generated item (its main arm's), with the
    item's id, the level it counts as and whether it was right; and what the items are called."""
    protocol = str(config.get("protocol") or "judgeagent")
    qtype = str((config.get("benchmark") or {}).get("question_type") or "kmc")
    recs = records(run_dir)
    what = WHAT.get(protocol, "generated questions")
    if protocol == "bank":
        return [Answered(str(r["item_id"]), str(r.get("level") or "unlabeled"), bool(r.get("correct"))) for r in recs if r.get("item_id")], what
    arm = main_arm(config)
    out = []
    for rec in recs:
        if rec.get("setting", arm) != arm:
            continue
        for s in slots(rec, protocol):
            q, a = s.entry.get("question"), s.entry.get("answer")
            if q and a:
                level = str(s.entry.get("counted_as") or s.entry.get("level") or "unknown")
                out.append(Answered(item_id(qtype, q["question"], q.get("options"), q["answer"]), level, bool(a.get("correct"))))
    return out, what
