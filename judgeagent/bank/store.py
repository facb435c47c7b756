"""The question bank of one graph: a SQLite file beside the graph folder, not inside it.

``graphs/medqa-demo.bank.sqlite`` sits next to ``graphs/medqa-demo/``: ``build-graph --force``
replaces the graph folder by an atomic rename, which would take a bank kept inside it (and
every answer in it) along. Each item records the graph input hash it was written from, so
the bank can say which items come from an older build of the graph.

SQLite in WAL mode: several runs (processes or threads) may write the same bank at once;
readers never block the writer, and each writer waits its turn (``busy_timeout``). A run
writes its items and answers in one transaction, so a bank never holds half a run.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

from judgeagent.data.benchmark import Question
from judgeagent.errors import JudgeAgentError
from judgeagent.wal import use_wal

SCHEMA = """
CREATE TABLE IF NOT EXISTS items (
    item_id TEXT PRIMARY KEY,
    qtype TEXT NOT NULL,
    question TEXT NOT NULL,
    options TEXT,               -- JSON {letter: text}, NULL for phrase questions
    answer TEXT NOT NULL,       -- the letter, or the reference phrase
    level TEXT,                 -- the level it was generated at
    counted_as TEXT,            -- the level it is reported at (a single-hop Hard counts as Medium)
    chunk_ids TEXT NOT NULL,    -- JSON list: the knowledge path's chunks
    path TEXT NOT NULL,         -- JSON list of {entity, chunk_id, text}
    gate TEXT,                  -- JSON: the quality gate's verdicts
    judge TEXT NOT NULL,        -- identity of the model that wrote it
    run TEXT NOT NULL,          -- the run folder that wrote it
    graph_hash TEXT,            -- input hash of the graph it was written from
    data TEXT,                  -- the benchmark's name
    created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
);
CREATE TABLE IF NOT EXISTS answers (
    id INTEGER PRIMARY KEY,
    item_id TEXT NOT NULL REFERENCES items(item_id),
    target TEXT NOT NULL,       -- identity of the model that answered
    target_name TEXT,           -- the name it was asked under
    run TEXT NOT NULL,
    mode TEXT NOT NULL,         -- interview | bank | adaptive
    reply TEXT,
    chosen TEXT,
    correct INTEGER NOT NULL,
    created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%SZ', 'now')),
    UNIQUE (item_id, target, run, mode)
);
CREATE INDEX IF NOT EXISTS answers_by_target ON answers(target);
"""
BUSY_TIMEOUT_MS = 60_000


def bank_path(graph_dir: Path) -> Path:
    """``graphs/<name>.bank.sqlite`` for the graph ``graphs/<name>/``."""
    graph_dir = Path(graph_dir)
    return graph_dir.parent / f"{graph_dir.name}.bank.sqlite"


def calibration_path(graph_dir: Path) -> Path:
    """``graphs/<name>.calibration.json``, beside the bank."""
    graph_dir = Path(graph_dir)
    return graph_dir.parent / f"{graph_dir.name}.calibration.json"


@dataclass
class BankItem:
    item_id: str
    qtype: str
    question: str
    answer: str
    options: dict[str, str] | None
    level: str | None
    counted_as: str | None
    chunk_ids: list[str]
    path: list[dict]
    gate: dict | None
    judge: str
    run: str
    graph_hash: str | None
    data: str | None = None
    created: str | None = None

    def to_question(self) -> Question:
        return Question(id=self.item_id, question=self.question, answer=self.answer, options=self.options, difficulty=self.level)

    @property
    def answer_text(self) -> str:
        return self.to_question().answer_text


@dataclass
class BankAnswer:
    item_id: str
    target: str
    target_name: str
    run: str
    mode: str
    reply: str | None
    chosen: str | None
    correct: bool
    created: str | None = field(default=None, compare=False)


_JSON_COLUMNS = ("options", "chunk_ids", "path", "gate")


class Bank:
    """One bank file. Open it with ``Bank.open(graph_dir)`` (created when missing)."""

    def __init__(self, path: Path):
        self.path = Path(path)

    @classmethod
    def open(cls, graph_dir: Path, *, create: bool = True) -> Bank:
        path = bank_path(graph_dir)
        if not create and not path.exists():
            raise JudgeAgentError(f"{path}: no question bank for {graph_dir} (an `evaluate` run with this graph fills it)")
        bank = cls(path)
        if create:
            with bank.connect() as db:
                db.executescript(SCHEMA)
        return bank

    @contextmanager
    def connect(self) -> Iterator[sqlite3.Connection]:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        try:
            db = sqlite3.connect(self.path, timeout=BUSY_TIMEOUT_MS / 1000, isolation_level=None)
        except sqlite3.Error as e:
            raise JudgeAgentError(f"{self.path}: cannot open the question bank ({e})") from None
        try:
            db.row_factory = sqlite3.Row
            db.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
            use_wal(db, BUSY_TIMEOUT_MS / 1000)
            db.execute("PRAGMA synchronous=NORMAL")
            yield db
        except sqlite3.DatabaseError as e:
            raise JudgeAgentError(f"{self.path}: question bank error ({e})") from None
        finally:
            db.close()

    def write(self, items: Iterable[BankItem], answers: Iterable[BankAnswer]) -> tuple[int, int]:
        """Add items and answers in one transaction; ones already there are kept as they are
        (a resumed or replayed run writes the same rows again). Returns (new items, new answers)."""
        item_rows = [_item_row(i) for i in items]
        answer_rows = [asdict(a) for a in answers]
        with self.connect() as db:
            db.execute("BEGIN IMMEDIATE")  # take the write lock now, not halfway through
            try:
                before = db.total_changes
                db.executemany(
                    f"INSERT OR IGNORE INTO items ({', '.join(ITEM_COLUMNS)}) VALUES ({', '.join(':' + c for c in ITEM_COLUMNS)})", item_rows
                )
                new_items = db.total_changes - before
                before = db.total_changes
                db.executemany(
                    f"INSERT OR IGNORE INTO answers ({', '.join(ANSWER_COLUMNS)}) VALUES ({', '.join(':' + c for c in ANSWER_COLUMNS)})",
                    [{c: (int(r[c]) if c == "correct" else r[c]) for c in ANSWER_COLUMNS} for r in answer_rows],
                )
                new_answers = db.total_changes - before
                db.execute("COMMIT")
            except BaseException:
                db.execute("ROLLBACK")
                raise
        return new_items, new_answers

    def items(self) -> list[BankItem]:
        """Every item, oldest first."""
        with self.connect() as db:
            rows = db.execute("SELECT * FROM items ORDER BY rowid").fetchall()
        return [_item_from_row(r) for r in rows]

    def answers(self) -> list[BankAnswer]:
        """Every answer, in the order they were written."""
        with self.connect() as db:
            rows = db.execute(f"SELECT {', '.join(BankAnswer.__dataclass_fields__)} FROM answers ORDER BY id").fetchall()
        # The columns in the dataclass's order; SQLite keeps the flag as an integer.
        return [replace(a, correct=bool(a.correct)) for a in (BankAnswer(*r) for r in rows)]


ITEM_COLUMNS = tuple(f for f in BankItem.__dataclass_fields__ if f != "created")
ANSWER_COLUMNS = tuple(f for f in BankAnswer.__dataclass_fields__ if f != "created")


def _item_row(item: BankItem) -> dict:
    row = asdict(item)
    for c in _JSON_COLUMNS:
        row[c] = None if row[c] is None else json.dumps(row[c], ensure_ascii=False, sort_keys=c != "options")
    row.pop("created")
    return row


def _item_from_row(row: sqlite3.Row) -> BankItem:
    d = dict(row)
    for c in _JSON_COLUMNS:
        d[c] = None if d[c] is None else json.loads(d[c])
    return BankItem(**d)
