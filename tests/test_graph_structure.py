"""Graph structure on a hand-checked corpus (a scripted extractor, so spaCy cannot move it).

Corpus (chunk: entities)::

    d1  d1-0: alpha beta gamma     d1-1: alpha beta digamma
    d2  d2-0: beta epsilon         d2-1: zeta gamma
    d3  d3-0: gamma                d3-1: epsilon

Strong edges (shared chunks): alpha-beta 2, alpha-gamma 1, beta-gamma 1, alpha-digamma 1,
beta-digamma 1, beta-epsilon 1, gamma-zeta 1.
Weak edges (neighbouring chunks of one document, no shared chunk, both entities in two
chunks or more): gamma-epsilon 2 (d2, d3). digamma and zeta are in one chunk each, so
gamma-digamma (d1), beta-zeta and epsilon-zeta (d2) are not edges.
Documents per entity: alpha 1, beta 2, gamma 3, digamma 1, epsilon 2, zeta 1.
"""

from __future__ import annotations

import pytest

from judgeagent.config import GraphConfig
from judgeagent.graph import build_graph

ENTITIES = {
    "d1-0": ["alpha", "beta", "gamma"],
    "d1-1": ["alpha", "beta", "digamma"],
    "d2-0": ["beta", "epsilon"],
    "d2-1": ["zeta", "gamma"],
    "d3-0": ["gamma"],
    "d3-1": ["epsilon"],
}

STRONG = {
    ("alpha", "beta"): 2, ("alpha", "gamma"): 1, ("beta", "gamma"): 1, ("alpha", "digamma"): 1,
    ("beta", "digamma"): 1, ("beta", "epsilon"): 1, ("gamma", "zeta"): 1,
}
WEAK = {("epsilon", "gamma"): 2}


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
    assert g.entity_names == ["alpha", "beta", "digamma", "epsilon", "gamma", "zeta"]
    expected = {tuple(sorted(k)): (w, "strong") for k, w in STRONG.items()}
    expected |= {tuple(sorted(k)): (w, "weak") for k, w in WEAK.items()}
    assert _edges(g) == expected
    assert g.node("gamma") == {
        "chunk_ids": ["d1-0", "d2-1", "d3-0"], "doc_ids": ["d1", "d2", "d3"],
        "label": "GAMMA", "kind": "TEST", "stop": False,
    }
    # strong first, then by weight
    assert g.neighbors("gamma") == [("alpha", 1, "strong"), ("beta", 1, "strong"), ("zeta", 1, "strong"),
                                    ("epsilon", 2, "weak")]
    assert g.neighbors("zeta") == [("gamma", 1, "strong")]  # in one chunk: no weak edges
    assert g.chunk_entities("d1-1") == ["alpha", "beta", "digamma"]
    assert g.chunk_text("d2-1") == "d2-1"
    assert g.chunk_doc("d3-1") == "d3"
    m = g.manifest["counts"]
    assert (m["entities"], m["edges_strong"], m["edges_weak"], m["chunks"], m["documents"]) == (6, 7, 1, 6, 3)


def test_networkx_view_matches(corpus, embedder, scripted_extractor, tmp_path):
    g = build_graph(corpus, GraphConfig(stop_entity_share=1.0), tmp_path / "g", progress=False,
                    extractor=scripted_extractor(ENTITIES), embedder=embedder)
    nxg = g.to_networkx()
    assert sorted(nxg.nodes) == g.entity_names
    assert nxg.number_of_edges() == 8
    assert nxg.edges["alpha", "beta"] == {"weight": 2, "kind": "strong"}
    assert nxg.edges["epsilon", "gamma"] == {"weight": 2, "kind": "weak"}
    assert nxg.nodes["beta"]["chunk_ids"] == ["d1-0", "d1-1", "d2-0"]
    assert nxg.nodes["beta"]["doc_ids"] == ["d1", "d2"]


def test_stop_entities_get_no_edges(make_benchmark, embedder, scripted_extractor, tmp_path):
    # Six one-chunk documents; "hub" is in all six (> 0.2 of 6, and in at least 5), "pair"
    # in two (over the share, but two documents are no evidence of anything).
    table = {f"h{i}": [f"u{i}", "hub"] + (["pair"] if i <= 2 else []) for i in range(1, 7)}
    bench = make_benchmark({f"h{i}": [f"h{i}"] for i in range(1, 7)})
    g = build_graph(bench, GraphConfig(stop_entity_share=0.2), tmp_path / "g", progress=False,
                    extractor=scripted_extractor(table), embedder=embedder)
    assert [n for n in g.entity_names if g.node(n)["stop"]] == ["hub"]
    assert g.neighbors("hub") == []
    assert g.node("hub")["chunk_ids"] == [f"h{i}-0" for i in range(1, 7)]  # still knows its chunks
    assert _edges(g) == {("pair", "u1"): (1, "strong"), ("pair", "u2"): (1, "strong")}
    assert g.manifest["counts"]["stop_entities"] == 1


