"""The quality gate on generated questions, with a fake judge and a bag-of-words embedder."""

from __future__ import annotations

import asyncio
import json
import random
import re
import threading
import zlib

import numpy as np
import pytest

from judgeagent.data.benchmark import Question, QuestionType
from judgeagent.llm.client import LLMResult
from judgeagent.records import FollowUpRecord
from judgeagent.stages.extension import generate_question
from judgeagent.stages.gate import (
    CHECKS,
    CheckResult,
    GateConfig,
    GateVerdict,
    QualityGate,
    balanced_position,
    gate_summary,
)

KMC, KQA = QuestionType.KMC, QuestionType.KQA
OPTIONS = {"A": "Sodium", "B": "Potassium", "C": "Calcium", "D": "Chloride"}
GOOD_MC = Question("g1", "Which ion accumulates when the kidneys stop excreting it?", "B", dict(OPTIONS), "medium")
GOOD_QA = Question("g2", "Which organ filters the blood?", "the kidney", None, "easy")
SEED = "A 45 year old man with chronic kidney disease presents with muscle weakness and peaked T waves what is elevated"
PASSAGES = ["[fact-one] Drug X blocks the channel ENaC.", "[fact-two] Blocking ENaC raises serum potassium."]


class BagOfWords:
    """Hashes words into 256 dims: a near-copy of a sentence has a cosine near 1."""

    def encode(self, texts):
        out = np.zeros((len(texts), 256), dtype=np.float32)
        for i, t in enumerate(texts):
            for w in re.findall(r"\w+", t.lower()):
                out[i, zlib.crc32(w.encode()) % 256] += 1
        return out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-9)


class FakeJudge:
    """A Models-like judge: ``reader`` answers gate prompts from the user text; ``questions``
    are the generation replies, in order; phrase judgements always say "no"."""

    def __init__(self, reader=lambda user: "B", questions=()):
        self.reader = reader
        self.questions = list(questions)
        self.calls: dict[str, int] = {}
        self.memory: dict[str, object] = {}  # what a run's journal keeps for the gate

    def recall(self, key):
        return self.memory.get(key)

    def remember(self, key, value):
        self.memory[key] = value

    async def ask_judge(self, messages, *, schema, stage, max_tokens, temperature=0.0):
        self.calls[stage] = self.calls.get(stage, 0) + 1
        await asyncio.sleep(0)  # let concurrent checks interleave, as real calls do
        if stage == "gate":
            data = {"answer": self.reader(messages[-1]["content"])}
        elif stage == "generation":
            data = self.questions.pop(0) if len(self.questions) > 1 else self.questions[0]
        else:
            data = {"equivalent": "no"}
        return LLMResult(ok=True, text=json.dumps(data), data=data)


def make_gate(judge, seeds=(), **cfg) -> QualityGate:
    return QualityGate(judge, BagOfWords(), list(seeds), GateConfig(**cfg))


def check(gate, q, qtype=KMC, level="medium", texts=PASSAGES) -> GateVerdict:
    return asyncio.run(gate.check(q, qtype, level, list(texts)))


def status(v: GateVerdict) -> dict:
    return {c.name: c.passed for c in v.checks}


@pytest.mark.parametrize(
    "bad, qtype",
    [
        (Question("x", GOOD_MC.question, "B", {"A": "Sodium", "B": "Potassium", "C": "Calcium"}), KMC),
        (Question("x", GOOD_MC.question, "B", {**OPTIONS, "D": "sodium."}), KMC),
        (Question("x", GOOD_MC.question, "E", dict(OPTIONS)), KMC),
        (Question("x", GOOD_QA.question, "the kidney which filters the blood of the body every single day"), KQA),
        (Question("x", " ", "B", dict(OPTIONS)), KMC),
    ],
)
def test_malformed_questions_are_rejected_before_any_judge_call(bad, qtype):
    judge = FakeJudge()
    v = check(make_gate(judge), bad, qtype)
    assert not v.passed
    assert status(v) == {"well_formed": False, **{n: None for n in CHECKS[1:]}}
    assert v.reasons and judge.calls == {}


