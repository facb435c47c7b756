"""The interview pipeline against a scripted target and judge (no network, real graph)."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from interview_double import Script, paraphrase
from scripted_server import ScriptedServer
from typer.testing import CliRunner

from judgeagent import evaluate
from judgeagent.cli.app import app
from judgeagent.config import EvalConfig
from judgeagent.graph import KnowledgePath

DATA = Path(__file__).resolve().parents[1] / "data" / "medqa-demo"


def controlled_script(demo_seeds, plan) -> Script:
    return Script(
        seed_plan={q.question.strip(): p for q, p in zip(demo_seeds, plan)},
        answers={q.question.strip(): q.answer for q in demo_seeds},
    )


# right before / right after advice, for the first six demo questions
PLAN = [(True, True), (True, False), (False, True), (False, False), (False, True), (True, True)]


def config(srv, demo_graph, out, **kw) -> EvalConfig:
    model = f"{srv.base_url}@scripted"
    return EvalConfig(target=model, judge=model, data=DATA, graph=demo_graph, limit=6, out=out, concurrency=2, **kw)


def records(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]


def test_paper_metrics_on_controlled_answers(tmp_path, demo_graph, demo_seeds):
    script = controlled_script(demo_seeds, PLAN)
    with ScriptedServer(script) as srv:
        outcome = evaluate(config(srv, demo_graph, tmp_path / "run"), progress=False)
    m = outcome.metrics
    assert m["n_questions"] == 6
    assert m["acc1"] == pytest.approx(50.0)
    assert m["acc2"] == pytest.approx(400 / 6, abs=1e-3)
    assert m["cr"] == pytest.approx(200 / 6, abs=1e-3)
    assert m["cte"] == pytest.approx(100 / 6, abs=1e-3)
    assert m["delta_acc"] == pytest.approx(m["cr"] - m["cte"], abs=1e-3)
    assert m["cr_given_wrong"] == pytest.approx(200 / 3, abs=1e-3)
    assert script.summary_requests == 1
    summary = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert summary["knowledge_gaps"] == ["potassium handling"]
    assert (tmp_path / "run" / "report.html").exists() and (tmp_path / "run" / "report.md").exists()
    # metrics.json holds exactly the outcome's figures (JSON round trip: tuples become lists)
    on_disk = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert on_disk == json.loads(json.dumps(m))
    assert (on_disk["n_questions"], on_disk["acc1"], on_disk["by_difficulty"]) == (6, 50.0, {})


@pytest.mark.parametrize(
    "followups_right,levels",
    [
        # batch 1 demo_seeds: 2 of 3 right → s = 1.0 (medium); batch 2: 1 of 3 → s = 0.5 (easy)
        (True, {"b0000": ["medium", "hard", "hard"], "b0001": ["easy", "medium", "medium"]}),
        (False, {"b0000": ["medium", "medium", "medium"], "b0001": ["easy", "easy", "easy"]}),
    ],
)
@pytest.mark.slow
def test_difficulty_follows_the_controller(tmp_path, demo_graph, demo_seeds, followups_right, levels):
    script = controlled_script(demo_seeds, PLAN)
    script.followups_right = followups_right
    with ScriptedServer(script) as srv:
        evaluate(config(srv, demo_graph, tmp_path / "run"), progress=False)
    for rec in records(tmp_path / "run"):
        assert [r["level"] for r in rec["rounds"]] == levels[rec["batch_id"]]
        assert len(rec["trajectory"]) == 3 + 3


def test_generation_prompt_holds_the_path_chunks(tmp_path, demo_graph, demo_seeds):
    script = controlled_script(demo_seeds, PLAN)
    with ScriptedServer(script) as srv:
        evaluate(config(srv, demo_graph, tmp_path / "run"), progress=False)
    recs = records(tmp_path / "run")
    for rec in recs:
        assert rec["matched_entities"], "seed entities should map to graph nodes"
        for rd in rec["rounds"]:
            path = KnowledgePath.from_dict(rd["path"])
            assert len(path.steps) == 2
            assert any(all(t.strip() in p for t in path.texts) for p in script.generation_prompts)
    # later rounds reach one hop further along the same path
    r1, r2 = recs[0]["rounds"][0]["path"], recs[0]["rounds"][1]["path"]
    assert KnowledgePath.from_dict(r1).chunk_ids[1] == KnowledgePath.from_dict(r2).chunk_ids[0]


@pytest.mark.slow
def test_no_graph_draws_other_chunks(tmp_path, demo_graph, demo_seeds):
    paths = {}
    for no_graph in (False, True):
        script = controlled_script(demo_seeds, PLAN)
        with ScriptedServer(script) as srv:
            evaluate(config(srv, demo_graph, tmp_path / f"run{no_graph}", no_graph=no_graph), progress=False)
        recs = records(tmp_path / f"run{no_graph}")
        paths[no_graph] = [tuple(KnowledgePath.from_dict(rd["path"]).chunk_ids) for r in recs for rd in r["rounds"]]
        if no_graph:
            assert all(not r["matched_entities"] for r in recs)
            texts = [t for r in recs for rd in r["rounds"] for t in KnowledgePath.from_dict(rd["path"]).texts]
            assert all(any(t.strip() in p for p in script.generation_prompts) for t in texts)
    assert paths[True] != paths[False]


@pytest.mark.slow
def test_fixed_difficulty_never_moves(tmp_path, demo_graph, demo_seeds):
    script = controlled_script(demo_seeds, PLAN)
    with ScriptedServer(script) as srv:
        evaluate(config(srv, demo_graph, tmp_path / "run", fixed_difficulty="hard"), progress=False)
    assert {r["level"] for rec in records(tmp_path / "run") for r in rec["rounds"]} == {"hard"}


def test_no_extension_makes_no_generation_requests(tmp_path, demo_graph, demo_seeds):
    script = controlled_script(demo_seeds, PLAN)
    with ScriptedServer(script) as srv:
        outcome = evaluate(config(srv, demo_graph, tmp_path / "run", no_extension=True), progress=False)
    assert script.generation_requests == 0
    assert all(rec["rounds"] == [] for rec in records(tmp_path / "run"))
    assert outcome.metrics["acc2"] == pytest.approx(400 / 6, abs=1e-3)


def test_eval_every_round_gives_r_plus_one_points(tmp_path, demo_graph, demo_seeds):
    script = controlled_script(demo_seeds, PLAN)
    with ScriptedServer(script) as srv:
        outcome = evaluate(config(srv, demo_graph, tmp_path / "run", eval_every_round=True, rounds=2), progress=False)
    by_round = outcome.metrics["by_round"]
    assert [p["after_round"] for p in by_round] == [0, 1, 2]
    for rec in records(tmp_path / "run"):
        assert [v["after_round"] for v in rec["validations"]] == [0, 1, 2]


def test_malformed_generation_is_retried_then_skipped(tmp_path, demo_graph, demo_seeds):
    script = controlled_script(demo_seeds, PLAN)
    script.broken_generation = True
    with ScriptedServer(script) as srv:
        outcome = evaluate(config(srv, demo_graph, tmp_path / "run"), progress=False)
    m = outcome.metrics
    assert m["extension"]["asked"] == 0 and m["extension"]["skipped"] == 6
    for rec in records(tmp_path / "run"):
        for rd in rec["rounds"]:
            assert rd["skipped"] and rd["question"] is None
            assert len(rd["generation_attempts"]) == 3  # first try + 2 regenerations
    assert m["acc2"] == pytest.approx(400 / 6, abs=1e-3)  # feedback still ran


@pytest.mark.slow
def test_rerun_replays_and_a_killed_run_resumes_to_the_same_metrics(tmp_path, demo_graph, demo_seeds):
    script = controlled_script(demo_seeds, PLAN)
    with ScriptedServer(script, delay=0.05) as srv:
        ref = evaluate(config(srv, demo_graph, tmp_path / "ref"), progress=False).metrics
        full_count = len(srv.requests)
        # The same command again replays from the journal: zero requests.
        evaluate(config(srv, demo_graph, tmp_path / "ref"), progress=False)
        assert len(srv.requests) == full_count
        # Every batch redone from a copy of the journal alone: the gate's timing-dependent
        # verdicts are in it too, so still zero requests and the same metrics.
        (tmp_path / "replay").mkdir()
        shutil.copy(tmp_path / "ref" / "journal.sqlite", tmp_path / "replay" / "journal.sqlite")
        replay = evaluate(config(srv, demo_graph, tmp_path / "replay"), progress=False).metrics
        assert len(srv.requests) == full_count
        assert {k: replay[k] for k in ("acc1", "acc2", "gate")} == {k: ref[k] for k in ("acc1", "acc2", "gate")}

        # A run killed with SIGKILL midway, then rerun.
        model = f"{srv.base_url}@scripted"
        cmd = [sys.executable, "-c", "from judgeagent.cli.app import main; main()", "evaluate", "--target", model, "--judge", model, "--data", str(DATA),
               "--graph", str(demo_graph), "--limit", "6", "--out", str(tmp_path / "killed"), "--concurrency", "2"]
        before = len(srv.requests)
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        deadline = time.time() + 120
        while len(srv.requests) - before < full_count // 2 and time.time() < deadline and proc.poll() is None:
            time.sleep(0.05)
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
        sent_before_kill = len(srv.requests) - before
        assert 0 < sent_before_kill < full_count

        mid = len(srv.requests)
        resumed = evaluate(config(srv, demo_graph, tmp_path / "killed"), progress=False).metrics
        resent = len(srv.requests) - mid
    assert resent < full_count  # finished requests were not sent again
    for key in ("acc1", "acc2", "cr", "cte", "n_questions"):
        assert resumed[key] == ref[key]
    ids = [r["batch_id"] for r in records(tmp_path / "killed")]
    assert sorted(ids) == sorted(set(ids)) and len(ids) == 2


@pytest.mark.slow
def test_cli_evaluate_and_ablate(tmp_path, demo_graph, demo_seeds):
    script = controlled_script(demo_seeds, PLAN)
    runner = CliRunner()
    with ScriptedServer(script) as srv:
        model = f"{srv.base_url}@scripted"
        common = ["--target", model, "--judge", model, "--data", str(DATA), "--graph", str(demo_graph), "--limit", "6"]
        res = runner.invoke(app, ["evaluate", *common, "--out", str(tmp_path / "ev")])
        assert res.exit_code == 0, res.output
        assert "ACC1" in res.output and "run folder" in res.output
        res = runner.invoke(app, ["ablate", *common, "--out", str(tmp_path / "ab")])
        assert res.exit_code == 0, res.output
    abl = json.loads((tmp_path / "ab" / "ablation.json").read_text())
    assert list(abl["metrics"]) == ["full", "no graph", "no adaptive difficulty", "no extension"]
    # stage 1 is shared: every setting starts from the same ACC1
    assert len({m["acc1"] for m in abl["metrics"].values()}) == 1
    for word in ("full", "no graph", "no extension"):
        assert word in res.output


def test_bad_setup_is_one_line(tmp_path, monkeypatch):
    monkeypatch.delenv("DASHSCOPE_API_KEY", raising=False)
    res = CliRunner().invoke(app, ["evaluate", "--target", "qwen3", "--out", str(tmp_path / "r")])
    assert res.exit_code == 2
    assert "DASHSCOPE_API_KEY" in res.output
    assert "Traceback" not in res.output
    res = CliRunner().invoke(app, ["evaluate", "--target", "no-such-model", "--out", str(tmp_path / "r")])
    assert res.exit_code == 2 and "no-such-model" in res.output


def test_controls_statistics_and_gate_appear_in_the_metrics(tmp_path, demo_graph, demo_seeds):
    script = controlled_script(demo_seeds, PLAN)
    with ScriptedServer(script) as srv:
        outcome = evaluate(config(srv, demo_graph, tmp_path / "run", summary=False, report=False), progress=False)
    m = outcome.metrics
    # The double answers as before without advice and as after with any advice, placebo included.
    assert m["controls"]["plain"]["acc"] == pytest.approx(m["acc1"])
    assert m["controls"]["placebo"]["acc"] == pytest.approx(m["acc2"])
    assert m["controls"]["suggestions_minus_plain"] == pytest.approx(m["acc2"] - m["acc1"], abs=1e-3)
    lo, hi = m["ci"]["delta_acc"]
    assert lo <= m["delta_acc"] <= hi
    assert m["mcnemar"]["suggestions_vs_none"]["b"] == 1 and m["mcnemar"]["suggestions_vs_none"]["c"] == 2
    assert m["mcnemar"]["suggestions_vs_placebo"]["n_discordant"] == 0
    checks = m["gate"]["checks"]
    assert checks["well_formed"]["run"] > 0 and checks["answerable"]["pass_rate"] == 1.0
    assert m["gate"]["questions_passed"] == m["extension"]["asked"] > 0
    assert m["leakage"]["batches_checked"] > 0 and m["leakage"]["batches_flagged"] == 0
    # The plain re-ask is sent afresh, not replayed from stage 1's journal entry.
    stages = m["llm_usage"]["run_total"]["stages"]
    assert stages["control-plain"]["answers"] == stages["control-placebo"]["answers"] == m["leakage"]["batches_checked"]
    rec = next(r for r in records(tmp_path / "run") if r["batch_id"] == "b0000")
    assert all(rd["gate"]["passed"] for rd in rec["rounds"] if rd.get("question"))
    letters = [rd["question"]["answer"] for rd in rec["rounds"] if rd.get("question")]
    assert len(set(letters)) == len(letters)  # balanced: no letter twice in a batch's first four rounds


def test_a_leaking_suggestion_is_rewritten_before_the_reask(tmp_path, demo_graph, demo_seeds):
    script = controlled_script(demo_seeds, PLAN)
    first = demo_seeds[0]
    script.leak = first.options[first.answer]  # the correct option's text
    with ScriptedServer(script) as srv:
        outcome = evaluate(config(srv, demo_graph, tmp_path / "run", summary=False, report=False, controls=False), progress=False)
    leak = next(r for r in records(tmp_path / "run") if r["batch_id"] == "b0000")["validations"][-1]["leak"]
    assert leak["rewritten"] and not leak["flagged"]
    assert any(x["kind"] == "option_text" for x in leak["leaks_before"])
    assert script.leak_rewrites >= 1
    advised = [p for p in script.answer_prompts if "Advice from your examiner" in p and first.question.strip()[:60] in p]
    advice = [p.split("Advice from your examiner")[1].split("\n\n")[0] for p in advised]
    assert advice and not any(script.leak in a for a in advice)
    assert outcome.metrics["leakage"]["batches_rewritten"] >= 1


def test_decontaminate_keeps_the_original_beside_the_rewrite(tmp_path, demo_graph, demo_seeds):
    script = controlled_script(demo_seeds, PLAN)
    with ScriptedServer(script) as srv:
        outcome = evaluate(
            config(srv, demo_graph, tmp_path / "run", summary=False, report=False, decontaminate="paraphrase", rounds=0), progress=False
        )
    recs = records(tmp_path / "run")
    rewrites = [w for r in recs for w in r["decontamination"]]
    assert len(rewrites) == 6 and all(w["ok"] and w["mode"] == "paraphrase" for w in rewrites)
    assert all(w["question"]["question"] == paraphrase(w["original"]["question"].strip()) for w in rewrites)
    assert all(q["question"].startswith("In other words: ") for r in recs for q in r["seed"])
    assert outcome.metrics["decontamination"] == {"mode": "paraphrase", "rewritten": 6, "kept_original": 0}
    assert outcome.metrics["acc1"] == pytest.approx(50.0)  # the same target plan, on the reworded questions
