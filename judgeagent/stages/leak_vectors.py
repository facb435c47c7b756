"""The vectors of one leak check: each distinct text embedded once, in one pass, and kept by text.

:func:`judgeagent.stages.leakage.find_leaks` reads vectors in many places: the paraphrase check,
the semantic layer, the learned layer's numbers for the whole text and for each sentence, and
each sentence checked again alone for the learned layer's doubt. Each place used to embed what
it needed itself, so the options, the answer texts and the content-free sentences were embedded
again and again in one check (several times per sentence), and again in every check of the
same batch (a judge's feedback of 700 characters was reported to take up to ~35 CPU s of
MiniLM in fp32 on a loaded machine; docs/measurements/leak-guard.md has what was measured).

:func:`check_embedder` gives every place the same cache: the texts a check will read are
embedded up front in one pass (:func:`judgeagent.stages.leakage.guard_texts` lists them), and
each later read finds its rows there. What depends only on the batch's questions and options
stays cached for the next check of that batch.
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from judgeagent.graph.embed_queue import EmbeddingQueue
from judgeagent.graph.fixed_precision import decision_embedder

# Rows kept per embedder (384 fp32 each: about 30 MB when full), far more than a run's
# options, answer texts and the sentences of the checks in flight.
CACHE_SIZE = 20_000

_lock = threading.Lock()
# Keyed weakly, and the queue holds the embedder through a proxy: the cache goes with the embedder.
_queues: weakref.WeakKeyDictionary[Any, EmbeddingQueue] = weakref.WeakKeyDictionary()


def check_embedder(embedder: Any) -> EmbeddingQueue:
    """The embedder a leak check decides with (:func:`decision_embedder`), behind a cache by text.

    An :class:`EmbeddingQueue` already is one (a run's, or the fp32 companion of a run's bf16
    one) and is returned as it is. Any other embedder gets a queue of its own that lives as
    long as it does, or, when it cannot be referenced weakly, one for this check alone.
    """
    embedder = decision_embedder(embedder)
    if isinstance(embedder, EmbeddingQueue):
        return embedder
    with _lock:
        try:
            queue = _queues.get(embedder)
            if queue is None:
                queue = _queues[embedder] = EmbeddingQueue(weakref.proxy(embedder), CACHE_SIZE)
        except TypeError:  # not hashable or not weakly referable
            queue = EmbeddingQueue(embedder, CACHE_SIZE)
        return queue
