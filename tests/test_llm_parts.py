"""Each layer of the model client alone: thinking, request, sender, retry policy,
negotiation, circuit breaker, store and usage. No server: pure functions and small objects."""

from __future__ import annotations

import asyncio
import sqlite3
import threading

import pytest

from judgeagent.llm.breaker import CircuitBreaker, CircuitOpen
from judgeagent.llm.journal import Entry, Journal, request_key
from judgeagent.llm.negotiation import ModelState
from judgeagent.llm.outcome import Failure, FailureKind, Reply
from judgeagent.llm.registry import ModelSpec
from judgeagent.llm.request import ChatRequest, Wire
from judgeagent.llm.retry import RetryPolicy
from judgeagent.llm.sender import failure_from_status, reply_from
from judgeagent.llm.store import AnswerStore
from judgeagent.llm.thinking import reasoning_share, split_thinking
from judgeagent.llm.usage import CallRecord, TokenUsage, UsageTracker, journal_usage

SPEC = ModelSpec("m", "http://h/v1", "model-x", temperature=0.3, max_tokens=100)
SCHEMA = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
MSGS = [{"role": "user", "content": "q"}]


# --------------------------------------------------------------------------- thinking


def test_terminated_think_blocks_are_removed_with_their_json():
    content = '<think>Draft: {"answer": "E"} -- no, {"A": 1}</think>\n\n{"answer": "B"}'
    assert split_thinking(content) == ('{"answer": "B"}', 'Draft: {"answer": "E"} -- no, {"A": 1}', False)


def test_a_block_opened_by_the_chat_template_ends_at_the_closing_tag():
    assert split_thinking('weigh {"x": 1} first</think>{"answer": "C"}') == ('{"answer": "C"}', 'weigh {"x": 1} first', False)


def test_an_unterminated_block_leaves_no_answer():
    assert split_thinking('<think>{"answer": "E"} and more') == ("", '{"answer": "E"} and more', True)


def test_content_without_thinking_is_unchanged():
    assert split_thinking(' {"answer": "A"} ') == ('{"answer": "A"}', "", False)


def test_reasoning_share_splits_completion_tokens_by_words():
    assert reasoning_share(40, "a b c d e f", "x y") == 30
    assert reasoning_share(0, "a b c", "x") == 3  # no count from the server: words stand in
    assert reasoning_share(10, "", "x") == 0


# --------------------------------------------------------------------------- request


def test_request_takes_the_specs_sampling_and_budget_when_the_stage_leaves_them_out():
    req = ChatRequest.build(SPEC, MSGS)
    assert (req.temperature, req.max_tokens, req.seed) == (0.3, 100, 0)
    again = ChatRequest.build(SPEC, MSGS, temperature=0.7, max_tokens=40)
    assert (again.temperature, again.max_tokens) == (0.7, 40)


def test_request_key_is_the_journal_key_of_the_chosen_identity():
    req = ChatRequest.build(SPEC, MSGS, schema=SCHEMA, temperature=0.0, max_tokens=40, seed=1)
    assert req.key == request_key(SPEC.identity, MSGS, temperature=0.0, max_tokens=40, schema=SCHEMA, seed=1)
    pinned = ModelSpec("m", "http://h/v1", "model-x", extra_body={"enable_thinking": False})
    other = ChatRequest.build(pinned, MSGS, schema=SCHEMA, temperature=0.0, max_tokens=40, seed=1)
    assert other.key != req.key  # what extra_body asks changes the answer
    assert other.journal_record()["extra_body"] == {"enable_thinking": False}


def test_request_keys_are_the_ones_older_journals_were_written_with():
    # Pinned hashes of the canonical JSON (sorted keys, no spaces, UTF-8) of every field: a
    # faster way to make the key must not make a journal's answers unreachable.
    msgs = [{"role": "user", "content": 'Qué é "q"\n中'}]
    key = request_key("m@http://h/v1#model-x", msgs, temperature=0.0, max_tokens=40, schema=SCHEMA, seed=1)
    assert key == "927c51e62842b040f41a41a65edee0812d58d3300713b256cee920f8565f6573"
    full = request_key("m@http://h/v1#model-x", msgs, temperature=0.0, max_tokens=40, schema=SCHEMA, seed=1,
                       variant="plain re-ask", extra_body={"enable_thinking": False, "top_k": 20})  # fmt: skip
    assert full == "8e1d72d7214a01537b471f3787663e15295049a870a7170330d1cf8877e14b9e"


