"""The interview protocols (issue 17) against the scripted target and judge, through the CLI
and the Python API: each protocol's figures on a scripted dialogue against hand-computed
values, the early stop, the unknown-name error, resume, and the Appendix E.2 experiments."""

from __future__ import annotations

import csv
import json
from math import exp
from pathlib import Path

import pytest
from interview_double import Script
from scripted_server import ScriptedServer
from typer.testing import CliRunner

from judgeagent.cli.app import app

DATA = Path(__file__).resolve().parents[1] / "data" / "medqa-demo"
PLAN = [(True, True), (True, False), (False, True), (False, False), (False, True), (True, True)]


def scripted(demo_seeds, **kw) -> Script:
    return Script(
        seed_plan={q.question.strip(): p for q, p in zip(demo_seeds, PLAN)},
        answers={q.question.strip(): q.answer for q in demo_seeds},
        **kw,
    )


def cli(srv, demo_graph, out: Path, *args: str, limit: int = 3, report: bool = False):
    model = f"{srv.base_url}@scripted"
    argv = ["evaluate", "--target", model, "--judge", model, "--data", str(DATA), "--graph", str(demo_graph), "--limit", str(limit),
            "--out", str(out), "--concurrency", "2", "--report" if report else "--no-report", *args]
    if "--protocol" not in args or args[args.index("--protocol") + 1] in ("judgeagent", "interviewer"):
        argv += ["--leak-check", "rules"]  # the protocols that show advice, through the leakage guard
    res = CliRunner().invoke(app, argv)
    assert res.exit_code == 0, res.output
    return res


def metrics(out: Path) -> dict:
    return json.loads((out / "metrics.json").read_text())


def records(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "records.jsonl").read_text().splitlines()]


def kieval_by_hand(overall: list[int]) -> float:
    """KIEval's scorer written out: map 1→1, 2→3, 3→7, 4→10; weight exp(−0.2·t); weighted mean ×10."""
    mapped = {1: 1, 2: 3, 3: 7, 4: 10}
    weights = [exp(-0.2 * t) for t in range(len(overall))]
    return 10 * sum(w * mapped[s] for w, s in zip(weights, overall)) / sum(weights)


# --------------------------------------------------------------------------- kieval
def test_kieval_scores_every_turn_and_weights_them(tmp_path, demo_graph, demo_seeds):
    script = scripted(demo_seeds)
    with ScriptedServer(script) as srv:
        res = cli(srv, demo_graph, tmp_path / "run", "--protocol", "kieval")
    k = metrics(tmp_path / "run")["kieval"]
    assert kieval_by_hand([4, 3, 2, 1, 4]) == pytest.approx(65.3368, abs=1e-4)
    assert k["overall"] == pytest.approx(65.3368, abs=1e-4)
    assert k["aspects"] == {"accuracy": pytest.approx(65.3368, abs=1e-4), "logic": 100.0, "relevance": 70.0, "coherence": 30.0, "conciseness": 10.0}
    assert (k["n_dialogues"], k["completeness"], k["early_stop"]) == (3, 5.0, {"rate": 0.0, "n_stopped": 0, "reasons": {}})
    # Turn 0 puts the seed itself; the interactor writes turns 1-4 of each of the 3 dialogues.
    assert script.interactor_requests == 3 * 4
    recs = records(tmp_path / "run")
    assert [r["protocol"] for r in recs] == ["kieval"] * 3
    first = next(r for r in recs if r["batch_index"] == 0)  # records come in the order the seeds finish
    assert first["dialogue"]["turns"][0]["question"].startswith(demo_seeds[0].question.strip())
    assert "KIEval score 65.34" in res.output


def test_kieval_stops_early_with_its_reason(tmp_path, demo_graph, demo_seeds):
    script = scripted(demo_seeds, repeat_from_turn=2)
    with ScriptedServer(script) as srv:
        cli(srv, demo_graph, tmp_path / "run", "--protocol", "kieval")
    k = metrics(tmp_path / "run")["kieval"]
    assert k["early_stop"] == {"rate": 100.0, "n_stopped": 3, "reasons": {"repeats an earlier reply": 3}}
    assert k["completeness"] == 2.0
    assert k["overall"] == pytest.approx(kieval_by_hand([4, 3]), abs=1e-4) == pytest.approx(86.495, abs=1e-4)
    d = records(tmp_path / "run")[0]["dialogue"]
    assert [(t["held"], t["score"] is not None) for t in d["turns"]] == [(True, True), (True, True), (False, False)]
    assert d["stop_reason"] == "repeats an earlier reply"


