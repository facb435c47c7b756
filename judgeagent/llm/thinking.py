"""Thinking text in replies: take it out before the answer is parsed, and count its tokens.

Servers without a reasoning parser (Ollama, vLLM without ``--reasoning-parser``, llama.cpp
serving Qwen3 or a DeepSeek-R1 distill) put the model's thinking inline, as
``<think> … </think>`` before the answer. The think block often holds ``{``, ``}`` and
JSON-like drafts, so the JSON search must not see it. Some chat templates open the block
in the prompt, so the reply holds only the closing tag. A reply cut off by the output
limit while thinking has an opening tag and no closing one, and no answer at all.
"""

from __future__ import annotations

import re

_BLOCK = re.compile(r"<think>(.*?)</think>", re.S | re.I)
_OPEN = re.compile(r"<think>", re.I)
_CLOSE = re.compile(r"</think>", re.I)


def split_thinking(content: str) -> tuple[str, str, bool]:
    """(answer, thinking, unterminated) of one reply's content.

    - terminated blocks are removed from the answer and collected as thinking;
    - a closing tag with no opening one ends thinking that began in the prompt;
    - an opening tag that never closes leaves only the text before it as the answer.
    """
    thoughts = [m.group(1).strip() for m in _BLOCK.finditer(content)]
    rest = _BLOCK.sub("", content)
    close = list(_CLOSE.finditer(rest))
    if close:  # opened by the chat template, closed in the reply
        thoughts.insert(0, rest[: close[-1].start()].strip())
        rest = rest[close[-1].end() :]
    unterminated = False
    opened = _OPEN.search(rest)
    if opened:
        thoughts.append(rest[opened.end() :].strip())
        rest, unterminated = rest[: opened.start()], True
    return rest.strip(), "\n".join(t for t in thoughts if t), unterminated


def _words(text: str) -> int:
    return len(text.split())


def reasoning_share(completion_tokens: int, thinking: str, answer: str) -> int:
    """Tokens of ``completion_tokens`` spent thinking, when the server does not say.

    Split in proportion to the words of the two parts; without a count from the server,
    the words themselves stand in for tokens.
    """
    think, said = _words(thinking), _words(answer)
    if think == 0:
        return 0
    if completion_tokens <= 0:
        return think
    return round(completion_tokens * think / (think + said))
