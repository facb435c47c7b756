"""Encoders per role: recorded in the manifest, used for queries, refused when they differ."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pytest
from typer.testing import CliRunner

from judgeagent.cli.app import app
from judgeagent.config import GraphConfig
from judgeagent.graph import build_graph, load_graph
from judgeagent.graph.encoders import EncoderMismatch
from judgeagent.graph.static_embed import StaticEncoder

TABLE = {"Aspirin inhibits platelets in the blood.": ["aspirin", "platelet"],
         "Heparin potentiates antithrombin.": ["heparin", "antithrombin"],
         "Warfarin blocks vitamin K recycling.": ["warfarin", "vitamin k"]}


@pytest.fixture
def bench(make_benchmark):
    return make_benchmark({"d1": list(TABLE)[:2], "d2": list(TABLE)[2:]})


def _build(bench, out, extractor, embedder, **config):
    config.setdefault("embed", "all")  # the stored vectors are what these tests compare
    return build_graph(bench, GraphConfig(**config), out, progress=False, extractor=extractor(TABLE), embedder=embedder)


def test_manifest_records_each_roles_encoder(bench, scripted_extractor, embedder, tmp_path):
    g = _build(bench, tmp_path / "g", scripted_extractor, embedder, entity_encoder="wordllama", chunk_encoder="minilm")
    m = json.loads((tmp_path / "g" / "manifest.json").read_text())
    assert m["encoders"]["entities"]["encoder"] == "wordllama"
    assert m["encoders"]["entities"]["dim"] == 256 and m["encoders"]["entities"]["backend"] == "static"
    assert m["encoders"]["chunks"]["encoder"] == "minilm" and m["encoders"]["chunks"]["dim"] == 384
    assert m["settings"]["encoders"] == {"entities": "wordllama", "chunks": "minilm"}
    # The stored vectors have each role's dimension, and queries are embedded to match.
    assert g.entity_index.d == 256 and g.chunk_index.d == 384
    assert g.encoder("entities").dim == 256 and not g.shared_encoder
    match = g.resolve_entities(["the platelets"])[0]
    assert match is not None and match.entity == "platelet" and not match.exact
    assert g.search_chunks("vitamin K antagonist", k=1)[0][0] == g.chunk_ids[2]


def test_another_encoder_is_another_graph(bench, scripted_extractor, embedder, tmp_path):
    first = _build(bench, tmp_path / "g", scripted_extractor, embedder)
    assert "encoders" not in first.manifest["settings"]  # MiniLM in both roles: the input hash of graphs before roles
    assert first.manifest["encoders"]["entities"]["encoder"] == "minilm"
    other = _build(bench, tmp_path / "g", scripted_extractor, embedder, entity_encoder="wordllama")
    assert other.reused is False and other.manifest["input_hash"] != first.manifest["input_hash"]


def test_graph_refuses_queries_from_another_encoder(bench, scripted_extractor, embedder, tmp_path):
    _build(bench, tmp_path / "g", scripted_extractor, embedder)
    with pytest.raises(EncoderMismatch) as err:
        load_graph(tmp_path / "g", embedder=StaticEncoder())  # type: ignore[arg-type]
    assert "\n" not in str(err.value) and "rebuild it" in str(err.value) and "entities vectors" in str(err.value)


def test_changed_encoder_version_is_refused_in_one_line(bench, scripted_extractor, embedder, tmp_path):
    _build(bench, tmp_path / "g", scripted_extractor, embedder, entity_encoder="wordllama", chunk_encoder="wordllama")
    path = tmp_path / "g" / "manifest.json"
    m = json.loads(path.read_text())
    m["encoders"]["entities"]["version"] = "0.0.1"  # as if wordllama had been upgraded since
    path.write_text(json.dumps(m))
    result = CliRunner().invoke(app, ["sample-path", str(tmp_path / "g"), "--entity", "aspirin"])
    assert result.exit_code == 2
    lines = [x for x in result.output.splitlines() if x.strip()]
    assert len(lines) == 1 and "0.0.1" in lines[0] and "build-graph --force" in lines[0]


def test_graph_info_says_which_encoder_served_which_role(bench, scripted_extractor, embedder, tmp_path):
    _build(bench, tmp_path / "g", scripted_extractor, embedder, entity_encoder="wordllama")
    result = CliRunner().invoke(app, ["graph-info", str(tmp_path / "g")])
    assert result.exit_code == 0, result.output
    line = next(x for x in result.output.splitlines() if x.startswith("encoders:"))
    assert "entities wordllama (wordllama-l2_supercat-256" in line and "static fp32, 256-d" in line
    assert "chunks minilm (sentence-transformers/all-MiniLM-L6-v2" in line
    info = json.loads(CliRunner().invoke(app, ["graph-info", str(tmp_path / "g"), "--json"]).output)
    assert info["encoders"]["entities"]["encoder"] == "wordllama" and info["encoders"]["chunks"]["dim"] == 384


def test_graph_from_before_roles_reads_as_minilm_for_both(bench, scripted_extractor, embedder, tmp_path):
    _build(bench, tmp_path / "g", scripted_extractor, embedder)
    path = tmp_path / "g" / "manifest.json"
    m = json.loads(path.read_text())
    del m["encoders"]
    path.write_text(json.dumps(m))
    g = load_graph(tmp_path / "g", embedder=embedder)
    assert g.roles["entities"].encoder == g.roles["chunks"].encoder == "minilm" and g.shared_encoder


def test_static_vectors_ignore_batching_and_are_unit_length():
    enc = StaticEncoder()
    texts = ["vitamin k", "a much longer text about platelets and aspirin", "", "vitamin k"]
    together = enc.encode(texts)
    alone = np.stack([enc.encode([t])[0] for t in texts])
    assert np.array_equal(together, alone) and np.array_equal(together[0], together[3])
    assert np.allclose(np.linalg.norm(together[[0, 1]], axis=1), 1.0, atol=1e-6)
    assert not together[2].any()  # no token, no direction


BUILD = """
import hashlib, json, sys
from pathlib import Path
import numpy as np
from judgeagent.config import GraphConfig
from judgeagent.data import load_benchmark
from judgeagent.graph import build_graph
out, data, encoder = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
bench = load_benchmark(data)
cfg = GraphConfig(out=out, workers=1, entity_encoder=encoder, chunk_encoder=encoder, embed="all")
g = build_graph(bench, cfg, out, progress=False)
files = ["nodes.json", "chunks.json", "chunk_text.bin", *sorted(str(p.relative_to(out)) for p in (out / "arrays").iterdir())]
structure = {f: hashlib.sha256((out / f).read_bytes()).hexdigest() for f in files}
vectors = {f: hashlib.sha256((out / f).read_bytes()).hexdigest() for f in ("chunk_emb.npy", "entity.faiss", "chunk.faiss")}
np.save(out.parent / (out.name + "-chunks.npy"), np.load(out / "chunk_emb.npy"))
print(json.dumps({"structure": structure, "vectors": vectors, "precision": g.manifest["encoders"]["chunks"]["precision"]}))
"""


def _build_with_bf16(tmp_path, encoder: str) -> list[dict]:
    out = []
    for bf16 in ("0", "1"):
        run = subprocess.run([sys.executable, "-c", BUILD, str(tmp_path / f"{encoder}{bf16}"), "data/multihop-demo", encoder],
                             capture_output=True, text=True, env={**os.environ, "JUDGEAGENT_EMBED_BF16": bf16}, check=True)
        out.append(json.loads(run.stdout.strip().splitlines()[-1]))
    return out


@pytest.mark.slow
def test_static_encoders_build_the_same_graph_with_bf16_on_and_off(tmp_path):
    """With static encoders in both roles, nothing of the graph depends on the CPU's bf16
    support: every file, vectors and indexes included, is the same bit for bit."""
    off, on = _build_with_bf16(tmp_path, "wordllama")
    assert off == on and off["precision"] == "fp32"


@pytest.mark.slow
def test_minilm_graphs_differ_by_precision_in_their_vectors_only(tmp_path):
    """The default (MiniLM in both roles): nodes, edges and chunks are the same with bf16 on
    and off; only the vectors differ, within bf16's rounding."""
    off, on = _build_with_bf16(tmp_path, "minilm")
    assert off["structure"] == on["structure"]
    assert (off["precision"], on["precision"]) == ("fp32", "bf16-autocast")
    a, b = np.load(tmp_path / "minilm0-chunks.npy"), np.load(tmp_path / "minilm1-chunks.npy")
    assert (a * b).sum(axis=1).min() > 0.999
