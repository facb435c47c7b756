"""Incremental builds: the per-chunk cache in the graph folder, and what a rebuild reuses."""

from __future__ import annotations

import shutil

import pytest
from conftest import MEDQA_DEMO, ScriptedExtractor
from graph_compare import assert_same_graph
from typer.testing import CliRunner

from judgeagent.cli.app import app
from judgeagent.config import GraphConfig
from judgeagent.graph import build as build_mod
from judgeagent.graph import build_graph
from judgeagent.graph.chunk_cache import CACHE_FILE, ChunkCache

TABLE = {f"Drug {i} binds receptor {i % 3}.": [f"drug {i}", f"receptor {i % 3}"] for i in range(6)}


class CountingExtractor(ScriptedExtractor):
    """Scripted, and records every text it is asked to extract."""

    def __init__(self, table, name="scripted:v1"):
        super().__init__(table)
        self.name = name
        self.seen: list[str] = []

    def extract(self, texts, progress=None):
        self.seen += list(texts)
        return super().extract(texts, progress)


@pytest.fixture
def bench(make_benchmark):
    texts = list(TABLE)
    return make_benchmark({"d1": texts[:3], "d2": texts[3:]})


def _build(bench, out, extractor, embedder, **config):
    """With every vector embedded at build time (--embed all), whose reuse these tests count too."""
    config.setdefault("embed", "all")
    return build_graph(bench, GraphConfig(**config), out, progress=False, extractor=extractor, embedder=embedder)


