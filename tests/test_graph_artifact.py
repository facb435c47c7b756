"""The on-disk artefact: reuse, --force, interrupted builds, load errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from judgeagent.config import GraphConfig
from judgeagent.errors import JudgeAgentError
from judgeagent.graph import EntityMatch, build_graph, load_graph, store
from judgeagent.graph import build as build_mod
from judgeagent.graph.chunk_cache import CACHE_FILE

TABLE = {"Aspirin inhibits platelets.": ["aspirin", "platelet"],
         "Heparin potentiates antithrombin.": ["heparin", "antithrombin"],
         "Warfarin blocks vitamin K.": ["warfarin", "vitamin k"]}


@pytest.fixture
def bench(make_benchmark):
    return make_benchmark({"d1": list(TABLE)[:2], "d2": list(TABLE)[2:]})


def _build(bench, out, extractor, embedder, **config):
    """A graph with every vector stored (--embed all): the artefact these tests read back.
    Lazily built graphs are tested in test_graph_lazy.py."""
    config.setdefault("embed", "all")
    return build_graph(bench, GraphConfig(**config), out, progress=False, extractor=extractor, embedder=embedder)


def test_layout_and_manifest(bench, scripted_extractor, embedder, tmp_path):
    g = _build(bench, tmp_path / "g", scripted_extractor(TABLE), embedder)
    assert g.reused is False
    files = {p.name for p in (tmp_path / "g").iterdir()}
    assert files == {store.MANIFEST, *store.DATA_FILES, CACHE_FILE}
    m = json.loads((tmp_path / "g" / "manifest.json").read_text())
    assert m["input_hash"] and m["extractor"] == "scripted:v1"
    assert m["embedding_model"]["name"].endswith("all-MiniLM-L6-v2")
    assert m["counts"]["chunks"] == 3 and m["counts"]["entities"] == 6
    assert m["indexes"]["entity"]["type"] == "IndexFlatIP" and m["indexes"]["chunk"]["vectors"] == 3
    assert set(m["timings_s"]) >= {"extract", "graph", "embed", "index", "write", "total"}
    assert {"spacy", "faiss-cpu", "sentence-transformers", "networkx"} <= set(m["versions"])
    assert [p.name for p in tmp_path.iterdir()] == ["g"]  # no staging folders left behind


def test_second_build_reuses(bench, scripted_extractor, embedder, tmp_path):
    first = _build(bench, tmp_path / "g", scripted_extractor(TABLE), embedder)
    again = _build(bench, tmp_path / "g", scripted_extractor(TABLE), embedder)
    assert again.reused is True
    assert again.manifest["created"] == first.manifest["created"]
    assert again.manifest["input_hash"] == first.manifest["input_hash"]


def test_changed_input_or_settings_or_force_rebuilds(bench, make_benchmark, scripted_extractor, embedder, tmp_path):
    out = tmp_path / "g"
    first = _build(bench, out, scripted_extractor(TABLE), embedder)
    forced = _build(bench, out, scripted_extractor(TABLE), embedder, force=True)
    assert forced.reused is False and forced.manifest["input_hash"] == first.manifest["input_hash"]

    other = make_benchmark({"d1": list(TABLE)[:1], "d2": list(TABLE)[1:]})  # chunk moved to another document
    changed = _build(other, out, scripted_extractor(TABLE), embedder)
    assert changed.reused is False and changed.manifest["input_hash"] != first.manifest["input_hash"]

    setting = _build(other, out, scripted_extractor(TABLE), embedder, stop_entity_share=0.5)
    assert setting.reused is False
    # Settings that do not change the graph do not force a rebuild.
    assert _build(other, out, scripted_extractor(TABLE), embedder, stop_entity_share=0.5, workers=2).reused


def test_source_file_bytes_are_hashed(bench, scripted_extractor, embedder, tmp_path):
    src = tmp_path / "questions.jsonl"
    src.write_text('{"id": 1}\n')
    bench.source_files = [str(src)]
    out = tmp_path / "g"
    _build(bench, out, scripted_extractor(TABLE), embedder)
    src.write_text('{"id": 2}\n')
    assert _build(bench, out, scripted_extractor(TABLE), embedder).reused is False


def _explode(*a, **k):
    raise RuntimeError("disk full")


def test_interrupted_first_build_leaves_nothing_loadable(bench, scripted_extractor, embedder, tmp_path, monkeypatch):
    monkeypatch.setattr(build_mod, "save_index", _explode)  # dies in the middle of the write stage
    with pytest.raises(RuntimeError, match="disk full"):
        _build(bench, tmp_path / "g", scripted_extractor(TABLE), embedder)
    assert list(tmp_path.iterdir()) == []  # staging folder removed, nothing published
    with pytest.raises(JudgeAgentError, match="no graph here"):
        load_graph(tmp_path / "g")


def test_interrupted_rebuild_keeps_the_previous_graph(bench, scripted_extractor, embedder, tmp_path, monkeypatch):
    out = tmp_path / "g"
    first = _build(bench, out, scripted_extractor(TABLE), embedder)
    monkeypatch.setattr(store, "write_manifest", _explode)  # dies just before the manifest
    with pytest.raises(RuntimeError):
        _build(bench, out, scripted_extractor(TABLE), embedder, force=True)
    monkeypatch.undo()
    kept = load_graph(out, embedder=embedder)
    assert kept.manifest["created"] == first.manifest["created"]
    assert kept.entity_names == first.entity_names
    assert [p.name for p in tmp_path.iterdir()] == ["g"]


def test_killed_build_staging_is_ignored_and_cleaned(bench, scripted_extractor, embedder, tmp_path):
    # What a SIGKILL mid-write leaves: a hidden staging folder with no manifest.
    stale = tmp_path / ".g.tmp-999999-abcdef"
    stale.mkdir()
    (stale / store.NODES).write_text("{}")
    with pytest.raises(JudgeAgentError):
        load_graph(tmp_path / "g")
    _build(bench, tmp_path / "g", scripted_extractor(TABLE), embedder)
    assert not stale.exists()


def test_half_written_folder_is_refused(tmp_path):
    half = tmp_path / "g"
    half.mkdir()
    (half / store.NODES).write_text("{}")
    with pytest.raises(JudgeAgentError, match="not a complete graph"):
        load_graph(half)


def test_missing_data_file_is_refused(bench, scripted_extractor, embedder, tmp_path):
    _build(bench, tmp_path / "g", scripted_extractor(TABLE), embedder)
    (tmp_path / "g" / store.CHUNK_INDEX).unlink()
    with pytest.raises(JudgeAgentError, match="missing chunk.faiss"):
        load_graph(tmp_path / "g")


def test_empty_benchmark_is_an_error(make_benchmark, scripted_extractor, embedder, tmp_path):
    with pytest.raises(JudgeAgentError, match="no reference texts"):
        _build(make_benchmark({}), tmp_path / "g", scripted_extractor({}), embedder)


# --- format 2: mapped arrays and indexes, stop entities without vectors --------------------

STOP_TABLE = {f"Common finding {i} with marker {i}.": ["common finding", f"marker {i}"] for i in range(6)}


def test_opening_maps_arrays_and_vectors_instead_of_reading_them(bench, scripted_extractor, embedder, tmp_path):
    _build(bench, tmp_path / "g", scripted_extractor(TABLE), embedder)
    g = load_graph(tmp_path / "g", embedder=embedder)
    t = g.tables
    mapped = [t.node_chunk_ptr, t.node_chunk_idx, t.chunk_ent_ptr, t.chunk_ent_idx, t.adj_ptr, t.adj_idx, t.adj_weight,
              t.adj_kind, t.stop]
    assert all(isinstance(a, np.memmap) for a in mapped)
    assert isinstance(g.chunk_vectors, np.memmap)
    assert sorted(p.name for p in (tmp_path / "g" / store.ARRAYS).iterdir()) == sorted(
        f"{n}.npy" for n in [*t.arrays(), "chunk_doc", "text_offsets", "entity_vec_node"])
    # The mapped entity index answers like the one built in memory.
    assert g.resolve_entities(["aspirin"])[0].entity == "aspirin"
    assert g.search_chunks("Heparin potentiates antithrombin.", k=1)[0][0] == "d1-1"


def test_a_format_1_graph_is_rebuilt_not_loaded(bench, scripted_extractor, embedder, tmp_path):
    out = tmp_path / "g"
    first = _build(bench, out, scripted_extractor(TABLE), embedder)
    manifest = json.loads((out / store.MANIFEST).read_text())
    manifest["format_version"] = 1
    (out / store.MANIFEST).write_text(json.dumps(manifest))
    with pytest.raises(JudgeAgentError, match="graph format 1, this version reads 2 and 3; rebuild it with --force"):
        load_graph(out)
    again = _build(bench, out, scripted_extractor(TABLE), embedder)
    assert again.reused is False and again.manifest["input_hash"] == first.manifest["input_hash"]


def test_stop_entities_get_no_vector(make_benchmark, scripted_extractor, embedder, tmp_path):
    bench = make_benchmark({f"d{i}": [text] for i, text in enumerate(STOP_TABLE)})
    g = _build(bench, tmp_path / "g", scripted_extractor(STOP_TABLE), embedder)
    assert g.manifest["counts"]["stop_entities"] == 1 and g.node("common finding")["stop"] is True
    assert g.entity_index.ntotal == g.manifest["counts"]["entities"] - 1 == 6
    assert g.manifest["build"]["reused"]["entity_vectors"] == 6
    assert not g.has_vector("common finding") and g.has_vector("marker 3")
    # A query naming it is matched by name; its vector, when asked for, is embedded then.
    assert g.resolve_entities(["Common finding"])[0] == EntityMatch("Common finding", "common finding", 1.0, True)
    assert float(g.entity_vector("common finding") @ embedder.encode(["common finding"])[0]) > 0.9999
    # A free-text query can only land on entities that have vectors.
    markers = [f"marker {i}" for i in range(6)]
    sims = embedder.encode(markers) @ embedder.encode(["common findings"])[0]
    got = g.resolve_entities(["common findings"])[0]
    assert (got.entity, got.exact) == (markers[int(np.argmax(sims))], False)
    assert abs(got.similarity - float(sims.max())) < 1e-3
    assert float(g.entity_vector("marker 3") @ embedder.encode(["marker 3"])[0]) > 0.9999
