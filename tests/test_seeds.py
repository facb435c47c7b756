"""`judgeagent seeds`: seed questions written from a graph into a benchmark folder.

The pure parts by hand (citations, the plan's kinds and caps, the difficulty label), then the
command end to end on the medqa-demo graph against a scripted writer and reader
(tests/seeds_double.py) that make known mistakes: every filter is shown to drop what it is
for, and only that."""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from interview_double import schema_name
from scripted_server import ScriptedServer
from seeds_double import OFF_DOCUMENT, SeedScript, normal
from typer.testing import CliRunner

from judgeagent.cli.app import app
from judgeagent.data import load_benchmark
from judgeagent.protocols.seeds.citations import Citation, content_words, excerpts_text, numbered, parse_number, verify
from judgeagent.protocols.seeds.plan import MULTI_HOP, SINGLE, kinds, plan_slots, share_cap

PASSAGES = ["Warfarin\n\nWarfarin blocks vitamin K  epoxide reductase.\nIts effect is followed with the INR.", "Heparin acts through antithrombin."]
CHUNKS = ["c1", "c2"]
ASKED = "Which enzyme does warfarin block?"


# ----------------------------------------------------------------------------- citations
def test_the_writer_sees_each_sentence_numbered_and_a_heading_unnumbered():
    assert excerpts_text(PASSAGES, ["warfarin", "heparin"]) == (
        "Excerpt 1 (about warfarin):\nWarfarin\n[1] Warfarin blocks vitamin K epoxide reductase.\n[2] Its effect is followed with the INR.\n\n"
        "Excerpt 2 (about heparin):\n[3] Heparin acts through antithrombin.")
    # the citation kept is the sentence exactly as the chunk holds it (two spaces and all)
    assert [(s.number, s.passage, s.text) for s in numbered(PASSAGES)] == [
        (1, 0, "Warfarin blocks vitamin K  epoxide reductase."), (2, 0, "Its effect is followed with the INR."),
        (3, 1, "Heparin acts through antithrombin.")]


def test_a_cited_number_becomes_its_sentence_and_the_key_must_be_stated_in_it():
    found, why = verify([1, "[3]"], PASSAGES, CHUNKS, question="Which enzyme does warfarin block, and what does heparin act through?",
                        key="Vitamin K epoxide reductases")
    assert why is None
    assert [(c.passage, c.chunk_id, c.text) for c in found] == [(0, "c1", "Warfarin blocks vitamin K  epoxide reductase."),
                                                                (1, "c2", "Heparin acts through antithrombin.")]
    assert verify([1, 1], PASSAGES, CHUNKS, question=ASKED, key="epoxide reductase")[0] == found[:1]  # cited twice, kept once
    # a sentence cited beside the evidence, about nothing asked, is left out; the key is checked on the rest
    assert verify([1, 2, 3], PASSAGES, CHUNKS, question=ASKED, key="epoxide reductase") == (found[:1], None)
    assert verify([2, 3], PASSAGES, CHUNKS, question="How is warfarin's effect followed?", key="with the INR") == (
        [Citation(0, "c1", "Its effect is followed with the INR.")], None)
    assert verify([2, 3], PASSAGES, CHUNKS, question="What is followed with the INR?", key="aspirin effect")[1] == (
        "cited sentences do not state the answer 'aspirin effect' (missing: aspirin)")
    assert [parse_number(x) for x in (3, "3", "[3]", "sentence 3", "S3.", "three", True)] == [3, 3, 3, 3, 3, None, None]
    assert content_words("The kidneys are blocked by it, the kidney's") == {"kidney", "block"}


