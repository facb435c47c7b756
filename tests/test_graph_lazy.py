"""Lazily built graphs: no vectors at build time, each made on demand and kept in the graph
folder, and the two-stage search (lexical candidates, exact ranking) where a search is global."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from conftest import MEDQA_DEMO, ScriptedExtractor
from graph_compare import assert_same_vectors
from hash_encoder import HashEncoder, text_vector
from typer.testing import CliRunner

from judgeagent.cli.app import app
from judgeagent.config import GraphConfig
from judgeagent.graph import build_graph, load_graph, store
from judgeagent.graph.chunk_cache import CACHE_FILE, ChunkCache
from judgeagent.graph.vectors import VectorStore

HERE = Path(__file__).resolve().parent
CHILD = HERE / "lazy_cache_child.py"

# Twelve short chunks in three documents; each names two or three entities.
TABLE = {
    "Warfarin blocks vitamin K recycling in the liver.": ["warfarin", "vitamin k", "liver"],
    "The INR monitors warfarin therapy.": ["inr", "warfarin"],
    "Vitamin K reverses warfarin bleeding.": ["vitamin k", "warfarin", "bleeding"],
    "Heparin potentiates antithrombin.": ["heparin", "antithrombin"],
    "Protamine reverses heparin.": ["protamine", "heparin"],
    "Heparin causes thrombocytopenia in some patients.": ["heparin", "thrombocytopenia"],
    "Asthma narrows the airways reversibly.": ["asthma", "airways"],
    "Albuterol relaxes the airways in asthma.": ["albuterol", "airways", "asthma"],
    "Inhaled steroids calm asthma inflammation.": ["steroids", "asthma", "inflammation"],
    "The liver makes clotting factors.": ["liver", "clotting factors"],
    "Bleeding follows a lack of clotting factors.": ["bleeding", "clotting factors"],
    "Steroids raise blood glucose.": ["steroids", "blood glucose"],
}


@pytest.fixture
def bench(make_benchmark):
    texts = list(TABLE)
    return make_benchmark({"blood": texts[:6], "lung": texts[6:9], "liver": texts[9:]})


def _build(bench, out, encoder, **config):
    config.setdefault("stop_entity_share", 1.0)  # a 3-document corpus: no stop entities
    return build_graph(bench, GraphConfig(**config), out, progress=False, extractor=ScriptedExtractor(TABLE),
                       embedder=encoder)


def test_a_lazy_build_stores_no_vectors_and_embeds_nothing(bench, tmp_path):
    encoder = HashEncoder()
    graph = _build(bench, tmp_path / "g", encoder)
    assert encoder.texts == []
    assert graph.lazy and graph.meta.embed == "lazy"
    files = {p.name for p in (tmp_path / "g").iterdir()}
    assert files == {store.MANIFEST, *store.LAZY_FILES, CACHE_FILE}
    assert graph.meta.format_version == store.FORMAT_VERSION == 3
    assert graph.vector_counts() == {"chunks": (0, 12), "entities": (0, len(graph.entity_names))}


def test_vectors_on_demand_are_embedded_once_and_kept_in_the_graph_folder(bench, tmp_path):
    _build(bench, tmp_path / "g", HashEncoder())
    first_encoder = HashEncoder()
    graph = load_graph(tmp_path / "g", embedder=first_encoder)
    path = graph.sample_path("warfarin", 3, seed=1, query_text="warfarin and vitamin k")
    assert len(path) == 3
    asked = len(first_encoder.texts)
    assert asked == len(set(first_encoder.texts)) > 0  # each text once
    counts = graph.vector_counts()
    assert counts["chunks"][0] + counts["entities"][0] > 0

    again = HashEncoder()
    second = load_graph(tmp_path / "g", embedder=again)  # another run: reads what the first kept
    assert second.sample_path("warfarin", 3, seed=1, query_text="warfarin and vitamin k").to_dict() == path.to_dict()
    assert again.texts == []


def test_a_lazy_and_a_full_graph_give_the_same_vectors_and_paths(bench, tmp_path):
    lazy = _build(bench, tmp_path / "lazy", HashEncoder())
    full = _build(bench, tmp_path / "full", HashEncoder(), embed="all")
    assert not full.lazy
    rows = np.arange(len(full.chunk_ids))
    assert np.array_equal(lazy.chunk_vectors_at(rows), full.chunk_vectors_at(rows))
    names = [n for n in full.entity_names if full.has_vector(n)]
    assert np.array_equal(lazy.entity_vectors(names), full.entity_vectors(names))
    for start, seed in (("warfarin", 0), ("heparin", 3), ("asthma", 5), ("liver", 2)):
        a = lazy.sample_path(start, 6, seed=seed, query_text="bleeding on warfarin")
        b = full.sample_path(start, 6, seed=seed, query_text="bleeding on warfarin")
        assert a.to_dict() == b.to_dict()


def test_the_two_stage_search_finds_the_exact_nearest_chunk_when_the_candidates_cover_it(bench, tmp_path):
    graph = _build(bench, tmp_path / "g", HashEncoder())
    every = graph.chunk_vectors_at(np.arange(len(graph.chunk_ids)))
    for text in ("heparin reversal", "airways in asthma", "clotting factors and bleeding", "the liver"):
        query = text_vector(text)
        exact = int(np.argmax(every @ query))
        cands = graph.lexicon.candidates(text, 4)
        rows, _ = graph.two_stage_chunks(text, query, 1, candidates=4)
        if exact in cands:
            assert rows == [exact]
        rows, _ = graph.two_stage_chunks(text, query, 1, candidates=len(graph.chunk_ids))
        assert rows == [exact]
    # A word the query shares with one chunk only puts that chunk first among the candidates.
    assert graph.chunk_ids[int(graph.lexicon.candidates("protamine", 1)[0])] == "blood-4"


def test_the_two_stage_name_search_ranks_character_candidates_by_their_vectors(bench, tmp_path):
    graph = _build(bench, tmp_path / "g", HashEncoder())
    match = graph.resolve_entities(["warfarins"], k=3)[0]
    assert match is not None and not match.exact
    names = [n for n in graph.entity_names if not graph.tables.stop[graph.entity_names.index(n)]]
    sims = {n: float(text_vector(n) @ text_vector("warfarins")) for n in match.nearest}
    assert list(match.nearest) == sorted(sims, key=lambda n: -sims[n])
    assert set(match.nearest) <= set(names)
    assert graph.resolve_entities(["Warfarin"])[0].exact  # a node's name needs no search


def test_graph_info_says_how_many_vectors_are_embedded(bench, tmp_path):
    _build(bench, tmp_path / "g", HashEncoder())
    graph = load_graph(tmp_path / "g", embedder=HashEncoder())
    graph.chunk_vectors_at([0, 1, 2])
    graph.entity_vectors(["warfarin"])
    from judgeagent.graph import graph_info

    info = graph_info(graph)
    assert info.embed == "lazy"
    assert (info.vectors["chunks"].embedded, info.vectors["chunks"].total) == (3, 12)
    assert info.vectors["entities"].embedded == 1


def test_a_rebuild_keeps_the_vectors_runs_embedded(bench, tmp_path):
    _build(bench, tmp_path / "g", HashEncoder())
    graph = load_graph(tmp_path / "g", embedder=HashEncoder())
    graph.chunk_vectors_at(np.arange(12))
    del graph
    encoder = HashEncoder()
    rebuilt = _build(bench, tmp_path / "g", encoder, force=True)
    assert rebuilt.vector_counts()["chunks"] == (12, 12)
    full = _build(bench, tmp_path / "g", encoder, embed="all")  # pays only for the names now
    assert full.meta.build.reused.chunk_vectors_embedded == 0
    assert set(encoder.texts) == set(full.entity_names)


def test_a_format_2_graph_is_read_as_a_full_one(bench, tmp_path):
    _build(bench, tmp_path / "g", HashEncoder(), embed="all")
    manifest = json.loads((tmp_path / "g" / store.MANIFEST).read_text())
    manifest["format_version"] = 2
    del manifest["embed"]
    (tmp_path / "g" / store.MANIFEST).write_text(json.dumps(manifest))
    graph = load_graph(tmp_path / "g", embedder=HashEncoder())
    assert not graph.lazy
    assert graph.has_vector("warfarin")


@pytest.mark.slow
def test_build_graph_cli_says_nothing_was_embedded(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    (data / "corpus.jsonl").write_text(json.dumps({"doc_id": "a", "text": "Warfarin thins the blood."}) + "\n")
    (data / "questions.jsonl").write_text(json.dumps({"id": "q", "question": "What thins blood?", "answer": "warfarin"}) + "\n")
    result = CliRunner().invoke(app, ["build-graph", str(data), "--out", str(tmp_path / "g"), "--workers", "1"])
    assert result.exit_code == 0, result.output
    assert "no vectors embedded" in result.output
    assert "chunk bm25" in result.output


# --- the cache across processes ----------------------------------------------------------


def _child(cache: Path, texts: list[str], out: Path, tmp_path: Path, batch: int = 3) -> subprocess.Popen:
    texts_file = tmp_path / f"{out.stem}.json"
    texts_file.write_text(json.dumps(texts))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(HERE), str(HERE.parent)])}
    proc = subprocess.Popen([sys.executable, str(CHILD), str(cache), str(texts_file), str(out), "--batch", str(batch)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


def _cache_rows(cache: Path) -> dict[bytes, np.ndarray]:
    db = sqlite3.connect(cache)
    try:
        assert db.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        return {k: np.frombuffer(v, dtype=np.float32) for k, v in db.execute("SELECT k, v FROM vectors")}
    finally:
        db.close()


def _expected(texts: list[str]) -> dict[bytes, np.ndarray]:
    from judgeagent.graph.chunk_cache import key
    from judgeagent.graph.encoders import embed_identity

    identity = embed_identity(HashEncoder())
    return {key(identity, t): text_vector(t) for t in texts}


@pytest.mark.slow
def test_the_cache_survives_a_killed_run(tmp_path):
    """A run killed (SIGKILL) while it writes vectors leaves a cache that opens, holds only
    whole, correct vectors, and serves them to the next run, which embeds only the rest."""
    cache = tmp_path / CACHE_FILE
    ChunkCache(cache).close()
    texts = [f"passage {i} about topic {i % 7}" for i in range(20_000)]
    proc = _child(cache, texts, tmp_path / "killed.npy", tmp_path, batch=2)
    proc.stdin.write("go\n")
    proc.stdin.flush()
    for _ in range(50):  # fifty transactions committed, then killed in the middle of the next ones
        assert proc.stdout.readline().startswith("stored")
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    proc.stdout.close()
    proc.stdin.close()

    rows = _cache_rows(cache)
    expected = _expected(texts)
    assert 100 <= len(rows) < len(texts)
    for k, v in rows.items():
        assert np.array_equal(v, expected[k])
    encoder = HashEncoder()
    again = VectorStore(encoder, ChunkCache(cache))
    got = again.encode(texts[:400])
    assert np.array_equal(got, np.stack([text_vector(t) for t in texts[:400]]))
    assert again.embedded == 400 - sum(1 for k in list(expected)[:400] if k in rows)


@pytest.mark.slow
def test_two_runs_embedding_into_one_graph_at_once_corrupt_nothing(tmp_path):
    """Two processes embed overlapping texts into one cache at the same time, in many small
    transactions: both finish, each gets the right vector for every text, and the cache holds
    each text once, whole and right."""
    cache = tmp_path / CACHE_FILE
    ChunkCache(cache).close()
    shared = [f"shared passage {i}" for i in range(300)]
    a_texts = shared + [f"only a {i}" for i in range(150)]
    b_texts = [f"only b {i}" for i in range(150)] + shared[::-1]
    procs = [_child(cache, a_texts, tmp_path / "a.npy", tmp_path), _child(cache, b_texts, tmp_path / "b.npy", tmp_path)]
    for p in procs:  # both are ready: release them together
        p.stdin.write("go\n")
        p.stdin.flush()
    outputs = [p.communicate(timeout=120)[0] for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    for texts, name in ((a_texts, "a.npy"), (b_texts, "b.npy")):
        assert np.array_equal(np.load(tmp_path / name), np.stack([text_vector(t) for t in texts]))
    rows = _cache_rows(cache)
    expected = _expected(a_texts + b_texts)
    assert rows.keys() == expected.keys()
    for k, v in rows.items():
        assert np.array_equal(v, expected[k])
    embedded = [int(out.strip().splitlines()[-1].split()[1]) for out in outputs]
    assert 600 <= sum(embedded) <= 900  # each text by one process at least, the shared ones at most twice


# --- the real models -----------------------------------------------------------------------


@pytest.mark.slow
def test_the_lazy_demo_graph_plans_what_the_full_one_plans(demo_graph, embedder, spacy_extractor, tmp_path):
    """medqa-demo (80 chunks, fewer than the candidates a global search passes on, so every
    search is exact) with the real MiniLM: the lazily built graph's vectors are the full
    graph's within float tolerance (MiniLM's output moves in its last digits with its batch),
    and the batches get the same start entities and paths."""
    from judgeagent.batches import make_batches
    from judgeagent.data import load_benchmark
    from judgeagent.stages.planning import PathLength, Setting, plan_batches

    bench = load_benchmark(MEDQA_DEMO)
    full = build_graph(bench, GraphConfig(embed="all"), tmp_path / "full", progress=False, extractor=spacy_extractor,
                       embedder=embedder)
    lazy = load_graph(demo_graph, embedder=embedder)
    assert lazy.lazy and not full.lazy
    rows = np.arange(len(full.chunk_ids))
    assert_same_vectors(lazy.chunk_vectors_at(rows), full.chunk_vectors_at(rows))
    names = [n for n in full.entity_names if full.has_vector(n)]
    assert_same_vectors(lazy.entity_vectors(names), full.entity_vectors(names))
    batches = make_batches(bench, 3)
    todo = [(Setting("full"), b) for b in batches]
    length = PathLength(hops=2, rounds=3, seed=0)
    a = plan_batches(lazy, spacy_extractor, batches, todo, length)
    b = plan_batches(full, spacy_extractor, batches, todo, length)
    assert [p.start_entity for p in a.values()] == [p.start_entity for p in b.values()]
    assert [p.path for p in a.values()] == [p.path for p in b.values()]
