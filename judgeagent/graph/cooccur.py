"""The entity graph as plain arrays: who appears where, and who co-occurs with whom.

Co-occurrence is counted with sparse matrix products (entity × chunk incidence times its
transpose), which stays fast and small where building millions of edges one by one in
networkx would not. :func:`to_networkx` gives the same graph as a networkx object for
anyone who wants one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

STRONG, WEAK = 1, 2  # edge kinds as stored
KIND_NAMES = {STRONG: "strong", WEAK: "weak"}


@dataclass
class GraphTables:
    """Everything about the graph except texts and vectors; CSR arrays throughout.

    Row ``i`` of a CSR pair ``(ptr, idx)`` is ``idx[ptr[i]:ptr[i+1]]``.
    """

    names: list[str]  # sorted; a node's index is its position here
    labels: list[str]  # display label (most frequent surface form)
    kinds: list[str]  # NER label or CONCEPT
    stop: np.ndarray  # bool per node: in too many documents, so it has no edges
    node_chunk_ptr: np.ndarray
    node_chunk_idx: np.ndarray  # chunk indices, ascending
    node_doc_ptr: np.ndarray
    node_doc_idx: np.ndarray  # document indices, ascending
    chunk_ent_ptr: np.ndarray
    chunk_ent_idx: np.ndarray  # node indices, in order of first mention in the chunk
    adj_ptr: np.ndarray
    adj_idx: np.ndarray  # neighbour node indices, ascending
    adj_weight: np.ndarray  # shared chunks (strong) or shared documents (weak)
    adj_kind: np.ndarray  # STRONG / WEAK

    @property
    def n_nodes(self) -> int:
        return len(self.names)

    def edge_counts(self) -> dict[str, int]:
        """Undirected edge counts by kind (the CSR holds each edge twice)."""
        return {
            "strong": int((self.adj_kind == STRONG).sum()) // 2,
            "weak": int((self.adj_kind == WEAK).sum()) // 2,
        }

    def arrays(self) -> dict[str, np.ndarray]:
        return {k: v for k, v in vars(self).items() if isinstance(v, np.ndarray)}


def row(ptr: np.ndarray, idx: np.ndarray, i: int) -> np.ndarray:
    return idx[ptr[i] : ptr[i + 1]]


def build_tables(
    chunk_entities: Sequence[Sequence[str]],
    chunk_doc: Sequence[int],
    n_docs: int,
    stop_share: float,
    labels: Mapping[str, tuple[str, str]] | None = None,
) -> GraphTables:
    """Build the graph from each chunk's entity names and each chunk's document index.

    - strong edge: the two entities share at least one chunk; weight = shared chunks;
    - weak edge: they share a document but no chunk; weight = shared documents;
    - stop entity: found in more than ``stop_share`` of the documents (and in more than
      one, so a tiny corpus does not turn every entity into a stop entity); no edges.
    """
    from scipy import sparse

    labels = labels or {}
    names = sorted({n for ents in chunk_entities for n in ents})
    pos = {n: i for i, n in enumerate(names)}
    n_nodes, n_chunks = len(names), len(chunk_entities)

    chunk_ent_ptr = np.zeros(n_chunks + 1, dtype=np.int64)
    chunk_ent_ptr[1:] = np.cumsum([len(e) for e in chunk_entities])
    chunk_ent_idx = np.fromiter((pos[n] for ents in chunk_entities for n in ents), dtype=np.int32,
                                count=int(chunk_ent_ptr[-1]))
    chunk_of_pair = np.repeat(np.arange(n_chunks, dtype=np.int32), np.diff(chunk_ent_ptr))
    chunk_doc = np.asarray(chunk_doc, dtype=np.int32)

    # Entity × chunk incidence; CSR over entities gives each node's chunk list directly.
    inc = sparse.csr_matrix(
        (np.ones(len(chunk_ent_idx), dtype=np.int32), (chunk_ent_idx, chunk_of_pair)),
        shape=(n_nodes, n_chunks),
    )
    inc.sum_duplicates()
    inc.sort_indices()
    ent_doc = sparse.csr_matrix(
        (np.ones(len(chunk_ent_idx), dtype=np.int32), (chunk_ent_idx, chunk_doc[chunk_of_pair])),
        shape=(n_nodes, max(n_docs, 1)),
    )
    ent_doc.sum_duplicates()
    ent_doc.sort_indices()
    ent_doc.data[:] = 1  # presence, not mention counts

    doc_count = np.diff(ent_doc.indptr)
    stop = (doc_count > stop_share * n_docs) & (doc_count > 1)
    keep = (~stop).astype(np.int32)[:, None]  # zero the rows of stop entities

    inc_kept = sparse.csr_matrix(inc.multiply(keep))
    strong = (inc_kept @ inc_kept.T).tocsr()
    docs_kept = sparse.csr_matrix(ent_doc.multiply(keep))
    shared_docs = (docs_kept @ docs_kept.T).tocsr()
    strong.setdiag(0)
    shared_docs.setdiag(0)
    strong.eliminate_zeros()
    shared_docs.eliminate_zeros()
    # Weak = shares a document but never a chunk; every strong pair also shares a document.
    weak = shared_docs - shared_docs.multiply(strong > 0)
    weak.eliminate_zeros()

    strong_coo, weak_coo = strong.tocoo(), weak.tocoo()
    rows = np.concatenate([strong_coo.row, weak_coo.row])
    cols = np.concatenate([strong_coo.col, weak_coo.col])
    weights = np.concatenate([strong_coo.data, weak_coo.data]).astype(np.int32)
    kinds = np.concatenate([np.full(strong_coo.nnz, STRONG, np.uint8), np.full(weak_coo.nnz, WEAK, np.uint8)])
    order = np.lexsort((cols, rows))
    rows, cols, weights, kinds = rows[order], cols[order], weights[order], kinds[order]
    adj_ptr = np.zeros(n_nodes + 1, dtype=np.int64)
    adj_ptr[1:] = np.cumsum(np.bincount(rows, minlength=n_nodes))

    display = [labels.get(n, (n, "CONCEPT")) for n in names]
    return GraphTables(
        names=names,
        labels=[d[0] for d in display],
        kinds=[d[1] for d in display],
        stop=stop,
        node_chunk_ptr=inc.indptr.astype(np.int64),
        node_chunk_idx=inc.indices.astype(np.int32),
        node_doc_ptr=ent_doc.indptr.astype(np.int64),
        node_doc_idx=ent_doc.indices.astype(np.int32),
        chunk_ent_ptr=chunk_ent_ptr,
        chunk_ent_idx=chunk_ent_idx,
        adj_ptr=adj_ptr,
        adj_idx=cols.astype(np.int32),
        adj_weight=weights,
        adj_kind=kinds,
    )


def to_networkx(tables: GraphTables, chunk_ids: Sequence[str], doc_ids: Sequence[str]):
    """The graph as ``networkx.Graph``: nodes carry chunk/doc IDs, edges weight and kind."""
    import networkx as nx

    g = nx.Graph()
    for i, name in enumerate(tables.names):
        g.add_node(
            name,
            label=tables.labels[i],
            kind=tables.kinds[i],
            stop=bool(tables.stop[i]),
            chunk_ids=[chunk_ids[c] for c in row(tables.node_chunk_ptr, tables.node_chunk_idx, i)],
            doc_ids=[doc_ids[d] for d in row(tables.node_doc_ptr, tables.node_doc_idx, i)],
        )
    for i in range(tables.n_nodes):
        lo, hi = tables.adj_ptr[i], tables.adj_ptr[i + 1]
        for j, w, k in zip(tables.adj_idx[lo:hi], tables.adj_weight[lo:hi], tables.adj_kind[lo:hi]):
            if j > i:
                g.add_edge(tables.names[i], tables.names[j], weight=int(w), kind=KIND_NAMES[int(k)])
    return g
