"""LLMClient against the scripted server: retries, limits, cache, structured output, accounting."""

import asyncio
import json
import time

import pytest
from scripted_server import Fault, ScriptedServer

from judgeagent.config import LLMConfig
from judgeagent.errors import BudgetExceeded, ConfigError
from judgeagent.llm import FailureKind, LLMClient, ModelSpec
from judgeagent.llm.client import _FORMS_LLAMA

SCHEMA = {
    "type": "object",
    "properties": {"answer": {"type": "string", "enum": ["A", "B", "C", "D"]}, "why": {"type": "string"}},
    "required": ["answer", "why"],
}
GOOD = json.dumps({"answer": "B", "why": "because the second option fits the findings"})


def good(body):
    return GOOD


def spec_for(srv, model="scripted-model", **kw):
    return ModelSpec(kw.pop("name", "scripted"), srv.base_url, model, **kw)


def ask(i=0, text="question"):
    return [{"role": "user", "content": f"{text} {i}"}]


def run(coro):
    return asyncio.run(coro)


def client(tmp_path=None, backoff_base=0.01, **settings):
    """A client with a fast backoff; ``settings`` are LLMConfig's fields (timeout 10 s unless given)."""
    settings.setdefault("timeout_s", 10.0)
    journal = tmp_path / "journal.sqlite" if tmp_path is not None else None
    return LLMClient(journal, LLMConfig(**settings), backoff_base=backoff_base)


# --------------------------------------------------------------------------- retries


def test_transient_faults_are_retried_until_success():
    with ScriptedServer(good) as srv:
        srv.push_faults(Fault.status(429), Fault.status(500), Fault.drop(), Fault.status(503))

        async def go():
            async with client() as c:
                return await c.chat(spec_for(srv), ask()), c.usage.summary()

        r, summary = run(go())
        assert r.ok and r.text == GOOD and r.attempts == 5
        assert len(srv.requests) == 5
        assert summary["total"]["retries"] == 4 and summary["total"]["failures"] == 0


def test_gives_up_cleanly_after_max_attempts():
    with ScriptedServer(good) as srv:
        srv.push_faults(*[Fault.status(500)] * 10)

        async def go():
            async with client(max_attempts=3) as c:
                return await c.chat(spec_for(srv), ask()), c.usage.summary()

        r, summary = run(go())
        assert not r.ok and r.error_kind is FailureKind.SERVER_ERROR and r.incomplete
        assert r.error == "HTTP 500: scripted fault 500 (code=500) (gave up after 3 attempts)"
        assert len(srv.requests) == 3 and r.attempts == 3
        assert summary["total"]["failures"] == 1


def test_client_errors_are_not_retried():
    with ScriptedServer(good) as srv:
        srv.push_faults(Fault.status(400, message="bad request: messages too long"))

        async def go():
            async with client() as c:
                return await c.chat(spec_for(srv), ask())

        r = run(go())
        assert not r.ok and r.error_kind is FailureKind.BAD_REQUEST
        assert r.error == "HTTP 400: bad request: messages too long (code=400)"
        assert len(srv.requests) == 1


def test_timeouts_are_retried_and_typed():
    with ScriptedServer(good) as srv:
        srv.push_faults(Fault.delay(1.0))

        async def go():
            async with client(timeout_s=0.3) as c:
                ok = await c.chat(spec_for(srv), ask(1))
                srv.push_faults(Fault.delay(1.0), Fault.delay(1.0))
                async with client(timeout_s=0.3, max_attempts=2) as c2:
                    bad = await c2.chat(spec_for(srv), ask(2))
                return ok, bad

        ok, bad = run(go())
        assert ok.ok and ok.attempts == 2
        assert not bad.ok and bad.error_kind is FailureKind.TIMEOUT
        assert bad.error == "no answer within 0.3 s (gave up after 2 attempts)"


def test_retry_after_is_honoured():
    with ScriptedServer(good) as srv:
        srv.push_faults(Fault.status(429, retry_after=0.6))

        async def go():
            async with client(backoff_base=0.001) as c:
                return await c.chat(spec_for(srv), ask())

        r = run(go())
        assert r.ok
        first, second = srv.arrivals
        assert second - first >= 0.55  # the backoff alone would be ~1 ms


def test_backoff_grows_exponentially():
    with ScriptedServer(good) as srv:
        srv.push_faults(*[Fault.status(503)] * 3)

        async def go():
            async with client(backoff_base=0.1) as c:
                return await c.chat(spec_for(srv), ask())

        assert run(go()).ok
        t = srv.arrivals
        gaps = [b - a for a, b in zip(t, t[1:])]
        # base*2^(n-1) with jitter in [0.5, 1]: >= 0.05, 0.1, 0.2
        assert gaps[0] >= 0.05 and gaps[1] >= 0.1 and gaps[2] >= 0.2
        assert gaps[2] <= 1.0


