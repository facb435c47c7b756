"""The SQLite journal: every successful model answer of a run, keyed by what was asked.

One file per run folder (``journal_path``) and optionally one shared cache file
(``cache_path``); both have the same layout. A rerun of the same command finds every
answer here and sends no request; a run killed midway (even ``kill -9``) resumes from the
last committed answer because each answer is committed as soon as it arrives. WAL mode
plus a busy timeout lets several processes read and write the same file.

Only what was asked and what came back is stored -- never an API key or a header.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from judgeagent.errors import ConfigError
from judgeagent.wal import use_wal

# Bump when the way a request is built from (messages, schema) changes, so old answers
# are not replayed for prompts that would now be sent differently.
KEY_VERSION = 1

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    model TEXT NOT NULL,
    identity TEXT NOT NULL,
    stage TEXT NOT NULL,
    request TEXT NOT NULL,
    text TEXT NOT NULL,
    data TEXT,
    prompt_tokens INTEGER NOT NULL,
    completion_tokens INTEGER NOT NULL,
    latency_s REAL NOT NULL,
    attempts INTEGER NOT NULL,
    created REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS decisions (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL,
    created REAL NOT NULL
)
"""


# One encoder for every call: json.dumps with options builds a new one each time.
_encode = json.JSONEncoder(sort_keys=True, ensure_ascii=False, separators=(",", ":")).encode


def canonical(obj: Any) -> str:
    return _encode(obj)


def request_key(
    identity: str,
    messages: list[dict],
    *,
    temperature: float,
    max_tokens: int,
    schema: dict | None,
    seed: int | None,
    variant: str | None = None,
    extra_body: dict | None = None,
) -> str:
    """SHA-256 of everything that determines the answer (the model by identity, not by name).

    ``variant`` makes a deliberate repeat of a request a request of its own (a control
    re-ask must be sampled again, not replayed); ``extra_body`` (options sent verbatim,
    such as enable_thinking) changes what the model does. None / empty leaves the key as
    it always was, so older journals still replay.
    """
    payload = {
        "v": KEY_VERSION,
        "identity": identity,
        "messages": messages,
        "temperature": temperature,
        "max_tokens": max_tokens,
        "schema": None,
        "seed": seed,
    }
    if variant is not None:
        payload["variant"] = variant
    if extra_body:
        payload["extra_body"] = extra_body
    text = _encode(payload)
    if schema is not None:
        # canonical(payload with the schema), byte for byte, but with the schema's text made
        # once: sorting a nested schema's keys took as long as writing out a whole prompt, at
        # every request. The top-level "schema" is the last such key-value pair in the text:
        # only numbers and strings (whose quotes are escaped) follow it.
        at = text.rindex(_NO_SCHEMA + ',"seed":')
        text = f'{text[:at]},"schema":{_schema_text(schema)}{text[at + len(_NO_SCHEMA):]}'
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


_NO_SCHEMA = ',"schema":null'
_schema_texts: dict[int, tuple[Any, str]] = {}  # id -> (the schema, kept alive so the id stays its own; its text)


def _schema_text(schema: dict) -> str:
    """canonical(schema), remembered per schema object (reply schemas are module constants)."""
    hit = _schema_texts.get(id(schema))
    if hit is not None and hit[0] is schema:
        return hit[1]
    text = canonical(schema)
    if len(_schema_texts) < 256:  # a schema built per call is not remembered without bound
        _schema_texts[id(schema)] = (schema, text)
    return text


@dataclass
class Entry:
    key: str
    model: str
    text: str
    data: Any
    prompt_tokens: int
    completion_tokens: int
    latency_s: float
    attempts: int
    reasoning_tokens: int = 0  # of completion_tokens, spent thinking
    served_model: str = ""  # response.model: the model string the server answered with


# Columns added after the first layout; older files get them on open.
_ADDED_COLUMNS = {
    "reasoning_tokens": "INTEGER NOT NULL DEFAULT 0",
    "served_model": "TEXT NOT NULL DEFAULT ''",
}


_ANSWER_COLUMNS = "key, model, text, data, prompt_tokens, completion_tokens, latency_s, attempts, reasoning_tokens, served_model"