def test_body_says_the_request_the_way_the_wire_wants():
    spec = ModelSpec("m", "http://h/v1", "model-x", extra_body={"enable_thinking": False, "top_k": 20})
    req = ChatRequest.build(spec, MSGS, schema=SCHEMA, temperature=0.0, max_tokens=40, seed=3)
    convo = req.conversation()
    wire = Wire(form="json_object", token_param="max_completion_tokens", limit=2088, temperature=1.0,
                added={"chat_template_kwargs": {"enable_thinking": False}}, dropped=frozenset({"top_k"}))  # fmt: skip
    assert req.body(convo, wire) == {
        "model": "model-x", "messages": convo, "temperature": 1.0, "max_completion_tokens": 2088,
        "response_format": {"type": "json_object"}, "seed": 3,
        "chat_template_kwargs": {"enable_thinking": False}, "enable_thinking": False,
    }  # fmt: skip
    assert convo[0]["role"] == "system" and convo[1:] == MSGS
    plain = req.body(MSGS, Wire(form="none", send_seed=False, limit=40, send_temperature=False))
    assert plain == {"model": "model-x", "messages": MSGS, "max_tokens": 40, "enable_thinking": False, "top_k": 20}


# --------------------------------------------------------------------------- sender


def test_openai_refusal_names_its_parameter():
    f = failure_from_status(400, {"error": {
        "message": "Unsupported parameter: 'max_tokens' is not supported with this model. Use 'max_completion_tokens' instead.",
        "type": "invalid_request_error", "param": "max_tokens", "code": "unsupported_parameter"}})  # fmt: skip
    assert (f.kind, f.param, f.code, f.status) == (FailureKind.REFUSED_PARAMETER, "max_tokens", "unsupported_parameter", 400)
    assert f.message.endswith("(param=max_tokens, code=unsupported_parameter)")


def test_zhipu_429_is_a_rate_limit_unless_its_code_says_quota():
    headers = {"retry-after": "3"}
    busy = failure_from_status(429, {"error": {"code": "1302", "message": "您当前使用该API的并发数过高"}}, headers)
    assert (busy.kind, busy.code, busy.retry_after) == (FailureKind.RATE_LIMITED, "1302", 3.0)
    broke = failure_from_status(429, {"error": {"code": "1113", "message": "您的账户已欠费，请充值后重试"}})
    assert broke.kind is FailureKind.QUOTA


@pytest.mark.parametrize(
    "status, body, kind",
    [
        (401, {"error": {"message": "invalid api key"}}, FailureKind.AUTH),
        (503, "upstream down", FailureKind.SERVER_ERROR),
        (400, {"error": {"code": "invalid_parameter_error", "param": None, "message": "参数错误"}}, FailureKind.REFUSED_PARAMETER),
        (400, {"error": {"message": "Bad Request"}}, FailureKind.BAD_REQUEST),
    ],
)
def test_status_kinds(status, body, kind):
    assert failure_from_status(status, body).kind is kind


def test_retry_after_ms_wins():
    assert failure_from_status(429, {}, {"retry-after-ms": "250", "retry-after": "9"}).retry_after == 0.25


def completion(message: dict, usage: dict | None = None, finish="stop", model="served-1") -> dict:
    resp = {"model": model, "choices": [{"message": {"role": "assistant", **message}, "finish_reason": finish}]}
    if usage is not None:
        resp["usage"] = usage
    return resp


def test_reasoning_fields_are_thinking_never_the_answer():
    for field in ("reasoning_content", "reasoning"):
        r = reply_from(completion({"content": '{"answer": "B"}', field: 'maybe {"answer": "E"}'},
                                  {"prompt_tokens": 5, "completion_tokens": 12}), MSGS)  # fmt: skip
        assert (r.text, r.thinking, r.served_model) == ('{"answer": "B"}', 'maybe {"answer": "E"}', "served-1")
        assert r.tokens == TokenUsage(5, 12, 7)  # 3 of 5 words were thinking: 12 * 3 / 5, rounded


def test_hidden_reasoning_tokens_are_taken_from_usage_details():
    usage = {"prompt_tokens": 5, "completion_tokens": 160, "completion_tokens_details": {"reasoning_tokens": 160}}
    r = reply_from(completion({"content": ""}, usage, finish="length"), MSGS)
    assert (r.text, r.cut_short, r.reasons, r.tokens) == ("", True, True, TokenUsage(5, 160, 160))


