"""Long articles cost once (issue 16): every request about one RMC article starts with the same
bytes, the providers' cached prompt tokens are read and priced at the cached rate, and
metrics.json and the report show the cached share per stage.

The provider emulations (tests/scripted_server.py) report cached tokens the way OpenAI
(``usage.prompt_tokens_details.cached_tokens``) and DeepSeek (``prompt_cache_hit_tokens`` /
``prompt_cache_miss_tokens``) document them; token counts there are whitespace words.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from interview_double import Script, schema_name
from scripted_server import DeepSeekPromptCache, OpenAIPromptCache, ScriptedServer
from typer.testing import CliRunner

from judgeagent.cli.app import app
from judgeagent.data.benchmark import Question, QuestionType
from judgeagent.llm import LLMClient
from judgeagent.llm.local_server import LocalServer
from judgeagent.llm.registry import ModelSpec, load_registry
from judgeagent.llm.sender import reply_from
from judgeagent.llm.structured import schema_instructions
from judgeagent.llm.usage import TokenUsage, cost_usd
from judgeagent.metrics.figures import InterviewFigures
from judgeagent.prompts import render
from judgeagent.report import sections
from judgeagent.stages.grading import answer_schema, ask_batch
from judgeagent.stages.models import Models

ROOT = Path(__file__).resolve().parents[1] / "data"
RMC = QuestionType.RMC
T, F = True, False
# The QuALITY demo's 16 questions (articles of 5, 6 and 5), right before / after advice.
PLAN = [(T, T), (F, T), (F, F), (T, F), (F, T), (F, T), (F, T), (T, T), (T, T), (T, T), (F, F), (F, F), (F, F), (F, T), (T, T), (F, T)]


def prompt_bytes(body: dict) -> bytes:
    """A request's prompt as a provider caches it: the structured-output schema (OpenAI puts
    it ahead of the system message), then each message's role and content, in order."""
    parts = [json.dumps(body.get("response_format"), sort_keys=True)]
    parts += [f"{m['role']}\n{m['content']}" for m in body["messages"]]
    return "\x00".join(parts).encode()


def common_prefix(blobs: list[bytes]) -> int:
    first, n = blobs[0], len(blobs[0])
    for b in blobs[1:]:
        n = min(n, len(b))
        n = next((i for i in range(n) if first[i] != b[i]), n)
    return n


def articles() -> dict[str, str]:
    return {d["article_id"]: d["article"] for d in map(json.loads, (ROOT / "quality-demo" / "quality.jsonl").open())}


@pytest.fixture(scope="module")
def quality_graph(tmp_path_factory, spacy_extractor):
    from judgeagent.config import GraphConfig
    from judgeagent.data import load_benchmark
    from judgeagent.graph import build_graph

    out = tmp_path_factory.mktemp("graphs") / "quality-demo"
    build_graph(load_benchmark(ROOT / "quality-demo"), GraphConfig(), out, progress=False, extractor=spacy_extractor)
    return out


def run_interview(tmp_path: Path, graph: Path, provider=None, models_toml: str = ""):
    """`judgeagent evaluate` on the QuALITY demo against the scripted target and judge;
    returns (request bodies, metrics)."""
    from judgeagent.data import load_benchmark

    seeds = load_benchmark(ROOT / "quality-demo").questions
    script = Script(seed_plan={q.question.strip(): p for q, p in zip(seeds, PLAN)}, answers={q.question.strip(): q.answer for q in seeds})
    with ScriptedServer(script, provider=provider) as srv:
        models = tmp_path / "judgeagent.toml"
        models.write_text(f'[models.scripted]\nbase_url = "{srv.base_url}"\nmodel = "scripted"\n{models_toml}')
        result = CliRunner().invoke(app, [
            "evaluate", "--target", "scripted", "--judge", "scripted", "--models", str(models), "--data", str(ROOT / "quality-demo"),
            "--graph", str(graph), "--out", str(tmp_path / "run"), "--concurrency", "2", "--rounds", "2",
            "--no-report", "--no-summary", "--leak-check", "rules",
        ])  # fmt: skip
        bodies = srv.requests
    assert result.exit_code == 0, result.output
    return bodies, json.loads((tmp_path / "run" / "metrics.json").read_text())


def shared_part(body: dict, article: str) -> bytes:
    """What every request about ``article`` should share: schema, system message, the article
    block and the fixed instructions, up to where the varying part starts."""
    user = render("answer_context", context=article.strip()) + "\n\n" + render("answer_batch_mc") + "\n\n"
    parts = [json.dumps(body.get("response_format"), sort_keys=True), f"system\n{body['messages'][0]['content']}", f"user\n{user}"]
    return "\x00".join(parts).encode()


