"""What a protocol says about the requests it will send, before it sends any (``--dry-run``).

A protocol's :meth:`~judgeagent.engine.protocol.Protocol.call_plan` lists, for one unit, the
kinds of request it makes (:class:`Call`): which role answers, at which usage stage, one
such request's messages rendered from the real templates, its answer budget, and how many
times it is sent. How many is often random (a regeneration after a gate failure, a round
with no knowledge path, a dialogue that stops early, a re-ask only when a seed was wrong),
so it is a :class:`Count`: its mean, variance and the least and most it can be, built from
the probabilities in :class:`Rates` (measured on earlier runs, or the priors below).
:mod:`judgeagent.estimation` turns the plans into requests, tokens, cost and time.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace

from judgeagent.batches import Batch
from judgeagent.budgets import GENERATION, LEAK_CHECK, LEAK_REWRITE, PHRASE_JUDGE, Stage, answer_tokens, gate_stage
from judgeagent.config import GenerationOptions
from judgeagent.data.benchmark import Benchmark, Question
from judgeagent.records import AnswerRecord, FollowUpRecord, LeakRecord

Message = dict[str, str]  # one chat message, as the prompts render it


@dataclass(frozen=True)
class Count:
    """How many times something happens in one unit: a random count's mean and variance, and
    the fewest and most times it can happen."""

    mean: float
    var: float = 0.0
    lo: float = 0.0
    hi: float = 0.0

    @classmethod
    def fixed(cls, n: float) -> Count:
        return cls(float(n), 0.0, float(n), float(n))

    def __add__(self, other: Count) -> Count:
        """Both happen (independently): the counts add up."""
        return Count(self.mean + other.mean, self.var + other.var, self.lo + other.lo, self.hi + other.hi)

    def repeat(self, n: int) -> Count:
        """``n`` independent units of this count."""
        return Count(n * self.mean, n * self.var, n * self.lo, n * self.hi)

    def times(self, k: float) -> Count:
        """Every occurrence brings ``k`` more (a fixed number of calls per occurrence)."""
        return Count(k * self.mean, k * k * self.var, k * self.lo, k * self.hi)

    def maybe(self, p: float) -> Count:
        """This count with probability ``p``, else none."""
        p = min(1.0, max(0.0, p))
        if p >= 1.0:
            return self
        if p <= 0.0:
            return NONE
        return Count(p * self.mean, p * self.var + p * (1 - p) * self.mean**2, 0.0, self.hi)

    def per(self, inner: Count) -> Count:
        """For each of this count's occurrences, ``inner`` more (independent): a random sum."""
        mean = self.mean * inner.mean
        var = self.mean * inner.var + inner.mean**2 * self.var
        return Count(mean, var, self.lo * inner.lo, self.hi * inner.hi)


NONE = Count.fixed(0)
ONE = Count.fixed(1)


def bernoulli(p: float) -> Count:
    """Once with probability ``p``."""
    return ONE.maybe(p)


def tries(p_success: float, most: int) -> Count:
    """Attempts until the first success, at most ``most`` (a truncated geometric count): the
    generation tries of one follow-up, the turns of a dialogue that stops early."""
    p = min(1.0, max(0.0, p_success))
    most = max(1, most)
    probs = [(1 - p) ** (k - 1) * (p if k < most else 1.0) for k in range(1, most + 1)]
    mean = sum(k * q for k, q in enumerate(probs, 1))
    var = sum(k * k * q for k, q in enumerate(probs, 1)) - mean**2
    return Count(mean, max(0.0, var), 1.0, float(most))


def binomial(n: int, p: float) -> Count:
    p = min(1.0, max(0.0, p))
    return Count(n * p, n * p * (1 - p), 0.0, float(n))


@dataclass
class Call:
    """One kind of request a unit sends."""

    stage: Stage  # the usage stage the client books it under, its answer budget and completion prior
    role: str  # "target", "judge", or a role of Protocol.roles() (KIEval's "evaluator")
    count: Count  # how many of them one unit sends
    messages: list[Message]  # one such request, rendered from the real templates (stand-ins where the text is not known yet)
    # The answer budget, when it is not the stage's own (the target's answers: it grows with
    # the questions asked in one prompt).
    max_tokens: int | None = None
    # A request whose prompt grows when it is repeated (a regeneration carries the rejected
    # reply and the reasons; a dialogue turn the transcript): the tokens a repeat adds, and
    # the expected share of these requests that are repeats.
    growth: int = 0
    repeats: float = 0.0
    # Under --batch-api, how many waves these requests add to their unit's chain of waits
    # (judgeagent.estimation.batch counts a run's waves from it). None: one per request, each
    # waiting for the one before (rounds, tries, turns); fewer when some go out at once
    # (a leak check per question, the phrase verdicts of one reply); NONE when they ride in
    # the wave of another call of the same unit (the controls beside the re-ask).
    waves: Count | None = None
    # Calls of different branches of one unit run at once (an ablation's arms, after the
    # shared seed answers): the unit waits for its longest branch. None: the unit's trunk.
    branch: str | None = None

    @property
    def chain(self) -> Count:
        """The waves these requests add to one unit's chain."""
        return self.count if self.waves is None else self.waves

    @property
    def budget(self) -> int:
        """What one reply may cost at most: the ``max_tokens`` the run sends it with."""
        return self.max_tokens if self.max_tokens is not None else self.stage.max_tokens