def test_inline_thinking_cut_off_by_the_limit():
    r = reply_from(completion({"content": "<think>{ a b"}, {"prompt_tokens": 1, "completion_tokens": 4}, "length"), MSGS)
    assert (r.text, r.thinking, r.thinking_unterminated, r.tokens.reasoning_tokens) == ("", "{ a b", True, 4)


def test_a_body_without_choices_is_malformed_and_without_usage_is_counted_in_words():
    assert reply_from({"object": "error"}, MSGS).kind is FailureKind.MALFORMED
    r = reply_from(completion({"content": "<think>one two</think>three"}), [{"role": "user", "content": "a b c"}])
    assert r.tokens == TokenUsage(3, 3, 2)


# --------------------------------------------------------------------------- retry policy


def test_policy_retries_transient_kinds_only():
    p = RetryPolicy(max_attempts=3, backoff_base=1.0, backoff_max=30.0)
    for kind in (FailureKind.SERVER_ERROR, FailureKind.TIMEOUT, FailureKind.UNREACHABLE, FailureKind.MALFORMED):
        assert 0.5 <= p.delay(Failure(kind, "x"), 1) <= 1.0
        assert p.delay(Failure(kind, "x"), 3) is None  # the cap
    for kind in (FailureKind.AUTH, FailureKind.QUOTA, FailureKind.BAD_REQUEST, FailureKind.REFUSED_PARAMETER, FailureKind.TRUNCATED):
        assert p.delay(Failure(kind, "x"), 1) is None


def test_retry_after_wins_and_rate_limits_are_waited_out_within_patience():
    p = RetryPolicy(max_attempts=2, max_wait=60.0, rate_limit_patience=100.0)
    limited = Failure(FailureKind.RATE_LIMITED, "429", retry_after=30.0)
    assert p.delay(limited, 1) == 30.0
    assert p.delay(limited, 5, waited=60.0) == 30.0  # past max_attempts, still within patience
    assert p.delay(limited, 5, waited=90.0) is None
    assert p.delay(Failure(FailureKind.RATE_LIMITED, "429", retry_after=900.0), 1) == 60.0


# --------------------------------------------------------------------------- negotiation


def state(**kw) -> ModelState:
    async def make():
        return ModelState.for_spec(ModelSpec("m", "http://h/v1", "x", **kw))

    return asyncio.run(make())


def body_for(st: ModelState, schema=SCHEMA, seed=0) -> dict:
    req = ChatRequest.build(st.spec, MSGS, schema=schema, temperature=0.0, max_tokens=40, seed=seed)
    return req.body(req.conversation(), st.wire(req))


def refused(param=None, message="Bad Request", code=None, status=400) -> Failure:
    return failure_from_status(status, {"error": {"message": message, "param": param, "code": code}})


def test_max_tokens_refusal_switches_to_max_completion_tokens():
    st = state()
    assert st.learn(refused("max_tokens", "Use 'max_completion_tokens' instead.", "unsupported_parameter"), body_for(st))
    assert "max_completion_tokens" in body_for(st) and "max_tokens" not in body_for(st)


def test_temperature_refusal_fixes_the_allowed_value_and_marks_the_model_sampled():
    st = state()
    msg = "Unsupported value: 'temperature' does not support 0.0 with this model. Only the default (1) value is supported."
    assert st.learn(refused("temperature", msg, "unsupported_value"), body_for(st))
    assert body_for(st)["temperature"] == 1.0 and st.sampled
    assert not state().sampled and state(temperature=0.7).sampled  # a spec may ask for samples itself


def test_a_chinese_refusal_naming_enable_thinking_adds_it():
    st = state()
    assert st.learn(refused(None, "parameter.enable_thinking must be set to false for non-streaming calls", "invalid_parameter_error"), body_for(st))
    assert body_for(st)["enable_thinking"] is False


def test_a_refusal_naming_nothing_leaves_out_one_option_after_another():
    st = state()
    zh = refused(None, "API 调用参数有误，请检查文档", "1210")
    seen = []
    while st.learn(zh, body_for(st)):
        b = body_for(st)
        seen.append(("seed" in b, (b.get("response_format") or {}).get("type")))
    assert seen == [(False, "json_schema"), (False, "json_object"), (False, "json_object"), (False, None)]
    restored = body_for(st)  # refused even plainly: not the options' fault, all restored
    assert "seed" in restored and restored["response_format"]["type"] == "json_schema"
    assert not st.learn(zh, restored)  # and no second probe


