"""The JudgeAgent interview's requests per batch, for ``--dry-run`` (judgeagent.estimate), and
the rates an earlier run's records show of them.

Per batch: the seed rewrites (``--decontaminate``), the seed answers (once, for every arm),
then per arm its rounds (a follow-up written through the gate, asked and graded) and its
validations (the judge's evaluation; when a seed was wrong, or with ``--reask-correct``,
the leakage guard, the re-ask and the two control re-asks). Appendix E.2 adds re-asks of the
follow-ups and the held-out half's transfer re-asks; the closing summary is one request.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from judgeagent.batches import Batch
from judgeagent.budgets import (
    CONTROL_PLACEBO,
    CONTROL_PLAIN,
    DECON_VERIFY,
    DECONTAMINATE,
    EXTENSION,
    FEEDBACK,
    GRADING,
    REASK_EXTENDED,
    SUMMARY,
    TRANSFER,
    TRANSFER_PLACEBO,
    VALIDATION,
)
from judgeagent.config import DecontaminationMode
from judgeagent.data.benchmark import Benchmark
from judgeagent.engine.callplan import (
    NONE,
    ONE,
    REPLY_OK,
    SEED_ACCURACY,
    STAND_IN_ADVICE,
    Call,
    Count,
    RateValues,
    Seen,
    answer_call,
    bernoulli,
    binomial,
    phrase_judge_calls,
    seen_answers,
    tries,
)
from judgeagent.prompts import messages, render
from judgeagent.protocols.judgeagent.options import Run, arms
from judgeagent.protocols.stage_plans import DECON_OK, PATH_FOUND, SHARED_RATES, followup_calls, guard_calls, seen_followups, seen_leaks
from judgeagent.records import Evaluation, InterviewRecord, QuestionRecord, ValidationRecord
from judgeagent.stages.feedback import RecordItem, format_record
from judgeagent.stages.leak_judge import resolve_leak_check

RATES = SHARED_RATES  # every shared block's rate: seed answers, follow-ups, guard, decontamination


def batch_plan(run: Run, b: Batch, rates: RateValues) -> list[Call]:
    opts, bench = run.options, run.bench
    n = len(b.questions)
    calls: list[Call] = []
    if opts.decontaminate:
        calls += decontamination_calls(bench, b, opts.decontaminate, rates)
    done = {(r.setting, r.batch_id) for r in run.done}
    todo = [s for s in arms(opts) if (s.name, b.id) not in done]
    if b.id not in run.done_ids():  # the seed answers, unless an arm of a resumed run has them
        calls.append(answer_call(bench, GRADING, b.questions, ONE, context=b.context))
        calls += phrase_judge_calls(bench, b.questions, Count.fixed(n), rates, events=ONE)
    mode = resolve_leak_check(opts.leak_check, run.judge)
    p_all_right = rates[SEED_ACCURACY] ** n
    for s in todo:
        arm: list[Call] = []
        rounds = 0 if s.no_extension else opts.rounds
        level = s.fixed_difficulty or "mixed"
        written = Count.fixed(rounds) if s.no_graph else binomial(rounds, rates[PATH_FOUND])
        asked = NONE
        if rounds:
            fc = followup_calls(bench, b, level, written, opts, rates, answer_stage=EXTENSION)
            arm += fc
            asked = next(c.count for c in fc if c.stage == EXTENSION)
        validations = (rounds + 1) if opts.eval_every_round else 1
        items = [RecordItem("seed", q.question, q.options, q.answer, q.answer, True, q.difficulty) for q in b.questions]
        # The judge reads the seeds and the follow-ups asked so far: the seeds stand in for them.
        items += items[: max(0, round(asked.mean))] if rounds else []
        feedback = messages(render("feedback_system"), render("feedback", record=format_record(items)))
        arm.append(Call(FEEDBACK, "judge", Count.fixed(validations), feedback))
        reask_p = rates[REPLY_OK] * (1.0 if opts.reask_correct else 1 - p_all_right)
        reasks = Count.fixed(validations).per(bernoulli(reask_p))
        arm += guard_calls(bench, b.questions, reasks, mode, STAND_IN_ADVICE, rates)
        arm.append(answer_call(bench, VALIDATION, b.questions, reasks, context=b.context, suggestions=STAND_IN_ADVICE))
        graded = reasks.times(n)
        if opts.controls:  # asked beside the re-ask, in its wave
            arm.append(replace(answer_call(bench, CONTROL_PLAIN, b.questions, reasks, context=b.context), waves=NONE))
            arm.append(replace(answer_call(bench, CONTROL_PLACEBO, b.questions, reasks, context=b.context, suggestions=STAND_IN_ADVICE),
                               waves=NONE))  # fmt: skip
            graded = reasks.times(3 * n)
        arm += phrase_judge_calls(bench, b.questions, graded, rates, events=reasks)
        if s.name == "full" and rounds:
            arm += appendix_e2_calls(run, b, asked, mode, rates)
        # Under --batch-api the arms run at once (ask_unit): each is a branch of the unit's waves.
        calls += [replace(c, branch=s.name) for c in arm] if len(todo) > 1 else arm
    return calls


def appendix_e2_calls(run: Run, b: Batch, asked: Count, mode: str, rates: RateValues) -> list[Call]:
    """--reask-extended: each asked follow-up again with the batch's suggestions (one guard
    check per batch); --transfer: the held-out half's seeds with a source batch's suggestions
    and with a placebo."""
    opts, bench = run.options, run.bench
    calls: list[Call] = []
    if opts.reask_extended:
        q = b.questions[0]
        has = bernoulli(rates[REPLY_OK])
        calls += guard_calls(bench, [q], has, mode, STAND_IN_ADVICE, rates)
        reasked = asked.maybe(rates[REPLY_OK])
        # The batch's follow-ups are asked again at once: one wave, and one for their verdicts.
        calls.append(replace(answer_call(bench, REASK_EXTENDED, [q], reasked, suggestions=STAND_IN_ADVICE), waves=has))
        calls += phrase_judge_calls(bench, [q], reasked, rates, events=has)
    if opts.transfer and len(run.batches) >= 2:
        held = bernoulli(0.5)
        calls += guard_calls(bench, b.questions, held, mode, STAND_IN_ADVICE, rates)
        for stage in (TRANSFER, TRANSFER_PLACEBO):  # asked at once: one wave
            call = answer_call(bench, stage, b.questions, held, context=b.context, suggestions=STAND_IN_ADVICE)
            calls.append(call if stage is TRANSFER else replace(call, waves=NONE))
        calls += phrase_judge_calls(bench, b.questions, held.times(2 * len(b.questions)), rates, events=held)
    return calls


def decontamination_calls(bench: Benchmark, b: Batch, mode: DecontaminationMode, rates: RateValues) -> list[Call]:
    """Per seed: the rewrite (a second try when the first is unusable) and, for paraphrase and
    modify, the blind judge's answer that verifies it."""
    from judgeagent.stages.decontaminate import MAX_TRIES, rewrite_messages

    q = b.questions[0]
    per_seed = tries(rates[DECON_OK], MAX_TRIES)
    n = len(b.questions)
    # The seeds are rewritten at once: as many waves as one seed's tries, then one to verify.
    calls = [Call(DECONTAMINATE, "judge", per_seed.repeat(n), rewrite_messages(q, bench.qtype, mode, b.context), growth=120,
                  repeats=1 - 1 / per_seed.mean, waves=per_seed)]
    if mode in ("modify", "paraphrase"):
        calls.append(Call(DECON_VERIFY, "judge", binomial(n, rates[DECON_OK]), rewrite_messages(q, bench.qtype, "paraphrase", None),
                          waves=bernoulli(1 - (1 - rates[DECON_OK]) ** n)))  # fmt: skip
    return calls


def closing_plan(run: Run, rates: RateValues) -> list[Call]:
    """The judge's closing summary over every batch of the main arm."""
    from judgeagent.stages.summary import summary_prompt

    if not run.options.summary:
        return []
    advice = Evaluation(flaws_knowledge=STAND_IN_ADVICE, flaws_capability=STAND_IN_ADVICE, comprehensive_performance=STAND_IN_ADVICE,
                        suggestions=STAND_IN_ADVICE)
    stand_ins = [InterviewRecord(batch_id=b.id, batch_index=b.index, seed=[QuestionRecord.of(q) for q in b.questions], seed_answers=[],
                                 rounds=[], validations=[ValidationRecord(evaluation=advice)]) for b in run.batches]
    return [Call(SUMMARY, "judge", bernoulli(1.0), summary_prompt(stand_ins))]


def observe(records: Sequence[InterviewRecord]) -> list[Seen]:
    """The shared blocks' rates as an earlier interview's records show them: its seed answers,
    its rounds, its guarded suggestions."""
    return [*seen_answers([a for r in records for a in r.seed_answers]),
            *seen_followups([rd for r in records for rd in r.rounds]),
            *seen_leaks([v.leak for r in records for v in r.validations if v.leak is not None])]
