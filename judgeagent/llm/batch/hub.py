"""The batch transport: requests wait here for their wave, go out one job per model and
endpoint, and come back as the same Reply or Failure a live call gives.

There is one hub per event loop, shared by every client in it (a sweep's runs share one
loop, so the same round of every target's interview goes in the same job). A client asks
with :meth:`BatchHub.ask`; the answer is a :class:`~judgeagent.llm.outcome.Reply`, a
:class:`~judgeagent.llm.outcome.Failure` (which the client's retry policy and parameter
negotiation take as they take a live one: a 400 naming a parameter is learnt, a 500 is
asked again, in the next wave) or ``SEND_LIVE`` (the job was cancelled at the deadline
before this request ran).
"""

from __future__ import annotations

import asyncio
import weakref
from dataclasses import dataclass, field
from typing import Any

import openai

from judgeagent.llm.batch.api import BatchAPI
from judgeagent.llm.batch.display import Display, Quiet
from judgeagent.llm.batch.jobs import BatchSettings, JobRun, Waiter
from judgeagent.llm.batch.ledger import LIVE, SENT, BatchLedger
from judgeagent.llm.batch.lines import NotRun, chunks, input_line, outcome
from judgeagent.llm.batch.waves import OTHER, PENDING, WaveBarrier, outside_units
from judgeagent.llm.batch.waves import SENT as WAITS_ON_JOB
from judgeagent.llm.connect import openai_client
from judgeagent.llm.journal import BatchJob
from judgeagent.llm.outcome import Failure, FailureKind, Reply
from judgeagent.llm.registry import ModelSpec

SEND_LIVE = "send-live"  # the answer of a request whose job was cancelled at the deadline before it ran


@dataclass(eq=False)
class Ticket:
    """A request waiting for its wave."""

    cid: str
    key: str
    stage: str
    body: dict
    spec: ModelSpec
    api_key: str
    ledger: BatchLedger
    future: asyncio.Future
    sent: bool = False


@dataclass
class Waiting:
    """What :meth:`BatchHub.ask` hands back: await :meth:`answer`; ``sent`` tells whether the
    request went out (a caller withdrawn after that is still billed)."""

    hub: BatchHub
    future: asyncio.Future
    ticket: Ticket | None = None
    already_sent: bool = False

    @property
    def sent(self) -> bool:
        return self.already_sent or (self.ticket is not None and self.ticket.sent)

    def kind(self) -> str:
        return PENDING if self.ticket is not None and not self.ticket.sent else WAITS_ON_JOB

    async def answer(self) -> Reply | Failure | str:
        with self.hub.barrier.parked(self.kind):
            return await self.future


@dataclass
class HubStats:
    """This session's waves and jobs, for the run's summary."""

    waves: int = 0
    jobs: list[str] = field(default_factory=list)  # tokens of the jobs created this session


_hubs: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, BatchHub] = weakref.WeakKeyDictionary()