# --------------------------------------------------------------------------- limits


def test_concurrency_never_exceeds_the_model_limit():
    with ScriptedServer(good, delay=0.05) as srv:

        async def go():
            async with client() as c:
                spec = spec_for(srv, concurrency=5)
                return await asyncio.gather(*(c.chat(spec, ask(i)) for i in range(40)))

        results = run(go())
        assert all(r.ok for r in results)
        assert srv.max_in_flight == 5  # reached, never exceeded


def test_requests_per_minute_limiter_spaces_requests():
    with ScriptedServer(good) as srv:

        async def go():
            async with client() as c:
                spec = spec_for(srv, rpm=600)  # one every 0.1 s
                return await asyncio.gather(*(c.chat(spec, ask(i)) for i in range(5)))

        run(go())
        t = sorted(srv.arrivals)
        assert t[-1] - t[0] >= 0.35


def test_max_requests_stops_before_sending(tmp_path):
    with ScriptedServer(good) as srv:

        async def go():
            async with client(tmp_path, max_requests=3) as c:
                spec = spec_for(srv)
                for i in range(3):
                    assert (await c.chat(spec, ask(i))).ok
                with pytest.raises(BudgetExceeded, match="--max-requests 3"):
                    await c.chat(spec, ask(99))
                # Cached answers are free: still served after the limit.
                again = await c.chat(spec, ask(0))
                assert again.ok and again.cached

        run(go())
        assert len(srv.requests) == 3


def test_budget_usd_stops_before_sending():
    with ScriptedServer(good) as srv:

        async def go():
            # 1 $/1k tokens out, max_tokens 100: each request is reserved at its bound, $0.1.
            # A reply costs 10 tokens (the scripted server counts words) = $0.01, so request
            # n+1 goes out while 0.01·n + 0.1 <= 0.255, i.e. n <= 15: exactly 16 are sent.
            # (0.255, not 0.25, keeps the boundary off a float rounding tie.)
            spec = spec_for(srv, price_in_per_1k=0.0, price_out_per_1k=1.0, max_tokens=100)
            async with client(budget_usd=0.255) as c:
                sent = 0
                with pytest.raises(BudgetExceeded, match="--budget-usd 0.255"):
                    for i in range(50):
                        await c.chat(spec, ask(i))
                        sent += 1
                summary = c.usage.summary()
                return sent, summary

        sent, summary = run(go())
        assert sent == 16
        assert summary["total"]["cost_usd"] == pytest.approx(0.16)
        assert len(srv.requests) == sent


def test_a_withdrawn_request_is_charged_at_its_bound_and_not_journaled(tmp_path):
    """A caller may cancel a request it no longer wants (the gate's early answerable check)."""
    with ScriptedServer(good, delay=0.5) as srv:

        async def go():
            spec = spec_for(srv, price_in_per_1k=0.0, price_out_per_1k=1.0, max_tokens=100)
            async with client(tmp_path, budget_usd=1.0) as c:
                task = asyncio.create_task(c.chat(spec, ask(), stage="gate"))
                while not srv.requests:
                    await asyncio.sleep(0.01)
                task.cancel()
                with pytest.raises(asyncio.CancelledError):
                    await task
                after = await c.chat(spec, ask(1), stage="gate")
                return c.usage, after, len(c.journal)

        usage, after, journaled = run(go())
        gate = usage.summary()["stages"]["gate"]
        assert gate["withdrawn"] == 1 and gate["failures"] == 0 and gate["requests"] == 2
        # Charged at the upper bound (100 tokens out at $1/1k), since a remote API may bill it.
        assert usage.spent_usd == pytest.approx(0.1 + 0.001 * len(GOOD.split()), abs=1e-9)
        assert after.ok and journaled == 1


def test_timing_dependent_decisions_are_kept_in_the_journal(tmp_path):
    async def go():
        async with client(tmp_path) as c:
            first = c.recall("gate/x")
            c.remember("gate/x", [{"name": "not_duplicate", "passed": False, "reason": "repeats"}])
            return first

    assert run(go()) is None

    async def again():
        async with client(tmp_path) as c:
            return c.recall("gate/x"), len(c.journal)

    kept, answers = run(again())
    assert kept == [{"name": "not_duplicate", "passed": False, "reason": "repeats"}]
    assert answers == 0  # a decision is not an answer: usage totals do not count it
    assert run(_recall_without_journal()) is None


