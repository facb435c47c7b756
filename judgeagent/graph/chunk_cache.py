"""Per-chunk cache of extraction results and embeddings, so a rebuild redoes only what changed.

One SQLite file inside the graph folder (``cache.sqlite``), two tables:

- ``extract``: key = hash(extractor identity, chunk text) → the chunk's
  :class:`~judgeagent.graph.cooccur.ChunkExtraction` as JSON;
- ``vectors``: key = hash(embedding model identity, text) → float32 vector. Chunk texts
  and entity names share it: the same string under the same model has one vector.

A key holds everything its value depends on, so a changed extractor rule or model version
misses instead of returning stale data. The file is not part of the artefact a reader
loads (the manifest does not list it); the builder opens it where the previous graph put
it and moves it into the new folder just before publishing (:func:`carry_over`), so
``--force`` keeps it too. Entries no build has used are pruned when they outnumber the live
ones, so the file stays within about twice the corpus.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import threading
from collections.abc import Iterable, Sequence
from pathlib import Path

import numpy as np

from judgeagent.graph.cooccur import ChunkExtraction

CACHE_FILE = "cache.sqlite"
_LOOKUP_BATCH = 500  # keys per SELECT ... IN (...): under SQLite's variable limit
# How long a writer waits for another process's transaction (runs embedding into one graph at
# once) before SQLite gives up with "database is locked".
BUSY_TIMEOUT_MS = 60_000


def key(identity: str, text: str) -> bytes:
    """16-byte digest of what a cached value depends on."""
    return hashlib.blake2b(identity.encode() + b"\0" + text.encode(), digest_size=16).digest()


class ChunkCache:
    """Lookups and inserts in batches; ``used`` collects every key this build read or wrote.

    Several processes may hold one cache at once (runs that embed vectors on demand into one
    graph, :mod:`judgeagent.graph.vectors`): SQLite's write-ahead log lets readers go on
    while one writer commits, a writer waits :data:`BUSY_TIMEOUT_MS` for another, and a
    value is inserted only when its key is absent, so what one process has read never
    changes under it. A process killed mid-write loses its open transaction, nothing
    committed. One connection serves every thread of a process, behind a lock.
    """

    def __init__(self, path: Path):
        self.path = Path(path)
        self._lock = threading.RLock()
        self._db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False,
                                   timeout=BUSY_TIMEOUT_MS / 1000)
        self._db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute("PRAGMA synchronous=NORMAL")
        self._db.execute("CREATE TABLE IF NOT EXISTS extract (k BLOB PRIMARY KEY, v BLOB NOT NULL)")
        self._db.execute("CREATE TABLE IF NOT EXISTS vectors (k BLOB PRIMARY KEY, v BLOB NOT NULL)")
        self.used: set[bytes] = set()

    # --- extraction -----------------------------------------------------------------

    def has_extractions(self, keys: Sequence[bytes]) -> set[bytes]:
        """The keys with a cached extraction (keys only: values are read later, a window at a time)."""
        return self._has("extract", keys)

    def has_vectors(self, keys: Sequence[bytes]) -> set[bytes]:
        """The keys with a cached vector (not counted as used: graph-info only counts them)."""
        return self._has("vectors", keys)

    def _has(self, table: str, keys: Sequence[bytes]) -> set[bytes]:
        keys = list(keys)
        found: set[bytes] = set()
        with self._lock:
            for lo in range(0, len(keys), _LOOKUP_BATCH):
                part = keys[lo : lo + _LOOKUP_BATCH]
                marks = ",".join("?" * len(part))
                found.update(k for (k,) in self._db.execute(f"SELECT k FROM {table} WHERE k IN ({marks})", part))
        return found

    def get_extractions(self, keys: Sequence[bytes]) -> dict[bytes, ChunkExtraction]:
        return {k: ChunkExtraction.from_json(json.loads(v)) for k, v in self._get("extract", keys)}

    def put_extractions(self, items: Iterable[tuple[bytes, ChunkExtraction]]) -> None:
        self._put("extract", ((k, json.dumps(e.to_json(), ensure_ascii=False).encode()) for k, e in items))

    # --- vectors --------------------------------------------------------------------

    def get_vectors(self, keys: Sequence[bytes], dim: int) -> dict[bytes, np.ndarray]:
        return {k: np.frombuffer(v, dtype=np.float32, count=dim) for k, v in self._get("vectors", keys)}

    def put_vectors(self, keys: Sequence[bytes], vectors: np.ndarray) -> None:
        vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        self._put("vectors", ((k, vectors[i].tobytes()) for i, k in enumerate(keys)))

    # --- housekeeping ---------------------------------------------------------------

    def count_vectors(self) -> int:
        with self._lock:
            return int(self._db.execute("SELECT COUNT(*) FROM vectors").fetchone()[0])

    def prune(self, live: Iterable[bytes] = ()) -> int:
        """Drop entries this build did not use, once they outnumber the used ones; keys in
        ``live`` (vectors a lazily built graph will ask for) count as used."""
        keep = self.used | set(live)
        with self._lock:
            total = sum(self._db.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0] for t in ("extract", "vectors"))
            if total <= 2 * len(keep):
                return 0
            self._db.execute("CREATE TEMP TABLE IF NOT EXISTS live (k BLOB PRIMARY KEY)")
            self._db.execute("BEGIN")
            self._db.executemany("INSERT OR IGNORE INTO live VALUES (?)", ((k,) for k in keep))
            removed = 0
            for table in ("extract", "vectors"):
                removed += self._db.execute(f"DELETE FROM {table} WHERE k NOT IN (SELECT k FROM live)").rowcount
            self._db.execute("COMMIT")
            self._db.execute("VACUUM")
        return removed

    def close(self) -> None:
        """Checkpoint the WAL into the main file, so the cache is one file that can be moved.
        With another process still holding it (a run embedding on demand), the log stays:
        SQLite folds it in when the last connection closes."""
        with self._lock:
            try:
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                self._db.execute("PRAGMA journal_mode=DELETE")
            except sqlite3.OperationalError:  # another connection is open: it stays in WAL mode
                pass
            self._db.close()

    def _get(self, table: str, keys: Sequence[bytes]):
        keys = list(keys)
        self.used.update(keys)
        with self._lock:
            rows = []
            for lo in range(0, len(keys), _LOOKUP_BATCH):
                part = keys[lo : lo + _LOOKUP_BATCH]
                marks = ",".join("?" * len(part))
                rows += self._db.execute(f"SELECT k, v FROM {table} WHERE k IN ({marks})", part).fetchall()
        return rows

    def _put(self, table: str, rows: Iterable[tuple[bytes, bytes]]) -> None:
        rows = list(rows)
        if not rows:
            return
        self.used.update(k for k, _ in rows)
        with self._lock:
            self._db.execute("BEGIN IMMEDIATE")
            try:
                # Absent keys only: a value another process wrote first (and may have read) stays.
                self._db.executemany(f"INSERT OR IGNORE INTO {table} VALUES (?, ?)", rows)
            except BaseException:
                self._db.execute("ROLLBACK")
                raise
            self._db.execute("COMMIT")


def open_cache(previous_graph: Path, staging: Path) -> ChunkCache:
    """The cache the previous graph at ``previous_graph`` left, or a new one in ``staging``."""
    old = Path(previous_graph) / CACHE_FILE
    return ChunkCache(old if old.is_file() else Path(staging) / CACHE_FILE)


def carry_over(cache: ChunkCache, staging: Path) -> None:
    """Close the cache and move it into the staging folder about to be published.

    Called right before :func:`judgeagent.graph.store.publish`: were the build to die
    between the two, the old graph would lose only its cache, never its data.
    """
    cache.close()
    target = Path(staging) / CACHE_FILE
    if cache.path != target:
        os.replace(cache.path, target)
