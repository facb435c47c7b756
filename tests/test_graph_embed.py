"""The MiniLM embedder and the multi-process spaCy path."""

from __future__ import annotations

import multiprocessing
import os
import signal

import numpy as np
import pytest

from judgeagent.graph import Embedder, SpacyExtractor
from judgeagent.graph.embed_backends import TorchRunner


def test_encode_is_normalised_float32_and_dedups(embedder):
    texts = ["aspirin", "heparin inhibits clotting", "aspirin", ""]
    v = embedder.encode(texts)
    assert v.dtype == np.float32 and v.shape == (4, 384)
    np.testing.assert_allclose(np.linalg.norm(v, axis=1), 1.0, atol=1e-5)
    np.testing.assert_array_equal(v[0], v[2])
    assert embedder.encode([]).shape == (0, 384)


def test_progress_counts_every_input_text(embedder):
    seen = []
    embedder.encode(["a b", "a b", "c d", "e f"], batch_size=2, progress=seen.append)
    assert sum(seen) == 4


def test_a_batch_is_cut_where_the_length_halves_so_a_long_text_pads_no_short_one():
    from judgeagent.graph.embed import padding_batches
    from judgeagent.minilm import count_wordpieces_batch

    passage = " ".join(["The tide turned and the boats came home to the harbour wall."] * 16)
    texts = ["Recall the rule.", passage, "Check the units before you divide.", "Weigh each option on its date.", "Go."]
    batches = padding_batches(texts, 64)
    pieces = count_wordpieces_batch(texts)
    assert sorted(i for b in batches for i in b) == list(range(len(texts)))
    assert batches[0] == [1]  # the passage alone: every other text is less than half as long
    # Short texts stay together: cutting them apart would save fewer pieces than a pass costs.
    assert batches[1:] == [[2, 3, 0, 4]] and max(pieces[i] for i in batches[1]) - min(pieces[i] for i in batches[1]) < 16
    # At most batch_size to a batch.
    assert [len(b) for b in padding_batches([texts[2], texts[3], texts[0]] * 2, 2)] == [2, 2, 2]


def test_cutting_batches_leaves_every_fp32_vector_as_it_was(embedder):
    # The same texts in one batch padded to the passage and in batches cut by length: in fp32, what
    # the leakage guard decides on, the same vectors to rounding (bf16 moves them by its own ~1e-3).
    from judgeagent.graph.fixed_precision import decision_embedder

    fp32 = decision_embedder(embedder)
    passage = " ".join(["Ink dries faster on warm paper than on cold."] * 20)
    texts = ["Recall the rule.", passage, "Check the units before you divide."]
    together = fp32.model.encode(texts, 64)
    together /= np.linalg.norm(together, axis=1, keepdims=True)
    np.testing.assert_allclose(fp32.encode(texts), together, atol=1e-6)


@pytest.fixture(scope="module")
def fp32_runner():
    from judgeagent.graph.embed import model_path
    from judgeagent.graph.embed_backends import load_runner

    return load_runner("torch", model_path(), bf16=False)


def test_bf16_and_fp32_agree(fp32_runner):
    from judgeagent.graph.embed import model_path
    from judgeagent.graph.embed_backends import load_runner

    fp32 = Embedder(bf16=False)
    fp32._model = fp32_runner
    bf16 = Embedder(bf16=True)
    bf16._model = load_runner("torch", model_path(), bf16=True)
    assert (fp32.precision, bf16.precision) == ("fp32", "bf16-autocast")
    texts = ["Warfarin blocks vitamin K recycling in the liver.", "asthma", "the royal society"]
    cos = (fp32.encode(texts) * bf16.encode(texts)).sum(axis=1)
    assert cos.min() > 0.999


def test_bf16_weights_stored_once_give_autocasts_embeddings_bit_for_bit(fp32_runner):
    """The bf16 loader keeps its Linear weights in bfloat16 instead of autocast re-casting
    fp32 ones at every batch: the embeddings must not change at all."""
    import torch

    from judgeagent.graph.embed import model_path
    from judgeagent.graph.embed_backends import load_runner

    stored = load_runner("torch", model_path(), bf16=True)
    linears = [m for m in stored.model.modules() if isinstance(m, torch.nn.Linear)]
    assert linears and all(m.weight.dtype == torch.bfloat16 for m in linears)
    recast = TorchRunner(fp32_runner.model, bf16=True)  # fp32 weights, cast by autocast per call
    texts = ["Warfarin blocks vitamin K recycling in the liver.", "asthma", "v4l2_pix_fmt_y41p", "the royal society"]
    assert np.array_equal(stored.encode(texts, 2), recast.encode(texts, 2))


def test_worker_processes_give_the_same_entities(spacy_extractor):
    texts = [f"Patient {i} took warfarin and aspirin for atrial fibrillation." for i in range(8)]
    texts += ["Robert Hooke joined the Royal Society in London."] * 2
    multi = SpacyExtractor(workers=2, batch_size=2)  # small batches so 10 texts use 2 processes
    assert multi.extract(texts) == spacy_extractor.extract(texts)
    assert multi.labels["robert hooke"] == ("Robert Hooke", "PERSON")


def _idle(ready) -> None:
    ready.set()
    while True:
        signal.pause()


def test_forked_processes_leave_the_parents_servers_and_end_on_sigterm(spacy_extractor, monkeypatch, tmp_path):
    from judgeagent.llm import local_server

    marker = tmp_path / "stopped"

    class ParentsServer:  # stands for a llama server this process started
        def stop(self) -> None:
            marker.write_text(str(os.getpid()))

    monkeypatch.setattr(local_server, "_running", {ParentsServer()})
    monkeypatch.setattr(local_server, "_owner_pid", os.getpid())
    previous = signal.signal(signal.SIGTERM, signal.SIG_DFL)
    try:
        local_server.install_exit_hooks()  # as a run with the bundled model does
        assert signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL
        # The pool ends its forked workers with SIGTERM once the texts are done.
        texts = ["Robert Hooke joined the Royal Society in London."] * 6
        assert SpacyExtractor(workers=2, batch_size=2).extract(texts) == spacy_extractor.extract(texts)
        # Any other forked child keeps the handler, and ends as SIGTERM ends it by default.
        ctx = multiprocessing.get_context("fork")
        ready = ctx.Event()
        child = ctx.Process(target=_idle, args=(ready,))
        child.start()
        assert ready.wait(60)
        os.kill(child.pid, signal.SIGTERM)
        child.join(60)
        assert child.exitcode == -signal.SIGTERM
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert not marker.exists()  # no child stopped its parent's server
