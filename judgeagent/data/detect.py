"""Recognising a benchmark folder's format and loading it.

Detection looks at marker files, in this order (the first that matches wins):

1. ``multihop``: ``corpus.json`` or ``MultiHopRAG.json``;
2. ``generic``:  ``corpus.jsonl`` or ``benchmark.json``;
3. ``medqa``:    a ``textbooks/`` folder;
4. ``quality``:  a file (any name, any extension) whose first line is a JSON object with
   ``article_id`` and ``questions``;
5. ``documents``, only where a folder without questions will do (``build-graph``): any
   other folder holding, at any depth, a file a document reader knows (PDF, HTML, DOCX,
   Markdown, text: :mod:`judgeagent.data.documents`). A command that asks questions
   refuses it with a line saying to write seed questions from its graph first.

A folder that has a format's marker but lacks one of its other files is detected as that
format, and its loader then says which file is missing: "you are missing MultiHopRAG.json"
is more useful than "unknown layout".
"""

from __future__ import annotations

from pathlib import Path

from judgeagent.data import generic, medqa, multihop, quality
from judgeagent.data.benchmark import Benchmark
from judgeagent.data.documents import folder as documents
from judgeagent.data.documents import known_types
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

NO_QUESTIONS = (
    "a folder of documents has no questions: build its graph (judgeagent build-graph), "
    "then write seed questions from it (judgeagent seeds) and give their folder instead"
)


def detect_format(path: Path | str, *, with_documents: bool = False) -> str:
    """"medqa" | "multihop" | "quality" | "generic", or with ``with_documents`` "documents" for
    any other folder holding a document (it has no questions); DataError if none fits.

    A folder of documents is what is left when no benchmark layout fits, so a command that
    needs questions names the layouts it expected and, when the folder holds documents, says
    how to get questions from them.
    """
    folder = _folder(path)
    for name, module in _LOADERS.items():
        if module.looks_like(folder):
            return name
    has_documents = documents.looks_like(folder)
    if with_documents and has_documents:
        return documents.FORMAT
    found = sorted(p.name + ("/" if p.is_dir() else "") for p in folder.iterdir() if not p.name.startswith("."))
    shown = ", ".join(found[:10]) + (f", ... ({len(found)} entries)" if len(found) > 10 else "")
    message = f"unknown benchmark layout; expected {EXPECTED_LAYOUTS}; found: {shown or 'an empty folder'}"
    if has_documents:
        message = f"{NO_QUESTIONS}; or, if it is meant to be a benchmark: {message}"
    elif not with_documents:
        message += f" (build-graph also reads a folder of documents: {known_types()} files)"
    else:
        message += f"; or a folder of documents ({known_types()} files)"
    raise DataError(folder, message)


def load_benchmark(
    path: Path | str, *, chunk_tokens: int = 200, section_chunks: int = 6, questions: bool = True,
    strict: bool = False, progress: bool = False,
) -> Benchmark:
    """Detect the format of the folder ``path`` and load it.

    ``questions=False`` accepts a folder with none (a folder of documents: ``build-graph``);
    with ``questions=True`` such a folder is refused before anything is read. ``strict``
    refuses a folder of documents in which a file cannot be read (by default it is left
    out and listed in ``Benchmark.skipped``). ``progress`` shows a bar while documents are
    converted.
    """
    if chunk_tokens < 1:
        raise ConfigError(f"chunk_tokens must be at least 1, got {chunk_tokens}")
    if section_chunks < 1:
        raise ConfigError(f"section_chunks must be at least 1, got {section_chunks}")
    folder = _folder(path)
    fmt = detect_format(folder, with_documents=not questions)
    loader = documents if fmt == documents.FORMAT else _LOADERS[fmt]
    benchmark = loader.load(folder, chunk_tokens=chunk_tokens, section_chunks=section_chunks, progress=progress)
    if strict and benchmark.skipped:
        first = benchmark.skipped[0]
        others = len(benchmark.skipped) - 1
        more = f"; {others} more file{'s' if others != 1 else ''} cannot be read" if others else ""
        raise DataError(folder / first.source, f"{first.reason} (--strict refuses a folder with a file it cannot read{more})")
    if questions and not benchmark.questions:
        raise DataError(folder, "the benchmark has no questions")
    return benchmark


def _folder(path: Path | str) -> Path:
    folder = Path(path)
    if not folder.exists():
        raise DataError(folder, "no such folder")
    if not folder.is_dir():
        raise DataError(folder, "not a folder (give the benchmark's folder, not one of its files)")
    return folder
