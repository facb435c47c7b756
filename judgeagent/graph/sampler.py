"""Knowledge paths (method.md §3 step 2): a chain of (entity, chunk) pairs through the graph.

At each hop the current entity's chunks are ranked by similarity to the query (the seed
batch's text), one of the top few is drawn with a seeded generator, and the next entity
is the chunk's most related unvisited one. Everything random goes through one
``numpy.random.Generator`` seeded by the caller, so a seed fixes the path.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from judgeagent.graph.cooccur import STRONG, WEAK, row


@dataclass(frozen=True)
class PathStep:
    entity: str
    chunk_id: str
    text: str


@dataclass
class KnowledgePath:
    start: str
    steps: list[PathStep] = field(default_factory=list)

    @property
    def entities(self) -> list[str]:
        return [s.entity for s in self.steps]

    @property
    def chunk_ids(self) -> list[str]:
        return [s.chunk_id for s in self.steps]

    @property
    def texts(self) -> list[str]:
        return [s.text for s in self.steps]

    def __len__(self) -> int:
        return len(self.steps)

    def window(self, offset: int, hops: int) -> KnowledgePath:
        """``hops`` consecutive steps from ``offset`` (round r of an interview uses window(r, hops)).

        A path shorter than ``offset + hops`` yields its last ``hops`` steps instead, so a
        round never gets fewer steps than the corpus allows.
        """
        hops = max(0, min(hops, len(self.steps)))
        offset = max(0, min(offset, len(self.steps) - hops))
        sub = self.steps[offset : offset + hops]
        return KnowledgePath(start=sub[0].entity if sub else self.start, steps=list(sub))

    def to_dict(self) -> dict:
        return {"start": self.start, "steps": [vars(s).copy() for s in self.steps]}

    @classmethod
    def from_dict(cls, d: dict) -> KnowledgePath:
        return cls(start=d["start"], steps=[PathStep(**s) for s in d.get("steps", [])])


def sample_path(graph, start: int, hops: int, rng: np.random.Generator, query: np.ndarray, top_k: int = 3) -> KnowledgePath:
    """Walk ``hops`` steps from node index ``start`` of a loaded ContextGraph.

    ``query`` is the normalised query vector chunks are ranked against. When a walk
    dead-ends (no unused chunk, no unvisited entity) it continues from the corpus chunk
    most similar to the query that is not on the path yet.
    """
    t = graph.tables
    visited = {start}
    used: list[int] = []
    steps: list[PathStep] = []
    cur: int | None = start
    prev = start
    for _ in range(hops):
        chunk = None
        if cur is not None:
            cands = row(t.node_chunk_ptr, t.node_chunk_idx, cur)
            if used:
                cands = cands[~np.isin(cands, used)]
            if len(cands):
                chunk = _pick_chunk(graph, cands, query, top_k, rng)
        if chunk is None:
            chunk = _nearest_unused_chunk(graph, query, used)
            if chunk is None:
                break  # every chunk of the corpus is on the path already
            cur = _next_entity(t, prev, chunk, visited, rng)
            if cur is None:
                cur = prev
            visited.add(cur)
        steps.append(PathStep(t.names[cur], graph.chunk_ids[chunk], graph.chunk_text(graph.chunk_ids[chunk])))
        used.append(chunk)
        prev = cur
        cur = _next_entity(t, cur, chunk, visited, rng)
        if cur is not None:
            visited.add(cur)
    return KnowledgePath(start=t.names[start], steps=steps)


def random_path(graph, hops: int, rng: np.random.Generator) -> KnowledgePath:
    """Chunks drawn uniformly from the corpus, not along edges (the --no-graph ablation)."""
    t = graph.tables
    n = len(graph.chunk_ids)
    picks = rng.choice(n, size=min(hops, n), replace=False) if n else []
    steps = []
    for c in picks:
        ents = row(t.chunk_ent_ptr, t.chunk_ent_idx, int(c))
        pool = ents[~t.stop[ents]] if len(ents) else ents
        pool = pool if len(pool) else ents
        name = t.names[int(rng.choice(pool))] if len(pool) else ""
        cid = graph.chunk_ids[int(c)]
        steps.append(PathStep(name, cid, graph.chunk_text(cid)))
    return KnowledgePath(start=steps[0].entity if steps else "", steps=steps)


def _pick_chunk(graph, cands: np.ndarray, query: np.ndarray, top_k: int, rng) -> int:
    # cands is ascending (CSR rows are), which the stable sort below relies on.
    sims = np.asarray(graph.chunk_vectors[cands] @ query)
    # Stable sort: equal similarities keep chunk order, so only rng decides.
    top = cands[np.argsort(-sims, kind="stable")[: max(1, top_k)]]
    return int(top[rng.integers(len(top))])


def _nearest_unused_chunk(graph, query: np.ndarray, used: list[int]) -> int | None:
    n = len(graph.chunk_ids)
    if len(used) >= n:
        return None
    used_set = set(used)
    for c in graph.nearest_chunk_indices(query, len(used) + 1):
        if c not in used_set:
            return int(c)
    # An approximate (HNSW) index may miss some; fall back to the stored vectors.
    sims = np.asarray(graph.chunk_vectors @ query)
    sims[list(used_set)] = -np.inf
    return int(np.argmax(sims))


def _next_entity(t, cur: int, chunk: int, visited: set[int], rng) -> int | None:
    """The chunk's unvisited entity most related to ``cur``; stop entities only as a last resort."""
    ents = row(t.chunk_ent_ptr, t.chunk_ent_idx, chunk)
    ents = np.array(sorted(int(e) for e in ents if int(e) not in visited), dtype=np.int64)
    if not len(ents):
        return None
    live = ents[~t.stop[ents]]
    pool = live if len(live) else ents
    score = _relatedness(t, cur, pool)
    best = pool[score == score.max()]
    return int(best[rng.integers(len(best))])


def _relatedness(t, cur: int, pool: np.ndarray) -> np.ndarray:
    """Strong-edge weight first, weak-edge weight as the tie-breaker, 0 when unlinked."""
    nbrs = row(t.adj_ptr, t.adj_idx, cur)
    out = np.zeros(len(pool), dtype=np.float64)
    if not len(nbrs):
        return out
    lo = t.adj_ptr[cur]
    at = np.searchsorted(nbrs, pool)
    hit = (at < len(nbrs)) & (nbrs[np.minimum(at, len(nbrs) - 1)] == pool)
    w = t.adj_weight[lo + at[hit]].astype(np.float64)
    k = t.adj_kind[lo + at[hit]]
    # Any shared chunk outranks any number of shared documents.
    out[hit] = np.where(k == STRONG, 1e6 + w, np.where(k == WEAK, w, 0.0))
    return out