class BatchHub:
    def __init__(self, loop: asyncio.AbstractEventLoop):
        self.loop = loop
        self.queues: dict[str, list[Ticket]] = {}  # model identity -> requests waiting for the next wave
        self.runs: dict[str, JobRun] = {}  # token -> job
        self.wave = 0
        self.display: Display = Quiet()
        self.stats = HubStats()
        self.barrier = WaveBarrier(loop, waiting=lambda: any(self.queues.values()), send=self.send_wave)
        self._owners: set[int] = set()
        self._apis: dict[tuple[str, str], tuple[openai.AsyncOpenAI, BatchAPI]] = {}
        self._resumed: set[tuple[int, str]] = set()

    # ------------------------------------------------------------------ lifecycle
    @classmethod
    def attach(cls, owner: object) -> BatchHub:
        """The running loop's hub (made at first use); ``owner`` is a client that uses it."""
        loop = asyncio.get_running_loop()
        hub = _hubs.get(loop)
        if hub is None:
            hub = _hubs[loop] = cls(loop)
        hub._owners.add(id(owner))
        return hub

    async def detach(self, owner: object) -> None:
        """``owner`` is done; the last one out stops the pollers (the jobs stay journaled) and
        closes the hub's connections."""
        self._owners.discard(id(owner))
        if self._owners:
            return
        _hubs.pop(self.loop, None)
        self.barrier.close()
        tasks = [r.task for r in self.runs.values() if r.task is not None and not r.task.done()]
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        for http, _ in self._apis.values():
            try:
                await http.close()
            except Exception:
                pass
        self._apis.clear()

    def api(self, spec: ModelSpec, api_key: str, timeout_s: float) -> BatchAPI:
        ck = (spec.base_url, api_key)
        if ck not in self._apis:
            http = openai_client(spec.base_url, api_key, timeout_s)
            self._apis[ck] = (http, BatchAPI(http, timeout_s))
        return self._apis[ck][1]

    # ------------------------------------------------------------------ asking
    def ask(self, ledger: BatchLedger, spec: ModelSpec, api_key: str, key: str, stage: str, body: dict, settings: BatchSettings,
            timeout_s: float) -> Waiting:  # fmt: skip
        """Queue one request body for the next wave, or join the job it is already in, or take
        the outcome a journaled job recorded for it."""
        self._resume(ledger, spec, api_key, settings, timeout_s)
        cid, row = ledger.claim(key, body)
        future = self.loop.create_future()
        convo = body.get("messages", [])
        if row is None:
            queue = self.queues.setdefault(spec.identity, [])
            twin = next((t for t in queue if t.cid == cid and not t.future.done()), None)
            if twin is not None:  # the same body, asked twice at once: one line
                return Waiting(self, twin.future, twin)
            ticket = Ticket(cid, key, stage, body, spec, api_key, ledger, future)
            queue.append(ticket)
            self.barrier.poke()
            return Waiting(self, future, ticket)
        if row.state == SENT and row.token in ledger.jobs:
            run = self.runs.get(row.token)
            if run is None or run.finished:
                run = self._follow(ledger, ledger.jobs[row.token], spec, api_key, settings, timeout_s)
            run.wait(cid, Waiter(future, ledger, convo))
            return Waiting(self, future, already_sent=True)
        future.set_result(self.answer(row.state, row.line, convo))
        return Waiting(self, future, already_sent=True)

    def answer(self, state: str, line: Any, convo: list[dict]) -> Reply | Failure | str:
        """What a recorded line means to the caller. A request that never ran is a failure the
        retry policy asks again (a new line, in the next wave); one that expired is an EXPIRED
        failure, which --batch-api-expired decides about (the client); one cancelled at our
        deadline goes live."""
        if state == LIVE:
            return SEND_LIVE
        got = outcome(line, convo)
        if isinstance(got, NotRun):
            kind = FailureKind.EXPIRED if got.why == "expired" else FailureKind.SERVER_ERROR
            return Failure(kind, got.message)
        return got

    def parked_elsewhere(self) -> Any:
        """For a caller that waits on an identical request another task is asking."""
        return self.barrier.parked(lambda: OTHER)

    # ------------------------------------------------------------------ sending a wave
    def send_wave(self) -> None:
        """Every request waiting, one job per model and endpoint (split at the provider's
        limits); called by the barrier when no unit can add to this wave."""
        queues, self.queues = self.queues, {}
        waves = [q for q in ([t for t in tickets if not t.future.done()] for tickets in queues.values()) if q]
        if not waves:
            return
        self.wave += 1
        self.stats.waves += 1
        for tickets in waves:
            lines = [input_line(t.cid, t.body) for t in tickets]
            for part in chunks(lines):
                self._start([tickets[i] for i in part])

    def _start(self, tickets: list[Ticket]) -> None:
        first = tickets[0]
        settings, timeout_s = first.ledger.settings, first.ledger.timeout_s
        run = JobRun(self, self.api(first.spec, first.api_key, timeout_s), first.spec.name, first.spec.identity, first.spec.base_url,
                     settings, wave=self.wave)  # fmt: skip
        run.tickets = tickets
        for t in tickets:
            t.sent = True  # from now on its caller waits on a job, and the next wave waits for it
            run.wait(t.cid, Waiter(t.future, t.ledger, t.body.get("messages", [])))
        self.runs[run.token] = run
        self.stats.jobs.append(run.token)
        run.task = self.loop.create_task(run.run(fresh=True), context=outside_units())

    # ------------------------------------------------------------------ resuming
    def _resume(self, ledger: BatchLedger, spec: ModelSpec, api_key: str, settings: BatchSettings, timeout_s: float) -> None:
        """Once per run and model: poll again every job its journal says is still out."""
        mark = (id(ledger), spec.identity)
        if mark in self._resumed:
            return
        self._resumed.add(mark)
        self.wave = max(self.wave, ledger.max_wave)
        for row in ledger.open_jobs(spec.identity):
            self._follow(ledger, row, spec, api_key, settings, timeout_s)

    def _follow(self, ledger: BatchLedger, row: BatchJob, spec: ModelSpec, api_key: str, settings: BatchSettings, timeout_s: float) -> JobRun:
        run = self.runs.get(row.token)
        if run is not None and not run.finished:
            run.resume(ledger, row)
            return run
        run = JobRun(self, self.api(spec, api_key, timeout_s), spec.name, spec.identity, spec.base_url, settings, token=row.token)
        run.resume(ledger, row)
        # Said, so that a rerun's log shows it is waiting on what an earlier process sent, not sending it again.
        self.display.note(f"picking up job {row.job_id or '(being created)'} (wave {row.wave}, {spec.name}, {row.n_requests} requests) "
                          "sent by an earlier run of this command: polling it, nothing in it is sent again")  # fmt: skip
        self.runs[run.token] = run
        run.task = self.loop.create_task(run.run(fresh=False), context=outside_units())
        return run

