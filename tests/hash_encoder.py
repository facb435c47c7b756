"""A stand-in for MiniLM in graph tests that need vectors but not the model: bag-of-words
vectors, so texts that share words are near, as with a sentence encoder; deterministic per
text whatever else is encoded with it, like the canonical embedding of the real one."""

from __future__ import annotations

import hashlib
import re
import threading

import numpy as np

DIM = 32


def word_vector(word: str) -> np.ndarray:
    seed = int.from_bytes(hashlib.blake2b(word.encode(), digest_size=8).digest(), "little")
    return np.random.default_rng(seed).standard_normal(DIM)


def text_vector(text: str) -> np.ndarray:
    words = re.findall(r"\w+", text.casefold()) or [""]
    v = np.sum([word_vector(w) for w in words], axis=0)
    return (v / np.linalg.norm(v)).astype(np.float32)


class HashEncoder:
    """Has what the graph asks of an encoder (name, version, dim, backend, precision, loaded,
    encode) and counts the texts it was asked to encode."""

    name = "hash-bow"
    version = "1"
    dim = DIM
    backend = "test"
    precision = "fp32"
    loaded = True
    bf16 = False

    def __init__(self) -> None:
        self.texts: list[str] = []
        self._lock = threading.Lock()

    def encode(self, texts, batch_size=None, progress=None):
        texts = list(texts)
        with self._lock:
            self.texts += texts
        if progress is not None:
            progress(len(texts))
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        return np.stack([text_vector(t) for t in texts])
