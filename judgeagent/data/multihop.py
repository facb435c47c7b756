"""MultiHop-RAG: phrase-answer questions over a corpus of news articles (KQA).

Folder layout (as in the real dataset): ``corpus.json``, a JSON list of articles
``{title, body, category, source, published_at, url, author?}``, and ``MultiHopRAG.json``,
a JSON list of ``{query, answer, question_type, evidence_list: [{fact, title, ...}]}``.

One Document per article, id ``a{i}`` with ``i`` its 0-based position in corpus.json. The
body is split on blank lines and packed into chunks. Question ids are ``q{i}`` likewise.
Questions are not tied to one document (the evidence spans several), so ``doc_id`` is
None; the evidence articles are kept in ``meta["evidence_doc_ids"]``.

Errors in these JSON arrays are reported as ``file:N`` with N the 1-based item number.
"null_query" questions (answer "Insufficient information.") are kept and marked in meta.
"""

from __future__ import annotations

import re
from pathlib import Path

from judgeagent.data.benchmark import Benchmark, Chunk, Document, Question, QuestionType
from judgeagent.data.chunking import chunk_document, split_paragraphs
from judgeagent.data.jsonio import Record, read_json_list
from judgeagent.errors import DataError

CORPUS = "corpus.json"
QUESTIONS = "MultiHopRAG.json"


def looks_like(folder: Path) -> bool:
    return (folder / CORPUS).is_file() or (folder / QUESTIONS).is_file()


def load(folder: Path, *, chunk_tokens: int, section_chunks: int = 0, progress: bool = False) -> Benchmark:
    corpus_path, questions_path = folder / CORPUS, folder / QUESTIONS
    for path in (corpus_path, questions_path):
        if not path.is_file():
            raise DataError(folder, f"MultiHop-RAG layout needs both {CORPUS} and {QUESTIONS}; {path.name} is missing")
    documents: list[Document] = []
    chunks: list[Chunk] = []
    by_title: dict[str, list[str]] = {}
    for i, record in enumerate(read_json_list(corpus_path, what="articles")):
        title = record.require("title")
        body = record.require("body", nonempty=False)
        doc, doc_chunks = chunk_document(f"a{i}", title, split_paragraphs(body), chunk_tokens)
        documents.append(doc)
        chunks += doc_chunks
        by_title.setdefault(_title_key(title), []).append(doc.id)
    questions = [
        _question(i, record, by_title) for i, record in enumerate(read_json_list(questions_path, what="questions"))
    ]
    return Benchmark(
        name=folder.resolve().name,
        format="multihop",
        qtype=QuestionType.KQA,
        questions=questions,
        documents=documents,
        chunks=chunks,
        source_files=[str(corpus_path), str(questions_path)],
    )


def _title_key(title: str) -> str:
    # Evidence titles are copied from the corpus, but stray spacing differences should
    # not make an otherwise valid benchmark unloadable.
    return re.sub(r"\s+", " ", title).strip().casefold()


def _question(index: int, record: Record, by_title: dict[str, list[str]]) -> Question:
    query = record.require("query")
    answer = record.require("answer")
    question_type = record.require("question_type")
    evidence = record.optional("evidence_list", list, default=[])
    titles: list[str] = []
    facts: list[str] = []
    doc_ids: list[str] = []
    for k, item in enumerate(evidence, 1):
        ev = record.child(item, f"evidence {k}")
        title = ev.require("title")
        matches = by_title.get(_title_key(title))
        if not matches:
            raise ev.error(f'title "{title}" is not the title of any article in {CORPUS}')
        titles.append(title)
        facts.append(ev.optional("fact", default=""))
        doc_ids += [d for d in matches if d not in doc_ids]
    return Question(
        id=f"q{index}",
        question=query,
        answer=answer,
        options=None,
        difficulty=None,
        doc_id=None,
        meta={
            "question_type": question_type,
            "null_query": question_type == "null_query",
            "evidence_titles": titles,
            "evidence_doc_ids": doc_ids,
            "evidence_facts": facts,
        },
    )
