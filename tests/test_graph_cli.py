"""build-graph / graph-info / sample-path through the real Typer app."""

from __future__ import annotations

import json
import re
from collections import defaultdict
from itertools import combinations
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from typer.testing import CliRunner

from judgeagent.cli.app import app
from judgeagent.graph.store import read_arrays

DOCS = [
    ("heart", "Myocardial infarction follows rupture of an atherosclerotic plaque.\n\n"
              "Aspirin and heparin limit the thrombus in myocardial infarction."),
    ("blood", "Heparin potentiates antithrombin.\n\nWarfarin blocks vitamin K recycling in the liver."),
    ("lung", "Asthma causes reversible bronchoconstriction.\n\nInhaled corticosteroids reduce airway inflammation."),
]


@pytest.fixture
def data_dir(tmp_path):
    d = tmp_path / "tinybench"
    d.mkdir()
    (d / "corpus.jsonl").write_text("".join(json.dumps({"doc_id": i, "text": t}) + "\n" for i, t in DOCS))
    (d / "questions.jsonl").write_text(
        json.dumps({"id": "q1", "question": "What does heparin potentiate?", "answer": "antithrombin"}) + "\n"
    )
    return d


@pytest.fixture
def runner(spacy_extractor, embedder):
    # The fixtures load the models once; the commands then find them already in memory.
    return CliRunner()


def _build(runner, data_dir, out, *extra):
    return runner.invoke(app, ["build-graph", str(data_dir), "--out", str(out), "--stop-share", "1.0", *extra])


def test_build_then_reuse_then_force(runner, data_dir, tmp_path):
    out = tmp_path / "graphs" / "tiny"
    first = _build(runner, data_dir, out)
    assert first.exit_code == 0, first.output
    assert "built graph at" in first.stdout
    assert "entities" in first.stdout and "3 chunks, 3 documents" in first.stdout
    assert re.search(r"extract entities\W+3/3 ", first.output), first.output  # the bar reaches its total
    again = _build(runner, data_dir, out)
    assert again.exit_code == 0 and "reused graph" in again.stdout
    forced = _build(runner, data_dir, out, "--force")
    assert forced.exit_code == 0 and "built graph" in forced.stdout
    changed = _build(runner, data_dir, out, "--chunk-tokens", "16")
    assert changed.exit_code == 0 and "built graph" in changed.stdout


def test_bad_data_is_a_one_line_error(runner, tmp_path):
    (tmp_path / "empty").mkdir()
    result = runner.invoke(app, ["build-graph", str(tmp_path / "empty"), "--out", str(tmp_path / "g")])
    assert result.exit_code == 2
    assert "error:" in result.stderr and "Traceback" not in result.output
    assert len(result.stderr.strip().splitlines()) == 1


def expected_info(graph_dir: Path, min_count: int, window: int, weak_min_chunks: int, top: int = 15) -> dict:
    """graph-info's figures, recomputed with networkx from what the build stored per chunk
    (its entity names and its document), not from the adjacency the build derived.

    The rules: a stop entity is in more than the stop share of the documents, or of the
    chunks, and in at least ``min_count`` of them; it gets no edges. Entities sharing a chunk
    have a strong edge; entities in chunks of one document at most ``window`` chunks apart
    (and in no chunk together), each in at least ``weak_min_chunks`` chunks, have a weak one."""
    names = json.loads((graph_dir / "nodes.json").read_text())["names"]
    n_docs = len(json.loads((graph_dir / "chunks.json").read_text())["docs"])
    share = json.loads((graph_dir / "manifest.json").read_text())["settings"]["stop_entity_share"]
    arrays = read_arrays(graph_dir / "arrays")
    ptr, idx, chunk_doc = arrays["chunk_ent_ptr"], arrays["chunk_ent_idx"], arrays["chunk_doc"]
    chunk_ents = [{names[i] for i in idx[ptr[c] : ptr[c + 1]]} for c in range(len(ptr) - 1)]
    docs_of, chunks_of = defaultdict(set), defaultdict(set)
    for c, ents in enumerate(chunk_ents):
        for e in ents:
            docs_of[e].add(int(chunk_doc[c]))
            chunks_of[e].add(c)

    def is_stop(e: str) -> bool:
        d, c = len(docs_of[e]), len(chunks_of[e])
        return (d > share * n_docs and d >= min_count) or (c > share * len(chunk_ents) and c >= min_count)

    stop = {e for e in names if is_stop(e)}
    strong, near = nx.Graph(), nx.Graph()
    for ents in chunk_ents:
        strong.add_edges_from(combinations(sorted(ents - stop), 2))
    reading_order = defaultdict(list)  # a document's chunks, in the order they were stored
    for c, d in enumerate(chunk_doc):
        reading_order[int(d)].append(c)
    spread = {e for e in names if len(chunks_of[e]) >= weak_min_chunks} - stop
    for chunks in reading_order.values():
        for i, a in enumerate(chunks):
            for b in chunks[i + 1 : i + 1 + window]:
                near.add_edges_from((x, y) for x in chunk_ents[a] & spread for y in chunk_ents[b] & spread if x != y)
    weak = nx.Graph(p for p in near.edges if not strong.has_edge(*p))
    g = nx.compose(strong, weak)
    g.add_nodes_from(names)
    degree = {n: g.degree(n) for n in names}
    live = g.subgraph(set(names) - stop)
    components = sorted((len(c) for c in nx.connected_components(live)), reverse=True)
    return {
        "nodes": len(names),
        "edges": {"strong": strong.number_of_edges(), "weak": weak.number_of_edges(),
                  "total": strong.number_of_edges() + weak.number_of_edges()},
        "stop_entity_count": len(stop),
        "isolated_nodes": sum(1 for n in live if degree[n] == 0),
        "connected_components": len(components),
        "largest_component_nodes": components[0],
        "degree_quantiles": {f"p{round(q * 100)}": float(np.quantile(list(degree.values()), q))
                             for q in (0.0, 0.25, 0.5, 0.75, 0.9, 0.99, 1.0)},
        "top": [(n, degree[n], len(chunks_of[n])) for n in sorted(names, key=lambda n: (-degree[n], n))[:top]],
        "stop": [(n, len(docs_of[n]), len(chunks_of[n])) for n in sorted(stop, key=lambda n: (-len(docs_of[n]), n))[:top]],
    }


