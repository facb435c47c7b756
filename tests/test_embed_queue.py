"""The embedding queue the interview's gate and leakage guard share, with a counting fake model."""

from __future__ import annotations

import asyncio
import re
import threading
import zlib

import numpy as np
import pytest

from judgeagent.graph.embed_queue import EmbeddingQueue, embed


class CountingModel:
    """Bag-of-words vectors; records every call, and can be made to wait or fail."""

    dim = 64

    def __init__(self):
        self.calls: list[list[str]] = []
        self.entered = threading.Event()  # set when a pass has started
        self.release = threading.Event()
        self.release.set()
        self.fail = False

    def encode(self, texts):
        self.entered.set()
        self.release.wait(5)
        if self.fail:
            raise RuntimeError("model broke")
        self.calls.append(list(texts))
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in re.findall(r"\w+", t.lower()):
                out[i, zlib.crc32(w.encode()) % self.dim] += 1
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


def test_callers_waiting_together_share_one_model_pass():
    model = CountingModel()
    queue = EmbeddingQueue(model)

    async def run():
        model.release.clear()  # the first pass blocks until every caller has queued
        first = asyncio.create_task(queue.aencode(["alpha"]))
        assert await asyncio.to_thread(model.entered.wait, 5)  # the first pass is running
        rest = [asyncio.create_task(queue.aencode([f"text {i}", "shared"])) for i in range(6)]
        await asyncio.sleep(0)  # one loop turn: each caller queues its texts before its first await
        model.release.set()
        return await first, await asyncio.gather(*rest)

    first, rest = asyncio.run(run())
    # One pass for the first caller, one for the six that waited behind it, "shared" encoded once.
    assert len(model.calls) == 2 and sorted(model.calls[1]) == sorted(["shared", *(f"text {i}" for i in range(6))])
    direct = CountingModel()
    np.testing.assert_allclose(first, direct.encode(["alpha"]))
    for i, vecs in enumerate(rest):
        np.testing.assert_allclose(vecs, direct.encode([f"text {i}", "shared"]))
    assert queue.passes == 2 and queue.texts_encoded == 8


def test_known_texts_come_from_the_cache_in_the_order_asked():
    model = CountingModel()
    queue = EmbeddingQueue(model)
    a = queue.encode(["one", "two"])
    b = asyncio.run(embed(queue, ["two", "one", "two"]))
    assert len(model.calls) == 1
    np.testing.assert_allclose(b, a[[1, 0, 1]])
    assert queue.dim == 64  # the wrapped model's attributes show through


def test_the_cache_is_bounded():
    model = CountingModel()
    queue = EmbeddingQueue(model, cache_size=3)
    queue.encode(["a", "b", "c", "d"])
    queue.encode(["a"])  # evicted: encoded again
    assert model.calls == [["a", "b", "c", "d"], ["a"]]


def test_a_full_cache_never_evicts_a_text_of_the_call_that_fills_it():
    # "a" and "b" are the oldest entries of a full cache; storing "x" and "y" for the same call
    # must not lose them (a 37,000-check run of the leak corpus once stopped on such a KeyError).
    model = CountingModel()
    queue = EmbeddingQueue(model, cache_size=3)
    queue.encode(["a", "b", "c"])
    got = queue.encode(["a", "b", "x", "y"])
    np.testing.assert_allclose(got, CountingModel().encode(["a", "b", "x", "y"]))
    assert model.calls == [["a", "b", "c"], ["x", "y"]]
    # what was read last stays: "b", "x" and "y" are known; "c" and "a", the oldest, went
    queue.encode(["b", "y"])
    assert model.calls[-1] == ["x", "y"]


def test_a_model_error_reaches_every_waiting_caller_and_the_queue_recovers():
    model = CountingModel()
    queue = EmbeddingQueue(model)

    async def run():
        model.fail = True
        results = await asyncio.gather(queue.aencode(["x"]), queue.aencode(["y"]), return_exceptions=True)
        model.fail = False
        return results, await queue.aencode(["x"])

    results, after = asyncio.run(run())
    assert all(isinstance(r, RuntimeError) for r in results)
    assert after.shape == (1, 64)


def test_embed_without_a_queue_runs_the_model_in_a_thread():
    model = CountingModel()
    caller = threading.get_ident()
    seen = []
    original = model.encode
    model.encode = lambda texts: seen.append(threading.get_ident()) or original(texts)
    vecs = asyncio.run(embed(model, ["hello world"]))
    assert vecs.shape == (1, 64) and seen and seen[0] != caller


@pytest.mark.parametrize("texts", [[], ["only"]])
def test_empty_and_single_requests(texts):
    vecs = asyncio.run(EmbeddingQueue(CountingModel()).aencode(texts))
    assert vecs.shape == (len(texts), 64)
