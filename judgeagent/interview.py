"""One batch's interview, from seed questions to validated feedback (method.md §2–§4).

``interview_batch`` runs the stages for one batch, given its graded seeds and its plan
(:mod:`judgeagent.planning`, made up front): extend round by round at the controller's
difficulty, then feedback and the re-ask.

Batches are cut and scheduled by :mod:`judgeagent.batches`; the ``judgeagent`` protocol
(:mod:`judgeagent.protocols.judgeagent`) runs them through the engine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, cast

from judgeagent.batches import Batch, batch_seed, together
from judgeagent.data.benchmark import Benchmark, Question
from judgeagent.followup import FollowUp, FollowUpWriter
from judgeagent.metrics.difficulty import DifficultyController
from judgeagent.records import InterviewRecord, RoundRecord, UnitHead, ValidationRecord
from judgeagent.stages.controls import placebo_suggestion
from judgeagent.stages.feedback import RecordItem, evaluate_batch
from judgeagent.stages.grading import Answer, ask_batch, passages_outside
from judgeagent.stages.leak_judge import resolve_leak_check
from judgeagent.stages.leakage import guard_suggestions
from judgeagent.stages.models import Models


@dataclass(frozen=True)
class Setting:
    """Which modules are on. ``evaluate`` runs one; ``ablate`` runs four on the same seed answers."""

    name: str = "full"
    no_graph: bool = False
    fixed_difficulty: str | None = None
    no_extension: bool = False

    @classmethod
    def from_options(cls, opts: Any) -> Setting:
        """The one arm a run of ``judgeagent`` options asks for (``--no-graph`` and the like)."""
        return cls("full", opts.no_graph, opts.fixed_difficulty, opts.no_extension)


ABLATIONS = (
    Setting("full"),
    Setting("no graph", no_graph=True),
    Setting("no adaptive difficulty", fixed_difficulty="medium"),
    Setting("no extension", no_extension=True),
)


def _item(kind: str, q: Question, a: Answer) -> RecordItem:
    return RecordItem(kind, q.question, q.options, q.answer if not q.options else f"{q.answer}. {q.answer_text}", a.reply, a.correct, q.difficulty)


async def grade_seeds(models: Models, bench: Benchmark, batch: Batch) -> list[Answer]:
    return await ask_batch(models, bench.qtype, batch.questions, stage="grading", context=batch.context)


async def interview_batch(
    models: Models,
    bench: Benchmark,
    batch: Batch,
    plan: dict,
    opts: Any,
    seed: int,
    setting: Setting,
    seed_answers: list[Answer],
    *,
    gate=None,
    embedder=None,
) -> InterviewRecord:
    """Stages 2 and 3 for one batch, given its stage-1 answers. Returns the record.

    ``opts`` are the judgeagent protocol's options; ``seed`` the run's.

    ``gate`` (a run-wide QualityGate) checks every generated question; ``embedder`` lets
    the leakage guard compare suggestions with the answers by meaning, not only by text.
    """
    interview = BatchInterview.start(models, bench, batch, plan, opts, seed, setting, seed_answers, gate=gate, embedder=embedder)
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
    plan: dict
    opts: Any  # the judgeagent protocol's options
    seed: int
    setting: Setting
    seed_answers: list[Answer]
    writer: FollowUpWriter
    controller: DifficultyController
    items: list[RecordItem]  # the seeds and every asked follow-up, as the judge's evaluation reads them
    embedder: object = None
    rounds: list[RoundRecord] = field(default_factory=list)
    validations: list[ValidationRecord] = field(default_factory=list)

    @classmethod
    def start(cls, models, bench, batch, plan, opts, seed, setting, seed_answers, *, gate=None, embedder=None) -> BatchInterview:
        """Begin from the graded seeds: they set the level the first follow-up is written at."""
        controller = DifficultyController(opts.difficulty)
        for q, a in zip(batch.questions, seed_answers):
            controller.update(q.difficulty, a.correct)
        items = [_item("seed", q, a) for q, a in zip(batch.questions, seed_answers)]
        writer = FollowUpWriter.for_batch(models, bench, batch, plan, hops=opts.hops, tries=opts.generation_tries, seed=seed, gate=gate)
        return cls(models, bench, batch, plan, opts, seed, setting, seed_answers, writer, controller, items, embedder)

    async def extend(self, r: int) -> bool:
        """Round ``r`` of stage 2: a follow-up at the current level, asked and graded, and the
        level moved by the answer. False when the round was skipped (no question)."""
        level = self.setting.fixed_difficulty or self.controller.level
        followup = await self.writer.write(r, level, qid=f"{self.batch.id}-r{r + 1}")
        rec: dict = {"round": r + 1, "level": level, "path": followup.path, **followup.generation()}
        self.rounds.append(cast(RoundRecord, rec))  # filled in below, in place
        if followup.question is None:
            rec.update(skipped=followup.skipped, question=None, answer=None, score_after=None)
            return False
        answer = await self.ask(followup.question, followup)
        self.controller.update(level, answer.correct)
        self.items.append(_item("follow-up", followup.question, answer))
        rec.update(
            skipped=None,
            question=followup.question.to_dict(),
            answer=answer.to_dict(),
            score_after=round(self.controller.score, 4),
            counted_as=counted_level(level, followup),
        )
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
            self.models, self.bench.qtype, [question], stage="extension", context=context, passages=passages
        )
        return answer

    async def validate(self, after_round: int) -> None:
        """Stage 3 after ``after_round`` rounds: the judge's evaluation of everything asked so far,
        then the seeds re-asked with its suggestions (unless every seed was already right)."""
        evaluation, error = await evaluate_batch(self.models, self.items, stage="feedback")
        all_right = all(a.correct for a in self.seed_answers)
        leak = controls = None
        reanswers, reasked = self.seed_answers, False
        if evaluation and (not all_right or self.opts.reask_correct):
            leak, reanswers, controls = await self.reask(evaluation["suggestions"], after_round)
            reasked = True
        self.validations.append(
            {
                "after_round": after_round,
                "evaluation": evaluation,
                "evaluation_error": error,
                "reasked": reasked,
                "leak": leak,
                "reanswers": [a.to_dict() for a in reanswers],
                "controls": controls,
            }
        )

    async def reask(self, suggestions: str, after_round: int) -> tuple[dict, list[Answer], dict | None]:
        """The seeds again with the suggestions, once the leakage guard has checked (and if
        need be rewritten) them; with the controls beside them when they are on.
        Returns (leak check, re-answers, controls)."""
        check = await guard_suggestions(
            self.models, suggestions, self.batch.questions, embedder=self.embedder, threshold=self.opts.leak_threshold,
            mode=resolve_leak_check(self.opts.leak_check, self.models.judge),
        )
        reask = ask_batch(
            self.models, self.bench.qtype, self.batch.questions, stage="validation", context=self.batch.context, suggestions=check.suggestions
        )
        if not self.opts.controls:
            return check.to_dict(), await reask, None
        # Independent of each other: asked at once, so the controls add no wait to the batch.
        control_seed = batch_seed(self.seed, self.batch.id, "placebo", after_round)
        reanswers, controls = await together(reask, ask_controls(self.models, self.bench, self.batch, check.suggestions, seed=control_seed))
        return check.to_dict(), reanswers, controls

    def record(self) -> InterviewRecord:
        """The batch's line of records.jsonl."""
        return {
            "setting": self.setting.name,
            **record_head(self.batch, self.plan, self.seed_answers),
            "rounds": self.rounds,
            "trajectory": [round(s, 4) for s in self.controller.history],
            "final_level": self.controller.level,
            "validations": self.validations,
        }


