"""graph-info's quality figures: dropped entities by reason, the largest chunk in model
tokens, the largest component (the structure checks against networkx are in test_graph_cli)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from typer.testing import CliRunner

from judgeagent.cli.app import app
from judgeagent.data import load_benchmark
from judgeagent.data.chunking import count_model_tokens
from judgeagent.graph.generic import generic_names
from judgeagent.graph.store import read_arrays

MEDQA_DEMO = Path(__file__).resolve().parents[1] / "data" / "medqa-demo"


def info(graph_dir: Path) -> dict:
    result = CliRunner().invoke(app, ["graph-info", str(graph_dir), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_dropped_entities_by_reason_match_a_fresh_extraction(demo_graph, spacy_extractor):
    texts = [c.text for c in load_benchmark(MEDQA_DEMO).chunks]
    ents = spacy_extractor.extract(texts)
    want = {"numeric": 0, "fragment": 0, "too_long": 0, **spacy_extractor.dropped,
            "generic": len(generic_names(ents, [len(t.split()) for t in texts]))}
    got = info(demo_graph)["dropped_entities"]
    assert got == want
    assert got["numeric"] > 0 and got["generic"] > 0  # the demo textbooks have both
    # What was dropped is not a node; what survives is.
    names = set(json.loads((demo_graph / "nodes.json").read_text())["names"])
    assert not {"time", "way", "day"} & names
    assert {"heart", "blood", "kidney"} <= names


def test_largest_chunk_in_model_tokens(demo_graph):
    chunk_ids = json.loads((demo_graph / "chunks.json").read_text())["ids"]
    bench = {c.id: c.text for c in load_benchmark(MEDQA_DEMO).chunks}
    sizes = {cid: count_model_tokens(bench[cid]) + 2 for cid in chunk_ids}  # + [CLS] and [SEP]
    largest = max(sizes, key=sizes.get)
    got = info(demo_graph)["chunk_model_tokens"]
    assert got == {"largest": sizes[largest], "largest_chunk": largest, "max_seq_length": 256, "over_limit": 0}


def test_stop_rule_and_largest_component(demo_graph):
    got = info(demo_graph)
    arrays = read_arrays(demo_graph / "arrays")
    docs = np.diff(arrays["node_doc_ptr"])
    chunks = np.diff(arrays["node_chunk_ptr"])
    n_docs, n_chunks = got["documents"], got["chunks"]
    stop = ((docs > 0.2 * n_docs) & (docs >= 5)) | ((chunks > 0.2 * n_chunks) & (chunks >= 5))
    assert got["stop_entity_count"] == int(stop.sum())
    assert (got["stop_entity_min_count"], got["weak_edge_window"], got["weak_edge_min_chunks"]) == (5, 1, 2)
    assert got["largest_component_share"] == round(got["largest_component_nodes"] / (got["nodes"] - stop.sum()), 4)


def test_text_output_names_the_new_figures(demo_graph):
    got = info(demo_graph)
    result = CliRunner().invoke(app, ["graph-info", str(demo_graph)])
    assert result.exit_code == 0, result.output
    d, c = got["dropped_entities"], got["chunk_model_tokens"]
    assert (f"dropped entities {sum(d.values())}: numeric {d['numeric']}, fragment {d['fragment']}, "
            f"too long {d['too_long']}, generic {d['generic']}") in result.stdout
    assert f"largest chunk {c['largest']} model tokens ({c['largest_chunk']}; limit 256, 0 over)" in result.stdout
    assert f"(largest {got['largest_component_share']:.1%} of non-stop nodes)" in result.stdout
