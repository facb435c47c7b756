"""Prompt tokens as the estimate counts them: MiniLM's word-piece tokenizer (installed with the
package, loaded in milliseconds) plus the chat format's markers. For remote models it stands
in for the provider's BPE tokenizer (for English prose within about 15%); an earlier run's
journal corrects it per model (:mod:`judgeagent.estimation.history`)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

PER_MESSAGE_TOKENS = 4  # the chat format's role markers and separators, per message
PER_REQUEST_TOKENS = 3  # and the assistant turn's opening


def _tokenizer() -> Any:
    from judgeagent.minilm import tokenizer

    return tokenizer()[0]


def count_prompts(prompts: Sequence[Sequence[dict[str, str]]]) -> list[int]:
    """Prompt tokens of each request: word-pieces of every message, plus the chat format's."""
    texts, owners = [], []
    for i, msgs in enumerate(prompts):
        for m in msgs:
            texts.append(str(m.get("content") or ""))
            owners.append(i)
    counts = [PER_REQUEST_TOKENS + PER_MESSAGE_TOKENS * len(msgs) for msgs in prompts]
    if texts:
        for owner, enc in zip(owners, _tokenizer().encode_batch(texts, add_special_tokens=False)):
            counts[owner] += len(enc.ids)
    return counts
