"""Reports built from recorded run folders (tests/fixtures/runs, made by make_fixtures.py
with the scripted target and judge): every section checked against the run's own
metrics.json and records.jsonl; the CLI; and the interview summary's judge call."""

from __future__ import annotations

import asyncio
import base64
import dataclasses
import json
import re
import shutil
from pathlib import Path

import pytest
from typer.testing import CliRunner

from judgeagent.cli.app import app
from judgeagent.metrics.figures import InterviewFigures
from judgeagent.records import AnswerRecord, InterviewRecord, PathRecord, QuestionRecord
from judgeagent.report import boundary as kb
from judgeagent.report import build_document, load_run, write_reports
from judgeagent.report import sections as sec
from judgeagent.report.document import Excerpt
from judgeagent.report.html import to_html
from judgeagent.report.markdown import to_markdown
from judgeagent.stages.summary import FIELDS, batch_digest, clean_summary, summarize_interview, summary_prompt

FIXTURES = Path(__file__).parent / "fixtures" / "runs"
PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def run_copy(tmp_path):
    def copy(name: str) -> Path:
        dst = tmp_path / name
        shutil.copytree(FIXTURES / name, dst)
        return dst

    return copy


def raw_records(name: str) -> list[dict]:
    return [json.loads(x) for x in (FIXTURES / name / "records.jsonl").read_text().splitlines()]


def records(name: str) -> list[InterviewRecord]:
    return [InterviewRecord.model_validate_json(x) for x in (FIXTURES / name / "records.jsonl").read_text().splitlines()]


def metrics(name: str) -> dict:
    return json.loads((FIXTURES / name / "metrics.json").read_text())


def figures(name: str) -> InterviewFigures:
    return InterviewFigures.from_json(metrics(name))


# ----------------------------------------------------------------------------- fixtures are sane
@pytest.mark.parametrize("name", ["medqa-a", "medqa-b", "quality-a", "ablation-a"])
def test_fixtures_are_portable(name):
    folder = FIXTURES / name
    assert not (folder / "journal.sqlite").exists()
    text = "".join(p.read_text() for p in folder.iterdir())
    assert "/tmp/" not in text and str(Path.home()) + "/" not in text and "/work/" not in text


# ----------------------------------------------------------------------------- sections vs metrics
def test_overview_names_target_judge_data_graph_settings_date():
    run = load_run(FIXTURES / "medqa-a")
    facts = dict(sec.overview(run))
    cfg = run.saved
    assert facts["Target"] == cfg.models["target"].name == "target-a"
    assert facts["Judge"] == "judge-x"
    assert facts["Data"].startswith("medqa-demo") and "KMC" in facts["Data"] and "6 seed questions" in facts["Data"]
    assert facts["Graph"].startswith("graphs/medqa-demo") and cfg.graph and cfg.graph.manifest_hash and cfg.graph.manifest_hash[:12] in facts["Graph"]
    assert "batch size 3" in facts["Settings"] and "3 rounds" in facts["Settings"] and "feedback after every round" in facts["Settings"]
    assert "T1 = 0.5" in facts["Difficulty controller"] and "T2 = 1" in facts["Difficulty controller"]
    assert facts["Modules switched off"] == "none (full method)"
    assert re.fullmatch(r"\d{4}-\d{2}-\d{2}.*", facts["Date"])


@pytest.mark.parametrize("name", ["medqa-a", "medqa-b", "quality-a"])
def test_headline_matches_metrics(name):
    m = metrics(name)
    t = sec.headline(figures(name))
    row = dict(zip(t.columns, t.rows[0]))
    assert row["N"] == str(m["n_questions"])
    for label, value in sec.HEADLINE:
        expect = value(figures(name))
        if expect is None:
            assert row[label] == sec.DASH
        else:
            assert float(row[label]) == pytest.approx(expect, abs=0.005), label
    # ΔACC = ACC2 − ACC1 = CR − CtE, as printed
    assert float(row["ΔACC"]) == pytest.approx(float(row["ACC2"]) - float(row["ACC1"]), abs=0.011)
    assert float(row["ΔACC"]) == pytest.approx(float(row["CR"]) - float(row["CtE"]), abs=0.011)


