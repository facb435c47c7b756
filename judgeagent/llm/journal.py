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
from dataclasses import asdict, dataclass
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
);
CREATE TABLE IF NOT EXISTS batch_jobs (
    token TEXT PRIMARY KEY,
    job_id TEXT,
    identity TEXT NOT NULL,
    base_url TEXT NOT NULL,
    wave INTEGER NOT NULL,
    status TEXT NOT NULL,
    counts TEXT,
    input_file_id TEXT,
    output_file_id TEXT,
    error_file_id TEXT,
    n_requests INTEGER NOT NULL,
    created REAL NOT NULL,
    updated REAL NOT NULL,
    collected INTEGER NOT NULL DEFAULT 0,
    deadline_cancelled INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS batch_requests (
    custom_id TEXT PRIMARY KEY,
    token TEXT NOT NULL,
    key TEXT NOT NULL,
    stage TEXT NOT NULL,
    state TEXT NOT NULL,
    line TEXT,
    updated REAL NOT NULL
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
    via: str = "live"  # how the answer came: "live" (one request) or "batch" (a Batch API job), priced apart


@dataclass
class BatchJob:
    """One provider batch job as the journal keeps it (judgeagent/llm/batch/), keyed by our
    token, which is also in the job's metadata so a job whose id never got here is found."""

    token: str
    identity: str  # the model's, as the cache keys on it
    base_url: str
    wave: int
    n_requests: int
    created: float  # when it was written down, before its upload
    job_id: str | None = None  # the provider's, once the job exists
    status: str = "preparing"  # ours until the provider's: validating, in_progress, ... completed
    counts: dict | None = None  # the provider's request_counts
    input_file_id: str | None = None
    output_file_id: str | None = None
    error_file_id: str | None = None
    updated: float = 0.0
    collected: bool = False  # its files were read and every line's outcome written down
    deadline_cancelled: bool = False  # cancelled at our --batch-api-deadline
    turnaround_s: float | None = None  # seconds at the provider, once it ended


@dataclass
class BatchLine:
    """One request line of a batch job: its custom_id, the request's journal key and stage,
    and its state (ledger.SENT, ANSWERED, GONE, LIVE) with its output or error line once read."""

    custom_id: str
    token: str  # its job's
    key: str
    stage: str
    state: str = "sent"
    line: dict | None = None


# Columns added after the first layout; older files get them on open.
_ADDED_COLUMNS = {
    "reasoning_tokens": "INTEGER NOT NULL DEFAULT 0",
    "served_model": "TEXT NOT NULL DEFAULT ''",
    "via": "TEXT NOT NULL DEFAULT 'live'",
}
# A finished job's seconds at the provider, from its own timestamps (created_at to
# completed_at / expired_at): what --dry-run --batch-api times the next run's waves by.
_ADDED_JOB_COLUMNS = {"turnaround_s": "REAL"}


_ANSWER_COLUMNS = "key, model, text, data, prompt_tokens, completion_tokens, latency_s, attempts, reasoning_tokens, served_model, via"


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
            self._lay_out()
        except sqlite3.Error as e:
            raise ConfigError(f"{self.path}: not a usable journal/cache file ({e})") from None

    def _lay_out(self) -> None:
        """The tables, and the columns added since the first layout, in one write transaction:
        processes opening one file at once see and add the missing columns one at a time (two
        that both saw a column missing raced to a "duplicate column" error)."""
        # executescript commits what is open before it runs, so the BEGIN goes inside the script.
        self._db.executescript("BEGIN IMMEDIATE;\n" + _SCHEMA)
        try:
            for table, added in (("responses", _ADDED_COLUMNS), ("batch_jobs", _ADDED_JOB_COLUMNS)):
                have = {row[1] for row in self._db.execute(f"PRAGMA table_info({table})")}
                for name, decl in added.items():
                    if name not in have:
                        self._db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {decl}")
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise

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
                    "latency_s, attempts, created, reasoning_tokens, served_model, via) VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
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
                        entry.via,
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

    def totals(self, via: str | None = None) -> list[tuple[str, str, int, int, int, int]]:
        """(model, stage, answers, prompt, completion and reasoning tokens) over everything journaled;
        ``via`` "batch" or "live": only the answers that came that way.

        A run resumed over several sessions paid for every answer in its journal once, so
        this, not one session's counters, is what the whole run cost.
        """
        where, args = ("WHERE via = ? ", (via,)) if via is not None else ("", ())
        with self._lock:
            return [
                tuple(row)
                for row in self._db.execute(
                    "SELECT model, stage, COUNT(*), COALESCE(SUM(prompt_tokens), 0), COALESCE(SUM(completion_tokens), 0), "
                    f"COALESCE(SUM(reasoning_tokens), 0) FROM responses {where}GROUP BY model, stage ORDER BY model, stage",
                    args,
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

    # ------------------------------------------------------------------ Batch API jobs
    # What was sent in a provider's batch job, written before anything waits on it, so that
    # a run stopped in any way resumes the job instead of paying for its requests again
    # (judgeagent/llm/batch/). ``batch_jobs``: one row per job, keyed by our token (also in
    # the job's metadata, so a job whose id never reached this file is found again);
    # ``batch_requests``: one row per request line, keyed by its custom_id.

    _JOB_FIELDS = ("token", "job_id", "identity", "base_url", "wave", "status", "counts", "input_file_id", "output_file_id",
                   "error_file_id", "n_requests", "created", "updated", "collected", "deadline_cancelled", "turnaround_s")  # fmt: skip

    def _write(self, statements: list[tuple[str, tuple]]) -> None:
        """Several statements in one transaction: all of them are in the file, or none."""
        try:
            with self._lock:
                self._db.execute("BEGIN IMMEDIATE")
                try:
                    for sql, args in statements:
                        self._db.execute(sql, args)
                except BaseException:
                    self._db.execute("ROLLBACK")
                    raise
                self._db.execute("COMMIT")
        except sqlite3.Error as e:
            raise ConfigError(f"{self.path}: cannot write the journal ({e})") from None

    def batch_sent(self, job: BatchJob, lines: list[BatchLine]) -> None:
        """A job about to be uploaded (status "preparing") and its request lines (state "sent")."""
        now = time.time()
        row = _job_values(asdict(job) | {"updated": now})
        cols = ", ".join(self._JOB_FIELDS)
        statements = [(f"INSERT OR REPLACE INTO batch_jobs ({cols}) VALUES ({', '.join('?' * len(self._JOB_FIELDS))})",
                       tuple(row[f] for f in self._JOB_FIELDS))]  # fmt: skip
        statements += [
            ("INSERT OR REPLACE INTO batch_requests (custom_id, token, key, stage, state, line, updated) VALUES (?,?,?,?,?,?,?)",
             (ln.custom_id, job.token, ln.key, ln.stage, ln.state, None, now))
            for ln in lines
        ]  # fmt: skip
        self._write(statements)

    def batch_job_update(self, token: str, **fields: Any) -> None:
        """Change a job's row (its provider id, status, counts, file ids, collected)."""
        fields = _job_values(fields) | {"updated": time.time()}
        sets = ", ".join(f"{k} = ?" for k in fields)
        self._write([(f"UPDATE batch_jobs SET {sets} WHERE token = ?", (*fields.values(), token))])

    def batch_settled(self, token: str, lines: dict[str, tuple[str, Any]], **job_fields: Any) -> None:
        """A job's outcome, in one transaction: each custom_id's (state, line) and the job's fields."""
        now = time.time()
        statements = [
            ("UPDATE batch_requests SET state = ?, line = ?, updated = ? WHERE custom_id = ?",
             (state, canonical(line) if line is not None else None, now, cid))
            for cid, (state, line) in lines.items()
        ]  # fmt: skip
        fields = _job_values(job_fields) | {"updated": now}
        statements.append((f"UPDATE batch_jobs SET {', '.join(f'{k} = ?' for k in fields)} WHERE token = ?", (*fields.values(), token)))
        self._write(statements)

    def batch_jobs(self) -> list[BatchJob]:
        """Every batch job of the run, oldest first."""
        with self._lock:
            rows = self._db.execute(f"SELECT {', '.join(self._JOB_FIELDS)} FROM batch_jobs ORDER BY created").fetchall()
        out = []
        for row in rows:
            job = BatchJob(**dict(zip(self._JOB_FIELDS, row)))
            job.counts = json.loads(job.counts) if isinstance(job.counts, str) and job.counts else None
            job.collected, job.deadline_cancelled = bool(job.collected), bool(job.deadline_cancelled)
            out.append(job)
        return out

    def batch_requests(self) -> list[BatchLine]:
        """Every request line the run sent in a batch job, with its outcome once known."""
        with self._lock:
            rows = self._db.execute("SELECT custom_id, token, key, stage, state, line FROM batch_requests").fetchall()
        return [BatchLine(c, t, k, s, st, json.loads(line) if line else None) for c, t, k, s, st, line in rows]

    def __len__(self) -> int:
        with self._lock:
            return self._db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]

    def close(self) -> None:
        with self._lock:
            try:
                self._db.close()
            except sqlite3.Error:
                pass


def _job_values(fields: dict[str, Any]) -> dict[str, Any]:
    """A batch job's fields as SQLite stores them (request counts as JSON, flags as 0 / 1)."""
    return {k: canonical(v) if k == "counts" and v is not None else int(v) if isinstance(v, bool) else v for k, v in fields.items()}
