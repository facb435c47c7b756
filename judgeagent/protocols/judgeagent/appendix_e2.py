"""The JudgeAgent paper's Appendix E.2 experiments, run after the interview on its records.

``--reask-extended``: each batch's follow-up questions are asked again with the batch's
suggestions, guarded against those questions; their ACC1/ACC2/CR/CtE sit beside the seeds'.

``--transfer``: do the suggestions carry over to questions they were not written for? The
batches are split, seeded, into a *source* half and a *held-out* half. Each held-out batch
takes the suggestions of the source batch closest to it in the graph (most shared matched
entities; with none shared, the most similar path chunks), guarded against the held-out
questions, and is asked again with them and with a placebo of the same length. Reported:
the held-out ΔACC = ACC2 − ACC1 with its batch-clustered interval, the placebo's, and the
difference of the two. The held-out batches' own interviews are untouched.

Both ask through the run's journal, so a rerun replays them for free. They are the
protocol's finishing steps: the engine runs them inside the run's client.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypeVar

import numpy as np
from pydantic import Field

from judgeagent.batches import batch_seed, together
from judgeagent.budgets import REASK_EXTENDED, TRANSFER, TRANSFER_PLACEBO
from judgeagent.data.benchmark import Benchmark, Question
from judgeagent.engine.protocol import Figures
from judgeagent.errors import CallFailed
from judgeagent.metrics.scores import difference, paper_metrics
from judgeagent.metrics.stats import clustered_bootstrap_ci, thin, thin_note
from judgeagent.protocols.judgeagent.options import Run
from judgeagent.records import AnswerRecord, InterviewRecord, JsonModel, LeakRecord, QuestionRecord, RoundRecord, flags, omittable
from judgeagent.stages.controls import placebo_suggestion
from judgeagent.stages.extension import path_text
from judgeagent.stages.grading import ask_batch
from judgeagent.stages.leakage import LeakCheck, LeakGuard, RecordedLeakCheck
from judgeagent.stages.models import Models

if TYPE_CHECKING:
    from judgeagent.graph.embed import Embedder as Encoder

FILE = "appendix_e2.json"


# ----------------------------------------------------------------------------- appendix_e2.json
class Settled(JsonModel):
    """A batch's part of an experiment, or the call that brought it no answer (``incomplete``,
    and nothing else): that batch is left out of the figures (a rerun retries it)."""

    batch_id: str
    incomplete: str | None = omittable()


class FollowUpReask(Settled):
    """--reask-extended, one batch: its follow-ups' first answers and their re-answers."""

    suggestions: str | None = omittable()
    leak: LeakRecord | None = omittable()
    before: list[bool] = omittable([])
    after: list[AnswerRecord] = omittable([])  # one per follow-up


class TransferBatch(Settled):
    """--transfer, one held-out batch: asked with its nearest source batch's suggestions and a placebo."""

    source: str = omittable("")
    chosen_by: str = omittable("")
    leak: LeakRecord | None = omittable()
    before: list[bool] = omittable([])
    after: list[AnswerRecord] = omittable([])
    placebo: list[AnswerRecord] = omittable([])
    placebo_text: str = omittable("")


class TransferDetails(JsonModel):
    error: str | None = omittable()
    source: list[str] = Field(default_factory=list)
    held_out: list[str] = Field(default_factory=list)
    batches: list[TransferBatch] = Field(default_factory=list)


class AppendixE2(JsonModel):
    """appendix_e2.json: what each experiment asked and got, batch by batch."""

    reask_extended: list[FollowUpReask] | None = omittable()
    transfer: TransferDetails | None = omittable()


S = TypeVar("S", bound=Settled)


async def settled(work: Awaitable[S], model: type[S], batch_id: str) -> S:
    """``work``'s result, or a note of the call that brought no answer: that batch is left out
    of the figures (a rerun retries it), the others go on, as in the interview itself."""
    try:
        return await work
    except CallFailed as e:
        return model(batch_id=batch_id, incomplete=str(e))