def test_the_evaluator_is_its_own_role(tmp_path, demo_graph, demo_seeds):
    """--evaluator sends the turn scores to another model; the interactor stays the judge."""
    judge_script, evaluator_script = scripted(demo_seeds), scripted(demo_seeds, kieval_overall=[1])
    with ScriptedServer(judge_script) as srv, ScriptedServer(evaluator_script) as ev:
        cli(srv, demo_graph, tmp_path / "run", "--protocol", "kieval", "--kieval-turns", "2", "--evaluator", f"{ev.base_url}@evaluator")
        sent_to_evaluator = {json.dumps(b.get("response_format", {})).count("kieval_score") > 0 for b in ev.requests}
    assert sent_to_evaluator == {True}
    k = metrics(tmp_path / "run")["kieval"]
    assert k["overall"] == 10.0 and k["completeness"] == 2.0
    assert json.loads((tmp_path / "run" / "config.json").read_text())["models"]["evaluator"]["model"] == "evaluator"


# --------------------------------------------------------------------------- interviewer
def test_interviewer_accuracy_at_each_revision_and_scores(tmp_path, demo_graph, demo_seeds):
    qs = [q.question.strip() for q in demo_seeds[:3]]
    plan = {qs[0]: [True, True, True], qs[1]: [False, True, True], qs[2]: [False, False, True]}
    script = scripted(demo_seeds, attempt_plan=plan)
    with ScriptedServer(script) as srv:
        res = cli(srv, demo_graph, tmp_path / "run", "--protocol", "interviewer", report=True)
        sent = len(srv.requests)
    m = metrics(tmp_path / "run")["interviewer"]
    assert m["accuracy_at"] == {"@1": pytest.approx(100 / 3, abs=1e-3), "@2": pytest.approx(200 / 3, abs=1e-3), "@3": 100.0}
    # score = 3/2/1 for right at attempt 1/2/3, +1 per adequate follow-up (the double: rationale yes, clarification no)
    assert [r["interview"]["score"] for r in records(tmp_path / "run")] == [4, 3, 2]
    assert (m["mean_score"], m["score_ranges"]) == (3.0, {"high": 1, "middle": 2, "low": 0})
    assert m["followups"] == {"rationale": {"asked": 3, "adequate": 3}, "clarification": {"asked": 3, "adequate": 0}}
    assert m["leakage"] == {"feedback_checked": 3, "leaking": 0, "rewritten": 0, "flagged": 0}
    # per question: answers + feedback per wrong one + follow-ups, 2 replies, grade; then one report
    assert sent == (5 + 7 + 9) + 1
    rec = records(tmp_path / "run")[2]["interview"]
    assert [a["feedback"] is not None for a in rec["attempts"]] == [True, True, False]
    assert json.loads((tmp_path / "run" / "interview_report.json").read_text()) == {"strengths": ["recall"], "weaknesses": ["definitions"]}
    assert "acc@1 33.33, acc@2 66.67, acc@3 100.00" in res.output
    report = (tmp_path / "run" / "report.md").read_text()
    for heading in ("Interview Report", "Strengths", "Weaknesses", "Score per question", "Scores 4–5 (high)", "Scores 2–3 (middle)", "Scores 0–1 (low)"):
        assert heading in report, heading
    assert "Rationale follow-up" in report and "Clarification follow-up" in report


def test_interviewer_feedback_goes_through_the_leakage_guard(tmp_path, demo_graph, demo_seeds):
    q = demo_seeds[0]
    script = scripted(demo_seeds, attempt_plan={q.question.strip(): [False, False, False]})
    script.leak = q.options[q.answer]
    with ScriptedServer(script) as srv:
        cli(srv, demo_graph, tmp_path / "run", "--protocol", "interviewer", "--limit", "1", limit=1)
    first = records(tmp_path / "run")[0]["interview"]["attempts"][0]
    assert first["leak"]["leaks_before"] and first["leak"]["rewritten"]


