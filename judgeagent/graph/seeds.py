"""Seed entities (docs/concepts/method.md §3 step 1): which graph node a batch's knowledge path starts at.

The start decides whether the path follows the seeds at all. Ranking nodes by how often
the batch's extracted names map to them made every exact match count once, so the tie-break
on the name picked the alphabetically first ("american", "band", "time"). Instead:

1. how many of the batch's questions mention the node: its name is in the question's text
   as whole words ("ostravine" in "Ostravine's trial results"), or one of the names
   extracted from the question maps to it with cosine >= :data:`MENTION_SIMILARITY`
   (it names the node, in another inflection, rather than resembles it); both this and the
   matching floor are decided on fp32 cosines on every CPU (:func:`decide_matches`);
2. then specificity: fewer chunks first, because a node in three chunks leads to the
   passages the question is about and a node in three hundred leads anywhere;
3. then the cosine of the node's name vector to the batch text.

Rule 1 alone would start at whatever word the batch's questions share, and what three
questions of one benchmark share is mostly its phrasing ("town", "diagnosis", "river"),
not its subject. So a *broad* node, found in more than :data:`BROAD_SHARE` of the chunks
(and in more than :data:`BROAD_MIN` of them, so that a small corpus has no broad nodes),
ranks after every specific one: it starts only when the batch names nothing specific.

Stop entities never start. Generic words never do either: the graph builder drops them
(:mod:`judgeagent.graph.generic`), so they are not nodes. :func:`rank_start_entities` is
the pure ranking; :func:`choose_start` gathers its inputs from a loaded graph.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from judgeagent.graph.fixed_precision import decision_embedder
from judgeagent.graph.normalize import clean

MENTION_SIMILARITY = 0.9
# How many nearest nodes the entity index proposes for a name, for the fp32 cosines to choose
# from: the index searches in the run's precision, where near-equal candidates can swap order.
PROPOSED = 5
BROAD_SHARE = 0.05
BROAD_MIN = 10


@dataclass(frozen=True)
class StartCandidate:
    entity: str
    questions: int  # batch questions that mention it
    chunks: int  # chunks it is found in
    similarity: float  # cosine of its name vector to the batch text
    stop: bool = False
    broad: bool = False  # in more than BROAD_SHARE of the corpus's chunks


def is_broad(chunks: int, n_chunks: int) -> bool:
    return chunks > max(BROAD_MIN, BROAD_SHARE * n_chunks)


@dataclass(frozen=True)
class SeedMatch:
    """One name extracted from question ``question`` (its index in the batch), mapped to a node."""

    question: int
    query: str
    entity: str
    similarity: float


def rank_start_entities(candidates: Sequence[StartCandidate]) -> list[StartCandidate]:
    """Candidates that may start a path, best first (see the module docstring)."""
    eligible = [c for c in candidates if not c.stop]
    return sorted(eligible, key=lambda c: (c.broad, -c.questions, c.chunks, -c.similarity, c.entity))


def question_counts(matches: Sequence[SeedMatch], question_texts: Sequence[str],
                    min_similarity: float = MENTION_SIMILARITY) -> dict[str, int]:
    """Matched node → number of distinct questions that mention it (see the module docstring)."""
    texts = [clean(t) for t in question_texts]
    seen: dict[str, set[int]] = {}
    for m in matches:
        seen.setdefault(m.entity, set())
        if m.similarity >= min_similarity:
            seen[m.entity].add(m.question)
    for entity, qs in seen.items():
        words = re.compile(r"(?<!\w)" + re.escape(entity) + r"(?!\w)")
        qs.update(i for i, t in enumerate(texts) if words.search(t))
    return {e: len(qs) for e, qs in seen.items()}


def match_questions(graph, question_names: Sequence[Sequence[str]], min_sim: float,
                    best: Mapping[str, tuple[str, float]] | None = None) -> list[SeedMatch]:
    """Every extracted name of every question mapped to its nearest node (one search for all).

    ``best`` (name → (node, cosine), for names reaching ``min_sim``) may come resolved
    already, for many batches at once; names it lacks match nothing.
    """
    names = sorted({n for names in question_names for n in names})
    if not names:
        return []
    if best is None:
        best = decide_matches(graph, names, min_sim)
    return [
        SeedMatch(i, n, *best[n])
        for i, names in enumerate(question_names)
        for n in dict.fromkeys(names)
        if n in best
    ]


def decide_matches(graph, names: Sequence[str], min_sim: float) -> dict[str, tuple[str, float]]:
    """Name → (nearest node, cosine) for each name whose match reaches ``min_sim``.

    The graph's entity index proposes the :data:`PROPOSED` nearest nodes; which of them is
    nearest, and whether the match reaches ``min_sim`` (and :data:`MENTION_SIMILARITY`), is
    decided on the fp32 cosines of the name and the nodes' names
    (:mod:`judgeagent.graph.fixed_precision`), so it does not depend on the CPU, nor on the
    encoder or precision the graph was built with. Over the 252 names extracted from the
    three demo benchmarks' seeds, bf16 vectors moved a cosine by up to 0.0019; the nearest
    ones lie 0.0014 from 0.5 and 0.0007 from 0.9 (bench/precision.py), and two nodes can lie
    closer than that to one name ("atorvastatin metformin insulin": 0.6301 to atorvastatin,
    0.6312 to metformin under AMX bf16), so the index's first proposal alone could differ
    between CPUs. A name that is a node's name after normalisation matches it at 1.0 with no
    model.
    """
    found = [m for m in graph.resolve_entities(list(names), k=PROPOSED) if m is not None]
    best = {m.query: (m.entity, m.similarity) for m in found if m.exact}
    free = [m for m in found if not m.exact]
    if free:
        texts = list(dict.fromkeys([m.query for m in free] + [e for m in free for e in m.nearest]))
        vecs = np.asarray(_decision_vectors(graph, texts))
        row = {t: i for i, t in enumerate(texts)}
        for m in free:
            sims = [(float(vecs[row[m.query]] @ vecs[row[e]]), e) for e in m.nearest]
            sim, entity = max(sims, key=lambda se: (se[0], -m.nearest.index(se[1])))
            if sim >= min_sim:
                best[m.query] = (entity, sim)
    return best


def _decision_vectors(graph, texts: list[str]) -> np.ndarray:
    """fp32 vectors of ``texts``, kept in the graph folder's cache when the graph has one
    (a second run then embeds none of them again)."""
    fp32 = decision_embedder(graph.embedder)
    store = getattr(graph, "vector_store", None)
    return store("entities", fp32).encode(texts) if store is not None else fp32.encode(texts)


def candidates_for(graph, entities: Sequence[str], counts: dict[str, int], query: np.ndarray) -> list[StartCandidate]:
    """The ranking's inputs for ``entities``, read from the graph (vectors from the entity index)."""
    out = []
    n_chunks = len(graph.chunk_ids)
    unique = list(dict.fromkeys(entities))
    vectors = graph.entity_vectors(unique) if unique else np.zeros((0, len(query)), dtype=np.float32)
    for e, vec in zip(unique, vectors):
        node = graph.node(e)
        chunks = len(node["chunk_ids"])
        sim = float(np.dot(vec, query))
        out.append(StartCandidate(e, counts.get(e, 0), chunks, sim, node["stop"], is_broad(chunks, n_chunks)))
    return out


