"""The entity graph as plain arrays: who appears where, and who co-occurs with whom.

Co-occurrence is counted with sparse matrix products (entity × chunk incidence times its
transpose), which stays fast and small where building millions of edges one by one in
networkx would not. :func:`to_networkx` gives the same graph as a networkx object for
anyone who wants one. The builder feeds :class:`TableBuilder` one chunk's extraction at a
time, so what it holds grows with distinct names and mentions (int32 ids), never with a
list of parsed documents; :func:`build_tables` is the same for a list in hand.

Two rules keep the graph useful at every corpus size:

- **Weak edges are local.** Two entities in *neighbouring* chunks of one document (at most
  :data:`WEAK_WINDOW` chunks apart) get a weak edge; two entities that merely share a
  document do not. A corpus that is one long article would otherwise be a clique, and
  edges would grow with the square of a document's entities instead of linearly with chunks.
  Both must be in at least :data:`WEAK_MIN_CHUNKS` chunks: an entity seen once has its
  strong edges to everything in its chunk, and a weak edge from it to the next chunk's
  entities says only that two paragraphs are adjacent. On real technical prose (1M words
  of kernel and Python documentation) four entities in five are seen once; their weak
  edges were 58% of all edges (170 of 295 per chunk), and the knowledge-path sampler,
  which walks entity → chunk → entity, never reads edges.
- **Stop entities need evidence.** An entity is a stop entity when it is in more than
  ``stop_share`` of the documents *and* in at least :data:`STOP_MIN_COUNT` of them, or the
  same of the chunks. A share of eight documents means nothing (one in two documents would
  make a fifth of all entities stop entities); a share of one document, even less.
"""

from __future__ import annotations

from array import array
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from judgeagent.graph.generic import MIN_CHUNKS, ZIPF_MIN, is_domain_word, zipf

STRONG, WEAK = 1, 2  # edge kinds as stored
KIND_NAMES = {STRONG: "strong", WEAK: "weak"}
WEAK_WINDOW = 1  # chunks apart, within one document, that still make a weak edge
WEAK_MIN_CHUNKS = 2  # chunks an entity must be in to have weak edges (module docstring)
STOP_MIN_COUNT = 5  # documents (or chunks) an entity must be in before its share can make it a stop entity
# Why spans or names never became nodes: the extractor's reasons, then the corpus-level one.
DROP_REASONS = ("numeric", "fragment", "too_long", "generic")


def _no_drops() -> np.ndarray:
    return np.zeros(len(DROP_REASONS), dtype=np.int64)


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
    adj_weight: np.ndarray  # shared chunks (strong) or neighbouring chunk pairs (weak)
    adj_kind: np.ndarray  # STRONG / WEAK
    dropped_counts: np.ndarray = field(default_factory=_no_drops)  # distinct names per DROP_REASONS

    @property
    def dropped(self) -> dict[str, int]:
        return {r: int(n) for r, n in zip(DROP_REASONS, self.dropped_counts)}

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


Mention = tuple[str, str, str]  # (name, display label, kind)


@dataclass(frozen=True)
class ChunkExtraction:
    """What the extractor found in one chunk: its mentions in order, and the spans it refused.

    This is what the per-chunk cache keeps, so a rebuild can aggregate display labels and
    drop counts exactly as a from-scratch build would.
    """

    mentions: tuple[Mention, ...]
    drops: tuple[tuple[str, str], ...] = ()  # (reason, span text)

    @property
    def names(self) -> list[str]:
        """Unique names in order of first mention."""
        return list(dict.fromkeys(m[0] for m in self.mentions))

    def to_json(self) -> list:
        return [[list(m) for m in self.mentions], [list(d) for d in self.drops]]

    @classmethod
    def from_json(cls, obj: list) -> ChunkExtraction:
        return cls(tuple(tuple(m) for m in obj[0]), tuple(tuple(d) for d in obj[1]))


