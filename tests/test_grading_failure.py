"""A judge that cannot give a verdict is not the target's wrong answer (issue 23), through
`judgeagent evaluate` on multihop-demo (KQA, phrase answers).

A phrase answer that neither exact match nor token F1 decides goes to the judge for a
yes/no verdict. When the judge's reply stays unreadable after the client's re-asks, the
batch is left incomplete (out of records.jsonl and the figures, listed in incomplete.json
and metrics.json), never graded wrong; the rerun asks the judge again and ends with the
figures of a run whose judge answered at once. A readable "no" still counts the answer wrong.

``--rounds 0``: the seeds are graded, given feedback and asked again, with no follow-up
questions, so no graph is needed (and none is built).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path

import pytest
from interview_double import Script, schema_name
from scripted_server import ScriptedServer
from typer.testing import CliRunner

from judgeagent.cli.app import app
from judgeagent.data import load_benchmark
from judgeagent.stages.answers import score_phrase

DATA = Path(__file__).resolve().parents[1] / "data" / "multihop-demo"
# What differs between two sessions of the same run, whatever happened in them.
SESSION_ONLY = ("llm_usage", "timings")
GARBLED = "Hmm, the two look much alike to me, though I cannot be sure."  # not JSON, no verdict in it


def hedged(reference: str) -> str:
    """The target's answer: the reference with words around it. It shares words with the
    reference (F1 above 0) without being it (F1 below 1), so only the judge can decide."""
    return f"{reference}, as far as I recall"


@pytest.fixture(scope="module")
def seeds():
    """The first six questions: batch b0000 is seeds[:3], b0001 seeds[3:] (checked below)."""
    return load_benchmark(DATA).questions[:6]


class Double:
    """Target and judge behind one scripted server. The target answers every seed with
    :func:`hedged`; the judge's reply to a phrase judgement is ``judge(question)``. Feedback
    (the re-ask's suggestions) comes from the pipeline tests' double."""

    def __init__(self, seeds, judge: Callable[[str], str]):
        self.references = {q.question.strip(): q.answer for q in seeds}
        self.judge = judge
        self.others = Script()

    def __call__(self, body: dict) -> str:
        user = body["messages"][-1]["content"]
        name = schema_name(body)
        if name == "answer_batch":
            questions = re.findall(r"^Q\d+\. (.*)$", user, re.M)
            return json.dumps({"response": [{"answer": hedged(self.references[q.strip()])} for q in questions]})
        if name == "phrase_judgement":
            prompt = body["messages"][1]["content"]  # the judgement asked; a re-ask comes after it
            question = re.search(r"^Question: (.*)$", prompt, re.M)
            assert question is not None, prompt
            return self.judge(question.group(1).strip())
        return self.others(body)


def verdicts(yes: set[str]) -> Callable[[str], str]:
    """A well-behaved judge: "yes" for the questions in ``yes``, "no" for the others."""
    return lambda question: json.dumps({"equivalent": "yes" if question in yes else "no"})


def evaluate(srv: ScriptedServer, out: Path):
    model = f"{srv.base_url}@scripted"
    args = ["evaluate", "--target", model, "--judge", model, "--data", str(DATA), "--graph", str(out.parent / "graph"),
            "--rounds", "0", "--no-report", "--no-summary", "--leak-check", "rules", "--no-controls", "--concurrency", "1",
            "--limit", "6", "--batch-size", "3", "--max-attempts", "2", "--out", str(out)]  # fmt: skip
    return CliRunner().invoke(app, args)


def figures(run: Path) -> dict:
    m = json.loads((run / "metrics.json").read_text())
    return {k: v for k, v in m.items() if k not in SESSION_ONLY}


def records(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]


def mentions(body: dict, question: str) -> bool:
    return question[:60] in json.dumps(body["messages"])


def test_an_unreadable_verdict_leaves_the_batch_incomplete_and_the_rerun_asks_the_judge_again(tmp_path, seeds):
    questions = [q.question.strip() for q in seeds]
    assert all(score_phrase(hedged(q.answer), q.answer).correct is None for q in seeds)  # the judge must decide every one
    yes = {questions[0], questions[3], questions[4]}
    broken = {"on": True}  # the judge garbles its verdicts on b0001's questions while this is on

    def judge(question: str) -> str:
        return GARBLED if broken["on"] and question in questions[3:] else verdicts(yes)(question)

    run = tmp_path / "run"
    with ScriptedServer(Double(seeds, judge)) as srv:
        model = f"{srv.base_url}@scripted"
        res = evaluate(srv, run)
        assert res.exit_code == 3, res.output
        judged = [b for b in srv.requests if schema_name(b) == "phrase_judgement"]
        # b0001's verdicts are asked at once (one wave under --batch-api), each re-asked at most
        # twice by the client (its max_reasks); the first still unreadable stops the batch and
        # withdraws the others.
        garbled = {q: sum(mentions(b, q) for b in judged) for q in questions[3:]}
        assert 1 + 2 in garbled.values() and all(1 <= n <= 1 + 2 for n in garbled.values()), garbled
        m = json.loads((run / "metrics.json").read_text())
        reason = f"unreadable verdict ({model}, grading-judge)"
        assert (m["n_batches"], m["complete"]) == (1, False)
        assert m["incomplete"] == {"n_batches": 1, "batch_ids": ["b0001"], "reasons": {reason: 1}}
        # Only b0000's three seeds are counted: q0 judged right, q1 and q2 judged wrong. None of
        # b0001's seeds is counted wrong, nor at all. (metrics.json: percentages, 4 decimals.)
        assert (m["n_questions"], m["acc1"], m["acc2"]) == (3, round(100 / 3, 4), round(100 / 3, 4))
        assert m["phrase_grading"]["graded_by"] == {"judge": 3}
        (rec,) = records(run)
        assert rec["batch_id"] == "b0000" and [q["id"] for q in rec["seed"]] == [q.id for q in seeds[:3]]
        (entry,) = json.loads((run / "incomplete.json").read_text())["batches"]
        assert {k: entry[k] for k in ("batch_id", "batch_index", "model", "stage", "kind")} == {
            "batch_id": "b0001", "batch_index": 1, "model": model, "stage": "grading-judge", "kind": "unreadable verdict",
        }  # fmt: skip
        assert entry["message"].startswith(f"model '{model}' (grading-judge): unreadable verdict: ")
        assert f"incomplete: 1 batch(es) left out of the figures ({reason}: 1)" in " ".join(res.output.split())
        assert not (tmp_path / "graph").exists()  # --rounds 0: no graph built

        broken["on"] = False
        before = len(srv.requests)
        again = evaluate(srv, run)
        rerun = srv.requests[before:]
    assert again.exit_code == 0, again.output
    # Only b0001 is asked again, beginning with the verdicts that were unreadable; b0000 is not.
    assert schema_name(rerun[0]) == "phrase_judgement" and any(mentions(rerun[0], q) for q in questions[3:])
    assert not any(mentions(b, q) for b in rerun for q in questions[:3])
    assert {q for q in questions[3:] for b in rerun if schema_name(b) == "phrase_judgement" and mentions(b, q)} == set(questions[3:])
    assert [r["batch_id"] for r in records(run)] == ["b0000", "b0001"]
    assert json.loads((run / "incomplete.json").read_text()) == {"n_batches": 0, "batches": []}
    m = figures(run)
    assert (m["complete"], m["incomplete"]["n_batches"], m["n_questions"], m["acc1"]) == (True, 0, 6, 50.0)

    with ScriptedServer(Double(seeds, verdicts(yes))) as srv:
        reference = evaluate(srv, tmp_path / "reference")
    assert reference.exit_code == 0, reference.output
    assert m == figures(tmp_path / "reference")
    assert not (tmp_path / "graph").exists()


def test_a_readable_no_still_counts_the_answer_wrong(tmp_path, seeds):
    """The batch whose garbled verdicts were left out above is graded when the judge says
    "no": its seeds are counted, wrong (and b0000's, judged "yes", right)."""
    questions = [q.question.strip() for q in seeds]
    with ScriptedServer(Double(seeds, verdicts(set(questions[:3])))) as srv:
        res = evaluate(srv, tmp_path / "run")
    assert res.exit_code == 0, res.output
    m = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert (m["complete"], m["incomplete"]["n_batches"], m["n_batches"], m["n_questions"]) == (True, 0, 2, 6)
    assert (m["acc1"], m["acc2"], m["answer_errors"]) == (50.0, 50.0, 0)
    graded = {
        r["batch_id"]: [(a["question_id"], a["correct"], a["graded_by"], a["judge_verdict"]) for a in r["seed_answers"]] for r in records(tmp_path / "run")
    }
    assert graded == {
        "b0000": [(q.id, True, "judge", "yes") for q in seeds[:3]],
        "b0001": [(q.id, False, "judge", "no") for q in seeds[3:]],
    }
