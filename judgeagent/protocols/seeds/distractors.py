"""Wrong options from the graph: entities of the same kind as the key, near it.

A writer's own distractors tend to be generic ("Copper, Aluminium, Silver"); entities the
graph holds beside the key are of the same kind (a drug for a drug, a person for a person)
and from the same corner of the documents, so they are plausible to someone who half knows
the answer. Near means a graph neighbour of the key's node (sharing a chunk, then a
document), or a neighbour's neighbour, ranked by the cosine of the names' vectors.

A candidate is refused when it could be a second right answer or gives itself away: the
key's own node, a name that contains the key or is contained in it, a name whose vector is
almost the key's (an alias), or a name the question or the cited sentences mention. When
the key is no entity of the graph, or the graph has too few candidates, the writer's own
distractors fill the remaining places; each option records where it came from.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from judgeagent.graph.normalize import normalize_query
from judgeagent.stages.answers import normalize_phrase

if TYPE_CHECKING:
    from judgeagent.graph.context_graph import ContextGraph

KEY_MATCH = 0.8  # cosine at which the key's text names a node it does not spell exactly
ALIAS_COSINE = 0.9  # a candidate this close to the key is another name for it: two right options
NEEDED = 3
POOL = 200  # candidates looked at: a hub of a large graph has thousands of neighbours
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


def key_node(graph: ContextGraph, key: str) -> str | None:
    """The graph node the key names, or None (no node close enough)."""
    if not key.strip() or not graph.entity_names:
        return None
    match = graph.resolve_entities([key])[0]
    if match is None or (not match.exact and match.similarity < KEY_MATCH):
        return None
    return match.entity


def graph_candidates(graph: ContextGraph, node: str) -> list[tuple[str, str]]:
    """(node, shown name) of live nodes of the key's kind among its neighbours, then theirs,
    nearest to the key first (at most :data:`POOL` looked at)."""
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
    sims = vecs[1:] @ vecs[0]
    order = np.argsort(-sims, kind="stable")
    return [pool[i] for i in order if sims[i] < ALIAS_COSINE]


def choose(graph: ContextGraph, key: str, question: str, cited: Sequence[str], writer: Sequence[str]) -> list[Distractor]:
    """Three wrong options: the graph's first, then the writer's."""
    taken = [key]
    mentioned = _words(" ".join([question, *cited]))
    out: list[Distractor] = []

    def fits(text: str) -> bool:
        return bool(text.strip()) and not any(_overlaps(text, t) for t in taken) and _words(text) not in mentioned

    node = key_node(graph, key)
    if node is not None:
        for _, shown in graph_candidates(graph, node):
            if len(out) < NEEDED and fits(shown) and normalize_query(shown) != normalize_query(key):
                out.append(Distractor(shown, GRAPH))
                taken.append(shown)
    for text in writer:
        if len(out) < NEEDED and fits(text):
            out.append(Distractor(text.strip(), WRITER))
            taken.append(text)
    return out
