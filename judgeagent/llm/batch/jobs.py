"""One batch job from upload to results: write it down, upload, create, poll, collect.

A job is written to the journal of every run that has a line in it before its file goes out,
its provider id as soon as it is known, every change of status and counts while it is
polled, and each line's outcome when its files are read; only then are the waiting callers
answered. A process that stops at any point leaves a job another run of the same command
polls again (:meth:`JobRun.resume`), and a job created but never written down is found by
the token in its metadata, so no request is sent twice.

Polling starts every ``poll_s`` seconds and slows by half each time nothing changed, to 4×.
Past the deadline (``deadline_s`` after the job was created) the job is cancelled; what
finished while it was cancelling is kept, and the rest is answered ``LIVE``: sent one by one.
A provider refuses to cancel a job that is already finalizing or has ended (OpenAI: HTTP 400
"Cannot cancel a batch with status 'finalizing'."), a race every deadline meets sooner or
later: its lines are done or about to be, so the job is polled to its end and collected.
"""

from __future__ import annotations

import asyncio
import functools
import time
import uuid
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from judgeagent.errors import ConfigError
from judgeagent.llm.batch.api import ENDED, METADATA_KEY, BatchAPI, BatchCallFailed, JobState
from judgeagent.llm.batch.ledger import ANSWERED, GONE, LIVE, BatchLedger, BatchSettings
from judgeagent.llm.batch.lines import CHAT_URL, input_line, parse_jsonl
from judgeagent.llm.journal import BatchJob, BatchLine
from judgeagent.llm.outcome import Failure, FailureKind

if TYPE_CHECKING:
    from judgeagent.llm.batch.display import Display
    from judgeagent.llm.batch.waves import WaveBarrier
    from judgeagent.llm.outcome import Reply


class BatchHub(Protocol):
    """What a job needs of the hub that sends it (judgeagent.llm.batch.hub.BatchHub)."""

    display: Display
    barrier: WaveBarrier

    def answer(self, state: str, line: Any, convo: list[dict]) -> Reply | Failure | str: ...


class Ticket(Protocol):
    """A request of the job (judgeagent.llm.batch.hub.Ticket)."""

    cid: str
    key: str
    stage: str
    body: dict
    ledger: BatchLedger

# Failures of a setup call that mean this endpoint's Batch API cannot be used at all.
UNUSABLE = frozenset({FailureKind.AUTH, FailureKind.BAD_REQUEST, FailureKind.REFUSED_PARAMETER, FailureKind.QUOTA})
# A failed job's error when the provider's queue for the model is full, not the job wrong.
LIMIT_CODE = "token_limit_exceeded"
# The statuses in which a provider refuses a cancel because the job is past the point of
# cancelling (finishing on its own, or over): the refusal is then no error.
PAST_CANCEL = frozenset({"finalizing", "cancelling"}) | ENDED
# Failures after which a create call may still have created the job.
UNCERTAIN = frozenset({FailureKind.TIMEOUT, FailureKind.UNREACHABLE, FailureKind.SERVER_ERROR, FailureKind.MALFORMED})


def _over_limit(state: JobState) -> bool:
    """The job failed only because the provider's enqueued-token limit was reached."""
    return bool(state.errors) and all(e.get("code") == LIMIT_CODE and e.get("line") is None for e in state.errors)


class BatchRejected(ConfigError):
    """The provider refused a batch job or its Batch API: one line naming why, exit 2. Nothing
    in the job was run or billed, and every answer so far is kept."""


@dataclass(eq=False)
class Waiter:
    future: asyncio.Future
    ledger: BatchLedger
    convo: list[dict]