class TableBuilder:
    """Co-occurrence tables fed one chunk at a time, in corpus order.

    It keeps only what the tables need: each name once, each chunk's name ids as int32,
    per-name label counts, and the word counts the generic-word rule reads. Nothing per
    chunk is kept as Python objects, so memory grows with distinct names and mentions,
    not with parsed documents.
    """

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}  # name -> provisional id, in order of first sight
        self._mentions = array("i")  # provisional ids, chunk after chunk
        self._lengths = array("i")  # names per chunk
        self._docs = array("i")
        self._words: dict[int, int] = {}  # chunk length in words -> chunks of that length
        self._word_chunks: dict[str, int] = {}  # word of some name -> chunks holding it
        self._display: list[dict[str, int]] = []
        self._kinds: list[dict[str, int]] = []
        self._dropped: dict[str, set[str]] = {}
        self._lengths_known = True  # every chunk came with its length in words

    def add(self, extraction: ChunkExtraction, doc: int, words: int | None = None) -> None:
        """One chunk: its extraction, its document index and its length in words (None: no
        generic-word rule, as when a caller knows no lengths)."""
        names = extraction.names
        for name, display, kind in extraction.mentions:
            i = self._intern(name)
            self._display[i][display] = self._display[i].get(display, 0) + 1
            self._kinds[i][kind] = self._kinds[i].get(kind, 0) + 1
        self._mentions.extend(self._ids[n] for n in names)
        self._lengths.append(len(names))
        self._docs.append(doc)
        if words is not None:
            self._words[words] = self._words.get(words, 0) + 1
            for w in {w for n in names for w in n.split(" ")}:
                self._word_chunks[w] = self._word_chunks.get(w, 0) + 1
        else:
            self._lengths_known = False
        for reason, text in extraction.drops:
            self._dropped.setdefault(reason, set()).add(text.casefold())

    def _intern(self, name: str) -> int:
        i = self._ids.get(name)
        if i is None:
            i = self._ids[name] = len(self._ids)
            self._display.append({})
            self._kinds.append({})
        return i

    @property
    def n_chunks(self) -> int:
        return len(self._lengths)

    def generic(self) -> set[str]:
        """The generic names (:mod:`judgeagent.graph.generic`), from the streamed counts."""
        if not self._lengths_known or not self._words:
            return set()
        lengths = np.fromiter(self._words, dtype=np.float64, count=len(self._words))
        counts = np.fromiter(self._words.values(), dtype=np.float64, count=len(self._words))
        out = set()
        for name in self._ids:
            if not name.isalpha():  # one plain word, no digits or hyphens
                continue
            z = zipf(name)
            if z < ZIPF_MIN:
                continue
            observed = self._word_chunks.get(name, 0)
            rate = 10.0 ** (z - 9.0)  # Zipf frequency is log10 of occurrences per billion words
            # Only a word seen in MIN_CHUNKS chunks can be a domain word; skip the sum otherwise.
            expected = float(np.sum(counts * -np.expm1(-rate * lengths))) if observed >= MIN_CHUNKS else 0.0
            if not is_domain_word(observed, expected):
                out.add(name)
        return out

    def labels(self) -> dict[str, tuple[str, str]]:
        """Most frequent surface form and kind of each name, as the spaCy extractor names them:
        the most frequent NER label, or CONCEPT when the name was only ever a noun chunk.
        Ties go to the form seen first, so the order chunks are fed in matters (corpus order)."""
        out = {}
        for name, i in self._ids.items():
            display = max(self._display[i].items(), key=lambda kv: kv[1])[0] if self._display[i] else name
            named = [(k, c) for k, c in self._kinds[i].items() if k != "CONCEPT"]
            kind = max(named, key=lambda kv: kv[1])[0] if named else "CONCEPT"
            out[name] = (display, kind)
        return out

    def finish(self, n_docs: int, stop_share: float, weak_window: int = WEAK_WINDOW,
               dropped: Mapping[str, int] | None = None) -> GraphTables:
        """The graph tables; ``dropped`` overrides the streamed drop counts (an extractor
        that reports them only in aggregate)."""
        generic = self.generic()
        names = sorted(n for n in self._ids if n not in generic)
        final = {n: j for j, n in enumerate(names)}
        remap = np.full(len(self._ids), -1, dtype=np.int32)
        for n, i in self._ids.items():
            remap[i] = final.get(n, -1)
        mentions = remap[np.frombuffer(self._mentions, dtype=np.int32)] if len(self._mentions) else np.zeros(0, np.int32)
        chunk_of = np.repeat(np.arange(self.n_chunks, dtype=np.int32), np.frombuffer(self._lengths, dtype=np.int32))
        keep = mentions >= 0
        chunk_ent_idx, chunk_of = mentions[keep], chunk_of[keep]
        chunk_ent_ptr = np.zeros(self.n_chunks + 1, dtype=np.int64)
        chunk_ent_ptr[1:] = np.cumsum(np.bincount(chunk_of, minlength=self.n_chunks))
        all_labels = self.labels()
        display = [all_labels[n] for n in names]
        drops = dict(dropped) if dropped is not None else {r: len(v) for r, v in self._dropped.items()}
        drops["generic"] = len(generic)
        return _tables(names, display, chunk_ent_ptr, chunk_ent_idx, chunk_of,
                       np.frombuffer(self._docs, dtype=np.int32).copy(), n_docs, stop_share, weak_window, drops)