@pytest.mark.parametrize(("cited", "key", "why"), [
    ([7], "epoxide reductase", "citation 7 is not a sentence number of the excerpts (they are numbered 1 to 3)"),
    (["the first"], "epoxide reductase", "citation 'the first' is not a sentence number of the excerpts (they are numbered 1 to 3)"),
    ([], "epoxide reductase", "no citation"),
    ([1], "thrombin", "cited sentences do not state the answer 'thrombin' (missing: thrombin)"),
    ([1], "prothrombin kinase reductase", "cited sentences do not state the answer 'prothrombin kinase reductase' (missing: kinase, prothrombin)"),
    ([1], "yes", "cited sentences cannot state the answer 'yes': it names nothing"),
    ([1], "Vargan reductase", "cited sentences do not state the answer 'Vargan reductase' (missing: vargan)"),  # one of two is not enough
    ([3, 2], "epoxide reductase", "cited sentences [3], [2] share no word with the question or its answer: none is evidence for them"),
])  # fmt: skip
def test_a_citation_that_does_not_hold_drops_the_question(cited, key, why):
    assert verify(cited, PASSAGES, CHUNKS, question=ASKED, key=key) == ([], why)


# ----------------------------------------------------------------------------- the plan
def test_slot_kinds_keep_the_multi_hop_share_over_every_prefix():
    seq = kinds(10, 0.3)
    assert seq.count(MULTI_HOP) == 3
    assert all(abs(seq[:k].count(MULTI_HOP) - 0.3 * k) < 1 for k in range(1, 11))
    assert kinds(4, 0.0) == [SINGLE] * 4 and kinds(3, 1.0) == [MULTI_HOP] * 3
    assert (share_cap(200, 0.2), share_cap(7, 0.1), share_cap(10, 0.25)) == (40, 1, 2)


def test_the_plan_holds_every_document_and_entity_under_the_cap(demo_graph):
    from judgeagent.graph import load_graph

    graph = load_graph(demo_graph)
    n, share = 12, 0.25
    slots, notes = plan_slots(graph, n, 18, multi_hop_share=0.5, hops=2, max_share=share, seed=0)
    cap = share_cap(n, share)
    docs = Counter(d for s in slots for d in set(s.docs))
    ents = Counter(e for s in slots for e in set(s.path.entities))
    assert cap == 3 and max(docs.values()) <= cap and max(ents.values()) <= cap
    # the 18 slots would need 6 documents at 3 each: the demo graph's 8 sections give them all
    assert len(slots) == 18 and notes == []
    multi = [s for s in slots if s.kind == MULTI_HOP]
    assert len(multi) == 9 and all(len(set(s.path.chunk_ids)) == 2 and not any(st.via == "jump" for st in s.path.steps) for s in multi)
    # the same seed plans the same slots (a resumed run plans what the first one did)
    again, _ = plan_slots(graph, n, 18, multi_hop_share=0.5, hops=2, max_share=share, seed=0)
    assert [(s.id, s.path.chunk_ids) for s in again] == [(s.id, s.path.chunk_ids) for s in slots]


def test_a_cap_too_small_for_the_slots_plans_fewer_and_says_why(demo_graph):
    from judgeagent.graph import load_graph

    graph = load_graph(demo_graph)
    slots, notes = plan_slots(graph, 40, 40, multi_hop_share=0.0, hops=2, max_share=0.025, seed=0)
    n_docs = len({graph.chunk_doc(c) for c in graph.chunk_ids})
    assert len(slots) == n_docs and len({s.docs for s in slots}) == n_docs  # one seed per document
    assert notes == [f"{40 - n_docs} single slot(s) of 40 found no passages within --max-share 0.025 "
                     f"(at most 1 seed(s) per document or entity, {n_docs} document(s))"]  # fmt: skip


# ----------------------------------------------------------------------------- end to end
def invoke(srv, graph: Path, out: Path, *extra: str):
    args = ["seeds", str(graph), "--writer", f"{srv.base_url}@scripted", "--out", str(out), "--concurrency", "1", *extra]
    return CliRunner().invoke(app, args)


def lines(folder: Path) -> list[dict]:
    return [json.loads(x) for x in (folder / "questions.jsonl").read_text().splitlines()]


