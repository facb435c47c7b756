"""QuALITY: multiple-choice reading comprehension over long articles (RMC).

Folder layout: one or more JSONL files, one article per line, ``{article_id, title,
article, topic, questions: [{question, options: [4], gold_label: 1..4, speed_validation:
[{speed_answer}], difficult, question_unique_id?}]}``. File names are free (the real ones
are like ``QuALITY.v1.0.1.htmlstripped.dev``, without a .jsonl extension): a file belongs
to the benchmark when its first line is an object with ``article_id`` and ``questions``.

The same article appears on several lines (one per question writer); it becomes one
Document, id ``article_id``, holding the questions of all its lines.

Difficulty follows docs/concepts/method.md: the number of speed annotators whose answer equals the gold
label, ≤1 hard, 2–3 medium, 4–5 easy; no speed annotations → None. Questions without a
gold label (the real test split) cannot be graded and are skipped, with a warning; the
articles are still loaded.
"""

from __future__ import annotations

import logging
import string
from pathlib import Path

from judgeagent.data.benchmark import Benchmark, Chunk, Document, Question, QuestionType
from judgeagent.data.chunking import chunk_document, split_paragraphs
from judgeagent.data.jsonio import Record, UniqueIds, first_json_object, read_jsonl
from judgeagent.errors import DataError

log = logging.getLogger(__name__)


def quality_files(folder: Path) -> list[Path]:
    return sorted(
        p
        for p in folder.iterdir()
        if p.is_file() and not p.name.startswith(".") and _is_quality_line(first_json_object(p))
    )


def looks_like(folder: Path) -> bool:
    return bool(quality_files(folder))


def difficulty_from_speed(speed_answers: list[int], gold_label: int) -> str | None:
    if not speed_answers:
        return None
    correct = sum(1 for a in speed_answers if a == gold_label)
    if correct <= 1:
        return "hard"
    return "medium" if correct <= 3 else "easy"


def load(folder: Path, *, chunk_tokens: int, section_chunks: int = 0, progress: bool = False) -> Benchmark:
    files = quality_files(folder)
    if not files:
        raise DataError(folder, "no QuALITY file (JSONL whose lines have article_id and questions)")
    documents: list[Document] = []
    chunks: list[Chunk] = []
    questions: list[Question] = []
    seen_articles: set[str] = set()
    question_ids = UniqueIds("question id")
    per_article: dict[str, int] = {}
    skipped = 0
    for path in files:
        for record in read_jsonl(path, what="QuALITY articles"):
            article_id = record.require_id("article_id")
            title = record.optional("title", default=article_id)
            text = record.require("article")
            if article_id not in seen_articles:
                seen_articles.add(article_id)
                doc, doc_chunks = chunk_document(article_id, title, split_paragraphs(text), chunk_tokens)
                documents.append(doc)
                chunks += doc_chunks
            for k, item in enumerate(record.require("questions", list, nonempty=False), 1):
                item_record = record.child(item, f"question {k}")
                q = _question(item_record, article_id, per_article)
                if q is None:
                    skipped += 1
                    continue
                question_ids.add(q.id, item_record)
                questions.append(q)
    if skipped:
        log.warning("%s: skipped %d QuALITY questions without gold_label (test split?)", folder, skipped)
    if not questions:
        raise DataError(folder, "no QuALITY question has a gold_label, so none can be graded (is this the test split?)")
    return Benchmark(
        name=folder.resolve().name,
        format="quality",
        qtype=QuestionType.RMC,
        questions=questions,
        documents=documents,
        chunks=chunks,
        source_files=[str(p) for p in files],
    )


def _is_quality_line(obj: dict | None) -> bool:
    return obj is not None and "article_id" in obj and "questions" in obj


def _question(record: Record, article_id: str, per_article: dict[str, int]) -> Question | None:
    text = record.require("question")
    raw_options = record.require("options", list)
    if not 2 <= len(raw_options) <= 26:
        raise record.error(f"options must be a list of 2 to 26 strings, found {len(raw_options)}")
    if not all(isinstance(o, str) for o in raw_options):
        raise record.error("options must all be strings")
    letters = string.ascii_uppercase[: len(raw_options)]
    options = dict(zip(letters, raw_options))
    # Numbered per article over all its lines, so ids stay stable and unique without
    # question_unique_id.
    per_article[article_id] = n = per_article.get(article_id, 0) + 1
    if record.data.get("gold_label") is None:
        return None
    gold = record.require("gold_label", int)
    if not 1 <= gold <= len(raw_options):
        raise record.error(f"gold_label {gold} is not among the options (1..{len(raw_options)})")
    speed = []
    for k, item in enumerate(record.optional("speed_validation", list, default=[]), 1):
        answer = record.child(item, f"speed_validation {k}").require("speed_answer", int)
        speed.append(answer)
    qid = record.require_id("question_unique_id") if record.data.get("question_unique_id") else f"{article_id}-{n}"
    return Question(
        id=qid,
        question=text,
        answer=letters[gold - 1],
        options=options,
        difficulty=difficulty_from_speed(speed, gold),
        doc_id=article_id,
        meta={"hard_subset": bool(record.data.get("difficult")), "speed_correct": sum(a == gold for a in speed)},
    )
