"""Static embeddings: a text's vector is the mean of its tokens' vectors, looked up in a table.

No transformer runs, so a text costs a tokenisation and a few hundred additions, about a
hundred times less CPU than MiniLM on a name. The table is WordLlama's 256-dimension
``l2_supercat`` model, which ships inside the ``wordllama`` wheel (weights and tokenizer;
nothing is downloaded): token vectors trained so that their mean is a sentence embedding.
We read its files ourselves (``safetensors`` and ``tokenizers``) rather than through its
``WordLlama.load``, which would fetch a missing file from a hub.

The arithmetic is the same on every CPU: the table's float16 values are summed per text in
float64, one token after another, and normalised in float64 before the cast to float32, so
no vector depends on the machine's SIMD width, on bf16 support or on what a text was
batched with. A graph whose names are embedded this way is therefore the same graph, bit
for bit, wherever it is built.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from judgeagent.errors import ConfigError

WORDLLAMA_CONFIG = "l2_supercat"
WORDLLAMA_DIM = 256
BATCH = 512  # texts gathered at once: bounds the float64 scratch (tokens x 256 x 8 bytes)


def wordllama_files() -> tuple[Path, Path]:
    """(weights, tokenizer) inside the installed ``wordllama`` package."""
    try:
        import importlib.util

        spec = importlib.util.find_spec("wordllama")
    except (ImportError, ValueError):
        spec = None
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError("the wordllama encoder needs the wordllama package, whose wheel holds the model: "
                          "pip install 'judgeagent[static]' (or use --entity-encoder minilm --chunk-encoder minilm)")
    root = Path(next(iter(spec.submodule_search_locations)))
    weights = root / "weights" / f"{WORDLLAMA_CONFIG}_{WORDLLAMA_DIM}.safetensors"
    tokenizer = root / "tokenizers" / f"{WORDLLAMA_CONFIG}_tokenizer_config.json"
    for path in (weights, tokenizer):
        if not path.is_file():
            raise ConfigError(f"the wordllama package has no {path.name} (reinstall wordllama from its wheel)")
    return weights, tokenizer


def wordllama_version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("wordllama")
    except PackageNotFoundError:
        return "not installed"


class StaticEncoder:
    """``encode(texts)`` → float32 (n, 256), rows L2-normalised: WordLlama's token-vector mean.

    The same interface as :class:`~judgeagent.graph.embed.Embedder` where a graph needs it
    (``encode``, ``dim``, ``precision``, ``backend``, ``loaded``); batch sizes are accepted
    and ignored, since a static vector depends on its own text only.
    """

    name = f"wordllama-{WORDLLAMA_CONFIG}-{WORDLLAMA_DIM}"
    dim = WORDLLAMA_DIM
    backend = "static"
    precision = "fp32"  # float16 table, float64 sums: the same on every CPU

    def __init__(self) -> None:
        self._table: np.ndarray | None = None
        self._tokenizer = None
        self._lock = threading.Lock()

    @property
    def version(self) -> str:
        return wordllama_version()

    @property
    def loaded(self) -> bool:
        return self._table is not None

    def _load(self):
        with self._lock:
            if self._table is None:
                from safetensors.numpy import load_file
                from tokenizers import Tokenizer

                weights, tokenizer = wordllama_files()
                tok = Tokenizer.from_file(str(tokenizer))
                tok.no_padding()
                tok.no_truncation()
                self._tokenizer = tok
                self._table = np.ascontiguousarray(load_file(str(weights))["embedding.weight"])
        return self._table, self._tokenizer

    def encode(self, texts: Sequence[str], batch_size: int | None = None,
               progress: Callable[[int], None] | None = None) -> np.ndarray:
        table, tok = self._load()
        texts = list(texts)
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for lo in range(0, len(texts), BATCH):
            part = texts[lo : lo + BATCH]
            out[lo : lo + len(part)] = _mean_rows(table, [e.ids for e in tok.encode_batch(part, add_special_tokens=False)])
            if progress is not None:
                progress(len(part))
        return out


def _mean_rows(table: np.ndarray, ids: list[list[int]]) -> np.ndarray:
    """Each id list's mean table row, L2-normalised (a text with no token: a zero row)."""
    lengths = np.array([len(x) for x in ids], dtype=np.int64)
    out = np.zeros((len(ids), table.shape[1]), dtype=np.float32)
    has = lengths > 0
    if not has.any():
        return out
    flat = np.concatenate([np.asarray(x, dtype=np.int64) for x in ids if x])
    np.clip(flat, 0, len(table) - 1, out=flat)
    starts = np.concatenate(([0], np.cumsum(lengths[has])[:-1]))
    # reduceat adds each segment's rows in order: the sum is the same whatever the CPU.
    sums = np.add.reduceat(table[flat].astype(np.float64), starts, axis=0)
    # A mean and its sum have the same direction: normalising the sum is the mean's unit vector.
    norms = np.linalg.norm(sums, axis=1, keepdims=True)
    out[has] = (sums / np.maximum(norms, 1e-12)).astype(np.float32)
    return out
