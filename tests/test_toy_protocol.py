"""A protocol added from one module outside the package (tests/toy.py) runs through
the engine like the built-in ones, with no other file changed: it runs, ``--dry-run``
estimates it from its own call plan and priors, the estimate of a second run learns its rate
from the first run's records, and ``report`` and ``compare`` show it.

The target is a scripted server on 127.0.0.1 that answers a MedQA demo question right when
a hash of it is even, and every question right once told its first answer was wrong.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from scripted_server import ScriptedServer
from typer.testing import CliRunner

import judgeagent
from judgeagent.cli.app import app
from judgeagent.config import EvalConfig, LLMConfig
from judgeagent.data import load_benchmark

DATA = Path(__file__).resolve().parents[1] / "data" / "medqa-demo"
PRICES = (0.001, 0.002)  # USD per 1k tokens in, out


@pytest.fixture(scope="module")
def toy():
    """The toy protocol, registered by importing its module, for this module's tests only (the
    other tests see the built-in protocols alone)."""
    import toy_protocol

    from judgeagent.engine.registry import PROTOCOLS, register

    register(toy_protocol.SecondChance)
    yield toy_protocol
    PROTOCOLS.pop(toy_protocol.SecondChance.name, None)


def right_at_once(question: str) -> bool:
    return int(hashlib.sha256(question.encode()).hexdigest(), 16) % 2 == 0


class Target:
    """Answers each question of the prompt: right at once when ``right_at_once``, right after a
    second chance always, else the first option that is not the answer."""

    def __init__(self, told: str) -> None:
        self.told = told
        self.key = {q.question.strip(): (q.answer, sorted(q.options or {})) for q in load_benchmark(DATA).questions}

    def __call__(self, body: dict) -> str:
        prompt = "\n".join(m["content"] for m in body["messages"])
        told = self.told in prompt
        answers = []
        for asked in re.findall(r"^Q\d+\. (.*)$", prompt, re.M):
            answer, letters = self.key[asked.strip()]
            right = told or right_at_once(asked.strip())
            answers.append({"answer": answer if right else next(x for x in letters if x != answer)})
        return json.dumps({"response": answers})


@pytest.fixture(scope="module")
def target(toy):
    with ScriptedServer(Target(toy.TOLD)) as srv:
        yield srv


@pytest.fixture(scope="module")
def models_file(tmp_path_factory, target) -> Path:
    path = tmp_path_factory.mktemp("models") / "judgeagent.toml"
    path.write_text(f'[models.scripted]\nbase_url = "{target.base_url}"\nmodel = "scripted-model"\n'
                    f"price_in_per_1k = {PRICES[0]}\nprice_out_per_1k = {PRICES[1]}\nconcurrency = 4\n")
    return path


def config(out: Path, models_file: Path, *, seed: int, limit: int) -> EvalConfig:
    return EvalConfig(target="scripted", judge="scripted", data=DATA, seed=seed, out=out, protocol="second-chance", limit=limit,
                      llm=LLMConfig(models_file=models_file))


def flags(cfg: EvalConfig) -> list[str]:
    return ["evaluate", "--protocol", "second-chance", "--target", "scripted", "--judge", "scripted", "--data", str(DATA),
            "--seed", str(cfg.seed), "--out", str(cfg.out), "--limit", str(cfg.options["limit"]), "--models", str(cfg.llm.models_file)]


def test_a_protocol_from_one_module_runs_is_estimated_learns_and_is_reported(toy, tmp_path, target, models_file):
    first_cfg = config(tmp_path / "a", models_file, seed=0, limit=6)

    # --dry-run: the toy's own plan (one first answer per seed, a second one when wrong) and its prior.
    est = judgeagent.estimate(first_cfg)
    assert est.protocol == "second-chance" and est.units == 6
    assert {ln.stage for ln in est.lines} == {toy.FIRST.name, toy.AGAIN.name}
    assert est.rates["first_right"].source == "prior" and est.rates["first_right"].expected == toy.FIRST_RIGHT.prior[1]
    firsts = est.by_stage("scripted")[toy.FIRST.name].requests
    assert round(firsts.expected) == 6 and firsts.contains(6)  # six first answers (and the client's re-asks, a prior)
    assert not any("no call plan of its own" in n or "graph" in n for n in est.notes)
    res = CliRunner().invoke(app, [*flags(first_cfg), "--dry-run"])
    assert res.exit_code == 0, res.output
    assert toy.AGAIN.name in res.output and "rates from priors: first_right" in res.output
    assert target.requests == [] and not first_cfg.out.exists()  # the dry run sent and wrote nothing

    # It runs through the engine: one record per seed, its figures in metrics.json, its headline.
    res = CliRunner().invoke(app, flags(first_cfg))
    assert res.exit_code == 0, res.output
    records = [json.loads(x) for x in (first_cfg.out / "records.jsonl").read_text().splitlines()]
    assert len(records) == 6 and all(set(r) >= {"batch_id", "question", "first"} for r in records)
    right = sum(r["first"]["correct"] for r in records)
    assert 0 < right < 6, "the scripted target should get some right at once and some not"
    assert sum(r.get("again") is not None for r in records) == 6 - right
    figures = json.loads((first_cfg.out / "metrics.json").read_text())["second-chance"]
    assert figures == {"n_questions": 6, "first": pytest.approx(100 * right / 6), "after_second_chance": 100.0}
    assert "after a second chance (6 questions)" in res.output
    assert len(target.requests) == 6 + (6 - right)

    # The estimate of a second run learns the toy's rate from the first run's records.
    second_cfg = config(tmp_path / "b", models_file, seed=1, limit=9)
    est = judgeagent.estimate(second_cfg)
    learnt = est.rates["first_right"]
    assert learnt.source.startswith("measured: ") and learnt.expected == pytest.approx(right / 6, abs=1e-3)
    before = len(target.requests)
    res = CliRunner().invoke(app, flags(second_cfg))
    assert res.exit_code == 0, res.output
    assert est.by_model()["scripted"].requests.contains(len(target.requests) - before)

    # report and compare show it, from its own sections and columns.
    res = CliRunner().invoke(app, ["report", str(first_cfg.out), "--md"])
    assert res.exit_code == 0, res.output
    md = (first_cfg.out / "report.md").read_text()
    assert "Second chance" in md and "after second chance %" in md and "second-chance" in md
    res = CliRunner().invoke(app, ["compare", str(first_cfg.out), str(second_cfg.out), "--format", "csv"])
    assert res.exit_code == 0, res.output
    assert "different settings: options.limit (a: 6; b: 9)" in res.stderr  # a warning: the two runs differ
    header, *rows = res.stdout.strip().splitlines()
    assert header.split(",")[1:] == ["medqa-demo first %", "medqa-demo after second chance %"]
    assert len(rows) == 2 and rows[0].endswith("100.00")
