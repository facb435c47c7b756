"""The contamination probe: its figures by hand, and `judgeagent contamination` end to end against
the scripted target and judge (no network, real demo graph)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judgeagent.cli.app import app
from judgeagent.contamination import contamination_metrics
from interview_double import Script
from scripted_server import ScriptedServer

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
        first = len(srv.requests)
        # rerunning the same command resumes the finished folder: nothing is asked again
        res2 = invoke(srv, demo_graph, tmp_path / "run")
        assert res2.exit_code == 0, res2.output
        exam_requests = [b for b in srv.requests[first:] if b["messages"][0]["content"].startswith("You are taking an exam")]
        assert exam_requests == []
    assert "gap" in res.output and "run folder" in res.output

    run = tmp_path / "run"
    result = json.loads((run / "contamination.json").read_text())
    for key in ("acc_seed", "acc_generated", "gap", "gap_ci", "level", "n_resamples", "by_difficulty", "n_seed",
                "n_generated", "generated", "skipped", "skipped_reasons", "complete", "target", "judge", "llm_usage"):
        assert key in result, key
    assert result["complete"] and result["n_batches"] == 2
    assert result["n_seed"] == 6 and result["generated"] == result["n_generated"] == 6 and result["skipped"] == 0
    assert result["acc_seed"] == pytest.approx(400 / 6, abs=1e-3)
    assert result["acc_generated"] == 100.0
    assert result["gap"] == pytest.approx(result["acc_seed"] - result["acc_generated"], abs=1e-3)
    lo, hi = result["gap_ci"]
    assert lo <= result["gap"] <= hi
    assert set(result["by_difficulty"]) == {"unlabeled"}
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
