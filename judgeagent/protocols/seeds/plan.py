"""Which passages each seed is written from, planned before anything is asked.

A slot is one seed to write: single-passage (one chunk and an entity of it) or multi-hop (a
knowledge path of ``hops`` chunks, walked by the graph's sampler from an entity of the
slot's document). The plan is made in full at every start, from the graph and the seed
alone, so a resumed run plans the same slots.

Spread: the slots go round the documents, least used first, and each picks the least used
chunk of its document and the least used live entity of that chunk. No document and no
entity may be on more than ``cap`` slots (``max_share`` of ``n``): a multi-hop path counts
once for each document and each entity it holds. Because the cap holds over every slot
planned, it holds over whatever subset the filters keep.

A multi-hop path must have ``hops`` different chunks joined by the graph (no step that
jumped to the nearest chunk because the walk dead-ended: that is no link); among a few walks
one that crosses documents is preferred, where the graph links them.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from judgeagent.graph.sampler import VIA_JUMP, KnowledgePath, PathStep

if TYPE_CHECKING:
    from judgeagent.graph.context_graph import ContextGraph

SINGLE, MULTI_HOP = "single", "multi_hop"
WALKS = 3  # walks tried per multi-hop slot (a crossing one is preferred)
STARTS = 6  # start entities tried per slot before its document is passed over


@dataclass(frozen=True)
class Slot:
    index: int
    kind: str  # SINGLE | MULTI_HOP
    path: KnowledgePath
    docs: tuple[str, ...]  # the documents of its chunks, in path order

    @property
    def id(self) -> str:
        return f"s{self.index:04d}"

    @property
    def crosses_documents(self) -> bool:
        return len(self.docs) > 1


def kinds(n_slots: int, multi_hop_share: float) -> list[str]:
    """Slot kinds interleaved so that every prefix holds about the share of multi-hop ones
    (the writing stops once enough seeds are kept: the share holds over the slots used)."""
    return [MULTI_HOP if math.floor((i + 1) * multi_hop_share) > math.floor(i * multi_hop_share) else SINGLE for i in range(n_slots)]


def share_cap(n: int, max_share: float) -> int:
    """How many seeds one document or entity may have: ``max_share`` of ``n``, at least 1."""
    return max(1, math.floor(max_share * n + 1e-9))


@dataclass
class Planner:
    graph: ContextGraph
    cap: int
    hops: int
    seed: int

    def __post_init__(self) -> None:
        g = self.graph
        self.by_doc: dict[str, list[str]] = defaultdict(list)
        for cid in g.chunk_ids:
            self.by_doc[g.chunk_doc(cid)].append(cid)
        self.docs = [d["id"] for d in g.documents if self.by_doc.get(d["id"])]
        self.doc_pos = {d: i for i, d in enumerate(self.docs)}
        self.doc_use: Counter[str] = Counter()
        self.chunk_use: Counter[str] = Counter()
        self.entity_use: Counter[str] = Counter()
        self.rng = np.random.default_rng(self.seed)

    def live(self, chunk_id: str) -> list[str]:
        """The chunk's entities that may start a path: not stop entities, under the cap."""
        g = self.graph
        return [e for e in g.chunk_entities(chunk_id) if not g.node(e)["stop"] and self.entity_use[e] < self.cap]

    def fits(self, path: KnowledgePath) -> bool:
        docs = {self.graph.chunk_doc(c) for c in path.chunk_ids}
        return all(self.doc_use[d] < self.cap for d in docs) and all(self.entity_use[e] < self.cap for e in set(path.entities))

    def take(self, index: int, kind: str, path: KnowledgePath) -> Slot:
        docs = tuple(dict.fromkeys(self.graph.chunk_doc(c) for c in path.chunk_ids))
        self.doc_use.update(docs)
        self.entity_use.update(set(path.entities))
        self.chunk_use.update(path.chunk_ids)
        return Slot(index, kind, path, docs)

    def starts(self, doc: str) -> list[tuple[str, str]]:
        """(chunk, entity) starts of ``doc``: least used chunks first, then least used, most
        specific entities; ties broken by the seeded generator."""
        chunks = sorted(self.by_doc[doc], key=lambda c: (self.chunk_use[c], self.rng.random()))
        out: list[tuple[str, str]] = []
        for cid in chunks:
            ents = sorted(self.live(cid), key=lambda e: (self.entity_use[e], len(self.graph.node(e)["chunk_ids"]), self.rng.random()))
            out += [(cid, e) for e in ents[:2]]
            if len(out) >= STARTS:
                break
        return out

    def path(self, index: int, kind: str, chunk: str, entity: str) -> KnowledgePath | None:
        g = self.graph
        if kind == SINGLE:
            path = KnowledgePath(entity, [PathStep(entity, chunk, g.chunk_text(chunk))])
            return path if self.fits(path) else None
        walks: list[KnowledgePath] = []
        for w in range(WALKS):
            p = g.sample_path(entity, self.hops, seed=self.seed * 1_000_003 + index * 31 + w)
            if len(set(p.chunk_ids)) == self.hops and not any(s.via == VIA_JUMP for s in p.steps) and self.fits(p):
                walks.append(p)
                if len({g.chunk_doc(c) for c in p.chunk_ids}) > 1:
                    return p
        return walks[0] if walks else None

    def slot(self, index: int, kind: str) -> Slot | None:
        """The slot's passages from the least used document that can still give one."""
        for doc in sorted((d for d in self.docs if self.doc_use[d] < self.cap), key=lambda d: (self.doc_use[d], self.doc_pos[d])):
            for chunk, entity in self.starts(doc):
                path = self.path(index, kind, chunk, entity)
                if path is not None:
                    return self.take(index, kind, path)
        return None


def plan_slots(graph: ContextGraph, n: int, n_slots: int, *, multi_hop_share: float, hops: int, max_share: float, seed: int) -> tuple[list[Slot], list[str]]:
    """Up to ``n_slots`` slots (ids s0000, s0001, ...) and notes on why there are fewer."""
    planner = Planner(graph, share_cap(n, max_share), hops, seed)
    slots: list[Slot] = []
    missing: Counter[str] = Counter()
    for kind in kinds(n_slots, multi_hop_share):
        slot = planner.slot(len(slots), kind)
        if slot is None:
            missing[kind] += 1
            continue
        slots.append(slot)
    notes: list[str] = []
    if missing:
        what = ", ".join(f"{k} {kind.replace('_', '-')}" for kind, k in sorted(missing.items()))
        notes.append(f"{what} slot(s) of {n_slots} found no passages within --max-share {max_share:g} "
                     f"(at most {planner.cap} seed(s) per document or entity, {len(planner.docs)} document(s))")
    return slots, notes
