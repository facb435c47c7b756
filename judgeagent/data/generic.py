"""Our own generic JSONL format, for bringing any benchmark.

Folder layout:

- ``corpus.jsonl``: one reference document per line, ``{doc_id, title?, text}``; the text
  is split on blank lines (or on lines if it has none) and packed into chunks.
- ``questions.jsonl``: ``{id, question, options?, answer, difficulty?, doc_id?}``.
  ``options`` is a list (lettered A, B, ...) or a ``{letter: text}`` object; ``answer`` is
  a letter or the exact text of an option and is stored as the letter. ``difficulty`` is
  easy / medium / hard or absent. ``doc_id`` must name a corpus document.
- ``benchmark.json`` (optional): ``{"question_type": "kmc" | "kqa" | "rmc"}``. Without it,
  questions with options make a KMC benchmark and questions without make a KQA one.
  Multiple-choice types need options on every question; RMC also needs ``doc_id`` (the
  article shown to the target); KQA questions must not have options.
"""

from __future__ import annotations

import json
import string
from pathlib import Path

from judgeagent.data.benchmark import DIFFICULTIES, Benchmark, Chunk, Document, Question, QuestionType
from judgeagent.data.chunking import chunk_document, split_paragraphs
from judgeagent.data.jsonio import Record, UniqueIds, read_jsonl, read_text
from judgeagent.errors import DataError

CORPUS = "corpus.jsonl"
QUESTIONS = "questions.jsonl"
SETTINGS = "benchmark.json"
SEEDS = "seeds.json"  # written by `judgeagent seeds`: how the questions were made, and their audit once one is carried


def looks_like(folder: Path) -> bool:
    return (folder / CORPUS).is_file() or (folder / SETTINGS).is_file()


def load(folder: Path, *, chunk_tokens: int, section_chunks: int = 0, progress: bool = False) -> Benchmark:
    corpus_path, questions_path, settings_path = folder / CORPUS, folder / QUESTIONS, folder / SETTINGS
    for path in (corpus_path, questions_path):
        if not path.is_file():
            raise DataError(folder, f"generic layout needs both {CORPUS} and {QUESTIONS}; {path.name} is missing")
    declared = _declared_type(settings_path) if settings_path.is_file() else None

    documents: list[Document] = []
    chunks: list[Chunk] = []
    doc_ids = UniqueIds("doc_id")
    for record in read_jsonl(corpus_path, what="documents"):
        doc_id = record.require_id("doc_id")
        doc_ids.add(doc_id, record)
        text = record.require("text")
        title = record.optional("title", default=doc_id)
        doc, doc_chunks = chunk_document(doc_id, title, split_paragraphs(text), chunk_tokens)
        documents.append(doc)
        chunks += doc_chunks

    records = read_jsonl(questions_path, what="questions")
    qtype = declared or (QuestionType.KMC if records[0].data.get("options") is not None else QuestionType.KQA)
    question_ids = UniqueIds("question id")
    questions = []
    for record in records:
        q = _question(record, qtype, doc_ids, declared is not None)
        question_ids.add(q.id, record)
        questions.append(q)

    sources = [str(corpus_path), str(questions_path)] + ([str(settings_path)] if declared else [])
    return Benchmark(
        name=folder.resolve().name,
        format="generic",
        qtype=qtype,
        questions=questions,
        documents=documents,
        chunks=chunks,
        source_files=sources,
    )


def seed_audit(folder: Path) -> dict | None:
    """The audit block of a seed set (``seeds.json``'s ``audit``), which every run made on the
    set reports beside its figures; None for any other folder, or before an audit is carried."""
    path = Path(folder) / SEEDS
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    block = manifest.get("audit") if isinstance(manifest, dict) else None
    return block if isinstance(block, dict) else None


