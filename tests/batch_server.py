"""A scripted OpenAI Batch API on 127.0.0.1, beside the scripted chat server, for tests.

It serves what tests/scripted_server.py serves (``/v1/models``, ``/v1/chat/completions``,
answered by the same responder) and the Batch API as OpenAI documents it (platform.openai.com
Batch guide and API reference; DashScope's OpenAI-compatible Batch follows the same shapes):

- ``POST /v1/files`` (multipart, ``purpose=batch``), ``GET /v1/files/{id}/content``;
- ``POST /v1/batches`` ``{input_file_id, endpoint, completion_window: "24h", metadata}``;
  any other window or endpoint, or metadata past its limits (16 pairs, 64-character keys,
  512-character string values), is a 400, as OpenAI answers;
- ``GET /v1/batches/{id}``: status validating → in_progress → finalizing → completed, each
  phase lasting as long as the job's :class:`JobScript` says, with the batch object's
  timestamps (``created_at``, ``in_progress_at``, ``finalizing_at``, ``completed_at``, ...);
  ``failed`` when validation finds a bad line (errors ``{data: [{code, message, param,
  line}]}``) or the organisation's enqueued-token limit is reached (``token_limit_exceeded``,
  no line), ``expired`` part way
  through (the lines not run get ``batch_expired`` error lines, the rest are kept),
  ``cancelling`` (for ``cancel_linger_s``) → ``cancelled`` after ``POST .../cancel``
  (``batch_cancelled`` lines); a cancel of a job already finalizing or ended is refused
  as OpenAI refuses it (HTTP 400 "Cannot cancel a batch with status 'finalizing'."), and the
  job goes on to its end; ``request_counts`` where completed + failed may stay below
  total; ``output_file_id`` / ``error_file_id`` null when there is nothing to put in them;
- ``GET /v1/batches?after=ID&limit=N``: newest first, paginated.

Each line of a job is answered by :meth:`ScriptedServer.respond`, exactly as the chat server
answers the same body (so a run gets the same replies with or without --batch-api); a
:class:`Fault` scripted for a line (``JobScript.line_faults``, or ``push_faults`` as for chat
requests) becomes that line's error-file entry (a 500, a 400 naming a parameter). Output lines
are written in a shuffled order. Phases advance with the clock whether or not anyone polls,
as a real provider's do; a ``hold`` event keeps a job in_progress until the test sets it, and
``polled`` is set at every status read, so tests wait on events, never on sleeps.
"""

from __future__ import annotations

import collections
import email.parser
import email.policy
import json
import random
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field

from scripted_server import Fault, ScriptedServer
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

EXPIRED_MESSAGE = "This request could not be executed before the completion window expired."
CANCELLED_MESSAGE = "This request could not be executed before the batch was cancelled."


@dataclass
class JobScript:
    """How one job behaves (the n-th job created takes the n-th script queued, else the default)."""

    validating_s: float = 0.02
    in_progress_s: float = 0.05  # to run every line, spread evenly
    finalizing_s: float = 0.02
    hold: threading.Event | None = None  # stays in_progress, with ``hold_at`` of its lines run, until set
    hold_at: float = 0.5
    expire_at: float | None = None  # share of its lines run when the job expires
    reject_param: str | None = None  # validation fails on the first line whose body has this key
    line_faults: dict[int, Fault] = field(default_factory=dict)  # by line (from 0) of the input file
    cancel_linger_s: float = 0.05
    cancel_hold: threading.Event | None = None  # stays cancelling until set
    finalizing_hold: threading.Event | None = None  # stays finalizing, every line run, until set
    no_cancel: bool = False  # an OpenAI-compatible endpoint without cancel: every cancel is a 400
    shuffle: bool = True
    # Fails at validation as OpenAI fails a job past the organisation's enqueued-token limit:
    # no line named, "try again once some in_progress batches have been completed".
    token_limit: bool = False


