"""judgeagent sweep against scripted targets of known accuracy and one scripted judge: the
leaderboard's order and figures, a rerun that sends nothing, a dead target reported while
the others finish, a resumed sweep that asks only what is missing, and the judge's
concurrency limit held across targets interviewed at once."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import socket
from pathlib import Path

import pytest
from interview_double import TOPICS, Script, Target
from scripted_server import ScriptedServer
from typer.testing import CliRunner

import judgeagent
from judgeagent.cli.app import app
from judgeagent.sweeps import SweepConfig, sweep

DATA = Path(__file__).resolve().parents[1] / "data" / "medqa-demo"
FAST = {"summary": False, "controls": False, "leak_check": "rules"}


@pytest.fixture
def graph(tmp_path, demo_graph) -> Path:
    """A copy of the demo graph: the sweep's bank sits beside it, in this test's folder."""
    g = tmp_path / "graphs" / "medqa-demo"
    shutil.copytree(demo_graph, g)
    return g


def targets(demo_seeds) -> dict[str, Target]:
    return {
        "strong": Target(demo_seeds, "111111", "111111", lambda k: True),
        "middle": Target(demo_seeds, "110110", "111110", lambda k: k % 2 == 0),
        "weak": Target(demo_seeds, "100000", "100001", lambda k: False),
    }


def models_file(path: Path, urls: dict[str, str], judge_concurrency: int = 8) -> Path:
    lines = []
    for name, url in urls.items():
        lines += [f"[models.{name}]", f'base_url = "{url}"', f'model = "{name}"', f"concurrency = {judge_concurrency if name == 'judge' else 8}", ""]
    path.write_text("\n".join(lines))
    return path


def dead_url() -> str:
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()  # nothing listens there now
    return f"http://127.0.0.1:{port}/v1"


def config(tmp_path, graph, names, models: Path, **kw) -> SweepConfig:
    base = {"targets": names, "judge": "judge", "data": DATA, "graph": graph, "limit": 6, "concurrency": 1, "parallel": 1, "bootstrap": 500,
            "options": FAST, "out": tmp_path / "sweep", "report": False, "llm": {"models_file": models, "max_attempts": 1}}
    return SweepConfig.model_validate(base | kw)


def sent(servers) -> dict[str, int]:
    return {name: len(srv.requests) for name, srv in servers.items()}


@pytest.mark.slow
def test_three_targets_are_ranked_on_shared_items_and_a_rerun_sends_nothing(tmp_path, graph, demo_seeds):
    doubles = targets(demo_seeds)
    with ScriptedServer(Script()) as judge, ScriptedServer(doubles["strong"]) as s, ScriptedServer(doubles["middle"]) as m, \
            ScriptedServer(doubles["weak"]) as w:  # fmt: skip
        servers = {"judge": judge, "strong": s, "middle": m, "weak": w}
        models = models_file(tmp_path / "judgeagent.toml", {k: v.base_url for k, v in servers.items()})
        cfg = config(tmp_path, graph, ["weak", "strong", "middle"], models, report=True)
        result = sweep(cfg)
        first = sent(servers)
        again = sweep(cfg)
        assert sent(servers) == first  # finished: not one request, not even a preflight
    board = result.leaderboard.to_json()  # leaderboard.json as written
    assert again.leaderboard == result.leaderboard
    items = json.loads((result.sweep_dir / "shared_items.json").read_text())["items"]
    topics = [TOPICS.index(it["question"]) for it in items]
    assert len(items) == len(set(topics)) >= 6  # every gate-passed follow-up, each once
    # every target answered every shared item, one request each
    for name in ("strong", "middle", "weak"):
        recs = [json.loads(x) for x in (result.sweep_dir / "shared" / name / "records.jsonl").read_text().splitlines()]
        assert sorted(r["item_id"] for r in recs) == sorted(it["item_id"] for it in items)
    rows = {r["name"]: r for r in board["targets"]}
    assert [r["name"] for r in board["targets"]] == ["strong", "middle", "weak"]
    assert board["ranked_on"] == "shared items"
    even = sum(1 for k in topics if k % 2 == 0)
    assert rows["strong"]["shared_accuracy"] == 100.0 and rows["weak"]["shared_accuracy"] == 0.0
    assert rows["middle"]["shared_accuracy"] == pytest.approx(100.0 * even / len(items), abs=1e-4)
    assert [rows[n]["acc1"] for n in ("strong", "middle", "weak")] == pytest.approx([100.0, 66.6667, 16.6667], abs=1e-4)
    assert [rows[n]["delta_acc"] for n in ("strong", "middle", "weak")] == pytest.approx([0.0, 16.6667, 16.6667], abs=1e-4)
    assert rows["middle"]["acc1_ci"][0] <= 66.6667 <= rows["middle"]["acc1_ci"][1]
    assert [rows[n]["shared_n"] for n in rows] == [len(items)] * 3
    assert rows["strong"]["theta"] > rows["middle"]["theta"] > rows["weak"]["theta"]
    assert all(0 < rows[n]["theta_se"] < 1.5 for n in rows)
    assert [rows[n]["rank"] for n in ("strong", "middle", "weak")] == [1, 2, 3]
    assert rows["strong"]["rank_interval"] == [1, 1] and rows["weak"]["rank_interval"] == [3, 3]
    assert rows["middle"]["rank_label"] == "2nd"
    pairs = {(p["a"], p["b"]): p for p in board["pairwise"]}
    assert list(pairs) == [("strong", "middle"), ("strong", "weak"), ("middle", "weak")]  # in leaderboard order
    sw = pairs[("strong", "weak")]
    assert (sw["a_only"], sw["b_only"], sw["n_shared"], sw["diff"]) == (len(items), 0, len(items), 100.0)
    assert sw["significant"] is True and board["correction"] == "Holm"
    assert board["matrix"]["targets"] == ["strong", "middle", "weak"] and board["matrix"]["correct"][0] == [1] * len(items)
    agreement = board["validity"]["seed_vs_generated"]
    assert agreement["n_targets"] == 3 and agreement["spearman"] == pytest.approx(1.0)
    # the files, from the same figures
    md = (result.sweep_dir / "leaderboard.md").read_text()
    # Two seed batches per interview: too few to resample, so ACC1 and ΔACC show their whole range, and say why.
    assert "| 1st | strong | 100.0 [0.0, 100.0] | +0.0 [-100.0, +100.0] |" in md
    assert "ACC1 and ΔACC intervals shown as the whole range for strong (2), middle (2), weak (2): fewer than 3 batches to resample." in md
    table = list(csv.DictReader(io.StringIO((result.sweep_dir / "leaderboard.csv").read_text())))
    assert [(t["rank"], t["target"], t["shared_accuracy"]) for t in table] == [("1", "strong", "100.0"), ("2", "middle", str(rows["middle"]["shared_accuracy"])),
                                                                               ("3", "weak", "0.0")]  # fmt: skip
    tex = (result.sweep_dir / "leaderboard.tex").read_text()
    assert tex.startswith("\\begin{tabular}") and "strong" in tex
    html = (result.sweep_dir / "report.html").read_text()
    assert "strong vs middle" in html and "both right" in html and "one only: strong" in html
    sweep_json = json.loads((result.sweep_dir / "sweep.json").read_text())
    assert sweep_json["complete"] is True and [t["status"] for t in sweep_json["targets"]] == ["ok"] * 3
    assert sweep_json["status"] == result.status == "complete"
    assert (result.sweep_dir / "targets" / "strong" / "report.html").exists()


@pytest.mark.slow
def test_a_dead_target_is_reported_the_others_finish_and_the_resumed_sweep_asks_only_what_is_missing(tmp_path, graph, demo_seeds):
    doubles = targets(demo_seeds)
    with ScriptedServer(Script()) as judge, ScriptedServer(doubles["strong"]) as s, ScriptedServer(doubles["weak"]) as w:
        urls = {"judge": judge.base_url, "strong": s.base_url, "weak": w.base_url, "middle": dead_url()}
        models = models_file(tmp_path / "judgeagent.toml", urls)
        args = ["sweep", "--targets", "strong,middle,weak", "--judge", "judge", "--data", str(DATA), "--graph", str(graph), "--limit", "6",
                "--concurrency", "1", "--parallel", "1", "--bootstrap", "500", "--out", str(tmp_path / "sweep"), "--no-report",
                "--models", str(models), "--max-attempts", "1"]  # fmt: skip
        (tmp_path / "sweep.toml").write_text('[options]\nsummary = false\ncontrols = false\nleak_check = "rules"\n')
        res = CliRunner().invoke(app, [*args, "--file", str(tmp_path / "sweep.toml")])
        assert res.exit_code == 2, res.output
        assert "1 of 3 target(s) failed (middle: model 'middle': cannot reach" in " ".join(res.output.split())
        board = json.loads((tmp_path / "sweep" / "leaderboard.json").read_text())
        assert [(r["name"], r["status"]) for r in board["targets"]] == [("strong", "ok"), ("weak", "ok"), ("middle", "failed")]
        assert board["targets"][2]["error"].startswith("failed: model 'middle': cannot reach")
        md = (tmp_path / "sweep" / "leaderboard.md").read_text()
        assert "| – | middle | – | – | – | – | failed: model 'middle': cannot reach" in md
        before_items = {i["item_id"] for i in json.loads((tmp_path / "sweep" / "shared_items.json").read_text())["items"]}
        first = sent({"judge": judge, "strong": s, "weak": w})

        # The endpoint comes back: the rerun interviews only middle, and asks the others only the items its interview added.
        with ScriptedServer(doubles["middle"]) as m:
            models_file(models, urls | {"middle": m.base_url})
            res = CliRunner().invoke(app, [*args, "--file", str(tmp_path / "sweep.toml")])
            assert res.exit_code == 0, res.output
            items = json.loads((tmp_path / "sweep" / "shared_items.json").read_text())["items"]
            added = {i["item_id"] for i in items} - before_items
            assert len(m.requests) == 2 * (1 + 3 + 1) + len(items)  # per batch: seeds, 3 follow-ups, the re-ask; then every shared item
        second = sent({"judge": judge, "strong": s, "weak": w})
        assert second["strong"] - first["strong"] == len(added) and second["weak"] - first["weak"] == len(added)
        # the judge was asked for middle's interview alone: what that run's usage counts
        middle_usage = json.loads((tmp_path / "sweep" / "targets" / "middle" / "metrics.json").read_text())["llm_usage"]["models"]
        assert second["judge"] - first["judge"] == middle_usage["judge"]["http_requests"] > 0
    board = json.loads((tmp_path / "sweep" / "leaderboard.json").read_text())
    assert [r["name"] for r in board["targets"]] == ["strong", "middle", "weak"]
    assert all(r["status"] == "ok" and r["shared_n"] == len(items) for r in board["targets"])


@pytest.mark.slow
def test_the_judge_limit_holds_across_targets_interviewed_at_once(tmp_path, graph, demo_seeds):
    doubles = targets(demo_seeds)
    with ScriptedServer(Script(), delay=0.05) as judge, ScriptedServer(doubles["strong"]) as s, ScriptedServer(doubles["weak"]) as w:
        models = models_file(tmp_path / "judgeagent.toml", {"judge": judge.base_url, "strong": s.base_url, "weak": w.base_url}, judge_concurrency=1)
        result = judgeagent.sweep(config(tmp_path, graph, ["strong", "weak"], models, parallel=None, concurrency=2, shared=False))
        assert judge.max_in_flight == 1
    assert [r.name for r in result.leaderboard.targets] == ["strong", "weak"]
    assert result.leaderboard.ranked_on == "seed questions (ACC1)"


def test_dry_run_prints_the_estimate_per_target_and_sends_nothing(tmp_path, graph, demo_seeds):
    doubles = targets(demo_seeds)
    with ScriptedServer(Script()) as judge, ScriptedServer(doubles["strong"]) as s, ScriptedServer(doubles["weak"]) as w:
        models = models_file(tmp_path / "judgeagent.toml", {"judge": judge.base_url, "strong": s.base_url, "weak": w.base_url})
        res = CliRunner().invoke(app, ["sweep", "--targets", "strong,weak", "--judge", "judge", "--data", str(DATA), "--graph", str(graph),
                                       "--limit", "6", "--models", str(models), "--out", str(tmp_path / "sweep"), "--dry-run"])  # fmt: skip
        assert res.exit_code == 0, res.output
        assert sent({"judge": judge, "strong": s, "weak": w}) == {"judge": 0, "strong": 0, "weak": 0}
    text = " ".join(res.output.split())
    assert "sweep of 2 target(s), judge judge" in text and "strong:" in text and "weak:" in text
    assert re.search(r"strong\s+shared items\s+\d+", res.output) and "wall time:" in text
    assert not (tmp_path / "sweep").exists()


@pytest.mark.parametrize(
    ("file", "text", "message"),
    [
        ("s.toml", 'targets = ["a"]\nnosuch = 1\n', "s.toml: unknown setting nosuch"),
        ("s.yaml", "targets: [a, a]\n", "s.yaml: targets names a twice"),
        ("s.yaml", "targets: [a\n", "s.yaml:2: not valid YAML"),
        ("s.toml", 'targets = ["local"]\noptions = {limit = 3}\n', "s.toml: options.limit: limit is a setting of the sweep itself, not of options"),
        ("s.toml", 'targets = ["local", "nosuch"]\n', "unknown model 'nosuch'"),
        ("s.toml", 'targets = ["local"]\n[options]\nkieval_turns = 2\n', "options: --kieval-turns belongs to the kieval protocol, not to --protocol judgeagent"),
        ("s.toml", 'targets = ["local"]\n[options]\nhops = 0\n', "options: --hops: Input should be greater than or equal to 1"),
        ("s.toml", 'targets = ["fast=local", "fast=http://127.0.0.1:9/v1@m"]\n', "s.toml: targets names fast twice"),
        ("s.toml", 'targets = ["fast="]\n', "s.toml: targets: the label fast names no model (label=MODEL)"),
    ],
)
def test_a_bad_sweep_file_is_one_line_naming_it(tmp_path, file, text, message):
    (tmp_path / file).write_text(text)
    res = CliRunner().invoke(app, ["sweep", "--file", str(tmp_path / file), "--out", str(tmp_path / "sweep")])
    assert res.exit_code == 2
    out = " ".join(res.output.split())
    assert message in out.replace(str(tmp_path) + "/", "") and "Traceback" not in out
    assert not (tmp_path / "sweep").exists()


def test_a_target_label_names_it_and_its_folder_and_the_model_stays_whole():
    from judgeagent.sweeps.config import SweepConfig, split_target

    cfg = SweepConfig(targets="fast=http://10.0.0.5:8000/v1@my-model, qwen3 ,openai:gpt-4o-mini", judge="qwen3")
    assert cfg.names == ["fast", "qwen3", "openai:gpt-4o-mini"]
    assert cfg.model("fast") == "http://10.0.0.5:8000/v1@my-model" and cfg.model("qwen3") == "qwen3"
    assert cfg.eval_config("fast").target == "http://10.0.0.5:8000/v1@my-model"
    # A URL with "=" in it is a model, not a label: its label would have to come before "://".
    assert split_target("http://h/v1?x=1@m") == ("http://h/v1?x=1@m", "http://h/v1?x=1@m")
    assert split_target("a.b_c-1=local:/models/x.gguf") == ("a.b_c-1", "local:/models/x.gguf")


def test_a_dead_judge_fails_every_target_and_still_writes_the_leaderboard(tmp_path, graph, demo_seeds):
    with ScriptedServer(targets(demo_seeds)["strong"]) as s:
        models = models_file(tmp_path / "judgeagent.toml", {"judge": dead_url(), "strong": s.base_url})
        result = sweep(config(tmp_path, graph, ["strong"], models, report=True))
    assert [(t.name, t.status) for t in result.failed] == [("strong", "failed")]
    assert "model 'judge': cannot reach" in result.failed[0].error
    board = json.loads((result.sweep_dir / "leaderboard.json").read_text())
    assert [(r["name"], r["rank"]) for r in board["targets"]] == [("strong", None)] and board["pairwise"] == []
    assert "No target has figures yet." in (result.sweep_dir / "report.html").read_text()
    saved = json.loads((result.sweep_dir / "sweep.json").read_text())
    assert (saved["complete"], saved["status"], result.status) == (False, "nothing_answered", "nothing_answered")


def test_a_sweeps_status_is_its_runs_together(tmp_path):
    # Each run's own metrics.json says how it ended; the sweep is complete only when all are,
    # and has answered nothing only when none of them answered anything (a failed target included).
    from judgeagent.exits import exit_code
    from judgeagent.sweeps.runner import sweep_status
    from judgeagent.sweeps.state import FAILED, INCOMPLETE, OK, TargetState

    def run(name: str, status: str) -> str:
        (tmp_path / "targets" / name).mkdir(parents=True)
        (tmp_path / "targets" / name / "metrics.json").write_text(json.dumps({"complete": status == "complete", "status": status}))
        return f"targets/{name}"  # as sweep.json names it: inside the sweep folder

    done = TargetState("a", "a", OK, run_dir=run("a", "complete"), shared_status=OK, shared_dir=run("a-shared", "complete"))
    partial = TargetState("b", "b", INCOMPLETE, run_dir=run("b", "incomplete"))
    empty = TargetState("c", "c", INCOMPLETE, run_dir=run("c", "nothing_answered"))
    failed = TargetState("d", "d", FAILED, error="cannot reach", run_dir="targets/d")
    cases = [[done], [done, partial], [done, empty], [empty, failed]]
    assert [sweep_status(ts, tmp_path) for ts in cases] == ["complete", "incomplete", "incomplete", "nothing_answered"]
    assert [exit_code(sweep_status(ts, tmp_path)) for ts in cases] == [0, 3, 3, 4]
