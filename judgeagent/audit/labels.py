"""The labels file: what one auditor said of the items of one audit.

The audit page exports it; ``judgeagent audit import`` reads it. It names its audit, so a
file from another audit is refused instead of being counted against the wrong items, and
every problem is one line naming the file and what is wrong. ``labels.schema.json`` in the
audit folder is this model's JSON Schema with the audit's id and item ids filled in, for
anyone writing labels with other tools.

Each item gets ``["valid"]`` or one or more defects (an item can have a wrong key and give
the answer away), a free comment, and the time it was labelled: merging two exports of the
same auditor keeps, per item, the later label, so importing an older file loses nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from judgeagent.audit.items import DEFECTS, LABELS, VALID
from judgeagent.errors import JudgeAgentError

FORMAT = "judgeagent-audit-labels"
VERSION = 1


class LabelEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    item_id: str = Field(description="The item's id, as in the audit's items.jsonl.")
    labels: list[str] = Field(description=f"['valid'], or one or more of: {', '.join(DEFECTS)}.")
    comment: str = Field(default="", description="Anything the auditor wants to say about the item.")
    at: str = Field(default="", description="When it was labelled (ISO 8601, UTC); the later label wins when two files disagree.")


class LabelsFile(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format: Literal["judgeagent-audit-labels"] = Field(description="Always 'judgeagent-audit-labels'.")
    version: int = Field(default=VERSION, description="The format's version.")
    audit_id: str = Field(description="The audit these labels belong to (design.json's audit_id).")
    audit_dir: str | None = Field(default=None, description="Where the audit folder was when the page was written.")
    auditor: str = Field(min_length=1, description="Who labelled: a person's name, or model:NAME for a model auditor.")
    kind: Literal["person", "model"] = Field(default="person", description="A person, or the model-assisted pass.")
    exported: str = Field(default="", description="When the file was written (ISO 8601, UTC).")
    labels: list[LabelEntry] = Field(default_factory=list, description="One entry per labelled item.")


def schema(audit_id: str, item_ids: list[str]) -> dict:
    """The JSON Schema of a labels file for this audit alone: its id and its items."""
    s = LabelsFile.model_json_schema()
    s["title"] = f"JudgeAgent audit labels for audit {audit_id}"
    s["properties"]["audit_id"] |= {"const": audit_id}
    entry = s["$defs"]["LabelEntry"]["properties"]
    entry["item_id"] |= {"enum": list(item_ids)}
    entry["labels"]["items"] = {"enum": list(LABELS)}
    entry["labels"]["minItems"] = 1
    return s


def _where(loc: tuple) -> str:
    return "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in loc).lstrip(".") or "the file"


def read_json(path: Path) -> dict:
    """The labels file's JSON object; one line naming the file when it cannot be read, is not
    JSON (a truncated download) or is not a labels file at all."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise JudgeAgentError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as e:
        raise JudgeAgentError(f"{path}: cannot read it ({e})") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise JudgeAgentError(f"{path}: not valid JSON at line {e.lineno} column {e.colno} ({e.msg}; truncated or damaged?)") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise JudgeAgentError(f"{path}: not a JudgeAgent audit labels file (no \"format\": \"{FORMAT}\")")
    return data


def check(path: Path, data: dict, audit_id: str, item_ids: set[str]) -> LabelsFile:
    """``data`` (from :func:`read_json`) as a labels file of the audit ``audit_id``, whose items
    are ``item_ids``; any problem is one line naming the file."""
    try:
        labels = LabelsFile.model_validate(data)
    except ValidationError as e:
        err = e.errors()[0]
        more = f" ({len(e.errors())} problems)" if len(e.errors()) > 1 else ""
        raise JudgeAgentError(f"{path}: {_where(err['loc'])}: {err['msg']}{more}") from None
    if labels.version > VERSION:
        raise JudgeAgentError(f"{path}: labels file version {labels.version} is newer than this JudgeAgent reads ({VERSION})")
    if labels.audit_id != audit_id:
        raise JudgeAgentError(f"{path}: labels of audit {labels.audit_id}, not of this audit ({audit_id})")
    check_entries(path, labels.labels, item_ids)
    return labels


def check_entries(path: Path, entries: list[LabelEntry], item_ids: set[str]) -> None:
    """Every entry names an item of the audit once, with known labels that make sense together."""
    unknown = [e.item_id for e in entries if e.item_id not in item_ids]
    if unknown:
        more = f" and {len(unknown) - 1} more" if len(unknown) > 1 else ""
        raise JudgeAgentError(f"{path}: item {unknown[0]}{more} is not in this audit")
    seen: set[str] = set()
    for e in entries:
        if e.item_id in seen:
            raise JudgeAgentError(f"{path}: item {e.item_id} is labelled twice")
        seen.add(e.item_id)
        bad = [x for x in e.labels if x not in LABELS]
        if bad:
            raise JudgeAgentError(f"{path}: item {e.item_id}: unknown label {bad[0]!r} (known: {', '.join(LABELS)})")
        if not e.labels:
            raise JudgeAgentError(f"{path}: item {e.item_id} has no label")
        if VALID in e.labels and len(e.labels) > 1:
            raise JudgeAgentError(f"{path}: item {e.item_id} is labelled valid and defective at once")


def merge(old: LabelsFile | None, new: LabelsFile) -> LabelsFile:
    """``new`` over ``old``, item by item: the later label of each item wins (an entry with no
    time loses to one with a time), and items only ``old`` has are kept."""
    if old is None:
        return new
    by_item = {e.item_id: e for e in old.labels}
    for e in new.labels:
        kept = by_item.get(e.item_id)
        if kept is None or e.at >= kept.at:
            by_item[e.item_id] = e
    return new.model_copy(update={"labels": sorted(by_item.values(), key=lambda e: e.item_id)})