def test_by_difficulty_and_extension_tables_match_metrics():
    m = metrics("quality-a")
    t = sec.by_difficulty(figures("quality-a"))
    assert [r[0] for r in t.rows] == ["easy", "medium", "hard"]
    for r in t.rows:
        want = m["by_difficulty"][r[0]]
        assert int(r[1]) == want["n_questions"]
        assert [float(x) for x in r[2:6]] == pytest.approx([want[k] for k in ("acc1", "acc2", "cr", "cte")], abs=0.005)
    assert sum(int(r[1]) for r in t.rows) == m["n_questions"]
    ext = sec.extension_accuracy(figures("quality-a"))
    for r in ext.rows:
        want = m["extension_accuracy"][r[0]]
        assert (int(r[1]), int(r[2])) == (want["n"], want["correct"])
        assert float(r[3]) == pytest.approx(want["accuracy"], abs=0.005)
    assert sec.by_difficulty(figures("medqa-a")) is None  # MedQA has no labels


def test_by_round_table_only_with_eval_every_round():
    m = metrics("medqa-a")
    t = sec.by_round(figures("medqa-a"))
    assert [int(r[0]) for r in t.rows] == [p["after_round"] for p in m["by_round"]] == [0, 1, 2, 3]
    for r, p in zip(t.rows, m["by_round"]):
        assert float(r[6]) == pytest.approx(p["delta_acc"], abs=0.005)
    # the last point is the run's headline figure
    assert m["by_round"][-1]["acc2"] == pytest.approx(m["acc2"])
    assert sec.by_round(figures("medqa-b")) is None


def test_usage_table_per_stage_and_total():
    m = metrics("medqa-a")
    t = sec.usage(figures("medqa-a"))
    rows = {r[0]: r for r in t.rows}
    stages = m["llm_usage"]["stages"]
    assert set(rows) == set(stages) | {"total"}
    for name, b in [*stages.items(), ("total", m["llm_usage"]["total"])]:
        r = dict(zip(t.columns, rows[name]))
        assert int(r["requests"].replace(",", "")) == b["requests"]
        assert int(r["prompt tokens"].replace(",", "")) == b["prompt_tokens"]
        assert int(r["completion tokens"].replace(",", "")) == b["completion_tokens"]
        assert float(r["cost $"]) == pytest.approx(b["cost_usd"], abs=5e-5)
    assert sum(b["requests"] for b in stages.values()) == m["llm_usage"]["total"]["requests"]
    wall = dict(sec.timings(figures("medqa-a")))
    assert wall["total"] == f"{sum(m['timings'].values()):.1f} s"


def test_outcome_counts_add_up_to_the_paper_metrics():
    m = metrics("medqa-a")
    c = sec.outcome_counts(load_run(FIXTURES / "medqa-a").interviews)
    n = m["n_questions"]
    assert sum(c.values()) == n
    assert 100 * c["wrong→right"] / n == pytest.approx(m["cr"], abs=1e-3)
    assert 100 * c["right→wrong"] / n == pytest.approx(m["cte"], abs=1e-3)
    assert 100 * (c["right→right"] + c["right→wrong"]) / n == pytest.approx(m["acc1"], abs=1e-3)
    assert 100 * (c["right→right"] + c["wrong→right"]) / n == pytest.approx(m["acc2"], abs=1e-3)