def test_every_request_about_one_article_starts_with_the_same_bytes(tmp_path, quality_graph, capsys):
    bodies, m = run_interview(tmp_path, quality_graph)
    answers = [b for b in bodies if schema_name(b) == "answer_batch"]
    by_article = {doc: [b for b in answers if text.strip() in b["messages"][-1]["content"]] for doc, text in articles().items()}
    # Every answer request is about one article: seeds, re-asks, controls and follow-ups.
    assert sorted(len(v) for v in by_article.values()) == sorted([2 * 4 + 2 * 2] * 3)
    assert sum(map(len, by_article.values())) == len(answers) == 36
    repeated = 0
    for doc, group in by_article.items():
        article = articles()[doc]
        blobs = [prompt_bytes(b) for b in group]
        n = common_prefix(blobs)
        assert n >= len(article.encode())
        # exactly the shared part: the first byte after it differs between requests
        assert n == len(shared_part(group[0], article))
        kinds = {"Advice from your examiner" in b["messages"][-1]["content"] for b in group}
        assert kinds == {True, False}
        follow_ups = [b for b in group if "Questions: 1." in b["messages"][-1]["content"]]
        assert len(follow_ups) == 4  # two batches of two rounds, each with the whole article first
        repeated += n * (len(group) - 1)
    assert m["extension"]["asked"] == 12
    with capsys.disabled():
        print(f"\nrepeated prefix: {repeated:,} bytes over {len(answers)} answer requests about 3 articles")


def test_an_interview_reports_the_cached_share_per_stage(tmp_path, quality_graph):
    # A prompt cache of test size (words, not tokens): a shared prefix of 256 words or more.
    prices = "price_in_per_1k = 1.0\nprice_out_per_1k = 2.0\nprice_cached_in_per_1k = 0.1\n"
    bodies, m = run_interview(tmp_path, quality_graph, OpenAIPromptCache(minimum=256, block=64), prices)
    stages = m["llm_usage"]["stages"]
    for name in ("grading", "extension", "validation", "control-plain", "control-placebo"):
        b = stages[name]
        assert b["cached_share"] == round(b["cached_prompt_tokens"] / b["prompt_tokens"], 4)
    # Only the first request about each article reads it in full; every later one (follow-ups,
    # re-asks, controls) reads it from the cache. (Bounds, not values: with two batches at
    # once, which request comes first varies.)
    assert stages["extension"]["cached_share"] > 0.85 and stages["control-plain"]["cached_share"] > 0.9
    assert stages["validation"]["cached_share"] > 0.75 and stages["control-placebo"]["cached_share"] > 0.75
    assert stages["generation"]["cached_share"] == stages["feedback"]["cached_share"] == 0.0  # no shared long prefix
    total = m["llm_usage"]["total"]
    assert total["cached_prompt_tokens"] == sum(b["cached_prompt_tokens"] for b in stages.values())
    expected = sum(
        (b["prompt_tokens"] - b["cached_prompt_tokens"]) / 1000 * 1.0 + b["cached_prompt_tokens"] / 1000 * 0.1 + b["completion_tokens"] / 1000 * 2.0
        for b in stages.values()
    )
    assert total["cost_usd"] == pytest.approx(expected, abs=1e-5)
    table = sections.usage(InterviewFigures.from_json(m))
    rows = {r[0]: dict(zip(table.columns, r)) for r in table.rows}
    assert rows["validation"]["prompt cached %"] == f"{100 * stages['validation']['cached_share']:.2f}"


ARTICLE = " ".join(f"word{i}" for i in range(1500))
SEEDS = [Question(f"s{i}", f"Seed question {i}?", "A", {"A": "yes", "B": "no", "C": "maybe", "D": "never"}, "easy", doc_id="d") for i in range(3)]
FOLLOW_UP = Question("f1", "Follow-up question?", "A", {"A": "yes", "B": "no", "C": "maybe", "D": "never"}, "medium", doc_id="d")


def ask_about_one_article(provider) -> tuple[dict, list[dict]]:
    """The seed batch, its re-ask with advice and one follow-up, about one 1,500-word article;
    returns the client's usage by stage and the bodies sent."""

    async def go(srv):
        spec = ModelSpec("m", srv.base_url, "model-x", price_in_per_1k=1.0, price_out_per_1k=2.0, price_cached_in_per_1k=0.25)
        async with LLMClient(None) as client:
            models = Models(client, spec, spec)
            await ask_batch(models, RMC, SEEDS, stage="grading", context=ARTICLE)
            await ask_batch(models, RMC, SEEDS, stage="validation", context=ARTICLE, suggestions="Read slowly.")
            await ask_batch(models, RMC, [FOLLOW_UP], stage="extension", context=ARTICLE)
            return client.usage.summary()["stages"]

    with ScriptedServer(lambda b: '{"response": [{"answer": "A"}, {"answer": "A"}, {"answer": "A"}]}', provider=provider) as srv:
        stages = asyncio.run(go(srv))
        return stages, srv.requests


