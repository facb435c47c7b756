"""What a long wait on batch jobs shows: a heading (the wave, how many jobs in flight) and one
live line per job in flight (its wave, model, id, status, requests done of its total, time
since it was sent) under the run's progress bar, and notes printed once above it. Nothing is printed per poll, so a day-long wait does not
flood the terminal; a job's line goes when its results are in."""

from __future__ import annotations

from typing import Any, Protocol


class Display(Protocol):
    def note(self, text: str) -> None: ...

    def job(self, token: str, wave: int, model: str, job_id: str | None, status: str, done: int, total: int) -> None: ...

    def job_done(self, token: str) -> None: ...


class Quiet:
    """No terminal: notes are kept for the run's summary only."""

    def note(self, text: str) -> None:
        pass

    def job(self, token: str, wave: int, model: str, job_id: str | None, status: str, done: int, total: int) -> None:
        pass

    def job_done(self, token: str) -> None:
        pass


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