def test_seeds_write_a_generic_folder_that_loads_with_citations_in_their_chunks(tmp_path, demo_graph):
    from judgeagent.graph import load_graph

    out = tmp_path / "set"
    script = SeedScript()
    with ScriptedServer(script) as srv:
        res = invoke(srv, demo_graph, out, "--n", "6", "--multi-hop-share", "0.5", "--max-share", "0.34")
    assert res.exit_code == 0, res.output
    assert "6 of 6 seed questions kept, from 6 slots tried (6 tries; dropped by filter: none)" in " ".join(res.output.split())
    bench = load_benchmark(out)
    graph = load_graph(demo_graph)
    assert (bench.format, bench.qtype.value, len(bench.questions)) == ("generic", "kmc", 6)
    assert {d.id for d in bench.documents} == {d["id"] for d in graph.documents}
    for q in bench.questions:
        assert len(q.options) == 4 and q.answer in q.options
        for c in q.meta["citations"]:
            assert normal(c["sentence"]) in normal(graph.chunk_text(c["chunk_id"])) and c["doc_id"] == graph.chunk_doc(c["chunk_id"])
    kinds_ = Counter(q.meta["kind"] for q in bench.questions)
    assert kinds_ == {"single": 3, "multi_hop": 3}
    # across passages, the reader needs both (it cannot tell with one removed): Hard, with the reason
    hard = [q for q in bench.questions if q.meta["kind"] == "multi_hop"]
    assert {q.difficulty for q in hard} == {"hard"}
    assert all(q.meta["difficulty_reason"].startswith("written across 2 passages, cited from 2; the gate's reader needs them all") for q in hard)
    # a cloze of a cited sentence is recall
    assert {q.difficulty for q in bench.questions if q.meta["kind"] == "single"} == {"easy"}
    # per slot: one writing; the reader once, and once per passage removed until it misses (the first)
    assert script.requests == {"seed_mc": 6, "gate_answer_mc": 6 + 3}
    manifest = json.loads((out / "seeds.json").read_text())
    assert (manifest["figures"]["n_written"], manifest["complete"], manifest["settings"]["n"]) == (6, True, 6)
    assert max(manifest["figures"]["per_document"].values()) <= share_cap(6, 0.34) == 2
    # what evaluate plans on it: the folder is a benchmark like any other
    dry = CliRunner().invoke(app, ["evaluate", "--data", str(out), "--graph", str(tmp_path / "g"), "--dry-run", "--limit", "3"])
    assert dry.exit_code == 0, dry.output
    assert "requests" in dry.output


def test_every_filter_drops_what_it_is_for_and_the_retry_is_kept(tmp_path, demo_graph):
    out = tmp_path / "set"
    script = SeedScript(mistakes={1: "bad_citation", 2: "paraphrase", 3: "two_right", 4: "off_document", 5: "unsupported"})
    with ScriptedServer(script) as srv:
        res = invoke(srv, demo_graph, out, "--n", "7", "--multi-hop-share", "0", "--max-share", "0.34")
    assert res.exit_code == 0, res.output
    metrics = json.loads((out / "generation" / "metrics.json").read_text())
    assert metrics["drops"] == {"answerable": 2, "citation": 1, "not_duplicate": 1, "support": 1}
    assert (metrics["n_written"], metrics["slots_tried"], metrics["tries"], metrics["slots_given_up"]) == (7, 7, 12, 0)
    records = [json.loads(x) for x in (out / "generation" / "records.jsonl").read_text().splitlines()]
    assert [r["written"]["skipped"] for r in records[7:]] == ["not needed: enough seeds were kept before this slot"] * 4
    reasons = {r["batch_id"]: r["written"]["generation_attempts"][0].get("error", "") for r in records[:7]}
    assert re.fullmatch(r"citation \d+ is not a sentence number of the excerpts \(they are numbered 1 to \d+\)", reasons["s0001"])
    assert reasons["s0002"].startswith("repeats an earlier question (")
    assert "the passages do not support the answer" in reasons["s0003"]
    assert reasons["s0004"].endswith("a reader of them answered that it cannot be determined from them")
    assert reasons["s0005"].startswith("cited sentences do not state the answer 'Zorblax compound' (missing: compound, zorblax)")
    kept = lines(out)
    assert len(kept) == 7 and OFF_DOCUMENT not in [q["question"] for q in kept] and not any(q["question"].startswith("What word fills the gap") for q in kept)
    assert not any("Zorblax" in str(q["options"]) for q in kept)
    # each of the five slots kept its second try, and only that
    assert [len(r["written"]["generation_attempts"]) for r in records[:7]] == [1, 2, 2, 2, 2, 2, 1]


