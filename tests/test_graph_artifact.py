"""The on-disk artefact: reuse, --force, interrupted builds, load errors."""

from __future__ import annotations

import json

import pytest

from judgeagent.config import GraphConfig
from judgeagent.errors import JudgeAgentError
from judgeagent.graph import build_graph, load_graph
from judgeagent.graph import build as build_mod
from judgeagent.graph import store

TABLE = {"Aspirin inhibits platelets.": ["aspirin", "platelet"],
         "Heparin potentiates antithrombin.": ["heparin", "antithrombin"],
         "Warfarin blocks vitamin K.": ["warfarin", "vitamin k"]}


@pytest.fixture
def bench(make_benchmark):
    return make_benchmark({"d1": list(TABLE)[:2], "d2": list(TABLE)[2:]})


def _build(bench, out, extractor, embedder, **config):
    return build_graph(bench, GraphConfig(**config), out, progress=False, extractor=extractor, embedder=embedder)


def test_layout_and_manifest(bench, scripted_extractor, embedder, tmp_path):
    g = _build(bench, tmp_path / "g", scripted_extractor(TABLE), embedder)
    assert g.reused is False
    files = {p.name for p in (tmp_path / "g").iterdir()}
    assert files == {store.MANIFEST, *store.DATA_FILES}
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
