"""Which node a batch's knowledge path starts at (judgeagent.graph.seeds)."""

from __future__ import annotations

import numpy as np
import pytest

from judgeagent.config import GraphConfig
from judgeagent.graph import build_graph
from judgeagent.graph.seeds import (
    SeedMatch,
    StartCandidate,
    choose_start,
    is_broad,
    question_counts,
    rank_start_entities,
)


def names(ranked):
    return [c.entity for c in ranked]


def test_more_questions_first_then_fewer_chunks_then_similarity():
    ranked = rank_start_entities([
        StartCandidate("apixaban", questions=1, chunks=2, similarity=0.9),
        StartCandidate("warfarin", questions=2, chunks=9, similarity=0.1),
        StartCandidate("heparin", questions=1, chunks=2, similarity=0.4),
        StartCandidate("aspirin", questions=1, chunks=1, similarity=0.2),
        StartCandidate("bleeding", questions=1, chunks=2, similarity=0.4),
    ])
    # warfarin: two questions. Then aspirin (1 chunk), then the 2-chunk ones by similarity,
    # and equal similarity by name.
    assert names(ranked) == ["warfarin", "aspirin", "apixaban", "bleeding", "heparin"]


def test_stop_entities_never_start_and_broad_ones_only_when_nothing_is_specific():
    cands = [
        StartCandidate("patient", questions=3, chunks=40, similarity=0.5, stop=True),
        StartCandidate("diagnosis", questions=3, chunks=30, similarity=0.5, broad=True),
        StartCandidate("lisinopril", questions=1, chunks=3, similarity=0.3),
    ]
    assert names(rank_start_entities(cands)) == ["lisinopril", "diagnosis"]
    assert names(rank_start_entities(cands[:2])) == ["diagnosis"]
    assert rank_start_entities(cands[:1]) == []


@pytest.mark.parametrize("chunks, n_chunks, expected", [(10, 80, False), (11, 80, True), (25, 500, False),
                                                        (26, 500, True), (5000, 100_000, False),
                                                        (5001, 100_000, True)])
def test_broad_means_over_five_percent_of_chunks_and_over_ten(chunks, n_chunks, expected):
    assert is_broad(chunks, n_chunks) is expected


def test_question_counts_distinct_questions_with_a_real_mention():
    texts = ["Start warfarin therapy?", "Is Coumadin (WARFARIN) safe?", "Her gait shows ataxia's signs; no warfarins."]
    matches = [
        SeedMatch(0, "warfarin", "warfarin", 1.0),
        SeedMatch(0, "warfarin therapy", "warfarin", 0.93),  # same question again: counted once
        SeedMatch(1, "coumadin", "warfarin", 0.81),  # resembles it; but question 1 names it in its text
        SeedMatch(2, "gait", "ataxia", 0.55),  # a weak match, yet "ataxia's" is in question 2's text
        SeedMatch(2, "signs", "sign language", 0.62),  # weak, and not in any text
    ]
    # "warfarins" in question 2 is another word, not a mention of "warfarin".
    assert question_counts(matches, texts) == {"warfarin": 2, "ataxia": 1, "sign language": 0}


# -- on a built graph --------------------------------------------------------------------

TEXTS = {
    "c0": "Warfarin blocks vitamin K recycling and needs INR checks.",
    "c1": "Amiodarone slows warfarin metabolism and raises the INR.",
    "c2": "Heparin potentiates antithrombin.",
    "c3": "Anticoagulants raise the bleeding risk of every patient.",
    "c4": "Every patient on heparin is watched for bleeding.",
}
TABLE = {
    TEXTS["c0"]: ["warfarin", "vitamin k", "inr"],
    TEXTS["c1"]: ["amiodarone", "warfarin", "inr"],
    TEXTS["c2"]: ["heparin", "antithrombin"],
    TEXTS["c3"]: ["anticoagulant", "bleeding risk", "patient"],
    TEXTS["c4"]: ["patient", "heparin", "bleeding"],
}


@pytest.fixture(scope="module")
def graph(embedder, tmp_path_factory):
    from conftest import ScriptedExtractor

    from judgeagent.data.benchmark import Benchmark, Chunk, Document, QuestionType

    chunks = [Chunk(f"d{i}-0", f"d{i}", TEXTS[f"c{i}"]) for i in range(5)]
    docs = [Document(f"d{i}", "", (f"d{i}-0",)) for i in range(5)]
    bench = Benchmark("seeds", "generic", QuestionType.KQA, [], docs, chunks)
    return build_graph(bench, GraphConfig(stop_entity_share=1.0), tmp_path_factory.mktemp("g") / "g",
                       progress=False, extractor=ScriptedExtractor(TABLE), embedder=embedder)


def test_choose_start_prefers_the_entity_two_questions_share(graph, embedder):
    texts = ["Does amiodarone change the warfarin dose?", "What does warfarin do to the INR?", "Why heparin?"]
    query = embedder.encode([" ".join(texts)])[0]
    question_names = [["amiodarone", "warfarin"], ["warfarin", "inr"], ["heparin"]]
    matches, start = choose_start(graph, texts, question_names, query, 0.5)
    # warfarin is in two questions; amiodarone, inr and heparin in one each.
    assert start == "warfarin"
    assert {(m.question, m.query, m.entity) for m in matches} == {
        (0, "amiodarone", "amiodarone"), (0, "warfarin", "warfarin"), (1, "warfarin", "warfarin"),
        (1, "inr", "inr"), (2, "heparin", "heparin")}


def test_choose_start_without_matches_ranks_the_nearest_chunks_entities(graph, embedder):
    query = embedder.encode([TEXTS["c3"]])[0]
    matches, start = choose_start(graph, ["Who is at risk?"], [[]], query, 0.5)
    assert matches == []
    # c3's entities all count zero questions: the most specific wins (anticoagulant and
    # bleeding risk are in 1 chunk, patient in 2), then similarity to the batch text.
    sims = {e: float(np.dot(graph.entity_vector(e), query)) for e in ("anticoagulant", "bleeding risk")}
    assert start == max(sims, key=sims.get)
