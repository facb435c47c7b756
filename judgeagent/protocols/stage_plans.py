"""The call plans of the stages several protocols share (``--dry-run``): a follow-up written
from a knowledge path window through the quality gate, asked and graded; the leakage guard
on a piece of advice. The JudgeAgent interview, the contamination probe, the escalation, the
Interviewer and the seed writer plan their requests with these; the engine's own vocabulary
(:class:`~judgeagent.engine.callplan.Count`, :class:`~judgeagent.engine.callplan.Call`,
rates) and the answering requests every protocol sends are in :mod:`judgeagent.engine.callplan`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from judgeagent.batches import Batch
from judgeagent.budgets import GENERATION, LEAK_CHECK, LEAK_REWRITE, Stage, gate_stage
from judgeagent.config import GenerationOptions
from judgeagent.data.benchmark import Benchmark, Question
from judgeagent.engine.callplan import (
    BOTH,
    JUDGE,
    NONE,
    ONE,
    PHRASE_JUDGED,
    REPLY_OK,
    SEED_ACCURACY,
    Call,
    Count,
    Rate,
    RateValues,
    Seen,
    answer_call,
    bernoulli,
    phrase_judge_calls,
    stand_in_passages,
    tries,
)
from judgeagent.records import FollowUpRecord, LeakRecord

# The rates of these stages (priors as in engine/callplan.py), and every shared block's.
PATH_FOUND = Rate("path_found", (0.7, 0.95, 1.0), frozenset(), "a round or window has a knowledge path to write from")
TRY_REACHES_GATE = Rate("try_reaches_gate", (0.5, 0.85, 1.0), JUDGE, "a generation try gives a well-formed question the gate's judge is asked about")
TRY_ACCEPTED = Rate("try_accepted", (0.3, 0.6, 0.95), JUDGE, "a generation try gives a question that passes the whole gate")
HARD_SHARE = Rate("hard_share", (0.0, 0.3, 0.7), BOTH, "follow-ups written at Hard (their gate ablates one passage at a time)")
LEAKS = Rate("leaks", (0.0, 0.1, 0.4), JUDGE, "advice the leakage guard finds leaking: the judge rewrites it once")
DECON_OK = Rate("decon_ok", (0.5, 0.8, 1.0), JUDGE, "a decontamination rewrite passes its checks at one try")
SHARED_RATES = (SEED_ACCURACY, PATH_FOUND, TRY_REACHES_GATE, TRY_ACCEPTED, HARD_SHARE, PHRASE_JUDGED, LEAKS, REPLY_OK, DECON_OK)


# ----------------------------------------------------------------------------- what records show
def seen_followups(followups: Sequence[FollowUpRecord]) -> list[Seen]:
    """Paths found, the share written at Hard, and the generation tries the gate judged and passed."""
    tries = [t for f in followups for t in f.generation_attempts or []]
    out = [Seen(PATH_FOUND, sum(f.skipped != "no knowledge path" for f in followups), len(followups)),
           Seen(HARD_SHARE, sum(f.level == "hard" for f in followups), sum(1 for f in followups if f.level)),
           Seen(TRY_REACHES_GATE, sum(t.reached_gate for t in tries), len(tries))]
    if any(t.gate is not None for t in tries):  # a run without the gate says nothing of its pass rate
        out.append(Seen(TRY_ACCEPTED, sum(t.ok for t in tries), len(tries)))
    return out


def seen_leaks(checks: Sequence[LeakRecord]) -> list[Seen]:
    """Advice the leakage guard found leaking."""
    return [Seen(LEAKS, sum(bool(c.leaks_before) for c in checks), len(checks))]


# ----------------------------------------------------------------------------- the requests
def followup_calls(bench: Benchmark, unit: Batch, level: str, written: Count, opts: GenerationOptions, rates: RateValues, *,
                   answer_stage: Stage | None, stand_in: Question | None = None, gate: bool = True, asked: Count | None = None,
                   at_once: Count | None = None) -> list[Call]:  # fmt: skip
    """``written`` follow-ups tried (a round or a window with a path), each written by the
    judge in up to ``generation_tries`` tries through the quality gate, then (when one
    passed) asked of the target and graded (stages.followup.FollowUpWriter, then stages.grading).
    The questions are asked one after another, each after it is written; ``at_once``: all
    together once written, in that many waves (and as many for their verdicts)."""
    from judgeagent.stages.extension import generation_messages, path_text
    from judgeagent.stages.followup import DOMAINS
    from judgeagent.stages.gate import answer_messages as gate_messages

    texts = stand_in_passages(bench, unit, opts.hops)
    source = path_text(texts, [f"entity {i + 1}" for i in range(len(texts))])
    q = stand_in or unit.questions[0]
    gen = generation_messages(bench.qtype, level if level in ("easy", "medium", "hard") else "medium", source, domain=DOMAINS.get(bench.format, "general"))
    gated = gate and opts.gate
    p_accept = rates[TRY_ACCEPTED] if gated else rates[TRY_REACHES_GATE]
    per_followup = tries(p_accept, opts.generation_tries)
    attempts = written.per(per_followup)
    calls = [Call(GENERATION, "judge", attempts, gen, growth=150, repeats=1 - 1 / per_followup.mean)]
    if gated:
        # The answerable check on every try that reaches it; on Hard questions one more check
        # per passage left out (stopping at the first miss: half of them on average).
        reach = min(1.0, rates[TRY_REACHES_GATE])
        hard = rates[HARD_SHARE] if level == "mixed" else (1.0 if level == "hard" else 0.0)
        n = len(texts)
        # The ablations stop at the first miss: mostly the first; all n when none misses.
        ablations = bernoulli(hard).per(Count(1 + 0.3 * (n - 1), (n - 1) ** 2 / 12, 1.0, float(n))) if n >= 2 else NONE
        per_try = bernoulli(reach).per(ONE + ablations)
        gate_calls = attempts.per(per_try)
        calls.append(Call(gate_stage(bench.qtype.is_multiple_choice), "judge", gate_calls, gate_messages(q, bench.qtype, texts)))
        calls += phrase_judge_calls(bench, [q], gate_calls, rates)  # the gate grades the judge's phrase as a target's
    if answer_stage is None:  # the caller asks them its own way
        return calls
    # One follow-up is asked when a try succeeded: 1 - (1 - p)^tries of those written.
    asked = asked if asked is not None else written.per(bernoulli(written_ok(rates, opts.generation_tries, gated)))
    return calls + followup_answer_calls(bench, unit, q, asked, rates, answer_stage, hops=opts.hops, at_once=at_once)


def followup_answer_calls(bench: Benchmark, unit: Batch, q: Question, asked: Count, rates: RateValues, stage: Stage, *, hops: int,
                          at_once: Count | None = None) -> list[Call]:  # fmt: skip
    """The target's answers to ``asked`` follow-ups, one prompt each (a reading target sees
    the passages they were written from), and the judge's verdicts on phrase answers; one
    after another, or ``at_once`` in that many waves."""
    from judgeagent.stages.extension import path_text

    context = passages = None
    if bench.qtype.shows_context:
        texts = stand_in_passages(bench, unit, hops)
        source = path_text(texts, [f"entity {i + 1}" for i in range(len(texts))])
        context = unit.context or source
        passages = source if unit.context else None
    return [replace(answer_call(bench, stage, [q], asked, context=context, passages=passages), waves=at_once),
            *phrase_judge_calls(bench, [q], asked, rates, events=at_once)]


def written_ok(rates: RateValues, tries_n: int, gated: bool = True) -> float:
    """The chance a follow-up is written (some try passed) once there is a path to write from."""
    p = rates[TRY_ACCEPTED] if gated else rates[TRY_REACHES_GATE]
    return 1 - (1 - p) ** tries_n


def guard_calls(bench: Benchmark, questions: list[Question], checks: Count, mode: str, advice: str, rates: RateValues) -> list[Call]:
    """The leakage guard on ``checks`` pieces of advice: in judge mode one leak check per
    question; a leaking advice is rewritten once and checked again."""
    from judgeagent.prompts import messages, render
    from judgeagent.stages.leak_judge import leak_check_messages

    if mode == "off" or not questions:
        return []
    rewrites = checks.per(bernoulli(rates[LEAKS]))
    rewrite = messages(render("leak_rewrite_system"), render("leak_rewrite", suggestions=advice, leaks="(the leaks found)"))
    calls = [Call(LEAK_REWRITE, "judge", rewrites, rewrite)]
    if mode == "judge":
        rounds = checks + rewrites
        msgs = leak_check_messages(advice, questions[0], 1, len(questions))
        # One check per question, all at once: one wave per round of checks.
        calls.append(Call(LEAK_CHECK, "judge", rounds.times(len(questions)), msgs, waves=rounds))
    return calls
