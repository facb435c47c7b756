"""What a stage needs to talk to models: the one client, and who plays target and judge."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from judgeagent.errors import CallFailed
from judgeagent.llm.client import LLMResult

if TYPE_CHECKING:
    from judgeagent.llm.client import LLMClient, LLMResult
    from judgeagent.llm.registry import ModelSpec


@dataclass
class Models:
    client: LLMClient
    target: ModelSpec
    judge: ModelSpec
    seed: int = 0

    # ``temperature`` None: the model's own, from its spec (judgeagent.toml); a stage passes
    # one only to sample again on purpose (a regeneration after an unusable reply).
    # ``max_tokens`` is the budget of the visible answer; a thinking model gets its allowance on top.

    # A call that came back with no answer (``result.incomplete``: endpoint, timeout, quota,
    # output limit) raises CallFailed: no stage may grade it wrong or write around it. The run
    # writes the batch as incomplete and a rerun retries it. An unusable reply the model did
    # give (parse / empty) comes back as ``ok=False``: that is the model's answer.

    async def ask_target(self, messages: list[dict[str, str]], *, schema: dict[str, Any] | None, stage: str, max_tokens: int,
                         variant: str | None = None) -> LLMResult:
        return answered(await self.client.chat(
            self.target, messages, schema=schema, stage=stage, max_tokens=max_tokens, seed=self.seed, variant=variant
        ), stage)

    async def ask_judge(self, messages: list[dict[str, str]], *, schema: dict[str, Any] | None, stage: str, max_tokens: int,
                        temperature: float | None = None) -> LLMResult:
        return answered(await self.client.chat(
            self.judge, messages, schema=schema, stage=stage, temperature=temperature, max_tokens=max_tokens, seed=self.seed
        ), stage)

    def recall(self, key: str):
        """A decision kept in the run's journal (see LLMClient.recall), or None."""
        return self.client.recall(key)

    def remember(self, key: str, value) -> None:
        self.client.remember(key, value)


def answered(result: LLMResult, stage: str) -> LLMResult:
    """``result``, unless no answer came back: then CallFailed, naming the model and why."""
    if result.incomplete:
        assert result.failure is not None  # incomplete means a failure came back
        raise CallFailed(result.model, stage, str(result.failure.kind), result.error or "")
    return result
