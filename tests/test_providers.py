"""The client against emulations of real providers (tests/scripted_server.py, "provider
emulations"), one per behaviour of issue 13, each written after the provider's own
documentation or its error bodies as users reported them:

1. Thinking inline (``Thinking("inline")``): DeepSeek-R1-style models emit
   ``<think> … </think>`` before the answer; vLLM's ``deepseek_r1`` / ``qwen3`` reasoning
   parsers exist to cut exactly that out (docs.vllm.ai, "Reasoning Outputs"), so a server
   without one (Ollama, vLLM without ``--reasoning-parser``, llama.cpp) returns it in
   ``content``. Thinking counts against the output limit, so a small limit leaves an
   unterminated ``<think>`` and ``finish_reason: "length"``.
2. A reasoning field (``Thinking("reasoning_content")`` / ``Thinking("reasoning")``):
   vLLM with a reasoning parser returns ``message.reasoning_content`` (renamed
   ``reasoning`` from v0.11, docs.vllm.ai "Reasoning Outputs"); DeepSeek's API puts the
   chain of thought in ``reasoning_content`` beside ``content``, and its ``max_tokens``
   covers the chain of thought too (api-docs.deepseek.com, guides/reasoning_model).
3. OpenAI reasoning models (``OpenAIReasoning``): ``max_tokens`` gets 400 with
   ``param: "max_tokens", code: "unsupported_parameter"`` ("Use 'max_completion_tokens'
   instead."), any temperature but 1 gets 400 with ``param: "temperature", code:
   "unsupported_value"`` ("Only the default (1) value is supported.") -- the bodies as
   users quote them (e.g. github.com/griptape-ai/ComfyUI-Griptape/issues/312,
   github.com/OpenHands/OpenHands/issues/4131); hidden reasoning is reported in
   ``usage.completion_tokens_details.reasoning_tokens`` and, per OpenAI's API reference,
   counts against the output limit and is billed; content is empty when it eats the limit.
4. DashScope's Qwen3 (``DashScopeQwen3``): a non-streaming call without top-level
   ``enable_thinking: false`` gets 400 ``{"code": "invalid_parameter_error", "param":
   null, "message": "parameter.enable_thinking must be set to false for non-streaming
   calls"}`` (github.com/infiniflow/ragflow/issues/8972,
   github.com/alibaba/spring-ai-alibaba/issues/867); DashScope's own examples pass it as
   the openai SDK's ``extra_body``. vLLM takes ``chat_template_kwargs`` instead.
5. Zhipu's free tier (``ZhipuRateLimit``): per docs.bigmodel.cn ("速率限制", "错误码")
   concurrency is limited per model and excess requests get HTTP 429 with code 1302
   ("您当前使用该API的并发数过高…"); 1305 is platform overload; 1113 (arrears) and 1308
   (usage cap) also come as 429 but are quotas, not worth retrying. The Retry-After header
   is what the issue observed (scaled down here).
6. Unhelpful 400s (``RefusesOptions``): OpenAI's error object is ``{message, type, param,
   code}`` (the OpenAPI ErrorResponse; openai-ruby's ErrorObject) and ``param`` may be the
   only field that names the option; Zhipu's code 1210 says only "API 调用参数有误，请检查文档".

Each behaviour is tested at the client (exact bodies sent, typed outcomes) and in a full
``evaluate`` on data/medqa-demo (scripted judge, --limit 6), which must finish with no
answer errors and the plain server's ACC1, ACC2, CR and CtE.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from interview_double import Script
from scripted_server import DashScopeQwen3, OpenAIReasoning, RefusesOptions, ScriptedServer, Thinking, ZhipuRateLimit

from judgeagent import evaluate as run_evaluation
from judgeagent.config import EvalConfig, LLMConfig
from judgeagent.llm import CircuitOpen, FailureKind, LLMClient, ModelSpec

DATA = Path(__file__).resolve().parents[1] / "data" / "medqa-demo"
SCHEMA = {"type": "object", "properties": {"answer": {"type": "string", "enum": ["A", "B", "C", "D"]}}, "required": ["answer"]}
GOOD = json.dumps({"answer": "B"})
PLAN = [(True, True), (True, False), (False, True), (False, False), (False, True), (True, True)]


def ask(i: int = 0) -> list[dict]:
    return [{"role": "user", "content": f"question {i}"}]


def chat_twice(provider, spec_kw: dict | None = None, answer: str = GOOD, **chat_kw):
    """Two schema requests to a fresh client against ``provider``: (results, bodies, model notes)."""
    with ScriptedServer(lambda b: answer, provider=provider) as srv:

        async def go():
            async with LLMClient(None, backoff_base=0.01) as c:
                spec = ModelSpec("m", srv.base_url, "model-x", **(spec_kw or {}))
                rs = [await c.chat(spec, ask(i), schema=SCHEMA, max_tokens=50, **chat_kw) for i in range(2)]
                return rs, c.model_notes(spec)

        results, notes = asyncio.run(go())
        return results, srv.requests, notes


def sent(bodies: list[dict], *keys: str) -> list[tuple]:
    return [tuple(b.get(k) for k in keys) for b in bodies]


# --------------------------------------------------------------------------- 1, 2: thinking


@pytest.mark.parametrize("style", ["inline", "reasoning_content", "reasoning"])
def test_thinking_is_set_apart_and_the_cut_off_reply_is_sent_again_with_room_to_think(style):
    results, bodies, notes = chat_twice(Thinking(style, think_words=80))
    assert [(r.ok, r.data, r.attempts) for r in results] == [(True, {"answer": "B"}, 2), (True, {"answer": "B"}, 1)]
    # 50 tokens cannot hold 80 of thinking: cut off, detected, doubled with the allowance.
    assert [b["max_tokens"] for b in bodies] == [50, (50 + 2048) * 2, 50 + 2048]
    assert results[0].text == GOOD  # the think block never reaches the parser or the record
    assert results[0].usage.to_dict() == {"prompt_tokens": 2 * 23, "completion_tokens": 50 + 82, "reasoning_tokens": 50 + 80, "cached_tokens": 0, "total_tokens": 46 + 132}
    assert notes["reasoning"] is True and notes["sampled"] is False


def test_an_answer_cut_off_after_the_thinking_is_sent_again_with_the_limit_doubled():
    long = json.dumps({"answer": "B", "why": " ".join(["because"] * 20)})
    results, bodies, _ = chat_twice(Thinking("inline", think_words=45), answer=long)
    assert results[0].ok and results[0].data == {"answer": "B", "why": " ".join(["because"] * 20)}
    assert [b["max_tokens"] for b in bodies] == [50, (50 + 2048) * 2, 50 + 2048]


def test_a_model_declared_reasoning_gets_its_allowance_from_the_first_request():
    results, bodies, _ = chat_twice(Thinking("inline", think_words=80), {"reasoning": True, "reasoning_allowance": 100})
    assert [b["max_tokens"] for b in bodies] == [150, 150] and all(r.attempts == 1 for r in results)


def test_thinking_that_never_ends_is_a_typed_truncation_not_an_answer():
    results, bodies, _ = chat_twice(Thinking("inline", think_words=10_000), {"reasoning_allowance": 100})
    r = results[0]
    assert not r.ok and r.error_kind is FailureKind.TRUNCATED and r.incomplete
    assert r.error == (
        "the reply was cut off at the output limit while thinking, also with the limit doubled to 300 tokens "
        "(300 spent thinking); raise max_tokens or reasoning_allowance of model 'm' in judgeagent.toml"
    )
    assert [b["max_tokens"] for b in bodies[:2]] == [50, 300]


# --------------------------------------------------------------------------- 3: OpenAI reasoning models


def test_openai_reasoning_model_gets_max_completion_tokens_and_temperature_one():
    results, bodies, notes = chat_twice(OpenAIReasoning(think_words=80))
    assert all(r.ok and r.data == {"answer": "B"} for r in results)
    assert sent(bodies, "max_tokens", "max_completion_tokens", "temperature") == [
        (50, None, 0.0), (None, 50, 0.0), (None, 50, 1.0), (None, (50 + 2048) * 2, 1.0), (None, 50 + 2048, 1.0),
    ]  # fmt: skip
    assert results[0].usage.reasoning_tokens == 50 + 80  # from completion_tokens_details
    assert all(r.sampled and r.served_model == "o4-mini-2025-04-16" for r in results)
    assert (notes["sampled"], notes["token_param"], notes["served_models"]) == (True, "max_completion_tokens", ["o4-mini-2025-04-16"])


def test_concurrent_requests_refused_alike_all_adapt():
    with ScriptedServer(lambda b: GOOD, provider=OpenAIReasoning(think_words=5), delay=0.05) as srv:

        async def go():
            async with LLMClient(None, backoff_base=0.01) as c:
                spec = ModelSpec("m", srv.base_url, "o4-mini", concurrency=4)
                return await asyncio.gather(*(c.chat(spec, ask(i), schema=SCHEMA) for i in range(4)))

        results = asyncio.run(go())
    assert all(r.ok and r.data == {"answer": "B"} for r in results)


def test_the_cache_key_is_the_request_the_user_made_not_the_temperature_forced(tmp_path):
    with ScriptedServer(lambda b: GOOD, provider=OpenAIReasoning(think_words=5)) as srv:

        async def go():
            async with LLMClient(tmp_path / "journal.sqlite", backoff_base=0.01) as c:
                return await c.chat(ModelSpec("m", srv.base_url, "o4-mini"), ask(), temperature=0.0)

        first, again = asyncio.run(go()), asyncio.run(go())
    assert first.ok and again.cached and again.key == first.key and again.served_model == "o4-mini-2025-04-16"


# --------------------------------------------------------------------------- 4: DashScope Qwen3


def test_dashscope_qwen3_without_the_preset_learns_enable_thinking_false_once():
    results, bodies, _ = chat_twice(DashScopeQwen3())
    assert all(r.ok for r in results)
    assert sent(bodies, "enable_thinking") == [(None,), (False,), (False,)]


def test_extra_body_is_sent_verbatim():
    extra = {"enable_thinking": False, "chat_template_kwargs": {"enable_thinking": False}, "top_k": 20}
    results, bodies, _ = chat_twice(DashScopeQwen3(), {"extra_body": extra})
    assert all(r.ok for r in results) and len(bodies) == 2
    assert all({k: b[k] for k in extra} == extra for b in bodies)


# --------------------------------------------------------------------------- 5: Zhipu rate limits


def test_zhipu_429_storm_is_waited_out_and_never_reaches_the_caller():
    provider = ZhipuRateLimit(max_concurrency=1, storm=4, retry_after=0.05)
    results, bodies, _ = chat_twice(provider)
    assert all(r.ok for r in results) and provider.refused == 4 and len(bodies) == 6


def test_a_zhipu_quota_code_fails_at_once():
    class Broke(ZhipuRateLimit):
        def refuse(self, body, in_flight):
            from scripted_server import error_response

            return error_response(429, {"code": "1113", "message": "您的账户已欠费，请充值后重试"})

    results, bodies, _ = chat_twice(Broke())
    assert results[0].error_kind is FailureKind.QUOTA and len(bodies) == 2  # one request per call, no retries
    assert results[0].error == "HTTP 429: 您的账户已欠费，请充值后重试 (code=1113)"


# --------------------------------------------------------------------------- 6: unhelpful 400s


@pytest.mark.parametrize("style", ["zh", "param"])
def test_a_refused_option_is_left_out_whatever_the_message_says(style):
    results, bodies, _ = chat_twice(RefusesOptions(style, refused=("seed", "response_format")))
    assert all(r.ok and r.data == {"answer": "B"} for r in results)  # the schema still holds: it is in the prompt
    last = bodies[-1]
    assert "seed" not in last and "response_format" not in last


# --------------------------------------------------------------------------- circuit breaker


def test_a_dead_endpoint_opens_the_breaker_naming_the_model_and_the_last_error():
    with ScriptedServer(lambda b: GOOD) as srv:
        from scripted_server import Fault

        async def go():
            async with LLMClient(None, LLMConfig(max_attempts=2), backoff_base=0.001) as c:
                spec = ModelSpec("judge-x", srv.base_url, "model-x")
                ok = [await c.chat(spec, ask(i)) for i in range(3)]
                srv.push_faults(*[Fault.status(503, message="upstream down")] * 100)
                failed = [await c.chat(spec, ask(10 + i)) for i in range(4)]
                with pytest.raises(CircuitOpen) as e:
                    await c.chat(spec, ask(99))
                with pytest.raises(CircuitOpen):  # and it stays open: nothing more is sent
                    sent_before = len(srv.requests)
                    await c.chat(spec, ask(100))
                return ok, failed, e.value, sent_before, len(srv.requests)

        ok, failed, err, before, after = asyncio.run(go())
    assert all(r.ok for r in ok) and all(r.incomplete and r.error_kind is FailureKind.SERVER_ERROR for r in failed)
    assert (err.model, err.failed, err.window) == ("judge-x", 5, 8) and before == after
    assert "last error: server_error: HTTP 503: upstream down (code=503) (gave up after 2 attempts)" in str(err)


# --------------------------------------------------------------------------- full evaluate per behaviour


def script(demo_seeds) -> Script:
    return Script(
        seed_plan={q.question.strip(): p for q, p in zip(demo_seeds, PLAN)},
        answers={q.question.strip(): q.answer for q in demo_seeds},
    )


def evaluate(srv, demo_graph, out: Path, **kw) -> dict:
    model = f"{srv.base_url}@scripted"
    kw.setdefault("target", model)
    cfg = EvalConfig(judge=model, data=DATA, graph=demo_graph, limit=6, out=out, concurrency=2, report=False, **kw)
    return run_evaluation(cfg, progress=False).metrics


PAPER = ("acc1", "acc2", "cr", "cte")


@pytest.fixture(scope="module")
def plain_metrics(demo_graph, demo_seeds, tmp_path_factory):
    with ScriptedServer(script(demo_seeds)) as srv:
        return evaluate(srv, demo_graph, tmp_path_factory.mktemp("plain") / "run")


EMULATIONS = {
    "think_inline": lambda: Thinking("inline", think_words=200),
    "reasoning_content": lambda: Thinking("reasoning_content", think_words=200),
    "openai_reasoning": lambda: OpenAIReasoning(think_words=200),
    "dashscope_qwen3": DashScopeQwen3,
    "zhipu_rate_limit": lambda: ZhipuRateLimit(max_concurrency=1, storm=4, retry_after=0.02),
    "refuses_options_zh": lambda: RefusesOptions("zh", refused=("seed", "response_format:json_schema")),
    "refuses_options_param": lambda: RefusesOptions("param", refused=("seed",)),
}


@pytest.mark.parametrize("name", list(EMULATIONS))
def test_evaluate_against_each_provider_matches_the_plain_server(name, plain_metrics, demo_graph, demo_seeds, tmp_path):
    with ScriptedServer(script(demo_seeds), provider=EMULATIONS[name]()) as srv:
        m = evaluate(srv, demo_graph, tmp_path / "run")
    assert m["answer_errors"] == 0
    assert {k: m[k] for k in PAPER} == {k: plain_metrics[k] for k in PAPER}
    notes = m["llm_usage"]["models"][f"{srv.base_url}@scripted"]
    (plain_notes,) = plain_metrics["llm_usage"]["models"].values()
    assert notes["failures"] == plain_notes["failures"]  # the double's own unusable replies, if any: no more
    assert notes["reasoning"] is (name in ("think_inline", "reasoning_content", "openai_reasoning"))
    assert notes["sampled"] is (name == "openai_reasoning")
    assert (notes["retries"] >= 4) is (name == "zhipu_rate_limit")  # the 429 storm was waited out


def test_evaluate_sends_extra_body_from_judgeagent_toml(demo_graph, demo_seeds, tmp_path):
    with ScriptedServer(script(demo_seeds), provider=DashScopeQwen3()) as srv:
        toml = tmp_path / "judgeagent.toml"
        toml.write_text(
            f'[models.qwen3-open]\nbase_url = "{srv.base_url}"\nmodel = "qwen3-32b"\n'
            "temperature = 0.0\nextra_body = { enable_thinking = false }\n"
        )
        m = evaluate(srv, demo_graph, tmp_path / "run", target="qwen3-open", llm=LLMConfig(models_file=toml))
        target_bodies = [b for b in srv.requests if b["model"] == "qwen3-32b"]
    assert m["answer_errors"] == 0 and target_bodies
    assert all(b["enable_thinking"] is False and b["temperature"] == 0.0 for b in target_bodies)
