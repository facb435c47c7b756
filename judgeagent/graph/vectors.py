"""Vectors on demand: each text embedded once, by the graph's encoder, and kept in the graph folder.

A graph built lazily (``build-graph``'s default, ``--embed lazy``) stores no vectors: the
sampler, the start-entity choice and entity matching ask for the ones they need, and
:class:`VectorStore` answers from memory, then from the graph folder's cache
(``cache.sqlite``, the table the builder's per-chunk cache keeps its vectors in:
:mod:`judgeagent.graph.chunk_cache`), and embeds only what neither holds, storing it there.
So a second run pays nothing, a graph rebuilt with ``--embed all`` reuses what the runs
embedded, and a lazy rebuild reuses what a full build stored.

A vector is keyed by its encoder's identity and its text (:func:`chunk_cache.key`), so a
text has one vector in a graph whichever process, batch or build made it first, and every
later run reads that one. Made by a full build or on demand, it is the same MiniLM vector
up to the last digits: a transformer's output moves in its last digits with the texts it is
batched with and with torch's thread count (bf16: up to about 1e-3 per component, a cosine
above 0.9999; fp32: about 1e-7), and keeping every text alone, on one thread, made names 8x
dearer to embed (docs/measurements/build.md). Several processes may embed into one graph at
once (SQLite's write-ahead log; a key is written only when absent, so a vector never
changes once read); a run killed mid-write leaves every committed vector and no partial one.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from judgeagent.graph import chunk_cache
from judgeagent.graph.chunk_cache import CACHE_FILE, ChunkCache
from judgeagent.graph.encoders import Encoder, embed_identity

log = logging.getLogger(__name__)

# MiniLM batch sizes, as a full build embeds: chunk texts (GraphConfig.embed_batch_size's
# default) and names (build.ENTITY_BATCH_SIZE).
BATCH_SIZES = {"chunks": 16, "entities": 64}


def open_graph_cache(folder: Path) -> ChunkCache | None:
    """The graph folder's cache, or None (vectors then stay in memory) when it cannot be
    written (a read-only folder)."""
    try:
        return ChunkCache(Path(folder) / CACHE_FILE)
    except (sqlite3.Error, OSError) as e:
        log.warning("%s: cannot open the vector cache (%s); vectors embedded now are not kept", folder, e)
        return None


class VectorStore:
    """The vectors of texts under one encoder: memory, then the graph's cache, then the encoder.

    ``embedded`` counts the texts this process had to embed, ``cpu_seconds`` the CPU time
    (this process's, all threads) those calls took, for the bench.
    """

    def __init__(self, encoder: Encoder, cache: ChunkCache | None, batch_size: int | None = None):
        self.encoder = encoder
        self.cache = cache
        self.batch_size = batch_size
        self.identity = embed_identity(encoder)
        self._mem: dict[str, np.ndarray] = {}
        self._lock = threading.RLock()
        self.embedded = 0
        self.cpu_seconds = 0.0

    @property
    def dim(self) -> int:
        return self.encoder.dim

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """(len(texts), dim) float32 rows, L2-normalised."""
        texts = list(texts)
        out = np.empty((len(texts), self.encoder.dim), dtype=np.float32)
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._mem))
            if missing:
                self._fill(missing)
            for i, t in enumerate(texts):
                out[i] = self._mem[t]
        return out

    def have(self, texts: Sequence[str]) -> list[bool]:
        """Whether each text's vector is at hand without embedding (read from the cache now)."""
        texts = list(texts)
        with self._lock:
            self._read(list(dict.fromkeys(t for t in texts if t not in self._mem)))
            return [t in self._mem for t in texts]

    def _read(self, texts: list[str]) -> list[tuple[str, bytes]]:
        """Read what the cache holds of ``texts`` into memory; (text, key) of the rest."""
        keys = [chunk_cache.key(self.identity, t) for t in texts]
        found = self.cache.get_vectors(keys, self.encoder.dim) if self.cache is not None and texts else {}
        for t, k in zip(texts, keys):
            if k in found:
                self._mem[t] = np.array(found[k], dtype=np.float32)
        return [(t, k) for t, k in zip(texts, keys) if k not in found]

    def _fill(self, texts: list[str]) -> None:
        todo = self._read(texts)
        if not todo:
            return
        started = time.process_time()
        vecs = np.asarray(self.encoder.encode([t for t, _ in todo], self.batch_size), dtype=np.float32)
        self.cpu_seconds += time.process_time() - started
        self.embedded += len(todo)
        if self.cache is not None:
            self.cache.put_vectors([k for _, k in todo], vecs)
            # Another process may have written some of these first: theirs are the ones kept.
            stored = self.cache.get_vectors([k for _, k in todo], self.encoder.dim)
        else:
            stored = {}
        for (t, k), v in zip(todo, vecs):
            self._mem[t] = np.array(stored.get(k, v), dtype=np.float32)

    def count_cached(self, texts: Sequence[str]) -> int:
        """How many of ``texts`` have a vector in the cache (or in memory)."""
        keys = {chunk_cache.key(self.identity, t) for t in texts}
        have = self.cache.has_vectors(list(keys)) if self.cache is not None else set()
        with self._lock:
            have |= {chunk_cache.key(self.identity, t) for t in self._mem}
        return len(keys & have)


class RowVectors:
    """Vectors of a fixed list of texts (a graph's chunks or entity names) by row number,
    through a :class:`VectorStore`; rows already fetched are held in one array."""

    def __init__(self, store: VectorStore, n: int, text_of: Callable[[int], str]):
        self.store = store
        self.text_of = text_of
        self._rows = np.zeros((n, store.dim), dtype=np.float32)  # pages are committed as rows are filled
        self._have = np.zeros(n, dtype=bool)
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._have)

    def available(self, rows) -> np.ndarray:
        """Which of ``rows`` have a vector without embedding (held, or in the cache)."""
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        with self._lock:
            unknown = np.unique(rows[~self._have[rows]])
            if len(unknown):
                there = np.asarray(self.store.have([self.text_of(int(r)) for r in unknown]), dtype=bool)
                found = unknown[there]
                if len(found):
                    self._rows[found] = self.store.encode([self.text_of(int(r)) for r in found])
                    self._have[found] = True
            return self._have[rows].copy()

    def get(self, rows) -> np.ndarray:
        rows = np.asarray(rows, dtype=np.int64).reshape(-1)
        with self._lock:
            missing = np.unique(rows[~self._have[rows]])
            if len(missing):
                self._rows[missing] = self.store.encode([self.text_of(int(r)) for r in missing])
                self._have[missing] = True
            return self._rows[rows]