def shared_words() -> int:
    """Words every request about ARTICLE shares: the system message with the schema's
    description, the article block and the fixed instructions."""
    system = render("answer_system") + "\n\n" + schema_instructions(answer_schema(RMC, SEEDS, shared=True))
    return len(system.split()) + len((render("answer_context", context=ARTICLE) + " " + render("answer_batch_mc")).split())


def test_openai_cached_tokens_are_read_and_priced_at_the_cached_rate():
    stages, bodies = ask_about_one_article(OpenAIPromptCache())
    shared = shared_words()
    blocks = lambda n: 1024 + (n - 1024) // 128 * 128  # noqa: E731  (hits count in 128-token blocks)
    # the re-ask shares the prefix; the follow-up also shares the next word ("Questions:") with the seeds
    assert [stages[s]["cached_prompt_tokens"] for s in ("grading", "validation", "extension")] == [0, blocks(shared), blocks(shared + 1)]
    v = stages["validation"]
    assert v["cost_usd"] == pytest.approx(((v["prompt_tokens"] - blocks(shared)) * 1.0 + blocks(shared) * 0.25 + v["completion_tokens"] * 2.0) / 1000, abs=1e-6)
    assert v["cached_share"] == round(blocks(shared) / v["prompt_tokens"], 4)
    assert len({json.dumps(b["response_format"]) for b in bodies}) == 1  # one schema: it is part of the prefix


def test_deepseek_cache_hit_tokens_are_read():
    stages, _ = ask_about_one_article(DeepSeekPromptCache())
    # The re-ask does not contain the whole first prompt, so it misses; it makes the common
    # prefix a cache unit, which the follow-up then hits.
    assert [stages[s]["cached_prompt_tokens"] for s in ("grading", "validation", "extension")] == [0, 0, shared_words()]


@pytest.mark.parametrize(
    "usage, cached",
    [
        ({"prompt_tokens": 2000, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 1920, "audio_tokens": 0}}, 1920),
        ({"prompt_tokens": 2000, "completion_tokens": 5, "prompt_cache_hit_tokens": 1984, "prompt_cache_miss_tokens": 16}, 1984),
        ({"prompt_tokens": 2000, "completion_tokens": 5, "prompt_tokens_details": None}, 0),
        ({"prompt_tokens": 2000, "completion_tokens": 5}, 0),
        ({"prompt_tokens": 10, "completion_tokens": 5, "prompt_tokens_details": {"cached_tokens": 64}}, 10),  # never above the prompt
    ],
)
def test_cached_prompt_tokens_from_either_provider_field(usage, cached):
    reply = reply_from({"choices": [{"message": {"content": "ok"}, "finish_reason": "stop"}], "usage": usage}, [])
    assert (reply.tokens.prompt_tokens, reply.tokens.cached_tokens) == (usage["prompt_tokens"], cached)


def test_cost_prices_cached_tokens_at_the_cached_rate_and_at_full_price_without_one():
    t = TokenUsage(prompt_tokens=2000, completion_tokens=100, cached_tokens=1500)
    assert cost_usd(t, 2.0, 8.0, 0.5) == pytest.approx(0.5 * 2.0 + 1.5 * 0.5 + 0.1 * 8.0)
    assert cost_usd(t, 2.0, 8.0) == pytest.approx(2.0 * 2.0 + 0.1 * 8.0)


def test_presets_carry_published_cached_prices_and_the_models_file_may_set_one(tmp_path):
    reg = load_registry()
    got = {n: reg.resolve(n).price_cached_in_per_1k for n in ("gpt-4.1", "deepseek", "deepseek-reasoner", "qwen3", "gemini-2.5-pro", "glm4-flash", "local")}
    assert got == {"gpt-4.1": 0.0005, "deepseek": 0.00007, "deepseek-reasoner": 0.00014, "qwen3": 0.00008, "gemini-2.5-pro": 0.000125,
                   "glm4-flash": None, "local": None}  # fmt: skip
    assert reg.resolve("openai:gpt-4.1-mini").price_cached_in_per_1k is None  # not looked up: full input price
    f = tmp_path / "judgeagent.toml"
    f.write_text('[models.mine]\nbase_url = "http://127.0.0.1:9/v1"\nmodel = "m"\nprice_cached_in_per_1k = 0.01\n')
    assert load_registry(f).resolve("mine").price_cached_in_per_1k == 0.01


def test_the_bundled_server_keeps_recent_prompt_states_for_prefix_reuse(monkeypatch):
    cmd = LocalServer(Path("/models/smol.gguf")).command(8080)
    i = cmd.index("--cache")
    assert cmd[i : i + 6] == ["--cache", "True", "--cache_type", "ram", "--cache_size", str(256 << 20)]
    assert "--cache" not in LocalServer(Path("/models/smol.gguf"), prompt_cache_bytes=0).command(8080)