def choose_start(graph, question_texts: Sequence[str], question_names: Sequence[Sequence[str]],
                 query: np.ndarray, min_sim: float,
                 best: Mapping[str, tuple[str, float]] | None = None,
                 chunk_query: np.ndarray | None = None, text: str | None = None) -> tuple[list[SeedMatch], str | None]:
    """The batch's matches and its start entity.

    ``question_names`` are the names extracted from each of ``question_texts``; ``query``
    is the batch text's vector in the names' encoder, ``chunk_query`` in the chunks' (the
    same vector when one encoder serves both); names matching no node above ``min_sim``
    are left out (``best``: the names resolved already, see :func:`match_questions`).

    When no question names a usable node, the entities of the chunk nearest the batch text
    (``text``; by default the questions' texts joined) are ranked instead (they all count
    zero questions).
    """
    matches = match_questions(graph, question_names, min_sim, best)
    counts = question_counts(matches, question_texts)
    ranked = rank_start_entities(candidates_for(graph, [m.entity for m in matches], counts, query))
    if not ranked:
        text = " ".join(question_texts) if text is None else text
        nearest = graph.nearest_chunk_indices(query if chunk_query is None else chunk_query, 1, text=text)
        ents = graph.chunk_entities(graph.chunk_ids[nearest[0]]) if nearest else []
        ranked = rank_start_entities(candidates_for(graph, ents, {}, query))
    return matches, (ranked[0].entity if ranked else None)
