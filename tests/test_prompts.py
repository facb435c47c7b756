"""Every prompt and reply schema lives in judgeagent/prompts: each template fills, shows the model
no placeholder, and is sent by some stage; each schema is well-formed JSON Schema with a name.
Then the prompts of the quality gate and of phrase answers (issue 15 §4), against the
scripted judge behind the scripted server."""

from __future__ import annotations

import asyncio
import json
import random
import re
from contextlib import contextmanager, suppress

import numpy as np
import pytest
from interview_double import RIGHT, WRONGS, Script, schema_name
from scripted_server import ScriptedServer

from judgeagent import prompts
from judgeagent.config import LLMConfig
from judgeagent.data.benchmark import DIFFICULTIES, Question, QuestionType
from judgeagent.errors import CallFailed
from judgeagent.graph.llm_extract import LLMExtractor
from judgeagent.llm import LLMClient, LLMResult
from judgeagent.llm.registry import ModelSpec
from judgeagent.llm.structured import ParseError, parse_structured
from judgeagent.prompts import schemas
from judgeagent.records import InterviewRecord, QuestionRecord
from judgeagent.stages import decontaminate, extension, feedback, gate, grading, leak_judge, leakage
from judgeagent.stages.gate import QualityGate
from judgeagent.stages.models import Models
from judgeagent.stages.summary import summary_prompt

KMC, KQA, RMC = QuestionType.KMC, QuestionType.KQA, QuestionType.RMC
UNFILLED = re.compile(r"\$(?:\{[^}]*\}?|\w)")  # ${name}, a broken ${, or $name
PLACEHOLDER = re.compile(r"<[A-Za-z][^<>\n]{0,60}>")  # <letter>, <your new question>, ...

MC = Question("m1", "Which ion rises when the kidneys fail?", "B", {"A": "Sodium", "B": "Potassium", "C": "Calcium", "D": "Chloride"}, "easy")
QA = Question("p1", "Which company did Jane Roe found in 2015?", "Acme Corp", None, "easy")
CONTEXT = "Jane Roe founded Acme Corp in 2015. Potassium rises when the kidneys fail."


def problems(text: str) -> list[str]:
    """What a model must never be shown: an unfilled field or a <placeholder>."""
    return UNFILLED.findall(text) + PLACEHOLDER.findall(text)


# --------------------------------------------------------------------------- templates


@pytest.mark.parametrize("name", prompts.names())
def test_every_template_fills_every_field_and_shows_no_placeholder(name):
    values = {f: f"[{f} sample]" for f in prompts.fields(name)}
    text = prompts.render(name, **values)
    assert problems(text) == []
    assert [f for f, v in values.items() if v not in text] == []
    assert text == text.strip() and text


def test_a_missing_value_names_the_field():
    with pytest.raises(KeyError, match="question"):
        prompts.render("gate_answer_phrase", passages="[1] a passage")


class Capture:
    """A Models-like judge that records what it is sent and answers nothing usable, so that
    every stage also sends its retry prompt."""

    judge = ModelSpec("capture", "http://127.0.0.1:9/v1", "capture-model")  # for costing

    def __init__(self):
        self.sent: list[tuple[list[dict], dict | None]] = []

    async def ask_judge(self, messages, *, schema, stage, max_tokens, temperature=0.0):
        self.sent.append((messages, schema))
        return LLMResult(ok=False, text="", error="scripted failure")

    async def chat(self, spec, messages, *, schema, stage, max_tokens):  # the LLM extractor's client
        return await self.ask_judge(messages, schema=schema, stage=stage, max_tokens=max_tokens)

    def recall(self, key):
        return None

    def remember(self, key, value):
        pass


