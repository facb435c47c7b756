"""Chunk vectors embedded beside the entity extraction (the local engine), not after it."""

from __future__ import annotations

import threading

import pytest
from conftest import ScriptedExtractor
from graph_compare import assert_same_graph

from judgeagent.config import GraphConfig
from judgeagent.graph import build_graph
from judgeagent.graph.engines import LocalEngine

TABLE = {f"Enzyme {i} cleaves substrate {i % 4} in the liver.": [f"enzyme {i}", f"substrate {i % 4}"] for i in range(12)}
THREAD = "judgeagent-embed-chunks"  # the embedding worker's name prefix


class GatedExtractor(ScriptedExtractor):
    """Streams one text at a time; after the first, waits (bounded) until the chunk embedding
    has begun, and records whether it had: the extraction cannot end before the embedding starts."""

    def __init__(self, table, began: threading.Event, fail_at: int | None = None):
        super().__init__(table)
        self.began = began
        self.fail_at = fail_at
        self.saw_embedding: bool | None = None

    def mentions(self, texts, progress=None):
        for i, text in enumerate(texts):
            if i == 1:
                self.saw_embedding = self.began.wait(30)
            if i == self.fail_at:
                raise RuntimeError("extractor broke")
            yield [(n, n.upper(), "TEST") for n in self.table.get(text, [])], []
            if progress:
                progress(1)


class RecordingEmbedder:
    """The MiniLM embedder, signalling its first call and optionally failing its chunk pass."""

    def __init__(self, inner, fail: bool = False):
        self.inner = inner
        self.began = threading.Event()
        self.fail = fail
        self.calls: list[tuple[str, int]] = []  # (thread name, texts)

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def encode(self, texts, batch_size=None, progress=None):
        self.calls.append((threading.current_thread().name, len(texts)))
        self.began.set()
        if self.fail:
            raise RuntimeError("embedder broke")
        return self.inner.encode(texts, batch_size=batch_size, progress=progress)


class AfterEngine(LocalEngine):
    """The local engine as before: chunk vectors only once the extraction is over."""

    embeds_while_extracting = False


@pytest.fixture
def bench(make_benchmark):
    texts = list(TABLE)
    return make_benchmark({"d1": texts[:6], "d2": texts[6:]})


def _build(bench, out, engine, embedder):
    return build_graph(bench, GraphConfig(embed="all"), out, progress=False, engine=engine, embedder=embedder)


def test_chunks_embedded_beside_the_extraction_give_the_same_graph(bench, embedder, tmp_path):
    beside = RecordingEmbedder(embedder)
    extractor = GatedExtractor(TABLE, beside.began)
    g = _build(bench, tmp_path / "beside", LocalEngine(extractor, beside), beside)
    assert extractor.saw_embedding is True  # the chunk pass began while the extractor was still running
    assert beside.calls[0][0].startswith(THREAD) and beside.calls[0][1] == 12  # the 12 chunks, in the background thread
    assert g.manifest["build"]["reused"]["chunk_vectors_embedded"] == 12

    after = RecordingEmbedder(embedder)
    _build(bench, tmp_path / "after", AfterEngine(ScriptedExtractor(TABLE), after), after)
    assert [name for name, _ in after.calls] == [threading.current_thread().name] * 2
    assert_same_graph(tmp_path / "beside", tmp_path / "after")


def test_torch_gets_its_threads_back(bench, embedder, tmp_path):
    import torch

    before = torch.get_num_threads()
    rec = RecordingEmbedder(embedder)
    _build(bench, tmp_path / "g", LocalEngine(GatedExtractor(TABLE, rec.began), rec), rec)
    assert torch.get_num_threads() == before
    assert not any(t.name.startswith(THREAD) for t in threading.enumerate())


def test_a_failed_chunk_embedding_fails_the_build_and_writes_nothing(bench, embedder, tmp_path):
    rec = RecordingEmbedder(embedder, fail=True)
    with pytest.raises(RuntimeError, match="embedder broke"):
        _build(bench, tmp_path / "g", LocalEngine(GatedExtractor(TABLE, rec.began), rec), rec)
    assert not (tmp_path / "g").exists()
    assert not any(t.name.startswith(THREAD) for t in threading.enumerate())


def test_a_failed_extraction_stops_the_chunk_embedding(bench, embedder, tmp_path):
    rec = RecordingEmbedder(embedder)
    extractor = GatedExtractor(TABLE, rec.began, fail_at=3)
    with pytest.raises(RuntimeError, match="extractor broke"):
        _build(bench, tmp_path / "g", LocalEngine(extractor, rec), rec)
    # The build returned only after the background thread ended: nothing keeps embedding.
    assert not any(t.name.startswith(THREAD) for t in threading.enumerate())
    assert not (tmp_path / "g").exists()