class JobRun:
    def __init__(self, hub: BatchHub, api: BatchAPI, model: str, identity: str, base_url: str, settings: BatchSettings,
                 *, token: str | None = None, wave: int = 0):  # fmt: skip
        self.hub, self.api, self.model, self.identity, self.base_url, self.settings = hub, api, model, identity, base_url, settings
        self.token = token or uuid.uuid4().hex
        self.wave = wave
        self.job_id: str | None = None
        self.created = time.time()
        self.status = "preparing"
        self.deadline_cancelled = False
        self.cancel_refused = False  # the deadline came as the job was finishing: it is collected, not cancelled
        self.ledgers: dict[int, BatchLedger] = {}
        self.waiters: dict[str, list[Waiter]] = {}
        self.tickets: Sequence[Ticket] = []
        self.task: asyncio.Task | None = None
        self.finished = False
        self.sent_here = False  # this process created it (and so watched it from the start)

    # ------------------------------------------------------------------ who waits
    def wait(self, cid: str, waiter: Waiter) -> None:
        self.ledgers.setdefault(id(waiter.ledger), waiter.ledger)
        self.waiters.setdefault(cid, []).append(waiter)

    def resume(self, ledger: BatchLedger, row: BatchJob) -> None:
        """Take up a job an earlier process sent (found in ``ledger``'s journal)."""
        self.ledgers.setdefault(id(ledger), ledger)
        self.job_id = self.job_id or row.job_id
        self.created, self.wave, self.status = row.created, row.wave, row.status
        self.deadline_cancelled = self.deadline_cancelled or row.deadline_cancelled

    # ------------------------------------------------------------------ the job's life
    async def run(self, fresh: bool) -> None:
        try:
            if fresh:
                self.sent_here = True
                await self._send()
            elif self.job_id is None:
                await self._adopt()
            state = await self._wait()
            await self._collect(state)
        except BatchCallFailed as e:  # no answer from the Batch API after retries: a failure, as a live call's
            self._answer_all(e.failure.with_message(f"{e.what}: {e.failure.message}"))
        except Exception as e:  # refused (BatchRejected), or a bug: raised in the callers, never left waiting
            self._answer_all(e, error=True)
        finally:
            self.finished = True
            self.hub.display.job_done(self.token)
            self.hub.barrier.poke()

    async def _send(self) -> None:
        """Write the job and its lines down, upload them, create the job."""
        lines = [input_line(t.cid, t.body) for t in self.tickets]
        for ledger in self.ledgers.values():  # each run's journal that has a line in it (a sweep's runs share jobs)
            job = BatchJob(self.token, self.identity, self.base_url, self.wave, len(self.tickets), self.created)
            ledger.sent(job, [BatchLine(t.cid, self.token, t.key, t.stage) for t in self.tickets if t.ledger is ledger])
        self._show(0, len(lines))
        try:
            file_id = await self._retrying(lambda: self.api.upload(f"judgeagent-{self.token}.jsonl", ("\n".join(lines) + "\n").encode()))
            self._update(input_file_id=file_id)
            state = await self._create(file_id)
        except BaseException as e:
            if not isinstance(e, asyncio.CancelledError):
                self._abandon()  # never created: its lines may be sent again
            raise
        self._record(state)

    async def _create(self, file_id: str) -> JobState:
        attempt, waited = 0, 0.0
        while True:
            try:
                return await self.api.create(file_id, CHAT_URL, {METADATA_KEY: self.token, "judgeagent_wave": str(self.wave)})
            except BatchCallFailed as e:
                if e.failure.kind in UNCERTAIN and (found := await self._find()) is not None:
                    return found
                attempt += 1
                delay = self._delay(e, attempt, waited)
                waited += delay
                await asyncio.sleep(delay)

    async def _adopt(self) -> None:
        """A job an earlier process was creating when it stopped: found by its token, or
        known never to have been created (its lines may then be sent again)."""
        found = await self._find(strict=True)
        if found is None:
            self._abandon()
            raise BatchCallFailed("resuming a job", Failure(FailureKind.SERVER_ERROR, "it was never created (not found by its token); its requests are sent again"))
        self._record(found)

    async def _find(self, strict: bool = False) -> JobState | None:
        try:
            return await self.api.find(self.token, self.created)
        except BatchCallFailed:
            if strict:
                raise
            return None

    async def _wait(self) -> JobState:
        """Poll until the job ends, cancelling it past the deadline."""
        interval, last = self.settings.poll_s, None
        while True:
            assert self.job_id is not None
            job_id = self.job_id
            state = await self._retrying(functools.partial(self.api.retrieve, job_id))
            if (state.status, state.counts) != last:
                last, interval = (state.status, state.counts), self.settings.poll_s
                self._record(state)
            if state.ended:
                return state
            self.hub.display.tick()
            if self._past_deadline() and state.status not in PAST_CANCEL and not (self.deadline_cancelled or self.cancel_refused):
                await self._cancel(job_id)
                continue
            await asyncio.sleep(interval)
            interval = min(interval * 1.5, self.settings.poll_s * 4)

    async def _cancel(self, job_id: str) -> None:
        """Cancel the job at the deadline. Written down first (a rerun then knows its cancelled
        lines go live); if the provider refuses because the job has meanwhile moved on to
        finalizing or an end, that is undone and the job is left to finish."""
        self.deadline_cancelled = True
        self._update(deadline_cancelled=True)
        try:
            self._record(await self._retrying(functools.partial(self.api.cancel, job_id)))
        except BatchRejected:
            state = await self._retrying(functools.partial(self.api.retrieve, job_id))
            if state.status not in PAST_CANCEL:
                raise  # refused while it could still be cancelled: the endpoint's Batch API is not usable
            self.deadline_cancelled, self.cancel_refused = False, True
            self._update(deadline_cancelled=False)
            self._record(state)
            self.hub.display.note(f"job {job_id} was already {state.status} at the deadline: its results are collected, not cancelled")

    def _past_deadline(self) -> bool:
        return self.settings.deadline_s is not None and time.time() > self.created + self.settings.deadline_s

    async def _collect(self, state: JobState) -> None:
        """Read the job's files; write every line's outcome down; answer the callers."""
        if state.status == "failed" and _over_limit(state):
            self._over_limit(state)
            return
        if state.status == "failed":
            self._settle({cid: (GONE, None) for cid in self._lines()}, state)
            raise BatchRejected(self._rejection(state))
        found: dict[str, dict] = {}
        for file_id in (state.error_file_id, state.output_file_id):  # an answer wins over an error line
            if file_id:
                text = await self._retrying(functools.partial(self.api.content, file_id))
                found.update(parse_jsonl(text))
        outcomes = {cid: self._classify(cid, found.get(cid), state.status) for cid in self._lines()}
        self._settle(outcomes, state)
        for cid, (kind, line) in outcomes.items():
            for w in self.waiters.get(cid, []):
                if not w.future.done():
                    w.ledger.take(cid)
                    w.future.set_result(self.hub.answer(kind, line, w.convo))

    def _over_limit(self, state: JobState) -> None:
        """A job refused for the provider's enqueued-token limit (OpenAI: "try again once some
        in_progress batches have been completed"): nothing in it ran and nothing is wrong with
        it, so its requests fail as rate-limited ones do: waited out (a few polls' time) and
        sent again in a later job, within the retry policy's patience for rate limits."""
        why = "; ".join(str(e.get("message") or e.get("code")) for e in state.errors)
        line = {"response": None, "error": {"code": LIMIT_CODE, "message": why}}
        self._settle({cid: (GONE, {"custom_id": cid} | line) for cid in self._lines()}, state)
        failure = Failure(FailureKind.RATE_LIMITED, f"{LIMIT_CODE}: {why}", code=LIMIT_CODE, retry_after=self.settings.poll_s * 4)
        for cid, waiters in self.waiters.items():
            for w in waiters:
                if not w.future.done():
                    w.ledger.take(cid)
                    w.future.set_result(failure)

    def _classify(self, cid: str, line: dict | None, status: str) -> tuple[str, dict]:
        """(state, line) of one request once its job ended. A job that ended early may leave a
        request out of both files: it never ran, as if its error line said so."""
        if line is None and status in ("expired", "cancelled"):
            code = "batch_expired" if status == "expired" else "batch_cancelled"
            line = {"custom_id": cid, "response": None, "error": {"code": code, "message": f"job {self.job_id} {status} before it ran"}}
        if line is None:
            return GONE, {"custom_id": cid, "response": None, "error": {"code": "missing", "message": f"no line for it in job {self.job_id}'s files"}}
        error: dict = line["error"] if isinstance(line.get("error"), dict) else {}
        if not isinstance(line.get("response"), dict) and error.get("code") in ("batch_expired", "batch_cancelled"):
            return (LIVE if error["code"] == "batch_cancelled" and self.deadline_cancelled else GONE), line
        return ANSWERED, line

    # ------------------------------------------------------------------ bookkeeping
    def _lines(self) -> list[str]:
        cids = {t.cid for t in self.tickets} | set(self.waiters)
        for ledger in self.ledgers.values():
            cids.update(ledger.lines_of(self.token))
        return sorted(cids)

    def _record(self, state: JobState) -> None:
        self.job_id, self.status = state.id, state.status
        self._update(job_id=state.id, status=state.status, counts=state.counts)
        self._show(state.completed + state.failed, state.total or len(self._lines()))

    def _update(self, **fields: Any) -> None:
        for ledger in self.ledgers.values():
            ledger.update(self.token, **fields)

    def _settle(self, outcomes: dict[str, tuple[str, Any]], state: JobState) -> None:
        for ledger in self.ledgers.values():
            ledger.settled(self.token, outcomes, status=state.status, counts=state.counts, output_file_id=state.output_file_id,
                           error_file_id=state.error_file_id, collected=True, turnaround_s=self._turnaround(state))  # fmt: skip

    def _turnaround(self, state: JobState) -> float | None:
        """The job's seconds at the provider: by its own timestamps; else, for a job this
        process sent and watched to its end, by our clock (a resumed job's wait includes the
        time nobody polled it, so it is not measured)."""
        if state.turnaround_s is not None:
            return max(0.0, state.turnaround_s)
        return time.time() - self.created if self.sent_here else None

    def _abandon(self) -> None:
        for ledger in self.ledgers.values():
            ledger.settled(self.token, {cid: (GONE, None) for cid in ledger.lines_of(self.token)}, status="abandoned", collected=True)

    def _show(self, done: int, total: int) -> None:
        self.hub.display.job(self.token, self.wave, self.model, self.job_id, self.status, done, total)

    def _answer_all(self, value: Any, *, error: bool = False) -> None:
        for waiters in self.waiters.values():
            for w in waiters:
                if not w.future.done():
                    w.future.set_exception(value) if error else w.future.set_result(value)

    def _rejection(self, state: JobState) -> str:
        lines = self._lines_in_order()
        parts = []
        for e in state.errors[:3]:
            where = f"line {e['line']}" if e.get("line") is not None else "the file"
            stage = lines.get(int(e["line"])) if isinstance(e.get("line"), int) else None
            what = ", ".join(x for x in (f"param {e['param']}" if e.get("param") else "", str(e.get("code") or "")) if x)
            parts.append(f"{where}{f' (a {stage} request)' if stage else ''}: {what}{': ' if what else ''}{e.get('message') or 'invalid'}")
        why = "; ".join(parts) or "no reason given"
        first = next(iter(self.ledgers.values()), None)
        why = first.redact(why) if first is not None else why
        return (f"model '{self.model}': the Batch API of {self.base_url} refused job {self.job_id} ({why}); nothing in it was run or "
                "billed, answers so far are saved; fix the setting it names, or run without --batch-api")

    def _lines_in_order(self) -> dict[int, str]:
        """Line number (from 1) -> the stage of the request on it, for this process's jobs."""
        return {i + 1: t.stage for i, t in enumerate(self.tickets)}

    # ------------------------------------------------------------------ retrying a call
    async def _retrying(self, call: Callable[[], Awaitable[Any]]) -> Any:
        attempt, waited = 0, 0.0
        while True:
            try:
                return await call()
            except BatchCallFailed as e:
                attempt += 1
                delay = self._delay(e, attempt, waited)
                waited += delay
                await asyncio.sleep(delay)

    def _delay(self, e: BatchCallFailed, attempt: int, waited: float) -> float:
        """How long to wait before trying a Batch API call again; raises when not to."""
        if e.failure.kind in UNUSABLE:
            first = next(iter(self.ledgers.values()), None)
            message = first.redact(str(e)) if first is not None else str(e)
            raise BatchRejected(f"model '{self.model}': the Batch API of {self.base_url} cannot be used ({message}); "
                                "answers so far are saved; run without --batch-api (or batch_api = false for this model)")  # fmt: skip
        delay = self.settings.policy.delay(e.failure, attempt, waited)
        if delay is None:
            raise e
        return delay