def test_examples_per_outcome():
    recs = load_run(FIXTURES / "medqa-a").interviews
    ex = sec.examples(recs)
    assert [k for k, _, _ in ex] == ["right→right", "wrong→right", "right→wrong", "wrong→wrong"]
    counts = sec.outcome_counts(recs)
    for key, _, chosen in ex:
        assert 0 < len(chosen) <= 2 if counts[key] else chosen == []
        flags = next(f for k, f, _ in sec.OUTCOMES if k == key)
        for e in chosen:
            rec = next(r for r in recs if r.batch_id == e.batch_id)
            assert e.seeds and all((s.first.correct, s.after.correct) == flags for s in e.seeds)
            assert [rd.question for rd in e.followups] == [rd.question for rd in rec.rounds if rd.question]
            assert e.suggestions == rec.last.evaluation.suggestions


def test_knowledge_boundary_counts_every_asked_followup():
    recs = records("medqa-a")
    stats = kb.entity_stats(recs)
    rates = [s.failure_rate for s in stats]
    assert rates == sorted(rates, reverse=True)
    by_name = {s.entity: s for s in stats}
    # every path entity of every asked follow-up is counted, with the follow-up's result
    for r in recs:
        for rd in r.asked:
            for step in rd.path.steps:
                st = by_name[step.entity]
                assert any(q.kind == "follow-up" and q.text == rd.question.question for q in st.questions)
    n_followups = sum(len(r.asked) for r in recs)
    counted = {id(q) for s in stats for q in s.questions if q.kind == "follow-up"}
    assert len(counted) == n_followups
    # the worst entities show the chunks of their failed follow-ups, text from the records
    worst = kb.worst_entities(stats)
    assert worst and worst[0].count("follow-up", wrong=True) > 0
    chunk_texts = {t for r in recs for rd in r.rounds if rd.path for t in rd.path.texts}
    q = next(q for q in kb.failed_questions(worst[0]) if q.kind == "follow-up")
    assert not q.correct and q.steps and all(s.text in chunk_texts for s in q.steps)
    for s in kb.mastered(stats):
        assert s.wrong == 0 and s.asked >= 2


def test_path_steps_read_the_sampler_format():
    from judgeagent.graph import KnowledgePath, PathStep

    path = KnowledgePath("a", [PathStep("a", "c1", "t1"), PathStep("b", "c2", "t2")])
    assert kb.path_steps(PathRecord.from_json(path.to_dict())) == [kb.PathStep("a", "c1", "t1"), kb.PathStep("b", "c2", "t2")]
    assert kb.path_steps(None) == []


def test_answer_texts():
    mc = QuestionRecord(id="q1", question="q", options={"A": "one", "B": "two"}, answer="B")
    assert sec.correct_text(mc) == "B. two"
    assert sec.answer_text(mc, AnswerRecord(question_id="q1", chosen="A", reply="A", correct=False)) == "A. one"
    qa = QuestionRecord(id="q2", question="q", options=None, answer="Paris")
    assert sec.correct_text(qa) == "Paris"
    assert sec.answer_text(qa, AnswerRecord(question_id="q2", chosen="paris", reply="It is  Paris.", correct=True)) == "It is Paris."
    assert sec.answer_text(qa, AnswerRecord(question_id="q2", chosen=None, reply=None, correct=False, error="missing")) == "(no answer: missing)"
    assert len(sec.answer_text(qa, AnswerRecord(question_id="q2", chosen=None, reply="x " * 500, correct=False))) == 300


def test_interview_summary_section():
    run = load_run(FIXTURES / "medqa-a")
    s = sec.interview_summary(run.summary)
    assert [t for t, _ in s.lists] == ["Strengths", "Weaknesses", "Knowledge gaps", "Reasoning gaps"]
    assert dict(s.lists)["Knowledge gaps"] == run.summary["knowledge_gaps"]
    assert s.response_to_feedback == run.summary["response_to_feedback"]
    assert sec.interview_summary(None) is None
    assert sec.interview_summary({"error": "judge down"}).error == "judge down"


def test_warnings_for_incomplete_runs():
    run = load_run(FIXTURES / "medqa-a")
    assert sec.warnings(run) == []
    run = dataclasses.replace(run, metrics=dict(run.metrics, complete=False, evaluation_failures=1,
                                                extension={"rounds": 6, "skipped": 2, "skip_reasons": ["no knowledge path"]}))
    w = " ".join(sec.warnings(run))
    assert "incomplete" in w and "no usable evaluation" in w and "2 of 6 follow-up rounds were skipped (no knowledge path)" in w