def unit_chain(calls: list[Call], batched: Callable[[str], bool]) -> Count:
    """The waves one unit waits through under --batch-api: its calls to batched roles one
    after another, the trunk's and then its longest branch's (branches run at once)."""
    trunk = NONE
    branches: dict[str, Count] = {}
    for c in calls:
        if not batched(c.role):
            continue  # a live call (a local model) costs time, not a wave
        if c.branch is None:
            trunk = trunk + c.chain
        else:
            branches[c.branch] = branches.get(c.branch, NONE) + c.chain
    return trunk + max(branches.values(), key=lambda b: b.mean, default=NONE)


# ----------------------------------------------------------------------------- rates
@dataclass(frozen=True)
class Rate:
    """A probability the counts of a plan depend on: its prior as (low, expected, high), used
    when no earlier run measured it, and whose behaviour it measures (``roles``): an earlier
    run teaches it only when those roles were played by the same models as in this run (a
    weak judge's gate pass rate says nothing of a strong one's)."""

    name: str
    prior: tuple[float, float, float]
    roles: frozenset[str] = frozenset()
    doc: str = ""


@dataclass(frozen=True)
class Seen:
    """``events`` of ``of`` chances, counted in an earlier run's records: a measured rate."""

    rate: Rate
    events: int
    of: int


# The rates of the shared building blocks below. The expected values are those of the bundled
# model and of the scripted tests' doubles averaged with what the paper reports for strong
# judges; the low and high ends are what a run of another model pair may plausibly show, and
# the estimate's range covers both. A protocol's own rates (KIEval's turns held) sit in its module.
TARGET, JUDGE = frozenset({"target"}), frozenset({"judge"})
BOTH = TARGET | JUDGE
SEED_ACCURACY = Rate("seed_accuracy", (0.25, 0.5, 0.85), TARGET, "a seed answered right (the re-asks, revisions, ladders depend on it)")
PATH_FOUND = Rate("path_found", (0.7, 0.95, 1.0), frozenset(), "a round or window has a knowledge path to write from")
TRY_REACHES_GATE = Rate("try_reaches_gate", (0.5, 0.85, 1.0), JUDGE, "a generation try gives a well-formed question the gate's judge is asked about")
TRY_ACCEPTED = Rate("try_accepted", (0.3, 0.6, 0.95), JUDGE, "a generation try gives a question that passes the whole gate")
HARD_SHARE = Rate("hard_share", (0.0, 0.3, 0.7), BOTH, "follow-ups written at Hard (their gate ablates one passage at a time)")
PHRASE_JUDGED = Rate("phrase_judged", (0.05, 0.3, 0.7), BOTH, "a phrase answer neither exact match nor F1 decides: the judge is asked")
LEAKS = Rate("leaks", (0.0, 0.1, 0.4), JUDGE, "advice the leakage guard finds leaking: the judge rewrites it once")
REPLY_OK = Rate("reply_ok", (0.8, 0.98, 1.0), JUDGE, "the judge's reply is usable (feedback, a follow-up question)")
DECON_OK = Rate("decon_ok", (0.5, 0.8, 1.0), JUDGE, "a decontamination rewrite passes its checks at one try")
SHARED_RATES = (SEED_ACCURACY, PATH_FOUND, TRY_REACHES_GATE, TRY_ACCEPTED, HARD_SHARE, PHRASE_JUDGED, LEAKS, REPLY_OK, DECON_OK)

SCENARIOS = ("low", "expected", "high")
RateValues = Mapping[Rate, float]  # one value per rate: what a call plan is made with


@dataclass
class Rates:
    """The probabilities the counts of a plan depend on, each as (low, expected, high), and
    where each came from ("measured on N earlier runs" or "prior")."""

    values: dict[Rate, tuple[float, float, float]]
    sources: dict[Rate, str]

    @classmethod
    def priors(cls, rates: Iterable[Rate]) -> Rates:
        chosen = list(dict.fromkeys(rates))
        return cls({r: r.prior for r in chosen}, {r: "prior" for r in chosen})

    def scenario(self, which: str) -> RateValues:
        """One value per rate: the low, expected or high end of every rate at once."""
        i = SCENARIOS.index(which)
        return {k: v[i] for k, v in self.values.items()}

    def measured(self, rate: Rate, value: float, n: int, source: str) -> None:
        """Replace a prior by a rate measured over ``n`` events: the range is its 95% interval
        (Wilson's), widened a little, since another run's data is not this run's."""
        if n <= 0 or math.isnan(value):
            return
        z = 1.96
        centre = (value + z * z / (2 * n)) / (1 + z * z / n)
        half = z * math.sqrt(value * (1 - value) / n + z * z / (4 * n * n)) / (1 + z * z / n) + 0.05
        self.values[rate] = (max(0.0, min(value, centre - half)), value, min(1.0, max(value, centre + half)))
        self.sources[rate] = source


