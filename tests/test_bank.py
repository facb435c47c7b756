"""The question bank through the CLI, against the scripted target and judge: filled by
interviews, shared by concurrent runs, kept across a graph rebuild, asked with --bank."""

from __future__ import annotations

import json
import shutil
import sqlite3
import threading
from pathlib import Path

import pytest
from interview_double import Script
from scripted_server import ScriptedServer
from typer.testing import CliRunner

from judgeagent import evaluate as run_evaluation
from judgeagent.bank.fill import item_id
from judgeagent.bank.store import Bank, BankAnswer, BankItem, bank_path
from judgeagent.cli.app import app
from judgeagent.config import EvalConfig

DATA = Path(__file__).resolve().parents[1] / "data" / "medqa-demo"
PLAN = [(True, True), (True, False), (False, True), (False, False), (False, True), (True, True)]


@pytest.fixture
def graph(tmp_path, demo_graph) -> Path:
    """A copy of the demo graph: its bank sits beside it, in this test's own folder."""
    g = tmp_path / "graphs" / "medqa-demo"
    shutil.copytree(demo_graph, g)
    return g


def script_for(demo_seeds) -> Script:
    return Script(seed_plan={q.question.strip(): p for q, p in zip(demo_seeds, PLAN)}, answers={q.question.strip(): q.answer for q in demo_seeds})


def records(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]


def gated_rounds(run: Path) -> list[dict]:
    return [rd for rec in records(run) for rd in rec["rounds"] if rd.get("question") and (rd.get("gate") or {}).get("passed")]


def evaluate(srv, graph: Path, out: Path, *extra: str):
    model = f"{srv.base_url}@scripted"
    args = ["evaluate", "--target", model, "--judge", model, "--data", str(DATA), "--graph", str(graph), "--limit", "6",
            "--concurrency", "2", "--no-report", "--no-summary", "--out", str(out), *extra]
    return CliRunner().invoke(app, args)


def bank_json(graph: Path) -> dict:
    res = CliRunner().invoke(app, ["bank", str(graph), "--json"])
    assert res.exit_code == 0, res.output
    return json.loads(res.stdout)


def test_an_interview_fills_the_bank_beside_the_graph(tmp_path, graph, demo_seeds):
    with ScriptedServer(script_for(demo_seeds)) as srv:
        res = evaluate(srv, graph, tmp_path / "run")
        assert res.exit_code == 0, res.output
        target_identity = f"{srv.base_url.rstrip('/')}|scripted"
    asked = gated_rounds(tmp_path / "run")
    assert len(asked) == 6  # 2 batches × 3 rounds, every follow-up passed the gate
    assert bank_path(graph) == graph.parent / "medqa-demo.bank.sqlite" and bank_path(graph).exists()
    assert not list(graph.glob("*bank*"))
    bank = Bank(bank_path(graph))
    items = {i.item_id: i for i in bank.items()}
    manifest_hash = json.loads((graph / "manifest.json").read_text())["input_hash"]
    for rd in asked:
        q = rd["question"]
        item = items[item_id("kmc", q["question"], q["options"], q["answer"])]
        assert (item.question, item.options, item.answer, item.level) == (q["question"], q["options"], q["answer"], rd["level"])
        assert item.chunk_ids == [s["chunk_id"] for s in rd["path"]["steps"]]
        assert item.gate == rd["gate"]
        assert (item.judge, item.run, item.graph_hash) == (target_identity, str((tmp_path / "run").resolve()), manifest_hash)
    answers = bank.answers()
    assert sorted((a.item_id, a.correct) for a in answers) == sorted(
        (item_id("kmc", rd["question"]["question"], rd["question"]["options"], rd["question"]["answer"]), rd["answer"]["correct"]) for rd in asked
    )
    assert {(a.target, a.mode) for a in answers} == {(target_identity, "interview")}
    summary = bank_json(graph)
    levels = {}
    for rd in asked:
        levels[rd["level"]] = levels.get(rd["level"], 0) + 1
    assert summary["by_type_and_level"] == {"kmc": dict(sorted(levels.items()))}
    assert summary["from_older_graph"] == {"n_items": 0, "by_graph_hash": {}}
    assert [(t["n_answers"], t["n_items"], t["accuracy"]) for t in summary["targets"]] == [(6, 6, 100.0)]


