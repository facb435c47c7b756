"""Graph structure on a hand-checked corpus (a scripted extractor, so spaCy cannot move it).

Corpus (chunk: entities)::

    d1  d1-0: alpha beta gamma     d1-1: alpha beta delta
    d2  d2-0: beta epsilon         d2-1: zeta gamma
    d3  d3-0: gamma                d3-1: epsilon

Strong edges (shared chunks): alpha-beta 2, alpha-gamma 1, beta-gamma 1, alpha-delta 1,
beta-delta 1, beta-epsilon 1, gamma-zeta 1.
Weak edges (shared documents, no shared chunk): gamma-delta 1 (d1), beta-zeta 1 (d2),
epsilon-zeta 1 (d2), gamma-epsilon 2 (d2, d3).
Documents per entity: alpha 1, beta 2, gamma 3, delta 1, epsilon 2, zeta 1.
"""

from __future__ import annotations

import pytest

from judgeagent.config import GraphConfig
from judgeagent.graph import build_graph

ENTITIES = {
    "d1-0": ["alpha", "beta", "gamma"],
    "d1-1": ["alpha", "beta", "delta"],
    "d2-0": ["beta", "epsilon"],
    "d2-1": ["zeta", "gamma"],
    "d3-0": ["gamma"],
    "d3-1": ["epsilon"],
}

STRONG = {
    ("alpha", "beta"): 2, ("alpha", "gamma"): 1, ("beta", "gamma"): 1, ("alpha", "delta"): 1,
    ("beta", "delta"): 1, ("beta", "epsilon"): 1, ("gamma", "zeta"): 1,
}
WEAK = {("delta", "gamma"): 1, ("beta", "zeta"): 1, ("epsilon", "zeta"): 1, ("epsilon", "gamma"): 2}


@pytest.fixture
def corpus(make_benchmark):
    docs: dict[str, list[str]] = {}
    for cid in ENTITIES:
        docs.setdefault(cid.split("-")[0], []).append(cid)  # text == chunk ID
    return make_benchmark(docs)


def _edges(graph):
    out = {}
    for name in graph.entity_names:
        for other, weight, kind in graph.neighbors(name):
            out[tuple(sorted((name, other)))] = (weight, kind)
    return out


def test_nodes_edges_and_weights(corpus, embedder, scripted_extractor, tmp_path):
    g = build_graph(corpus, GraphConfig(stop_entity_share=1.0), tmp_path / "g", progress=False,
                    extractor=scripted_extractor(ENTITIES), embedder=embedder)
    assert g.entity_names == ["alpha", "beta", "delta", "epsilon", "gamma", "zeta"]
    expected = {tuple(sorted(k)): (w, "strong") for k, w in STRONG.items()}
    expected |= {tuple(sorted(k)): (w, "weak") for k, w in WEAK.items()}
    assert _edges(g) == expected
    assert g.node("gamma") == {
        "chunk_ids": ["d1-0", "d2-1", "d3-0"], "doc_ids": ["d1", "d2", "d3"],
        "label": "GAMMA", "kind": "TEST", "stop": False,
    }
    # strong first, then by weight
    assert g.neighbors("gamma") == [("alpha", 1, "strong"), ("beta", 1, "strong"), ("zeta", 1, "strong"),
                                    ("epsilon", 2, "weak"), ("delta", 1, "weak")]
    assert g.chunk_entities("d1-1") == ["alpha", "beta", "delta"]
    assert g.chunk_text("d2-1") == "d2-1"
    assert g.chunk_doc("d3-1") == "d3"
    m = g.manifest["counts"]
    assert (m["entities"], m["edges_strong"], m["edges_weak"], m["chunks"], m["documents"]) == (6, 7, 4, 6, 3)


def test_networkx_view_matches(corpus, embedder, scripted_extractor, tmp_path):
    g = build_graph(corpus, GraphConfig(stop_entity_share=1.0), tmp_path / "g", progress=False,
                    extractor=scripted_extractor(ENTITIES), embedder=embedder)
    nxg = g.to_networkx()
    assert sorted(nxg.nodes) == g.entity_names
    assert nxg.number_of_edges() == 11
    assert nxg.edges["alpha", "beta"] == {"weight": 2, "kind": "strong"}
    assert nxg.edges["epsilon", "gamma"] == {"weight": 2, "kind": "weak"}
    assert nxg.nodes["beta"]["chunk_ids"] == ["d1-0", "d1-1", "d2-0"]
    assert nxg.nodes["beta"]["doc_ids"] == ["d1", "d2"]


def test_stop_entities_get_no_edges(corpus, embedder, scripted_extractor, tmp_path):
    # 3 documents, share 0.7: only gamma (in all 3, > 2.1) is a stop entity.
    g = build_graph(corpus, GraphConfig(stop_entity_share=0.7), tmp_path / "g", progress=False,
                    extractor=scripted_extractor(ENTITIES), embedder=embedder)
    assert [n for n in g.entity_names if g.node(n)["stop"]] == ["gamma"]
    assert g.neighbors("gamma") == []
    assert g.node("gamma")["chunk_ids"] == ["d1-0", "d2-1", "d3-0"]  # still knows its chunks
    survivors = {k: v for k, v in {**{k: (w, "strong") for k, w in STRONG.items()},
                                   **{k: (w, "weak") for k, w in WEAK.items()}}.items() if "gamma" not in k}
    assert _edges(g) == {tuple(sorted(k)): v for k, v in survivors.items()}
    assert g.manifest["counts"]["stop_entities"] == 1


def test_default_share_and_single_document_entities(corpus, embedder, scripted_extractor, tmp_path):
    # Default 0.2 of 3 documents: every entity in 2+ documents is a stop entity, but an
    # entity in a single document never is (a share of a tiny corpus means nothing).
    g = build_graph(corpus, GraphConfig(), tmp_path / "g", progress=False,
                    extractor=scripted_extractor(ENTITIES), embedder=embedder)
    stops = {n for n in g.entity_names if g.node(n)["stop"]}
    assert stops == {"beta", "gamma", "epsilon"}
    assert _edges(g) == {("alpha", "delta"): (1, "strong")}
