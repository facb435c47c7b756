"""Runs for the audit tests, made by the real pipeline against the scripted judge and target.

``RejectingJudge`` is the interview double whose quality-gate reader misreads the questions
on two topics: the gate rejects them as not answerable from the passages, the judge writes
another, and the run's records keep only why (the question itself is in the journal), as
with a real judge. ``labels_file`` writes what the audit page exports.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from interview_double import RIGHT, TOPICS, Script, Target
from scripted_server import ScriptedServer
from typer.testing import CliRunner

from judgeagent.cli.app import app

DATA = Path(__file__).resolve().parents[1] / "data" / "medqa-demo"
REJECTED_TOPICS = (TOPICS[1], TOPICS[4])  # the gate's reader gets these wrong
PLAN = [(True, True), (True, False), (False, True), (False, False), (False, True), (True, True)]


class RejectingJudge(Script):
    def read_passages(self, user: str, *, multiple_choice: bool) -> str:
        if any(t in user for t in REJECTED_TOPICS):
            self.gate_requests += 1
            if not multiple_choice:
                return json.dumps({"answer": "something else"})
            options = {m.group(1): m.group(2) for m in re.finditer(r"^([A-E])\. (.*)$", user, re.M)}
            return json.dumps({"answer": next(k for k, v in options.items() if v != RIGHT)})
        return super().read_passages(user, multiple_choice=multiple_choice)


def judge_for(demo_seeds) -> RejectingJudge:
    return RejectingJudge(seed_plan={q.question.strip(): p for q, p in zip(demo_seeds, PLAN)}, answers={q.question.strip(): q.answer for q in demo_seeds})


def scripted_run(tmp: Path, demo_graph: Path, demo_seeds) -> tuple[Path, Path, str]:
    """A finished judgeagent run (2 batches × 3 rounds, 2 questions rejected by the gate) and the
    graph copy whose bank it filled. Returns (run folder, graph folder, the judge's name)."""
    graph = tmp / "graphs" / "medqa-demo"
    shutil.copytree(demo_graph, graph)
    run = tmp / "run"
    with ScriptedServer(judge_for(demo_seeds)) as srv:
        model = f"{srv.base_url}@scripted"
        args = ["evaluate", "--target", model, "--judge", model, "--data", str(DATA), "--graph", str(graph), "--limit", "6",
                "--concurrency", "2", "--no-report", "--no-summary", "--no-controls", "--leak-check", "rules", "--out", str(run)]
        res = CliRunner().invoke(app, args)
        assert res.exit_code == 0, res.output
    return run, graph, model


def scripted_sweep(tmp: Path, demo_graph: Path, demo_seeds, everyone_wrong: set[str], *, report: bool = False,
                   labels: tuple[str | None, str | None] = ("a", "b")) -> Path:
    """A finished sweep of two scripted targets that both get the ``everyone_wrong`` topics
    wrong, with the judge whose gate rejects REJECTED_TOPICS. Their models are URLs; each is
    named by its label in ``labels``, or by its URL where the label is None."""
    from judgeagent.sweeps import SweepConfig, sweep

    graph = tmp / "graphs" / "medqa-demo"
    shutil.copytree(demo_graph, graph)
    a_right = Target(demo_seeds, "110110", "111110", lambda k: TOPICS[k] not in everyone_wrong)
    b_right = Target(demo_seeds, "100000", "100001", lambda k: TOPICS[k] not in everyone_wrong and k < 5)
    with ScriptedServer(judge_for(demo_seeds)) as judge, ScriptedServer(a_right) as a, ScriptedServer(b_right) as b:
        models = tmp / "judgeagent.toml"
        models.write_text(f'[models.judge]\nbase_url = "{judge.base_url}"\nmodel = "judge"\n')
        cfg = SweepConfig.model_validate({
            "targets": [(f"{label}=" if label else "") + f"{srv.base_url}@model-{n}" for label, srv, n in zip(labels, (a, b), "ab")],
            "judge": "judge", "data": DATA, "graph": graph, "limit": 6,
            "concurrency": 1, "parallel": 1, "bootstrap": 200,
            "options": {"summary": False, "controls": False, "leak_check": "rules"}, "out": tmp / "sweep", "report": report,
            "llm": {"models_file": models, "max_attempts": 1}})  # fmt: skip
        result = sweep(cfg)
        assert not result.failed
    return result.sweep_dir


def labels_file(path: Path, audit_dir: Path, labels: dict[str, list[str]], *, auditor: str = "ana", at: str = "2030-01-01T10:00:00.000Z",
                audit_id: str | None = None, comment: str = "") -> Path:
    """A labels file as the page exports it."""
    audit_id = audit_id or json.loads((audit_dir / "design.json").read_text())["audit_id"]
    body = {"format": "judgeagent-audit-labels", "version": 1, "audit_id": audit_id, "audit_dir": str(audit_dir.resolve()), "auditor": auditor,
            "kind": "person", "exported": at, "labels": [{"item_id": i, "labels": ls, "comment": comment, "at": at} for i, ls in sorted(labels.items())]}
    path.write_text(json.dumps(body, indent=2))
    return path


def read_items(audit_dir: Path) -> list[dict]:
    return [json.loads(line) for line in (audit_dir / "items.jsonl").read_text().splitlines()]