def test_well_formed_questions_pass_every_check():
    v = check(make_gate(FakeJudge(lambda user: "B")), GOOD_MC)
    assert v.passed and not v.single_hop and v.reasons == []
    assert status(v) == {
        "well_formed": True, "self_contained": True, "not_seed_copy": True, "not_duplicate": True, "answerable": True, "needs_hops": None
    }
    qa = check(make_gate(FakeJudge(lambda user: "The kidney.")), GOOD_QA, KQA)
    assert qa.passed


def test_a_near_copy_of_a_seed_question_is_rejected():
    judge = FakeJudge()
    gate = make_gate(judge, seeds=[SEED, "Which vitamin deficiency causes scurvy?"])
    copy = Question("x", SEED.replace("45", "50").upper() + "?", "B", dict(OPTIONS))
    v = check(gate, copy)
    assert status(v)["not_seed_copy"] is False and "benchmark question" in v.reasons[0]
    assert judge.calls == {}
    assert check(gate, GOOD_MC).passed


def test_a_duplicate_of_an_accepted_question_is_rejected():
    gate = make_gate(FakeJudge())
    gate.accept(GOOD_MC)
    again = Question("y", "Which ion accumulates when the kidneys stop excreting it ?", "B", dict(OPTIONS))
    v = check(gate, again)
    assert status(v)["not_duplicate"] is False and status(v)["answerable"] is None
    gate.accept(GOOD_QA)
    assert status(check(gate, Question("z", GOOD_QA.question, "the kidney"), KQA))["not_duplicate"] is False


def test_concurrent_near_duplicates_cannot_both_be_accepted():
    same = {"question": GOOD_MC.question, "correct_option": "Potassium", "distractors": ["Sodium", "Calcium", "Chloride"]}
    judge = FakeJudge(lambda user: "B", questions=[same])
    gate = make_gate(judge)

    def one(i: int):
        return generate_question(
            judge, KMC, "easy", "src", qid=f"q{i}", rng=random.Random(0), domain="medical", avoid=[], gate=gate, position=1, tries=1
        )

    async def both():
        return await asyncio.gather(one(0), one(1))

    gens = asyncio.run(both())
    assert sorted(g.question is None for g in gens) == [False, True]
    assert "repeats an earlier question" in next(g.skipped for g in gens if g.question is None)


def test_the_passages_must_lead_to_the_marked_answer():
    judge = FakeJudge(lambda user: "C" if "fact-one" in user else "B")
    v = check(make_gate(judge), GOOD_MC)
    assert status(v)["answerable"] is False and status(v)["needs_hops"] is None
    assert "'Potassium'" in v.reasons[0] and "'Calcium'" in v.reasons[0]
    # KQA: a phrase that only partly matches (token F1 ½) is checked by the phrase judge,
    # which says no here. (One with no word in common is wrong without asking it.)
    qa = FakeJudge(lambda user: "the liver and the kidney")
    v = check(make_gate(qa), GOOD_QA, KQA)
    assert status(v)["answerable"] is False and qa.calls == {"gate": 1, "grading-judge": 1}


def test_a_hard_question_answerable_with_a_hop_missing_is_kept_but_single_hop():
    judge = FakeJudge(lambda user: "B")
    v = check(make_gate(judge), GOOD_MC, level="hard")
    assert v.passed and v.single_hop
    assert status(v)["needs_hops"] is False and v.reasons == []
    assert judge.calls == {"gate": 1 + len(PASSAGES)}


def test_a_hard_question_that_needs_both_passages_is_multi_hop():
    judge = FakeJudge(lambda user: "B" if "fact-one" in user and "fact-two" in user else "A")
    v = check(make_gate(judge), GOOD_MC, level="hard")
    assert v.passed and not v.single_hop and status(v)["needs_hops"] is True
    # The check is skipped when disabled or when there is a single passage.
    assert status(check(make_gate(judge, check_hops=False), GOOD_MC, level="hard"))["needs_hops"] is None
    assert status(check(make_gate(FakeJudge()), GOOD_MC, level="hard", texts=PASSAGES[:1]))["needs_hops"] is None


