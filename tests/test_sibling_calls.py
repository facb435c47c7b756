"""A call that brings no answer (CallFailed) sets its batch aside; the stages that send several
judge calls at once must then cancel the others, not leave them sending requests for a batch
that is no longer run (judgeagent.batches.together). Driven through the stages' public
functions with a judge double; every wait is on an event, none on a sleep."""

from __future__ import annotations

import asyncio
from types import SimpleNamespace

import pytest

from judgeagent.data.benchmark import Question, QuestionType
from judgeagent.errors import CallFailed
from judgeagent.stages.decontaminate import decontaminate
from judgeagent.stages.leak_judge import judge_leak_check

QUESTIONS = [Question(id=f"q{i}", question=f"Which drug is first line in case {i}?", answer="A",
                      options={"A": "Aspirin", "B": "Heparin", "C": "Warfarin", "D": "Insulin"}) for i in range(4)]


class FailingJudge:
    """The first call fails once all the others are in flight; the others wait for an answer
    that never comes, and count how many of them were cancelled."""

    def __init__(self, n_calls: int):
        self.n_calls, self.started, self.cancelled = n_calls, 0, 0
        self.all_started = asyncio.Event()
        self.judge = SimpleNamespace(name="judge", price_in_per_1k=0.0, price_out_per_1k=0.0)

    async def ask_judge(self, msgs, *, stage: str, **_):
        self.started += 1
        first = self.started == 1
        if self.started == self.n_calls:
            self.all_started.set()
        if first:
            await self.all_started.wait()
            raise CallFailed("judge", stage, "server_error", "HTTP 503: upstream unavailable")
        try:
            await asyncio.Event().wait()  # an answer that never comes
        except asyncio.CancelledError:
            self.cancelled += 1
            raise


STAGES = {
    "decontaminate": lambda models: decontaminate(models, QUESTIONS, QuestionType.KMC, "paraphrase", seed=0),
    "leak-check": lambda models: judge_leak_check(models, "Think about anticoagulants.", QUESTIONS),
}


@pytest.mark.parametrize("stage", list(STAGES))
def test_a_failing_call_cancels_its_siblings_before_the_error_is_raised(stage):
    async def main():
        judge = FailingJudge(len(QUESTIONS))
        with pytest.raises(CallFailed) as failed:
            await STAGES[stage](judge)
        # Raised only after the three siblings were cancelled: none is left running.
        assert (judge.started, judge.cancelled) == (4, 3)
        assert [t for t in asyncio.all_tasks() if t is not asyncio.current_task()] == []
        assert str(failed.value) == f"model 'judge' ({stage}): server_error: HTTP 503: upstream unavailable"

    asyncio.run(main())
