"""What a protocol says about the requests it will send, before it sends any (``--dry-run``).

A protocol's :meth:`~judgeagent.engine.protocol.Protocol.call_plan` lists, for one unit, the
kinds of request it makes (:class:`Call`): which role answers, at which usage stage, one
such request's messages rendered from the real templates, its answer budget, and how many
times it is sent. How many is often random (a regeneration after a gate failure, a round
with no knowledge path, a dialogue that stops early, a re-ask only when a seed was wrong),
so it is a :class:`Count`: its mean, variance and the least and most it can be, built from
the probabilities in :class:`Rates` (measured on earlier runs, or the priors below).
:mod:`judgeagent.estimation` turns the plans into requests, tokens, cost and time.

Here is the vocabulary of a plan and the requests every protocol may send (the target's
answers and the judge's verdicts on them); the requests of the stages only some protocols
use (follow-ups through the quality gate, the leakage guard) are planned beside those
protocols, in :mod:`judgeagent.protocols.stage_plans`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

from judgeagent.batches import Batch
from judgeagent.budgets import PHRASE_JUDGE, Stage, answer_tokens
from judgeagent.data.benchmark import Benchmark, Question
from judgeagent.records import AnswerRecord

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


# The rates of the building blocks below. The expected values are those of the bundled model
# and of the scripted tests' doubles averaged with what the paper reports for strong judges;
# the low and high ends are what a run of another model pair may plausibly show, and the
# estimate's range covers both. The rates of the follow-up and guard stages sit with their
# plans (protocols/stage_plans.py); a protocol's own (KIEval's turns held) in its module.
TARGET, JUDGE = frozenset({"target"}), frozenset({"judge"})
BOTH = TARGET | JUDGE
SEED_ACCURACY = Rate("seed_accuracy", (0.25, 0.5, 0.85), TARGET, "a seed answered right (the re-asks, revisions, ladders depend on it)")
PHRASE_JUDGED = Rate("phrase_judged", (0.05, 0.3, 0.7), BOTH, "a phrase answer neither exact match nor F1 decides: the judge is asked")
REPLY_OK = Rate("reply_ok", (0.8, 0.98, 1.0), JUDGE, "the judge's reply is usable (feedback, a follow-up question)")

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
# The rates of the blocks, counted in an earlier run's records: each protocol's
# ``observe`` hands its records' parts to these.
PHRASE_GRADERS = ("exact", "f1", "judge", "yes/no", "null")


def seen_answers(answers: Sequence[AnswerRecord]) -> list[Seen]:
    """Seed accuracy, and how many phrase answers the judge decided."""
    phrase = [a for a in answers if a.graded_by in PHRASE_GRADERS]
    return [Seen(SEED_ACCURACY, sum(a.correct for a in answers), len(answers)),
            Seen(PHRASE_JUDGED, sum(a.graded_by == "judge" for a in phrase), len(phrase))]


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


def less_one(c: Count) -> Count:
    """The count minus one (the feedbacks between ``c`` attempts)."""
    return Count(max(0.0, c.mean - 1), c.var, max(0.0, c.lo - 1), max(0.0, c.hi - 1))
