"""One provider's Batch API, as OpenAI documents it; every call a typed outcome.

- ``POST /files`` (multipart, ``purpose=batch``): the JSONL input file;
- ``POST /batches`` ``{input_file_id, endpoint, completion_window: "24h", metadata}``;
- ``GET /batches/{id}``: the job, whose ``status`` goes validating → in_progress →
  finalizing → completed, or ends failed (validation; ``errors.data`` names the line and
  parameter), expired (the window ended; finished lines are kept) or, after
  ``POST /batches/{id}/cancel``, cancelling (up to 10 minutes) → cancelled;
  ``request_counts`` {total, completed, failed}; ``output_file_id`` and ``error_file_id``,
  either of which may be null;
- ``GET /files/{id}/content``: an output or error file;
- ``GET /batches?after=ID&limit=N``: the jobs, newest first (to find a job by its
  metadata when the process died before writing its id down).

Statuses are read case-insensitively (Together writes them in capitals). Transport
failures become :class:`BatchCallFailed` carrying the same :class:`Failure` a chat call
would have had, so one retry policy decides for both.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import httpx2  # the HTTP library the openai package is built on
import openai

from judgeagent.llm.outcome import Failure, FailureKind
from judgeagent.llm.sender import failure_from_status

COMPLETION_WINDOW = "24h"  # the only window OpenAI takes; DashScope takes it too
RUNNING = frozenset({"validating", "in_progress", "finalizing", "cancelling"})
ENDED = frozenset({"completed", "failed", "expired", "cancelled"})
METADATA_KEY = "judgeagent_job"  # our token, so a job can be found again from the journal
ENDED_AT = ("completed_at", "expired_at", "cancelled_at", "failed_at")  # the batch object's stamp of each end


class BatchCallFailed(Exception):
    """A Batch API call that brought no usable answer; ``failure`` says why."""

    def __init__(self, what: str, failure: Failure):
        self.what, self.failure = what, failure
        super().__init__(f"{what}: {failure.message}")


@dataclass
class JobState:
    """A batch job as the provider describes it."""

    id: str
    status: str
    total: int = 0
    completed: int = 0
    failed: int = 0
    output_file_id: str | None = None
    error_file_id: str | None = None
    errors: list[dict] = field(default_factory=list)  # {code, message, param, line} of a failed validation
    created_at: float | None = None
    metadata: dict = field(default_factory=dict)
    ended_at: float | None = None  # when it completed, failed, expired or was cancelled (the provider's clock)

    @classmethod
    def from_json(cls, d: Any) -> JobState:
        if not isinstance(d, dict) or not d.get("id"):
            raise ValueError(f"not a batch object: {str(d)[:200]}")
        counts: dict = d["request_counts"] if isinstance(d.get("request_counts"), dict) else {}
        errors = d.get("errors")
        data = errors.get("data") if isinstance(errors, dict) else errors if isinstance(errors, list) else None
        return cls(
            str(d["id"]), str(d.get("status") or "").lower(), int(counts.get("total") or 0), int(counts.get("completed") or 0),
            int(counts.get("failed") or 0), d.get("output_file_id") or None, d.get("error_file_id") or None,
            [e if isinstance(e, dict) else {"message": str(e)} for e in (data or [])],
            _stamp(d.get("created_at")), d["metadata"] if isinstance(d.get("metadata"), dict) else {},
            next((t for k in ENDED_AT if (t := _stamp(d.get(k))) is not None), None),
        )  # fmt: skip

    @property
    def turnaround_s(self) -> float | None:
        """Seconds from creation to its end, by the provider's own timestamps."""
        return self.ended_at - self.created_at if self.ended_at is not None and self.created_at is not None else None

    @property
    def ended(self) -> bool:
        return self.status in ENDED

    @property
    def counts(self) -> dict:
        return {"total": self.total, "completed": self.completed, "failed": self.failed}


