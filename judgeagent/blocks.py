"""What a report is made of: plain blocks, laid out once for both output formats.

A protocol contributes its report sections as these blocks (``Protocol.report_sections``);
``judgeagent.report`` lays them out as HTML and Markdown. They live below both so that
neither imports the other.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from judgeagent.records import AnswerRecord, QuestionRecord

DASH = "–"


# ----------------------------------------------------------------------------- small helpers
@dataclass
class Table:
    columns: list[str]
    rows: list[list[str]]
    numeric: set[int] = field(default_factory=set)  # column indexes to right-align


def pct(v) -> str:
    return DASH if v is None else f"{v:.2f}"


def num(v) -> str:
    if v is None:
        return DASH
    return f"{v:,}" if isinstance(v, int) else f"{v:,.2f}"


def signed(v) -> str:
    return DASH if v is None else f"{v:+.2f}"


# ----------------------------------------------------------------------------- blocks
@dataclass
class Heading:
    text: str
    level: int = 3


@dataclass
class Para:
    text: str
    style: str = "p"  # "p" | "lead" (the headline) | "note" (small print) | "warn"


@dataclass
class Facts:
    pairs: list[tuple[str, str]]


@dataclass
class TableBlock:
    table: Table
    caption: str = ""


@dataclass
class Bullets:
    items: list[str]


@dataclass
class Links:
    """Links to other files (a sweep's per-target reports): (text, relative path)."""

    items: list[tuple[str, str]]


@dataclass
class Figure:
    name: str  # file stem of the PNG beside the Markdown report
    title: str  # alt text
    caption: str
    png: bytes


@dataclass
class Excerpt:
    """A quoted text chunk of the graph, with where it comes from."""

    label: str
    text: str


@dataclass
class QuestionBlock:
    text: str
    options: dict[str, str] | None
    facts: list[tuple[str, str]]  # correct answer, the target's answers, …
    label: str = ""


Block = Heading | Para | Facts | TableBlock | Bullets | Links | Figure | Excerpt | QuestionBlock


@dataclass
class Section:
    title: str
    anchor: str
    blocks: list = field(default_factory=list)


@dataclass
class Document:
    title: str
    subtitle: str
    sections: list[Section]

    def figures(self) -> list[Figure]:
        return [b for s in self.sections for b in s.blocks if isinstance(b, Figure)]


CHUNK_CHARS = 700  # a path chunk is quoted up to this length; the graph holds the rest


def shorten(text: str, n: int = CHUNK_CHARS) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


# ----------------------------------------------------------------------------- question text
def answer_text(question: QuestionRecord, answer: AnswerRecord | None) -> str:
    """What the target answered: the option letter with its text for multiple choice,
    its own words (not the normalised phrase used for grading) otherwise."""
    if answer is None:
        return DASH
    chosen = answer.chosen
    options = question.options or {}
    if chosen and chosen in options:
        return f"{chosen}. {options[chosen]}"
    if answer.reply:
        reply = " ".join(answer.reply.split())
        return reply if len(reply) <= 300 else reply[:299] + "…"  # a rambling reply stays readable
    if chosen:
        return chosen
    return "(no answer" + (f": {answer.error}" if answer.error else "") + ")"


def correct_text(question: QuestionRecord) -> str:
    options = question.options or {}
    return f"{question.answer}. {options[question.answer]}" if question.answer in options else question.answer
