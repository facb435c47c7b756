"""Vectors for decisions: every verdict taken on a threshold over MiniLM cosines is computed
from torch fp32 vectors, whatever the CPU and whatever encoder the run otherwise uses.

On a CPU that multiplies bfloat16 natively MiniLM runs under bf16 autocast (about half the
CPU time); elsewhere it runs in fp32 (:func:`judgeagent.graph.embed.bf16_supported`). The two
kinds of vectors keep a cosine above 0.9999, but a threshold set where real scores fall
(the leakage guard's, calibrated on the maxima of clean advice) is crossed by smaller
differences than that: the content-free sentence "The questions below are shown a second
time." scored 0.058 for one question under bf16 and 0.060 under fp32, against a threshold of
0.06. So the leakage guard, the quality gate's copy checks and the seed-entity matching
floor all decide on fp32 vectors (:func:`decision_embedder`), and give one verdict on any CPU.

What this costs: on a CPU with native bf16 a second copy of MiniLM (about 90 MB) and fp32
passes over the texts those checks read (a batch's suggestions and options, generated
question stems, the benchmark's seed stems once per run, names extracted from the seeds).
The graph's own vectors and queries (chunk ranking, paths) stay in the run's precision:
they order candidates and decide no threshold.

The largest differences between the precisions, measured with ``bench/precision.py``, are
given where each decision is made (stages.leak_semantic, stages.leakage, stages.gate and
graph.seeds.decide_matches).
fp32 kernels of different instruction sets (AVX2, AVX-512) still differ in the last digits
(about 1e-6 on those scores), far inside the distance of every threshold from the scores
it was calibrated on.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from judgeagent.graph.embed import Embedder
from judgeagent.graph.embed_queue import EmbeddingQueue

__all__ = ["decision_embedder", "is_fixed_precision"]

_model: Embedder | None = None
_lock = threading.RLock()
# One fp32 queue beside each queue the run hands out, so its cache lives as long as the run's.
_companions: weakref.WeakKeyDictionary[EmbeddingQueue, EmbeddingQueue] = weakref.WeakKeyDictionary()


def is_fixed_precision(embedder: Embedder) -> bool:
    """Whether ``embedder`` already computes the decision vectors: MiniLM in torch fp32."""
    return embedder.backend == "torch" and not embedder.bf16


def _fp32_model() -> Embedder:
    global _model
    with _lock:
        if _model is None:
            _model = Embedder(backend="torch", bf16=False)
        return _model


def decision_embedder(embedder: Any) -> Any:
    """The embedder to decide with in place of ``embedder``.

    A MiniLM :class:`~judgeagent.graph.embed.Embedder` that runs in another precision or
    backend (bf16, ONNX, int8), or an :class:`EmbeddingQueue` around one, is replaced by the
    process-wide torch fp32 MiniLM (behind a queue of its own, for a queue: batched and cached
    like the run's). An fp32 torch embedder, None, or anything else (a test double) is
    returned as it is.
    """
    inner = embedder.embedder if isinstance(embedder, EmbeddingQueue) else embedder
    if not isinstance(inner, Embedder) or is_fixed_precision(inner):
        return embedder
    if not isinstance(embedder, EmbeddingQueue):
        return _fp32_model()
    with _lock:
        companion = _companions.get(embedder)
        if companion is None:
            companion = _companions[embedder] = EmbeddingQueue(_fp32_model(), embedder.cache_size, embedder.threads)
        return companion
