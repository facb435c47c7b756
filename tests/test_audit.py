"""`judgeagent audit` on a real run (scripted judge and target): the items and their provenance,
the gate's rejected questions rebuilt from the journal, the design, the labels file and its
import (refused when malformed or foreign, nothing lost), several auditors, a bank and an
older run's records."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from audit_double import DATA, REJECTED_TOPICS, judge_for, labels_file, read_items, scripted_sweep
from interview_double import RIGHT, TOPICS
from scripted_server import ScriptedServer
from typer.testing import CliRunner

import judgeagent
from judgeagent.audit.design import Design
from judgeagent.bank.fill import item_id
from judgeagent.cli.app import app
from judgeagent.metrics.audit import Stratum, clopper_pearson, cohen_kappa, stratified_proportion, wilson

FIXTURES = Path(__file__).parent / "fixtures" / "runs"


def cli(*args: str):
    return CliRunner().invoke(app, [str(a) for a in args])


def records(run: Path) -> list[dict]:
    return [json.loads(line) for line in (run / "records.jsonl").read_text().splitlines()]


def asked(run: Path) -> dict[str, tuple[dict, dict]]:
    """Item id → (record, round) of every follow-up the run asked."""
    return {item_id("kmc", rd["question"]["question"], rd["question"]["options"], rd["question"]["answer"]): (rec, rd)
            for rec in records(run) for rd in rec["rounds"] if rd.get("question")}  # fmt: skip


def gate_options(run: Path, question: str) -> dict[str, str]:
    """The options, in order, that the gate's reader was shown for ``question`` (the journal's record)."""
    from judgeagent.llm.journal import Journal

    journal = Journal(run / "journal.sqlite")
    try:
        for request, _ in journal.replies("gate"):
            user = request["messages"][-1]["content"]
            if f"Question: {question}" in user:
                return {m.group(1): m.group(2) for m in re.finditer(r"^([A-D])\. (.*)$", user, re.M)}
    finally:
        journal.close()
    raise AssertionError(f"no gate request for {question!r}")


@pytest.mark.slow
def test_a_run_audit_holds_every_asked_and_rejected_question_with_its_provenance(audit_run):
    res = cli("audit", audit_run, "--include-rejected", "--sample", 50)
    assert res.exit_code == 0, res.output
    folder = audit_run / "audit"
    design = json.loads((folder / "design.json").read_text())
    items = {i["item_id"]: i for i in read_items(folder)}
    rounds = asked(audit_run)
    assert len(rounds) == 6
    passed = {i: it for i, it in items.items() if it["status"] == "passed"}
    rejected = {i: it for i, it in items.items() if it["status"] == "rejected"}
    assert set(passed) == set(rounds)
    # The two questions the gate's reader got wrong, as the run's records keep them.
    assert sorted(it["question"] for it in rejected.values()) == sorted(REJECTED_TOPICS)
    for it in rejected.values():
        assert it["options"][it["key"]] == RIGHT and it["recovered_from"] is None
        assert it["options"] == gate_options(audit_run, it["question"])  # the key at the letter the run put it
        assert it["gate"]["checks"]["answerable"]["passed"] is False
        assert it["missing"] == []
    for iid, it in passed.items():
        rec, rd = rounds[iid]
        steps = rd["path"]["steps"]
        assert (it["question"], it["options"], it["key"], it["level"]) == (rd["question"]["question"], rd["question"]["options"], rd["question"]["answer"], rd["level"])
        assert it["batch"] == rec["batch_id"] and it["ref"] == f"{rec['batch_id']} round {rd['round']}"
        assert [s["entity"] for s in it["path"]] == [s["entity"] for s in steps]
        # The link walked between each two entities, as the sampler recorded it (none before the window's first).
        links = ("via", "via_chunk", "edge", "edge_weight")
        assert [[s[k] for k in links] for s in it["path"][1:]] == [[s[k] for k in links] for s in steps[1:]]
        assert all(s["via"] in ("chunk", "jump") for s in it["path"][1:]) and it["path"][0]["via"] is None
        assert {c["chunk_id"]: c["text"] for c in it["chunks"]} == {s["chunk_id"]: s["text"] for s in steps}
        assert it["gate"] == rd["gate"] and it["written_by"].endswith("@scripted")
        assert it["missing"] == []
    # 8 items, fewer than 50: every one is drawn, with probability 1.
    d = Design.from_dict(design["design"])
    assert d.population == 8 and sorted(d.order) == sorted(items)
    assert all(s.inclusion_probability == 1 for s in d.strata)
    assert [s.primary for s in d.strata if s.rejected] == ["rejected"]
    schema = json.loads((folder / "labels.schema.json").read_text())
    assert schema["properties"]["audit_id"]["const"] == design["audit_id"]
    assert sorted(schema["$defs"]["LabelEntry"]["properties"]["item_id"]["enum"]) == sorted(items)
    html = (folder / "audit.html").read_text()
    assert design["audit_id"] in html and "default-src 'none'" in html


def test_without_include_rejected_only_the_asked_questions_and_a_sample_is_stratified(audit_run):
    result = judgeagent.audit(audit_run, sample=4, seed=5)
    d = Design.from_dict(json.loads((result.audit_dir / "design.json").read_text())["design"])
    assert result.population == 6 and result.sampled == 4 and len(d.order) == 4
    assert {s.primary for s in d.strata} <= {"easy", "medium", "hard"} and not any(s.rejected for s in d.strata)
    for s in d.strata:
        assert s.inclusion_probability == pytest.approx(s.n / s.size)
    # The same settings find the same audit; others are refused with one line.
    assert judgeagent.audit(audit_run, sample=4, seed=5).audit_id == result.audit_id
    res = cli("audit", audit_run, "--sample", 4, "--seed", 6)
    assert res.exit_code == 2 and "holds audit" in res.output and "--out" in res.output
    other = cli("audit", audit_run, "--sample", 4, "--seed", 6, "--out", audit_run / "audit-6")
    assert other.exit_code == 0, other.output


def _audit(run: Path, *extra) -> tuple[Path, dict[str, dict]]:
    res = cli("audit", run, "--include-rejected", *extra)
    assert res.exit_code == 0, res.output
    folder = run / "audit"
    return folder, {i["item_id"]: i for i in read_items(folder)}


def test_imported_labels_give_the_stratified_rate_and_the_gate_figures(audit_run, tmp_path):
    folder, items = _audit(audit_run, "--sample", 5)
    design = Design.from_dict(json.loads((folder / "design.json").read_text())["design"])
    sample = design.order
    labels = {}
    for k, iid in enumerate(sample):
        labels[iid] = ["wrong key"] if k % 2 == 0 else ["valid"]
    res = cli("audit", "import", labels_file(tmp_path / "ana.json", folder, labels))
    assert res.exit_code == 0, res.output
    assert "ana: 5 new label(s)" in res.output and "invalid items:" in res.output
    out = json.loads((folder / "results.json").read_text())
    assert out["basis"] == "people" and out["n_labelled"] == 5 and out["auditors"] == ["ana"]
    # The rate is the stratified estimate over the strata of asked questions, from the same labels.
    strata = [Stratum(s.size, s.n, sum(labels[i] != ["valid"] for i in s.sampled)) for s in design.strata if not s.rejected]
    srs = out["invalid"].pop("as_simple_random_sample")
    assert out["invalid"] == stratified_proportion(strata).to_dict()
    k, n = out["invalid"]["hits"], out["invalid"]["n"]
    assert (srs["k"], srs["n"]) == (k, n)
    assert srs["wilson"] == pytest.approx(list(wilson(k, n)), abs=1e-6) and srs["clopper_pearson"] == pytest.approx(list(clopper_pearson(k, n)), abs=1e-6)
    assert out["by_defect"]["wrong key"] == out["invalid"] and out["by_defect"]["ambiguous"]["hits"] == 0
    rejected = [s for s in design.strata if s.rejected]
    assert out["gate"]["rejected_but_valid"] == stratified_proportion(
        [Stratum(s.size, s.n, sum(labels[i] == ["valid"] for i in s.sampled)) for s in rejected]).to_dict()
    assert set(out["by_level"]) == {s.primary for s in design.strata if not s.rejected}
    again = cli("audit", folder, "--json")
    assert again.exit_code == 0 and json.loads(again.stdout)["invalid"] == out["invalid"] | {"as_simple_random_sample": srs}


def _state(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted((folder / "labels").glob("*"))}


def test_a_malformed_or_foreign_labels_file_is_refused_and_nothing_is_lost(audit_run, tmp_path):
    folder, items = _audit(audit_run)
    ids = sorted(items)
    good = labels_file(tmp_path / "good.json", folder, {ids[0]: ["valid"], ids[1]: ["ambiguous", "wrong key"]})
    assert cli("audit", "import", good).exit_code == 0
    before = _state(folder)
    truncated = tmp_path / "truncated.json"
    truncated.write_text(good.read_text()[:120])
    foreign = labels_file(tmp_path / "foreign.json", folder, {ids[0]: ["valid"]}, audit_id="A000000000000")
    unknown_item = labels_file(tmp_path / "item.json", folder, {"qnot-in-audit": ["valid"]})
    unknown_label = labels_file(tmp_path / "label.json", folder, {ids[0]: ["wrongkey"]})
    both = labels_file(tmp_path / "both.json", folder, {ids[0]: ["valid", "ambiguous"]})
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"answers": []}))
    cases = {
        truncated: "not valid JSON at line", foreign: "labels of audit A000000000000, not of this audit",
        unknown_item: "item qnot-in-audit is not in this audit", unknown_label: "unknown label 'wrongkey'",
        both: "valid and defective at once", other: "not a JudgeAgent audit labels file",
    }  # fmt: skip
    for path, message in cases.items():
        res = cli("audit", "import", path, "--audit", folder)
        assert res.exit_code == 2, (path, res.output)
        line = " ".join(res.output.split())
        assert line.startswith(f"error: {path}") and message in line, line
        assert "Traceback" not in res.output
        assert _state(folder) == before
    moved = labels_file(tmp_path / "moved.json", folder, {ids[0]: ["valid"]})
    body = json.loads(moved.read_text()) | {"audit_dir": str(tmp_path / "gone")}
    moved.write_text(json.dumps(body))
    res = cli("audit", "import", moved)
    assert res.exit_code == 2 and "not an audit folder" in res.output and "--audit" in " ".join(res.output.split())


def test_a_later_export_wins_and_an_older_one_loses_nothing(audit_run, tmp_path):
    folder, items = _audit(audit_run)
    ids = sorted(items)
    newer = labels_file(tmp_path / "new.json", folder, {ids[0]: ["wrong key"], ids[1]: ["valid"]}, at="2030-01-02T00:00:00Z")
    older = labels_file(tmp_path / "old.json", folder, {ids[0]: ["valid"], ids[2]: ["ambiguous"]}, at="2030-01-01T00:00:00Z")
    assert cli("audit", "import", newer).exit_code == 0
    res = cli("audit", "import", older)
    assert res.exit_code == 0 and "1 new label(s), 0 changed, 3 in all" in res.output
    kept = {e["item_id"]: e["labels"] for e in json.loads((folder / "labels" / "ana.json").read_text())["labels"]}
    assert kept == {ids[0]: ["wrong key"], ids[1]: ["valid"], ids[2]: ["ambiguous"]}


def test_two_auditors_agreement_and_their_disagreements(audit_run, tmp_path):
    folder, items = _audit(audit_run)
    ids = sorted(items)
    ana = {i: (["wrong key"] if k < 3 else ["valid"]) for k, i in enumerate(ids)}
    ben = {i: (["wrong key"] if k in (0, 1, 5) else ["valid"]) for k, i in enumerate(ids)}
    ben[ids[0]] = ["wrong key", "ambiguous"]
    res = cli("audit", "import", labels_file(tmp_path / "a.json", folder, ana), labels_file(tmp_path / "b.json", folder, ben, auditor="ben"))
    assert res.exit_code == 0, res.output
    out = json.loads((folder / "results.json").read_text())
    (pair,) = out["agreement"]
    assert (pair["first"], pair["second"], pair["n"]) == ("ana", "ben", len(ids))
    binary = cohen_kappa(["invalid" if ana[i] != ["valid"] else "valid" for i in ids], ["invalid" if ben[i] != ["valid"] else "valid" for i in ids],
                         categories=["valid", "invalid"])  # fmt: skip
    assert pair["valid_vs_invalid"] == binary.to_dict()
    assert sorted(d["item_id"] for d in pair["disagreements"]) == sorted([ids[0], ids[2], ids[5]])
    assert "agreement ana / ben" in res.output and "3 disagreement(s)" in res.output
    # Two people: an item counts invalid when at least half of them found a defect.
    assert out["invalid"]["hits"] == sum(1 for i in ids if items[i]["status"] != "rejected" and (ana[i] != ["valid"] or ben[i] != ["valid"]))


def test_a_bank_is_audited_with_the_batches_its_run_recorded(audit_source, tmp_path):
    run, graph, _ = audit_source
    bank_graph = tmp_path / "graphs" / "medqa-demo"
    shutil.copytree(graph, bank_graph)
    shutil.copy(graph.parent / "medqa-demo.bank.sqlite", bank_graph.parent / "medqa-demo.bank.sqlite")
    res = cli("audit", bank_graph, "--sample", 3)
    assert res.exit_code == 0, res.output
    folder = bank_graph.parent / "medqa-demo.audit"
    items = read_items(folder)
    rounds = asked(run)
    assert len(items) == 3 and {i["item_id"] for i in items} <= set(rounds)
    for it in items:
        assert it["batch"] == rounds[it["item_id"]][0]["batch_id"] and it["chunks"] and it["written_by"]


def test_an_older_run_says_what_it_lacks(tmp_path):
    run = tmp_path / "medqa-a"
    shutil.copytree(FIXTURES / "medqa-a", run)
    res = cli("audit", run, "--include-rejected", "--sample", 3)
    assert res.exit_code == 0, res.output
    items = read_items(run / "audit")
    assert items and all(i["status"] == "asked without a gate" for i in items)
    assert all(any("quality gate" in m for m in i["missing"]) for i in items)


def test_a_run_that_writes_no_questions_is_refused(tmp_path):
    run = tmp_path / "kieval-run"
    run.mkdir()
    (run / "config.json").write_text(json.dumps({"protocol": "kieval", "benchmark": {"question_type": "kmc"}}))
    res = cli("audit", run)
    assert res.exit_code == 2 and "a kieval run writes no questions to audit" in " ".join(res.output.split())
    assert cli("audit", tmp_path / "nowhere").exit_code == 2
    assert cli("audit", "import").exit_code == 2


@pytest.mark.parametrize("protocol", ["escalate", "contamination"])
def test_escalate_and_contamination_runs(tmp_path, demo_graph, demo_seeds, protocol):
    run = tmp_path / protocol
    with ScriptedServer(judge_for(demo_seeds)) as srv:
        model = f"{srv.base_url}@scripted"
        res = cli("evaluate", "--protocol", protocol, "--target", model, "--judge", model, "--data", DATA, "--graph", demo_graph, "--limit", 3,
                  "--concurrency", 2, "--no-report", "--out", run)
        assert res.exit_code == 0, res.output
    res = cli("audit", run, "--include-rejected")
    assert res.exit_code == 0, res.output
    items = read_items(run / "audit")
    parts = [p for rec in records(run) for p in (rec.get("rounds") or rec.get("generated") or [])]
    written = {item_id("kmc", p["question"]["question"], p["question"]["options"], p["question"]["answer"]) for p in parts if p.get("question")}
    assert {i["item_id"] for i in items if i["status"] == "passed"} == written
    word = "step" if protocol == "escalate" else "question"
    assert all(f" {word} " in i["ref"] for i in items)
    rejected = [i for i in items if i["status"] == "rejected"]
    assert rejected and all(i["question"] in REJECTED_TOPICS for i in rejected)
    for it in rejected:
        assert it["options"] == gate_options(run, it["question"]) and it["options"][it["key"]] == RIGHT


def as_older_run(run: Path) -> None:
    """Strip what runs recorded only from the audit on: a rejected question's text and key, and
    the link walked between two entities of a path."""
    lines = []
    for rec in records(run):
        for rd in rec["rounds"]:
            for a in rd.get("generation_attempts") or []:
                a.pop("question", None)
            for step in (rd.get("path") or {}).get("steps") or []:
                for k in ("via", "via_chunk", "edge", "edge_weight"):
                    step.pop(k, None)
        lines.append(json.dumps(rec))
    (run / "records.jsonl").write_text("\n".join(lines) + "\n")


def test_an_older_runs_rejected_questions_are_rebuilt_from_its_journal(audit_run, tmp_path):
    new = {i["item_id"]: i for i in (_audit(audit_run)[1]).values()}
    older = tmp_path / "older"
    shutil.copytree(audit_run, older)
    shutil.rmtree(older / "audit")
    as_older_run(older)
    _, items = _audit(older)
    assert set(items) == set(new)
    for iid, it in items.items():
        if it["status"] == "rejected":
            assert it["recovered_from"] == "journal" and any("journal" in m for m in it["missing"])
            assert (it["question"], it["options"], it["key"]) == (new[iid]["question"], new[iid]["options"], new[iid]["key"])
        assert any(m.startswith("links:") for m in it["missing"])
        assert all(s["via"] is None for s in it["path"])


def test_rejected_questions_not_in_the_journal_are_named(audit_run):
    as_older_run(audit_run)
    (audit_run / "journal.sqlite").unlink()
    for extra in ("journal.sqlite-wal", "journal.sqlite-shm"):
        (audit_run / extra).unlink(missing_ok=True)
    result = judgeagent.audit(audit_run, include_rejected=True)
    assert result.population == 6
    assert any("2 rejected question(s) left out: their generation reply is not in" in n for n in result.notes)


@pytest.mark.slow
def test_a_sweep_is_audited_on_its_shared_items_with_suspects_after(tmp_path, demo_graph, demo_seeds):
    sweep_dir = scripted_sweep(tmp_path, demo_graph, demo_seeds, everyone_wrong={TOPICS[0], TOPICS[3]})
    shared = json.loads((sweep_dir / "shared_items.json").read_text())["items"]
    levels = {str(s.get("counted_as") or s.get("level")) for s in shared}
    res = cli("audit", sweep_dir, "--sample", len(levels) + 1, "--include-rejected", "--json")  # the fewest: one per stratum
    assert res.exit_code == 0, res.output
    folder = sweep_dir / "audit"
    design = json.loads((folder / "design.json").read_text())
    d = Design.from_dict(design["design"])
    by_id = {s["item_id"]: s for s in shared}
    population = {i for s in d.strata for i in s.items}
    assert {i for s in d.strata if not s.rejected for i in s.items} == set(by_id)
    assert any(s.rejected for s in d.strata) and population > set(by_id)
    items = {i["item_id"]: i for i in read_items(folder)}
    for iid, it in items.items():
        if iid in by_id:
            assert it["batch"] == by_id[iid]["cluster"] and it["chunks"] and it["ref"].startswith(by_id[iid]["source_target"] + " ")
        else:
            assert it["status"] == "rejected" and it["batch"].split("/")[0] in ("a", "b")
    # Both targets got these wrong: the item analysis lists those outside the sample as suspects.
    everyone_wrong = {i for i, s in by_id.items() if s["question"] in (TOPICS[0], TOPICS[3])}
    assert everyone_wrong
    suspects = {s["item_id"]: s["reasons"] for s in design["suspects"]}
    assert suspects and set(suspects) == everyone_wrong - set(d.order)
    assert all(r == ["every target got it wrong (2 targets)"] for r in suspects.values())
    assert json.loads(res.stdout)["suspects"]["n"] == len(suspects)
    # A target's shared-items run (a bank run) is audited on the items it asked, with the bank's provenance.
    shared_run = sweep_dir / "shared" / "a"
    res = cli("audit", shared_run, "--sample", 50)
    assert res.exit_code == 0, res.output
    asked_items = {i["item_id"]: i for i in read_items(shared_run / "audit")}
    assert set(asked_items) == set(by_id) and all(i["chunks"] and i["path"] for i in asked_items.values())
