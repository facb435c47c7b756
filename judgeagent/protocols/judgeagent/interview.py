"""One batch's interview, from seed questions to validated feedback (docs/concepts/method.md §2–§4).

``interview_batch`` runs the stages for one batch, given its graded seeds and its plan
(:mod:`judgeagent.stages.planning`, made up front by the protocol): extend round by round at
the controller's difficulty, then feedback and the re-ask.

The protocol (:mod:`judgeagent.protocols.judgeagent`) grades each batch's seeds and runs this
under each of its arms; the engine schedules the batches.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from typing import Protocol as TypingProtocol

from judgeagent.batches import Batch, batch_seed, together
from judgeagent.budgets import CONTROL_PLACEBO, CONTROL_PLAIN, EXTENSION, FEEDBACK, VALIDATION
from judgeagent.config import DifficultyConfig
from judgeagent.data.benchmark import Benchmark, Question
from judgeagent.metrics.difficulty import DifficultyController
from judgeagent.records import (
    AnswerRecord,
    Controls,
    Evaluation,
    GradedSeedsRecord,
    InterviewRecord,
    LeakRecord,
    RoundRecord,
    ValidationRecord,
)
from judgeagent.stages.controls import placebo_suggestion
from judgeagent.stages.feedback import RecordItem, evaluate_batch
from judgeagent.stages.followup import FollowUp, FollowUpWriter
from judgeagent.stages.grading import Answer, ask_batch, passages_outside
from judgeagent.stages.models import Models
from judgeagent.stages.planning import Plan, Setting, record_head

if TYPE_CHECKING:
    from judgeagent.stages.gate import QualityGate
    from judgeagent.stages.leakage import LeakGuard


class InterviewSettings(TypingProtocol):
    """What an interview reads of the judgeagent protocol's options (its options model has
    them all; a test may pass any object that does)."""

    @property
    def rounds(self) -> int: ...
    @property
    def hops(self) -> int: ...
    @property
    def generation_tries(self) -> int: ...
    @property
    def eval_every_round(self) -> bool: ...
    @property
    def reask_correct(self) -> bool: ...
    @property
    def controls(self) -> bool: ...
    @property
    def difficulty(self) -> DifficultyConfig: ...


def _item(kind: str, q: Question, a: Answer) -> RecordItem:
    return RecordItem(kind, q.question, q.options, q.answer if not q.options else f"{q.answer}. {q.answer_text}", a.reply, a.correct, q.difficulty)


async def interview_batch(
    models: Models,
    bench: Benchmark,
    batch: Batch,
    plan: Plan,
    opts: InterviewSettings,
    seed: int,
    setting: Setting,
    seed_answers: list[Answer],
    guard: LeakGuard,
    *,
    gate: QualityGate | None = None,
) -> InterviewRecord:
    """Stages 2 and 3 for one batch, given its stage-1 answers. Returns the record.

    ``opts`` are the judgeagent protocol's options; ``seed`` the run's.

    ``gate`` (the arm's QualityGate) checks every generated question; ``guard`` (the run's
    leakage guard) checks the judge's suggestions before the seeds are asked again with them.
    """
    interview = BatchInterview.start(models, bench, batch, plan, opts, seed, setting, seed_answers, guard, gate=gate)
    n_rounds = 0 if setting.no_extension else opts.rounds
    if opts.eval_every_round:
        await interview.validate(after_round=0)
    for r in range(n_rounds):
        asked = await interview.extend(r)
        if asked and opts.eval_every_round:
            await interview.validate(after_round=r + 1)
    if not opts.eval_every_round:
        await interview.validate(after_round=n_rounds)
    return interview.record()


def counted_level(level: str, followup: FollowUp) -> str:
    """The level a follow-up is reported at: a Hard question one chunk answers is not Hard.

    For reporting only (extension accuracy by level, ``counted_as``): the controller moves
    by the level the question was asked at, so a correct answer never loses score to it.
    """
    return "medium" if level == "hard" and followup.single_hop else level


@dataclass
class BatchInterview:
    """One batch's interview as it goes: what the judge will read, and where the difficulty stands."""

    models: Models
    bench: Benchmark
    batch: Batch
    plan: Plan
    opts: InterviewSettings
    seed: int
    setting: Setting
    seed_answers: list[Answer]
    writer: FollowUpWriter
    controller: DifficultyController
    items: list[RecordItem]  # the seeds and every asked follow-up, as the judge's evaluation reads them
    guard: LeakGuard
    rounds: list[RoundRecord] = field(default_factory=list)
    validations: list[ValidationRecord] = field(default_factory=list)

    @classmethod
    def start(cls, models: Models, bench: Benchmark, batch: Batch, plan: Plan, opts: InterviewSettings, seed: int, setting: Setting,
              seed_answers: list[Answer], guard: LeakGuard, *, gate: QualityGate | None = None) -> BatchInterview:
        """Begin from the graded seeds: they set the level the first follow-up is written at."""
        controller = DifficultyController(opts.difficulty)
        for q, a in zip(batch.questions, seed_answers):
            controller.update(q.difficulty, a.correct)
        items = [_item("seed", q, a) for q, a in zip(batch.questions, seed_answers)]
        writer = FollowUpWriter.for_batch(models, bench, batch, plan.path, hops=opts.hops, tries=opts.generation_tries, seed=seed, gate=gate)
        return cls(models, bench, batch, plan, opts, seed, setting, seed_answers, writer, controller, items, guard)

    async def extend(self, r: int) -> bool:
        """Round ``r`` of stage 2: a follow-up at the current level, asked and graded, and the
        level moved by the answer. False when the round was skipped (no question)."""
        level = self.setting.fixed_difficulty or self.controller.level
        followup = await self.writer.write(r, level, qid=f"{self.batch.id}-r{r + 1}")
        rec = followup.record(RoundRecord(round=r + 1, level=level))
        self.rounds.append(rec)
        if followup.question is None:
            rec.score_after = None
            return False
        answer = await self.ask(followup.question, followup)
        self.controller.update(level, answer.correct)
        self.items.append(_item("follow-up", followup.question, answer))
        rec.answer = AnswerRecord.of(answer)
        rec.score_after = round(self.controller.score, 4)
        rec.counted_as = counted_level(level, followup)
        return True

    async def ask(self, question: Question, followup: FollowUp) -> Answer:
        """The target answers one follow-up. A reading question comes with the batch's article
        first, the prefix it shares with the seeds' requests, then any of its passages that
        the article does not hold."""
        context = passages = None
        if self.bench.qtype.shows_context and self.batch.context:
            context = self.batch.context
            passages = passages_outside(context, followup.window.texts if followup.window else [], followup.source or "")
        elif self.bench.qtype.shows_context:
            context = followup.source
        (answer,) = await ask_batch(
            self.models, self.bench.qtype, [question], stage=EXTENSION.name, context=context, passages=passages
        )
        return answer

    async def validate(self, after_round: int) -> None:
        """Stage 3 after ``after_round`` rounds: the judge's evaluation of everything asked so far,
        then the seeds re-asked with its suggestions (unless every seed was already right)."""
        evaluation, error = await evaluate_batch(self.models, self.items, stage=FEEDBACK.name)
        all_right = all(a.correct for a in self.seed_answers)
        leak = controls = None
        reanswers, reasked = self.seed_answers, False
        if evaluation and (not all_right or self.opts.reask_correct):
            leak, reanswers, controls = await self.reask(evaluation["suggestions"], after_round)
            reasked = True
        self.validations.append(ValidationRecord(
            after_round=after_round,
            evaluation=Evaluation.model_validate(evaluation) if evaluation is not None else None,
            evaluation_error=error,
            reasked=reasked,
            leak=leak,
            reanswers=[AnswerRecord.of(a) for a in reanswers],
            controls=controls,
        ))  # fmt: skip

    async def reask(self, suggestions: str, after_round: int) -> tuple[LeakRecord, list[Answer], Controls | None]:
        """The seeds again with the suggestions, once the leakage guard has checked (and if
        need be rewritten) them; with the controls beside them when they are on.
        Returns (leak check, re-answers, controls)."""
        check = await self.guard.check(suggestions, self.batch.questions)
        reask = ask_batch(
            self.models, self.bench.qtype, self.batch.questions, stage=VALIDATION.name, context=self.batch.context, suggestions=check.suggestions
        )
        if not self.opts.controls:
            return LeakRecord.of(check), await reask, None
        # Independent of each other: asked at once, so the controls add no wait to the batch.
        control_seed = batch_seed(self.seed, self.batch.id, "placebo", after_round)
        reanswers, controls = await together(reask, ask_controls(self.models, self.bench, self.batch, check.suggestions, seed=control_seed))
        return LeakRecord.of(check), reanswers, controls

    def record(self) -> InterviewRecord:
        """The batch's line of records.jsonl."""
        return InterviewRecord(
            setting=self.setting.name,
            **record_head(self.batch, self.plan),
            seed_answers=[AnswerRecord.of(a) for a in self.seed_answers],
            rounds=self.rounds,
            trajectory=[round(s, 4) for s in self.controller.history],
            final_level=self.controller.level,
            validations=self.validations,
        )


async def ask_controls(models: Models, bench: Benchmark, batch: Batch, suggestions: str, *, seed: int) -> Controls:
    """The two control re-asks: no suggestions (asked afresh) and a placebo of the same length."""
    placebo_text = placebo_suggestion(len(suggestions), seed)
    plain, placebo = await together(
        ask_batch(models, bench.qtype, batch.questions, stage=CONTROL_PLAIN.name, context=batch.context, variant="plain re-ask"),
        ask_batch(models, bench.qtype, batch.questions, stage=CONTROL_PLACEBO.name, context=batch.context, suggestions=placebo_text),
    )
    return Controls(plain=[AnswerRecord.of(a) for a in plain], placebo=[AnswerRecord.of(a) for a in placebo], placebo_text=placebo_text)


def answers_from(record: GradedSeedsRecord) -> list[Answer]:
    """The seed answers a finished record holds (every arm of a batch starts from them)."""
    return [Answer.from_dict(a.fields()) for a in record.seed_answers]