def info_json(runner, graph_dir) -> dict:
    result = runner.invoke(app, ["graph-info", str(graph_dir), "--json"])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def check_against_networkx(info: dict, graph_dir: Path) -> dict:
    want = expected_info(graph_dir, info["stop_entity_min_count"], info["weak_edge_window"],
                         info["weak_edge_min_chunks"])
    got = {k: info[k] for k in want if k in info}
    got["top"] = [(r["entity"], r["degree"], r["chunks"]) for r in info["top_entities_by_degree"]]
    got["stop"] = [(r["entity"], r["documents"], r["chunks"]) for r in info["stop_entities"]]
    assert got == want
    assert info["largest_component_share"] == round(want["largest_component_nodes"] / (want["nodes"] - want["stop_entity_count"]), 4)
    return want


def test_graph_info_json(runner, data_dir, tmp_path):
    out = tmp_path / "g"
    assert _build(runner, data_dir, out).exit_code == 0
    info = info_json(runner, out)
    assert (info["chunks"], info["documents"], info["stop_entity_count"]) == (3, 3, 0)
    want = check_against_networkx(info, out)
    # Each document is one chunk and no entity is in two: a clique per chunk, one component each.
    sizes = sorted((len(set(e)) for e in _chunk_entity_lists(out)), reverse=True)
    assert want["connected_components"] == 3 and want["largest_component_nodes"] == sizes[0]
    assert info["edges"] == {"strong": sum(k * (k - 1) // 2 for k in sizes), "weak": 0, "total": sum(k * (k - 1) // 2 for k in sizes)}
    assert info["degree_quantiles"]["p100"] == sizes[0] - 1 and info["degree_quantiles"]["p0"] == sizes[-1] - 1
    text = runner.invoke(app, ["graph-info", str(out)])
    assert text.exit_code == 0 and "top entities by degree" in text.stdout
    assert f"components {want['connected_components']} " in text.stdout


def _chunk_entity_lists(graph_dir: Path) -> list[list[int]]:
    arrays = read_arrays(graph_dir / "arrays")
    ptr, idx = arrays["chunk_ent_ptr"], arrays["chunk_ent_idx"]
    return [list(idx[ptr[c] : ptr[c + 1]]) for c in range(len(ptr) - 1)]


def test_graph_info_on_the_demo_graph_matches_networkx(runner, demo_graph):
    info = info_json(runner, demo_graph)
    want = check_against_networkx(info, demo_graph)
    # The demo textbooks share entities across sections: there are stop entities and weak edges.
    assert want["stop_entity_count"] > 0 and want["edges"]["weak"] > 0 and info["stop_entities"]


def test_graph_info_on_missing_graph(runner, tmp_path):
    result = runner.invoke(app, ["graph-info", str(tmp_path / "nothing")])
    assert result.exit_code == 2 and "build-graph" in result.stderr


@pytest.mark.parametrize("embed", ["all", "lazy"])
def test_sample_path_is_reproducible(runner, data_dir, tmp_path, embed):
    out = tmp_path / "g"
    assert _build(runner, data_dir, out, "--embed", embed).exit_code == 0
    args = ["sample-path", str(out), "--entity", "Heparin", "--hops", "3", "--seed", "4"]
    a, b = runner.invoke(app, args), runner.invoke(app, args)
    assert a.exit_code == 0, a.output
    assert a.stdout == b.stdout
    how = "encoder was not loaded" if embed == "all" else "made when first needed and kept in the graph folder"
    assert "'heparin'" in a.stdout and how in a.stdout
    assert a.stdout.count("  1. (") == 1 and "  3. (" in a.stdout


def test_sample_path_free_text_uses_the_encoder(runner, data_dir, tmp_path):
    out = tmp_path / "g"
    assert _build(runner, data_dir, out).exit_code == 0
    result = runner.invoke(app, ["sample-path", str(out), "--entity", "blood clotting drugs", "--hops", "2"])
    assert result.exit_code == 0, result.output
    assert "nearest graph entity" in result.stdout and "cosine" in result.stdout
    assert "embedded with MiniLM" in result.stdout
