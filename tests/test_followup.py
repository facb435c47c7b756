"""The follow-up step the interview and the contamination probe share, and what the
difficulty controller does with a follow-up's answer (scripted target and judge, real graph)."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from interview_double import RIGHT, Script
from scripted_server import ScriptedServer
from typer.testing import CliRunner

from judgeagent import evaluate
from judgeagent.cli.app import app
from judgeagent.config import EvalConfig

DATA = Path(__file__).resolve().parents[1] / "data" / "medqa-demo"
# right before / right after advice, for the first six demo questions
PLAN = [(True, True), (True, False), (False, True), (False, False), (False, True), (True, True)]


def scripted(demo_seeds, cls=Script) -> Script:
    return cls(
        seed_plan={q.question.strip(): p for q, p in zip(demo_seeds, PLAN)},
        answers={q.question.strip(): q.answer for q in demo_seeds},
    )


def records(run: Path) -> list[dict]:
    return sorted((json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()), key=lambda r: r["batch_index"])


@pytest.mark.slow
def test_the_probe_balances_its_answer_letters(tmp_path, demo_graph, demo_seeds):
    """Two batches of four seeds: each batch's four new questions use every letter once."""
    script = scripted(demo_seeds)
    with ScriptedServer(script) as srv:
        model = f"{srv.base_url}@scripted"
        res = CliRunner().invoke(app, ["contamination", "--target", model, "--judge", model, "--data", str(DATA), "--graph", str(demo_graph),
                                       "--limit", "8", "--batch-size", "4", "--seed", "0", "--concurrency", "1", "--out", str(tmp_path / "run")])
    assert res.exit_code == 0, res.output
    recs = records(tmp_path / "run")
    letters = [[g["question"]["answer"] for g in rec["generated"]] for rec in recs]
    assert [len(batch) for batch in letters] == [4, 4]
    assert [sorted(batch) for batch in letters] == [["A", "B", "C", "D"], ["A", "B", "C", "D"]]
    assert Counter(x for batch in letters for x in batch) == {"A": 2, "B": 2, "C": 2, "D": 2}
    # The double's correct option is RIGHT's text: it sits at the letter the record names.
    for rec in recs:
        for g in rec["generated"]:
            assert g["question"]["options"][g["question"]["answer"]] == RIGHT


class ReadsOnePassage(Script):
    """A gate reader that answers from any one passage: every Hard follow-up is single-hop."""

    def read_passages(self, user: str, *, multiple_choice: bool) -> str:
        self.gate_requests += 1
        options = dict(re.findall(r"^([A-E])\. (.*)$", user, re.M))
        return json.dumps({"answer": next(k for k, v in options.items() if v == RIGHT)})


@pytest.mark.slow
def test_a_single_hop_hard_question_moves_the_score_as_hard_and_is_reported_as_medium(tmp_path, demo_graph, demo_seeds):
    script = scripted(demo_seeds, ReadsOnePassage)
    with ScriptedServer(script) as srv:
        model = f"{srv.base_url}@scripted"
        cfg = EvalConfig(target=model, judge=model, data=DATA, graph=demo_graph, limit=6, out=tmp_path / "run", concurrency=1,
                         summary=False, report=False, controls=False)
        evaluate(cfg, progress=False)
    first = records(tmp_path / "run")[0]
    rounds = first["rounds"]
    assert [r["level"] for r in rounds] == ["medium", "hard", "hard"]
    assert [r["gate"]["single_hop"] for r in rounds] == [False, True, True]
    assert [r["counted_as"] for r in rounds] == ["medium", "medium", "medium"]
    # Seeds right, right, wrong (unlabeled, gain 1.5): s = 3/3 = 1.0, so round 1 is Medium.
    # Every follow-up is right: 1.5 at Medium, then 2 at Hard, single-hop or not.
    # s = 4.5/4 = 1.125, then 6.5/5 = 1.3, then 8.5/6 = 1.41667 (counted as Medium, it would
    # have fallen to 6/5 = 1.2 and 7.5/6 = 1.25).
    assert [r["score_after"] for r in rounds] == [1.125, 1.3, 1.4167]
    assert first["trajectory"] == [1.5, 1.5, 1.0, 1.125, 1.3, 1.4167]
    assert first["final_level"] == "hard"