async def run_experiments(run: Run) -> None:
    """Both experiments as asked, over the interview's main-arm records; appendix_e2.json."""
    from judgeagent.graph.embed import shared_embedder

    opts, models, bench = run.options, run.models, run.bench
    records = sorted((r for r in run.records() if r.setting == "full"), key=lambda r: r.batch_index)
    details = AppendixE2()
    # The encoder the experiments were measured with (not the graph's backend): the same
    # leak checks, so the same re-asks, as in runs made before they joined the engine.
    embedder = shared_embedder()
    live = LeakGuard.of(models, embedder, opts)
    guard = KeptChecks(live, recorded_checks(AppendixE2.from_json(run.read_json(FILE) or {})))
    with run.timed("appendix_e2_s"):
        if opts.reask_extended:
            details.reask_extended = list(await asyncio.gather(*(settled(reask_followups(models, bench, guard, r), FollowUpReask, r.batch_id)
                                                                  for r in records)))
        if opts.transfer:
            finished = {r.batch_id for r in records}
            unfinished = [u.id for u in run.units if u.id not in finished]
            details.transfer = await transfer(models, bench, guard, embedder, records, run.seed, unfinished)
    run.write_json(FILE, details.to_json())


@dataclass
class KeptChecks:
    """The leakage guard for the experiments, which keeps the checks an earlier pass of this run
    recorded: a finished run replays with the verdicts of the guard it ran with (a later guard
    may flag a text that one passed, and ask for a rewrite the run never made)."""

    guard: LeakGuard
    kept: dict[tuple[str, ...], LeakRecord]

    async def check(self, text: str, questions: list[Question], key: tuple[str, ...]) -> LeakCheck:
        record = self.kept.get(key)
        if record is not None and (record.rewritten or record.suggestions == text):
            return RecordedLeakCheck(record.to_json())
        return await self.guard.check(text, questions)


def recorded_checks(details: AppendixE2) -> dict[tuple[str, ...], LeakRecord]:
    """The leak checks appendix_e2.json holds, by experiment and batch (and source batch)."""
    kept: dict[tuple[str, ...], LeakRecord] = {}
    for item in details.reask_extended or []:
        if item.leak is not None:
            kept[("reask_extended", item.batch_id)] = item.leak
    for batch in details.transfer.batches if details.transfer is not None else []:
        if batch.leak is not None:
            kept[("transfer", batch.batch_id, batch.source)] = batch.leak
    return kept


def figures(run: Run, seed_metrics: Figures) -> Figures:
    """The experiments' figures for metrics.json, from appendix_e2.json."""
    details = AppendixE2.from_json(run.read_json(FILE) or {})
    out: Figures = {}
    if details.reask_extended is not None:
        out["reask_extended"] = reask_extended_metrics(details.reask_extended, seed_metrics)
    if details.transfer is not None:
        out["transfer"] = transfer_metrics(details.transfer, bootstrap=run.options.bootstrap, seed=run.seed)
    return out


# ----------------------------------------------------------------------------- re-ask extended
def question_of(record: QuestionRecord) -> Question:
    return Question(**record.fields())


def asked_followups(record: InterviewRecord) -> list[tuple[Question, AnswerRecord, RoundRecord]]:
    """(question, first answer, round) of each follow-up the batch asked."""
    return [(question_of(rd.question), rd.answer, rd) for rd in record.rounds if rd.question is not None and rd.answer is not None]