def protocol_prompts() -> list[list[dict]]:
    """Every message the protocols' roles send (judgeagent/protocols/)."""
    from judgeagent.protocols import dialogue
    from judgeagent.protocols import interviewer as iv
    from judgeagent.protocols import kieval as kv
    from judgeagent.protocols.seeds import writer as seeds

    history = [("Which ion rises?", "Potassium, because the kidneys fail.")]
    turns = [iv.FollowUpTurn(kind="rationale", question="Why?", reply="Because."), iv.FollowUpTurn(kind="clarification", question="What is it?", reply="This.")]
    wrong = grading.Answer("m1", "A", "A", False, "letter")
    return [
        dialogue.reply_messages(history, "Why?"),
        kv.interactor_messages(MC, CONTEXT, history, 1),
        kv.evaluator_messages(MC, CONTEXT, history, "Why?", "Because."),
        iv.feedback_messages(MC, wrong, ["Think about the kidney."]),
        grading.answer_messages(KMC, [MC], suggestions=iv.revision_advice(["A"], "Think about the kidney.")),
        iv.followup_messages(MC, "Examiner: Which ion rises?\nCandidate: A"),
        iv.grade_messages(MC, turns),
        iv.report_messages("- score 3: Which ion rises? | answers: right"),
        seeds.writing_messages(KMC, "easy", "[1] (kidney) Potassium rises.", domain="medical"),
        seeds.writing_messages(KQA, "hard", "[1] (kidney) Potassium rises.\n[2] (heart) The rhythm changes.", domain="medical"),
        seeds.retry_messages(seeds.writing_messages(KMC, "easy", "Excerpt 1 (about kidney):\n[1] Potassium rises when the kidneys fail.",
                                                    domain="medical"), ["no citation", "no citation"]),
    ]


def audit_prompts() -> list[list[dict]]:
    """The model auditor's second step (its first is the gate reader's), for MC and phrase items."""
    from judgeagent.audit import auditor
    from judgeagent.audit.items import AuditItem, SourceChunk

    out = []
    for q in (MC, QA):
        item = AuditItem(q.id, "b1 round 1", "kmc" if q.options else "kqa", q.question, q.options, q.answer, "easy", None, "passed", "b1",
                         chunks=[SourceChunk("c1", CONTEXT)])  # fmt: skip
        blind = auditor.blind_messages(item)
        out.append(auditor.key_messages(item, blind, '{"answer": "B"}'))
    return out


def every_stage_prompt(judge: Capture) -> list[list[dict]]:
    """Every kind of message the stages send, for each question type, mode and block."""
    built = [grading.answer_messages(t, [q], context=CONTEXT, passages="[1] (kidney) Potassium rises.", suggestions="Recall the kidney.") for t, q in ((KMC, MC), (KQA, QA))]
    built += [grading.answer_messages(KQA, [QA])]
    built += [gate.answer_messages(MC, KMC, [CONTEXT, CONTEXT]), gate.answer_messages(QA, KQA, [CONTEXT])]
    built += [extension.generation_messages(t, level, CONTEXT, domain="medical") for t in QuestionType for level in DIFFICULTIES]
    built += [decontaminate.rewrite_messages(q, t, mode, ctx) for q, t in ((MC, KMC), (QA, KQA)) for mode in decontaminate.MODES for ctx in (None, CONTEXT)]
    built += [summary_prompt([InterviewRecord(batch_id="b1", seed=[QuestionRecord(id="m1", question="", answer="")])])]
    built += audit_prompts()
    built += protocol_prompts()

    async def ask_everything():
        for q, t in ((MC, KMC), (QA, KQA)):
            await decontaminate.verify(judge, q, t, CONTEXT)
            await decontaminate.ask_rewrite(judge, q, t, "paraphrase", None)
        with suppress(CallFailed):  # an unreadable verdict leaves the batch incomplete
            await grading.judge_phrase(judge, QA, "Initech")
        item = feedback.RecordItem("seed", MC.question, MC.options, "B", "A", False, "easy")
        await feedback.evaluate_batch(judge, [item])
        await leakage.guard_suggestions(judge, "Remember that the answer is Potassium.", [MC])
        await leak_judge.judge_leak_check(judge, "Recall the kidney.", [MC])
        await LLMExtractor("scripted")._extract_one(judge, None, CONTEXT)
        await extension.generate_question(
            judge, KMC, "easy", CONTEXT, qid="b1-r1", rng=random.Random(0), domain="medical", avoid=[], tries=2
        )

    asyncio.run(ask_everything())
    return built + [msgs for msgs, _ in judge.sent]