def test_a_share_of_few_documents_makes_no_stop_entity(corpus, embedder, scripted_extractor, tmp_path):
    # Default 0.2 of 3 documents: gamma is in all three, but three is below the minimum of 5.
    g = build_graph(corpus, GraphConfig(), tmp_path / "g", progress=False,
                    extractor=scripted_extractor(ENTITIES), embedder=embedder)
    assert not any(g.node(n)["stop"] for n in g.entity_names)
    assert len(_edges(g)) == len(STRONG) + len(WEAK)


@pytest.mark.parametrize(
    "doc_count, chunk_count, n_docs, n_chunks, expected",
    [
        # 8 documents: 5 of them is > 0.2 and enough evidence; 4 is not.
        ([5, 4, 8, 1], [5, 4, 8, 1], 8, 80, [True, False, True, False]),
        # 1000 documents: the share rules (> 200), the minimum is long met.
        ([201, 200, 5], [201, 200, 5], 1000, 5000, [True, False, False]),
        # One long article: every entity is in the one document, so chunks decide.
        ([1, 1, 1], [13, 12, 4], 1, 60, [True, False, False]),
    ],
)
def test_stop_rule_is_sound_at_every_corpus_size(doc_count, chunk_count, n_docs, n_chunks, expected):
    import numpy as np

    from judgeagent.graph.cooccur import stop_entities

    got = stop_entities(np.array(doc_count), np.array(chunk_count), n_docs, n_chunks, 0.2)
    assert got.tolist() == expected


def test_weak_edges_join_neighbouring_chunks_only(make_benchmark, embedder, scripted_extractor, tmp_path):
    # One document of 20 chunks, three entities of their own in each (each found again in a
    # one-chunk reference document) and one found nowhere else: document-wide weak edges
    # would make a clique of 60 nodes (1,770 edges); neighbours give 3·3 per adjacent pair,
    # and the entity of one chunk none.
    table = {f"c{k}": [f"e{k}a", f"e{k}b", f"e{k}c", f"h{k}"] for k in range(20)}
    table |= {f"r{k}": [f"e{k}a", f"e{k}b", f"e{k}c"] for k in range(20)}
    bench = make_benchmark({"long": [f"c{k}" for k in range(20)]} | {f"ref{k}": [f"r{k}"] for k in range(20)})
    g = build_graph(bench, GraphConfig(), tmp_path / "g", progress=False,
                    extractor=scripted_extractor(table), embedder=embedder)
    counts = g.manifest["counts"]
    assert (counts["edges_strong"], counts["edges_weak"]) == (20 * 6, 19 * 9)
    assert ("e1a", 1, "weak") in g.neighbors("e0a")
    assert not any(other.startswith("e2") for other, _, _ in g.neighbors("e0a"))
    assert {kind for _, _, kind in g.neighbors("h0")} == {"strong"}


def test_weak_edge_weight_counts_neighbouring_chunk_pairs():
    from judgeagent.graph.cooccur import build_tables

    # x and y are never in one chunk; they meet across the chunk pairs (0,1) and (1,2).
    # At window 1 the edges are x–y, x–w, w–z; window 2 adds y–w and x–z (y–z: 3 apart).
    # y, w and z are also in one-chunk documents of their own, so each is in two chunks;
    # h is in one chunk only, so it has its strong edge to y and no weak one.
    chunks = [["x"], ["y", "h"], ["x"], ["w"], ["z"], ["y"], ["w"], ["z"]]
    docs = [0, 0, 0, 0, 0, 1, 2, 3]
    t = build_tables(chunks, docs, 4, 0.2)
    edges = {(t.names[i], t.names[int(j)]): (int(w), int(k))
             for i in range(t.n_nodes) for j, w, k in zip(*(a[t.adj_ptr[i]:t.adj_ptr[i + 1]]
                                                           for a in (t.adj_idx, t.adj_weight, t.adj_kind)))}
    assert edges == {("x", "y"): (2, 2), ("y", "x"): (2, 2), ("x", "w"): (1, 2), ("w", "x"): (1, 2),
                     ("w", "z"): (1, 2), ("z", "w"): (1, 2), ("h", "y"): (1, 1), ("y", "h"): (1, 1)}
    t2 = build_tables(chunks, docs, 4, 0.2, weak_window=2)
    assert t2.edge_counts() == {"strong": 1, "weak": 5}