async def reask_followups(models: Models, bench: Benchmark, guard: KeptChecks, record: InterviewRecord) -> FollowUpReask:
    followups = asked_followups(record)
    text = record.last.suggestions
    if not followups or not text:
        return FollowUpReask(batch_id=record.batch_id, suggestions=text, leak=None, before=[], after=[])
    check = await guard.check(text, [q for q, _, _ in followups], ("reask_extended", record.batch_id))

    async def reask(q: Question, rd: RoundRecord) -> AnswerRecord:
        context = path_text(rd.path.texts, rd.path.entities) if bench.qtype.shows_context and rd.path else None
        (a,) = await ask_batch(models, bench.qtype, [q], stage=REASK_EXTENDED.name, context=context, suggestions=check.suggestions)
        return AnswerRecord.of(a)

    # Independent of each other: asked at once (one wave under --batch-api).
    answers = list(await together(*(reask(q, rd) for q, _, rd in followups)))
    return FollowUpReask(batch_id=record.batch_id, suggestions=check.suggestions, leak=LeakRecord.of(check),
                         before=[a.correct for _, a, _ in followups], after=answers)


def reask_extended_metrics(items: Sequence[FollowUpReask], seed_metrics: Figures) -> Figures:
    """The follow-ups' paper metrics, with the seeds' beside them."""
    done = [it for it in items if it.incomplete is None]
    before = [b for it in done for b in it.before]
    after = [f for it in done for f in flags(it.after)]
    return {
        "followups": paper_metrics(before, after).to_dict(),
        "seeds": {k: seed_metrics.get(k) for k in ("n_questions", "acc1", "acc2", "cr", "cte", "delta_acc")},
        "batches_flagged": sum(1 for it in done if it.leak is not None and it.leak.flagged),
        "incomplete_batches": [it.batch_id for it in items if it.incomplete is not None],
    }


# ----------------------------------------------------------------------------- transfer
def split_batches(batch_ids: list[str], seed: int) -> tuple[list[str], list[str]]:
    """(source, held-out): a seeded shuffle cut in half; the source half takes the odd one."""
    order = sorted(batch_ids)
    random.Random(batch_seed(seed, "transfer", "split")).shuffle(order)
    cut = (len(order) + 1) // 2
    return sorted(order[:cut]), sorted(order[cut:])


def nearest_source(held: set[str], sources: dict[str, set[str]], similarity: dict[str, float] | None) -> tuple[str, str]:
    """The source batch closest to a held-out one: most shared entities (ties: the first id);
    with none shared, the highest chunk similarity. Returns (batch id, how it was chosen)."""
    shared = {sid: len(held & ents) for sid, ents in sources.items()}
    best = max(sorted(shared), key=lambda sid: shared[sid])
    if shared[best] > 0:
        return best, f"{shared[best]} shared entities"
    assert similarity, "no shared entity and no similarity to fall back on"
    best = max(sorted(similarity), key=lambda sid: similarity[sid])
    return best, f"chunk similarity {similarity[best]:.3f}"


def chunk_similarity(embedder: Encoder, held: InterviewRecord, sources: dict[str, InterviewRecord]) -> dict[str, float]:
    """Cosine of the held-out seeds' text to each source batch's path chunks (MiniLM, normalised)."""
    def text(r: InterviewRecord) -> str:
        chunks = [t for rd in r.rounds if rd.path for t in rd.path.texts]
        return "\n".join(dict.fromkeys(chunks)) or "\n".join(q.question for q in r.seed)

    vecs = np.asarray(embedder.encode(["\n".join(q.question for q in held.seed), *(text(r) for r in sources.values())]), dtype=float)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True) + 1e-12
    return {sid: round(float(vecs[0] @ v), 4) for sid, v in zip(sources, vecs[1:])}