def verdict(failing: str | None = None, single_hop: bool = False) -> dict:
    """A verdict whose checks pass up to ``failing`` (which fails) and are not run after it;
    needs_hops is run only for ``single_hop``."""
    checks, reached = [], True
    for name in CHECKS[:-1]:
        passed = (name != failing) if reached else None
        checks.append(CheckResult(name, passed, "bad" if passed is False else ""))
        reached = reached and name != failing
    checks.append(CheckResult("needs_hops", False if single_hop else None))
    return GateVerdict(checks, single_hop).to_dict()


def test_gate_summary_counts_every_evaluation():
    ok_single = verdict(single_hop=True)
    assert GateVerdict.from_dict(ok_single).to_dict() == ok_single
    rounds = [
        {"generation_attempts": [{"error": "bad", "gate": verdict("answerable")}, {"ok": True, "gate": verdict()}], "gate": verdict()},
        {"generation_attempts": [{"error": "bad", "gate": verdict("well_formed")}, {"error": "not a JSON object"}], "gate": None},
        {"skipped": "no knowledge path"},
        {"generation_attempts": [{"ok": True, "gate": ok_single}], "gate": ok_single},
    ]
    s = gate_summary(FollowUpRecord.model_validate(r) for r in rounds)
    assert (s["evaluations"], s["questions_passed"], s["questions_skipped"], s["single_hop"]) == (4, 2, 1, 1)
    assert s["checks"]["well_formed"] == {"run": 4, "passed": 3, "pass_rate": 0.75}
    assert s["checks"]["answerable"] == {"run": 3, "passed": 2, "pass_rate": pytest.approx(2 / 3, abs=1e-4)}
    assert s["checks"]["needs_hops"] == {"run": 1, "passed": 0, "pass_rate": 0.0}
    assert gate_summary([])["checks"]["answerable"]["pass_rate"] is None


def test_balanced_positions_use_each_letter_once_per_four_rounds():
    for seed in range(50):
        assert sorted(balanced_position(seed, r) for r in range(4)) == [0, 1, 2, 3]
        assert sorted(balanced_position(seed, r) for r in range(4, 8)) == [0, 1, 2, 3]
    assert [balanced_position(7, r) for r in range(8)] == [balanced_position(7, r) for r in range(8)]
    assert len({tuple(balanced_position(s, r) for r in range(4)) for s in range(50)}) > 5


GEN_WRONG = {"question": "Which ion does drug X lower?", "correct_option": "Sodium", "distractors": ["Potassium", "Calcium", "Chloride"]}
GEN_RIGHT = {"question": "Which ion does drug X raise?", "correct_option": "Potassium", "distractors": ["Sodium", "Calcium", "Chloride"]}


def reads_potassium(user: str) -> str:
    """The reader picks the option saying Potassium."""
    return re.search(r"^([A-D])\. Potassium$", user, re.M).group(1)


def generate(judge, gate, **kw):
    return asyncio.run(
        generate_question(
            judge, KMC, "hard", "src", qid="b-r1", rng=random.Random(0), domain="medical", avoid=[], gate=gate, path_texts=PASSAGES, **kw
        )
    )


def test_generate_question_regenerates_after_a_gate_failure():
    judge = FakeJudge(reads_potassium, questions=[GEN_WRONG, GEN_RIGHT])
    gate = make_gate(judge)
    gen = generate(judge, gate, position=2)
    assert gen.question.question == GEN_RIGHT["question"] and gen.question.answer == "C"
    assert [("ok" in a, a["gate"]["passed"]) for a in gen.attempts] == [(False, False), (True, True)]
    assert "'Sodium'" in gen.attempts[0]["error"]
    assert gen.verdict.passed and gen.verdict.single_hop  # the fake reader needs no passage at all
    assert judge.calls["generation"] == 2
    # accepted: the same question again is now a duplicate
    assert status(check(gate, gen.question, level="hard"))["not_duplicate"] is False


def test_generate_question_skips_with_reasons_when_tries_run_out():
    judge = FakeJudge(reads_potassium, questions=[GEN_WRONG])
    gate = make_gate(judge)
    gen = generate(judge, gate, tries=2)
    assert gen.question is None and gen.verdict is None
    assert "passages do not support" in gen.skipped and len(gen.attempts) == 2
    assert judge.calls["generation"] == 2
    # nothing was accepted: the rejected question is no duplicate of anything
    rejected = Question("w", GEN_WRONG["question"], "A", {"A": "Sodium", "B": "Potassium", "C": "Calcium", "D": "Chloride"})
    assert status(check(gate, rejected))["not_duplicate"] is True
    assert gate_summary([FollowUpRecord.model_validate({"generation_attempts": gen.attempts, "gate": None})])["questions_skipped"] == 1


