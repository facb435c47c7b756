"""FAISS indexes over L2-normalised vectors, searched by inner product (= cosine).

Exact search is cheap up to tens of thousands of vectors; above that an HNSW graph keeps
queries in the millisecond range. The choice is automatic and reported back so the
manifest can record it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

FLAT_MAX = 50_000  # below this many vectors: exact IndexFlatIP
HNSW_M = 32
HNSW_EF_CONSTRUCTION = 80
HNSW_EF_SEARCH = 96


@dataclass(frozen=True)
class IndexChoice:
    kind: str  # "flat" | "hnsw"
    size: int
    dim: int

    def to_dict(self) -> dict:
        return {"type": "IndexFlatIP" if self.kind == "flat" else "IndexHNSWFlat(IP)", "kind": self.kind,
                "vectors": self.size, "dim": self.dim}


def build_index(vectors: np.ndarray, flat_max: int = FLAT_MAX):
    """(index, choice) for ``vectors`` (n, d) float32 normalised rows."""
    import faiss

    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    n, d = vectors.shape
    index: faiss.Index
    if n < flat_max:
        index = faiss.IndexFlatIP(d)
        kind = "flat"
    else:
        hnsw = faiss.IndexHNSWFlat(d, HNSW_M, faiss.METRIC_INNER_PRODUCT)
        hnsw.hnsw.efConstruction = HNSW_EF_CONSTRUCTION
        hnsw.hnsw.efSearch = HNSW_EF_SEARCH
        index, kind = hnsw, "hnsw"
    if n:
        index.add(vectors)
    return index, IndexChoice(kind, n, d)


def save_index(index, path: Path) -> None:
    import faiss

    faiss.write_index(index, str(path))


def load_index(path: Path):
    """The index, memory-mapped (IO_FLAG_MMAP): opening it reads no vectors, a search
    reads the pages it touches."""
    import faiss

    index = faiss.read_index(str(path), faiss.IO_FLAG_MMAP)
    if hasattr(index, "hnsw"):
        index.hnsw.efSearch = max(index.hnsw.efSearch, HNSW_EF_SEARCH)
    return index


def search(index, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(scores, ids), each (len(queries), k'); k' = min(k, index size). Missing ids are -1."""
    queries = np.ascontiguousarray(np.atleast_2d(queries), dtype=np.float32)
    k = min(k, index.ntotal)
    if k <= 0:
        empty = np.zeros((len(queries), 0))
        return empty.astype(np.float32), empty.astype(np.int64)
    return index.search(queries, k)


def reconstruct(index, i: int) -> np.ndarray:
    """The stored vector of item ``i`` (both index kinds keep the raw vectors)."""
    return index.reconstruct(int(i))
