"""Knowledge-path sampling: determinism, windows, fallbacks, the random ablation."""

from __future__ import annotations

import pytest

from judgeagent.config import GraphConfig
from judgeagent.graph import KnowledgePath, PathStep, build_graph

CORPUS = {
    "heart": [
        "Myocardial infarction follows rupture of an atherosclerotic plaque in a coronary artery.",
        "Troponin rises after myocardial infarction and stays high for days.",
        "Aspirin and heparin are given early in myocardial infarction to limit the thrombus.",
    ],
    "blood": [
        "Heparin potentiates antithrombin and is monitored with the partial thromboplastin time.",
        "Warfarin blocks vitamin K recycling and is monitored with the international normalized ratio.",
        "Aspirin irreversibly inhibits platelet cyclooxygenase.",
    ],
    "kidney": [
        "The kidney filters plasma in the glomerulus and reabsorbs sodium in the proximal tubule.",
        "Aldosterone makes the collecting duct retain sodium and excrete potassium.",
    ],
    "lung": [
        "Asthma causes reversible bronchoconstriction that improves after albuterol.",
        "Inhaled corticosteroids reduce airway inflammation in asthma.",
    ],
}


@pytest.fixture(scope="module")
def graph(spacy_extractor, embedder, tmp_path_factory):
    from judgeagent.data.benchmark import Benchmark, Chunk, Document, QuestionType

    chunks, docs = [], []
    for doc_id, texts in CORPUS.items():
        ids = tuple(f"{doc_id}-{i}" for i in range(len(texts)))
        chunks += [Chunk(c, doc_id, t) for c, t in zip(ids, texts)]
        docs.append(Document(doc_id, doc_id, ids))
    bench = Benchmark("paths", "generic", QuestionType.KQA, [], docs, chunks)
    # Share 1.0: in a 4-document corpus the default would make every shared entity a stop entity.
    return build_graph(bench, GraphConfig(stop_entity_share=1.0), tmp_path_factory.mktemp("g") / "g",
                       progress=False, extractor=spacy_extractor, embedder=embedder)


def test_same_seed_same_path(graph):
    a = graph.sample_path("myocardial infarction", 4, seed=7)
    b = graph.sample_path("myocardial infarction", 4, seed=7)
    assert a.to_dict() == b.to_dict()
    assert len(a) == 4
    assert a.start == "myocardial infarction"
    assert a.steps[0].entity == "myocardial infarction"


def test_different_seeds_can_differ(graph):
    paths = {tuple(graph.sample_path("myocardial infarction", 3, seed=s).chunk_ids) for s in range(20)}
    assert len(paths) > 1


def test_steps_are_entity_chunk_pairs_without_repeats(graph):
    for seed in range(10):
        p = graph.sample_path("heparin", 5, seed=seed)
        assert len(set(p.chunk_ids)) == len(p.chunk_ids) == 5
        for step in p.steps:
            assert step.text == graph.chunk_text(step.chunk_id)
            assert step.entity in graph.chunk_entities(step.chunk_id)
        assert len(set(p.entities)) == len(p.entities)


def test_first_chunk_is_among_top_k_by_query(graph, embedder):
    # top_k=1: always the start entity's chunk most similar to the query text.
    query = "blood thinners and clotting tests"
    firsts = {graph.sample_path("heparin", 1, seed=s, query_text=query, top_k=1).chunk_ids[0] for s in range(5)}
    assert len(firsts) == 1
    chunks = graph.node("heparin")["chunk_ids"]
    q = embedder.encode([query])[0]
    best = max(chunks, key=lambda c: float(embedder.encode([graph.chunk_text(c)])[0] @ q))
    assert firsts == {best}


def test_window_shifts_one_hop_per_round(graph):
    hops, rounds = 2, 3
    p = graph.sample_path("aspirin", hops + rounds - 1, seed=1)
    assert len(p) == 4
    for r in range(rounds):
        w = p.window(r, hops)
        assert w.steps == p.steps[r : r + hops]
        assert w.start == p.steps[r].entity
    # Past the end, a window keeps its size by ending at the last step.
    assert p.window(5, 2).steps == p.steps[2:4]
    assert p.window(0, 9).steps == p.steps


def test_each_step_records_the_link_it_was_walked_across(graph):
    for seed in range(10):
        p = graph.sample_path("heparin", 5, seed=seed)
        first, *rest = p.steps
        assert (first.via, first.via_chunk, first.edge, first.edge_weight) == (None, None, None, None)
        for before, step in zip(p.steps, rest):
            if step.via == "chunk":
                # Reached through the previous step's chunk: both entities are in it, so they share a strong edge.
                assert step.via_chunk == before.chunk_id
                assert {before.entity, step.entity} <= set(graph.chunk_entities(before.chunk_id))
                shared = len(set(graph.node(before.entity)["chunk_ids"]) & set(graph.node(step.entity)["chunk_ids"]))
                assert (step.edge, step.edge_weight) == ("strong", shared)
            else:
                assert step.via == "jump" and step.via_chunk is None
            listed = {n: (w, k) for n, w, k in graph.neighbors(before.entity)}
            expected = listed.get(step.entity)
            assert (step.edge, step.edge_weight) == ((expected[1], expected[0]) if expected else (None, None))


def test_a_dead_end_is_recorded_as_a_jump(make_benchmark, scripted_extractor, embedder, tmp_path):
    table = {"Aspirin inhibits platelets.": ["aspirin"], "Platelets clump together to form a clot.": ["platelet", "clot"]}
    bench = make_benchmark({"a": ["Aspirin inhibits platelets."], "b": ["Platelets clump together to form a clot."]})
    g = build_graph(bench, GraphConfig(stop_entity_share=1.0), tmp_path / "g", progress=False, extractor=scripted_extractor(table), embedder=embedder)
    p = g.sample_path("aspirin", 2, seed=0)
    assert p.steps[1].via == "jump" and p.steps[1].via_chunk is None and p.steps[1].edge is None
    r = g.random_path(2, seed=0)
    assert r.steps[0].via is None and r.steps[1].via == "random"


