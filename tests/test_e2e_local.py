"""End to end with the real bundled model (SmolLM2-135M via llama.cpp) as target and judge.

Scores from a 135M model mean nothing, so this asserts structure: every stage ran, the
files exist, and the figures are consistent with each other.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judgeagent.cli.app import app

DATA = Path(__file__).resolve().parents[1] / "data" / "medqa-demo"


@pytest.mark.slow
# A few minutes on a quiet 2-core machine; llama.cpp slows down sharply when the cores are
# shared, so the limit is generous rather than the suite's default.
@pytest.mark.timeout(2400)
def test_evaluate_with_the_bundled_model(tmp_path, bundled_e2e):
    run = tmp_path / "run"
    shared = ["--graph", str(bundled_e2e["graph"]), "--cache", str(bundled_e2e["cache"])]
    res = CliRunner().invoke(
        app,
        ["evaluate", "--target", "local", "--judge", "local", "--data", str(DATA), *shared, "--limit", "6", "--out", str(run)],
    )
    assert res.exit_code == 0, res.output
    for name in ("config.json", "records.jsonl", "metrics.json", "journal.sqlite", "summary.json", "report.html", "report.md"):
        assert (run / name).exists(), name

    records = [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]
    assert len(records) == 2  # 6 questions in batches of 3
    for rec in records:
        assert len(rec["seed_answers"]) == 3  # stage 1
        assert len(rec["rounds"]) == 3  # stage 2: each round asked or skipped with a reason
        for rd in rec["rounds"]:
            assert (rd["question"] is not None and rd["answer"] is not None) or rd["skipped"]
            assert rd["path"]["steps"]
        final = rec["validations"][-1]  # stage 3: an evaluation, or the reason there is none
        assert final["evaluation"] is not None or final["evaluation_error"]
        assert len(final["reanswers"]) == 3
        assert len(rec["trajectory"]) == 3 + sum(1 for rd in rec["rounds"] if rd["answer"])

    m = json.loads((run / "metrics.json").read_text())
    assert m["n_questions"] == 6
    assert m["delta_acc"] == pytest.approx(m["cr"] - m["cte"], abs=1e-6)
    # Each figure is rounded to 4 decimals on its own, so their difference may be 1e-4 off.
    assert m["acc2"] - m["acc1"] == pytest.approx(m["delta_acc"], abs=2e-4)
    usage = m["llm_usage"]
    assert usage["total"]["requests"] > 0
    assert {"grading", "feedback"} <= set(usage["stages"])
    # The trust figures are there whatever the tiny model wrote.
    lo, hi = m["ci"]["delta_acc"]
    assert lo <= m["delta_acc"] <= hi
    assert 0.0 <= m["mcnemar"]["suggestions_vs_none"]["p_value"] <= 1.0
    tried = sum(1 for r in records for rd in r["rounds"] for a in rd["generation_attempts"] if "gate" in a)
    assert m["gate"]["evaluations"] == m["gate"]["checks"]["well_formed"]["run"] == tried
    assert m["gate"]["questions_passed"] == m["extension"]["asked"]  # nothing is asked unchecked
    reasked = sum(1 for r in records if r["validations"][-1]["reasked"])
    assert m["leakage"]["batches_checked"] == reasked
    if reasked:
        assert set(m["controls"]) >= {"plain", "placebo"}

    # The same command again replays everything from the journal.
    res2 = CliRunner().invoke(
        app,
        ["evaluate", "--target", "local", "--judge", "local", "--data", str(DATA), *shared, "--limit", "6", "--out", str(run)],
    )
    assert res2.exit_code == 0, res2.output
    assert json.loads((run / "metrics.json").read_text())["acc2"] == m["acc2"]
