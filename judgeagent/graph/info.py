"""Graph statistics for ``judgeagent graph-info``: size, connectivity, hubs, stop entities,
what the extractor dropped and why, which encoder served which role, and whether every
chunk fits the embedding model."""

from __future__ import annotations

from typing import Any

import numpy as np
from pydantic import BaseModel

from judgeagent.graph.cooccur import STOP_MIN_COUNT, WEAK_MIN_CHUNKS, WEAK_WINDOW
from judgeagent.graph.manifest import ROLES, RoleEncoder

QUANTILES = (0.0, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0)


class Edges(BaseModel):
    strong: int
    weak: int
    total: int


class TopEntity(BaseModel):
    entity: str
    degree: int
    chunks: int
    kind: str


class StopEntity(BaseModel):
    entity: str
    documents: int
    chunks: int


class ChunkTokens(BaseModel):
    """The largest chunk in the embedding model's word-pieces, against what the model reads."""

    largest: int  # as the model counts: with [CLS], [SEP]
    largest_chunk: str | None
    max_seq_length: int
    over_limit: int


class Vectors(BaseModel):
    """How many of a role's texts have a vector: all of them in a full graph; in a lazy one,
    those some run has embedded so far (kept in the graph folder's cache)."""

    embedded: int
    total: int


class GraphInfo(BaseModel):
    """What ``judgeagent graph-info`` shows; ``--json`` prints ``model_dump`` (fields in this order)."""

    path: str
    nodes: int
    edges: Edges
    chunks: int
    documents: int
    stop_entity_count: int
    isolated_nodes: int
    connected_components: int  # over non-stop entities
    largest_component_nodes: int
    largest_component_share: float
    degree_quantiles: dict[str, float]
    top_entities_by_degree: list[TopEntity]
    stop_entities: list[StopEntity]
    dropped_entities: dict[str, int]
    chunk_model_tokens: ChunkTokens
    indexes: dict[str, Any]
    embed: str  # "all": every vector stored by the build; "lazy": made on demand
    vectors: dict[str, Vectors]  # by role: chunks, entities (names of non-stop nodes)
    extractor: str | None
    encoders: dict[str, RoleEncoder]
    stop_entity_share: float | None
    stop_entity_min_count: int
    weak_edge_window: int
    weak_edge_min_chunks: int


def graph_info(graph, top: int = 15) -> GraphInfo:
    """The summary of a loaded ContextGraph."""
    from scipy import sparse
    from scipy.sparse.csgraph import connected_components

    t = graph.tables
    n = t.n_nodes
    degree = np.diff(t.adj_ptr)
    non_stop = ~t.stop
    live = int(non_stop.sum())
    n_comp, largest = 0, 0
    if live:
        adj = sparse.csr_matrix((np.ones(len(t.adj_idx), dtype=np.int8), t.adj_idx, t.adj_ptr), shape=(n, n))
        _, comp = connected_components(adj, directed=False)
        # Stop entities are isolated by construction; counting them would only add noise.
        sizes = np.bincount(comp[non_stop])
        sizes = sizes[sizes > 0]
        n_comp, largest = len(sizes), int(sizes.max())
    doc_count = np.diff(t.node_doc_ptr)
    chunk_count = np.diff(t.node_chunk_ptr)
    # Names are stored sorted, so a stable sort breaks degree ties alphabetically.
    by_degree = np.argsort(-degree, kind="stable")[:top]
    stops = np.flatnonzero(t.stop)
    stops = stops[np.argsort(-doc_count[stops], kind="stable")]
    chunk_tokens = chunk_model_tokens(graph)
    meta = graph.meta
    return GraphInfo.model_validate({
        "path": str(graph.path),
        "nodes": n,
        "edges": {**t.edge_counts(), "total": sum(t.edge_counts().values())},
        "chunks": len(graph.chunk_ids),
        "documents": len(graph.documents),
        "stop_entity_count": int(t.stop.sum()),
        "isolated_nodes": int(((degree == 0) & non_stop).sum()),
        "connected_components": int(n_comp),  # over non-stop entities
        "largest_component_nodes": largest,
        "largest_component_share": round(largest / live, 4) if live else 0.0,
        "degree_quantiles": {
            f"p{int(q * 100)}": float(np.quantile(degree, q)) if n else 0.0 for q in QUANTILES
        },
        "top_entities_by_degree": [
            {"entity": t.names[i], "degree": int(degree[i]), "chunks": int(chunk_count[i]), "kind": t.kinds[i]}
            for i in by_degree
        ],
        "stop_entities": [
            {"entity": t.names[i], "documents": int(doc_count[i]), "chunks": int(chunk_count[i])}
            for i in stops[:top]
        ],
        "dropped_entities": t.dropped,
        "chunk_model_tokens": chunk_tokens,
        "indexes": {k: v.model_dump(exclude_unset=True) for k, v in meta.indexes.items()},  # as the manifest has them
        "embed": meta.embed,
        "vectors": {role: {"embedded": have, "total": total} for role, (have, total) in graph.vector_counts().items()},
        "extractor": meta.extractor,
        "encoders": {role: graph.roles[role] for role in ROLES},
        "stop_entity_share": meta.settings.get("stop_entity_share"),
        "stop_entity_min_count": STOP_MIN_COUNT,
        "weak_edge_window": WEAK_WINDOW,
        "weak_edge_min_chunks": WEAK_MIN_CHUNKS,
    })


def chunk_model_tokens(graph) -> ChunkTokens:
    """The largest chunk in the embedding model's word-pieces, against what the model reads."""
    from judgeagent.data.chunking import SPECIAL_TOKENS, count_model_tokens_batch, max_chunk_tokens

    sizes = count_model_tokens_batch([graph.chunk_text(c) for c in graph.chunk_ids])
    largest = int(np.argmax(sizes)) if sizes else -1
    return ChunkTokens(
        largest=sizes[largest] + SPECIAL_TOKENS if sizes else 0,
        largest_chunk=graph.chunk_ids[largest] if sizes else None,
        max_seq_length=max_chunk_tokens() + SPECIAL_TOKENS,
        over_limit=int(sum(n > max_chunk_tokens() for n in sizes)),
    )