def test_multiple_choice_options_come_from_the_graph_near_the_key(tmp_path, demo_graph):
    from judgeagent.graph import load_graph
    from judgeagent.protocols.seeds.distractors import graph_candidates

    out = tmp_path / "set"
    with ScriptedServer(SeedScript()) as srv:
        res = invoke(srv, demo_graph, out, "--n", "4", "--multi-hop-share", "0", "--max-share", "0.5")
    assert res.exit_code == 0, res.output
    graph = load_graph(demo_graph)
    sources = Counter()
    for line in lines(out):
        key = line["options"][line["answer"]]
        wrong = [v for k, v in line["options"].items() if k != line["answer"]]
        match = graph.resolve_entities([key])[0]
        node = match.entity if match is not None and match.exact else None
        near = dict((shown, name) for name, shown in graph_candidates(graph, node)) if node else {}
        for text, source in zip(wrong, line["distractor_sources"]):
            sources[source] += 1
            if source == "graph":
                # a node of the key's kind, a neighbour (or a neighbour's), not named by the question
                assert text in near and graph.node(near[text])["kind"] == graph.node(node)["kind"]
                assert normal(text) not in normal(line["question"])
            else:
                assert text in ("alpha option", "beta option", "gamma option")
    assert sources["graph"] >= 6 and sum(sources.values()) == 12


def test_short_answer_seeds_from_python_have_no_options(tmp_path, demo_graph):
    import judgeagent

    out = tmp_path / "set"
    script = SeedScript()
    with ScriptedServer(script) as srv:
        result = judgeagent.write_seeds(graph=demo_graph, n=3, writer=f"{srv.base_url}@scripted", out=out, question_type="kqa",
                                        multi_hop_share=0, max_share=0.5, concurrency=1)  # fmt: skip
    assert (result.benchmark, result.run_dir, result.n_written, result.exit_code) == (out, out / "generation", 3, 0)
    bench = load_benchmark(out)
    assert bench.qtype.value == "kqa" and all(q.options is None and q.answer for q in bench.questions)
    assert script.requests == {"seed_phrase": 3, "gate_answer_phrase": 3}


def test_resume_after_a_stop_sends_nothing_twice(tmp_path, demo_graph):
    out = tmp_path / "set"
    with ScriptedServer(SeedScript()) as srv:
        res = invoke(srv, demo_graph, out, "--n", "5", "--max-share", "0.5", "--max-requests", "6")
        assert res.exit_code == 2, res.output
        assert "error: request limit reached: 6 requests sent (--max-requests 6)" in " ".join(res.output.split())
        first = srv.requests
        done = (out / "generation" / "records.jsonl").read_text().splitlines()
        assert 0 < len(done) < 5
        again = invoke(srv, demo_graph, out, "--n", "5", "--max-share", "0.5")
        assert again.exit_code == 0, again.output
        second = srv.requests[len(first):]
    sent = [json.dumps(b["messages"]) + str(b.get("temperature")) for b in first + second]
    assert len(sent) == len(set(sent))  # no request asked twice
    assert Counter(schema_name(b) for b in first + second)["seed_mc"] == 5
    assert len(lines(out)) == 5


def test_evaluate_does_not_run_the_seeds_protocol_and_bad_setup_is_one_line(tmp_path):
    res = CliRunner().invoke(app, ["evaluate", "--protocol", "seeds", "--dry-run"])
    assert res.exit_code == 2 and "--protocol seeds is run by `judgeagent seeds`, not by this command" in res.output
    res = CliRunner().invoke(app, ["seeds", str(tmp_path / "nowhere"), "--out", str(tmp_path / "set")])
    assert res.exit_code == 2 and "no graph here" in res.output and "Traceback" not in res.output
    res = CliRunner().invoke(app, ["seeds", str(tmp_path), "--max-share", "0"])
    assert res.exit_code == 2 and "--max-share must be a number in (0, 1] (got 0)" in res.output


