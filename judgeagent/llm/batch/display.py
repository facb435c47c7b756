"""What a long wait on batch jobs shows: one live line per job in flight (its wave, model,
id, status, requests done of its total, time since it was sent) under the run's progress bar,
and notes printed once above it. Nothing is printed per poll, so a day-long wait does not
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
    ``task.description``."""

    def __init__(self, progress: Any):
        self.progress = progress
        self._tasks: dict[str, Any] = {}

    def note(self, text: str) -> None:
        self.progress.console.print(text, highlight=False, markup=False)

    def job(self, token: str, wave: int, model: str, job_id: str | None, status: str, done: int, total: int) -> None:
        label = f"  wave {wave} · {model} · " + (f"{job_id} · {status}" if job_id else "uploading")
        task = self._tasks.get(token)
        if task is None:
            self._tasks[token] = self.progress.add_task(label, total=max(total, 1), completed=done)
        else:
            self.progress.update(task, description=label, completed=done, total=max(total, 1))

    def job_done(self, token: str) -> None:
        task = self._tasks.pop(token, None)
        if task is not None:
            self.progress.remove_task(task)
