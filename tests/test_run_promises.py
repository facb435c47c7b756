"""What the README promises about `judgeagent evaluate`, checked through the CLI on medqa-demo.

Every count and figure below is worked out by hand from the scripted double
(tests/interview_double.py) and PLAN. With the real demo graph each batch has one knowledge
path whose windows hold two distinct chunks, so per batch (unlabeled seeds count as Medium):

- b0000 seeds right, right, wrong: s = 1.0 → rounds at medium, hard, hard (the follow-ups are
  answered right). Requests: grading 1; round 1: generation 1 + gate answerable 1 + answer 1;
  rounds 2 and 3 (Hard): generation 1 + answerable 1 + needs_hops 1 (the reader says "cannot
  be determined" with the first passage removed, which ends the check) + answer 1; then
  feedback 1, re-ask 1, the two controls 2.  1 + 3 + 4 + 4 + 1 + 1 + 2 = 16.
- b0001 seeds wrong, wrong, right: s = 0.5 → easy, medium, medium.  1 + 3·3 + 1 + 1 + 2 = 14.
- the closing summary: 1.

Runs go one batch at a time (--concurrency 1), so a request limit stops at a known place,
and check the suggestions for leaks by rules alone (--leak-check rules: the judge's own leak
check would add one call per seed question to every count).
"""

from __future__ import annotations

import json
import platform
import sqlite3
import threading
from collections import Counter
from importlib import metadata
from pathlib import Path

import numpy as np
import pytest
from interview_double import RIGHT, TOPICS, Script, schema_name
from scripted_server import ScriptedServer
from typer.testing import CliRunner

from judgeagent.cli.app import app

DATA = Path(__file__).resolve().parents[1] / "data" / "medqa-demo"

# right before / right after advice, for the first six demo questions
PLAN = [(True, True), (True, False), (False, True), (False, False), (False, True), (True, True)]
B0000, B0001, SUMMARY = 16, 14, 1  # requests, worked out in the module docstring
TRAJECTORIES = {
    # running average of the gains: seeds 1.5, 1.5, 0 → 1.5, 3/2, 3/3; then medium 1.5 → 4.5/4,
    # hard 2 → 6.5/5, hard 2 → 8.5/6
    "b0000": [1.5, 1.5, 1.0, 1.125, 1.3, 1.4167],
    # seeds 0, 0, 1.5 → 0, 0, 1.5/3; then easy 1 → 2.5/4, medium 1.5 → 4/5, medium → 5.5/6
    "b0001": [0.0, 0.0, 0.5, 0.625, 0.8, 0.9167],
}


def script_for(seeds, plan=PLAN) -> Script:
    return Script(
        seed_plan={q.question.strip(): p for q, p in zip(seeds, plan)},
        answers={q.question.strip(): q.answer for q in seeds},
    )


def evaluate(srv, graph, *extra: str, out: Path | str | None = None):
    model = f"{srv.base_url}@scripted"
    args = ["evaluate", "--target", model, "--judge", model, "--data", str(DATA), "--graph", str(graph),
            "--limit", "6", "--concurrency", "1", "--no-report", "--leak-check", "rules"]
    if out is not None:
        args += ["--out", str(out)]
    return CliRunner().invoke(app, [*args, *extra])


def ok(result) -> None:
    assert result.exit_code == 0, result.output


def by_schema(bodies: list[dict]) -> Counter:
    return Counter(schema_name(b) for b in bodies)


def metrics(run: Path) -> dict:
    return json.loads((run / "metrics.json").read_text())


def records(run: Path) -> list[dict]:
    return sorted((json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()), key=lambda r: r["batch_index"])


def one_line(text: str) -> str:
    return " ".join(text.split())


def test_a_full_run_sends_the_counted_requests_and_records_the_trajectories(tmp_path, demo_graph, demo_seeds):
    with ScriptedServer(script_for(demo_seeds)) as srv:
        ok(evaluate(srv, demo_graph, out=tmp_path / "run"))
        sent = srv.requests
    assert by_schema(sent) == {
        "answer_batch": 2 * (1 + 3 + 1 + 2),  # grading, three follow-ups, re-ask, two controls
        "generated_mc": 6,
        "gate_answer_mc": 3 + 2 + 3,  # answerable per follow-up, needs_hops on b0000's two Hard ones
        "feedback": 2,
        "summary": 1,
    }
    assert len(sent) == B0000 + B0001 + SUMMARY
    m = metrics(tmp_path / "run")
    assert m["trajectories"] == TRAJECTORIES
    assert [[rd["level"] for rd in r["rounds"]] for r in records(tmp_path / "run")] == [["medium", "hard", "hard"], ["easy", "medium", "medium"]]
    assert (m["acc1"], m["acc2"]) == (50.0, 66.6667)
    assert m["llm_usage"]["run_total"]["total"]["answers"] == len(sent)
    # Every request of the run goes out at temperature 0: nothing had to be regenerated.
    assert {b["temperature"] for b in sent} == {0.0}


