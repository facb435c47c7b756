"""The audit carried into the figures it qualifies: a run's metrics.json and report, a sweep's
leaderboard.json and report, `compare` and `validate`; and a run or sweep nobody audited says
so in one line. Real runs and a real sweep of scripted models (tests/audit_double.py)."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import numpy as np
import pytest
from audit_double import DATA, judge_for, labels_file, scripted_sweep
from interview_double import TOPICS
from scripted_server import ScriptedServer
from typer.testing import CliRunner

from judgeagent.audit.design import Design
from judgeagent.bank.fill import item_id
from judgeagent.cli.app import app
from judgeagent.metrics import ranking


def cli(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def design(folder: Path) -> Design:
    return Design.from_dict(json.loads((folder / "design.json").read_text())["design"])


def follow_ups(run: Path) -> dict[str, tuple[str, bool]]:
    """Item id → (level it counts as, answered right) of every follow-up the run asked."""
    out = {}
    for line in (run / "records.jsonl").read_text().splitlines():
        for rd in json.loads(line)["rounds"]:
            if rd.get("question") and rd.get("answer"):
                q = rd["question"]
                out[item_id("kmc", q["question"], q["options"], q["answer"])] = (rd.get("counted_as") or rd["level"], rd["answer"]["correct"])
    return out


def test_a_run_carries_its_audit_into_metrics_json_the_report_and_compare(audit_run, tmp_path):
    assert cli("report", audit_run).exit_code == 0
    html = (audit_run / "report.html").read_text()
    assert html.count("The follow-up questions were never audited") == 1
    before = json.loads((audit_run / "metrics.json").read_text())
    # Drawing the audit carries it at once, with nothing labelled yet.
    res = cli("audit", audit_run, "--sample", 4, "--seed", 3)
    assert res.exit_code == 0, res.output
    assert "updated with the audit:" in res.output and "metrics.json" in res.output
    block = json.loads((audit_run / "metrics.json").read_text())["audit"]
    assert block["basis"] == "none" and block["audit_dir"] == "audit" and block["population"] == 6 and block["n_sample"] == 4
    assert "with no label yet" in (audit_run / "report.html").read_text()
    # A person labels the sample: the first item drawn has a wrong key, the rest are valid.
    folder = audit_run / "audit"
    sample = design(folder).order
    labels = {i: (["wrong key"] if k == 0 else ["valid"]) for k, i in enumerate(sample)}
    res = cli("audit", "import", labels_file(tmp_path / "ana.json", folder, labels))
    assert res.exit_code == 0, res.output
    results = json.loads((folder / "results.json").read_text())
    metrics = json.loads((audit_run / "metrics.json").read_text())
    block = metrics["audit"]
    # Every figure of the run is as it was; the audit sits beside them.
    assert {k: v for k, v in metrics.items() if k != "audit"} == before
    assert block["basis"] == "people" and block["auditors"] == ["ana"] and block["n_labelled"] == 4
    assert block["invalid"] == {k: results["invalid"][k] for k in ("estimate", "ci", "n", "hits", "population")}
    assert block["by_defect"]["wrong key"]["hits"] == 1 and set(block["by_level"]) == set(results["by_level"])
    assert block["verdicts"] == {i: ls == ["valid"] for i, ls in labels.items()}
    # The extension accuracy on all follow-ups and on the three audited valid.
    asked = follow_ups(audit_run)
    acc = block["accuracy"]
    assert acc["overall"]["n"] == len(asked) == sum(v["n"] for v in before["extension_accuracy"].values())
    valid = [asked[i] for i, ls in labels.items() if ls == ["valid"]]
    assert (acc["overall_valid"]["n"], acc["overall_valid"]["correct"]) == (3, sum(ok for _, ok in valid))
    assert (acc["n_valid"], acc["n_invalid"], acc["n_unlabelled"]) == (3, 1, 2)
    assert {lv: a["n"] for lv, a in acc["by_level_valid"].items()} == {lv: sum(1 for x, _ in valid if x == lv) for lv, _ in valid}
    # The report says the rate next to the follow-up figures, and `judgeagent report` keeps it.
    rate = f"{100 * block['invalid']['estimate']:.1f}% [{100 * block['invalid']['ci'][0]:.1f}, {100 * block['invalid']['ci'][1]:.1f}]"
    for _ in range(2):
        html = (audit_run / "report.html").read_text()
        assert f"Invalid follow-up questions: {rate}" in html and "items audited valid: accuracy %" in html
        assert f"Invalid follow-up questions: {rate}".replace("[", "\\[").replace("]", "\\]") in (audit_run / "report.md").read_text()
        assert cli("report", audit_run).exit_code == 0
    res = cli("compare", audit_run, "-f", "csv")
    assert res.exit_code == 0 and "never audited" not in res.stderr
    row = next(csv.reader(io.StringIO(res.stdout.splitlines()[1])))
    assert row[-1] == rate
    # A new draw into another folder does not hide the labelled audit; importing its labels would.
    res = cli("audit", audit_run, "--sample", 5, "--seed", 9, "--out", audit_run / "audit-2")
    assert res.exit_code == 0 and "keeps the audit" in " ".join(res.output.split())
    assert json.loads((audit_run / "metrics.json").read_text())["audit"]["audit_id"] == block["audit_id"]


@pytest.mark.slow
def test_a_sweep_carries_its_audit_into_the_leaderboard_validate_and_a_rerun(tmp_path, demo_graph, demo_seeds):
    sweep_dir = scripted_sweep(tmp_path, demo_graph, demo_seeds, everyone_wrong={TOPICS[0]}, report=True)
    board = json.loads((sweep_dir / "leaderboard.json").read_text())
    assert "The shared items were never audited" in (sweep_dir / "report.html").read_text()
    res = cli("validate", sweep_dir)
    assert res.exit_code == 0 and "The shared items were never audited" in " ".join(res.output.split())
    items = board["matrix"]["items"]
    x = np.array([[np.nan if v is None else v for v in row] for row in board["matrix"]["correct"]], dtype=float)
    names = board["matrix"]["targets"]
    # Audit every shared item; those a alone got right are the broken ones, which moves the ranking.
    assert cli("audit", sweep_dir, "--sample", len(items)).exit_code == 0
    folder = sweep_dir / "audit"
    a, b = names.index("a"), names.index("b")
    broken = {i for j, i in enumerate(items) if x[a, j] == 1 and x[b, j] == 0}
    assert broken and len(broken) < len(items)
    labels = {i: (["wrong key"] if i in broken else ["valid"]) for i in design(folder).order}
    res = cli("audit", "import", labels_file(tmp_path / "ana.json", folder, labels))
    assert res.exit_code == 0, res.output
    assert "leaderboard.json" in res.output and "report.html" in res.output
    after = json.loads((sweep_dir / "leaderboard.json").read_text())
    block = after["audit"]
    assert {k: v for k, v in after.items() if k != "audit"} == board
    assert block["population"] == len(items) and block["invalid"]["hits"] == len(broken)
    assert block["invalid"]["estimate"] == pytest.approx(len(broken) / len(items)) and block["invalid"]["ci"] == [block["invalid"]["estimate"]] * 2
    keep = [j for j, i in enumerate(items) if i not in broken]
    on_valid = block["leaderboard"]
    assert (on_valid["n_items"], on_valid["n_valid"], on_valid["n_invalid"], on_valid["n_unlabelled"]) == (len(items), len(keep), len(broken), 0)
    clusters = [board["matrix"]["clusters"][j] for j in keep]
    expected = ranking.rank_intervals(x[:, keep], names, clusters, n_resamples=board["n_bootstrap"], seed=board["seed"])
    got = {t["name"]: t for t in on_valid["targets"]}
    for r in expected:
        assert (got[r.target]["accuracy"], got[r.target]["rank"], got[r.target]["rank_lo"], got[r.target]["rank_hi"]) == (r.score, r.rank, r.rank_lo, r.rank_hi)
        assert got[r.target]["rank_all"] == next(t["rank"] for t in board["targets"] if t["name"] == r.target)
    assert on_valid["ranking_changed"] == any(got[n]["rank"] != got[n]["rank_all"] for n in names)
    assert len(on_valid["pairwise"]) == 1
    html = (sweep_dir / "report.html").read_text()
    assert "Invalid shared items:" in html and "On the shared items audited valid" in html
    res = cli("validate", sweep_dir, "--json")
    out = json.loads(res.stdout)
    assert out["audit"]["invalid"] == block["invalid"] and out["audit_line"].startswith("Invalid shared items:")
    assert {t["name"]: t["generated_valid_accuracy"] for t in out["targets"]} == {n: got[n]["accuracy"] for n in names}
    # Rerunning the sweep rebuilds the leaderboard from its runs (no request) and keeps the audit.
    from judgeagent.sweeps import SweepConfig, sweep

    cfg = SweepConfig.model_validate(json.loads((sweep_dir / "sweep.json").read_text())["config"])
    sweep(cfg)
    again = json.loads((sweep_dir / "leaderboard.json").read_text())
    assert again["audit"]["leaderboard"] == on_valid and again["audit"]["invalid"] == block["invalid"]
    assert "Invalid shared items:" in (sweep_dir / "report.html").read_text()


@pytest.mark.slow
def test_a_rerun_keeps_the_audit_and_a_changed_run_drops_it(tmp_path, demo_graph, demo_seeds):
    run = tmp_path / "run"
    args = ["evaluate", "--data", DATA, "--graph", demo_graph, "--limit", 6, "--concurrency", 2, "--no-summary", "--no-controls",
            "--leak-check", "rules", "--out", run]  # fmt: skip
    with ScriptedServer(judge_for(demo_seeds)) as srv:
        model = f"{srv.base_url}@scripted"
        assert cli(*args, "--target", model, "--judge", model).exit_code == 0
        assert cli("audit", run, "--sample", 6).exit_code == 0
        folder = run / "audit"
        assert cli("audit", "import", labels_file(tmp_path / "ana.json", folder, {i: ["valid"] for i in design(folder).order})).exit_code == 0
        block = json.loads((run / "metrics.json").read_text())["audit"]
        # The same command again finds the finished run and rewrites metrics.json from the same records: the audit stays.
        assert cli(*args, "--target", model, "--judge", model).exit_code == 0
        assert json.loads((run / "metrics.json").read_text())["audit"] == block
        # A batch lost and asked again on resuming gives the same record (the journal replays it): the audit stays.
        lines = (run / "records.jsonl").read_text().splitlines()
        (run / "records.jsonl").write_text(lines[0] + "\n")
        assert cli(*args, "--target", model, "--judge", model).exit_code == 0
        assert json.loads((run / "metrics.json").read_text())["audit"] == block
        # Records that changed since the audit (here a follow-up's grade) drop it, and the report says why.
        lines = (run / "records.jsonl").read_text().splitlines()
        rec = json.loads(lines[1])
        answered = next(rd for rd in rec["rounds"] if rd.get("answer"))
        answered["answer"]["correct"] = not answered["answer"]["correct"]
        (run / "records.jsonl").write_text("\n".join([lines[0], json.dumps(rec)]) + "\n")
        assert cli(*args, "--target", model, "--judge", model).exit_code == 0
    assert len((run / "records.jsonl").read_text().splitlines()) == 2
    assert "audit" not in json.loads((run / "metrics.json").read_text())
    assert "whose figures are not carried into these ones: the run changed after it" in (run / "report.html").read_text()
