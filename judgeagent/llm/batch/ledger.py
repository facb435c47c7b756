"""One run's batch jobs: what its journal says was sent, and what this process took from it.

Every request line is written down (state ``sent``, with its job) before the job is
uploaded, and its outcome as soon as the job's files are read. So a request is in one of:

- ``sent``: in a job not collected yet; whoever asks for it again waits for that job;
- ``answered``: its line came back (a reply, or a failure a live call would have had);
- ``gone``: it never ran (expired, cancelled by someone else, absent from both files:
  asked again in a later wave) or was never sent (a job that could not be created);
- ``live``: cancelled at our --batch-api-deadline before it ran: sent one by one instead.

A line's outcome is handed out once per process: a request asked again after a failure (a
retry: the same body) gets a new line, ``ja-<hash>-<n+1>``. After a restart, the first ask
of a body gets the outcome its last line had, so nothing answered is paid for twice.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from judgeagent.llm.batch.lines import body_hash, split_id
from judgeagent.llm.journal import BatchJob, BatchLine, Journal
from judgeagent.llm.retry import RetryPolicy

SENT, ANSWERED, GONE, LIVE = "sent", "answered", "gone", "live"


@dataclass
class BatchSettings:
    """How a run's jobs are polled: every ``poll_s`` at first, cancelled ``deadline_s`` after creation."""

    poll_s: float = 15.0
    deadline_s: float | None = None
    policy: RetryPolicy = field(default_factory=RetryPolicy)


class BatchLedger:
    """``settings`` and ``timeout_s``: how this run's jobs are polled, and its HTTP timeout;
    ``redact`` scrubs its keys from messages."""

    def __init__(self, journal: Journal | None, settings: BatchSettings, timeout_s: float = 120.0, redact: Callable[[str], str] = str,
                 no_cache: bool = False):  # fmt: skip
        self.journal, self.settings, self.timeout_s, self.redact = journal, settings, timeout_s, redact
        self.no_cache = no_cache  # --no-cache: a recorded outcome is never handed out (a job still out is still joined)
        self.jobs: dict[str, BatchJob] = {}  # token -> job
        self.requests: dict[str, BatchLine] = {}  # custom_id -> request line
        self._seq: dict[str, int] = {}  # body hash -> its highest line number
        self._taken: set[str] = set()
        if journal is not None:
            self.jobs = {j.token: j for j in journal.batch_jobs()}
            for row in journal.batch_requests():
                self._add(row)

    def _add(self, row: BatchLine) -> None:
        self.requests[row.custom_id] = row
        h, seq = split_id(row.custom_id)
        self._seq[h] = max(seq, self._seq.get(h, -1))

    # ------------------------------------------------------------------ asking
    def claim(self, key: str, body: dict) -> tuple[str, BatchLine | None]:
        """The custom_id for this request now, and its line when one stands for it (None: a
        new line, to be sent in the next wave)."""
        h = body_hash(key, body)
        seq = self._seq.get(h)
        if seq is None:
            return f"ja-{h}-0", None
        cid = f"ja-{h}-{seq}"
        row = self.requests[cid]
        if row.state == SENT and row.token in self.jobs:
            return cid, row
        if row.line is not None and cid not in self._taken and not self.no_cache:
            self._taken.add(cid)
            return cid, row
        return f"ja-{h}-{seq + 1}", None

    def take(self, cid: str) -> None:
        """``cid``'s outcome was handed to its caller: a later ask of the same body is a new line."""
        self._taken.add(cid)

    def open_jobs(self, identity: str) -> list[BatchJob]:
        """Jobs of ``identity`` sent (or being sent) but not collected: to be polled again."""
        return [j for j in self.jobs.values() if j.identity == identity and not j.collected and j.status != "abandoned"]

    def lines_of(self, token: str) -> list[str]:
        return [cid for cid, row in self.requests.items() if row.token == token]

    @property
    def max_wave(self) -> int:
        return max((j.wave for j in self.jobs.values()), default=0)

    # ------------------------------------------------------------------ recording
    def sent(self, job: BatchJob, lines: list[BatchLine]) -> None:
        """A job about to be uploaded and its lines, written first."""
        if self.journal is not None:
            self.journal.batch_sent(job, lines)
        self.jobs[job.token] = job
        for row in lines:
            self._add(row)

    def update(self, token: str, **fields: Any) -> None:
        job = self.jobs.get(token)
        if job is None:
            return
        for name, value in fields.items():
            setattr(job, name, value)
        if self.journal is not None:
            self.journal.batch_job_update(token, **fields)

    def settled(self, token: str, outcomes: dict[str, tuple[str, Any]], **fields: Any) -> None:
        """The job's outcome: each of its lines' (state, line) and the job's final fields."""
        mine = {cid: v for cid, v in outcomes.items() if cid in self.requests and self.requests[cid].token == token}
        for cid, (state, line) in mine.items():
            self.requests[cid].state, self.requests[cid].line = state, line
        job = self.jobs.get(token)
        if job is not None:
            for name, value in fields.items():
                setattr(job, name, value)
        if self.journal is not None:
            self.journal.batch_settled(token, mine, **fields)
