"""Whether two built graph folders hold the same graph (shared by the engine and incremental tests)."""

from __future__ import annotations

import numpy as np

from judgeagent.graph import load_graph
from judgeagent.graph.store import LEXICAL, read_arrays

MIN_COSINE = 0.9999  # between two embeddings of one string: bf16 autocast varies with the batch it ran in


def assert_same_vectors(a: np.ndarray, b: np.ndarray) -> None:
    """Row by row the same embedding, within float tolerance: cosine of each pair >= MIN_COSINE."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    assert a.shape == b.shape
    cos = (a * b).sum(axis=1) / np.maximum(np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1), 1e-12)
    assert cos.min() >= MIN_COSINE, (int(cos.argmin()), float(cos.min()))


def assert_same_graph(a_dir, b_dir) -> None:
    """Same entities, labels, edges, chunk ids and documents; embeddings within float tolerance
    (lazily built graphs: the same lexical index)."""
    a, b = load_graph(a_dir), load_graph(b_dir)
    assert a.entity_names == b.entity_names
    assert (a.tables.labels, a.tables.kinds) == (b.tables.labels, b.tables.kinds)
    assert (a.chunk_ids, a.documents) == (b.chunk_ids, b.documents)
    arrays_a, arrays_b = read_arrays(a_dir / "arrays"), read_arrays(b_dir / "arrays")
    assert sorted(arrays_a) == sorted(arrays_b)
    for name in arrays_a:
        assert np.array_equal(arrays_a[name], arrays_b[name]), name
    assert a.lazy == b.lazy
    if a.lazy:  # no vectors: the lexical index instead, file for file
        files = sorted(p.name for p in (a_dir / LEXICAL).iterdir())
        assert files == sorted(p.name for p in (b_dir / LEXICAL).iterdir())
        for name in files:
            assert (a_dir / LEXICAL / name).read_bytes() == (b_dir / LEXICAL / name).read_bytes(), name
        assert a.manifest["counts"] == b.manifest["counts"]
        return
    assert_same_vectors(a.chunk_vectors, b.chunk_vectors)
    rows = a.entity_index.ntotal
    assert rows == b.entity_index.ntotal
    assert_same_vectors(a.entity_index.reconstruct_n(0, rows), b.entity_index.reconstruct_n(0, rows))
    assert a.manifest["counts"] == b.manifest["counts"]
