"""What a long wait on batch jobs shows.

On a terminal (:class:`RichLines`): a heading (the wave, how many jobs in flight) and one
live line per job in flight (its wave, model, id, status, requests done of its total, time
since it was sent) under the run's progress bar, and notes printed once above it. Nothing is
printed per poll, so a day-long wait does not flood the terminal; a job's line goes when its
results are in.

Elsewhere (:class:`PlainLines`: output redirected to a file, CI, nohup, a job scheduler),
where a live display draws nothing, plain lines: one per wave sent, one per job sent and per
job ended, and one at a steady interval while jobs are in flight, as tqdm and lm-eval do
in a log.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any, Protocol

HEARTBEAT_S = 300.0  # a log line at least this often while jobs are in flight


class Display(Protocol):
    def note(self, text: str) -> None: ...

    def job(self, token: str, wave: int, model: str, job_id: str | None, status: str, done: int, total: int) -> None: ...

    def job_done(self, token: str) -> None: ...

    def tick(self) -> None: ...


class Quiet:
    """No progress wanted: notes are kept for the run's summary only."""

    def note(self, text: str) -> None:
        pass

    def job(self, token: str, wave: int, model: str, job_id: str | None, status: str, done: int, total: int) -> None:
        pass

    def job_done(self, token: str) -> None:
        pass

    def tick(self) -> None:
        pass


class PlainLines:
    """Plain lines for a log: ``say`` prints one; ``clock`` (seconds) and ``every`` set the
    steady interval of the line that says the run is still waiting, and on what."""

    def __init__(self, say: Callable[[str], None], *, every: float = HEARTBEAT_S, clock: Callable[[], float] = time.monotonic):
        self.say, self.every, self.clock = say, every, clock
        self._jobs: dict[str, tuple[int, str, str | None, str, int, int]] = {}  # token -> (wave, model, id, status, done, total)
        self._waves: set[int] = set()
        self._since: dict[str, float] = {}
        self._last = clock()

    def _print(self, text: str) -> None:
        self.say(f"[batch] {text}")
        self._last = self.clock()

    def note(self, text: str) -> None:
        self._print(text)

    def job(self, token: str, wave: int, model: str, job_id: str | None, status: str, done: int, total: int) -> None:
        before = self._jobs.get(token)
        self._jobs[token] = (wave, model, job_id, status, done, total)
        if wave not in self._waves:
            self._waves.add(wave)
            jobs = [j for j in self._jobs.values() if j[0] == wave]
            self._print(f"wave {wave}: sending its requests as Batch API jobs ({len(jobs)} so far, {sum(j[5] for j in jobs)} requests)")
        if job_id is not None and (before is None or before[2] is None):
            self._since[token] = self.clock()
            self._print(f"wave {wave}: job {job_id} ({model}, {total} requests) {status}")

    def job_done(self, token: str) -> None:
        job = self._jobs.pop(token, None)
        if job is None:
            return
        wave, model, job_id, status, done, total = job
        took = self.clock() - self._since.pop(token, self.clock())
        self._print(f"wave {wave}: job {job_id or '(not created)'} ({model}) {status}: {done} of {total} requests done, after {_dur(took)}")

    def tick(self) -> None:
        """Called at every poll: a line when none was printed for ``every`` seconds."""
        if not self._jobs or self.clock() - self._last < self.every:
            return
        done, total = sum(j[4] for j in self._jobs.values()), sum(j[5] for j in self._jobs.values())
        statuses = ", ".join(sorted({j[3] for j in self._jobs.values()}))
        oldest = min(self._since.values(), default=self.clock())
        self._print(f"waiting on {len(self._jobs)} job(s) of wave {max(j[0] for j in self._jobs.values())} ({statuses}): "
                    f"{done} of {total} requests done, {_dur(self.clock() - oldest)} since sent")  # fmt: skip


def _dur(s: float) -> str:
    s = max(0.0, s)
    return f"{s:.0f} s" if s < 90 else f"{s / 60:.0f} min" if s < 5400 else f"{s / 3600:.1f} h"


class RichLines:
    """Lines added to a ``rich.progress.Progress`` whose first column shows
    ``task.description`` (its other columns: a bar, done of total, the time elapsed): one
    heading line while jobs are in flight (the wave, how many jobs), then one line per job."""

    def __init__(self, progress: Any):
        self.progress = progress
        self._tasks: dict[str, Any] = {}
        self._jobs: dict[str, tuple[int, int, int]] = {}  # token -> (wave, done, total) of each job in flight
        self._heading: Any = None

    def note(self, text: str) -> None:
        self.progress.console.print(text, highlight=False, markup=False)

    def job(self, token: str, wave: int, model: str, job_id: str | None, status: str, done: int, total: int) -> None:
        label = f"  wave {wave} · {model} · " + (f"{job_id} · {status}" if job_id else "uploading")
        self._jobs[token] = (wave, done, max(total, 1))
        self._head()
        task = self._tasks.get(token)
        if task is None:
            self._tasks[token] = self.progress.add_task(label, total=max(total, 1), completed=done)
        else:
            self.progress.update(task, description=label, completed=done, total=max(total, 1))

    def tick(self) -> None:
        pass  # the live lines show the time elapsed themselves

    def job_done(self, token: str) -> None:
        self._jobs.pop(token, None)
        task = self._tasks.pop(token, None)
        if task is not None:
            self.progress.remove_task(task)
        self._head()

    def _head(self) -> None:
        """The heading: the latest wave, the jobs in flight and their requests done of all; gone
        when no job is in flight."""
        if not self._jobs:
            if self._heading is not None:
                self.progress.remove_task(self._heading)
                self._heading = None
            return
        n = len(self._jobs)
        text = f"Batch API · wave {max(w for w, _, _ in self._jobs.values())} · {n} job{'s' if n > 1 else ''} in flight"
        done, total = sum(d for _, d, _ in self._jobs.values()), sum(t for _, _, t in self._jobs.values())
        if self._heading is None:
            self._heading = self.progress.add_task(text, total=total, completed=done)
        else:
            self.progress.update(self._heading, description=text, total=total, completed=done)