@pytest.mark.slow
def test_budget_stop_saves_the_finished_batch_and_a_larger_budget_completes_the_run(tmp_path, demo_graph, demo_seeds):
    run = tmp_path / "run"
    limit = B0000 + 2  # b0000 whole, then b0001's grading and first generation; its gate call is refused
    with ScriptedServer(script_for(demo_seeds)) as srv:
        stopped = evaluate(srv, demo_graph, "--max-requests", str(limit), out=run)
        assert len(srv.requests) == limit
        assert stopped.exit_code == 2
        said = one_line(stopped.output)
        assert f"--max-requests {limit}" in said and "with a larger budget" in said
        assert "Traceback" not in stopped.output
        assert [r["batch_id"] for r in records(run)] == ["b0000"]
        partial = metrics(run)
        assert (partial["complete"], partial["n_questions"], partial["acc1"]) == (False, 3, 66.6667)

        ok(evaluate(srv, demo_graph, "--max-requests", "1000", out=run))
        resent = len(srv.requests) - limit
    # b0001's two answered requests come from the journal; the rest of it and the summary are sent.
    assert resent == B0001 - 2 + SUMMARY
    m = metrics(run)
    assert [r["batch_id"] for r in records(run)] == ["b0000", "b0001"]
    assert (m["complete"], m["acc1"], m["acc2"], m["trajectories"]) == (True, 50.0, 66.6667, TRAJECTORIES)
    usage = m["llm_usage"]
    assert (usage["total"]["http_requests"], usage["total"]["cached"]) == (resent, 2)
    # run_total adds up the journal over both sessions: every request of the run, once.
    assert usage["run_total"]["total"]["answers"] == B0000 + B0001 + SUMMARY


def test_budget_usd_stops_before_a_request_it_cannot_afford(tmp_path, demo_graph, demo_seeds):
    with ScriptedServer(script_for(demo_seeds)) as srv:
        registry = tmp_path / "models.toml"
        registry.write_text(
            f'[models.priced]\nbase_url = "{srv.base_url}"\nmodel = "scripted"\n'
            "price_in_per_1k = 10.0\nprice_out_per_1k = 10.0\n"
        )
        base = ["--models", str(registry), "--target", "priced", "--judge", "priced", "--rounds", "0", "--no-summary"]
        # The first prompt alone is hundreds of tokens at $10 per 1k: more than a cent.
        stopped = evaluate(srv, demo_graph, *base, "--budget-usd", "0.01", out=tmp_path / "run")
        assert stopped.exit_code == 2
        said = one_line(stopped.output)
        assert "--budget-usd 0.01" in said and "with a larger budget" in said
        assert srv.requests == [] and not (tmp_path / "run" / "records.jsonl").exists()
        ok(evaluate(srv, demo_graph, *base, "--budget-usd", "1000", out=tmp_path / "run"))
        # with no rounds: per batch grading, feedback, re-ask and two controls
        assert len(srv.requests) == 2 * 5
    assert metrics(tmp_path / "run")["complete"] is True


@pytest.mark.slow
def test_resume_from_another_working_directory(tmp_path, monkeypatch, demo_graph, demo_seeds):
    first, elsewhere = tmp_path / "first", tmp_path / "elsewhere"
    first.mkdir()
    elsewhere.mkdir()
    with ScriptedServer(script_for(demo_seeds)) as srv:
        monkeypatch.chdir(first)
        stopped = evaluate(srv, demo_graph, "--max-requests", str(B0000), out="runs/x")
        assert stopped.exit_code == 2 and [r["batch_id"] for r in records(first / "runs" / "x")] == ["b0000"]
        monkeypatch.chdir(elsewhere)
        ok(evaluate(srv, demo_graph, "--resume", "../first/runs/x"))
        resent = len(srv.requests) - B0000
    assert resent == B0001 + SUMMARY  # b0000 is not asked again
    assert list(elsewhere.iterdir()) == []  # nothing written where the command was run
    run = first / "runs" / "x"
    assert [r["batch_id"] for r in records(run)] == ["b0000", "b0001"]
    assert (metrics(run)["acc1"], metrics(run)["acc2"]) == (50.0, 66.6667)


