"""The model-assisted pass of `judgeagent audit --auditor MODEL`, against a scripted auditor
behind the scripted server: its two verdicts per item, their labels, a rerun that sends
nothing, a call that brings no answer (retried by the next run), its agreement with people,
suspects outside the sample, and the warning when the auditor wrote the items itself."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

from audit_double import labels_file, read_items
from interview_double import RIGHT, TOPICS, schema_name
from scripted_server import Fault, ScriptedServer
from typer.testing import CliRunner

from judgeagent.audit.auditor import labels_of, same_model
from judgeagent.cli.app import app
from judgeagent.llm.registry import ModelSpec

WRONG = TOPICS[0]  # the auditor finds this key wrong
AMBIGUOUS = TOPICS[2]  # and this question ambiguous


class Auditor:
    """Reads the question out of the prompt as a model would. Blind, it picks RIGHT's option
    (another one on WRONG); shown the key, it calls it wrong on WRONG and finds AMBIGUOUS
    ambiguous. ``down`` topics get a 503: no answer."""

    def __init__(self):
        self.down: set[str] = set()

    def __call__(self, body: dict):
        msgs = body["messages"]
        first = next(m["content"] for m in msgs if m["role"] == "user")
        question = re.search(r"^Question: (.*)$", first, re.M).group(1).strip()
        options = {m.group(1): m.group(2) for m in re.finditer(r"^([A-E])\. (.*)$", first, re.M)}
        name = schema_name(body)
        if question in self.down:
            return Fault.status(503)
        if name == "gate_answer_mc":
            right = next(k for k, v in options.items() if v == RIGHT)
            return json.dumps({"answer": next(k for k in options if k != right) if question == WRONG else right})
        assert name == "audit_key", name
        assert "its key) is: " in msgs[-1]["content"] and msgs[-2]["role"] == "assistant"
        return json.dumps({"key": "wrong" if question == WRONG else "correct", "defects": ["ambiguous"] if question == AMBIGUOUS else [],
                           "reason": "from the passages"})  # fmt: skip


def cli(*args):
    return CliRunner().invoke(app, [str(a) for a in args])


def verdicts(run: Path) -> dict[str, dict]:
    (path,) = (run / "audit" / "model").glob("*.json")
    return json.loads(path.read_text())["verdicts"]


def test_the_auditor_judges_each_item_twice_and_a_rerun_sends_nothing(audit_run):
    with ScriptedServer(Auditor()) as srv:
        model = f"{srv.base_url}@auditor"
        res = cli("audit", audit_run, "--include-rejected", "--auditor", model, "--max-attempts", 1)
        assert res.exit_code == 0, res.output
        sent = len(srv.requests)
        items = {i["item_id"]: i for i in read_items(audit_run / "audit")}
        assert sent == 2 * len(items) == 16
        assert {schema_name(r) for r in srv.requests} == {"gate_answer_mc", "audit_key"}
        again = cli("audit", audit_run, "--include-rejected", "--auditor", model)
        assert again.exit_code == 0, again.output
        assert len(srv.requests) == sent  # every verdict kept, every request journaled
    v = verdicts(audit_run)
    assert set(v) == set(items)
    by_question = {items[i]["question"]: x for i, x in v.items()}
    wrong, ambiguous = by_question[WRONG], by_question[AMBIGUOUS]
    assert (wrong["blind_matches_key"], wrong["key_verdict"], wrong["labels"]) == (False, "wrong", ["wrong key"])
    assert (ambiguous["blind_matches_key"], ambiguous["key_verdict"], ambiguous["labels"]) == (True, "correct", ["ambiguous"])
    assert all(x["labels"] == ["valid"] for q, x in by_question.items() if q not in (WRONG, AMBIGUOUS))
    out = json.loads((audit_run / "audit" / "results.json").read_text())
    assert out["basis"] == "model auditor" and out["model_auditor"] == model
    passed = [i for i in items if items[i]["status"] != "rejected"]
    assert out["invalid"]["n"] == len(passed)
    assert out["invalid"]["hits"] == sum(1 for i in passed if items[i]["question"] in (WRONG, AMBIGUOUS))
    page = (audit_run / "audit" / "audit.html").read_text()
    assert '"key_verdict": "wrong"' in page


def test_its_agreement_with_people_and_a_call_with_no_answer(audit_run, tmp_path):
    auditor = Auditor()
    auditor.down = {TOPICS[3]}
    with ScriptedServer(auditor) as srv:
        model = f"{srv.base_url}@auditor"
        res = cli("audit", audit_run, "--auditor", model, "--max-attempts", 1)
        assert res.exit_code == 3, res.output  # an item left without a verdict: incomplete (judgeagent/exits.py)
        assert "gave no verdict on 1 item(s)" in " ".join(res.output.split())
        assert "model auditor: incomplete; rerun the same command" in " ".join(res.output.split())
        items = {i["item_id"]: i for i in read_items(audit_run / "audit")}
        failed = [i for i, x in verdicts(audit_run).items() if x["error"]]
        assert [items[i]["question"] for i in failed] == [TOPICS[3]]
        first = len(srv.requests)
        auditor.down = set()
        assert cli("audit", audit_run, "--auditor", model).exit_code == 0
        assert len(srv.requests) == first + 2  # only the item that got no answer is asked again
    assert not any(x["error"] for x in verdicts(audit_run).values())
    people = {i: (["wrong key"] if it["question"] in (WRONG, TOPICS[5]) else ["valid"]) for i, it in items.items()}
    res = cli("audit", "import", labels_file(tmp_path / "ana.json", audit_run / "audit", people))
    assert res.exit_code == 0, res.output
    out = json.loads((audit_run / "audit" / "results.json").read_text())
    assert out["basis"] == "people"
    mv = out["model_vs_people"]
    # Rows people, columns model, over valid / invalid: the model adds AMBIGUOUS and misses TOPICS[5].
    assert mv["n"] == 6 and mv["valid_vs_invalid"]["categories"] == ["valid", "invalid"]
    assert mv["valid_vs_invalid"]["table"] == [[3, 1], [1, 1]]
    assert "model auditor" in res.output and "confusion" in res.output


def test_items_outside_the_sample_the_auditor_flags_are_suspects(audit_run):
    with ScriptedServer(Auditor()) as srv:
        res = cli("audit", audit_run, "--sample", 3, "--auditor", f"{srv.base_url}@auditor", "--auditor-scope", "all")
        assert res.exit_code == 0, res.output
    design = json.loads((audit_run / "audit" / "design.json").read_text())
    sampled = set(design["design"]["order"])
    items = {i["item_id"]: i for i in read_items(audit_run / "audit")}
    suspects = {s["item_id"]: s["reasons"] for s in design["suspects"]}
    flagged = {i for i, x in verdicts(audit_run).items() if x["labels"] != ["valid"] and i not in sampled}
    assert set(suspects) == flagged and all("model auditor" in r[0] for r in suspects.values())
    assert set(items) == sampled | flagged  # the page shows the sample, then the suspects
    out = json.loads((audit_run / "audit" / "results.json").read_text())
    assert out["invalid"]["n"] == 3 and out["suspects"]["n"] == len(flagged)


def test_the_writer_as_auditor_is_warned_and_a_dead_auditor_is_one_line(audit_run):
    with ScriptedServer(Auditor()) as srv:
        config = json.loads((audit_run / "config.json").read_text())
        config["models"]["judge"] |= {"name": f"{srv.base_url}@auditor", "base_url": srv.base_url, "model": "auditor"}
        (audit_run / "config.json").write_text(json.dumps(config))  # as if this endpoint had written the items
        res = cli("audit", audit_run, "--auditor", f"{srv.base_url}@auditor")
        assert res.exit_code == 0, res.output
        assert "is the model that wrote the items" in " ".join(res.output.split())
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    res = cli("audit", audit_run, "--auditor", f"http://127.0.0.1:{port}/v1@nobody", "--out", audit_run / "audit-2")
    assert res.exit_code == 2 and "cannot reach" in res.output and "Traceback" not in res.output


def test_labels_and_same_model():
    assert labels_of("correct", []) == ["valid"]
    assert labels_of("wrong", ["ambiguous"]) == ["wrong key", "ambiguous"]
    assert labels_of("cannot tell", ["not self-contained", "bogus"]) == ["not answerable from the sources", "not self-contained"]
    spec = ModelSpec("gpt", "https://api.example.com/v1", "gpt-x")
    assert same_model(spec, {"name": "gpt"}) and same_model(spec, {"name": "other", "base_url": "https://api.example.com/v1/", "model": "gpt-x"})
    assert not same_model(spec, {"name": "other", "base_url": "https://elsewhere/v1", "model": "gpt-x"})
    assert same_model(spec, {"identity": "https://api.example.com/v1|gpt-x"}) and not same_model(spec, None)