async def _recall_without_journal():
    async with client() as c:
        c.remember("k", 1)
        return c.recall("k")


# --------------------------------------------------------------------------- cache / journal


def test_rerun_replays_from_the_journal_with_zero_requests(tmp_path):
    with ScriptedServer(good) as srv:

        async def go():
            async with client(tmp_path) as c:
                return await asyncio.gather(*(c.chat(spec_for(srv), ask(i), schema=SCHEMA) for i in range(10)))

        first = run(go())
        assert len(srv.requests) == 10 and not any(r.cached for r in first)
        second = run(go())
        assert len(srv.requests) == 10  # nothing new sent
        assert all(r.cached and r.ok for r in second)
        assert [r.data for r in second] == [r.data for r in first]


def test_shared_cache_and_no_cache(tmp_path):
    with ScriptedServer(good) as srv:
        cache = tmp_path / "cache.sqlite"

        async def go(run_dir, **kw):
            async with LLMClient(tmp_path / run_dir / "journal.sqlite", LLMConfig(cache=cache, **kw)) as c:
                return [await c.chat(spec_for(srv), ask(i)) for i in range(4)]

        run(go("run1"))
        assert len(srv.requests) == 4
        assert all(r.cached for r in run(go("run2")))  # another run, same shared cache
        assert len(srv.requests) == 4
        assert not any(r.cached for r in run(go("run3", no_cache=True)))
        assert len(srv.requests) == 8


def test_cache_keys_differ_across_models_and_params(tmp_path):
    with ScriptedServer(good) as srv:

        async def go():
            async with client(tmp_path) as c:
                a = await c.chat(spec_for(srv, model="model-a"), ask())
                b = await c.chat(spec_for(srv, model="model-b"), ask())
                a_hot = await c.chat(spec_for(srv, model="model-a"), ask(), temperature=0.7)
                a_seed = await c.chat(spec_for(srv, model="model-a"), ask(), seed=1)
                a_schema = await c.chat(spec_for(srv, model="model-a"), ask(), schema=SCHEMA)
                a_again = await c.chat(spec_for(srv, model="model-a", name="renamed"), ask())
                return a, b, a_hot, a_seed, a_schema, a_again

        a, b, a_hot, a_seed, a_schema, a_again = run(go())
        assert len({a.key, b.key, a_hot.key, a_seed.key, a_schema.key}) == 5
        assert len(srv.requests) == 5
        assert a_again.cached and a_again.key == a.key  # the key is the identity, not the name


def test_local_identity_is_the_gguf_not_the_port(tmp_path):
    gguf = tmp_path / "m.gguf"
    gguf.write_bytes(b"x")
    s1 = ModelSpec("local", "http://127.0.0.1:1111/v1", "m", gguf=gguf)
    s2 = ModelSpec("local", "http://127.0.0.1:2222/v1", "m", gguf=gguf)
    assert s1.identity == s2.identity == f"gguf:{gguf.resolve()}"
    assert ModelSpec("x", "http://h/v1", "a").identity != ModelSpec("x", "http://h/v1", "b").identity


def test_failures_are_not_stored(tmp_path):
    with ScriptedServer(good) as srv:
        srv.push_faults(Fault.status(400, message="messages too long"))

        async def go():
            async with client(tmp_path) as c:
                return await c.chat(spec_for(srv), ask()), await c.chat(spec_for(srv), ask())

        bad, good_again = run(go())
        assert not bad.ok and good_again.ok and not good_again.cached


def test_identical_requests_in_flight_are_sent_once():
    with ScriptedServer(good, delay=0.1) as srv:

        async def go():
            async with client() as c:
                return await asyncio.gather(*(c.chat(spec_for(srv), ask()) for _ in range(5)))

        results = run(go())
        assert len(srv.requests) == 1
        assert sum(r.cached for r in results) == 4 and all(r.ok for r in results)


# --------------------------------------------------------------------------- structured output


def test_structured_output_is_parsed_and_validated():
    with ScriptedServer(lambda b: "```json\n" + GOOD + "\n```\nLet me know if you need more.") as srv:

        async def go():
            async with client() as c:
                return await c.chat(spec_for(srv), ask(), schema=SCHEMA)

        r = run(go())
        assert r.ok and r.data["answer"] == "B" and r.attempts == 1
        body = srv.requests[0]
        # The schema is also described in the prompt.
        assert (
            body["messages"][0]["role"] == "system"
            and '"answer": <"A" | "B" | "C" | "D">' in body["messages"][0]["content"]
        )