def test_the_audit_of_a_seed_set_marks_each_citation_and_carries_its_rate_into_the_manifest(tmp_path, demo_graph):
    from audit_double import labels_file, read_items

    from judgeagent.data.generic import seed_audit

    out = tmp_path / "set"
    with ScriptedServer(SeedScript()) as srv:
        res = invoke(srv, demo_graph, out, "--n", "6", "--max-share", "0.34")
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, ["audit", str(out), "--sample", "4", "--seed", "1"])
    assert res.exit_code == 0, res.output
    folder = out / "audit"
    items = read_items(folder)
    seeds = {q["id"]: q for q in lines(out)}
    assert len(items) == 4 and {i["ref"].split()[0] for i in items} <= set(seeds)
    for item in items:
        seed = seeds[item["ref"].split()[0]]
        cited = {(c["chunk_id"], c["sentence"]) for c in seed["citations"]}
        assert {(c["chunk_id"], s) for c in item["chunks"] for s in c["cited"]} == cited
        assert item["level"] == seed["difficulty"] and item["gate"]["passed"] is True
    assert 'mark.cited' in (folder / "audit.html").read_text()
    # one of the four labelled wrong: the manifest carries the rate and its interval
    labels = {i["item_id"]: (["wrong key"] if k == 0 else ["valid"]) for k, i in enumerate(items)}
    res = CliRunner().invoke(app, ["audit", "import", str(labels_file(tmp_path / "ana.json", folder, labels))])
    assert res.exit_code == 0, res.output
    block = seed_audit(out)
    assert block is not None and (block["n_labelled"], block["invalid"]["hits"], block["invalid"]["n"]) == (4, 1, 4)
    assert block["invalid"]["ci"][0] < block["invalid"]["estimate"] < block["invalid"]["ci"][1]
    assert json.loads((out / "seeds.json").read_text())["audit"] == block
    # A run made on the seed set reports the set's audit beside its own figures.
    import toy_protocol

    from judgeagent.engine.registry import PROTOCOLS, register

    register(toy_protocol.SecondChance)
    try:
        with ScriptedServer(lambda body: json.dumps({"response": [{"answer": "A"}]})) as target:
            model = f"{target.base_url}@scripted"
            res = CliRunner().invoke(app, ["evaluate", "--protocol", "second-chance", "--target", model, "--judge", model, "--data", str(out),
                                           "--out", str(tmp_path / "run"), "--limit", "2", "--no-report"])  # fmt: skip
    finally:
        PROTOCOLS.pop(toy_protocol.SecondChance.name, None)
    assert res.exit_code == 0, res.output
    assert json.loads((tmp_path / "run" / "metrics.json").read_text())["seed_audit"] == block


@pytest.mark.slow  # a `judgeagent seeds` process of its own, killed: it loads MiniLM before its first request
def test_a_killed_writing_resumes_and_sends_nothing_twice(tmp_path, demo_graph):
    import os
    import signal
    import subprocess
    import sys
    import threading

    out = tmp_path / "set"
    held, release = threading.Event(), threading.Event()
    script = SeedScript()

    def responder(body: dict) -> str:
        if sum(script.requests.values()) == 7:  # the 8th request: held until the process is killed
            held.set()
            release.wait(120)
        return script(body)

    with ScriptedServer(responder) as srv:
        args = ["seeds", str(demo_graph), "--writer", f"{srv.base_url}@scripted", "--out", str(out), "--concurrency", "1", "--n", "6",
                "--max-share", "0.34"]  # fmt: skip
        command = [sys.executable, "-c", "from judgeagent.cli.app import main; main()", *args]
        proc = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            assert held.wait(240), "the writing never reached its 8th request"
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(60)
        finally:
            release.set()
            if proc.poll() is None:
                proc.kill()
        first = srv.requests
        assert len(first) == 8 and len((out / "generation" / "records.jsonl").read_text().splitlines()) < 6
        res = invoke(srv, demo_graph, out, "--n", "6", "--max-share", "0.34")
        assert res.exit_code == 0, res.output
        second = srv.requests[len(first):]
    key = lambda b: json.dumps(b["messages"]) + str(b.get("temperature"))  # noqa: E731
    # Only the request the kill cut off (never answered to the writer) is sent again.
    assert [key(b) for b in second if key(b) in {key(a) for a in first}] == [key(first[-1])]
    assert len(lines(out)) == 6