# --------------------------------------------------------------------------- escalate
def test_escalate_holds_medium_and_acc_auc(tmp_path, demo_graph, demo_seeds):
    script = scripted(demo_seeds, level_right={"easy": True, "medium": True, "hard": False})
    with ScriptedServer(script) as srv:
        res = cli(srv, demo_graph, tmp_path / "run", "--protocol", "escalate", report=True)
    e = metrics(tmp_path / "run")["escalate"]
    recs = records(tmp_path / "run")
    assert [r["held"] for r in recs] == ["medium"] * 3
    assert [[(rd["level"], rd["answer"]["correct"]) for rd in r["rounds"]] for r in recs] == [
        [("easy", True), ("medium", True), ("hard", False), ("hard", False)]
    ] * 3
    assert [r["end"] for r in recs] == ["failed twice at hard"] * 3
    # ACC(t) = 1, 1, 0: trapezoids (1+1)/2 + (1+0)/2 = 1.5 level units, over a span of 2 levels
    assert e["acc_by_level"] == {"easy": 100.0, "medium": 100.0, "hard": 0.0}
    assert (e["acc_auc"], e["acc_auc_normalised"], e["highest_level_held"]) == (1.5, 0.75, "medium")
    assert e["acc_auc_per_level"] == 0.5  # 1.5 level units over 3 levels (docs/concepts/method.md)
    assert "ACC-AUC 1.500 level units, 0.750 normalised" in res.output
    report = (tmp_path / "run" / "report.md").read_text()
    assert "Highest level held per seed" in report and "failed twice at hard" in report


# --------------------------------------------------------------------------- judgeagent + Appendix E.2
def test_transfer_and_reask_extended(tmp_path, demo_graph, demo_seeds):
    script = scripted(demo_seeds, placebo_inert=True)
    with ScriptedServer(script) as srv:
        res = cli(srv, demo_graph, tmp_path / "run", "--reask-extended", "--transfer", limit=6, report=True)
    m = metrics(tmp_path / "run")
    # The interview's own figures are those of a plain run (tests/test_interview.py).
    assert (m["acc1"], m["acc2"]) == (50.0, pytest.approx(400 / 6, abs=1e-3))
    t = m["transfer"]
    assert (t["source"], t["held_out"]) == (["b0000"], ["b0001"])
    # held out b0001: (wrong, wrong), (wrong, right), (right, right) with b0000's advice; the placebo moves nothing
    assert (t["n_questions"], t["acc1"], t["acc2"]) == (3, pytest.approx(100 / 3, abs=1e-3), pytest.approx(200 / 3, abs=1e-3))
    assert t["delta_acc"] == pytest.approx(100 / 3, abs=1e-3)
    assert (t["placebo"]["acc"], t["placebo"]["delta_acc"]) == (pytest.approx(100 / 3, abs=1e-3), 0.0)
    assert t["suggestions_minus_placebo"]["delta"] == pytest.approx(100 / 3, abs=1e-3)
    assert t["ci_delta_acc"] == [-100.0, 100.0]  # one held-out batch resamples to itself: the whole range, not a point
    assert t["note"] == "interval shown as the whole range: it rests on 1 batch, fewer than the 3 a resampling interval needs"
    assert "transfer: interval shown as the whole range: it rests on 1 batch" in " ".join(res.output.split())
    chosen = json.loads((tmp_path / "run" / "appendix_e2.json").read_text())["transfer"]["batches"][0]
    assert chosen["source"] == "b0000" and chosen["chosen_by"]
    rx = m["reask_extended"]
    n_followups = sum(1 for r in records(tmp_path / "run") for rd in r["rounds"] if rd.get("answer"))
    assert (rx["followups"]["n_questions"], rx["followups"]["acc1"], rx["followups"]["acc2"]) == (n_followups, 100.0, 100.0)
    assert rx["seeds"]["acc1"] == 50.0
    assert "transfer to 3 held-out questions" in res.output
    report = (tmp_path / "run" / "report.md").read_text()
    assert "Appendix E.2" in report and "Transfer to held-out questions" in report and "Follow-ups re-asked with the suggestions" in report
    assert "interval shown as the whole range: it rests on 1 batch" in report


def test_transfer_needs_two_batches(tmp_path, demo_graph, demo_seeds):
    with ScriptedServer(scripted(demo_seeds)) as srv:
        cli(srv, demo_graph, tmp_path / "run", "--transfer")
    assert metrics(tmp_path / "run")["transfer"] == {"error": "needs at least 2 batches (lower --batch-size or raise --limit)"}


