"""`judgeagent evaluate --dry-run` and `judgeagent.estimate(cfg)` (issue 25): the estimate of a
run covers the run, sends nothing, and warns when the budget would stop it.

A scripted target and a scripted judge, each behind its own server on 127.0.0.1 (so every
request is counted per model), run the JudgeAgent interview on the MedQA demo: run A (seed
0, 6 questions) is the earlier run whose journal and records the estimate learns from; then
run B (seed 1, 9 questions: other batches, other paths) is estimated and run. The judge's
gate reader misses the marked answer for about a third of the questions it reads, so the
gate rejects them and the judge writes again: regenerations, as with real judges.
"""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import Path

import pytest
from interview_double import UNDETERMINED, Script, schema_name
from scripted_server import ScriptedServer
from typer.testing import CliRunner

import judgeagent
from judgeagent.cli.app import app
from judgeagent.config import EvalConfig, LLMConfig
from judgeagent.estimation import combine, estimate, render_text

DATA = Path(__file__).resolve().parents[1] / "data" / "medqa-demo"
PRICES = {"target": (0.001, 0.002), "judge": (0.003, 0.012)}  # USD per 1k tokens in, out


class GateMisses:
    """The pipeline double's judge, whose gate reader misses the answer of about one question
    in three (chosen by a hash of the question, so a rerun reads the same way)."""

    def __init__(self, script: Script):
        self.script = script

    def __call__(self, body: dict) -> str:
        if schema_name(body).startswith("gate_answer"):
            question = re.search(r"^Question: (.*)$", body["messages"][-1]["content"], re.M)
            if question and int(hashlib.sha256(question.group(1).encode()).hexdigest(), 16) % 3 == 0:
                return json.dumps({"answer": UNDETERMINED})
        return self.script(body)


@pytest.fixture(scope="module")
def servers():
    script = Script()
    with ScriptedServer(script) as target, ScriptedServer(GateMisses(script)) as judge:
        yield target, judge


@pytest.fixture(scope="module")
def models_file(tmp_path_factory, servers) -> Path:
    target, judge = servers
    path = tmp_path_factory.mktemp("models") / "judgeagent.toml"
    lines = []
    for name, srv in (("target", target), ("judge", judge)):
        pin, pout = PRICES[name]
        lines += [f"[models.scripted-{name}]", f'base_url = "{srv.base_url}"', f'model = "{name}-model"',
                  f"price_in_per_1k = {pin}", f"price_out_per_1k = {pout}", "concurrency = 4", ""]
    path.write_text("\n".join(lines))
    return path


def config(root: Path, models_file: Path, name: str, seed: int, limit: int, **llm) -> EvalConfig:
    return EvalConfig(
        target="scripted-target", judge="scripted-judge", data=DATA, graph=root / "graph", seed=seed, concurrency=2,
        out=root / "runs" / name, report=False, limit=limit, llm=LLMConfig(models_file=models_file, **llm),
    )  # fmt: skip


def flags(cfg: EvalConfig) -> list[str]:
    return ["evaluate", "--target", cfg.target, "--judge", cfg.judge, "--data", str(cfg.data), "--graph", str(cfg.graph),
            "--seed", str(cfg.seed), "--concurrency", str(cfg.concurrency), "--out", str(cfg.out), "--no-report",
            "--limit", str(cfg.options["limit"]), "--models", str(cfg.llm.models_file)]  # fmt: skip


@pytest.fixture(scope="module")
def earlier(tmp_path_factory, servers, models_file) -> Path:
    """Run A, the earlier run the estimate of run B learns from (it builds the graph)."""
    root = tmp_path_factory.mktemp("estimate")
    res = CliRunner().invoke(app, flags(config(root, models_file, "a", seed=0, limit=6)))
    assert res.exit_code == 0, res.output
    return root


@pytest.mark.slow
def test_a_scripted_run_falls_inside_its_estimate_and_the_dry_run_sends_nothing(earlier, servers, models_file):
    target, judge = servers
    cfg = config(earlier, models_file, "b", seed=1, limit=9)
    est = estimate(cfg)
    # The estimate learnt from run A: the judge's completions and the gate's pass rate.
    assert est.rates["try_accepted"].source.startswith("measured")
    assert all(m.measured.startswith("measured on 1 earlier run") for m in est.models.values())

    before = (len(target.requests), len(judge.requests))
    res = CliRunner().invoke(app, [*flags(cfg), "--dry-run"])
    assert res.exit_code == 0, res.output
    assert (len(target.requests), len(judge.requests)) == before  # --dry-run sent nothing
    assert not cfg.out.exists()  # and wrote nothing
    assert render_text(est) in res.output  # the CLI prints the Python API's numbers

    res = CliRunner().invoke(app, flags(cfg))
    assert res.exit_code == 0, res.output
    sent = {"scripted-target": len(target.requests) - before[0], "scripted-judge": len(judge.requests) - before[1]}
    usage = json.loads((cfg.out / "metrics.json").read_text())["llm_usage"]["models"]
    regenerated = [t for r in map(json.loads, (cfg.out / "records.jsonl").read_text().splitlines())
                   for rd in r["rounds"] for t in rd.get("generation_attempts") or [] if "error" in t]  # fmt: skip
    assert regenerated, "the judge's gate misses should have made it write questions again"
    print(render_text(est))
    print({name: {k: u[k] for k in ("prompt_tokens", "completion_tokens", "cost_usd")} | {"sent": sent[name]} for name, u in usage.items()})
    for name, line in est.by_model().items():
        assert line.requests.contains(sent[name]), (name, sent[name], line.requests)
        assert line.prompt_tokens.contains(usage[name]["prompt_tokens"]), (name, usage[name]["prompt_tokens"], line.prompt_tokens)
        assert line.completion_tokens.contains(usage[name]["completion_tokens"]), (name, usage[name]["completion_tokens"], line.completion_tokens)
        assert line.cost_usd.contains(usage[name]["cost_usd"]), (name, usage[name]["cost_usd"], line.cost_usd)
        assert line.requests.low < line.requests.expected < line.requests.high