def test_with_the_batch_api_every_request_goes_in_waves_and_the_seeds_are_the_same(tmp_path, demo_graph):
    from batch_server import BatchServer, JobScript

    quick = JobScript(validating_s=0.01, in_progress_s=0.02, finalizing_s=0.01)
    flags = ("--n", "4", "--max-share", "0.5", "--reserve", "0")
    with BatchServer(SeedScript(), default=quick) as srv:
        live = invoke(srv, demo_graph, tmp_path / "live", *flags)
        live_requests = len(srv.requests)
        srv.reset()
        srv.responder = SeedScript()
        batched = invoke(srv, demo_graph, tmp_path / "batch", *flags, "--batch-api", "--batch-api-poll-s", "0.01")
        jobs, chat_requests = srv.custom_ids, len(srv.requests)
    assert live.exit_code == 0, live.output
    assert batched.exit_code == 0, batched.output
    assert chat_requests == 0 and sum(len(j) for j in jobs) == live_requests
    assert max(len(j) for j in jobs) == 4  # the first wave: the four slots' writings at once
    assert lines(tmp_path / "batch") == lines(tmp_path / "live")


def test_a_writing_that_keeps_nothing_writes_no_set_and_exits_4(tmp_path, demo_graph):
    out = tmp_path / "set"
    with ScriptedServer(SeedScript(mistakes={0: "off_document", 1: "off_document"}, off_document_retries=True)) as srv:
        script = srv.responder
        res = invoke(srv, demo_graph, out, "--n", "1", "--reserve", "0", "--generation-tries", "3")
    assert res.exit_code == 4, res.output
    said = " ".join(res.output.split())
    assert "0 of 1 seed questions kept, from 1 slots tried (3 tries; dropped by filter: answerable 3)" in said
    # refused three times for the same reason, yet three requests written: none replayed from the journal
    assert script.requests["seed_mc"] == 3
    assert "no seed kept, so no seed set written" in said
    assert not (out / "questions.jsonl").exists()
    assert json.loads((out / "generation" / "metrics.json").read_text())["status"] == "nothing_answered"


@pytest.mark.slow  # a real headless Chromium
def test_the_audit_page_highlights_every_citation_of_every_seed_in_chromium(tmp_path, demo_graph):
    from audit_double import read_items
    from browser import Browser, need_browser

    need_browser()
    out = tmp_path / "set"
    with ScriptedServer(SeedScript()) as srv:
        res = invoke(srv, demo_graph, out, "--n", "4", "--multi-hop-share", "0.5", "--max-share", "0.5")
    assert res.exit_code == 0, res.output
    res = CliRunner().invoke(app, ["audit", str(out), "--sample", "4", "--seed", "0"])
    assert res.exit_code == 0, res.output
    items = read_items(out / "audit")
    seeds = {q["id"]: q for q in lines(out)}
    b = Browser()
    try:
        b.open((out / "audit" / "audit.html").resolve().as_uri(), 1280, 900)
        for k, item in enumerate(items):
            if k:
                b.press("ArrowRight")
            marked = b.js("[...document.querySelectorAll('#chunks mark.cited')].map(m => m.textContent)")
            cited = [c["sentence"] for c in seeds[item["ref"].split()[0]]["citations"]]
            assert sorted(normal(m) for m in marked) == sorted(normal(c) for c in cited), (k, marked, cited)
        assert b.errors() == []
    finally:
        b.close()