@pytest.mark.parametrize("fault", [Fault.invalid_json(), Fault.truncated_json()])
def test_reask_after_invalid_json(fault):
    with ScriptedServer(good) as srv:
        srv.push_faults(fault)

        async def go():
            async with client() as c:
                return await c.chat(spec_for(srv), ask(), schema=SCHEMA), c.usage.summary()

        r, summary = run(go())
        assert r.ok and r.data["answer"] == "B" and r.attempts == 2
        reask = srv.requests[1]["messages"]
        assert reask[-2]["role"] == "assistant"
        assert reask[-1]["role"] == "user" and "could not be used" in reask[-1]["content"]
        assert summary["total"]["reasks"] == 1


def test_reask_after_schema_violation_then_give_up():
    with ScriptedServer(lambda b: json.dumps({"answer": "Z", "why": "x"})) as srv:

        async def go():
            async with client() as c:
                return await c.chat(spec_for(srv), ask(), schema=SCHEMA)

        r = run(go())
        assert not r.ok and r.error_kind is FailureKind.PARSE and not r.incomplete
        assert r.error.startswith("schema violation") and "not one of" in r.error
        assert len(srv.requests) == 3  # the first ask and 2 re-asks


def test_response_format_forms():
    """json_schema for remote servers; llama.cpp's json_object+schema form for local ones."""
    with ScriptedServer(good) as srv:

        async def go():
            async with client() as c:
                await c.chat(spec_for(srv), ask(), schema=SCHEMA)
                await c.chat(spec_for(srv, model="forced", response_format="json_object"), ask(), schema=SCHEMA)
                await c.chat(spec_for(srv), ask(1))  # no schema: no response_format

        run(go())
        rf0 = srv.requests[0]["response_format"]
        assert rf0["type"] == "json_schema" and rf0["json_schema"]["schema"] == SCHEMA
        assert srv.requests[1]["response_format"] == {"type": "json_object", "schema": SCHEMA}
        assert "response_format" not in srv.requests[2]
    assert _FORMS_LLAMA[0] == "json_object+schema"  # what local (is_local) specs start with


def test_response_format_rejection_falls_back_and_is_remembered():
    """A llama.cpp-like server: 500 on json_schema, accepts json_object with a schema."""

    def llama_like(body):
        rf = body.get("response_format")
        if rf and rf.get("type") not in ("text", "json_object"):
            return Fault.status(500, message="response_format.type: Input should be 'text' or 'json_object'")
        return GOOD

    with ScriptedServer(llama_like) as srv:

        async def go():
            async with client() as c:
                return [await c.chat(spec_for(srv), ask(i), schema=SCHEMA) for i in range(3)]

        results = run(go())
        assert all(r.ok for r in results)
        types = [b["response_format"]["type"] for b in srv.requests]
        assert types == ["json_schema", "json_object", "json_object", "json_object"]
        assert srv.requests[1]["response_format"]["schema"] == SCHEMA


class RefusingTogether(ScriptedServer):
    """A llama.cpp-like server (a 500 on ``json_schema``) whose first ``n`` such requests are
    all in flight before any is refused, as concurrent requests of one run are."""

    def __init__(self, n: int):
        def llama_like(body):
            rf = body.get("response_format")
            if rf and rf.get("type") not in ("text", "json_object"):
                return Fault.status(500, message="response_format.type: Input should be 'text' or 'json_object'")
            return GOOD

        super().__init__(llama_like)
        self.n, self.waiting, self.together = n, 0, None

    async def _chat(self, request):
        body = await request.json()
        if (body.get("response_format") or {}).get("type") == "json_schema" and self.waiting < self.n:
            self.together = self.together or asyncio.Event()
            self.waiting += 1
            if self.waiting == self.n:
                self.together.set()
            await self.together.wait()
        return await super()._chat(request)


def test_concurrent_refusals_of_a_form_step_down_once():
    """Four requests refused together for their JSON schema step the model down one form, to
    llama.cpp's json_object with the schema, not four forms down to the prompt alone."""
    with RefusingTogether(4) as srv:

        async def go():
            async with client() as c:
                return await asyncio.gather(*(c.chat(spec_for(srv, concurrency=4), ask(i), schema=SCHEMA) for i in range(4)))

        results = run(go())
        assert all(r.ok and r.data["answer"] == "B" for r in results)
        forms = [(b["response_format"]["type"], "schema" in b["response_format"]) for b in srv.requests]
    assert forms == [("json_schema", False)] * 4 + [("json_object", True)] * 4


