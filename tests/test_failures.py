"""Failures are not answers (issue 13), through `judgeagent evaluate` on medqa-demo.

- A call that still fails after its retries leaves its batch incomplete: out of
  records.jsonl and out of the figures, listed with the reason in incomplete.json and
  metrics.json, printed by the CLI. Rerunning the command asks exactly that batch again.
- An endpoint that dies halfway trips the circuit breaker: the run stops with one line
  naming the model and the last error, exit 2, and no seed counted wrong; once the endpoint
  is back, the rerun completes with the figures of a run that was never interrupted.
- A graph built from other data is refused, naming both paths; --rebuild-graph rebuilds it.

The scripted double (tests/interview_double.py) numbers its follow-up questions by how many it
has written, so a rerun talks to the same double: requests replayed from the journal never
reach it, and it goes on where an uninterrupted run would be.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from interview_double import Script, schema_name
from scripted_server import Endpoint, ScriptedServer
from typer.testing import CliRunner

from judgeagent.cli.app import app

DATA = Path(__file__).resolve().parents[1] / "data" / "medqa-demo"
PLAN = [(True, True), (True, False), (False, True), (False, False), (False, True), (True, True)]
# What differs between two sessions of the same run, whatever happened in them.
SESSION_ONLY = ("llm_usage", "timings")


def script(seeds) -> Script:
    return Script(seed_plan={q.question.strip(): p for q, p in zip(seeds, PLAN)}, answers={q.question.strip(): q.answer for q in seeds})


def evaluate(srv, graph, out: Path, *extra: str):
    model = f"{srv.base_url}@scripted"
    args = ["evaluate", "--target", model, "--judge", model, "--data", str(DATA), "--graph", str(graph), "--limit", "6",
            "--concurrency", "1", "--no-report", "--no-summary", "--leak-check", "rules", "--max-attempts", "2", "--out", str(out)]
    return CliRunner().invoke(app, [*args, *extra])


def figures(run: Path) -> dict:
    m = json.loads((run / "metrics.json").read_text())
    return {k: v for k, v in m.items() if k not in SESSION_ONLY}


def batch_ids(run: Path) -> list[str]:
    return [json.loads(line)["batch_id"] for line in (run / "records.jsonl").read_text().splitlines()]


def asks(body: dict, question: str) -> bool:
    """The target is asked ``question`` (the grading, a re-ask or a control)."""
    return schema_name(body) == "answer_batch" and question in json.dumps(body["messages"])


def one_line(text: str) -> str:
    return " ".join(text.split())


def uninterrupted(demo_seeds, demo_graph, out: Path, *extra: str) -> dict:
    with ScriptedServer(script(demo_seeds)) as srv:
        res = evaluate(srv, demo_graph, out, *extra)
    assert res.exit_code == 0, res.output
    return figures(out)


@pytest.mark.slow
def test_a_call_that_fails_leaves_its_batch_incomplete_and_the_rerun_asks_only_it(tmp_path, demo_graph, demo_seeds):
    second = demo_seeds[3].question.strip()[:60]
    endpoint = Endpoint(script(demo_seeds), down=lambda body, n: asks(body, second))
    run = tmp_path / "run"
    with ScriptedServer(endpoint) as srv:
        model = f"{srv.base_url}@scripted"
        res = evaluate(srv, demo_graph, run)
        assert res.exit_code == 3, res.output  # finished, a unit left out: not success (judgeagent/exits.py)
        m = json.loads((run / "metrics.json").read_text())
        reason = f"server_error ({model}, grading)"
        assert (m["n_batches"], m["answer_errors"], m["complete"], m["status"]) == (1, 0, False, "incomplete")
        assert m["incomplete"] == {"n_batches": 1, "batch_ids": ["b0001"], "reasons": {reason: 1}}
        assert m["n_questions"] == 3  # the three seeds of b0000: b0001's are not counted wrong, nor at all
        assert batch_ids(run) == ["b0000"]
        (entry,) = json.loads((run / "incomplete.json").read_text())["batches"]
        assert entry == {
            "batch_id": "b0001", "batch_index": 1, "model": model, "stage": "grading", "kind": "server_error",
            "message": f"model '{model}' (grading): server_error: HTTP 503: upstream unavailable (code=503) (gave up after 2 attempts)",
        }  # fmt: skip
        assert f"incomplete: 1 batch(es) left out of the figures ({reason}: 1); rerun the same command to retry them (exit code 3)" in one_line(res.output)

        endpoint.down = lambda body, n: False
        before = len(srv.requests)
        again = evaluate(srv, demo_graph, run)
        rerun = srv.requests[before:]
    assert again.exit_code == 0, again.output
    assert json.loads((run / "metrics.json").read_text())["status"] == "complete"
    assert batch_ids(run) == ["b0000", "b0001"]
    # Exactly the incomplete batch is asked again, starting with its grading; b0000 is not.
    assert schema_name(rerun[0]) == "answer_batch" and second in json.dumps(rerun[0]["messages"])
    assert not any(demo_seeds[0].question.strip()[:60] in json.dumps(b["messages"]) for b in rerun)
    assert json.loads((run / "incomplete.json").read_text()) == {"n_batches": 0, "batches": []}
    assert figures(run) == uninterrupted(demo_seeds, demo_graph, tmp_path / "reference")


def test_a_run_that_answered_nothing_exits_4_and_says_so_in_metrics(tmp_path, demo_graph, demo_seeds):
    # --limit 3: one batch, whose grading never gets an answer. The run ends, its only unit
    # left out: not a success (0) nor a partial one (3), and the summary says the same.
    first = demo_seeds[0].question.strip()[:60]
    endpoint = Endpoint(script(demo_seeds), down=lambda body, n: asks(body, first))
    run = tmp_path / "run"
    with ScriptedServer(endpoint) as srv:
        model = f"{srv.base_url}@scripted"
        res = evaluate(srv, demo_graph, run, "--limit", "3")
    assert res.exit_code == 4, res.output
    m = json.loads((run / "metrics.json").read_text())
    reason = f"server_error ({model}, grading)"
    assert (m["complete"], m["status"], m["incomplete"]["batch_ids"]) == (False, "nothing_answered", ["b0000"])
    assert (f"nothing answered: every batch left out of the figures ({reason}: 1); rerun the same command to retry them "
            "(exit code 4)") in one_line(res.output)  # fmt: skip


@pytest.mark.slow
def test_a_batch_left_incomplete_leaves_transfer_one_batch_and_it_says_so(tmp_path, demo_graph, demo_seeds):
    # Two batches, one left incomplete: transfer has one batch to split, and says that a rerun,
    # not another --batch-size or --limit, gives it the second. The rerun does.
    second = demo_seeds[3].question.strip()[:60]
    endpoint = Endpoint(script(demo_seeds), down=lambda body, n: asks(body, second))
    run = tmp_path / "run"
    with ScriptedServer(endpoint) as srv:
        res = evaluate(srv, demo_graph, run, "--transfer")
        assert res.exit_code == 3, res.output
        m = json.loads((run / "metrics.json").read_text())
        assert m["incomplete"]["batch_ids"] == ["b0001"]
        assert m["transfer"] == {"error": "needs at least 2 finished batches: b0001 left incomplete (rerun the same command to retry)"}

        endpoint.down = lambda body, n: False
        again = evaluate(srv, demo_graph, run, "--transfer")
    assert again.exit_code == 0, again.output
    t = json.loads((run / "metrics.json").read_text())["transfer"]
    assert (t["n_batches"], t["source"], t["held_out"]) == (1, ["b0000"], ["b0001"])


@pytest.mark.slow
def test_an_endpoint_that_dies_halfway_stops_the_run_and_the_rerun_matches_an_uninterrupted_one(tmp_path, demo_graph, demo_seeds):
    # One seed per batch, six batches. The endpoint dies when the second batch is graded and
    # stays dead: b0001..b0004's gradings fail after 2 attempts each and are set aside, the
    # fifth failure (b0005's grading) is more than 20% of the last 20 calls: the breaker opens.
    second = demo_seeds[1].question.strip()[:60]
    dead = []
    endpoint = Endpoint(script(demo_seeds), down=lambda body, n: bool(dead) or (asks(body, second) and not dead.append(n)))
    run = tmp_path / "run"
    with ScriptedServer(endpoint) as srv:
        model = f"{srv.base_url}@scripted"
        res = evaluate(srv, demo_graph, run, "--batch-size", "1")
        sent = srv.requests
        assert res.exit_code == 2, res.output
        error = res.output[res.output.index("error:"):]  # after the progress bar
        assert error.count("\n") == 1 and error.startswith(f"error: model '{model}' stopped answering: 5 of its last ")
        assert error.rstrip().endswith(
            "requests failed after retries (last error: server_error: HTTP 503: upstream unavailable (code=503) "
            f"(gave up after 2 attempts)); answers so far are saved, rerun the same command to resume (run folder: {run})"
        )
        assert len(sent) - (dead[0] - 1) == 5 * 2  # nothing more went to the dead endpoint
        m = json.loads((run / "metrics.json").read_text())
        # No seed counted wrong because of it: the figures hold b0000 alone, answered.
        assert (m["n_batches"], m["n_questions"], m["answer_errors"], m["complete"]) == (1, 1, 0, False)
        assert m["incomplete"] == {
            "n_batches": 5, "batch_ids": ["b0001", "b0002", "b0003", "b0004", "b0005"],
            "reasons": {"not run: the run stopped": 1, f"server_error ({model}, grading)": 4},
        }  # fmt: skip
        assert batch_ids(run) == ["b0000"]

        dead.clear()
        endpoint.down = lambda body, n: False
        again = evaluate(srv, demo_graph, run, "--batch-size", "1")
    assert again.exit_code == 0, again.output
    assert batch_ids(run) == [f"b{i:04d}" for i in range(6)]
    assert figures(run) == uninterrupted(demo_seeds, demo_graph, tmp_path / "reference", "--batch-size", "1")


def test_a_graph_built_from_other_data_is_refused_and_rebuilt_on_request(tmp_path, demo_graph, demo_seeds):
    data = tmp_path / "copy" / "medqa-demo"  # the same folder name as the graph's data
    shutil.copytree(DATA, data)
    book = data / "textbooks" / "Cardiology.txt"
    book.write_text(book.read_text() + "\nDigoxin toxicity is more likely when potassium is low.\n")
    graph = tmp_path / "graph"
    shutil.copytree(demo_graph, graph)
    args = ["--data", str(data), "--graph", str(graph), "--limit", "3", "--rounds", "1", "--concurrency", "1", "--no-report",
            "--no-summary", "--leak-check", "rules", "--no-controls"]
    with ScriptedServer(script(demo_seeds)) as srv:
        model = f"{srv.base_url}@scripted"
        runner = CliRunner()
        refused = runner.invoke(app, ["evaluate", "--target", model, "--judge", model, "--out", str(tmp_path / "r1"), *args])
        assert (refused.exit_code, one_line(refused.output)) == (2, (
            f"error: the graph {graph} was built from other data than {data} (input hash differs); "
            "pass --rebuild-graph to rebuild it, or --graph to use the graph of this data"
        ))  # fmt: skip
        assert not srv.requests  # refused before any model was asked
        probe = runner.invoke(app, ["contamination", "--target", model, "--judge", model, "--out", str(tmp_path / "r2"), *args[:6]])
        assert probe.exit_code == 2 and "was built from other data than" in probe.output

        rebuilt = runner.invoke(app, ["evaluate", "--target", model, "--judge", model, "--out", str(tmp_path / "r3"), "--rebuild-graph", *args])
    assert rebuilt.exit_code == 0, rebuilt.output
    manifest = json.loads((graph / "manifest.json").read_text())
    assert manifest["input_hash"] != json.loads((demo_graph / "manifest.json").read_text())["input_hash"]
    config = json.loads((tmp_path / "r3" / "config.json").read_text())
    assert config["graph"]["manifest_hash"] == manifest["input_hash"]


def test_config_and_report_say_a_model_samples_and_reasons(tmp_path, demo_graph, demo_seeds):
    """Not a failure, but how a run answered: an OpenAI reasoning model only takes temperature
    1 (its answers are samples) and thinks before answering; config.json and the report say so."""
    from scripted_server import OpenAIReasoning

    from judgeagent.report.load import load_run
    from judgeagent.report.sections import warnings

    with ScriptedServer(script(demo_seeds), provider=OpenAIReasoning(think_words=20)) as srv:
        model = f"{srv.base_url}@scripted"
        args = ["evaluate", "--target", model, "--judge", model, "--data", str(DATA), "--graph", str(demo_graph), "--limit", "3",
                "--rounds", "1", "--no-summary", "--leak-check", "rules", "--no-controls", "--no-report", "--out", str(tmp_path / "run")]
        res = CliRunner().invoke(app, args)
    assert res.exit_code == 0, res.output
    models = json.loads((tmp_path / "run" / "config.json").read_text())["models"]
    expected = {"name": model, "base_url": srv.base_url, "model": "scripted", "temperature": 1.0, "sampled": True, "reasoning": True,
                "served_models": ["o4-mini-2025-04-16"]}
    assert models == {"target": expected, "judge": expected}
    note = ("Models: the target samples its answers (temperature above 0: a rerun may differ) and reasons before answering; "
            "the judge samples its answers (temperature above 0: a rerun may differ) and reasons before answering.")
    assert note in warnings(load_run(tmp_path / "run"))  # the report's warnings, above its figures