@pytest.mark.parametrize("reask_correct", [False, True])
def test_a_fully_right_batch_is_reasked_only_with_reask_correct(tmp_path, demo_graph, demo_seeds, reask_correct):
    # b0000 is fully right, and would lose its second answer to the advice; b0001 gains one.
    plan = [(True, True), (True, False), (True, True), (False, True), (False, False), (True, True)]
    flag = ["--reask-correct"] if reask_correct else []
    with ScriptedServer(script_for(demo_seeds, plan)) as srv:
        ok(evaluate(srv, demo_graph, "--rounds", "0", "--no-summary", *flag, out=tmp_path / "run"))
        sent = by_schema(srv.requests)
    b0000 = records(tmp_path / "run")[0]["validations"][-1]
    m = metrics(tmp_path / "run")
    assert sent["feedback"] == 2  # the feedback is written either way
    if reask_correct:
        assert b0000["reasked"] is True and sent["answer_batch"] == 2 + 2 * 3  # grading, re-ask + controls each
        assert (m["acc1"], m["acc2"], m["cr"], m["cte"]) == (66.6667, 66.6667, 16.6667, 16.6667)
    else:
        assert b0000["reasked"] is False and sent["answer_batch"] == 2 + 3
        assert [a["correct"] for a in b0000["reanswers"]] == [True, True, True]  # its ACC1 answers, kept
        assert (m["acc1"], m["acc2"], m["cr"], m["cte"]) == (66.6667, 83.3333, 16.6667, 0.0)


def test_acc2_is_also_reported_over_the_leak_free_batches(tmp_path, demo_graph, demo_seeds):
    script = script_for(demo_seeds)
    first = demo_seeds[0]
    script.leak = first.options[first.answer]  # b0000's first correct option, verbatim

    def respond(body: dict) -> str:
        reply = script(body)
        if schema_name(body) == "leak_rewrite":  # the rewrite gives the answer away again
            return json.dumps({"suggestions": json.loads(reply)["suggestions"] + f" Remember: {script.leak}."})
        return reply

    with ScriptedServer(respond) as srv:
        ok(evaluate(srv, demo_graph, "--rounds", "0", "--no-summary", out=tmp_path / "run"))
    leak = metrics(tmp_path / "run")["leakage"]
    assert (leak["batches_checked"], leak["batches_leaking"], leak["batches_rewritten"], leak["batches_flagged"]) == (2, 1, 1, 1)
    assert [r["validations"][-1]["leak"]["flagged"] for r in records(tmp_path / "run")] == [True, False]
    m = metrics(tmp_path / "run")
    assert (m["acc1"], m["acc2"]) == (50.0, 66.6667)  # over all batches
    # b0001 alone: wrong, wrong, right → wrong, right, right
    assert leak["leak_free"] == {"n_batches": 1, "n_questions": 3, "acc1": 33.3333, "acc2": 66.6667, "delta_acc": 33.3333}


def test_config_json_holds_the_graph_hash_the_versions_and_the_seed(tmp_path, demo_graph, demo_seeds):
    with ScriptedServer(script_for(demo_seeds)) as srv:
        ok(evaluate(srv, demo_graph, "--rounds", "1", "--seed", "7", "--no-summary", out=tmp_path / "run"))
    config = json.loads((tmp_path / "run" / "config.json").read_text())
    manifest = json.loads((demo_graph / "manifest.json").read_text())
    assert config["graph"]["manifest_hash"] == manifest["input_hash"]
    assert config["seed"] == 7
    versions = config["versions"]
    assert versions["python"] == platform.python_version()
    for package in ("judgeagent", "numpy", "faiss-cpu", "sentence-transformers", "spacy"):
        assert versions[package] == metadata.version(package)