def test_response_format_unsupported_at_all_uses_the_prompt_only():
    def no_rf(body):
        if "response_format" in body:
            return Fault.status(400, message="unknown parameter: response_format")
        return "Here you go: " + GOOD

    with ScriptedServer(no_rf) as srv:

        async def go():
            async with client() as c:
                return [await c.chat(spec_for(srv), ask(i), schema=SCHEMA) for i in range(2)]

        results = run(go())
        assert all(r.ok and r.data["answer"] == "B" for r in results)
        assert ["response_format" in b for b in srv.requests] == [True, True, True, False, False]


# --------------------------------------------------------------------------- accounting


def test_usage_summary_per_model_and_stage(tmp_path):
    with ScriptedServer(lambda b: "one two three") as srv:

        async def go():
            async with client(tmp_path) as c:
                spec = spec_for(srv, price_in_per_1k=1.0, price_out_per_1k=2.0)
                await c.chat(spec, [{"role": "user", "content": "a b c d"}], stage="grading")
                await c.chat(spec, [{"role": "user", "content": "a b c d"}], stage="grading")  # cached
                await c.chat(spec_for(srv, name="other", model="m2"), ask(), stage="feedback")
                return c.usage.summary()

        s = run(go())
        json.dumps(s)  # serialisable
        g = s["stages"]["grading"]
        assert g["requests"] == 2 and g["cached"] == 1 and g["http_requests"] == 1
        assert g["prompt_tokens"] == 4 and g["completion_tokens"] == 3  # the cached answer cost nothing
        m = s["models"]["scripted"]
        assert m["cost_usd"] == pytest.approx(4 / 1000 * 1.0 + 3 / 1000 * 2.0)
        assert s["models"]["other"]["requests"] == 1
        assert s["total"]["requests"] == 3
        assert s["total"]["latency_p50_s"] is not None


def test_missing_key_is_a_one_line_config_error(monkeypatch):
    monkeypatch.delenv("JA_TEST_MISSING_KEY", raising=False)
    spec = ModelSpec("needs-key", "http://127.0.0.1:9/v1", "m", api_key_env="JA_TEST_MISSING_KEY")

    async def go():
        async with client() as c:
            with pytest.raises(ConfigError) as e1:
                await c.preflight(spec)
            with pytest.raises(ConfigError) as e2:
                await c.chat(spec, ask())
            return str(e1.value), str(e2.value)

    m1, m2 = run(go())
    assert m1 == m2 == "model 'needs-key' needs an API key: set the environment variable JA_TEST_MISSING_KEY"


def test_preflight_unreachable_endpoint():
    spec = ModelSpec("down", "http://127.0.0.1:9/v1", "m")

    async def go():
        async with client() as c:
            await c.preflight(spec)

    with pytest.raises(ConfigError, match=r"^model 'down': cannot reach http://127.0.0.1:9/v1 \(") as e:
        run(go())
    assert "\n" not in str(e.value)


def test_preflight_reachable():
    with ScriptedServer(good) as srv:

        async def go():
            async with client() as c:
                t = time.monotonic()
                await c.preflight(spec_for(srv))
                return time.monotonic() - t

        assert run(go()) < 5
        assert srv.requests == []  # /models only; no chat request


def test_server_refusing_seed_is_remembered():
    def no_seed(body):
        if "seed" in body:
            return Fault.status(400, message="Unrecognized request argument supplied: seed")
        return GOOD

    with ScriptedServer(no_seed) as srv:

        async def go():
            async with client() as c:
                return [await c.chat(spec_for(srv), ask(i)) for i in range(3)]

        assert all(r.ok for r in run(go()))
        assert ["seed" in b for b in srv.requests] == [True, False, False, False]


def test_preflight_refused_key(monkeypatch):
    monkeypatch.setenv("JA_TEST_KEY2", "sk-test-FAKEKEY-refused")

    class Refusing(ScriptedServer):
        async def _models(self, request):
            from starlette.responses import JSONResponse

            return JSONResponse({"error": {"message": "invalid api key"}}, status_code=401)

    with Refusing(good) as srv:

        async def go(spec):
            async with client() as c:
                await c.preflight(spec)

        with pytest.raises(ConfigError) as e:
            run(go(spec_for(srv, api_key_env="JA_TEST_KEY2")))
        assert str(e.value) == f"model 'scripted': the key in JA_TEST_KEY2 was refused by {srv.base_url} (HTTP 401)"
        with pytest.raises(ConfigError, match="wants an API key"):
            run(go(spec_for(srv)))
