"""The loaded graph: what the interview pipeline and the graph commands query.

Loading is cheap on purpose (a JSON node table; CSR arrays, texts, vectors and FAISS
indexes memory-mapped, the indexes only when first searched), and an encoder is loaded
only when a vector is needed that no one has made yet: a free-text query that does not
already name a node, a stop entity's name (the build stores no vector for it), or, in a
lazily built graph (``embed == "lazy"``), any chunk text or name a run asks for first.
Every vector made here is kept in the graph folder's cache (:mod:`judgeagent.graph.vectors`),
so the next run, in this process or another, reads it back. A lazy graph's global searches
take two stages: a lexical one proposes candidates (:mod:`judgeagent.graph.lexical`), and
their vectors rank them exactly. Queries are embedded by the encoder that made the vectors
they are compared with: each role's, as the manifest records it
(:mod:`judgeagent.graph.encoders`); a graph whose encoder this install cannot give back is
refused when it is loaded.
"""

from __future__ import annotations

import json
import mmap
import threading
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from judgeagent.graph import lexical, store
from judgeagent.graph.chunk_cache import ChunkCache
from judgeagent.graph.cooccur import KIND_NAMES, GraphTables, row, to_networkx
from judgeagent.graph.embed import Embedder, shared_embedder
from judgeagent.graph.encoders import ROLES, Encoder, check_encoders, encoder_for
from judgeagent.graph.index import load_index, reconstruct, search
from judgeagent.graph.manifest import GraphManifest
from judgeagent.graph.normalize import normalize_query
from judgeagent.graph.sampler import KnowledgePath, random_path, sample_path
from judgeagent.graph.vectors import BATCH_SIZES, RowVectors, VectorStore, open_graph_cache


@dataclass(frozen=True)
class EntityMatch:
    """How a query text was mapped to a node.

    ``exact`` means the text already names the node and its vector was read back from
    the entity index (no encoder needed); otherwise the text was embedded and searched, and
    ``nearest`` holds the nodes the search found, nearest first (``entity`` is the first).
    """

    query: str
    entity: str
    similarity: float
    exact: bool
    nearest: tuple[str, ...] = ()


