"""The loaded graph: what the interview pipeline and the graph commands query.

Loading is cheap on purpose (a JSON node table; CSR arrays, texts, vectors and FAISS
indexes memory-mapped, the indexes only when first searched), and an encoder is loaded
only when a query is free text that does not already name a node, or names a stop entity
(which has no stored vector). Queries are embedded by the encoder that made the vectors
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

from judgeagent.graph import store
from judgeagent.graph.cooccur import KIND_NAMES, GraphTables, row, to_networkx
from judgeagent.graph.embed import Embedder, shared_embedder
from judgeagent.graph.encoders import ROLES, Encoder, check_encoders, encoder_for
from judgeagent.graph.index import load_index, reconstruct, search
from judgeagent.graph.manifest import GraphManifest
from judgeagent.graph.normalize import normalize_query
from judgeagent.graph.sampler import KnowledgePath, random_path, sample_path


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
        self._lock = threading.Lock()  # lazy loads may race when batches run concurrently
        self._late_vectors: dict[int, np.ndarray] = {}  # vectors the build did not store, embedded once each
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
        with self._lock:
            vectors = self._chunk_vectors
            if vectors is None:
                path = self.path / store.CHUNK_EMB
                vectors = self._chunk_vectors = np.load(path, mmap_mode="r" if self.chunk_ids else None)
        return vectors

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
        batch text is ranked against."""
        return self._encoders[role].encode(texts)

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
        """Whether the node's name vector is stored (stop entities have none)."""
        return self._vector_row(self._index(name)) is not None

    def entity_vector(self, name: str) -> np.ndarray:
        """The node's name vector: read back from the entity index, or, for a stop entity,
        which has none stored, embedded now (once)."""
        return self.entity_vectors([name])[0]

    def entity_vectors(self, names: list[str]) -> np.ndarray:
        """(len(names), dim) name vectors; those the build did not store (stop entities) are
        embedded in one call and kept, so each is embedded once whichever batch asks first."""
        nodes = [self._index(n) for n in names]
        rows = [self._vector_row(i) for i in nodes]
        missing = list(dict.fromkeys(i for i, r in zip(nodes, rows) if r is None and i not in self._late_vectors))
        if missing:
            # Batches of one: a vector must not depend on which names it was padded with.
            vecs = self._encoders["entities"].encode([self.tables.names[i] for i in missing], batch_size=1)
            self._late_vectors.update(zip(missing, vecs))
        out = np.empty((len(names), self._encoders["entities"].dim), dtype=np.float32)
        for k, (i, r) in enumerate(zip(nodes, rows)):
            out[k] = self._late_vectors[i] if r is None else reconstruct(self.entity_index, r)
        return out

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
        if free and self.entity_index.ntotal:
            scores, ids = search(self.entity_index, self.embed([texts[i] for i in free], "entities"), k)
            for i, row_scores, row_ids in zip(free, scores, ids):
                names = tuple(self.tables.names[int(self._vec_node[int(j)])] for j in row_ids if j >= 0)
                if names:
                    out[i] = EntityMatch(texts[i], names[0], float(row_scores[0]), False, names)
        return out

    def match_entities(self, texts: list[str], min_sim: float = 0.5) -> list[tuple[str, str, float]]:
        """(query, nearest entity, cosine) for each text whose match reaches ``min_sim``."""
        return [
            (m.query, m.entity, m.similarity)
            for m in self.resolve_entities(texts)
            if m is not None and m.similarity >= min_sim
        ]

    def nearest_chunk_indices(self, vector: np.ndarray, k: int) -> list[int]:
        _, ids = search(self.chunk_index, vector, k)
        return [int(j) for j in ids[0] if j >= 0]

    def search_chunks(self, text: str, k: int = 5) -> list[tuple[str, float]]:
        """The ``k`` chunks most similar to ``text``: (chunk_id, cosine), best first."""
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
        chunks' encoder.
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
        return sample_path(self, start, hops, np.random.default_rng(seed), query, top_k)

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
