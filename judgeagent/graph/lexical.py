"""The lexical first stage of a global search in a lazily built graph.

Two searches look at the whole graph: the chunk nearest a batch's text (where a walk that
dead-ends resumes, and where a batch whose questions name no node starts), and the node
nearest a name extracted from a question. A full build answers both from FAISS over stored
vectors; a lazy one stores no vectors, so a cheap stage proposes candidates and MiniLM ranks
only those, exactly (:meth:`judgeagent.graph.context_graph.ContextGraph.nearest_chunk_indices`,
:meth:`~judgeagent.graph.context_graph.ContextGraph.resolve_entities`):

- chunks: BM25 (``bm25s``) over the chunk texts' words, lower-cased, English stop words out;
  the index is built with the graph and stored in its ``lexical/`` folder;
- entity names: character-level similarity of the query to every node name (``rapidfuzz``),
  computed at query time from the names the graph already holds.

How many candidates each stage passes on (:data:`CHUNK_CANDIDATES`, :data:`NAME_CANDIDATES`)
was chosen from how often MiniLM's own nearest item over the whole graph is among them
(``bench/build_graph.py --real-prose``; docs/measurements/build.md).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

import numpy as np

FOLDER = "lexical"
CHUNK_CANDIDATES = 200
NAME_CANDIDATES = 100

_WORD = re.compile(r"[^\W_]+")


def _stopwords() -> frozenset[str]:
    from bm25s.stopwords import STOPWORDS_EN

    return frozenset(STOPWORDS_EN)


def tokens(text: str, stop: frozenset[str] | None = None) -> list[str]:
    """The words BM25 indexes: lower-cased runs of letters and digits, stop words out."""
    stop = _stopwords() if stop is None else stop
    return [w for w in _WORD.findall(text.casefold()) if w not in stop]


def make_chunk_index(texts: Sequence[str]):
    """The BM25 index of ``texts`` (None for no texts)."""
    import bm25s

    if not texts:
        return None
    stop = _stopwords()
    corpus = [tokens(t, stop) for t in texts]
    index = bm25s.BM25()
    index.index(corpus, show_progress=False)
    return index


def save_chunk_index(index, folder: Path) -> None:
    """Save an index of :func:`make_chunk_index` in ``folder`` (created; empty for no texts)."""
    Path(folder).mkdir()
    if index is not None:
        index.save(str(folder), show_progress=False)


class ChunkLexicon:
    """A saved BM25 index, memory-mapped; :meth:`candidates` is the first stage."""

    def __init__(self, folder: Path, n_chunks: int):
        import bm25s

        self.n = n_chunks
        self._index = bm25s.BM25.load(str(folder), mmap=True, show_progress=False) if n_chunks else None
        self._stop = _stopwords()

    def scores(self, text: str) -> np.ndarray:
        """BM25 score of every chunk for ``text`` (0 where no word is shared)."""
        if self._index is None:
            return np.zeros(self.n, dtype=np.float32)
        ids = self._index.get_tokens_ids(tokens(text, self._stop))
        if not ids:
            return np.zeros(self.n, dtype=np.float32)
        return np.asarray(self._index.get_scores_from_ids(ids), dtype=np.float32)

    def candidates(self, text: str, k: int, exclude: Sequence[int] = (), near: Sequence[int] = ()) -> np.ndarray:
        """Up to ``k`` chunk rows, best BM25 score first (ties: the lower row), none of ``exclude``.

        When fewer than ``k`` chunks share a word with ``text``, the rest are the chunks
        nearest in the corpus to the rows of ``near`` (the path so far: the walk stays in
        its documents), then the first chunks of the corpus.
        """
        scores = self.scores(text).astype(np.float64)
        scores[np.asarray(list(exclude), dtype=np.int64)] = -np.inf
        order = np.lexsort((np.arange(self.n), -scores))
        hits = order[scores[order] > 0][:k]
        if len(hits) >= k:
            return hits
        taken = set(hits.tolist()) | set(int(e) for e in exclude)
        fill = [int(r) for r in _by_distance(near, self.n) if r not in taken][: k - len(hits)]
        return np.concatenate([hits, np.asarray(fill, dtype=np.int64)]).astype(np.int64)


def _by_distance(near: Sequence[int], n: int) -> np.ndarray:
    """Every row, nearest first to any of ``near`` (ties: the lower row); corpus order without ``near``."""
    rows = np.arange(n)
    if not len(near):
        return rows
    dist = np.min(np.abs(rows[:, None] - np.asarray(list(near))[None, :]), axis=1)
    return np.lexsort((rows, dist))


def name_candidates(queries: Sequence[str], names: Sequence[str], k: int, allowed: np.ndarray | None = None) -> list[np.ndarray]:
    """For each query, the rows of the ``k`` names most like it in characters (best first;
    ties: the lower row), among the rows where ``allowed`` is true.

    The score is the better of rapidfuzz's ``ratio`` (the whole strings' edit similarity:
    inflections, spelling) and ``token_set_ratio`` (shared words, in any order: "heart
    failure" in "congestive heart failure").
    """
    if not queries or not len(names):
        return [np.zeros(0, dtype=np.int64) for _ in queries]
    out = []
    rows = np.arange(len(names))
    for lo in range(0, len(queries), _QUERY_BLOCK):
        for s in name_scores(queries[lo : lo + _QUERY_BLOCK], names):
            if allowed is not None:
                s = np.where(allowed, s, -1.0)
            top = np.argpartition(-s, min(k, len(s)) - 1)[:k] if len(s) > k else rows
            top = top[np.lexsort((top, -s[top]))]
            out.append(top[s[top] >= 0].astype(np.int64))
    return out


_QUERY_BLOCK = 64  # queries scored at once: 64 x the names' count of float32


def name_scores(queries: Sequence[str], names: Sequence[str]) -> np.ndarray:
    """(len(queries), len(names)) character similarity, 0-100 (see :func:`name_candidates`)."""
    from rapidfuzz import fuzz, process

    return np.maximum(process.cdist(queries, names, scorer=fuzz.ratio, dtype=np.float32, workers=1),
                      process.cdist(queries, names, scorer=fuzz.token_set_ratio, dtype=np.float32, workers=1))
