"""Waves: when the requests waiting for a Batch API job are sent.

A batch job takes minutes to hours whatever its size, so every request that is ready at the
same point of the run should go in the same job. The engine runs its units (seed batches,
seeds, items; in a sweep, every target's) at once, and tells the barrier when each starts
and ends (:meth:`WaveBarrier.unit`). A unit is *parked* when every task it runs is waiting
for a batched answer, or for tasks of its own that are. The waiting requests are sent, one
job per model and endpoint, when every live unit is parked and none waits on a job already
sent: then no unit can add a request to this wave without an answer from it first. All of
them move on together when the wave's jobs are in, and the next wave forms.

Tasks are followed through the event loop's task factory: a task started inside a unit
belongs to it (``asyncio.gather`` and ``together`` start one per request), so a unit that
asks two things at once, or embeds a question while its gate check waits, counts as busy
until both wait. A task that waits on anything else (a live call, an embedding, a sleep) is
busy, and the wave waits for it. Once the conditions hold, the barrier lets the loop turn
twice more before it sends, so tasks woken in the same turn are counted first.
"""

from __future__ import annotations

import asyncio
import contextvars
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

_unit: contextvars.ContextVar[Unit | None] = contextvars.ContextVar("judgeagent_wave_unit", default=None)

PENDING, SENT, OTHER = "pending", "sent", "other"  # what a parked task waits for
SETTLE_TURNS = 2  # loop turns the conditions must hold before a wave is sent


@dataclass(eq=False)
class Unit:
    name: str
    tasks: set[asyncio.Future] = field(default_factory=set)


class WaveBarrier:
    """Which units are running, which of their tasks wait for batched answers, and when the
    waiting requests go out: ``send()`` is called when ``waiting()`` is true and every live
    unit is parked. One per event loop (the hub's)."""

    def __init__(self, loop: asyncio.AbstractEventLoop, waiting: Callable[[], bool], send: Callable[[], None]):
        self.loop, self._waiting, self._send = loop, waiting, send
        self.units: set[Unit] = set()
        self._parked: dict[asyncio.Future, Callable[[], str]] = {}  # task -> what it waits for, now
        self._children: dict[asyncio.Future, set[asyncio.Future]] = {}
        self._parent: dict[asyncio.Future, asyncio.Future] = {}
        self._unit_of: dict[asyncio.Future, Unit] = {}
        self._generation = 0
        self._scheduled = False
        self._previous = loop.get_task_factory()
        loop.set_task_factory(self._factory)

    def close(self) -> None:
        if self.loop.get_task_factory() == self._factory:
            self.loop.set_task_factory(self._previous)

    # ------------------------------------------------------------------ what the engine tells
    @contextmanager
    def unit(self, name: str) -> Iterator[Unit]:
        """The calling task runs one unit until the block ends."""
        task = asyncio.current_task()
        u = Unit(name, {task} if task is not None else set())
        token = _unit.set(u)
        self.units.add(u)
        try:
            yield u
        finally:
            self.units.discard(u)
            _unit.reset(token)
            self.poke()

    # ------------------------------------------------------------------ what the hub tells
    @contextmanager
    def parked(self, kind: Callable[[], str]) -> Iterator[None]:
        """The calling task waits, for what ``kind()`` says (PENDING: a request not sent yet;
        SENT: a job already sent; OTHER: an identical request another task asked first)."""
        task = asyncio.current_task()
        if task is None:
            yield
            return
        self._parked[task] = kind
        self.poke()
        try:
            yield
        finally:
            self._parked.pop(task, None)
            self.poke()

    def poke(self) -> None:
        """Something changed: look again once the current step is over."""
        self._generation += 1
        if not self._scheduled and not self.loop.is_closed():
            self._scheduled = True
            self.loop.call_soon(self._check)

    # ------------------------------------------------------------------ deciding
    def ready(self) -> bool:
        """Requests wait, every live unit is parked, and none waits on a job already sent."""
        if not self._waiting():
            return False
        kinds = {t: k() for t, k in self._parked.items() if not t.done()}
        if SENT in kinds.values():
            return False
        return all(self._unit_parked(u, kinds) for u in self.units)

    def _unit_parked(self, u: Unit, kinds: dict[asyncio.Future, str]) -> bool:
        live = [t for t in u.tasks if not t.done()]
        if not any(t in kinds for t in live):
            return not live  # a unit with nothing parked is busy (or just ending)
        return all(t in kinds or any(not c.done() for c in self._children.get(t, ())) for t in live)

    def _check(self, generation: int | None = None, turns: int = SETTLE_TURNS) -> None:
        if generation is None:
            self._scheduled = False
        elif generation != self._generation:
            return  # something changed meanwhile; that change scheduled its own look
        if not self.ready():
            return
        if turns > 0:
            self.loop.call_soon(self._check, self._generation, turns - 1)
            return
        self._send()

    # ------------------------------------------------------------------ following tasks
    def _factory(self, loop: asyncio.AbstractEventLoop, coro, context: contextvars.Context | None = None) -> asyncio.Future:
        unit = context.get(_unit) if context is not None else _unit.get()
        if self._previous is not None:
            task = self._previous(loop, coro) if context is None else self._previous(loop, coro, context=context)  # type: ignore[call-arg]
        else:
            task = asyncio.Task(coro, loop=loop, context=context)  # what create_task makes without a factory
        if unit is not None and unit in self.units:
            unit.tasks.add(task)
            self._unit_of[task] = unit
            parent = asyncio.current_task(loop)
            if parent is not None:
                self._children.setdefault(parent, set()).add(task)
                self._parent[task] = parent
            task.add_done_callback(self._done)
        return task

    def _done(self, task: asyncio.Future) -> None:
        parent = self._parent.pop(task, None)
        if parent is not None:
            kids = self._children.get(parent)
            if kids is not None:
                kids.discard(task)
                if not kids:
                    del self._children[parent]
        self._children.pop(task, None)
        unit = self._unit_of.pop(task, None)
        if unit is not None:
            unit.tasks.discard(task)
        self.poke()


def outside_units() -> contextvars.Context:
    """A context for tasks that belong to no unit (the jobs' own pollers)."""
    ctx = contextvars.copy_context()
    ctx.run(_unit.set, None)
    return ctx
