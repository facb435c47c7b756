"""Recognising a benchmark folder's format and loading it.

Detection looks at marker files, in this order (the first that matches wins):

1. ``multihop``: ``corpus.json`` or ``MultiHopRAG.json``;
2. ``generic``:  ``corpus.jsonl`` or ``benchmark.json``;
3. ``medqa``:    a ``textbooks/`` folder;
4. ``quality``:  a file (any name, any extension) whose first line is a JSON object with
   ``article_id`` and ``questions``.

A folder that has a format's marker but lacks one of its other files is detected as that
format, and its loader then says which file is missing: "you are missing MultiHopRAG.json"
is more useful than "unknown layout".
"""

from __future__ import annotations

from pathlib import Path

from judgeagent.data import generic, medqa, multihop, quality
from judgeagent.data.benchmark import Benchmark
from judgeagent.errors import ConfigError, DataError

_LOADERS = {
    "multihop": multihop,
    "generic": generic,
    "medqa": medqa,
    "quality": quality,
}

EXPECTED_LAYOUTS = (
    "MedQA (textbooks/ with .txt files + questions.jsonl), "
    "MultiHop-RAG (corpus.json + MultiHopRAG.json), "
    "QuALITY (JSONL files with one {article_id, questions, ...} per line), "
    "or generic (corpus.jsonl + questions.jsonl)"
)


def detect_format(path: Path | str) -> str:
    """"medqa" | "multihop" | "quality" | "generic"; DataError if the folder is none of them."""
    folder = _folder(path)
    for name, module in _LOADERS.items():
        if module.looks_like(folder):
            return name
    found = sorted(p.name + ("/" if p.is_dir() else "") for p in folder.iterdir() if not p.name.startswith("."))
    shown = ", ".join(found[:10]) + (f", ... ({len(found)} entries)" if len(found) > 10 else "")
    raise DataError(
        folder, f"unknown benchmark layout; expected {EXPECTED_LAYOUTS}; found: {shown or 'an empty folder'}"
    )


def load_benchmark(path: Path | str, *, chunk_tokens: int = 200, section_chunks: int = 6) -> Benchmark:
    """Detect the format of the folder ``path`` and load it."""
    if chunk_tokens < 1:
        raise ConfigError(f"chunk_tokens must be at least 1, got {chunk_tokens}")
    if section_chunks < 1:
        raise ConfigError(f"section_chunks must be at least 1, got {section_chunks}")
    folder = _folder(path)
    fmt = detect_format(folder)
    benchmark = _LOADERS[fmt].load(folder, chunk_tokens=chunk_tokens, section_chunks=section_chunks)
    if not benchmark.questions:
        raise DataError(folder, "the benchmark has no questions")
    return benchmark


def _folder(path: Path | str) -> Path:
    folder = Path(path)
    if not folder.exists():
        raise DataError(folder, "no such folder")
    if not folder.is_dir():
        raise DataError(folder, "not a folder (give the benchmark's folder, not one of its files)")
    return folder