class ContextGraph:
    reused = False  # set by build_graph: True when an unchanged artefact was loaded instead

    def __init__(self, folder: Path, manifest: dict, embedder: Embedder | None = None):
        self.path = Path(folder)
        self.manifest = manifest  # the JSON as written; read it through ``meta``
        self.meta = GraphManifest.model_validate(manifest)
        self._embedder = embedder
        nodes = json.loads((self.path / store.NODES).read_text(encoding="utf-8"))
        a = store.read_arrays(self.path / store.ARRAYS)  # memory-mapped: pages load as queries touch them
        self._chunk_doc = a.pop("chunk_doc")
        self._text_offsets = a.pop("text_offsets")
        self._vec_node = a.pop("entity_vec_node")  # node of each entity-index row, ascending
        self.tables = GraphTables(names=nodes["names"], labels=nodes["labels"], kinds=nodes["kinds"], **a)
        chunks = json.loads((self.path / store.CHUNKS).read_text(encoding="utf-8"))
        self.chunk_ids: list[str] = chunks["ids"]
        self.documents: list[dict] = chunks["docs"]
        self._name_pos = {n: i for i, n in enumerate(self.tables.names)}
        self._chunk_pos = {c: i for i, c in enumerate(self.chunk_ids)}
        self._text = _map_bytes(self.path / store.TEXT)
        self._chunk_vectors: np.ndarray | None = None
        self._entity_index = None
        self._chunk_index = None
        self._lock = threading.RLock()  # lazy loads may race when batches run concurrently
        self.lazy = self.meta.embed == "lazy"  # no vector stored: each made on demand
        self._cache: ChunkCache | None = None
        self._cache_opened = False
        self._stores: dict[tuple[str, int], VectorStore] = {}  # by (role, id of its encoder)
        self._chunk_rows: RowVectors | None = None
        self._name_rows: RowVectors | None = None  # by node; a full graph's stop entities only
        self._lexicon: lexical.ChunkLexicon | None = None
        self.roles = self.meta.roles()
        self._encoders: dict[str, Encoder] = {role: self._role_encoder(role) for role in ROLES}
        check_encoders(self.path, self.roles, self._encoders)

    # --- nodes and edges ------------------------------------------------------------

    @property
    def entity_names(self) -> list[str]:
        return self.tables.names

    def __contains__(self, name: str) -> bool:
        return name in self._name_pos

    def node(self, name: str) -> dict:
        i = self._index(name)
        t = self.tables
        return {
            "chunk_ids": [self.chunk_ids[c] for c in row(t.node_chunk_ptr, t.node_chunk_idx, i)],
            "doc_ids": [self.documents[d]["id"] for d in row(t.node_doc_ptr, t.node_doc_idx, i)],
            "label": t.labels[i],
            "kind": t.kinds[i],
            "stop": bool(t.stop[i]),
        }

    def neighbors(self, name: str) -> list[tuple[str, int, str]]:
        """(neighbour, weight, "strong"|"weak"), strong edges first, heaviest first."""
        i = self._index(name)
        t = self.tables
        lo, hi = t.adj_ptr[i], t.adj_ptr[i + 1]
        out = [
            (t.names[j], int(w), KIND_NAMES[int(k)])
            for j, w, k in zip(t.adj_idx[lo:hi], t.adj_weight[lo:hi], t.adj_kind[lo:hi])
        ]
        out.sort(key=lambda x: (x[2] != "strong", -x[1], x[0]))
        return out

    def degree(self) -> np.ndarray:
        return np.diff(self.tables.adj_ptr)

    def to_networkx(self):
        doc_ids = [d["id"] for d in self.documents]
        return to_networkx(self.tables, self.chunk_ids, doc_ids)

    # --- chunks ---------------------------------------------------------------------

    def chunk_text(self, chunk_id: str) -> str:
        i = self._chunk_pos[chunk_id]
        return self._text[self._text_offsets[i] : self._text_offsets[i + 1]].decode("utf-8")

    def chunk_entities(self, chunk_id: str) -> list[str]:
        i = self._chunk_pos[chunk_id]
        return [self.tables.names[e] for e in row(self.tables.chunk_ent_ptr, self.tables.chunk_ent_idx, i)]

    def chunk_doc(self, chunk_id: str) -> str:
        return self.documents[int(self._chunk_doc[self._chunk_pos[chunk_id]])]["id"]

    @property
    def chunk_vectors(self) -> np.ndarray:
        """Every chunk's vector: the stored ones, memory-mapped; a lazy graph embeds each
        chunk it lacks (all of them on a cold graph: use :meth:`chunk_vectors_at`)."""
        if self.lazy:
            return self.chunk_vectors_at(np.arange(len(self.chunk_ids)))
        with self._lock:
            vectors = self._chunk_vectors
            if vectors is None:
                path = self.path / store.CHUNK_EMB
                vectors = self._chunk_vectors = np.load(path, mmap_mode="r" if self.chunk_ids else None)
        return vectors

    def chunk_vectors_at(self, rows) -> np.ndarray:
        """(len(rows), dim) vectors of the chunks at ``rows``: stored, cached, or embedded now (once)."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        if not self.lazy:
            return np.asarray(self.chunk_vectors[rows])
        return self._chunk_row_vectors().get(rows)

    def chunk_vectors_available(self, rows) -> np.ndarray:
        """Which of the chunks at ``rows`` have a vector that needs no embedding now."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        if not self.lazy:
            return np.ones(len(rows), dtype=bool)
        return self._chunk_row_vectors().available(rows)

    def _chunk_row_vectors(self) -> RowVectors:
        with self._lock:
            if self._chunk_rows is None:
                text = self.chunk_text
                ids = self.chunk_ids
                self._chunk_rows = RowVectors(self.vector_store("chunks"), len(ids), lambda i: text(ids[i]))
            return self._chunk_rows

    # --- embeddings and search ------------------------------------------------------

    @property
    def embedder(self) -> Embedder:
        """MiniLM on the graph's backend: what a run's other checks (gate, leakage) embed with,
        whichever encoders the graph's roles have."""
        if self._embedder is None:
            self._embedder = shared_embedder(self.meta.embedding_model.backend)
        return self._embedder

    def _role_encoder(self, role: str) -> Encoder:
        kind = self.roles[role].encoder
        return self.embedder if kind == "minilm" else encoder_for(kind, self.embedder)

    def encoder(self, role: str) -> Encoder:
        """The encoder of ``role`` ("entities" or "chunks"), as the graph was built with."""
        return self._encoders[role]

    @property
    def shared_encoder(self) -> bool:
        """Whether one encoder serves both roles (an entity vector can then rank chunks)."""
        return self._encoders["entities"] is self._encoders["chunks"]

    @property
    def encoder_loaded(self) -> bool:
        return any(e.loaded for e in self._encoders.values())

    def embed(self, texts: list[str], role: str = "chunks") -> np.ndarray:
        """``texts`` embedded by the encoder of ``role``: chunks by default, which is what a
        batch text is ranked against. Each text once: kept in the graph folder's cache."""
        return self.vector_store(role).encode(texts)

    def vector_store(self, role: str, encoder: Encoder | None = None) -> VectorStore:
        """The cached vectors of ``role``'s encoder, or of ``encoder`` (the fp32 MiniLM that
        decisions are taken on, :mod:`judgeagent.graph.fixed_precision`), in this graph's cache."""
        enc = self._encoders[role] if encoder is None else encoder
        with self._lock:
            if not self._cache_opened:
                self._cache, self._cache_opened = open_graph_cache(self.path), True
            got = self._stores.get((role, id(enc)))
            if got is None:
                got = self._stores[(role, id(enc))] = VectorStore(enc, self._cache, BATCH_SIZES[role])
            return got

    def embedding_work(self) -> tuple[int, float]:
        """(texts embedded, CPU seconds) by this graph object's vector stores so far."""
        with self._lock:
            stores = list(self._stores.values())
        return sum(s.embedded for s in stores), sum(s.cpu_seconds for s in stores)

    def vector_counts(self) -> dict[str, tuple[int, int]]:
        """Role → (vectors available, texts): every one for a full graph; for a lazy graph,
        those embedded so far (by any run) and kept in the cache."""
        names = [n for n, stop in zip(self.tables.names, self.tables.stop) if not stop]
        n_chunks = len(self.chunk_ids)
        if not self.lazy:
            return {"chunks": (n_chunks, n_chunks), "entities": (len(names), len(names))}
        texts = [self.chunk_text(c) for c in self.chunk_ids]
        return {"chunks": (self.vector_store("chunks").count_cached(texts), n_chunks),
                "entities": (self.vector_store("entities").count_cached(names), len(names))}

    @property
    def entity_index(self):
        with self._lock:
            if self._entity_index is None:
                self._entity_index = load_index(self.path / store.ENTITY_INDEX)
        return self._entity_index

    @property
    def chunk_index(self):
        with self._lock:
            if self._chunk_index is None:
                self._chunk_index = load_index(self.path / store.CHUNK_INDEX)
        return self._chunk_index

    def has_vector(self, name: str) -> bool:
        """Whether the node's name vector is stored in the artefact (stop entities have none;
        a lazily built graph stores none)."""
        return not self.lazy and self._vector_row(self._index(name)) is not None

    def entity_vector(self, name: str) -> np.ndarray:
        """The node's name vector: read back from the entity index, or, for a stop entity,
        which has none stored, embedded now (once)."""
        return self.entity_vectors([name])[0]

    def entity_vectors(self, names: list[str]) -> np.ndarray:
        """(len(names), dim) name vectors; those the build did not store (a lazy graph's, a
        full graph's stop entities) are embedded once, whichever batch or run asks first."""
        nodes = np.asarray([self._index(n) for n in names], dtype=np.int64)
        return self.node_vectors(nodes)

    def node_vectors(self, nodes) -> np.ndarray:
        """(len(nodes), dim) name vectors of the nodes at ``nodes`` (see :meth:`entity_vectors`)."""
        nodes = np.asarray(nodes, dtype=np.int64).reshape(-1)
        if self.lazy:
            return self._node_row_vectors().get(nodes)
        rows = [self._vector_row(int(i)) for i in nodes]
        out = np.empty((len(nodes), self._encoders["entities"].dim), dtype=np.float32)
        late = [k for k, r in enumerate(rows) if r is None]
        if late:
            out[late] = self._node_row_vectors().get(nodes[late])
        for k, r in enumerate(rows):
            if r is not None:
                out[k] = reconstruct(self.entity_index, r)
        return out

    def _node_row_vectors(self) -> RowVectors:
        with self._lock:
            if self._name_rows is None:
                names = self.tables.names
                self._name_rows = RowVectors(self.vector_store("entities"), len(names), names.__getitem__)
            return self._name_rows

    def _vector_row(self, node: int) -> int | None:
        r = int(np.searchsorted(self._vec_node, node))
        return r if r < len(self._vec_node) and int(self._vec_node[r]) == node else None

    def resolve_entities(self, texts: list[str], k: int = 1) -> list[EntityMatch | None]:
        """Nearest node for each text (None when the graph has no entities), with the ``k``
        nearest in ``EntityMatch.nearest``.

        Texts that normalise to a node name are answered from the stored names alone;
        only the rest are embedded, in one batch.
        """
        out: list[EntityMatch | None] = [None] * len(texts)
        free: list[int] = []
        for i, text in enumerate(texts):
            key = normalize_query(text)
            if key in self._name_pos:
                out[i] = EntityMatch(text, key, 1.0, True)
            else:
                free.append(i)
        if free and self.lazy:
            for i, match in zip(free, self._resolve_two_stage([texts[i] for i in free], k)):
                out[i] = match
        elif free and self.entity_index.ntotal:
            scores, ids = search(self.entity_index, self.embed([texts[i] for i in free], "entities"), k)
            for i, row_scores, row_ids in zip(free, scores, ids):
                names = tuple(self.tables.names[int(self._vec_node[int(j)])] for j in row_ids if j >= 0)
                if names:
                    out[i] = EntityMatch(texts[i], names[0], float(row_scores[0]), False, names)
        return out

    def _resolve_two_stage(self, texts: list[str], k: int,
                           candidates: int = lexical.NAME_CANDIDATES) -> list[EntityMatch | None]:
        """A lazy graph's name search: the nodes most like each text in characters (stop
        entities left out, as a full graph's entity index leaves them out), ranked by the
        cosine of their name vectors to the text's."""
        live = ~np.asarray(self.tables.stop, dtype=bool)
        queries = self.embed(texts, "entities")
        out: list[EntityMatch | None] = []
        names = self.tables.names
        for text, query, cands in zip(texts, queries, lexical.name_candidates(texts, names, candidates, live)):
            if not len(cands):
                out.append(None)
                continue
            sims = self.node_vectors(cands) @ query
            order = np.argsort(-sims, kind="stable")[:k]  # ties: the better lexical candidate
            found = tuple(names[int(cands[j])] for j in order)
            out.append(EntityMatch(text, found[0], float(sims[order[0]]), False, found))
        return out

    def match_entities(self, texts: list[str], min_sim: float = 0.5) -> list[tuple[str, str, float]]:
        """(query, nearest entity, cosine) for each text whose match reaches ``min_sim``."""
        return [
            (m.query, m.entity, m.similarity)
            for m in self.resolve_entities(texts)
            if m is not None and m.similarity >= min_sim
        ]

    def nearest_chunk_indices(self, vector: np.ndarray, k: int, text: str | None = None,
                              exclude=(), near=()) -> list[int]:
        """The rows of the ``k`` chunks nearest ``vector`` (the embedding of ``text``), none
        of ``exclude``, best first.

        A full graph searches its FAISS index (then, should an approximate index miss, every
        stored vector). A lazy graph ranks the lexical stage's candidates for ``text``
        exactly (:meth:`two_stage_chunks`); without a text it has nothing to propose from,
        so ``text`` is required there.
        """
        exclude = [int(e) for e in exclude]
        if self.lazy:
            if text is None:
                raise ValueError("a lazily built graph searches its chunks by text: give the query's text")
            return self.two_stage_chunks(text, vector, k, exclude=exclude, near=near)[0]
        n = len(self.chunk_ids)
        want = min(k, n - len(set(exclude)))
        if want <= 0:
            return []
        skip = set(exclude)
        _, ids = search(self.chunk_index, vector, k + len(skip))
        found = [int(j) for j in ids[0] if j >= 0 and int(j) not in skip][:want]
        if len(found) < want:  # an approximate (HNSW) index may miss some; fall back to the stored vectors
            sims = np.asarray(self.chunk_vectors @ np.asarray(vector, dtype=np.float32).reshape(-1))
            sims[list(skip)] = -np.inf
            found = [int(j) for j in np.argsort(-sims, kind="stable")[:want]]
        return found

    def two_stage_chunks(self, text: str, vector: np.ndarray | None, k: int, exclude=(), near=(),
                         candidates: int = lexical.CHUNK_CANDIDATES) -> tuple[list[int], np.ndarray]:
        """(rows of the ``k`` best of the lexical stage's ``candidates`` chunks for ``text`` by
        cosine to ``vector``, their cosines); ``vector`` None: ``text`` embedded."""
        if vector is None:
            vector = self.embed([text])[0]
        cands = self.lexicon.candidates(text, candidates, exclude=exclude, near=near)
        if not len(cands):
            return [], np.zeros(0, dtype=np.float32)
        sims = self.chunk_vectors_at(cands) @ np.asarray(vector, dtype=np.float32).reshape(-1)
        order = np.argsort(-sims, kind="stable")[:k]  # ties: the better lexical candidate
        return [int(cands[j]) for j in order], sims[order]

    @property
    def lexicon(self) -> lexical.ChunkLexicon:
        with self._lock:
            if self._lexicon is None:
                self._lexicon = lexical.ChunkLexicon(self.path / store.LEXICAL, len(self.chunk_ids))
            return self._lexicon

    def search_chunks(self, text: str, k: int = 5) -> list[tuple[str, float]]:
        """The ``k`` chunks most similar to ``text``: (chunk_id, cosine), best first."""
        if self.lazy:
            rows, sims = self.two_stage_chunks(text, None, k)
            return [(self.chunk_ids[r], float(s)) for r, s in zip(rows, sims)]
        scores, ids = search(self.chunk_index, self.embed([text]), k)
        return [(self.chunk_ids[int(j)], float(s)) for s, j in zip(scores[0], ids[0]) if j >= 0]

    # --- paths ----------------------------------------------------------------------

    def sample_path(
        self,
        start_entity: str,
        hops: int,
        *,
        seed: int,
        query_text: str | None = None,
        top_k: int = 3,
        query_vector: np.ndarray | None = None,
    ) -> KnowledgePath:
        """A seeded walk of ``hops`` (entity, chunk) steps from ``start_entity``.

        Chunks are ranked against ``query_vector``, else the embedding of ``query_text``
        (the seed batch's text), else the start entity's own name: its stored vector, which
        needs no encoder, when one encoder serves both roles, else its name embedded by the
        chunks' encoder. A lazy graph proposes the chunk a dead end jumps to from
        ``query_text`` (else the start entity's name): the text the query vector embeds.
        """
        start = self._index(start_entity)
        if query_vector is None:
            if query_text is not None:
                query_vector = self.embed([query_text])[0]
            elif self.shared_encoder:
                query_vector = self.entity_vector(self.tables.names[start])
            else:
                query_vector = self.embed([self.tables.names[start]])[0]
        query = np.asarray(query_vector, dtype=np.float32)
        text = query_text if query_text is not None else self.tables.names[start]
        return sample_path(self, start, hops, np.random.default_rng(seed), query, top_k, text=text)

    def random_path(self, hops: int, *, seed: int) -> KnowledgePath:
        """``hops`` chunks drawn at random from the corpus (the --no-graph ablation)."""
        return random_path(self, hops, np.random.default_rng(seed))

    # --- helpers --------------------------------------------------------------------

    def _index(self, name: str) -> int:
        try:
            return self._name_pos[name]
        except KeyError:
            key = normalize_query(name)
            if key in self._name_pos:
                return self._name_pos[key]
            raise KeyError(f"{name!r} is not an entity of the graph at {self.path}") from None


def _map_bytes(path: Path):
    """The file's bytes, memory-mapped so loading does not read every chunk's text."""
    with open(path, "rb") as f:
        if f.seek(0, 2) == 0:
            return b""
        return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)


def load_graph(folder: Path | str, embedder: Embedder | None = None) -> ContextGraph:
    """Load a built graph; a missing or half-written folder raises JudgeAgentError."""
    folder = Path(folder)
    return ContextGraph(folder, store.read_manifest(folder), embedder=embedder)