def test_without_a_gate_generation_is_unchanged():
    judge = FakeJudge(questions=[GEN_WRONG])
    gen = generate(judge, None)
    assert gen.attempts == [{"ok": True}] and gen.verdict is None and "gate" not in judge.calls


class HeldJudge(FakeJudge):
    """Gate calls announce that they started, then wait until the test lets them answer."""

    def __init__(self, *a, answer: bool = True, **k):
        super().__init__(*a, **k)
        self.started = threading.Event()  # set from the event loop, read by the embedding thread
        self.answer = answer  # False: hold every call until it is withdrawn
        self.withdrawn = 0

    async def ask_judge(self, messages, *, schema, stage, max_tokens, temperature=0.0):
        self.started.set()
        try:
            if not self.answer:
                await asyncio.Event().wait()  # never set: only a withdrawal ends this call
        except asyncio.CancelledError:
            self.withdrawn += 1
            raise
        return await super().ask_judge(messages, schema=schema, stage=stage, max_tokens=max_tokens, temperature=temperature)


class WaitsForTheJudge(BagOfWords):
    """Embeds ``question`` only once the judge's call has started: the overlap is certain, not timed."""

    def __init__(self, judge: HeldJudge, question: str):
        self.judge, self.question = judge, question
        self.judge_was_first: bool | None = None

    def encode(self, texts):
        if self.question in texts:  # the question, in the embedding thread; the seeds are not held
            self.judge_was_first = self.judge.started.wait(10)
        return super().encode(texts)


def check_within(gate, q, seconds=20) -> GateVerdict:
    """A held call that is never withdrawn fails the test instead of hanging it."""
    return asyncio.run(asyncio.wait_for(gate.check(q, KMC, "medium", list(PASSAGES)), seconds))


@pytest.mark.parametrize("copies_a_seed", [False, True])
def test_overlap_gives_the_same_verdicts_and_withdraws_the_call_for_a_copy(copies_a_seed):
    q = Question("x", SEED.replace("45", "50") + "?", "B", dict(OPTIONS)) if copies_a_seed else GOOD_MC
    plain = HeldJudge()
    v_plain = check_within(make_gate(plain, seeds=[SEED]), q)
    early = HeldJudge(answer=not copies_a_seed)
    embedder = WaitsForTheJudge(early, q.question)
    v_early = check_within(QualityGate(early, embedder, [SEED], GateConfig(overlap=True)), q)
    assert v_early.to_dict() == v_plain.to_dict()
    assert v_plain.passed is not copies_a_seed
    assert embedder.judge_was_first is True  # the answerable call went out while the question was embedded
    if copies_a_seed:  # the early call was withdrawn; no answer of it was used
        assert plain.calls == {} and not plain.started.is_set()
        assert early.withdrawn == 1 and early.calls == {}
    else:
        assert early.calls == plain.calls == {"gate": 1} and early.withdrawn == 0


def test_similarity_verdicts_are_replayed_from_the_journal_whatever_the_order():
    """A rerun takes the verdict the first run took, even if another batch now came first."""
    judge = FakeJudge()
    first = make_gate(judge)
    v1 = asyncio.run(first.check(GOOD_MC, KMC, "medium", PASSAGES, key="b1-r1/0"))
    assert v1.passed and len(judge.memory) == 1
    # The rerun: the judge keeps its memory (the journal); another batch accepted the question first.
    rerun = make_gate(judge)
    rerun.accept(GOOD_MC)
    v2 = asyncio.run(rerun.check(GOOD_MC, KMC, "medium", PASSAGES, key="b1-r1/0"))
    assert v2.to_dict() == v1.to_dict()
    # Without the key there is nothing to replay: the duplicate is caught.
    assert status(check(rerun, GOOD_MC))["not_duplicate"] is False
