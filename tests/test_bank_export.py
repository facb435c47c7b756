"""Exports: a bank as our JSONL benchmark, a Hugging Face datasets folder and an Inspect AI
dataset + task; a run as an Inspect AI eval log, read back with inspect-ai's own reader."""

from __future__ import annotations

import importlib.util
import json
import shutil
from pathlib import Path

import pytest
from scripted_server import ScriptedServer
from test_bank import DATA, fill_synthetic, records, script_for
from typer.testing import CliRunner

from judgeagent.cli.app import app


@pytest.fixture
def bank_graph(tmp_path) -> tuple[Path, list]:
    graph = tmp_path / "graphs" / "synthetic"
    items = fill_synthetic(graph, flipped=4)
    assert CliRunner().invoke(app, ["calibrate", str(graph)]).exit_code == 0
    return graph, items


def flagged(graph: Path) -> set[str]:
    return set(json.loads((graph.parent / "synthetic.calibration.json").read_text())["flagged"])


def export(graph: Path, fmt: str, out: Path):
    res = CliRunner().invoke(app, ["bank", "export", str(graph), "--format", fmt, "--out", str(out)])
    assert res.exit_code == 0, res.output
    return res


def test_generic_export_is_a_benchmark_evaluate_reads(tmp_path, bank_graph):
    from judgeagent.data import load_benchmark

    graph, items = bank_graph
    export(graph, "generic", tmp_path / "gen")
    bench = load_benchmark(tmp_path / "gen")
    kept = [i for i in items if i.item_id not in flagged(graph)]
    assert (bench.format, bench.qtype.value) == ("generic", "kmc")
    assert [(q.id, q.question, q.options, q.answer, q.difficulty) for q in bench.questions] == [
        (i.item_id, i.question, i.options, i.answer, i.level) for i in kept
    ]
    assert [c.text for c in bench.chunks] == [f"Passage {int(i.question.split()[3])}." for i in kept]


def test_hf_export_loads_with_datasets(tmp_path, bank_graph):
    datasets = pytest.importorskip("datasets")
    graph, items = bank_graph
    export(graph, "hf", tmp_path / "hf")
    ds = datasets.load_from_disk(str(tmp_path / "hf"))
    kept = [i for i in items if i.item_id not in flagged(graph)]
    assert ds.num_rows == len(kept)
    assert ds[0]["id"] == kept[0].item_id and ds[0]["options"] == list(kept[0].options.values()) and ds[0]["answer"] == "B"
    cal = {i["item_id"]: i for i in json.loads((graph.parent / "synthetic.calibration.json").read_text())["items"]}
    assert ds[0]["irt_a"] == cal[kept[0].item_id]["a"] and ds[0]["irt_b"] == cal[kept[0].item_id]["b"]
    export(graph, "hf", tmp_path / "hf")  # again, over the first export
    assert datasets.load_from_disk(str(tmp_path / "hf")).num_rows == len(kept)


def test_inspect_export_is_a_dataset_and_a_task(tmp_path, bank_graph):
    pytest.importorskip("inspect_ai")
    from inspect_ai.dataset import json_dataset

    graph, items = bank_graph
    export(graph, "inspect", tmp_path / "insp")
    kept = [i for i in items if i.item_id not in flagged(graph)]
    samples = list(json_dataset(str(tmp_path / "insp" / "dataset.jsonl")))
    assert [(s.id, s.input, s.choices, s.target) for s in samples] == [(i.item_id, i.question, list(i.options.values()), "B") for i in kept]
    spec = importlib.util.spec_from_file_location("bank_task", tmp_path / "insp" / "task.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    task = module.judgeagent_bank()
    assert len(task.dataset) == len(kept)


def test_unknown_format_is_one_line(tmp_path, bank_graph):
    graph, _ = bank_graph
    res = CliRunner().invoke(app, ["bank", "export", str(graph), "--format", "parquet", "--out", str(tmp_path / "x")])
    assert res.exit_code == 2 and "--format must be one of generic, hf, inspect (got 'parquet')" in res.output


@pytest.mark.slow
def test_run_exports_as_an_inspect_eval_log(tmp_path, demo_graph, demo_seeds):
    pytest.importorskip("inspect_ai")
    from inspect_ai.log import read_eval_log

    graph = tmp_path / "graphs" / "medqa-demo"
    shutil.copytree(demo_graph, graph)
    with ScriptedServer(script_for(demo_seeds)) as srv:
        model = f"{srv.base_url}@scripted"
        res = CliRunner().invoke(app, ["evaluate", "--target", model, "--judge", model, "--data", str(DATA), "--graph", str(graph),
                                       "--limit", "6", "--no-report", "--no-summary", "--out", str(tmp_path / "run")])
        assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, ["export", str(tmp_path / "run"), "--format", "inspect", "--out", str(tmp_path / "run.eval")])
    assert res.exit_code == 0, res.output
    log = read_eval_log(str(tmp_path / "run.eval"))
    recs = records(tmp_path / "run")
    metrics = json.loads((tmp_path / "run" / "metrics.json").read_text())
    seeds = [s for s in log.samples if s.metadata["kind"] == "seed"]
    followups = [s for s in log.samples if s.metadata["kind"] == "follow-up"]
    assert len(seeds) == 6 and len(followups) == sum(1 for r in recs for rd in r["rounds"] if rd.get("question"))
    assert log.status == "success" and log.eval.task == "judgeagent/interview"
    by_id = {s.id: s for s in seeds}
    for rec in recs:
        for q, a, re in zip(rec["seed"], rec["seed_answers"], rec["validations"][-1]["reanswers"]):
            sample = by_id[f"full:{q['id']}"]
            assert (sample.target, sample.scores["acc1"].value, sample.scores["acc2"].value) == (
                q["answer"], "C" if a["correct"] else "I", "C" if re["correct"] else "I")
            assert sample.output.completion == a["reply"]
    paper = log.results.scores[0].metrics
    assert (paper["acc1"].value, paper["acc2"].value) == (metrics["acc1"], metrics["acc2"])