# --------------------------------------------------------------------------- registry, resume, API
def test_an_unknown_protocol_is_one_line_listing_the_known_ones(tmp_path):
    res = CliRunner().invoke(app, ["evaluate", "--protocol", "mmlu", "--out", str(tmp_path / "r")])
    assert res.exit_code == 2
    known = "judgeagent, kieval, interviewer, escalate, contamination, bank"
    assert res.output == f"error: --protocol must be one of {known} (got mmlu)\n"
    from judgeagent.engine.registry import get_protocol, names
    from judgeagent.errors import ConfigError

    assert names() == known.split(", ")
    with pytest.raises(ConfigError, match=rf"^--protocol must be one of {known} \(got x\)$"):
        get_protocol("x")


RESUMABLE = [("kieval",), ("interviewer",), ("escalate",), ("judgeagent", "--reask-extended", "--transfer")]


@pytest.mark.parametrize("args", RESUMABLE, ids=lambda a: a[0])
@pytest.mark.slow
def test_resume_replays_from_the_journal(tmp_path, demo_graph, demo_seeds, args):
    """A unit whose record was lost is redone from the journal: no request, same figures."""
    out = tmp_path / "run"
    flags = ["--protocol", *args]
    limit = 6 if len(args) > 1 else 3
    with ScriptedServer(scripted(demo_seeds)) as srv:
        cli(srv, demo_graph, out, *flags, limit=limit)
        first = metrics(out)
        lines = (out / "records.jsonl").read_text().splitlines()
        (out / "records.jsonl").write_text("\n".join(lines[:-1]) + "\n")
        before = len(srv.requests)
        cli(srv, demo_graph, out, *flags, limit=limit)
        assert len(srv.requests) == before
    again = metrics(out)
    drop = ("llm_usage", "timings")
    assert {k: v for k, v in again.items() if k not in drop} == {k: v for k, v in first.items() if k not in drop}
    assert len(records(out)) == len(lines)


def test_the_python_api_example_runs(tmp_path, demo_graph, demo_seeds):
    with ScriptedServer(scripted(demo_seeds)) as srv:
        model = f"{srv.base_url}@scripted"
        # The README's example, with the scripted server for the bundled model.
        from judgeagent import EvalConfig, evaluate

        result = evaluate(EvalConfig(target=model, judge=model, protocol="kieval", limit=3, data=DATA, graph=demo_graph, out=tmp_path / "run"))
        print(result.metrics["kieval"]["overall"], result.run_dir)
    assert result.protocol == "kieval" and result.run_dir == tmp_path / "run"
    assert result.metrics == metrics(tmp_path / "run")
    assert result.metrics["kieval"]["overall"] == pytest.approx(65.3368, abs=1e-4)
    assert (tmp_path / "run" / "report.html").exists() and "KIEval" in (tmp_path / "run" / "report.md").read_text()


# --------------------------------------------------------------------------- compare
@pytest.mark.slow
def test_compare_puts_each_protocol_in_its_own_columns(tmp_path, demo_graph, demo_seeds):
    with ScriptedServer(scripted(demo_seeds, level_right={"easy": True, "medium": True, "hard": False})) as srv:
        cli(srv, demo_graph, tmp_path / "ja", limit=6)
        cli(srv, demo_graph, tmp_path / "es", "--protocol", "escalate")
    res = CliRunner().invoke(app, ["compare", str(tmp_path / "ja"), str(tmp_path / "es"), "--format", "csv"])
    assert res.exit_code == 0, res.output
    lines = res.stdout.splitlines()
    # Then the invalid rate of each run's generated questions, from its audit (none here).
    assert lines[0] == ("target,medqa-demo ACC1,medqa-demo ACC2,medqa-demo CR,medqa-demo CtE,medqa-demo ACC-AUC (norm.),medqa-demo held Hard,"
                        "medqa-demo invalid items % [95% CI]")
    ja, es = (next(csv.reader([line])) for line in lines[1:])
    assert ja[0].endswith("[judgeagent]") and ja[1:] == ["50.00", "66.67", "33.33", "16.67", "", "", "not audited"]
    assert es[0].endswith("[escalate]") and es[1:] == ["", "", "", "", "75.00", "0.00", "not audited"]
    assert ("warning: the runs follow different protocols, whose columns are not comparable with each other "
            "(judgeagent: ACC1, ACC2, CR, CtE; escalate: ACC-AUC (norm.), held Hard)") in " ".join(res.stderr.split())