def test_every_prompt_a_stage_sends_is_filled_and_every_template_is_sent(monkeypatch):
    used: set[str] = set()
    template = prompts._template

    def recording(name):
        used.add(name)
        return template(name)

    monkeypatch.setattr(prompts, "_template", recording)
    judge = Capture()
    sent = every_stage_prompt(judge)
    # built: 3 answer + 2 gate + 9 generation + 12 rewrite + 1 summary + 2 audit + 11 protocol roles; sent:
    # 2 verify + 2×2 rewrite tries + 1 phrase judge + 1 feedback + 1 leak rewrite + 2 leak checks
    # (the capture's verdict is unreadable, so it is asked once more) + 1 extraction + 2 generation tries
    assert len(sent) == 40 + 14
    assert [(m["role"], problems(m["content"])) for msgs in sent for m in msgs if problems(m["content"])] == []
    # The rules were rendered when extension.py was imported.
    rules = set(extension.LEVEL_RULES.values()) | set(extension.TYPE_RULES.values())
    used |= {n for n in prompts.names() if n.startswith(("level_", "type_")) and prompts.render(n) in rules}
    assert sorted(set(prompts.names()) - used) == []
    # Every schema a stage sent is one of the named ones.
    titles = {s["title"] for s in every_schema()}
    assert sorted({s["title"] for _, s in judge.sent} - titles) == []


# --------------------------------------------------------------------------- schemas

KEYWORDS = {"title", "type", "properties", "required", "items", "enum", "minItems", "maxItems", "additionalProperties"}
TYPES = {"object", "array", "string", "integer", "number", "boolean", "null"}


def every_schema() -> list[dict]:
    fixed = [v for k, v in vars(schemas).items() if not k.startswith("_") and isinstance(v, dict)]
    made = [schemas.answer_batch(3, ["A", "B", "C", "D"]), schemas.answer_batch(2, None)]
    made += [schemas.decon_verify(["A", "B", "C", "D"]), schemas.decon_verify(None)]
    return fixed + made


def schema_errors(s: object, path: str = "$") -> list[str]:
    """Where ``s`` breaks JSON Schema, within the subset this project uses (no jsonschema here)."""
    if not isinstance(s, dict):
        return [f"{path}: not an object"]
    errors = [f"{path}: unknown keyword {k!r}" for k in s if k not in KEYWORDS]
    t = s.get("type")
    if t not in TYPES:
        return errors + [f"{path}: type {t!r}"]
    if t == "object":
        props = s.get("properties")
        if not isinstance(props, dict) or not props:
            return errors + [f"{path}: no properties"]
        for key, sub in props.items():
            errors += schema_errors(sub, f"{path}.{key}")
        required = s.get("required", [])
        if not isinstance(required, list) or len(set(required)) != len(required) or not set(required) <= set(props):
            errors.append(f"{path}: required {required!r} is not a list of its properties")
    if t == "array":
        errors += schema_errors(s.get("items"), f"{path}[]")
        lo, hi = s.get("minItems", 0), s.get("maxItems", s.get("minItems", 0))
        if not (isinstance(lo, int) and isinstance(hi, int) and 0 <= lo <= hi):
            errors.append(f"{path}: minItems {lo!r} / maxItems {hi!r}")
    if "enum" in s:
        enum = s["enum"]
        if not isinstance(enum, list) or not enum or len(set(enum)) != len(enum) or not all(isinstance(e, str) for e in enum):
            errors.append(f"{path}: enum {enum!r}")
    return errors


def sample(s: dict) -> object:
    """The smallest reply that fits ``s``."""
    if s["type"] == "object":
        return {k: sample(s["properties"][k]) for k in s.get("required", [])}
    if s["type"] == "array":
        return [sample(s["items"]) for _ in range(s.get("minItems", 0))]
    if s["type"] == "integer":
        return 1
    return s["enum"][0] if "enum" in s else "x"


@pytest.mark.parametrize("schema", every_schema(), ids=lambda s: s.get("title", "untitled"))
def test_every_schema_is_valid_and_named(schema):
    assert schema_errors(schema) == []
    # The client sends the title as the json_schema name, which allows [A-Za-z0-9_-] up to 64.
    assert re.fullmatch(r"[a-z][a-z0-9_]{0,63}", schema.get("title", "")), schema
    # Our validator accepts the smallest fitting reply and rejects it without a required field.
    reply = sample(schema)
    assert parse_structured(json.dumps(reply), schema) == reply
    missing = {k: v for k, v in reply.items() if k != schema["required"][0]}
    with pytest.raises(ParseError, match=f"missing required property '{schema['required'][0]}'"):
        parse_structured(json.dumps(missing), schema)