def test_filling_the_bank_changes_nothing_a_run_measures(tmp_path, graph, demo_seeds, monkeypatch):
    from judgeagent.protocols.judgeagent import JudgeAgent

    # One batch at a time and a fresh double per run: the double numbers its questions in
    # the order it is asked, so only then are two runs' questions the same.
    with monkeypatch.context() as m, ScriptedServer(script_for(demo_seeds)) as srv:
        m.setattr(JudgeAgent, "after", lambda *a, **k: None)
        assert evaluate(srv, graph, tmp_path / "without", "--concurrency", "1").exit_code == 0
    assert not bank_path(graph).exists()
    with ScriptedServer(script_for(demo_seeds)) as srv:
        assert evaluate(srv, graph, tmp_path / "with", "--concurrency", "1").exit_code == 0
    assert bank_path(graph).exists()
    assert len(Bank(bank_path(graph)).items()) == 6
    assert records(tmp_path / "with") == records(tmp_path / "without")
    drop = ("timings", "llm_usage")
    metrics = [{k: v for k, v in json.loads((tmp_path / r / "metrics.json").read_text()).items() if k not in drop} for r in ("with", "without")]
    assert metrics[0] == metrics[1]


@pytest.mark.slow
def test_two_runs_write_one_bank_at_once(tmp_path, graph, demo_seeds):
    start = threading.Barrier(2)
    errors: list[BaseException] = []

    with ScriptedServer(script_for(demo_seeds)) as srv:
        model = f"{srv.base_url}@scripted"

        def run(seed: int) -> None:
            cfg = EvalConfig(target=model, judge=model, data=DATA, graph=graph, limit=6, seed=seed, concurrency=2, report=False,
                             summary=False, out=tmp_path / f"run{seed}")
            start.wait()
            try:
                run_evaluation(cfg, progress=False)
            except BaseException as e:  # noqa: BLE001 - reported by the assertion below
                errors.append(e)

        threads = [threading.Thread(target=run, args=(s,)) for s in (1, 2)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert errors == []
    asked = [(s, rd) for s in (1, 2) for rd in gated_rounds(tmp_path / f"run{s}")]
    bank = Bank(bank_path(graph))
    answers = bank.answers()
    assert len(answers) == len(asked) == 12
    assert {a.run for a in answers} == {str((tmp_path / f"run{s}").resolve()) for s in (1, 2)}
    expected_ids = {item_id("kmc", rd["question"]["question"], rd["question"]["options"], rd["question"]["answer"]) for _, rd in asked}
    assert {i.item_id for i in bank.items()} == expected_ids
    with sqlite3.connect(bank.path) as db:
        assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"


def test_store_takes_many_writers(tmp_path):
    graph = tmp_path / "g"
    bank = Bank.open(graph)
    item = synthetic_items(1)[0]

    def writer(k: int) -> None:
        for n in range(15):
            bank.write([item], [BankAnswer(item.item_id, f"target-{k}", f"t{k}", f"run-{n}", "bank", "A", "A", True)])

    threads = [threading.Thread(target=writer, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(bank.items()) == 1
    assert len(bank.answers()) == 6 * 15
    assert bank.write([item], [BankAnswer(item.item_id, "target-0", "t0", "run-0", "bank", "A", "A", True)]) == (0, 0)


def test_a_graph_rebuild_keeps_the_bank(tmp_path, graph, demo_seeds):
    with ScriptedServer(script_for(demo_seeds)) as srv:
        assert evaluate(srv, graph, tmp_path / "run").exit_code == 0
    before = (Bank(bank_path(graph)).items(), Bank(bank_path(graph)).answers())
    old_hash = json.loads((graph / "manifest.json").read_text())["input_hash"]
    res = CliRunner().invoke(app, ["build-graph", str(DATA), "--out", str(graph), "--force", "--chunk-tokens", "150"])
    assert res.exit_code == 0, res.output
    new_hash = json.loads((graph / "manifest.json").read_text())["input_hash"]
    assert new_hash != old_hash
    bank = Bank(bank_path(graph))
    assert (bank.items(), bank.answers()) == before
    summary = bank_json(graph)
    assert summary["from_older_graph"] == {"n_items": 6, "by_graph_hash": {old_hash: 6}}
    res = CliRunner().invoke(app, ["bank", str(graph)])
    assert "6 item(s) come from an older build of the graph" in res.output


# --------------------------------------------------------------------------- synthetic banks
RIGHT = "the right one"


def synthetic_items(n: int, graph_hash: str = "h0") -> list[BankItem]:
    """Multiple-choice items the scripted target answers right (the option with RIGHT's text)
    while ``followups_right`` is on."""
    levels = ("easy", "medium", "hard")
    items = []
    for k in range(n):
        options = {"A": f"wrong {k}", "B": RIGHT, "C": f"other {k}", "D": f"third {k}"}
        question = f"Synthetic question number {k} about topic {k % 7}?"
        items.append(BankItem(item_id("kmc", question, options, "B"), "kmc", question, "B", options, levels[k % 3], levels[k % 3],
                              [f"c{k}", f"c{k + 1}"], [{"entity": f"e{k}", "chunk_id": f"c{k}", "text": f"Passage {k}."}],
                              {"passed": True}, "judge-x", "run-x", graph_hash, "medqa-demo"))
    return items


def fill_synthetic(graph: Path, n_items: int = 30, n_targets: int = 12, flipped: int = 0) -> list[BankItem]:
    """A bank answered by ``n_targets`` simulated targets under the 2PL law (seeded); item
    ``flipped`` is answered right by the weak targets and wrong by the strong: a wrong key."""
    import numpy as np

    rng = np.random.default_rng(3)
    items = synthetic_items(n_items)
    theta = np.linspace(-2, 2, n_targets)
    b = np.linspace(-1.5, 1.5, n_items)
    answers = []
    for t, th in enumerate(theta):
        for j, item in enumerate(items):
            p = 1 / (1 + np.exp(-1.5 * (th - b[j])))
            right = bool(rng.random() < p) if j != flipped else bool(th < 0)
            answers.append(BankAnswer(item.item_id, f"sim-{t}", f"sim-{t}", "sim-run", "interview", None, None, right))
    Bank.open(graph).write(items, answers)
    return items


def test_calibrate_flags_a_wrong_key_and_bank_runs_leave_it_out(tmp_path, demo_seeds):
    graph = tmp_path / "graphs" / "synthetic"
    items = fill_synthetic(graph, flipped=4)
    res = CliRunner().invoke(app, ["calibrate", str(graph), "--json"])
    assert res.exit_code == 0, res.output
    cal = json.loads(res.stdout)
    assert (cal["n_targets"], cal["n_items"], cal["n_answers"]) == (12, 30, 360)
    assert items[4].item_id in cal["flagged"]
    by_id = {i["item_id"]: i for i in cal["items"]}
    assert by_id[items[4].item_id]["flag_reason"] == "negative item-rest correlation"
    thetas = {t["target"]: t["theta"] for t in cal["targets"]}
    assert thetas["sim-11"] > thetas["sim-6"] > thetas["sim-0"]
    assert cal["level_vs_b"]["n_items"] == 30 - len(cal["flagged"])
    saved = json.loads((graph.parent / "synthetic.calibration.json").read_text())
    assert saved["flagged"] == cal["flagged"]
    assert "## Item response calibration" in (graph.parent / "synthetic.calibration.md").read_text()
    with ScriptedServer(script_for(demo_seeds)) as srv:
        model = f"{srv.base_url}@scripted"
        res = CliRunner().invoke(app, ["evaluate", "--protocol", "bank", "--bank", str(graph), "--target", model, "--judge", model, "--out", str(tmp_path / "b")])
    assert res.exit_code == 0, res.output
    assert f"{len(cal['flagged'])} item(s) flagged by calibration" in res.output
    asked = {r["item_id"] for r in records(tmp_path / "b")}
    assert asked == {i.item_id for i in items} - set(cal["flagged"])
    metrics = json.loads((tmp_path / "b" / "metrics.json").read_text())
    assert (metrics["n_items"], metrics["accuracy"], metrics["excluded_flagged"]) == (len(asked), 100.0, len(cal["flagged"]))
    assert "size_note" not in metrics  # no --bank-size: every usable item, as asked

    with ScriptedServer(script_for(demo_seeds)) as srv:
        model = f"{srv.base_url}@scripted"
        res = CliRunner().invoke(app, ["evaluate", "--protocol", "bank", "--bank", str(graph), "--bank-size", "1000", "--target", model, "--judge", model,
                                       "--out", str(tmp_path / "c")])
    assert res.exit_code == 0, res.output
    assert f"--bank-size 1000 asked for more items than the bank has usable ({len(asked)}): all were asked" in " ".join(res.output.split())
    assert len(records(tmp_path / "c")) == len(asked)


def test_bank_runs_ask_two_targets_the_same_items(tmp_path, demo_seeds):
    graph = tmp_path / "graphs" / "synthetic"
    fill_synthetic(graph)
    runs = {}
    for right in (True, False):
        script = script_for(demo_seeds)
        script.followups_right = right
        with ScriptedServer(script) as srv:
            model = f"{srv.base_url}@scripted"
            out = tmp_path / f"run-{right}"
            res = CliRunner().invoke(app, ["evaluate", "--protocol", "bank", "--bank", str(graph), "--bank-size", "10", "--bank-seed", "5", "--target", model,
                                           "--judge", model, "--out", str(out)])
            assert res.exit_code == 0, res.output
            runs[right] = (records(out), json.loads((out / "metrics.json").read_text()), f"{srv.base_url.rstrip('/')}|scripted")
    # Written as answered; in the order drawn, both targets got the same items.
    drawn = {right: [r["item_id"] for r in sorted(recs, key=lambda r: r["batch_index"])] for right, (recs, _m, _i) in runs.items()}
    assert drawn[True] == drawn[False]
    assert len(runs[True][0]) == 10
    assert (runs[True][1]["accuracy"], runs[False][1]["accuracy"]) == (100.0, 0.0)
    answers = Bank(bank_path(graph)).answers()
    for right, (recs, _m, identity) in runs.items():
        mine = [a for a in answers if a.target == identity]
        assert sorted(a.item_id for a in mine) == sorted(r["item_id"] for r in recs)
        assert {(a.mode, a.correct) for a in mine} == {("bank", right)}


def test_adaptive_run_reports_theta_se_and_items_used(tmp_path, demo_seeds):
    graph = tmp_path / "graphs" / "synthetic"
    fill_synthetic(graph, n_items=60, n_targets=20)
    assert CliRunner().invoke(app, ["calibrate", str(graph)]).exit_code == 0
    with ScriptedServer(script_for(demo_seeds)) as srv:
        model = f"{srv.base_url}@scripted"
        res = CliRunner().invoke(app, ["evaluate", "--protocol", "bank", "--bank", str(graph), "--adaptive", "--target-se", "0.6", "--target", model,
                                       "--judge", model, "--out", str(tmp_path / "a")])
    assert res.exit_code == 0, res.output
    m = json.loads((tmp_path / "a" / "metrics.json").read_text())
    recs = records(tmp_path / "a")
    assert m["mode"] == "adaptive" and m["stop_reason"] == "target SE reached"
    assert m["items_used"] == len(recs) and [r["step"] for r in recs] == list(range(1, len(recs) + 1))
    assert m["se"] <= 0.6 < recs[-2]["se"]
    assert (m["theta"], m["se"]) == (recs[-1]["theta"], recs[-1]["se"])
    assert m["theta"] > 0  # every answer right
    assert f"θ {m['theta']:.2f} (SE {m['se']:.2f}) after {m['items_used']} of" in res.output


def test_adaptive_needs_a_bank_and_a_calibration(tmp_path):
    res = CliRunner().invoke(app, ["evaluate", "--adaptive"])
    assert res.exit_code == 2 and "--adaptive belongs to the bank protocol, not to --protocol judgeagent" in res.output
    graph = tmp_path / "graphs" / "synthetic"
    fill_synthetic(graph)
    res = CliRunner().invoke(app, ["evaluate", "--protocol", "bank", "--bank", str(graph), "--adaptive", "--out", str(tmp_path / "x")])
    assert res.exit_code == 2 and f"run `judgeagent calibrate {graph}` first" in res.output
    res = CliRunner().invoke(app, ["bank", str(tmp_path / "graphs" / "nothing")])
    assert res.exit_code == 2 and "no question bank" in res.output


def test_item_draw_is_seeded_and_keeps_its_order_as_the_bank_grows():
    from judgeagent.bank.bankrun import draw_items

    items = synthetic_items(40)
    small = draw_items(items[:25], None, seed=7)
    grown = draw_items(items, None, seed=7)
    assert [i for i in grown if i in items[:25]] == small
    assert draw_items(items, 10, seed=7) == grown[:10]
    assert draw_items(items, 10, seed=8) != grown[:10]
