"""The data model every loader produces and every later stage consumes."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from typing import Any


class QuestionType(str, Enum):
    """How the target is asked and graded (docs/concepts/method.md, "Question types")."""

    KMC = "kmc"  # knowledge multiple choice (MedQA): options, answer is a letter, no context shown
    KQA = "kqa"  # knowledge phrase QA (MultiHop-RAG): short phrase answer, no context shown
    RMC = "rmc"  # reading multiple choice (QuALITY): the article is shown, answer is a letter

    @property
    def is_multiple_choice(self) -> bool:
        return self in (QuestionType.KMC, QuestionType.RMC)

    @property
    def shows_context(self) -> bool:
        return self is QuestionType.RMC


DIFFICULTIES = ("easy", "medium", "hard")


@dataclass(frozen=True)
class Chunk:
    """A paragraph or a few sentences (never a single sentence unless the paragraph is one)."""

    id: str
    doc_id: str
    text: str


@dataclass(frozen=True)
class Document:
    """One article, one textbook section, the reference texts of one question, or one file of a
    folder of documents. ``source`` (the file's path relative to the folder) and ``sha256`` (of
    its bytes) are set for the last kind: the graph's manifest lists them."""

    id: str
    title: str
    chunk_ids: tuple[str, ...]
    source: str | None = None
    sha256: str | None = None


@dataclass(frozen=True)
class SkippedFile:
    """A file of a folder of documents that could not be read: ``source`` relative to the folder."""

    source: str
    reason: str


@dataclass(frozen=True)
class Question:
    """A seed question.

    ``answer`` is the option letter for multiple-choice types and the reference phrase
    for KQA. ``options`` maps letters ("A".."E") to option texts, or is None for KQA.
    ``difficulty`` is "easy" / "medium" / "hard", or None when the benchmark has no labels.
    ``doc_id`` links an RMC question to its article (and any question to its source doc).
    """

    id: str
    question: str
    answer: str
    options: dict[str, str] | None = None
    difficulty: str | None = None
    doc_id: str | None = None
    meta: dict = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        # By hand: dataclasses.asdict deep-copies field by field, a replay's largest cost.
        d = dict(self.__dict__)
        d["options"] = dict(self.options) if self.options is not None else None
        d["meta"] = dict(self.meta)
        return d

    @property
    def answer_text(self) -> str:
        """The answer as words: the correct option's text for MC, the phrase for KQA."""
        if self.options:
            return self.options.get(self.answer, self.answer)
        return self.answer


@dataclass
class Benchmark:
    """A loaded benchmark: its questions and the reference texts the graph is built from."""

    name: str
    format: str  # "medqa" | "multihop" | "quality" | "generic" | "documents" (no questions)
    qtype: QuestionType
    questions: list[Question]
    documents: list[Document]
    chunks: list[Chunk]
    source_files: list[str] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)  # a folder of documents' unreadable files

    def chunk_by_id(self) -> dict[str, Chunk]:
        return {c.id: c for c in self.chunks}

    def document_by_id(self) -> dict[str, Document]:
        return {d.id: d for d in self.documents}

    def document_text(self, doc_id: str) -> str:
        chunks = self.chunk_by_id()
        doc = self.document_by_id()[doc_id]
        return "\n\n".join(chunks[cid].text for cid in doc.chunk_ids)