class BatchAPI:
    """The Batch API of one endpoint, through the same openai client as its chat calls."""

    def __init__(self, http: openai.AsyncOpenAI, timeout_s: float = 120.0):
        self.http, self.timeout_s = http, timeout_s

    async def upload(self, name: str, data: bytes) -> str:
        """The input file's id."""
        got = await self._call("uploading the input file (POST /files)", lambda: self.http.files.create(
            file=(name, data, "application/jsonl"), purpose="batch", timeout=self.timeout_s))  # fmt: skip
        return str(got.id)

    async def create(self, input_file_id: str, endpoint: str, metadata: dict[str, str]) -> JobState:
        body = {"input_file_id": input_file_id, "endpoint": endpoint, "completion_window": COMPLETION_WINDOW, "metadata": metadata}
        return await self._job("creating the job (POST /batches)", lambda: self.http.post("/batches", body=body, cast_to=httpx2.Response,
                                                                                          options={"timeout": self.timeout_s}))  # fmt: skip

    async def retrieve(self, job_id: str) -> JobState:
        return await self._job(f"reading job {job_id}", lambda: self.http.get(f"/batches/{job_id}", cast_to=httpx2.Response,
                                                                              options={"timeout": self.timeout_s}))  # fmt: skip

    async def cancel(self, job_id: str) -> JobState:
        return await self._job(f"cancelling job {job_id}", lambda: self.http.post(f"/batches/{job_id}/cancel", cast_to=httpx2.Response,
                                                                                  options={"timeout": self.timeout_s}))  # fmt: skip

    async def content(self, file_id: str) -> str:
        raw = await self._call(f"downloading file {file_id}", lambda: self.http.get(f"/files/{file_id}/content", cast_to=httpx2.Response,
                                                                                    options={"timeout": self.timeout_s}))  # fmt: skip
        return raw.text

    async def find(self, token: str, since: float, pages: int = 20) -> JobState | None:
        """The job whose metadata holds ``token``, looking back through the list (newest first)
        to jobs created a minute before ``since``; None when there is none."""
        after: str | None = None
        for _ in range(pages):
            params = {"limit": 100} | ({"after": after} if after else {})
            raw = await self._call("listing jobs (GET /batches)", lambda p=params: self.http.get("/batches", cast_to=httpx2.Response,
                                                                                        options={"params": p, "timeout": self.timeout_s}))  # fmt: skip
            page = _json(raw, "listing jobs")
            jobs = [JobState.from_json(d) for d in page.get("data") or []]
            for job in jobs:
                if job.metadata.get(METADATA_KEY) == token:
                    return job
            if not jobs or not page.get("has_more") or any(j.created_at is not None and j.created_at < since - 60 for j in jobs):
                return None
            after = jobs[-1].id
        return None

    async def _job(self, what: str, send) -> JobState:
        raw = await self._call(what, send)
        try:
            return JobState.from_json(_json(raw, what))
        except ValueError as e:
            raise BatchCallFailed(what, Failure(FailureKind.MALFORMED, str(e))) from None

    @staticmethod
    async def _call(what: str, send) -> Any:
        try:
            return await send()
        except openai.APIStatusError as e:
            raise BatchCallFailed(what, failure_from_status(e.status_code, e.body if e.body is not None else e.message, e.response.headers)) from None
        except openai.APITimeoutError:
            raise BatchCallFailed(what, Failure(FailureKind.TIMEOUT, "no answer in time")) from None
        except openai.APIConnectionError as e:
            raise BatchCallFailed(what, Failure(FailureKind.UNREACHABLE, " ".join(str(e.__cause__ or e).split()) or "connection failed")) from None


def _stamp(v: Any) -> float | None:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def _json(raw: Any, what: str) -> dict:
    try:
        d = raw.json()
    except ValueError as e:
        raise BatchCallFailed(what, Failure(FailureKind.MALFORMED, f"invalid response body ({e})")) from None
    if not isinstance(d, dict):
        raise BatchCallFailed(what, Failure(FailureKind.MALFORMED, "the response is not a JSON object"))
    return d