# ----------------------------------------------------------------------------- whole reports
def _png_size(png: bytes) -> tuple[int, int]:
    assert png.startswith(PNG)
    return int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")


@pytest.mark.parametrize(
    "name,figures",
    [
        ("medqa-a", ["trajectory", "extension-accuracy", "delta-by-round"]),
        ("medqa-b", ["trajectory", "extension-accuracy"]),
        ("quality-a", ["trajectory", "extension-accuracy", "acc-by-label"]),
    ],
)
def test_document_sections_and_figures(name, figures):
    doc = build_document(load_run(FIXTURES / name))
    titles = [s.title for s in doc.sections]
    expect = ["Summary", "Interview summary", "Knowledge boundary", "Plots", "Examples"]
    if name == "medqa-b":  # no summary.json
        expect.remove("Interview summary")
    assert titles == expect
    figs = doc.figures()
    assert [f.name for f in figs] == figures
    for f in figs:
        w, h = _png_size(f.png)
        assert w > 300 and h > 150


def test_write_reports_html_and_md(run_copy):
    run = run_copy("medqa-a")
    written = write_reports(run)
    assert written == [run / "report.html", run / "report.md"]
    html = (run / "report.html").read_text()
    md = (run / "report.md").read_text()
    m = metrics("medqa-a")
    # self-contained: no URL to fetch anywhere, images inline, a CSP that forbids requests
    assert not re.search(r"""(src|href)=["'](?!data:|#)""", html)
    assert "http://" not in html.replace("http://127.0.0.1:0/v1", "") and "https://" not in html
    assert "default-src 'none'" in html and "<script" not in html
    assert html.count('src="data:image/png;base64,') == 3
    assert '<meta name="viewport"' in html and "@media print" in html and "@media (max-width" in html
    for img in re.findall(r'src="data:image/png;base64,([^"]+)"', html):
        assert _png_size(base64.b64decode(img))[0] > 300
    # the same content in both formats
    for text in (f"{m['acc1']:.2f}", f"{m['acc2']:.2f}", f"{m['cr']:.2f}", f"{m['cte']:.2f}", f"+{m['delta_acc']:.2f}"):
        assert text in html and text in md
    summary = json.loads((run / "summary.json").read_text())
    for item in summary["strengths"] + summary["knowledge_gaps"]:
        assert item in html and item in md
    for rec in raw_records("medqa-a"):
        for q in rec["seed"]:
            assert q["question"][:60] in md  # every seed question of this small run is an example
    # images beside the Markdown, referenced relatively
    refs = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", md)
    assert refs == ["report_files/trajectory.png", "report_files/extension-accuracy.png", "report_files/delta-by-round.png"]
    for ref in refs:
        assert (run / ref).read_bytes().startswith(PNG)


def test_markdown_escapes_model_text():
    doc = build_document(load_run(FIXTURES / "medqa-a"))
    doc.sections[0].blocks.insert(0, Excerpt("x|y", "a *bold* <script>alert(1)</script> | pipe"))
    md, _ = to_markdown(doc)
    assert r"a \*bold\* \<script\>alert(1)\</script\> \| pipe" in md
    html = to_html(doc)
    assert "<script>alert" not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_report_never_calls_a_model_or_loads_the_graph(run_copy, monkeypatch):
    import judgeagent.graph as graph
    import judgeagent.llm.client as client

    def boom(*a, **k):
        raise AssertionError("the report must not call a model or load the graph")

    monkeypatch.setattr(client.LLMClient, "chat", boom)
    monkeypatch.setattr(graph, "load_graph", boom)
    run = run_copy("medqa-a")
    assert len(write_reports(run)) == 2