def record_head(batch: Batch, plan: dict, seed_answers: list[Answer]) -> UnitHead:
    """What every batch record starts with: the seeds, their first answers, their graph match."""
    return {
        "batch_id": batch.id,
        "batch_index": batch.index,
        "seed": [q.to_dict() for q in batch.questions],
        "seed_answers": [a.to_dict() for a in seed_answers],
        "matched_entities": plan.get("matched", []),
        "start_entity": plan.get("start_entity"),
    }


async def ask_controls(models: Models, bench: Benchmark, batch: Batch, suggestions: str, *, seed: int) -> dict:
    """The two control re-asks: no suggestions (asked afresh) and a placebo of the same length."""
    placebo_text = placebo_suggestion(len(suggestions), seed)
    plain, placebo = await together(
        ask_batch(models, bench.qtype, batch.questions, stage="control-plain", context=batch.context, variant="plain re-ask"),
        ask_batch(models, bench.qtype, batch.questions, stage="control-placebo", context=batch.context, suggestions=placebo_text),
    )
    return {"plain": [a.to_dict() for a in plain], "placebo": [a.to_dict() for a in placebo], "placebo_text": placebo_text}


def answers_from(record: dict) -> list[Answer]:
    return [Answer.from_dict(a) for a in record["seed_answers"]]
