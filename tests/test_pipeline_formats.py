"""Whole interviews on the two demo benchmarks that are not MedQA: QuALITY (reading multiple
choice, RMC) and MultiHop-RAG (phrase answers, KQA), against the scripted target and judge.

ACC1 and ACC2 are counted by hand from each plan (right before advice, right after advice);
no plan has a batch the target gets fully right, so every batch is re-asked.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from interview_double import Script, schema_name
from scripted_server import ScriptedServer
from typer.testing import CliRunner

from judgeagent.cli.app import app

ROOT = Path(__file__).resolve().parents[1] / "data"
T, F = True, False

# QuALITY demo: three articles with 5, 6 and 5 questions; batches of 3 never mix articles.
QUALITY_PLAN = [
    (T, T), (F, T), (F, F),  # b0000, article 1: 1 right → 2 right
    (T, F), (F, T),  # b0001, article 1: 1 → 1
    (F, T), (F, T), (T, T),  # b0002, article 2: 1 → 3
    (T, T), (T, T), (F, F),  # b0003, article 2: 2 → 2
    (F, F), (F, F), (F, T),  # b0004, article 3: 0 → 1
    (T, T), (F, T),  # b0005, article 3: 1 → 2
]
# the first six MultiHop-RAG demo questions, in batches of three
MULTIHOP_PLAN = [(T, T), (F, T), (F, F), (F, T), (T, F), (F, F)]


@pytest.fixture(scope="module")
def graphs(tmp_path_factory, spacy_extractor, embedder):
    """The two demo graphs, built once for this module (spaCy and MiniLM already loaded)."""
    from judgeagent.config import GraphConfig
    from judgeagent.data import load_benchmark
    from judgeagent.graph import build_graph

    out = {}
    for name in ("quality-demo", "multihop-demo"):
        out[name] = tmp_path_factory.mktemp("graphs") / name
        build_graph(load_benchmark(ROOT / name), GraphConfig(), out[name], progress=False, extractor=spacy_extractor)
    return out


def interview(tmp_path: Path, graph: Path, name: str, plan, *extra: str):
    """Run `judgeagent evaluate` on a demo benchmark; returns (records, metrics, request bodies)."""
    from judgeagent.data import load_benchmark

    seeds = load_benchmark(ROOT / name).questions[: len(plan)]
    script = Script(
        seed_plan={q.question.strip(): p for q, p in zip(seeds, plan)},
        answers={q.question.strip(): q.answer for q in seeds},
    )
    with ScriptedServer(script) as srv:
        model = f"{srv.base_url}@scripted"
        result = CliRunner().invoke(app, [
            "evaluate", "--target", model, "--judge", model, "--data", str(ROOT / name), "--graph", str(graph),
            "--limit", str(len(plan)), "--out", str(tmp_path / "run"), "--concurrency", "2",
            "--no-report", "--no-summary", "--leak-check", "rules", *extra,
        ])
        bodies = srv.requests
    assert result.exit_code == 0, result.output
    records = [json.loads(line) for line in (tmp_path / "run" / "records.jsonl").read_text().splitlines()]
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    return sorted(records, key=lambda r: r["batch_index"]), metrics, bodies


@pytest.mark.slow
def test_quality_interview_asks_one_article_per_batch(tmp_path, graphs):
    # Two rounds: 6 batches × 2 follow-ups use up the double's 12 distinct follow-up questions.
    records, m, bodies = interview(tmp_path, graphs["quality-demo"], "quality-demo", QUALITY_PLAN, "--rounds", "2")
    # 6 of 16 right before, 11 after; wrong → right 6 times, right → wrong once (b0001's first)
    assert (m["n_questions"], m["acc1"], m["acc2"], m["cr"], m["cte"]) == (16, 37.5, 68.75, 37.5, 6.25)
    assert m["delta_acc"] == 31.25
    # RMC: one article per batch, batches of at most 3 cut inside an article
    docs = [{q["doc_id"] for q in r["seed"]} for r in records]
    assert docs == [{"60001"}, {"60001"}, {"60002"}, {"60002"}, {"60003"}, {"60003"}]
    assert [len(r["seed"]) for r in records] == [3, 2, 3, 3, 3, 2]
    # The target reads the batch's own article, and only that one, with its seed questions.
    articles = {json.loads(line)["article_id"]: json.loads(line)["article"] for line in (ROOT / "quality-demo" / "quality.jsonl").open()}
    openings = {doc: text.split("\n")[0][:80] for doc, text in articles.items()}
    for rec in records:
        (doc,) = {q["doc_id"] for q in rec["seed"]}
        asked = [b["messages"][-1]["content"] for b in bodies if schema_name(b) == "answer_batch"
                 and rec["seed"][0]["question"].strip() in b["messages"][-1]["content"]]
        assert len(asked) == 4  # stage 1, the re-ask with suggestions, the two controls
        for prompt in asked:
            assert [d for d, opening in openings.items() if opening in prompt] == [doc]
    assert m["extension"]["asked"] == 12 and m["extension"]["skipped"] == 0


def test_multihop_interview_grades_phrase_answers(tmp_path, graphs):
    records, m, bodies = interview(tmp_path, graphs["multihop-demo"], "multihop-demo", MULTIHOP_PLAN)
    # 2 of 6 right before, 3 after; wrong → right twice, right → wrong once
    assert (m["n_questions"], m["acc1"], m["acc2"], m["cr"], m["cte"]) == (6, 33.3333, 50.0, 33.3333, 16.6667)
    seed_answers = [a for r in records for a in r["seed_answers"]]
    assert [a["correct"] for a in seed_answers] == [p[0] for p in MULTIHOP_PLAN]
    # Phrase answers: the right ones match the reference exactly.
    assert [a["graded_by"] for a in seed_answers if a["correct"]] == ["exact", "exact"]
    # No options anywhere: the target answers in phrases, and the follow-ups are phrase questions.
    assert {schema_name(b) for b in bodies} >= {"generated_phrase", "gate_answer_phrase"}
    assert not {"generated_mc", "gate_answer_mc"} & {schema_name(b) for b in bodies}
    follow_ups = [rd for r in records for rd in r["rounds"]]
    assert len(follow_ups) == 6 and all(rd["question"]["options"] is None for rd in follow_ups)
    assert m["extension"]["asked"] == 6 and m["extension_accuracy"]


def test_quality_batches_never_mix_articles_even_when_one_would_fit(tmp_path, graphs):
    # Batches of up to 10 questions: each article (5, 6 and 5 questions) is one batch.
    records, m, _ = interview(tmp_path, graphs["quality-demo"], "quality-demo", QUALITY_PLAN, "--batch-size", "10", "--rounds", "0")
    assert [[q["doc_id"] for q in r["seed"]] for r in records] == [["60001"] * 5, ["60002"] * 6, ["60003"] * 5]
    # the same answers as in batches of 3: 2 + 3 + 1 right before, 3 + 5 + 3 after
    assert (m["acc1"], m["acc2"], m["cr"], m["cte"]) == (37.5, 68.75, 37.5, 6.25)