def test_reports_are_reproducible(run_copy):
    run = run_copy("quality-a")
    write_reports(run)
    first = (run / "report.html").read_bytes(), (run / "report.md").read_bytes()
    write_reports(run)
    assert ((run / "report.html").read_bytes(), (run / "report.md").read_bytes()) == first


def test_ablation_run_reports_a_chosen_setting(run_copy):
    run = run_copy("ablation-a")
    abl = json.loads((run / "ablation.json").read_text())
    main = load_run(run)
    assert main.setting == "full" and {r.setting for r in main.interviews} == {"full"}
    other = load_run(run, "no graph")
    assert {r.setting for r in other.interviews} == {"no graph"}
    assert other.metrics == abl["metrics"]["no graph"]
    written = write_reports(run, setting="no graph")
    assert [p.name for p in written] == ["report-no-graph.html", "report-no-graph.md"]
    assert "no graph (random path chunks)" in (run / "report-no-graph.md").read_text()
    # without extension there are no paths and no follow-ups: the sections say so
    doc = build_document(load_run(run, "no extension"))
    boundary = next(s for s in doc.sections if s.title == "Knowledge boundary")
    assert "not linked to a graph entity" in boundary.blocks[0].text or "No question" in boundary.blocks[0].text
    assert [f.name for f in doc.figures()] == ["trajectory"]


# ----------------------------------------------------------------------------- CLI
def test_cli_report(run_copy):
    run = run_copy("medqa-a")
    res = CliRunner().invoke(app, ["report", str(run), "--html"])
    assert res.exit_code == 0, res.output
    assert (run / "report.html").exists() and not (run / "report.md").exists()
    res = CliRunner().invoke(app, ["report", str(run)])
    assert res.exit_code == 0 and (run / "report.md").exists()


def test_cli_report_open(run_copy, monkeypatch):
    opened = []
    monkeypatch.setattr("webbrowser.open", lambda url: opened.append(url))
    run = run_copy("medqa-a")
    res = CliRunner().invoke(app, ["report", str(run), "--md", "--open"])
    assert res.exit_code == 0, res.output
    assert opened == [(run / "report.html").resolve().as_uri()] and (run / "report.md").exists()


@pytest.mark.parametrize("setup", ["missing", "empty", "bad-metrics", "bad-record"])
def test_cli_report_user_errors_are_one_line(tmp_path, setup):
    run = tmp_path / "run"
    if setup != "missing":
        run.mkdir()
    if setup in ("bad-metrics", "bad-record"):
        shutil.copytree(FIXTURES / "medqa-b", run, dirs_exist_ok=True)
    if setup == "bad-metrics":
        (run / "metrics.json").write_text("{not json")
    if setup == "bad-record":
        lines = (run / "records.jsonl").read_text().splitlines()
        (run / "records.jsonl").write_text("\n".join(["{broken", *lines]) + "\n")
    res = CliRunner().invoke(app, ["report", str(run)])
    assert res.exit_code == 2
    assert "Traceback" not in res.output
    assert str(run) in res.output.replace("\n", "")
    if setup == "bad-record":
        assert "records.jsonl:1" in res.output


# ----------------------------------------------------------------------------- interview summary
class FakeResult:
    def __init__(self, ok, data=None, error=None):
        self.ok, self.data, self.error = ok, data, error


class FakeModels:
    def __init__(self, result):
        self.result = result
        self.calls = []

    async def ask_judge(self, messages, *, schema, stage, max_tokens, temperature=0.0):
        self.calls.append({"messages": messages, "schema": schema, "stage": stage, "max_tokens": max_tokens})
        if isinstance(self.result, Exception):
            raise self.result
        return self.result


