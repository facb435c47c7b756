"""batches.run_batches, the engine's scheduler: at most `concurrency` units at once, on_done per
finished unit, the first error cancels the rest and is raised as itself, a cancelled caller
cancels every unit. Waits on events, never on time."""

import asyncio

import pytest

from judgeagent.batches import Batch, run_batches
from judgeagent.errors import BudgetExceeded


def batches(n: int) -> list[Batch]:
    return [Batch(index=i, id=f"b{i}", questions=[]) for i in range(n)]


class Units:
    """Each unit waits until it is released; records how many ran at once."""

    def __init__(self):
        self.running = 0
        self.most = 0
        self.started: list[str] = []
        self.cancelled: list[str] = []
        self.release = asyncio.Event()
        self.some_started = asyncio.Event()

    async def work(self, b: Batch) -> None:
        self.running += 1
        self.most = max(self.most, self.running)
        self.started.append(b.id)
        self.some_started.set()
        try:
            await self.release.wait()
        except asyncio.CancelledError:
            self.cancelled.append(b.id)
            raise
        finally:
            self.running -= 1


def test_at_most_concurrency_units_run_and_on_done_sees_each_once():
    async def go():
        units, done = Units(), []

        async def release_when_full():
            while units.running < 3:
                await asyncio.sleep(0)
            units.release.set()

        releaser = asyncio.create_task(release_when_full())
        await run_batches(batches(10), units.work, 3, on_done=lambda b: done.append(b.id))
        await releaser
        return units, done

    units, done = asyncio.run(go())
    assert units.most == 3
    assert sorted(done, key=lambda s: int(s[1:])) == [f"b{i}" for i in range(10)]
    assert len(done) == 10


def test_the_first_error_cancels_the_others_and_is_raised_as_itself():
    async def go():
        units = Units()

        async def work(b: Batch) -> None:
            if b.id == "b2":
                await units.some_started.wait()
                raise BudgetExceeded("over the budget")
            await units.work(b)

        with pytest.raises(BudgetExceeded, match="over the budget"):
            await run_batches(batches(4), work, 4)
        return units

    units = asyncio.run(go())
    assert sorted(units.cancelled) == ["b0", "b1", "b3"]
    assert units.running == 0


def test_a_cancelled_caller_cancels_every_unit():
    async def go():
        units = Units()
        task = asyncio.create_task(run_batches(batches(5), units.work, 2))
        await units.some_started.wait()
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task
        return units

    units = asyncio.run(go())
    assert sorted(units.cancelled) == ["b0", "b1"]  # the other three never started
    assert units.started == ["b0", "b1"] and units.running == 0
