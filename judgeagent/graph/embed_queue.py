"""Embeddings for concurrently running interview batches: one worker, batched, cached.

The quality gate embeds every generated question and the leakage guard embeds every
batch's suggestions. With eight batches each calling MiniLM in its own thread, the model
ran eight single-text forward passes at once on two cores: each pass is almost as costly
as a pass over a dozen texts, and the passes fought each other and the event loop for the
cores. :class:`EmbeddingQueue` runs one encode at a time and folds every request that
arrived meanwhile into the next one, so N waiting batches cost about one pass, not N.
Vectors are kept by text, since option texts, seeds and accepted questions recur.

The passes beside running batches get one thread (``threads``). They are a few short
texts; with a second thread, torch took both cores for each pass, and the event loop and the
endpoint's server (a local one shares the machine) stalled, which delayed every request in
flight. Measured with bench/evaluate.py on 2 cores: 1.22x the ideal with two threads,
1.10-1.22x (median 1.15x over 5 runs) with one. The synchronous :meth:`EmbeddingQueue.encode`
primes the cache before the batches start (the seeds for the gate, the answer texts for the
leakage guard) and keeps torch's usual threads; with that, 1.03-1.07x over 5 runs.
"""

from __future__ import annotations

import asyncio
from collections import OrderedDict
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from judgeagent.graph.embed import torch_threads


class EmbeddingQueue:
    """Wraps anything with ``encode(texts) -> (n, d)``; adds :meth:`aencode` and a cache.

    ``encode`` stays synchronous (cache first, then the model for the rest) so the queue
    can stand wherever an embedder is expected.
    """

    def __init__(self, embedder: Any, cache_size: int = 50_000, threads: int | None = 1):
        self.embedder = embedder
        self.threads = threads
        self.cache_size = cache_size
        self._cache: OrderedDict[str, np.ndarray] = OrderedDict()
        self._waiting: list[tuple[list[str], asyncio.Future]] = []
        self._worker: asyncio.Task | None = None
        self.passes = 0  # model calls made, for benchmarks and tests
        self.texts_encoded = 0

    # The wrapped embedder's attributes (dim, name, loaded …) stay reachable.
    def __getattr__(self, name: str) -> Any:
        return getattr(self.embedder, name)

    def _store(self, texts: Sequence[str], vecs: Sequence[np.ndarray] | np.ndarray) -> None:
        for text, vec in zip(texts, vecs):
            self._cache[text] = vec
            self._cache.move_to_end(text)
        while len(self._cache) > self.cache_size:
            self._cache.popitem(last=False)

    def _missing(self, texts: Iterable[str]) -> list[str]:
        return list(dict.fromkeys(t for t in texts if t not in self._cache))

    def _model_encode(self, texts: list[str], threads: int | None) -> np.ndarray:
        with torch_threads(threads if getattr(self.embedder, "loaded", False) else None):
            return np.asarray(self.embedder.encode(texts), dtype=np.float32)

    def _count(self, texts: list[str]) -> None:
        self.passes += 1
        self.texts_encoded += len(texts)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, getattr(self.embedder, "dim", 0)), dtype=np.float32)
        # The texts already known are read before the new ones are stored: storing them may
        # evict the oldest entries of a full cache, and those can be this call's own.
        known = {t: self._cache[t] for t in texts if t in self._cache}
        for t in known:
            self._cache.move_to_end(t)
        missing = list(dict.fromkeys(t for t in texts if t not in known))
        # A synchronous call holds the event loop anyway (priming, before the batches run),
        # so it leaves torch its usual threads; only the passes beside running batches get one.
        fresh = dict(zip(missing, self._model_encode(missing, None))) if missing else {}
        if missing:
            self._count(missing)
            self._store(missing, list(fresh.values()))
        return np.stack([fresh[t] if t in fresh else known[t] for t in texts]).astype(np.float32, copy=False)

    async def aencode(self, texts: Sequence[str]) -> np.ndarray:
        """Like :meth:`encode`, without blocking the event loop, batched with other callers."""
        texts = list(texts)
        missing = self._missing(texts)
        if missing:
            future = asyncio.get_running_loop().create_future()
            self._waiting.append((missing, future))
            if self._worker is None or self._worker.done():
                self._worker = asyncio.create_task(self._drain())
            await future
        return self.encode(texts)  # from the cache, unless it overflowed meanwhile

    async def _drain(self) -> None:
        while self._waiting:
            requests, self._waiting = self._waiting, []
            texts = self._missing(t for wanted, _ in requests for t in wanted)
            try:
                vecs = await asyncio.to_thread(self._model_encode, texts, self.threads) if texts else None
            except Exception as e:  # every waiting caller sees the model's error
                for _, future in requests:
                    if not future.done():
                        future.set_exception(e)
                continue
            if vecs is not None:
                self._count(texts)
                self._store(texts, vecs)
            for _, future in requests:
                if not future.done():
                    future.set_result(None)


async def embed(embedder: Any, texts: Sequence[str]) -> np.ndarray:
    """``texts`` embedded without blocking the event loop: batched through an
    :class:`EmbeddingQueue` when given one, else in a thread."""
    if isinstance(embedder, EmbeddingQueue):
        return await embedder.aencode(texts)
    return np.asarray(await asyncio.to_thread(embedder.encode, list(texts)), dtype=np.float32)