def _declared_type(path: Path) -> QuestionType:
    text = read_text(path)
    try:
        settings = json.loads(text)
    except json.JSONDecodeError as err:
        raise DataError(path, f"not valid JSON ({err.msg} at column {err.colno})", err.lineno) from None
    if not isinstance(settings, dict):
        raise DataError(path, "expected a JSON object like {\"question_type\": \"kmc\"}", 1)
    record = Record(settings, path, 1)
    value = record.require("question_type").strip().lower()
    allowed = [t.value for t in QuestionType]
    if value not in allowed:
        raise record.error(f'question_type "{value}" is not one of {", ".join(allowed)}')
    return QuestionType(value)


def _question(record: Record, qtype: QuestionType, doc_ids: UniqueIds, declared: bool) -> Question:
    qid = record.require_id("id")
    text = record.require("question")
    options = _options(record)
    if declared:
        why = f"question_type is {qtype.value}"
    else:
        why = "the first question has " + ("options" if qtype.is_multiple_choice else "no options")
    if qtype.is_multiple_choice and options is None:
        raise record.error(f'missing field "options" ({why})')
    if not qtype.is_multiple_choice and options is not None:
        raise record.error(f'has "options" but {why}; a KQA question has none')
    answer = _answer(record, options)
    difficulty = record.optional("difficulty")
    if difficulty is not None:
        difficulty = difficulty.strip().lower()
        if difficulty not in DIFFICULTIES:
            raise record.error(f'difficulty "{difficulty}" is not one of {", ".join(DIFFICULTIES)}')
    doc_id = record.data.get("doc_id")
    if doc_id is not None:
        doc_id = record.require_id("doc_id")
        if doc_id not in doc_ids:
            raise record.error(f'doc_id "{doc_id}" is not a doc_id in {CORPUS}')
    elif qtype is QuestionType.RMC:
        raise record.error('missing field "doc_id" (an RMC question needs the article it is about)')
    known = {"id", "question", "options", "answer", "difficulty", "doc_id"}
    return Question(
        id=qid,
        question=text,
        answer=answer,
        options=options,
        difficulty=difficulty,
        doc_id=doc_id,
        meta={k: v for k, v in record.data.items() if k not in known},
    )


def _options(record: Record) -> dict[str, str] | None:
    raw = record.data.get("options")
    if raw is None:
        return None
    if isinstance(raw, list):
        if len(raw) > 26:
            raise record.error(f"too many options ({len(raw)}; at most 26)")
        pairs = list(zip(string.ascii_uppercase, raw))
    elif isinstance(raw, dict):
        pairs = list(raw.items())
    else:
        raise record.error('field "options" must be a list or an object {letter: text}')
    options: dict[str, str] = {}
    for key, value in pairs:
        letter = str(key).strip().upper()
        if len(letter) != 1 or letter not in string.ascii_uppercase:
            raise record.error(f'option key "{key}" is not a single letter')
        if not isinstance(value, str) or not value.strip():
            raise record.error(f'option {letter} must be a non-empty string')
        options[letter] = value
    if len(options) < 2:
        raise record.error("a multiple-choice question needs at least 2 options")
    return options


def _answer(record: Record, options: dict[str, str] | None) -> str:
    answer = record.data.get("answer")
    if answer is None:
        raise record.error('missing field "answer"')
    if isinstance(answer, (int, float)) and not isinstance(answer, bool):
        answer = str(answer)  # numeric phrase answers ("1969") written without quotes
    if not isinstance(answer, str):
        raise record.error('field "answer" must be a string')
    if not answer.strip():
        raise record.error('field "answer" is empty')
    if options is None:
        return answer.strip()
    letter = answer.strip().upper()
    if letter in options:
        return letter
    wanted = " ".join(answer.split()).casefold()
    matches = [k for k, v in options.items() if " ".join(v.split()).casefold() == wanted]
    if len(matches) == 1:
        return matches[0]
    if len(matches) > 1:
        raise record.error(f'answer "{answer}" matches several options ({", ".join(matches)})')
    letters = ", ".join(options)
    raise record.error(f'answer "{answer}" is neither an option letter ({letters}) nor the text of an option')