def test_schema_names_are_unique():
    named = [v["title"] for k, v in vars(schemas).items() if not k.startswith("_") and isinstance(v, dict)]
    made = {schemas.answer_batch(1, None)["title"], schemas.decon_verify(None)["title"]}
    assert len(named) == len(set(named)) and sorted(made & set(named)) == []
    # A factory names its schema the same whatever its arguments.
    assert schemas.answer_batch(3, ["A", "B"])["title"] == schemas.answer_batch(1, None)["title"] == "answer_batch"
    assert schemas.decon_verify(["A", "B"])["title"] == schemas.decon_verify(None)["title"] == "decon_verify"


def test_the_scripted_judge_keys_on_the_schema_name_not_the_wording():
    script = Script()
    reworded = [{"role": "system", "content": "Entirely new wording."}, {"role": "user", "content": "Anything."}]
    remote = {"messages": reworded, "response_format": {"type": "json_schema", "json_schema": {"name": "feedback", "schema": schemas.FEEDBACK}}}
    llama = {"messages": reworded, "response_format": {"type": "json_object", "schema": schemas.FEEDBACK}}
    assert schema_name(remote) == schema_name(llama) == "feedback"
    assert json.loads(script(remote)) == json.loads(script(llama))
    assert sorted(json.loads(script(llama))) == sorted(schemas.FEEDBACK["required"])
    assert json.loads(script({"messages": reworded})) == {"error": "unexpected reply schema ''"}


# --------------------------------------------------------------------------- issue 15 §4


class Flat:
    """An embedder under which no two questions are alike: the similarity checks pass."""

    def encode(self, texts):
        out = np.zeros((len(texts), 64), dtype=np.float32)
        for i, t in enumerate(texts):
            out[i, hash(t) % 64] = 1.0
        return out


@contextmanager
def scripted(script: Script):
    with ScriptedServer(script) as srv:
        yield srv, ModelSpec("scripted", srv.base_url, "scripted-model")


def with_models(spec: ModelSpec, work):
    async def go():
        async with LLMClient(None, LLMConfig(timeout_s=10.0), backoff_base=0.01) as client:
            return await work(Models(client, spec, spec))

    return asyncio.run(go())


def gate_check(spec, question, qtype, level, texts):
    return with_models(spec, lambda models: QualityGate(models, Flat(), []).check(question, qtype, level, texts))


FOLLOW_MC = Question("f1", "Which ion does drug X raise?", "C", {"A": WRONGS[0], "B": WRONGS[1], "C": RIGHT, "D": WRONGS[2]}, "hard")
FOLLOW_QA = Question("f2", "Which ion does drug X raise?", RIGHT, None, "hard")
PASSAGES = ["[fact-one] Drug X blocks the channel ENaC.", "[fact-two] Blocking ENaC raises serum potassium."]


@pytest.mark.parametrize("question, qtype, schema", [(FOLLOW_MC, KMC, "gate_answer_mc"), (FOLLOW_QA, KQA, "gate_answer_phrase")])
def test_cannot_be_determined_from_the_passages_fails_answerable(question, qtype, schema):
    with scripted(Script()) as (srv, spec):
        v = gate_check(spec, question, qtype, "medium", PASSAGES[:1])
        sent = srv.requests
    assert {c.name: c.passed for c in v.checks}["answerable"] is False
    assert v.reasons == [f"the passages do not support the answer {question.answer_text!r}: a reader of them answered that it cannot be determined from them"]
    assert [schema_name(b) for b in sent] == [schema]
    prompt = sent[0]["messages"][-1]["content"]
    assert 'answer "cannot be determined"' in prompt and "best guess" not in prompt
    if qtype is KMC:
        assert sent[0]["response_format"]["json_schema"]["schema"]["properties"]["answer"]["enum"] == ["A", "B", "C", "D", "cannot be determined"]


@pytest.mark.parametrize("question, qtype", [(FOLLOW_MC, KMC), (FOLLOW_QA, KQA)])
def test_needs_hops_expects_cannot_be_determined_with_a_passage_removed(question, qtype):
    with scripted(Script()) as (srv, spec):
        v = gate_check(spec, question, qtype, "hard", PASSAGES)
        sent = len(srv.requests)
    checks = {c.name: (c.passed, c.reason) for c in v.checks}
    assert checks["answerable"] == (True, "")
    assert checks["needs_hops"] == (True, "cannot be determined without passage 1")
    assert v.passed and not v.single_hop and sent == 2