def test_no_gate_sends_no_gate_requests(tmp_path, demo_graph, demo_seeds):
    with ScriptedServer(script_for(demo_seeds)) as srv:
        ok(evaluate(srv, demo_graph, "--no-gate", "--no-summary", out=tmp_path / "run"))
        sent = by_schema(srv.requests)
    assert sent["gate_answer_mc"] == 0 and sent["generated_mc"] == 6
    assert len(srv.requests) == B0000 + B0001 - 8  # the eight gate calls of a gated run
    rounds = [rd for r in records(tmp_path / "run") for rd in r["rounds"]]
    assert [rd["gate"] for rd in rounds] == [None] * 6 and all(rd["question"] for rd in rounds)
    checks = metrics(tmp_path / "run")["gate"]["checks"]
    assert checks["answerable"]["run"] == 0 and [c["run"] for c in checks.values()] == [0] * len(checks)


@pytest.mark.parametrize("tries", [None, 1])
def test_an_unusable_question_is_regenerated_generation_tries_times_at_temperature_0_7(tmp_path, demo_graph, demo_seeds, tries):
    script = script_for(demo_seeds)

    def respond(body: dict) -> str:
        if schema_name(body) == "generated_mc":  # well-formed JSON, but no question in it
            return json.dumps({"question": " ", "correct_option": RIGHT, "distractors": ["x", "y", "z"]})
        return script(body)

    flag = [] if tries is None else ["--generation-tries", str(tries)]
    with ScriptedServer(respond) as srv:
        ok(evaluate(srv, demo_graph, "--no-summary", "--no-controls", *flag, out=tmp_path / "run"))
        generations = [b for b in srv.requests if schema_name(b) == "generated_mc"]
    per_round = 3 if tries is None else 1
    assert len(generations) == 6 * per_round
    # The first try at temperature 0, each regeneration at 0.7 (one round after the other).
    assert [b["temperature"] for b in generations] == [0.0, *[0.7] * (per_round - 1)] * 6
    for rec in records(tmp_path / "run"):
        assert [len(rd["generation_attempts"]) for rd in rec["rounds"]] == [per_round] * 3
        assert all(rd["skipped"] == "empty question text" and rd["question"] is None for rd in rec["rounds"])


def max_cosine_to_seeds(embedder, seeds) -> list[float]:
    """Each of the double's follow-up questions: its highest cosine to any of ``seeds``."""
    topics = np.asarray(embedder.encode(TOPICS))
    return list((topics @ np.asarray(embedder.encode([q.question for q in seeds])).T).max(axis=1))


def test_seed_similarity_below_every_follow_up_rejects_them_all_as_copies(tmp_path, demo_graph, demo_seeds, embedder):
    from judgeagent.data import load_benchmark

    # With the default 0.9 none is a copy of any benchmark question (the full run asks all six).
    assert max(max_cosine_to_seeds(embedder, load_benchmark(DATA).questions)) < 0.9
    # Below each one's cosine to the six questions asked, every one is a copy.
    threshold = round(min(max_cosine_to_seeds(embedder, demo_seeds)) - 0.01, 2)
    assert threshold > 0
    with ScriptedServer(script_for(demo_seeds)) as srv:
        # one check after another, so no answerable call is sent for a question found a copy
        ok(evaluate(srv, demo_graph, "--seed-similarity", str(threshold), "--no-gate-overlap", "--no-summary", out=tmp_path / "run"))
        sent = by_schema(srv.requests)
    assert sent["generated_mc"] == 6 * 3 and sent["gate_answer_mc"] == 0
    m = metrics(tmp_path / "run")
    assert m["extension"]["asked"] == 0 and m["extension"]["skipped"] == 6
    assert m["gate"]["checks"]["not_seed_copy"] == {"run": 18, "passed": 0, "pass_rate": 0.0}
    assert all("copies a benchmark question" in rd["skipped"] for r in records(tmp_path / "run") for rd in r["rounds"])