class Journal:
    """A small key -> answer store. Safe across threads (one lock) and processes (WAL).

    With ``read_ahead`` (a run's own journal), the first lookup reads every answer and
    decision in one pass, and each answer is handed out once from memory; a key not read
    ahead (written since, or asked again) is looked up in the file. A rerun asks for nearly
    every answer its journal holds, and one query per answer was a tenth of a replay.
    """

    def __init__(self, path: Path, *, read_ahead: bool = False):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._lock = threading.Lock()
        self._read_ahead = read_ahead
        self._ahead: dict[str, tuple] | None = None  # key -> answer row, until handed out
        self._decisions: dict[str, str] | None = None  # key -> value JSON
        try:
            self._db = sqlite3.connect(str(self.path), timeout=30.0, check_same_thread=False, isolation_level=None)
            use_wal(self._db)
            # NORMAL in WAL mode loses nothing on a process crash (only on power loss).
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("PRAGMA busy_timeout=30000")
            self._db.executescript(_SCHEMA)
            have = {row[1] for row in self._db.execute("PRAGMA table_info(responses)")}
            for name, decl in _ADDED_COLUMNS.items():
                if name not in have:
                    self._db.execute(f"ALTER TABLE responses ADD COLUMN {name} {decl}")
        except sqlite3.Error as e:
            raise ConfigError(f"{self.path}: not a usable journal/cache file ({e})") from None

    def _read_all(self) -> tuple[dict[str, tuple], dict[str, str]] | None:
        """Under the lock: the answers and decisions read ahead (in one pass, at the first
        call), or None without ``read_ahead``."""
        if not self._read_ahead:
            return None
        if self._ahead is None or self._decisions is None:
            self._ahead = {row[0]: row for row in self._db.execute(f"SELECT {_ANSWER_COLUMNS} FROM responses")}
            self._decisions = dict(self._db.execute("SELECT key, value FROM decisions").fetchall())
        return self._ahead, self._decisions

    def get(self, key: str) -> Entry | None:
        try:
            with self._lock:
                ahead = self._read_all()
                row = ahead[0].pop(key, None) if ahead is not None else None
                if row is None:
                    row = self._db.execute(f"SELECT {_ANSWER_COLUMNS} FROM responses WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error as e:
            raise ConfigError(f"{self.path}: cannot read the journal ({e})") from None
        if row is None:
            return None
        return Entry(row[0], row[1], row[2], json.loads(row[3]) if row[3] is not None else None, *row[4:])

    def put(
        self,
        entry: Entry,
        *,
        identity: str,
        stage: str,
        request: dict,
    ) -> None:
        """Insert (or replace) one answer and commit at once (autocommit mode)."""
        data = canonical(entry.data) if entry.data is not None else None
        try:
            with self._lock:
                if self._ahead is not None:
                    self._ahead.pop(entry.key, None)  # replaced: the file has the answer now
                self._db.execute(
                    "INSERT OR REPLACE INTO responses "
                    "(key, model, identity, stage, request, text, data, prompt_tokens, completion_tokens, "
                    "latency_s, attempts, created, reasoning_tokens, served_model) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                    (
                        entry.key,
                        entry.model,
                        identity,
                        stage,
                        canonical(request),
                        entry.text,
                        data,
                        entry.prompt_tokens,
                        entry.completion_tokens,
                        entry.latency_s,
                        entry.attempts,
                        time.time(),
                        entry.reasoning_tokens,
                        entry.served_model,
                    ),
                )
        except sqlite3.Error as e:
            raise ConfigError(f"{self.path}: cannot write the journal ({e})") from None

    def decision(self, key: str) -> Any | None:
        """A decision recorded by :meth:`record_decision`, or None."""
        try:
            with self._lock:
                ahead = self._read_all()
                value = ahead[1].get(key) if ahead is not None else None
                if value is not None:
                    return json.loads(value)
                row = self._db.execute("SELECT value FROM decisions WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error as e:
            raise ConfigError(f"{self.path}: cannot read the journal ({e})") from None
        return json.loads(row[0]) if row is not None else None

    def record_decision(self, key: str, value: Any) -> None:
        """Keep a decision that depended on timing (which of two concurrent batches came
        first), so a rerun takes the same one and replays the same requests."""
        try:
            with self._lock:
                text = canonical(value)
                self._db.execute("INSERT OR REPLACE INTO decisions (key, value, created) VALUES (?,?,?)", (key, text, time.time()))
                if self._decisions is not None:
                    self._decisions[key] = text
        except sqlite3.Error as e:
            raise ConfigError(f"{self.path}: cannot write the journal ({e})") from None

    def totals(self) -> list[tuple[str, str, int, int, int, int]]:
        """(model, stage, answers, prompt, completion and reasoning tokens) over everything journaled.

        A run resumed over several sessions paid for every answer in its journal once, so
        this, not one session's counters, is what the whole run cost.
        """
        with self._lock:
            return [
                tuple(row)
                for row in self._db.execute(
                    "SELECT model, stage, COUNT(*), COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0), "
                    "COALESCE(SUM(reasoning_tokens), 0) "
                    "FROM responses GROUP BY model, stage ORDER BY model, stage"
                )
            ]

    def replies(self, stage: str) -> list[tuple[dict, Any]]:
        """Every (request, parsed reply) journaled for ``stage``, oldest first: what a reader of
        a finished run can look up that its records left out (the audit rebuilds the questions
        the quality gate rejected from the generation replies)."""
        try:
            with self._lock:
                rows = self._db.execute("SELECT request, data FROM responses WHERE stage = ? ORDER BY created, key", (stage,)).fetchall()
        except sqlite3.Error as e:
            raise ConfigError(f"{self.path}: cannot read the journal ({e})") from None
        return [(json.loads(req), json.loads(data) if data is not None else None) for req, data in rows]

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            try:
                self._db.close()
            except sqlite3.Error:
                pass