async def transfer(models: Models, bench: Benchmark, guard: KeptChecks, embedder: Encoder, records: list[InterviewRecord], seed: int,
                   unfinished: Sequence[str] = ()) -> TransferDetails:
    """The held-out half asked with the source half's suggestions; ``unfinished``: the run's
    batches left incomplete, which have no record to split."""
    by_id = {r.batch_id: r for r in records}
    if len(by_id) < 2:
        if len(by_id) + len(unfinished) < 2:
            error = "needs at least 2 batches (lower --batch-size or raise --limit)"
        else:  # not a setting to change: a call brought no answer, and a rerun retries it
            error = f"needs at least 2 finished batches: {', '.join(unfinished)} left incomplete (rerun the same command to retry)"
        return TransferDetails(error=error, source=sorted(by_id), held_out=[], batches=[])
    source, held_out = split_batches(list(by_id), seed)
    with_advice = {sid: by_id[sid] for sid in source if by_id[sid].last.suggestions}
    if not with_advice:
        return TransferDetails(source=source, held_out=held_out, batches=[])
    batches = await asyncio.gather(*(settled(transfer_one(models, bench, guard, embedder, by_id[hid], with_advice, seed), TransferBatch, hid)
                                     for hid in held_out))
    return TransferDetails(source=source, held_out=held_out, batches=list(batches))


async def transfer_one(models: Models, bench: Benchmark, guard: KeptChecks, embedder: Encoder, held: InterviewRecord,
                       sources: dict[str, InterviewRecord], seed: int) -> TransferBatch:
    """One held-out batch asked with its nearest source batch's suggestions and with a placebo."""
    ents = {sid: r.entities for sid, r in sources.items()}
    similarity = None if any(held.entities & e for e in ents.values()) else chunk_similarity(embedder, held, sources)
    sid, why = nearest_source(held.entities, ents, similarity)
    questions = [question_of(q) for q in held.seed]
    check = await guard.check(sources[sid].last.suggestions or "", questions, ("transfer", held.batch_id, sid))
    context = bench.document_text(questions[0].doc_id) if bench.qtype.shows_context and questions[0].doc_id else None
    placebo = placebo_suggestion(len(check.suggestions), batch_seed(seed, held.batch_id, "transfer-placebo"))
    after, control = await asyncio.gather(
        ask_batch(models, bench.qtype, questions, stage=TRANSFER.name, context=context, suggestions=check.suggestions),
        ask_batch(models, bench.qtype, questions, stage=TRANSFER_PLACEBO.name, context=context, suggestions=placebo),
    )
    return TransferBatch(batch_id=held.batch_id, source=sid, chosen_by=why, leak=LeakRecord.of(check), before=flags(held.seed_answers),
                         after=[AnswerRecord.of(a) for a in after], placebo=[AnswerRecord.of(a) for a in control], placebo_text=placebo)


def transfer_metrics(details: TransferDetails, *, bootstrap: int, seed: int) -> Figures:
    """Held-out ACC1 → ACC2 and the placebo's, with batch-clustered intervals."""
    if details.error:
        return {"error": details.error}
    batches = [b for b in details.batches if b.incomplete is None]
    before = [b.before for b in batches]
    after = [flags(b.after) for b in batches]
    placebo = [flags(b.placebo) for b in batches]

    def flat(xs: list[list[bool]]) -> list[bool]:
        return [x for b in xs for x in b]

    def ci(a: list[list[bool]], b: list[list[bool]]) -> object:
        return clustered_bootstrap_ci(list(zip(a, b)), n_resamples=bootstrap, seed=seed)["delta_acc"]

    m = paper_metrics(flat(before), flat(after))
    acc_placebo = paper_metrics(flat(before), flat(placebo)).acc2
    return {
        **m.to_dict(),
        "n_batches": len(batches),
        "source": details.source,
        "held_out": details.held_out,
        "ci_delta_acc": ci(before, after),
        "placebo": {"acc": acc_placebo, "delta_acc": difference(acc_placebo, m.acc1), "ci_delta_acc": ci(before, placebo)},
        "suggestions_minus_placebo": {"delta": difference(m.acc2, acc_placebo), "ci": ci(placebo, after)},
        "ci_method": "batch_bootstrap",
        # Its intervals rest on the held-out batches alone, often one or two: say why they are whole.
        "note": thin_note(len(batches)) if thin(len(batches)) else None,
        "incomplete_batches": [b.batch_id for b in details.batches if b.incomplete is not None],
    }