def test_path_round_trips_through_dict(graph):
    p = graph.sample_path("asthma", 3, seed=0)
    assert KnowledgePath.from_dict(p.to_dict()) == p
    assert p.entities == [s.entity for s in p.steps]
    assert p.texts == [graph.chunk_text(c) for c in p.chunk_ids]


def test_random_path_is_seeded_and_ignores_edges(graph):
    a, b = graph.random_path(4, seed=3), graph.random_path(4, seed=3)
    assert a == b and len(a) == 4 and len(set(a.chunk_ids)) == 4
    assert {graph.random_path(4, seed=s).chunk_ids[0] for s in range(10)} != {a.chunk_ids[0]}


def test_unknown_start_entity(graph):
    with pytest.raises(KeyError):
        graph.sample_path("no such entity", 2, seed=0)
    assert graph.sample_path("The Asthma", 1, seed=0).start == "asthma"  # normalised


def test_dead_end_falls_back_to_most_similar_unused_chunk(make_benchmark, scripted_extractor, embedder, tmp_path):
    texts = {
        "a-0": "Aspirin inhibits platelets.",
        "b-0": "Platelets clump together to form a clot.",
        "b-1": "Rivers carry sand to the sea.",
    }
    table = {"Aspirin inhibits platelets.": ["aspirin"],
             "Platelets clump together to form a clot.": ["platelet", "clot"],
             "Rivers carry sand to the sea.": ["river"]}
    bench = make_benchmark({"a": [texts["a-0"]], "b": [texts["b-0"], texts["b-1"]]})
    g = build_graph(bench, GraphConfig(stop_entity_share=1.0), tmp_path / "g", progress=False,
                    extractor=scripted_extractor(table), embedder=embedder)
    p = g.sample_path("aspirin", 3, seed=0)
    # aspirin's only chunk has no other entity: the walk resumes at the chunk most like
    # "aspirin" (the platelet one), then the remaining chunk.
    assert p.chunk_ids == ["a-0", "b-0", "b-1"]
    assert p.steps[0] == PathStep("aspirin", "a-0", texts["a-0"])
    assert p.steps[1].entity in ("platelet", "clot")
    # A corpus with fewer chunks than hops gives every chunk once.
    assert len(g.sample_path("aspirin", 10, seed=0)) == 3


def test_stop_entities_are_last_resort(make_benchmark, scripted_extractor, embedder, tmp_path):
    # "hubbo" is in five of six documents (over the 0.5 share, and in at least five): a stop entity.
    table = {"one": ["origo", "hubbo", "rarix"], "six": ["rarix", "zed1"],
             **{f"n{i}": ["hubbo", f"x{i}"] for i in range(2, 6)}}
    bench = make_benchmark({"d1": ["one"], **{f"d{i}": [f"n{i}"] for i in range(2, 6)}, "d6": ["six"]})
    g = build_graph(bench, GraphConfig(stop_entity_share=0.5), tmp_path / "g", progress=False,
                    extractor=scripted_extractor(table), embedder=embedder)
    assert g.node("hubbo")["stop"] and not g.node("rarix")["stop"]
    for seed in range(5):
        assert g.sample_path("origo", 2, seed=seed).entities == ["origo", "rarix"]


def test_pivot_scores_add_specificity_to_relatedness():
    import numpy as np

    from judgeagent.graph.sampler import pivot_scores

    leads_to = np.array([0.5, 0.1, 0.5, 0.3])  # best cosine of each candidate's next chunks
    counts = np.array([1, 1, 99, 9])
    corpus = 1 - np.log([2, 2, 100, 10]) / np.log(100)  # 0.8495, 0.8495, 0, 0.5
    got = pivot_scores(leads_to, counts, 99)
    assert got.tolist() == np.round(leads_to + corpus, 6).tolist()
    assert int(np.argmax(got)) == 0  # related and specific beats a related hub and an unrelated rarity
    # General-English rarity breaks the tie between two equally placed candidates.
    tied = pivot_scores(np.array([0.5, 0.5]), np.array([2, 2]), 99, zipfs=np.array([4.9, 0.0]))
    spec = 1 - np.log(3) / np.log(100)
    assert tied.tolist() == np.round([0.5 + spec + 0.1 * (1 - 4.9 / 8), 0.5 + spec + 0.1], 6).tolist()


def test_pivot_is_the_specific_bridge_not_the_hub(make_benchmark, scripted_extractor, embedder, tmp_path):
    # From "origo"'s chunk the walk can go on through "hubbo" (in 5 chunks, not a stop
    # entity at share 1.0) or "brido" (in 2): the bridge is more specific.
    table = {"p0": ["origo", "hubbo", "brido"], "p1": ["brido", "fin"],
             **{f"h{i}": ["hubbo", f"y{i}"] for i in range(4)}}
    bench = make_benchmark({"a": ["p0"], "b": ["p1"], **{f"h{i}": [f"h{i}"] for i in range(4)}})
    g = build_graph(bench, GraphConfig(stop_entity_share=1.0), tmp_path / "g", progress=False,
                    extractor=scripted_extractor(table), embedder=embedder)
    for seed in range(5):
        path = g.sample_path("origo", 2, seed=seed)
        assert path.entities == ["origo", "brido"]
        assert path.chunk_ids == ["a-0", "b-0"]