@pytest.mark.parametrize(
    "text, reason",
    [
        ("According to the passage, which ion rises when the kidneys fail?", "refers to 'the passage', which the target never sees"),
        ("What does the text say about warfarin?", "refers to 'the text', which the target never sees"),
        ("In the article above, who founded Acme Corp?", "refers to 'the article', which the target never sees"),
        ("Which drug do these passages describe?", "refers to 'these passages', which the target never sees"),
        ("Which company does the given excerpt name?", "refers to 'the given excerpt', which the target never sees"),
        ("Which right does the text of the First Amendment protect?", ""),
        ("What did the article by Reuters report about Acme Corp?", ""),
        ("Which ion rises when the kidneys fail?", ""),
    ],
)
def test_knowledge_questions_must_not_point_at_their_source(text, reason):
    for qtype in (KMC, KQA):
        check = gate.self_contained(Question("x", text, "B"), qtype)
        assert (check.name, check.passed, check.reason) == ("self_contained", not reason, reason)
    # A reading question's target reads the text: the check is not run.
    assert gate.self_contained(Question("x", text, "B"), RMC).passed is None


def test_a_question_about_the_passage_is_rejected_before_any_judge_call():
    pointing = Question("f3", "According to the passage, which ion does drug X raise?", "C", dict(FOLLOW_MC.options), "hard")
    with scripted(Script()) as (srv, spec):
        v = gate_check(spec, pointing, KMC, "hard", PASSAGES)
        assert srv.requests == []
    assert v.reasons == ["refers to 'the passage', which the target never sees"]
    assert {c.name: c.passed for c in v.checks} == {
        "well_formed": True, "self_contained": False, "not_seed_copy": None, "not_duplicate": None, "answerable": None, "needs_hops": None
    }  # fmt: skip
    # The same question about a text the target reads goes on to the judge.
    with scripted(Script()) as (srv, spec):
        assert gate_check(spec, pointing, RMC, "medium", PASSAGES).passed
        assert [schema_name(b) for b in srv.requests] == ["gate_answer_mc"]
    # And the generation prompt of a knowledge question says so.
    rule = "never refer to a passage, text or article"
    assert [rule in extension.generation_messages(t, "hard", CONTEXT, domain="news")[1]["content"] for t in (KMC, KQA, RMC)] == [True, True, False]


NULL = Question("n1", "Did the Verge report Acme Corp's merger before TechCrunch did?", "Insufficient information.", None, "hard")


def ask_seed(question: Question, said: str):
    script = Script(seed_plan={question.question: (True, True)}, answers={question.question: said})
    with scripted(script) as (srv, spec):
        answers = with_models(spec, lambda models: grading.ask_batch(models, KQA, [question], stage="seed"))
        return answers, srv.requests


@pytest.mark.parametrize("said, rule", [("insufficient information", "exact"), ("Not enough information.", "null")])
def test_a_null_query_is_graded_right_when_the_target_says_so(said, rule):
    answers, sent = ask_seed(NULL, said)
    assert [(a.correct, a.graded_by, a.error) for a in answers] == [(True, rule, None)]
    assert [schema_name(b) for b in sent] == ["answer_batch"]  # no judge needed
    assert 'answer "insufficient information"' in sent[0]["messages"][-1]["content"]


def test_insufficient_information_for_an_answerable_question_is_wrong():
    answers, sent = ask_seed(QA, "insufficient information")
    assert [(a.correct, a.graded_by) for a in answers] == [(False, "f1")]
    assert [schema_name(b) for b in sent] == ["answer_batch"]


def test_multiple_choice_answer_prompts_offer_no_null_answer():
    user = grading.answer_messages(KMC, [MC])[1]["content"]
    assert "insufficient information" not in user and "the letter of the option you choose" in user


def test_the_scripted_judge_knows_the_schema_when_the_server_takes_no_response_format():
    """A server that takes no response_format gets the schema only described in the system
    message; the double reads the name from that description."""
    with ScriptedServer(Script()) as srv:
        spec = ModelSpec("scripted", srv.base_url, "scripted-model", response_format="none")
        v = gate_check(spec, FOLLOW_MC, KMC, "hard", PASSAGES)
        answers = with_models(spec, lambda models: grading.ask_batch(models, KMC, [FOLLOW_MC], stage="followup"))
        sent = srv.requests
    assert [("response_format" in b, schema_name(b)) for b in sent] == [(False, "gate_answer_mc")] * 2 + [(False, "answer_batch")]
    assert v.passed and not v.single_hop
    assert [(a.chosen, a.correct) for a in answers] == [("C", True)]
