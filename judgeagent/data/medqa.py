"""MedQA: multiple-choice medical questions plus textbooks as reference texts (KMC).

Folder layout. Textbooks are the ``.txt`` files directly in ``textbooks/``; if there are
none there, those in ``textbooks/en/`` (the layout of the real MedQA download, whose
``textbooks/`` also holds Chinese folders that are ignored). Each textbook has one
paragraph per line.

The questions file is the first of these that exists:

1. ``questions.jsonl`` (our demo and test layout);
2. ``questions/US/4_options/phrases_no_exclude_test.jsonl`` (real MedQA, 4-option test set,
   the setting of the JudgeAgent paper);
3. ``questions/US/test.jsonl`` (real MedQA, 5-option test set).

Each question line is ``{question, options: {A: .., B: ..}, answer_idx, answer, meta_info}``.

Documents are textbook "sections": each textbook's chunks cut into runs of
``section_chunks`` consecutive chunks, since a whole textbook is far too large to be one
document for the graph's document-level (weak) edges.
"""

from __future__ import annotations

from pathlib import Path

from judgeagent.data.benchmark import Benchmark, Chunk, Document, Question, QuestionType
from judgeagent.data.chunking import chunk_paragraphs
from judgeagent.data.jsonio import Record, read_jsonl, read_lines
from judgeagent.errors import DataError

QUESTION_FILES = (
    Path("questions.jsonl"),
    Path("questions/US/4_options/phrases_no_exclude_test.jsonl"),
    Path("questions/US/test.jsonl"),
)


def looks_like(folder: Path) -> bool:
    return (folder / "textbooks").is_dir()


def textbook_files(folder: Path) -> list[Path]:
    for candidate in (folder / "textbooks", folder / "textbooks" / "en"):
        files = sorted(p for p in candidate.glob("*.txt") if p.is_file())
        if files:
            return files
    raise DataError(folder / "textbooks", "no .txt textbooks found (looked in textbooks/ and textbooks/en/)")


def questions_file(folder: Path) -> Path:
    for relative in QUESTION_FILES:
        if (folder / relative).is_file():
            return folder / relative
    expected = ", ".join(str(p) for p in QUESTION_FILES)
    raise DataError(folder, f"MedQA layout (has textbooks/) but no questions file; expected one of: {expected}")


def load(folder: Path, *, chunk_tokens: int, section_chunks: int, progress: bool = False) -> Benchmark:
    qfile = questions_file(folder)
    # Ids are "<file stem>-<line>", so they are unique by construction.
    questions = [_question(r) for r in read_jsonl(qfile, what="MedQA questions")]
    books = textbook_files(folder)
    documents: list[Document] = []
    chunks: list[Chunk] = []
    for book in books:
        docs, book_chunks = _textbook(book, chunk_tokens, section_chunks)
        documents += docs
        chunks += book_chunks
    return Benchmark(
        name=folder.resolve().name,
        format="medqa",
        qtype=QuestionType.KMC,
        questions=questions,
        documents=documents,
        chunks=chunks,
        source_files=[str(qfile)] + [str(b) for b in books],
    )


def _question(record: Record) -> Question:
    text = record.require("question")
    raw_options = record.require("options", dict)
    options: dict[str, str] = {}
    for key, value in raw_options.items():
        letter = str(key).strip().upper()
        if len(letter) != 1 or not letter.isalpha():
            raise record.error(f'option key "{key}" is not a single letter')
        if not isinstance(value, str) or not value.strip():
            raise record.error(f'option "{key}" must be a non-empty string')
        options[letter] = value
    answer = str(record.require("answer_idx")).strip().upper()
    if answer not in options:
        raise record.error(f'answer_idx "{answer}" is not among the options ({", ".join(options)})')
    return Question(
        id=f"{record.path.stem}-{record.line}",
        question=text,
        answer=answer,
        options=options,
        difficulty=None,
        doc_id=None,
        meta={"meta_info": record.data.get("meta_info")},
    )


def _textbook(path: Path, chunk_tokens: int, section_chunks: int) -> tuple[list[Document], list[Chunk]]:
    paragraphs = [text for _, text in read_lines(path)]
    if not paragraphs:
        raise DataError(path, "textbook is empty")
    texts = chunk_paragraphs(paragraphs, chunk_tokens)
    stem = path.stem
    documents: list[Document] = []
    chunks: list[Chunk] = []
    for n, start in enumerate(range(0, len(texts), section_chunks), 1):
        doc_id = f"{stem}-s{n}"
        section = [
            Chunk(id=f"{doc_id}-c{k}", doc_id=doc_id, text=t)
            for k, t in enumerate(texts[start : start + section_chunks], 1)
        ]
        documents.append(Document(id=doc_id, title=f"{stem} §{n}", chunk_ids=tuple(c.id for c in section)))
        chunks += section
    return documents, chunks