def test_summary_is_one_judge_call_over_every_batch():
    from judgeagent.prompts import schemas

    recs = records("medqa-a")
    reply = {"strengths": ["a"], "weaknesses": "b", "knowledge_gaps": [" c  d "], "reasoning_gaps": [], "response_to_feedback": "fine", "extra": 1}
    models = FakeModels(FakeResult(True, reply))
    out = asyncio.run(summarize_interview(models, recs))
    assert out == {"strengths": ["a"], "weaknesses": ["b"], "knowledge_gaps": ["c d"], "reasoning_gaps": [], "response_to_feedback": "fine"}
    (call,) = models.calls
    assert call["stage"] == "summary" and call["schema"] is schemas.SUMMARY
    prompt = call["messages"][-1]["content"]
    for r in recs:
        assert f"Batch {r.batch_id}" in prompt
        assert r.last.evaluation is not None and r.last.evaluation.flaws_knowledge[:40] in prompt
    m = metrics("medqa-a")
    right1 = round(m["acc1"] * m["n_questions"] / 100)
    assert f"{right1}/{m['n_questions']} original questions right before the advice" in prompt
    for f in FIELDS:
        assert f in schemas.SUMMARY["required"]


def test_summary_failures_return_an_error():
    from judgeagent.errors import BudgetExceeded

    recs = records("medqa-a")
    assert asyncio.run(summarize_interview(FakeModels(FakeResult(False, error="timeout: slow")), recs)) == {"error": "timeout: slow"}
    assert "budget" in asyncio.run(summarize_interview(FakeModels(BudgetExceeded("budget reached")), recs))["error"]
    assert "error" in asyncio.run(summarize_interview(FakeModels(FakeResult(True, ["not", "a", "dict"])), recs))
    assert "error" in asyncio.run(summarize_interview(FakeModels(None), []))
    no_eval = [r.model_copy(update={"validations": [v.model_copy(update={"evaluation": None}) for v in r.validations]}) for r in recs]
    models = FakeModels(None)
    assert "error" in asyncio.run(summarize_interview(models, no_eval)) and models.calls == []


def test_summary_prompt_is_bounded_for_long_runs():
    recs = records("medqa-a")
    many = [recs[i % 2].model_copy(update={"batch_id": f"b{i:04d}", "batch_index": i}) for i in range(400)]
    msgs = summary_prompt(many, max_chars=6000)
    user = msgs[-1]["content"]
    assert len(user) < 8000
    assert "of the 400 batches are shown" in user and "Batch b0000" in user and "Batch b0399" in user
    assert "400 batches" in user
    assert len(batch_digest(recs[0]).splitlines()) == 6
    assert clean_summary({"strengths": None}) == {"strengths": [], "weaknesses": [], "knowledge_gaps": [], "reasoning_gaps": [], "response_to_feedback": ""}


def test_messy_run_still_reports(run_copy):
    """What a small local model leaves behind: an unusable evaluation, a skipped round, an
    unreadable answer, no summary. The report says so instead of failing."""
    run = run_copy("medqa-b")
    recs = [json.loads(x) for x in (run / "records.jsonl").read_text().splitlines()]
    recs[0]["validations"][-1].update(evaluation=None, evaluation_error="invalid_json: not JSON", reasked=False)
    recs[0]["rounds"][0].update(skipped="generation failed 3 times", question=None, answer=None, score_after=None)
    recs[1]["seed_answers"][0].update(reply="I think it is", chosen=None, correct=False, error="no option letter")
    (run / "records.jsonl").write_text("".join(json.dumps(r) + "\n" for r in recs))
    m = json.loads((run / "metrics.json").read_text())
    m.update(evaluation_failures=1, answer_errors=1, extension=dict(m["extension"], skipped=1, skip_reasons=["generation failed 3 times"]))
    (run / "metrics.json").write_text(json.dumps(m))
    (run / "summary.json").write_text(json.dumps({"error": "timeout: the judge did not answer"}))
    write_reports(run)
    md = (run / "report.md").read_text()
    assert "1 batch(es) got no usable evaluation" in md and "1 seed answer(s) were missing or unreadable" in md
    assert "follow-up rounds were skipped (generation failed 3 times)" in md
    assert "The judge's summary could not be made: timeout: the judge did not answer" in md
    assert "No evaluation: invalid\\_json: not JSON" in md
    assert "I think it is" in md