def build_tables(
    chunk_entities: Sequence[Sequence[str]],
    chunk_doc: Sequence[int],
    n_docs: int,
    stop_share: float,
    labels: Mapping[str, tuple[str, str]] | None = None,
    *,
    chunk_words: Sequence[int] | None = None,
    dropped: Mapping[str, int] | None = None,
    weak_window: int = WEAK_WINDOW,
) -> GraphTables:
    """Build the graph from each chunk's entity names and each chunk's document index.

    Chunks of one document are taken to be in reading order.

    - generic names (:mod:`judgeagent.graph.generic`) are dropped first, when
      ``chunk_words`` (whitespace words per chunk) says how long the chunks are;
    - strong edge: the two entities share at least one chunk; weight = shared chunks;
    - weak edge: they are in chunks of one document at most ``weak_window`` apart but
      share no chunk; weight = such chunk pairs;
    - stop entity (see the module docstring): no edges.

    ``dropped`` is the extractor's count of refused spans by reason, kept for graph-info.
    A list-in form of :class:`TableBuilder`, which the graph builder streams into.
    """
    labels = labels or {}
    builder = TableBuilder()
    for i, ents in enumerate(chunk_entities):
        mentions = tuple((n, *labels.get(n, (n, "CONCEPT"))) for n in dict.fromkeys(ents))
        builder.add(ChunkExtraction(mentions), int(chunk_doc[i]),
                    None if chunk_words is None else int(chunk_words[i]))
    return builder.finish(n_docs, stop_share, weak_window, dropped=dropped or {})


def _tables(names, display, chunk_ent_ptr, chunk_ent_idx, chunk_of_pair, chunk_doc, n_docs, stop_share,
            weak_window, drops) -> GraphTables:
    """Incidence, stop flags and both edge kinds, by sparse products (module docstring)."""
    from scipy import sparse

    n_nodes, n_chunks = len(names), len(chunk_ent_ptr) - 1
    # Entity × chunk incidence; CSR over entities gives each node's chunk list directly.
    inc = _incidence(chunk_ent_idx, chunk_of_pair, (n_nodes, n_chunks))
    ent_doc = _incidence(chunk_ent_idx, chunk_doc[chunk_of_pair], (n_nodes, max(n_docs, 1)))

    stop = stop_entities(np.diff(ent_doc.indptr), np.diff(inc.indptr), n_docs, n_chunks, stop_share)
    keep = (~stop).astype(np.int32)[:, None]  # zero the rows of stop entities
    inc_kept = sparse.csr_matrix(inc.multiply(keep))
    strong = (inc_kept @ inc_kept.T).tocsr()
    spread = (np.diff(inc.indptr) >= WEAK_MIN_CHUNKS).astype(np.int32)[:, None]
    inc_weak = sparse.csr_matrix(inc_kept.multiply(spread))
    near = (inc_weak @ neighbour_chunks(chunk_doc, weak_window) @ inc_weak.T).tocsr()
    strong.setdiag(0)
    near.setdiag(0)
    strong.eliminate_zeros()
    near.eliminate_zeros()
    weak = near - near.multiply(strong > 0)  # a shared chunk makes the edge strong
    weak.eliminate_zeros()
    adj_ptr, adj_idx, adj_weight, adj_kind = _adjacency(strong, weak, n_nodes)
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
        chunk_ent_idx=chunk_ent_idx.astype(np.int32),
        adj_ptr=adj_ptr,
        adj_idx=adj_idx,
        adj_weight=adj_weight,
        adj_kind=adj_kind,
        dropped_counts=np.array([int(drops.get(r, 0)) for r in DROP_REASONS], dtype=np.int64),
    )