@dataclass
class Job:
    id: str
    index: int
    script: JobScript
    input_file_id: str
    endpoint: str
    window: str
    metadata: dict
    lines: list[dict]
    created: float
    errors: list[dict] = field(default_factory=list)
    done: dict[int, tuple[int, dict | None]] = field(default_factory=dict)  # line -> (status, body) once run
    cancel_at: float | None = None
    ended: str | None = None  # expired | cancelled | completed | failed, once final
    ended_at: float | None = None  # when the server saw it end (at a poll)
    ended_by: float | None = None  # when it ended by its script, which its batch object's *_at stamps say
    output_file_id: str | None = None
    error_file_id: str | None = None


class BatchServer(ScriptedServer):
    """The scripted chat server plus a scripted Batch API. ``jobs`` lists every job created;
    ``job_created`` / ``polled`` are events tests wait on."""

    def __init__(self, responder=None, *, default: JobScript | None = None, **kwargs):
        super().__init__(responder, **kwargs)
        self.default = default or JobScript()
        self.scripts: collections.deque[JobScript] = collections.deque()
        self.files: dict[str, dict] = {}
        self.jobs: list[Job] = []
        self.job_created = threading.Event()
        self.polled = threading.Event()
        self.cancel_refused = threading.Event()  # set when a cancel was answered 400 (the job finalizing or ended)
        # Called as a cancel arrives, before it is looked at: a test makes the job move on
        # between the client's last poll and its cancel, the race a deadline meets.
        self.before_cancel: Callable[[Job], None] | None = None
        self.uploads = 0
        self.lines_run = 0  # lines answered inside jobs (``requests`` counts live chat requests only)
        self._batch_lock = threading.RLock()

    def script_jobs(self, *scripts: JobScript) -> None:
        self.scripts.extend(scripts)

    @property
    def custom_ids(self) -> list[list[str]]:
        """The custom_ids of each job, in creation order."""
        with self._batch_lock:
            return [[line["custom_id"] for line in job.lines] for job in self.jobs]

    # ------------------------------------------------------------------ routes
    def routes(self) -> list[Route]:
        return super().routes() + [
            Route("/v1/files", self._upload, methods=["POST"]),
            Route("/v1/files/{file_id}/content", self._content, methods=["GET"]),
            Route("/v1/batches", self._create, methods=["POST"]),
            Route("/v1/batches", self._list, methods=["GET"]),
            Route("/v1/batches/{job_id}", self._retrieve, methods=["GET"]),
            Route("/v1/batches/{job_id}/cancel", self._cancel, methods=["POST"]),
        ]

    async def _upload(self, request: Request) -> Response:
        raw = await request.body()
        parts = _multipart(request.headers.get("content-type", ""), raw)
        if "file" not in parts or parts.get("purpose", b"").decode() != "batch":
            return _error(400, "a file and purpose=batch are required", "purpose")
        file_id = f"file-{uuid.uuid4().hex[:24]}"
        with self._batch_lock:
            self.uploads += 1
            self.files[file_id] = {"bytes": parts["file"], "purpose": "batch"}
        return JSONResponse({"id": file_id, "object": "file", "bytes": len(parts["file"]), "created_at": int(time.time()),
                             "filename": "input.jsonl", "purpose": "batch", "status": "processed"})  # fmt: skip

    async def _content(self, request: Request) -> Response:
        with self._batch_lock:
            f = self.files.get(request.path_params["file_id"])
        if f is None:
            return _error(404, "No such File object", "file_id")
        return Response(f["bytes"], media_type="application/octet-stream")

    async def _create(self, request: Request) -> Response:
        body = await request.json()
        if (why := _bad_metadata(body.get("metadata"))) is not None:
            return _error(400, why, "metadata")
        if body.get("completion_window") != "24h":
            return _error(400, "Invalid completion_window: only 24h is supported", "completion_window")
        if body.get("endpoint") != "/v1/chat/completions":
            return _error(400, f"Invalid endpoint {body.get('endpoint')!r}", "endpoint")
        with self._batch_lock:
            f = self.files.get(body.get("input_file_id", ""))
            if f is None:
                return _error(400, "No such input file", "input_file_id")
            script = self.scripts.popleft() if self.scripts else self.default
            lines = [json.loads(raw) for raw in f["bytes"].decode().splitlines() if raw.strip()]
            job = Job(f"batch_{uuid.uuid4().hex[:24]}", len(self.jobs), script, body["input_file_id"], body["endpoint"], body["completion_window"],
                      body.get("metadata") or {}, lines, time.monotonic())  # fmt: skip
            job.errors = _validate(job)
            self.jobs.append(job)
            view = self._view(job, job.created)
        self.job_created.set()
        return JSONResponse(view)

    async def _retrieve(self, request: Request) -> Response:
        job = self._job(request.path_params["job_id"])
        if job is None:
            return _error(404, "No such batch", "batch_id")
        with self._batch_lock:
            now = time.monotonic()
            self._advance(job, now)
            view = self._view(job, now)
        self.polled.set()
        return JSONResponse(view)

    async def _cancel(self, request: Request) -> Response:
        job = self._job(request.path_params["job_id"])
        if job is None:
            return _error(404, "No such batch", "batch_id")
        if self.before_cancel is not None:
            self.before_cancel(job)
        with self._batch_lock:
            now = time.monotonic()
            self._advance(job, now)
            status = self._status(job, now)
            if job.script.no_cancel:
                refused, status = True, "unsupported"
            elif status in ("finalizing", "completed", "failed", "expired", "cancelled"):
                refused = True
            else:
                refused = False
                if job.cancel_at is None:
                    job.cancel_at = now
                view = self._view(job, now)
        if refused:
            self.cancel_refused.set()
            return _error(400, "Cancelling a batch is not supported." if status == "unsupported" else f"Cannot cancel a batch with status '{status}'.")
        return JSONResponse(view)

    async def _list(self, request: Request) -> Response:
        after, limit = request.query_params.get("after"), int(request.query_params.get("limit", 20))
        with self._batch_lock:
            now = time.monotonic()
            for job in self.jobs:
                self._advance(job, now)
            newest = [self._view(j, now) for j in reversed(self.jobs)]
        if after:
            ids = [v["id"] for v in newest]
            newest = newest[ids.index(after) + 1 :] if after in ids else []
        page = newest[:limit]
        return JSONResponse({"object": "list", "data": page, "first_id": page[0]["id"] if page else None,
                             "last_id": page[-1]["id"] if page else None, "has_more": len(newest) > limit})  # fmt: skip

    def _job(self, job_id: str) -> Job | None:
        with self._batch_lock:
            return next((j for j in self.jobs if j.id == job_id), None)

    # ------------------------------------------------------------------ the job's clock
    def _status(self, job: Job, now: float) -> str:
        s = job.script
        t = now - job.created
        if job.ended is not None:
            return job.ended
        if t < s.validating_s:
            return "validating"
        if job.errors:
            return "failed"
        if job.cancel_at is not None:
            lingering = now - job.cancel_at < s.cancel_linger_s or (s.cancel_hold is not None and not s.cancel_hold.is_set())
            return "cancelling" if lingering else "cancelled"
        run_t = t - s.validating_s
        if s.hold is not None and not s.hold.is_set():
            return "in_progress"
        if s.expire_at is not None and run_t >= s.in_progress_s * s.expire_at:
            return "expired"
        if run_t < s.in_progress_s:
            return "in_progress"
        if s.finalizing_hold is not None and not s.finalizing_hold.is_set():
            return "finalizing"
        return "finalizing" if run_t < s.in_progress_s + s.finalizing_s else "completed"

    def _due(self, job: Job, now: float) -> int:
        """How many lines have run by ``now``."""
        s, n = job.script, len(job.lines)
        until = job.cancel_at if job.cancel_at is not None else now
        share = (until - job.created - s.validating_s) / s.in_progress_s if s.in_progress_s > 0 else 1.0
        if s.hold is not None and not s.hold.is_set():
            share = min(share, s.hold_at)
        if s.expire_at is not None:
            share = min(share, s.expire_at)
        return max(0, min(n, int(share * n + 1e-9)))

    def _advance(self, job: Job, now: float) -> None:
        """Run the lines due by ``now``, and end the job when its time has come."""
        if job.ended is not None:
            return
        status = self._status(job, now)
        if status not in ("validating", "failed"):
            for i in range(len(job.done), self._due(job, now)):
                job.done[i] = self._run_line(job, i)
        if status in ("completed", "expired", "cancelled", "failed"):
            if status == "completed":
                for i in range(len(job.done), len(job.lines)):
                    job.done[i] = self._run_line(job, i)
            job.ended, job.ended_at = status, now
            job.ended_by = min(now, self._scheduled_end(job, status) or now)
            if status != "failed":
                self._write_files(job)

    @staticmethod
    def _scheduled_end(job: Job, status: str) -> float | None:
        """When the job reached ``status`` by its script, whether or not anyone polled then (a
        real provider's completed_at is when it completed); None where a test's event decided."""
        s = job.script
        if status == "failed":
            return job.created + s.validating_s
        if status == "cancelled":
            return job.cancel_at + s.cancel_linger_s if job.cancel_at is not None and s.cancel_hold is None else None
        if s.hold is not None or (status == "completed" and s.finalizing_hold is not None):
            return None
        if status == "expired":
            return job.created + s.validating_s + s.in_progress_s * (s.expire_at or 0.0)
        return job.created + s.validating_s + s.in_progress_s + s.finalizing_s

    def _run_line(self, job: Job, i: int) -> tuple[int, dict | None]:
        body = job.lines[i]["body"]
        fault = job.script.line_faults.get(i)
        if fault is None:
            with self._lock:
                fault = self._faults.popleft() if self._faults else None
        self.lines_run += 1
        status, payload, _ = self.respond(body, fault)
        if payload is None:  # a dropped connection inside the provider: its upstream error
            status, payload = 500, {"error": {"message": "The server had an error while processing your request.", "type": "server_error"}}
        return status, payload

    def _write_files(self, job: Job) -> None:
        out, err = [], []
        for i, line in enumerate(job.lines):
            cid = line["custom_id"]
            if i in job.done:
                status, payload = job.done[i]
                entry = {"id": f"batch_req_{uuid.uuid4().hex[:16]}", "custom_id": cid,
                         "response": {"status_code": status, "request_id": f"req_{uuid.uuid4().hex[:12]}", "body": payload}, "error": None}  # fmt: skip
                (out if status == 200 else err).append(entry)
            else:
                code, message = ("batch_expired", EXPIRED_MESSAGE) if job.ended == "expired" else ("batch_cancelled", CANCELLED_MESSAGE)
                err.append({"id": f"batch_req_{uuid.uuid4().hex[:16]}", "custom_id": cid, "response": None,
                            "error": {"code": code, "message": message}})  # fmt: skip
        if job.script.shuffle:
            random.Random(job.index).shuffle(out)
            random.Random(job.index + 1).shuffle(err)
        job.output_file_id = self._file(out)
        job.error_file_id = self._file(err)

    def _file(self, entries: list[dict]) -> str | None:
        if not entries:
            return None  # documented: either file id may be null
        file_id = f"file-{uuid.uuid4().hex[:24]}"
        self.files[file_id] = {"bytes": "".join(json.dumps(e) + "\n" for e in entries).encode(), "purpose": "batch_output"}
        return file_id

    def _view(self, job: Job, now: float) -> dict:
        status = self._status(job, now)
        ran = list(job.done.values())
        ok = sum(1 for st, _ in ran if st == 200)
        counts = {"total": 0 if status in ("validating", "failed") else len(job.lines), "completed": ok, "failed": len(ran) - ok}
        s = job.script

        def stamp(at: float | None) -> int | None:  # the batch object's Unix seconds, from the server's monotonic clock
            return None if at is None else int(time.time() - (now - at))

        began = job.created + s.validating_s if status not in ("validating", "failed") else None
        finalizing = job.created + s.validating_s + s.in_progress_s if status in ("finalizing", "completed") else None
        ended = {k: stamp(job.ended_by) if job.ended == k else None for k in ("completed", "failed", "expired", "cancelled")}
        return {
            "id": job.id, "object": "batch", "endpoint": job.endpoint, "input_file_id": job.input_file_id, "completion_window": job.window,
            "status": status, "output_file_id": job.output_file_id, "error_file_id": job.error_file_id,
            "errors": {"object": "list", "data": job.errors} if status == "failed" else None,
            "created_at": stamp(job.created), "in_progress_at": stamp(began), "expires_at": stamp(job.created + 86400),
            "finalizing_at": stamp(finalizing), "completed_at": ended["completed"], "failed_at": ended["failed"],
            "expired_at": ended["expired"], "cancelling_at": stamp(job.cancel_at), "cancelled_at": ended["cancelled"],
            "request_counts": counts, "metadata": job.metadata,
        }  # fmt: skip


