"""An item as the audit shows it: the question, its key, and where it came from.

One line of ``items.jsonl`` per sampled or suspect item. Whatever the source did not record
is named in ``missing`` ("missing: ...") instead of failing, so an older run can still be
audited for what it has.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

LABELS = ("valid", "wrong key", "ambiguous", "not answerable from the sources", "not self-contained", "gives the answer away")
VALID = LABELS[0]
DEFECTS = LABELS[1:]

PASSED, REJECTED, UNGATED = "passed", "rejected", "asked without a gate"


@dataclass
class PathStep:
    """One step of the knowledge path the item was written from, and how its entity follows
    the previous step's (``judgeagent.graph.PathStep``'s fields; None on the first step of a
    window, and on every step of a run made before the sampler recorded them)."""

    entity: str
    chunk_id: str
    via: str | None = None  # "chunk": an entity of the previous step's chunk; "jump": the walk dead-ended; "random": --no-graph
    via_chunk: str | None = None  # the previous step's chunk, which holds both entities
    edge: str | None = None  # the graph's edge between the two: "strong" | "weak" | None (none)
    edge_weight: int | None = None  # strong: the chunks they share


@dataclass
class SourceChunk:
    chunk_id: str
    text: str
    cited: list[str] = field(default_factory=list)  # a seed's citations from this chunk: the page highlights them


@dataclass
class AuditItem:
    item_id: str  # content-addressed, as the bank names items (bank.fill.item_id)
    ref: str  # where a person finds it in the source: "b0003 round 2", "local/b0001 round 1"
    qtype: str  # kmc | kqa | rmc
    question: str
    options: dict[str, str] | None
    key: str  # the option letter, or the reference phrase
    level: str | None  # the level it was written at
    counted_as: str | None  # the level it is reported at (a single-hop Hard counts as Medium)
    status: str  # passed | rejected | asked without a gate
    batch: str  # the batch (cluster) that wrote it
    path: list[PathStep] = field(default_factory=list)
    chunks: list[SourceChunk] = field(default_factory=list)
    gate: dict | None = None  # the quality gate's verdict (GateVerdict.to_dict)
    written_by: str | None = None  # the model that wrote it
    source: str = ""  # the run folder (or bank) it comes from
    rationale: str | None = None  # the writer's own reason for the key, when it gave one
    missing: list[str] = field(default_factory=list)
    recovered_from: str | None = None  # "journal": a rejected item rebuilt from the run's journal

    @property
    def stratum_level(self) -> str:
        return self.counted_as or self.level or "unknown"

    @property
    def key_text(self) -> str:
        return (self.options or {}).get(self.key, self.key)

    @property
    def rejected(self) -> bool:
        return self.status == REJECTED

    def to_dict(self) -> dict:
        return asdict(self) | {"key_text": self.key_text}

    @classmethod
    def from_dict(cls, d: dict) -> AuditItem:
        body = {k: v for k, v in d.items() if k in cls.__dataclass_fields__}
        body["path"] = [PathStep(**s) for s in d.get("path") or []]
        body["chunks"] = [SourceChunk(**c) for c in d.get("chunks") or []]
        return cls(**body)
