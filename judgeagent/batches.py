"""Seed questions in batches, and the scheduler that runs work over them.

A batch is the unit of every run: the target answers its seed questions in one prompt, one
knowledge path is planned for it, and a finished batch is one line of records.jsonl, so a
rerun of the same command skips it.
"""

from __future__ import annotations

import asyncio
import zlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

from judgeagent.data.benchmark import Benchmark, Question, QuestionType


@dataclass
class Batch:
    index: int
    id: str
    questions: list[Question]
    context: str | None = None  # the article, for reading comprehension


def make_batches(bench: Benchmark, batch_size: int, limit: int | None = None) -> list[Batch]:
    questions = bench.questions[:limit] if limit else list(bench.questions)
    groups: list[list[Question]] = []
    if bench.qtype is QuestionType.RMC:
        by_doc: dict[str, list[Question]] = {}
        for q in questions:
            by_doc.setdefault(q.doc_id or "", []).append(q)
        # One batch holds one article's questions; a long question list is split so a batch
        # never exceeds batch_size by much more than one article allows.
        for qs in by_doc.values():
            groups.extend(qs[i : i + batch_size] for i in range(0, len(qs), batch_size))
    else:
        groups = [questions[i : i + batch_size] for i in range(0, len(questions), batch_size)]
    batches = []
    for i, qs in enumerate(groups):
        context = bench.document_text(qs[0].doc_id) if bench.qtype is QuestionType.RMC and qs[0].doc_id else None
        batches.append(Batch(i, f"b{i:04d}", qs, context))
    return batches


def batch_seed(seed: int, batch_id: str, *parts: object) -> int:
    """A stable per-batch seed (Python's hash() is salted per process)."""
    return zlib.crc32("|".join(map(str, (seed, batch_id, *parts))).encode())


def batch_text(batch: Batch) -> str:
    """The seeds and their options as one text: what a knowledge path should stay close to."""
    parts = []
    for q in batch.questions:
        parts.append(q.question)
        parts.extend((q.options or {}).values())
    return "\n".join(parts)


async def run_batches(
    batches: list[Batch],
    work: Callable[[Batch], Awaitable[None]],
    concurrency: int,
    on_done: Callable[[Batch], None] | None = None,
) -> None:
    """Run ``work`` for every batch, at most ``concurrency`` at once; the first error cancels the rest.

    The error is raised as itself, not inside an ExceptionGroup: the engine catches a budget
    stop or an open circuit by its type, and a second unit failing while the rest were being
    cancelled (the same stop, seen again) adds nothing to it. Ctrl-C and a cancelled caller
    cancel every unit, as a task group does.
    """
    sem = asyncio.Semaphore(max(1, concurrency))

    async def one(b: Batch) -> None:
        async with sem:
            await work(b)
        if on_done:
            on_done(b)

    try:
        async with asyncio.TaskGroup() as group:
            for b in batches:
                group.create_task(one(b))
    except ExceptionGroup as errors:
        raise _first(errors) from None


def _first(errors: BaseExceptionGroup) -> BaseException:
    """The first error of a task group's, nested groups opened."""
    first = errors.exceptions[0]
    return _first(first) if isinstance(first, BaseExceptionGroup) else first


async def together(*aws: Awaitable):
    """The results of ``aws``, run at once, as asyncio.gather gives them; but when one fails
    (a call that brought no answer, a budget) the others are cancelled before the error is
    raised, not left running unseen, sending requests for a batch already set aside."""
    tasks = [asyncio.ensure_future(a) for a in aws]
    try:
        return await asyncio.gather(*tasks)
    finally:
        for t in tasks:
            t.cancel()  # a no-op for those already done
        await asyncio.gather(*tasks, return_exceptions=True)
