"""A protocol in one module, outside the package: "second chance".

Per seed question the target answers once; when it is wrong it is told so and answers
again. Reported: accuracy at the first answer and after the second chance. Everything a
protocol supplies is here, and nothing else in the repository names it:

- its options (a pydantic model; flags it shares with other protocols keep working);
- its record (a pydantic model: the engine writes records.jsonl through it and hands every
  step the typed records back);
- its steps: the units (one per seed) and how one is asked;
- its figures (metrics.json), its terminal lines, its report section and its compare columns;
- its call plan for ``--dry-run`` and the rate that plan depends on, with the rate's prior
  and how its own earlier records show it (``observe``).

Importing the module registers it (``judgeagent evaluate --protocol second-chance``).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from judgeagent.batches import Batch
from judgeagent.blocks import Section, Table, TableBlock, pct
from judgeagent.budgets import answering
from judgeagent.config import EvalConfig, SeedOptions
from judgeagent.engine import FinishedRun, Protocol, RunOutcome, RunServices, register, split_seeds
from judgeagent.engine.callplan import ONE, Call, Rate, RateValues, Seen, answer_call, bernoulli
from judgeagent.engine.protocol import Figures, Renderable
from judgeagent.records import AnswerRecord, Json, JsonModel, QuestionRecord, UnitRecord, flags
from judgeagent.stages.grading import ask_batch

FIRST = answering("second-chance-first", 15)  # the first answer: its stage, answer budget and completion prior
AGAIN = answering("second-chance-again", 15)  # the answer after "that was wrong"
FIRST_RIGHT = Rate("first_right", (0.2, 0.5, 0.8), frozenset({"target"}), "the target's first answer is right")
TOLD = "Your earlier answer to this question was wrong. Answer it again."


class SecondChanceOptions(SeedOptions):
    """Second chance: the seed questions, one at a time."""


class SecondChanceRecord(UnitRecord):
    """One seed: the question, the first answer, and the second when the first was wrong."""

    question: QuestionRecord
    first: AnswerRecord
    again: AnswerRecord | None = None


class SecondChanceFigures(JsonModel):
    n_questions: int = 0
    first: float | None = None  # % right at the first answer
    after_second_chance: float | None = None  # % right at the first or the second


Run = RunServices[SecondChanceOptions, SecondChanceRecord]


@register
class SecondChance(Protocol[SecondChanceOptions, SecondChanceRecord]):
    name = "second-chance"
    title = "Second chance (a toy protocol from tests/toy_protocol.py)"
    order = 90
    compare_columns = (("first %", "first"), ("after second chance %", "after_second_chance"))
    rates = (FIRST_RIGHT,)

    def units(self, run: Run) -> list[Batch]:
        return split_seeds(run.batches)

    async def ask_unit(self, run: Run, unit: Batch) -> None:
        q, qtype = unit.questions[0], run.bench.qtype
        (first,) = await ask_batch(run.models, qtype, unit.questions, stage=FIRST.name, context=unit.context)
        record = SecondChanceRecord(batch_id=unit.id, batch_index=unit.index, question=QuestionRecord.of(q), first=AnswerRecord.of(first))
        if not first.correct:
            (again,) = await ask_batch(run.models, qtype, unit.questions, stage=AGAIN.name, context=unit.context, suggestions=TOLD)
            record.again = AnswerRecord.of(again)
        run.append(record)

    def call_plan(self, run: Run, unit: Batch | None, rates: RateValues) -> list[Call]:
        if unit is None:
            return []
        bench = run.bench
        return [answer_call(bench, FIRST, unit.questions, ONE, context=unit.context),
                answer_call(bench, AGAIN, unit.questions, bernoulli(1 - rates[FIRST_RIGHT]), context=unit.context, suggestions=TOLD)]

    def observe(self, records: Sequence[SecondChanceRecord]) -> Iterable[Seen]:
        return [Seen(FIRST_RIGHT, sum(flags([r.first for r in records])), len(records))]

    def metrics(self, run: Run, records: list[SecondChanceRecord]) -> Figures:
        n = len(records)
        first = sum(r.first.correct for r in records)
        after = sum(r.first.correct or (r.again is not None and r.again.correct) for r in records)
        figures = SecondChanceFigures(n_questions=n, first=100.0 * first / n if n else None, after_second_chance=100.0 * after / n if n else None)
        return {"protocol": self.name, self.name: figures.to_json(), **run.bookkeeping({r.batch_id for r in records})}

    def headline(self, outcome: RunOutcome, cfg: EvalConfig) -> list[Renderable]:
        m = self.figures(outcome.metrics)
        return [f"second chance: {pct(m.first)}% right at once, {pct(m.after_second_chance)}% after a second chance ({m.n_questions} questions)"]

    def compare_values(self, metrics: Json) -> dict[str, float | None]:
        m = self.figures(metrics)
        return {"first": m.first, "after_second_chance": m.after_second_chance}

    def report_sections(self, run: FinishedRun[SecondChanceRecord]) -> list[Section]:
        m = self.figures(run.metrics)
        rows = [[r.batch_id, "right" if r.first.correct else "wrong", "–" if r.again is None else ("right" if r.again.correct else "wrong")] for r in run.records]
        return [Section("Second chance", "second-chance", [
            TableBlock(Table(["N", "first %", "after second chance %"], [[str(m.n_questions), pct(m.first), pct(m.after_second_chance)]], numeric={0, 1, 2})),
            TableBlock(Table(["question", "first answer", "second answer"], rows)),
        ])]  # fmt: skip

    def figures(self, metrics: Json) -> SecondChanceFigures:
        block = metrics.get(self.name)
        return SecondChanceFigures.from_json(block if isinstance(block, dict) else {})
