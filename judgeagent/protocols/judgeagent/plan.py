"""The JudgeAgent interview's requests per batch, for ``--dry-run`` (judgeagent.estimate).

Per batch: the seed rewrites (``--decontaminate``), the seed answers (once, for every arm),
then per arm its rounds (a follow-up written through the gate, asked and graded) and its
validations (the judge's evaluation; when a seed was wrong, or with ``--reask-correct``,
the leakage guard, the re-ask and the two control re-asks). Appendix E.2 adds re-asks of the
follow-ups and the held-out half's transfer re-asks; the closing summary is one request.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from judgeagent.batches import Batch
from judgeagent.engine.callplan import (
    NONE,
    ONE,
    STAND_IN_ADVICE,
    Call,
    Count,
    answer_call,
    bernoulli,
    binomial,
    followup_calls,
    guard_calls,
    phrase_judge_calls,
    tries,
)
from judgeagent.interview import ABLATIONS, Setting
from judgeagent.prompts import messages, render
from judgeagent.stages.feedback import RecordItem, format_record
from judgeagent.stages.leak_judge import resolve_leak_check


def arms(opts: Any) -> tuple[Setting, ...]:
    return ABLATIONS if opts.ablation else (Setting.from_options(opts),)


def batch_plan(ctx: Any, b: Batch, rates: Mapping[str, float]) -> list[Call]:
    opts, bench = ctx.options, ctx.bench
    n = len(b.questions)
    calls: list[Call] = []
    if opts.decontaminate:
        calls += decontamination_calls(bench, b, opts.decontaminate, rates)
    done = {(r["setting"], r["batch_id"]) for r in ctx.done}
    todo = [s for s in arms(opts) if (s.name, b.id) not in done]
    if not any(r["batch_id"] == b.id for r in ctx.done):  # the seed answers, unless an arm of a resumed run has them
        calls.append(answer_call(bench, "grading", b.questions, ONE, context=b.context))
        calls += phrase_judge_calls(bench, b.questions, Count.fixed(n), rates, events=ONE)
    mode = resolve_leak_check(opts.leak_check, ctx.judge)
    p_all_right = rates["seed_accuracy"] ** n
    for s in todo:
        arm: list[Call] = []
        rounds = 0 if s.no_extension else opts.rounds
        level = s.fixed_difficulty or "mixed"
        written = Count.fixed(rounds) if s.no_graph else binomial(rounds, rates["path_found"])
        asked = NONE
        if rounds:
            fc = followup_calls(bench, b, level, written, opts, rates, answer_stage="extension")
            arm += fc
            asked = next(c.count for c in fc if c.stage == "extension")
        validations = (rounds + 1) if opts.eval_every_round else 1
        items = [RecordItem("seed", q.question, q.options, q.answer, q.answer, True, q.difficulty) for q in b.questions]
        # The judge reads the seeds and the follow-ups asked so far: the seeds stand in for them.
        items += items[: max(0, round(asked.mean))] if rounds else []
        feedback = messages(render("feedback_system"), render("feedback", record=format_record(items)))
        arm.append(Call("feedback", "judge", Count.fixed(validations), feedback, 600))
        reask_p = rates["reply_ok"] * (1.0 if opts.reask_correct else 1 - p_all_right)
        reasks = Count.fixed(validations).per(bernoulli(reask_p))
        arm += guard_calls(bench, b.questions, reasks, mode, STAND_IN_ADVICE, rates)
        arm.append(answer_call(bench, "validation", b.questions, reasks, context=b.context, suggestions=STAND_IN_ADVICE))
        graded = reasks.times(n)
        if opts.controls:  # asked beside the re-ask, in its wave
            arm.append(replace(answer_call(bench, "control-plain", b.questions, reasks, context=b.context), waves=NONE))
            arm.append(replace(answer_call(bench, "control-placebo", b.questions, reasks, context=b.context, suggestions=STAND_IN_ADVICE),
                               waves=NONE))  # fmt: skip
            graded = reasks.times(3 * n)
        arm += phrase_judge_calls(bench, b.questions, graded, rates, events=reasks)
        if s.name == "full" and rounds:
            arm += appendix_e2_calls(ctx, b, asked, mode, rates)
        # Under --batch-api the arms run at once (ask_unit): each is a branch of the unit's waves.
        calls += [replace(c, branch=s.name) for c in arm] if len(todo) > 1 else arm
    return calls


def appendix_e2_calls(ctx: Any, b: Batch, asked: Count, mode: str, rates: Mapping[str, float]) -> list[Call]:
    """--reask-extended: each asked follow-up again with the batch's suggestions (one guard
    check per batch); --transfer: the held-out half's seeds with a source batch's suggestions
    and with a placebo."""
    opts, bench = ctx.options, ctx.bench
    calls: list[Call] = []
    if opts.reask_extended:
        q = b.questions[0]
        has = bernoulli(rates["reply_ok"])
        calls += guard_calls(bench, [q], has, mode, STAND_IN_ADVICE, rates)
        reasked = asked.maybe(rates["reply_ok"])
        # The batch's follow-ups are asked again at once: one wave, and one for their verdicts.
        calls.append(replace(answer_call(bench, "reask-extended", [q], reasked, suggestions=STAND_IN_ADVICE), waves=has))
        calls += phrase_judge_calls(bench, [q], reasked, rates, events=has)
    if opts.transfer and len(ctx.batches) >= 2:
        held = bernoulli(0.5)
        calls += guard_calls(bench, b.questions, held, mode, STAND_IN_ADVICE, rates)
        for stage in ("transfer", "transfer-placebo"):  # asked at once: one wave
            call = answer_call(bench, stage, b.questions, held, context=b.context, suggestions=STAND_IN_ADVICE)
            calls.append(call if stage == "transfer" else replace(call, waves=NONE))
        calls += phrase_judge_calls(bench, b.questions, held.times(2 * len(b.questions)), rates, events=held)
    return calls


def decontamination_calls(bench: Any, b: Batch, mode: str, rates: Mapping[str, float]) -> list[Call]:
    """Per seed: the rewrite (a second try when the first is unusable) and, for paraphrase and
    modify, the blind judge's answer that verifies it."""
    from judgeagent.stages.decontaminate import MAX_TRIES, rewrite_messages

    q = b.questions[0]
    per_seed = tries(rates["decon_ok"], MAX_TRIES)
    n = len(b.questions)
    # The seeds are rewritten at once: as many waves as one seed's tries, then one to verify.
    calls = [Call("decontaminate", "judge", per_seed.repeat(n), rewrite_messages(q, bench.qtype, mode, b.context), 400, growth=120,
                  repeats=1 - 1 / per_seed.mean, waves=per_seed)]
    if mode in ("modify", "paraphrase"):
        calls.append(Call("decontaminate", "judge", binomial(n, rates["decon_ok"]), rewrite_messages(q, bench.qtype, "paraphrase", None), 40,
                          waves=bernoulli(1 - (1 - rates["decon_ok"]) ** n)))  # fmt: skip
    return calls


def closing_plan(ctx: Any, rates: Mapping[str, float]) -> list[Call]:
    """The judge's closing summary over every batch of the main arm."""
    from judgeagent.stages.summary import summary_prompt

    if not ctx.options.summary:
        return []
    stand_ins = [{"batch_id": b.id, "batch_index": b.index, "seed": [q.to_dict() for q in b.questions], "seed_answers": [],
                  "rounds": [], "validations": [{"evaluation": {"flaws_knowledge": STAND_IN_ADVICE, "flaws_capability": STAND_IN_ADVICE,
                                                                "comprehensive_performance": STAND_IN_ADVICE, "suggestions": STAND_IN_ADVICE}}]}
                 for b in ctx.batches]  # fmt: skip
    return [Call("summary", "judge", bernoulli(1.0), summary_prompt(stand_ins), 700)]