@pytest.mark.slow
def test_rebuild_after_one_document_changed_extracts_only_its_chunk(runner_data, demo_graph, tmp_path):
    """The medqa-demo graph (lazy, with its cache) and the demo data with one paragraph
    rewritten: one chunk is extracted again, and the graph equals a from-scratch build."""
    out = tmp_path / "g"
    shutil.copytree(demo_graph, out)
    data = runner_data(tmp_path / "data")
    result = CliRunner().invoke(app, ["build-graph", str(data), "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "reused 79 of 80 chunk extractions; no vectors embedded" in result.output

    fresh = CliRunner().invoke(app, ["build-graph", str(data), "--out", str(tmp_path / "fresh")])
    assert fresh.exit_code == 0, fresh.output
    assert "reused 0 of 80 chunk extractions; no vectors embedded" in fresh.output
    assert_same_graph(out, tmp_path / "fresh")
    assert "zorbaxane" in (out / "nodes.json").read_text()


@pytest.fixture
def runner_data():
    """A copy of medqa-demo whose third Nephrology paragraph names a new drug."""

    def make(folder):
        shutil.copytree(MEDQA_DEMO, folder)
        book = folder / "textbooks" / "Nephrology.txt"
        lines = book.read_text(encoding="utf-8").splitlines()
        # Same shape as the paragraph it replaces (four sentences), so chunking stays the same.
        lines[2] = lines[2].replace("Nonenzymatic glycation of proteins", "Zorbaxane, a fictional nephrotoxin,")
        book.write_text("\n".join(lines) + "\n", encoding="utf-8")
        return folder

    return make


def test_force_rebuild_keeps_the_cache_and_reuses_everything(bench, embedder, tmp_path):
    out = tmp_path / "g"
    first = _build(bench, out, CountingExtractor(TABLE), embedder)
    assert first.manifest["build"]["reused"]["extracted"] == 6
    again = CountingExtractor(TABLE)
    forced = _build(bench, out, again, embedder, force=True)
    assert again.seen == []
    assert forced.manifest["build"]["reused"] == {
        "chunks": 6, "extracted": 0, "extraction_reused": 6, "chunk_vectors_embedded": 0,
        "entity_vectors": first.manifest["counts"]["entities"], "entity_vectors_embedded": 0}
    assert (out / CACHE_FILE).is_file()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g"]  # the old folder went with the publish


def test_changed_chunk_is_extracted_again_and_graph_matches_a_fresh_build(bench, make_benchmark, embedder, tmp_path):
    out = tmp_path / "g"
    _build(bench, out, CountingExtractor(TABLE), embedder)
    texts = list(TABLE)
    changed_text = "Drug 9 binds receptor 0."
    table = {**TABLE, changed_text: ["drug 9", "receptor 0"]}
    changed = make_benchmark({"d1": texts[:3], "d2": [texts[3], changed_text, texts[5]]})
    incremental = CountingExtractor(table)
    g = _build(changed, out, incremental, embedder)
    assert incremental.seen == [changed_text]
    assert g.manifest["build"]["reused"]["chunk_vectors_embedded"] == 1
    assert g.manifest["build"]["reused"]["entity_vectors_embedded"] == 1  # "drug 9"; "receptor 0" was cached
    _build(changed, tmp_path / "fresh", CountingExtractor(table), embedder)
    assert_same_graph(out, tmp_path / "fresh")


def test_another_extractor_identity_misses_the_cache(bench, embedder, tmp_path):
    out = tmp_path / "g"
    _build(bench, out, CountingExtractor(TABLE), embedder)
    other = CountingExtractor(TABLE, name="scripted:v2")
    _build(bench, out, other, embedder)
    assert other.seen == list(TABLE)


def test_interrupted_rebuild_keeps_what_it_extracted(bench, make_benchmark, embedder, tmp_path, monkeypatch):
    out = tmp_path / "g"
    _build(bench, out, CountingExtractor(TABLE), embedder)
    texts = list(TABLE)
    table = {**TABLE, "Drug 7 binds receptor 1.": ["drug 7", "receptor 1"]}
    changed = make_benchmark({"d1": texts[:3], "d2": [*texts[3:], "Drug 7 binds receptor 1."]})

    def explode(*a, **k):
        raise RuntimeError("disk full")

    monkeypatch.setattr(build_mod, "save_index", explode)
    with pytest.raises(RuntimeError, match="disk full"):
        _build(changed, out, CountingExtractor(table), embedder)
    monkeypatch.undo()
    after = CountingExtractor(table)
    _build(changed, out, after, embedder)
    assert after.seen == []  # the failed build left its extraction in the previous graph's cache
    assert sorted(p.name for p in tmp_path.iterdir()) == ["g"]


def test_cache_prunes_entries_once_stale_ones_outnumber_live_ones(tmp_path):
    cache = ChunkCache(tmp_path / CACHE_FILE)
    from judgeagent.graph.chunk_cache import key
    from judgeagent.graph.cooccur import ChunkExtraction

    record = ChunkExtraction((("aspirin", "Aspirin", "CONCEPT"),), (("numeric", "12"),))
    cache.put_extractions([(key("x", str(i)), record) for i in range(5)])
    cache.close()

    cache = ChunkCache(tmp_path / CACHE_FILE)
    live = [key("x", "0"), key("x", "1")]
    assert cache.get_extractions(live) == {k: record for k in live}
    assert cache.prune() == 3  # 5 entries, 2 used: the 3 stale ones go
    assert cache.has_extractions([key("x", str(i)) for i in range(5)]) == set(live)
    assert cache.prune() == 0  # nothing stale left
    cache.close()


class StreamingEngine:
    """A local engine that watches how many of the extractions it handed out are still alive."""

    name = "watching"
    embeds_while_extracting = False

    def __init__(self, extractor, embedder):
        from collections import Counter

        self.extractor, self.embedder = extractor, embedder
        self.node_items = Counter()
        self.handed: list = []
        self.most_alive = 0

    def extract(self, texts, progress=None):
        import weakref

        from judgeagent.graph.engines import extractions

        for e in extractions(self.extractor, texts, progress):
            self.most_alive = max(self.most_alive, sum(r() is not None for r in self.handed))
            self.handed.append(weakref.ref(e))
            yield e

    def embed(self, texts, batch_size, progress=None):
        return self.embedder.encode(list(texts), batch_size=batch_size)

    def close(self):
        pass


def test_extractions_stream_into_the_tables_a_window_at_a_time(make_benchmark, embedder, tmp_path, monkeypatch):
    monkeypatch.setattr(build_mod, "CACHE_WINDOW", 4)
    table = {f"Compound {i} targets site {i % 5}.": [f"compound {i}", f"site {i % 5}"] for i in range(30)}
    bench = make_benchmark({f"d{k}": list(table)[k * 6:(k + 1) * 6] for k in range(5)})
    engine = StreamingEngine(ScriptedExtractor(table), embedder)
    g = build_graph(bench, GraphConfig(), tmp_path / "g", progress=False, engine=engine, embedder=embedder)
    assert len(engine.handed) == 30 and g.manifest["counts"]["entities"] == 35
    assert engine.most_alive <= 4  # never more than one window of chunks held, not the corpus