@pytest.mark.parametrize("overlap", [True, False])
def test_gate_overlap_sends_the_answerable_check_while_the_question_is_embedded(tmp_path, monkeypatch, demo_graph, demo_seeds, embedder, overlap):
    """The embedding of a follow-up waits (up to 10 s) for its gate call to reach the server.
    With the overlap the call is already on its way; with --no-gate-overlap it cannot be."""
    script = script_for(demo_seeds)
    arrived = {t: threading.Event() for t in TOPICS}
    seen_while_embedding: dict[str, bool] = {}

    def respond(body: dict) -> str:
        if schema_name(body) == "gate_answer_mc":
            for topic in TOPICS:
                if topic in body["messages"][-1]["content"]:
                    arrived[topic].set()
        return script(body)

    encode = type(embedder).encode

    def held_encode(self, texts, *a, **k):
        for topic in set(TOPICS) & set(texts) - set(seen_while_embedding):  # its first embedding
            seen_while_embedding[topic] = arrived[topic].wait(10 if overlap else 0.2)
        return encode(self, texts, *a, **k)

    monkeypatch.setattr(type(embedder), "encode", held_encode)
    flag = [] if overlap else ["--no-gate-overlap"]
    with ScriptedServer(respond) as srv:
        ok(evaluate(srv, demo_graph, "--no-summary", "--no-controls", *flag, out=tmp_path / "run"))
    assert seen_while_embedding == {t: overlap for t in TOPICS[:6]}
    # Same verdicts either way: every follow-up passes and is asked.
    assert metrics(tmp_path / "run")["gate"]["questions_passed"] == 6


def test_leak_threshold_decides_whether_a_paraphrase_of_the_answer_leaks(tmp_path, demo_graph, demo_seeds, embedder):
    second = demo_seeds[1]  # b0000; correct option "Tall, peaked T waves"
    answer = second.options[second.answer]
    paraphrase = "peaked and tall T waves"
    assert paraphrase.casefold() not in answer.casefold()  # not the option's text verbatim
    sentence = f"Remember: {paraphrase}."
    vecs = np.asarray(embedder.encode([sentence, *second.options.values()]))
    sims = dict(zip(second.options, vecs[1:] @ vecs[0]))
    assert max(sims, key=sims.get) == second.answer and 0.85 <= sims[second.answer] < 0.99
    runs = {}
    for threshold in ("0.85", "0.99"):
        script = script_for(demo_seeds)
        script.leak = paraphrase
        with ScriptedServer(script) as srv:
            ok(evaluate(srv, demo_graph, "--rounds", "0", "--no-summary", "--no-controls", "--leak-threshold", threshold, out=tmp_path / threshold))
        runs[threshold] = records(tmp_path / threshold)[0]["validations"][-1]["leak"]
    # The threshold decides the embedding finding; the rules read "peaked and tall T waves" as
    # the option's distinctive words either way (issue 24), so they are not compared here.
    assert (second.id, "embedding") in [(x["question_id"], x["kind"]) for x in runs["0.85"]["leaks_before"]]
    assert runs["0.85"]["rewritten"] is True
    assert not [x for x in runs["0.99"]["leaks_before"] if x["kind"] == "embedding"]


def test_a_shared_cache_fills_and_a_new_run_folder_replays_from_it(tmp_path, demo_graph, demo_seeds):
    cache = tmp_path / "cache.sqlite"
    with ScriptedServer(script_for(demo_seeds)) as srv:
        ok(evaluate(srv, demo_graph, "--cache", str(cache), out=tmp_path / "a"))
        assert len(srv.requests) == B0000 + B0001 + SUMMARY
        with sqlite3.connect(cache) as db:
            assert db.execute("SELECT count(*) FROM responses").fetchone()[0] == B0000 + B0001 + SUMMARY
        ok(evaluate(srv, demo_graph, "--cache", str(cache), out=tmp_path / "b"))
        assert len(srv.requests) == B0000 + B0001 + SUMMARY  # the second folder sent nothing
    a, b = metrics(tmp_path / "a"), metrics(tmp_path / "b")
    assert (b["llm_usage"]["total"]["http_requests"], b["llm_usage"]["total"]["cached"]) == (0, B0000 + B0001 + SUMMARY)
    assert {k: b[k] for k in ("acc1", "acc2", "trajectories", "gate")} == {k: a[k] for k in ("acc1", "acc2", "trajectories", "gate")}


def test_bootstrap_sets_the_number_of_resamples(tmp_path, demo_graph, demo_seeds):
    cis = {}
    for n in ("2000", "200"):
        with ScriptedServer(script_for(demo_seeds)) as srv:
            ok(evaluate(srv, demo_graph, "--rounds", "0", "--no-summary", "--no-controls", "--bootstrap", n, out=tmp_path / n))
        cis[n] = metrics(tmp_path / n)["ci"]
    assert (cis["2000"]["n_resamples"], cis["200"]["n_resamples"]) == (2000, 200)
    m = metrics(tmp_path / "200")
    for key in ("acc1", "acc2", "delta_acc"):  # each interval holds its point estimate
        lo, hi = cis["200"][key]
        assert lo <= m[key] <= hi