def test_a_probe_that_gets_an_answer_is_kept():
    st = state()
    assert st.learn(refused(None, "API 调用参数有误，请检查文档", "1210"), body_for(st))
    st.observe(Reply("ok"))
    assert "seed" not in body_for(st) and body_for(st)["response_format"]["type"] == "json_schema"


def test_a_named_optional_parameter_is_dropped_but_never_an_essential_one():
    st = state()
    assert st.learn(refused("seed"), body_for(st)) and "seed" not in body_for(st)
    assert not st.learn(refused(None, "messages: too long"), body_for(st))


def test_reasoning_is_detected_from_the_first_reply_that_thinks():
    st = state()
    req = ChatRequest.build(st.spec, MSGS, max_tokens=40)
    assert st.wire(req).limit == 40
    assert st.observe(Reply("ok", thinking="hmm"))
    assert st.wire(req).limit == 40 + st.spec.reasoning_allowance and st.wire(req, 2).limit == 2 * (40 + 2048)
    never = state(reasoning=False)
    assert not never.observe(Reply("ok", thinking="hmm")) and never.wire(req).limit == 40


# --------------------------------------------------------------------------- breaker


def test_breaker_opens_after_more_than_a_fifth_of_the_last_twenty_fail():
    b = CircuitBreaker(window=20, max_failure_share=0.2)
    down = Failure(FailureKind.UNREACHABLE, "connection refused")
    for _ in range(4):
        b.record("judge", down)
    b.check("judge")  # 4 of 20 is not more than 20%
    b.record("judge", Failure(FailureKind.PARSE, "schema violation"))  # an answer, not a failure
    b.check("judge")
    b.record("judge", down)
    with pytest.raises(CircuitOpen) as e:
        b.check("judge")
    assert (e.value.model, e.value.failed, e.value.window) == ("judge", 5, 6)
    assert str(e.value).startswith(
        "model 'judge' stopped answering: 5 of its last 6 requests failed after retries "
        "(last error: unreachable: connection refused)"
    )
    b.check("target")  # per model


def test_old_failures_slide_out_of_the_window():
    b = CircuitBreaker(window=5, max_failure_share=0.2)
    down = Failure(FailureKind.TIMEOUT, "slow")
    b.record("m", down)
    for _ in range(4):
        b.record("m", None)
    b.record("m", down)  # the first failure has left the window: 1 of 5
    b.check("m")


# --------------------------------------------------------------------------- store and usage


def entry(key="k", **kw) -> Entry:
    return Entry(key, "m", "text", {"a": 1}, 3, 7, 0.1, 1, **kw)


def test_store_reads_the_journal_then_the_cache_and_writes_both(tmp_path):
    req = ChatRequest.build(SPEC, MSGS)
    store = AnswerStore(tmp_path / "j.sqlite", tmp_path / "c.sqlite")
    store.commit(req, entry(req.key, reasoning_tokens=5, served_model="model-x-2025"))
    assert store.lookup(req.key) == entry(req.key, reasoning_tokens=5, served_model="model-x-2025")
    assert store.cache.get(req.key).served_model == "model-x-2025"
    assert AnswerStore(tmp_path / "j2.sqlite", tmp_path / "c.sqlite").lookup(req.key).reasoning_tokens == 5
    assert AnswerStore(tmp_path / "j.sqlite", no_cache=True).lookup(req.key) is None
    assert store.journal.totals() == [("m", "misc", 1, 3, 7, 5)]


def test_a_journal_read_ahead_answers_as_the_file_does_including_what_was_written_since(tmp_path):
    path = tmp_path / "j.sqlite"
    writer = Journal(path)
    writer.put(entry("a"), identity="i", stage="s", request={})
    writer.record_decision("d1", {"passed": True})
    ahead = Journal(path, read_ahead=True)
    assert ahead.get("a") == entry("a")  # the one pass reads everything
    writer.put(entry("b", served_model="x"), identity="i", stage="s", request={})  # another writer, after the pass
    writer.record_decision("d2", [1])
    assert ahead.get("b") == entry("b", served_model="x")
    assert ahead.get("a") == entry("a")  # asked again: handed out from the file
    assert (ahead.get("c"), ahead.decision("d1"), ahead.decision("d2"), ahead.decision("d3")) == (None, {"passed": True}, [1], None)
    ahead.put(entry("a", reasoning_tokens=9), identity="i", stage="s", request={})  # replaced in this process
    ahead.record_decision("d1", {"passed": False})
    assert (ahead.get("a").reasoning_tokens, ahead.decision("d1")) == (9, {"passed": False})
    assert (writer.get("a").reasoning_tokens, writer.decision("d1")) == (9, {"passed": False})