def test_the_budget_warning_names_the_flag_and_the_expected_cost(earlier, models_file):
    cfg = config(earlier, models_file, "c", seed=2, limit=6)
    cost = estimate(cfg).total().cost_usd
    assert 0 < cost.low < cost.expected < cost.high

    def dry_run(budget: float) -> str:
        res = CliRunner().invoke(app, [*flags(cfg), "--dry-run", "--budget-usd", f"{budget:.6f}"])
        assert res.exit_code == 0, res.output
        return " ".join(res.output.split())

    below = dry_run(cost.expected / 2)
    assert f"warning: --budget-usd {float(f'{cost.expected / 2:.6f}'):g} would stop the run: it is expected to need ${cost.expected:.4f}" in below
    between = dry_run((cost.expected + cost.high) / 2)
    assert "may stop the run" in between and "would stop" not in between
    assert "warning" not in dry_run(cost.high * 2)


def test_the_python_api_and_combining_estimates(earlier, models_file):
    a = judgeagent.estimate(config(earlier, models_file, "d", seed=3, limit=3))
    b = judgeagent.estimate(config(earlier, models_file, "e", seed=4, limit=6))
    both = combine([a, b])
    assert both == a + b or (both.total().requests == (a + b).total().requests)
    for key in ("low", "expected", "high"):
        assert getattr(both.total().requests, key) == pytest.approx(getattr(a.total().requests, key) + getattr(b.total().requests, key))
        assert getattr(both.total().cost_usd, key) == pytest.approx(getattr(a.total().cost_usd, key) + getattr(b.total().cost_usd, key))
    # One shared judge: the combined wall time is at least the longer run's.
    assert both.wall_s.expected >= max(a.wall_s.expected, b.wall_s.expected)
    assert both.parts == 2 and "2 runs combined" in render_text(both)


def test_every_protocol_is_estimable_with_the_bundled_model_and_nothing_is_started(monkeypatch):
    from judgeagent.llm import client, local_server

    def refuse(*args, **kwargs):
        raise AssertionError("an estimate started a model server or a client")

    monkeypatch.setattr(local_server, "acquire", refuse)
    monkeypatch.setattr(client.LLMClient, "from_config", refuse)
    runs = [("judgeagent", {}), ("judgeagent", {"ablation": True, "reask_extended": True, "transfer": True, "decontaminate": "paraphrase"}),
            ("kieval", {}), ("interviewer", {}), ("escalate", {}), ("contamination", {})]  # fmt: skip
    plain = None
    for protocol, extra in runs:
        est = estimate(EvalConfig(target="local", judge="local", limit=6, protocol=protocol, **extra))
        total = est.total()
        assert 0 < total.requests.low <= total.requests.expected <= total.requests.high
        assert total.cost_usd.high == 0  # the bundled model is free
        assert not any("no call plan" in n for n in est.notes)
        if protocol == "judgeagent" and not extra:
            plain = total.requests.expected
        elif protocol == "judgeagent":
            # Four arms, the seeds rewritten, the follow-ups re-asked, the transfer re-asks.
            assert plain is not None and total.requests.expected > 3 * plain
            assert {"decontaminate", "reask-extended", "transfer", "transfer-placebo"} <= {ln.stage for ln in est.lines}


def test_an_unknown_model_in_a_dry_run_is_one_line():
    res = CliRunner().invoke(app, ["evaluate", "--target", "no-such-model", "--judge", "local", "--limit", "3", "--dry-run"])
    assert res.exit_code == 2
    assert "unknown model 'no-such-model'" in res.output and "Traceback" not in res.output


def test_a_bank_run_is_one_request_per_drawn_item(earlier, models_file):
    """Run A filled the graph's bank with its gate-passed follow-ups; a bank run asks each once."""
    cfg = EvalConfig(target="scripted-target", judge="scripted-judge", protocol="bank", bank=earlier / "graph", bank_size=3,
                     out=earlier / "runs" / "bank", llm=LLMConfig(models_file=models_file))  # fmt: skip
    est = estimate(cfg)
    (line,) = est.lines
    assert (line.model, line.stage, est.units) == ("scripted-target", "bank", 3)
    # One request per item, plus the client's re-asks of unreadable replies (a few in a hundred).
    assert line.requests.low == 3 and 3 <= line.requests.expected < 3.1 and line.requests.high < 3.5
