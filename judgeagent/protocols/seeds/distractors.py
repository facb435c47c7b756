"""Wrong options from the graph: entities of the same kind as the key, near it.

A writer's own distractors tend to be generic ("Copper, Aluminium, Silver"); entities the
graph holds beside the key are of the same kind (a drug for a drug, a person for a person)
and from the same corner of the documents, so they are plausible to someone who half knows
the answer. Near means a graph neighbour of the key's node (sharing a chunk, then a
document), or a neighbour's neighbour, ranked by the cosine of the names' vectors.

A candidate is refused when it could be a second right answer or gives itself away: the
key's own node, a name that contains the key or is contained in it, a name whose vector is
almost the key's (an alias: decided on fp32 vectors, as every threshold over MiniLM cosines is,
:mod:`judgeagent.graph.fixed_precision`), or a name the question or the cited sentences mention. When
the key is no entity of the graph, or the graph has too few candidates, the writer's own
distractors fill the remaining places; each option records where it came from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from judgeagent.graph.embed_queue import embed
from judgeagent.graph.normalize import normalize_query
from judgeagent.stages.answers import normalize_phrase

if TYPE_CHECKING:
    from judgeagent.graph.context_graph import ContextGraph

KEY_MATCH = 0.8  # cosine at which the key's text names a node it does not spell exactly
ALIAS_COSINE = 0.9  # a candidate this close to the key is another name for it: two right options
NEEDED = 3
POOL = 200  # candidates looked at: a hub of a large graph has thousands of neighbours
LOOKED_AT = 12  # the nearest candidates that fit, embedded in fp32 for the alias check
GRAPH, WRITER = "graph", "writer"


@dataclass(frozen=True)
class Distractor:
    text: str
    source: str  # GRAPH | WRITER


def _words(text: str) -> str:
    """The words of ``text`` between spaces (case, punctuation and articles dropped), so that
    a whole-word containment is a substring test."""
    return f" {normalize_phrase(text)} "


def _overlaps(a: str, b: str) -> bool:
    """One name is the other, or holds it as whole words."""
    wa, wb = _words(a), _words(b)
    return wa in wb or wb in wa


async def _cosines(embedder: Any, key: str, texts: list[str]) -> np.ndarray:
    """The cosine of ``key`` to each text, on the decision embedder's fp32 vectors."""
    vecs = await embed(embedder, [key, *texts])
    return np.asarray(vecs[1:] @ vecs[0], dtype=np.float64)


async def key_node(graph: ContextGraph, embedder: Any, key: str) -> str | None:
    """The graph node the key names, or None (no node close enough: decided in fp32)."""
    if not key.strip() or not graph.entity_names:
        return None
    match = graph.resolve_entities([key])[0]
    if match is None:
        return None
    if match.exact:
        return match.entity
    return match.entity if float((await _cosines(embedder, key, [match.entity]))[0]) >= KEY_MATCH else None


def graph_candidates(graph: ContextGraph, node: str) -> list[tuple[str, str]]:
    """(node, shown name) of live nodes of the key's kind among its neighbours, then theirs,
    nearest to the key first by the graph's own vectors (which order, and decide nothing),
    at most :data:`POOL` looked at."""
    kind = graph.node(node)["kind"]
    seen = {node}
    ring = [n for n, _, _ in graph.neighbors(node) if n not in seen][:POOL]
    seen.update(ring)
    for n in list(ring):
        for m, _, _ in graph.neighbors(n):
            if len(ring) >= POOL:
                break
            if m not in seen:
                seen.add(m)
                ring.append(m)
    pool: list[tuple[str, str]] = []
    for name in ring:
        info = graph.node(name)
        if info["kind"] == kind and not info["stop"]:
            pool.append((name, str(info["label"])))
    if not pool:
        return []
    vecs = graph.entity_vectors([node, *(n for n, _ in pool)])
    order = np.argsort(-(vecs[1:] @ vecs[0]), kind="stable")
    return [pool[i] for i in order]


async def choose(graph: ContextGraph, embedder: Any, key: str, question: str, cited: Sequence[str], writer: Sequence[str]) -> list[Distractor]:
    """Three wrong options: the graph's first, then the writer's. ``embedder`` is the
    decision embedder (fp32): whether a candidate is another name for the key is a threshold."""
    taken = [key]
    mentioned = _words(" ".join([question, *cited]))
    out: list[Distractor] = []

    def fits(text: str) -> bool:
        return bool(text.strip()) and not any(_overlaps(text, t) for t in taken) and _words(text) not in mentioned

    node = await key_node(graph, embedder, key)
    if node is not None:
        shown = [label for _, label in graph_candidates(graph, node) if fits(label) and normalize_query(label) != normalize_query(key)][:LOOKED_AT]
        sims = await _cosines(embedder, key, shown) if shown else np.zeros(0)
        for label, sim in zip(shown, sims):
            if len(out) < NEEDED and sim < ALIAS_COSINE and fits(label):
                out.append(Distractor(label, GRAPH))
                taken.append(label)
    for text in writer:
        if len(out) < NEEDED and fits(text):
            out.append(Distractor(text.strip(), WRITER))
            taken.append(text)
    return out