def test_a_journal_of_the_first_layout_gains_the_new_columns(tmp_path):
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path)
    db.execute(
        "CREATE TABLE responses (key TEXT PRIMARY KEY, model TEXT NOT NULL, identity TEXT NOT NULL, stage TEXT NOT NULL, "
        "request TEXT NOT NULL, text TEXT NOT NULL, data TEXT, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, "
        "latency_s REAL NOT NULL, attempts INTEGER NOT NULL, created REAL NOT NULL)"
    )
    db.execute("INSERT INTO responses VALUES ('k','m','i','s','{}','t',NULL,1,2,0.5,1,0)")
    db.commit()
    db.close()
    assert Journal(path).get("k") == Entry("k", "m", "t", None, 1, 2, 0.5, 1, 0, "")


def test_openers_of_an_old_journal_add_its_columns_one_at_a_time(tmp_path, monkeypatch):
    # CI once failed with "duplicate column name: served_model": three processes opened a new
    # file at once, two saw the column missing and both added it. An opener now waits for the
    # write lock before it looks at the columns.
    path = tmp_path / "old.sqlite"
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("PRAGMA journal_mode=WAL")
    holder.execute(
        "CREATE TABLE responses (key TEXT PRIMARY KEY, model TEXT NOT NULL, identity TEXT NOT NULL, stage TEXT NOT NULL, "
        "request TEXT NOT NULL, text TEXT NOT NULL, data TEXT, prompt_tokens INTEGER NOT NULL, completion_tokens INTEGER NOT NULL, "
        "latency_s REAL NOT NULL, attempts INTEGER NOT NULL, created REAL NOT NULL)"
    )
    holder.execute("BEGIN IMMEDIATE")  # another opener, half way through adding the columns
    about_to_write = threading.Event()
    connect = sqlite3.connect

    def traced(*args, **kwargs):
        db = connect(*args, **kwargs)
        db.set_trace_callback(lambda sql: sql.lstrip().upper().startswith(("BEGIN IMMEDIATE", "ALTER")) and about_to_write.set())
        return db

    monkeypatch.setattr(sqlite3, "connect", traced)
    opened: list = []
    opener = threading.Thread(target=lambda: opened.append(_open_or_error(path)))
    opener.start()
    assert about_to_write.wait(30)
    for name, decl in (
        ("reasoning_tokens", "INTEGER NOT NULL DEFAULT 0"),
        ("served_model", "TEXT NOT NULL DEFAULT ''"),
        ("via", "TEXT NOT NULL DEFAULT 'live'"),
    ):
        holder.execute(f"ALTER TABLE responses ADD COLUMN {name} {decl}")
    holder.execute("COMMIT")
    opener.join(60)
    assert isinstance(opened[0], Journal), opened[0]
    opened[0].put(Entry("k", "m", "t", None, 1, 2, 0.5, 1, 3, "served"), identity="i", stage="s", request={})
    assert opened[0].get("k") == Entry("k", "m", "t", None, 1, 2, 0.5, 1, 3, "served")


def _open_or_error(path):
    try:
        return Journal(path)
    except Exception as e:  # handed to the test's thread, which asserts on it
        return e


def test_usage_counts_reasoning_tokens_and_cost_apart_and_shows_what_was_learned():
    u = UsageTracker()
    u.record(CallRecord("o4", "grading", False, True, TokenUsage(100, 300, 200), 1.0, 1, cost_usd=0.5, reasoning_cost_usd=0.2))
    u.note_model("o4", reasoning=True, sampled=True, served_models=["o4-mini-2025-04-16"])
    m = u.summary()["models"]["o4"]
    assert (m["completion_tokens"], m["reasoning_tokens"], m["cost_usd"], m["reasoning_cost_usd"]) == (300, 200, 0.5, 0.2)
    assert (m["reasoning"], m["sampled"], m["served_models"]) == (True, True, ["o4-mini-2025-04-16"])
    run = journal_usage([("o4", "grading", 2, 100, 300, 200), ("old", "grading", 1, 10, 20)], {"o4": (1.0, 2.0)})
    assert run["models"]["o4"] == {"answers": 2, "prompt_tokens": 100, "completion_tokens": 300, "reasoning_tokens": 200, "cost_usd": 0.7}
    assert run["total"]["reasoning_tokens"] == 200