def _validate(job: Job) -> list[dict]:
    """What OpenAI's validation refuses: a line without a unique custom_id, another method or
    url, a second model; and, when scripted, a parameter this model does not take in batch,
    or the organisation's enqueued-token limit."""
    if job.script.token_limit:
        model = next((line.get("body") or {} for line in job.lines), {}).get("model", "the model")
        return [{"code": "token_limit_exceeded", "line": None, "param": None,
                 "message": f"Enqueued token limit reached for {model} in organization org-scripted. Limit: 90,000 enqueued tokens. "
                            "Please try again once some in_progress batches have been completed."}]  # fmt: skip
    errors, seen, models = [], set(), set()
    for n, line in enumerate(job.lines, start=1):
        cid = line.get("custom_id")
        if not isinstance(cid, str) or cid in seen:
            errors.append({"code": "duplicate_custom_id", "message": "custom_id must be unique within the file", "param": "custom_id", "line": n})
        seen.add(cid)
        if line.get("method") != "POST" or line.get("url") != job.endpoint:
            errors.append({"code": "invalid_url", "message": f"the url must be {job.endpoint}", "param": "url", "line": n})
        models.add((line.get("body") or {}).get("model"))
        param = job.script.reject_param
        if param is not None and param in (line.get("body") or {}) and not any(e["param"] == f"body.{param}" for e in errors):
            errors.append({"code": "invalid_value", "message": f"'{param}' is not supported with this model in batch", "param": f"body.{param}", "line": n})
    if len(models) > 1:
        errors.append({"code": "mismatched_model", "message": "every line of a batch must use the same model", "param": "body.model", "line": None})
    return errors


def _bad_metadata(metadata) -> str | None:
    """What OpenAI refuses in a batch's metadata: more than 16 pairs, a key over 64 characters,
    a value that is not a string of at most 512."""
    if metadata is None:
        return None
    if not isinstance(metadata, dict) or len(metadata) > 16:
        return "metadata: at most 16 key-value pairs"
    for k, v in metadata.items():
        if len(k) > 64 or not isinstance(v, str) or len(v) > 512:
            return f"metadata.{k}: keys of at most 64 characters, string values of at most 512"
    return None


def _multipart(content_type: str, raw: bytes) -> dict[str, bytes]:
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode() + raw)
    out = {}
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        if name:
            out[str(name)] = part.get_payload(decode=True) or b""
    return out


def _error(status: int, message: str, param: str | None = None) -> JSONResponse:
    return JSONResponse({"error": {"message": message, "type": "invalid_request_error", "param": param, "code": None}}, status_code=status)