def stop_entities(doc_count: np.ndarray, chunk_count: np.ndarray, n_docs: int, n_chunks: int,
                  share: float) -> np.ndarray:
    """Bool per node: in more than ``share`` of the documents, or of the chunks, and in at
    least :data:`STOP_MIN_COUNT` of them (so a share of a handful means nothing)."""
    by_docs = (doc_count > share * n_docs) & (doc_count >= STOP_MIN_COUNT)
    by_chunks = (chunk_count > share * n_chunks) & (chunk_count >= STOP_MIN_COUNT)
    return by_docs | by_chunks


def neighbour_chunks(chunk_doc: np.ndarray, window: int):
    """Chunk × chunk 0/1 matrix: same document, 1..``window`` positions apart (symmetric).

    A chunk's position is its rank among its document's chunks, in the given order.
    """
    from scipy import sparse

    n = len(chunk_doc)
    order = np.argsort(chunk_doc, kind="stable")  # each document's chunks, in reading order
    rows, cols = [], []
    for d in range(1, max(window, 0) + 1):
        a, b = order[:-d], order[d:]
        same = chunk_doc[a] == chunk_doc[b]
        rows.append(a[same])
        cols.append(b[same])
    r = np.concatenate(rows) if rows else np.zeros(0, dtype=np.int64)
    c = np.concatenate(cols) if cols else np.zeros(0, dtype=np.int64)
    ones = np.ones(2 * len(r), dtype=np.int32)
    return sparse.csr_matrix((ones, (np.concatenate([r, c]), np.concatenate([c, r]))), shape=(n, n))


def _incidence(rows: np.ndarray, cols: np.ndarray, shape: tuple[int, int]):
    """0/1 CSR matrix with sorted indices (presence, not mention counts)."""
    from scipy import sparse

    m = sparse.csr_matrix((np.ones(len(rows), dtype=np.int32), (rows, cols)), shape=shape)
    m.sum_duplicates()
    m.sort_indices()
    m.data[:] = 1
    return m


def _adjacency(strong, weak, n_nodes: int):
    """Both edge kinds as one CSR adjacency: (ptr, neighbour, weight, kind), rows sorted."""
    strong_coo, weak_coo = strong.tocoo(), weak.tocoo()
    rows = np.concatenate([strong_coo.row, weak_coo.row])
    cols = np.concatenate([strong_coo.col, weak_coo.col])
    weights = np.concatenate([strong_coo.data, weak_coo.data]).astype(np.int32)
    kinds = np.concatenate([np.full(strong_coo.nnz, STRONG, np.uint8), np.full(weak_coo.nnz, WEAK, np.uint8)])
    order = np.lexsort((cols, rows))
    adj_ptr = np.zeros(n_nodes + 1, dtype=np.int64)
    adj_ptr[1:] = np.cumsum(np.bincount(rows, minlength=n_nodes))
    return adj_ptr, cols[order].astype(np.int32), weights[order], kinds[order]


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