# ----------------------------------------------------------------------------- what records show
# The rates of the shared blocks, counted in an earlier run's records: each protocol's
# ``observe`` hands its records' parts to these.
PHRASE_GRADERS = ("exact", "f1", "judge", "yes/no", "null")


def seen_answers(answers: Sequence[AnswerRecord]) -> list[Seen]:
    """Seed accuracy, and how many phrase answers the judge decided."""
    phrase = [a for a in answers if a.graded_by in PHRASE_GRADERS]
    return [Seen(SEED_ACCURACY, sum(a.correct for a in answers), len(answers)),
            Seen(PHRASE_JUDGED, sum(a.graded_by == "judge" for a in phrase), len(phrase))]


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


# ----------------------------------------------------------------------------- building blocks
# The requests the stages send, as the protocols' plans share them. Each renders the stage's
# own prompt (the same function the stage calls) on the unit's real questions; what cannot be
# known before the run (a follow-up not yet written, a knowledge path not yet sampled, the
# target's replies) is stood in for by text of the same kind and size: a seed question for a
# follow-up, benchmark chunks for a path's passages, a seed's reference answer for a reply.


def stand_in_passages(bench: Benchmark, unit: Batch, hops: int) -> list[str]:
    """``hops`` chunks of the benchmark, picked by the unit's index: a knowledge path's
    passages are chunks of the same corpus."""
    chunks = bench.chunks
    if not chunks:
        return []
    step = max(1, len(chunks) // max(1, hops * 7 + 1))
    return [chunks[(unit.index * 7 + i) * step % len(chunks)].text for i in range(max(1, hops))]


def stand_in_reply(q: Question) -> str:
    return q.answer


STAND_IN_ADVICE = (
    "Recall the mechanism that links the findings before choosing, rule out each option against the key finding, "
    "and check the timing and the typical presentation of each condition named in the question."
)


def answer_call(bench: Benchmark, stage: Stage, questions: list[Question], count: Count, *, context: str | None = None,
                passages: str | None = None, suggestions: str | None = None) -> Call:
    """The target answers ``questions`` in one prompt (stages.grading.ask_batch)."""
    from judgeagent.stages.grading import answer_messages

    msgs = answer_messages(bench.qtype, questions, context=context, passages=passages, suggestions=suggestions)
    return Call(stage, "target", count, msgs, max_tokens=answer_tokens(len(questions)))


def phrase_judge_calls(bench: Benchmark, questions: list[Question], answers: Count, rates: RateValues, *,
                       events: Count | None = None) -> list[Call]:  # fmt: skip
    """The judge's yes/no verdicts on phrase answers EM and F1 leave open (``answers`` of them).
    The answers of one reply (``events`` of them, when a reply holds several) are judged at
    once: one wave when any of them needs the judge; else one wave per answer judged."""
    if bench.qtype.is_multiple_choice or not questions:
        return []
    from judgeagent.prompts import messages, render

    q = questions[0]
    msgs = messages(render("judge_phrase_system"), render("judge_phrase", question=q.question, reference=q.answer, candidate=stand_in_reply(q)))
    p = rates[PHRASE_JUDGED]
    waves = None
    if events is not None:
        per_event = answers.mean / events.mean if events.mean > 0 else 0.0
        waves = events.per(bernoulli(1 - (1 - p) ** per_event))
    return [Call(PHRASE_JUDGE, "judge", answers.per(bernoulli(p)), msgs, waves=waves)]


def followup_calls(bench: Benchmark, unit: Batch, level: str, written: Count, opts: GenerationOptions, rates: RateValues, *,
                   answer_stage: Stage | None, stand_in: Question | None = None, gate: bool = True, asked: Count | None = None,
                   at_once: Count | None = None) -> list[Call]:  # fmt: skip
    """``written`` follow-ups tried (a round or a window with a path), each written by the
    judge in up to ``generation_tries`` tries through the quality gate, then (when one
    passed) asked of the target and graded (followup.FollowUpWriter, then stages.grading).
    The questions are asked one after another, each after it is written; ``at_once``: all
    together once written, in that many waves (and as many for their verdicts)."""
    from judgeagent.followup import DOMAINS
    from judgeagent.stages.extension import generation_messages, path_text
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


def less_one(c: Count) -> Count:
    """The count minus one (the feedbacks between ``c`` attempts)."""
    return Count(max(0.0, c.mean - 1), c.var, max(0.0, c.lo - 1), max(0.0, c.hi - 1))
