"""The contamination probe: its figures by hand, and `judgeagent contamination` end to end against
the scripted target and judge (no network, real demo graph)."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import threading
from collections import Counter
from pathlib import Path

import pytest
from interview_double import Script, schema_name
from scripted_server import Endpoint, Fault, ScriptedServer
from typer.testing import CliRunner

from judgeagent.cli.app import app
from judgeagent.protocols.contamination import contamination_metrics

DATA = Path(__file__).resolve().parents[1] / "data" / "medqa-demo"


def test_metrics_by_hand():
    seed_flags = [True, True, True, False]
    gen_flags = [True, False, False, False]
    labels = ["easy", "easy", "hard", "hard"]
    m = contamination_metrics(seed_flags, gen_flags, labels, labels, seed=3, n_resamples=500)
    assert (m["n_seed"], m["n_generated"]) == (4, 4)
    assert (m["acc_seed"], m["acc_generated"], m["gap"]) == (75.0, 25.0, 50.0)
    lo, hi = m["gap_ci"]
    assert -100 <= lo <= 50 <= hi <= 100 and lo < hi
    assert (m["level"], m["n_resamples"]) == (0.95, 500)
    assert m["by_difficulty"]["easy"] | {"gap_ci": None} == {
        "n_seed": 2, "n_generated": 2, "acc_seed": 100.0, "acc_generated": 50.0, "gap": 50.0, "gap_ci": None
    }
    hard = m["by_difficulty"]["hard"]
    assert (hard["acc_seed"], hard["acc_generated"], hard["gap"]) == (50.0, 0.0, 50.0)
    # seeded: the same call gives the same interval, another seed may not
    assert contamination_metrics(seed_flags, gen_flags, labels, labels, seed=3, n_resamples=500) == m


def test_metrics_edge_cases():
    # no spread in either group: the interval collapses onto the gap
    m = contamination_metrics([True] * 5, [False] * 4, [None] * 5, [None] * 4)
    assert (m["gap"], m["gap_ci"]) == (100.0, [100.0, 100.0])
    assert list(m["by_difficulty"]) == ["unlabeled"]
    # nothing generated: no accuracy, no gap, no interval (JSON null, not NaN)
    m = contamination_metrics([True, False], [], ["easy", "hard"], [])
    assert (m["acc_seed"], m["acc_generated"], m["gap"], m["gap_ci"]) == (50.0, None, None, None)
    json.dumps(m, allow_nan=False)
    with pytest.raises(ValueError):
        contamination_metrics([True], [True], [], ["easy"])


def script_for(demo_seeds, seed_right: list[bool], followups_right: bool) -> Script:
    return Script(
        seed_plan={q.question.strip(): (r, r) for q, r in zip(demo_seeds, seed_right)},
        answers={q.question.strip(): q.answer for q in demo_seeds},
        followups_right=followups_right,
    )


def invoke(srv, demo_graph, out: Path, *extra: str):
    model = f"{srv.base_url}@scripted"
    args = ["contamination", "--target", model, "--judge", model, "--data", str(DATA), "--graph", str(demo_graph),
            "--limit", "6", "--concurrency", "2", "--out", str(out), *extra]
    return CliRunner().invoke(app, args)


def test_cli_writes_contamination_json(tmp_path, demo_graph, demo_seeds):
    script = script_for(demo_seeds, [True, False, True, True, False, True], followups_right=True)
    with ScriptedServer(script) as srv:
        res = invoke(srv, demo_graph, tmp_path / "run")
        assert res.exit_code == 0, res.output
        first = srv.requests
        # rerunning the same command resumes the finished folder: nothing is asked again
        res2 = invoke(srv, demo_graph, tmp_path / "run")
        assert res2.exit_code == 0, res2.output
        assert len(srv.requests) == len(first)
        model = f"{srv.base_url}@scripted"
    assert "gap" in res.output and "run folder" in res.output
    # Per batch: the seeds (1 prompt), one new medium question per seed (generation + the gate's
    # answerable check each; needs_hops is for Hard only), and the new questions (1 prompt).
    assert Counter(schema_name(b) for b in first) == {"answer_batch": 2 * 2, "generated_mc": 2 * 3, "gate_answer_mc": 2 * 3}

    run = tmp_path / "run"
    result = json.loads((run / "contamination.json").read_text())
    figures = {  # 4 of 6 seeds right, all 6 new questions right
        "n_seed": 6, "n_generated": 6, "acc_seed": 66.6667, "acc_generated": 100.0, "gap": -33.3333,
    }
    assert {k: result[k] for k in figures} == figures
    assert (result["level"], result["n_resamples"]) == (0.95, 2000)
    lo, hi = result["gap_ci"]
    assert lo <= result["gap"] <= hi
    # MedQA has no difficulty labels: one group, whose figures are the overall ones
    assert result["by_difficulty"] == {"unlabeled": figures | {"gap_ci": result["gap_ci"]}}
    assert (result["generated"], result["skipped"], result["skipped_reasons"]) == (6, 0, {})
    assert (result["target"], result["judge"], result["data"]) == (model, model, "medqa-demo")
    assert (result["complete"], result["n_batches"]) == (True, 2)
    assert result["gate"]["questions_passed"] == 6 and result["gate"]["checks"]["answerable"]["passed"] == 6
    # written by the rerun: its own usage, all of it replayed from the journal
    assert (result["llm_usage"]["total"]["http_requests"], result["llm_usage"]["total"]["cached"]) == (0, 0)
    assert (run / "config.json").exists() and (run / "journal.sqlite").exists()

    records = [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]
    assert len(records) == 2
    for rec in records:
        assert [g["seed_id"] for g in rec["generated"]] == [q["id"] for q in rec["seed"]]
        # MedQA has no difficulty labels: every new question is written at medium
        assert {g["level"] for g in rec["generated"]} == {"medium"}
        windows = [tuple(s["chunk_id"] for s in g["path"]["steps"]) for g in rec["generated"]]
        assert all(len(w) == 2 for w in windows)
        assert windows[0][1] == windows[1][0]  # successive windows of one path
    assert all("MEDIUM" in p for p in script.generation_prompts)


def test_right_on_seeds_wrong_on_new_questions_is_a_large_gap(tmp_path, demo_graph, demo_seeds):
    script = script_for(demo_seeds, [True] * 6, followups_right=False)
    with ScriptedServer(script) as srv:
        res = invoke(srv, demo_graph, tmp_path / "run", "--batch-size", "2", "--seed", "1")
    assert res.exit_code == 0, res.output
    result = json.loads((tmp_path / "run" / "contamination.json").read_text())
    assert (result["acc_seed"], result["acc_generated"], result["gap"]) == (100.0, 0.0, 100.0)
    assert result["gap_ci"][0] > 50
    assert result["n_batches"] == 3


def test_bad_setup_is_one_line(tmp_path):
    res = CliRunner().invoke(app, ["contamination", "--target", "no-such-model", "--out", str(tmp_path / "r")])
    assert res.exit_code == 2 and "no-such-model" in res.output
    assert "Traceback" not in res.output
    res = CliRunner().invoke(app, ["contamination", "--batch-size", "0", "--out", str(tmp_path / "r")])
    assert res.exit_code == 2 and "--batch-size" in res.output


def asks(body: dict, question: str) -> bool:
    """The target is asked ``question`` (a seed's grading)."""
    return schema_name(body) == "answer_batch" and question[:60] in json.dumps(body["messages"], ensure_ascii=False)


def one_line(text: str) -> str:
    return " ".join(text.split())


SEED_RIGHT = [True, False, True, True, False, True]
# The figures of test_cli_writes_contamination_json: 4 of 6 seeds right, all 6 new questions right.
FIGURES = {"n_seed": 6, "n_generated": 6, "acc_seed": 66.6667, "acc_generated": 100.0, "gap": -33.3333}


def test_a_call_that_fails_leaves_a_probe_batch_incomplete_with_its_reason(tmp_path, demo_graph, demo_seeds):
    second = demo_seeds[3].question.strip()
    # Retry-After 0: the probe takes no --max-attempts, and its six attempts should cost no time.
    endpoint = Endpoint(script_for(demo_seeds, SEED_RIGHT, followups_right=True), down=lambda body, n: asks(body, second),
                        fault=Fault.status(503, retry_after=0, message="upstream unavailable"))
    run = tmp_path / "run"
    with ScriptedServer(endpoint) as srv:
        model = f"{srv.base_url}@scripted"
        res = invoke(srv, demo_graph, run)
        assert res.exit_code == 3, res.output
        result = json.loads((run / "contamination.json").read_text())
        reason = f"server_error ({model}, grading)"
        assert (result["complete"], result["n_batches"]) == (False, 1)
        assert result["incomplete"] == {"n_batches": 1, "batch_ids": ["b0001"], "reasons": {reason: 1}}
        # Only b0000's seeds are in the figures (2 of its 3 right): b0001's are not counted wrong, nor at all.
        assert (result["n_seed"], result["acc_seed"], result["n_generated"], result["acc_generated"]) == (3, 66.6667, 3, 100.0)
        assert f"incomplete: 1 batch(es) left out of the figures ({reason}: 1); rerun the same command to retry them (exit code 3)" in one_line(res.output)

        endpoint.down = lambda body, n: False
        again = invoke(srv, demo_graph, run)
    assert again.exit_code == 0, again.output
    result = json.loads((run / "contamination.json").read_text())
    assert (result["complete"], result["n_batches"]) == (True, 2)
    assert result["incomplete"] == {"n_batches": 0, "batch_ids": [], "reasons": {}}
    assert {k: result[k] for k in FIGURES} == FIGURES


class HoldingServer(ScriptedServer):
    """The scripted server, holding open every request ``hold(body)`` picks until ``release``
    is set (60 s at most); ``arrived`` is set when the first of them comes in."""

    def __init__(self, responder, hold):
        super().__init__(responder)
        self.hold = hold
        self.arrived, self.release = threading.Event(), threading.Event()

    async def _chat(self, request):
        body = await request.json()
        if self.hold(body):
            self.arrived.set()
            await asyncio.to_thread(self.release.wait, 60.0)
        return await super()._chat(request)


def test_ctrl_c_during_the_probe_stops_it_as_evaluate_does_and_the_hint_resumes_it(tmp_path, demo_graph, demo_seeds):
    second = demo_seeds[3].question.strip()
    run = tmp_path / "run"
    # Ctrl-C as the `judgeagent` command takes it (cli/app.py main), whatever this process inherited.
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with HoldingServer(script_for(demo_seeds, SEED_RIGHT, followups_right=True), hold=lambda body: asks(body, second)) as srv:
            # One Ctrl-C once the second batch's grading is being held (an event, not a sleep).
            ctrl_c = threading.Thread(target=lambda: srv.arrived.wait(180) and os.kill(os.getpid(), signal.SIGINT), daemon=True)
            ctrl_c.start()
            res = invoke(srv, demo_graph, run, "--concurrency", "1")
            ctrl_c.join()
            srv.hold = lambda body: False
            srv.release.set()
            first = len(srv.requests)
            assert res.exit_code == 130, res.output
            assert one_line(res.output).endswith(
                f"error: interrupted: requests in flight cancelled, 1 records kept in {run}; "
                f"to continue: judgeagent evaluate --config {run / 'config.json'} (or rerun the same command)"
            )
            assert [json.loads(line)["batch_id"] for line in (run / "records.jsonl").read_text().splitlines()] == ["b0000"]
            assert not (run / "contamination.json").exists()
            # The hint's command finishes the probe without asking for b0000 again.
            again = CliRunner().invoke(app, ["contamination", "--config", str(run / "config.json")])
            rerun = srv.requests[first:]
    finally:
        signal.signal(signal.SIGINT, previous)
    assert again.exit_code == 0, again.output
    assert asks(rerun[0], second) and not any(asks(b, demo_seeds[0].question.strip()) for b in rerun)
    result = json.loads((run / "contamination.json").read_text())
    assert (result["complete"], result["n_batches"], result["incomplete"]["n_batches"]) == (True, 2, 0)
    assert {k: result[k] for k in FIGURES} == FIGURES
