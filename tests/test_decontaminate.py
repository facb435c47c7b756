"""Seed decontamination against a fake judge: every mode keeps the original beside the rewrite,
and every failure falls back to the original question."""

from __future__ import annotations

import asyncio
import json
import re
from dataclasses import dataclass, field

import pytest

from judgeagent.data.benchmark import Question, QuestionType
from judgeagent.errors import ConfigError
from judgeagent.stages.decontaminate import Rewrite, decontaminate


@dataclass
class Result:
    ok: bool
    text: str = ""
    data: object = None
    error: str | None = None


@dataclass
class FakeJudge:
    """Plays Models.ask_judge: ``rewrite`` and ``blind`` map a prompt to the reply text."""

    rewrite: object
    blind: object = None  # default: a judge that knows the demo answers (Potassium, Acme Corp, x)
    calls: list[dict] = field(default_factory=list)

    @staticmethod
    def knows(prompt: str) -> str:
        if re.search(r"^[A-E]\. Potassium$", prompt, re.M):
            return json.dumps({"answer": letter_of(prompt, "Potassium")})
        return json.dumps({"answer": "Acme Corp" if "startup" in prompt else "x"})

    async def ask_judge(self, messages, *, schema, stage, max_tokens, temperature=None):  # as Models: None = the spec's
        self.calls.append({"messages": messages, "stage": stage, "temperature": temperature})
        user = messages[1]["content"]
        verifying = schema["title"] == "decon_verify"  # the blind answer, not a rewrite
        text = ((self.blind or self.knows) if verifying else self.rewrite)(user)
        try:
            data = json.loads(text)
        except json.JSONDecodeError:
            return Result(False, text, None, "schema: not JSON")
        return Result(True, text, data)

    async def ask_target(self, *a, **kw):  # decontamination never asks the target
        raise AssertionError("the target was asked")


MC = Question(
    id="q1",
    question="Which ion is high when an ECG shows peaked T waves?",
    answer="B",
    options={"A": "Sodium", "B": "Potassium", "C": "Calcium", "D": "Chloride"},
    difficulty="easy",
    meta={"source": "demo"},
)
QA = Question(id="q2", question="Which company bought the startup in 2023?", answer="Acme Corp")


def run(judge, questions, qtype, mode, seed=0):
    return asyncio.run(decontaminate(judge, questions, qtype, mode, seed=seed))


def letter_of(prompt: str, text: str) -> str:
    return re.search(rf"^([A-E])\. {re.escape(text)}$", prompt, re.M).group(1)


def test_paraphrase_keeps_options_and_answer_and_stores_the_original():
    judge = FakeJudge(lambda _u: json.dumps({"question": "An ECG has peaked T waves: which ion is raised?"}))
    (rw,) = run(judge, [MC], QuestionType.KMC, "paraphrase")
    assert rw.ok and rw.error is None and rw.mode == "paraphrase"
    assert rw.question.question == "An ECG has peaked T waves: which ion is raised?"
    assert (rw.question.id, rw.question.options, rw.question.answer, rw.question.difficulty) == ("q1", MC.options, "B", "easy")
    assert rw.original == MC
    assert rw.question.meta["source"] == "demo"
    assert rw.question.meta["decontamination"] == {"mode": "paraphrase", "original": {"question": MC.question, "answer": "B", "options": MC.options}}
    d = json.loads(json.dumps(rw.to_dict()))
    assert d["original"]["question"] == MC.question and d["question"]["question"] != MC.question
    assert Rewrite.from_dict(d) == rw
    assert {c["stage"] for c in judge.calls} == {"decontaminate"}
    # the judge saw the options and the answer it must keep
    assert "D. Chloride" in judge.calls[0]["messages"][1]["content"] and "Potassium" in judge.calls[0]["messages"][1]["content"]


def test_unclarify_keeps_the_original_reference_answer():
    judge = FakeJudge(lambda _u: json.dumps({"question": "Which ion is high here?", "removed": "ECG shows peaked T waves"}))
    (rw,) = run(judge, [MC], QuestionType.KMC, "unclarify")
    assert rw.ok
    assert rw.question.question == "Which ion is high here?"
    assert (rw.question.answer, rw.question.options) == (MC.answer, MC.options)
    info = rw.question.meta["decontamination"]
    assert info["mode"] == "unclarify" and info["removed"] == "ECG shows peaked T waves"
    assert info["original"]["question"] == MC.question
    assert Rewrite.from_dict(rw.to_dict()).original == MC


NEW_MC = {"question": "Which drug first stabilises the myocardium in hyperkalaemia?", "correct_option": "Calcium gluconate",
          "distractors": ["Furosemide", "Insulin alone", "Digoxin"]}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_modify_places_the_new_answer_and_is_verified_blind(seed):
    judge = FakeJudge(lambda _u: json.dumps(NEW_MC), blind=lambda u: json.dumps({"answer": letter_of(u, "Calcium gluconate")}))
    (rw,) = run(judge, [MC], QuestionType.KMC, "modify", seed=seed)
    assert rw.ok, rw.error
    q = rw.question
    assert q.id == "q1" and q.difficulty == "easy" and q.question == NEW_MC["question"]
    assert q.options[q.answer] == "Calcium gluconate"
    assert sorted(q.options.values()) == sorted([NEW_MC["correct_option"], *NEW_MC["distractors"]])
    assert q.meta["decontamination"]["original"]["options"] == MC.options
    assert rw.original == MC
    # the blind check never sees the answer
    blind_prompt = judge.calls[-1]["messages"][1]["content"]
    assert "Calcium gluconate" in blind_prompt and "correct answer" not in blind_prompt.lower()
    (again,) = run(FakeJudge(judge.rewrite, judge.blind), [MC], QuestionType.KMC, "modify", seed=seed)
    assert again.question == q  # the answer's position is fixed by the seed


def test_modify_whose_blind_answer_disagrees_keeps_the_original():
    judge = FakeJudge(
        lambda _u: json.dumps(NEW_MC),
        blind=lambda u: json.dumps({"answer": letter_of(u, "Furosemide")}),
    )
    (rw,) = run(judge, [MC], QuestionType.KMC, "modify")
    assert not rw.ok
    assert rw.question == MC and rw.original == MC
    assert "verification failed" in rw.error
    assert rw.to_dict()["question"] == rw.to_dict()["original"]


def test_modify_phrase_question():
    new = {"question": "Which bank led the startup's 2022 funding round?", "answer": "First Bank"}
    judge = FakeJudge(lambda _u: json.dumps(new), blind=lambda _u: json.dumps({"answer": "first bank"}))
    (rw,) = run(judge, [QA], QuestionType.KQA, "modify")
    assert rw.ok, rw.error
    assert (rw.question.id, rw.question.question, rw.question.answer, rw.question.options) == ("q2", new["question"], "First Bank", None)
    assert rw.question.meta["decontamination"]["original"]["answer"] == "Acme Corp"


def test_modify_that_keeps_the_old_answer_is_rejected():
    judge = FakeJudge(lambda _u: json.dumps({"question": "Who acquired the startup last year?", "answer": "Acme Corp."}))
    (rw,) = run(judge, [QA], QuestionType.KQA, "modify")
    assert not rw.ok and rw.question == QA
    assert "same answer" in rw.error


@pytest.mark.parametrize("mode", ["paraphrase", "modify", "unclarify"])
def test_garbage_is_retried_once_then_falls_back(mode):
    judge = FakeJudge(lambda _u: "Sure! Here is a better question: what is it?")
    (rw,) = run(judge, [MC], QuestionType.KMC, mode)
    assert not rw.ok and rw.question == MC and rw.original == MC
    assert rw.error and "not JSON" in rw.error
    # The first try at the judge's own temperature (None: its spec's, from judgeagent.toml);
    # the retry samples at 0.7 on purpose, so the journal does not replay the bad answer.
    assert [c["temperature"] for c in judge.calls] == [None, 0.7]
    # the retry tells the judge what was wrong
    assert "unusable" in judge.calls[1]["messages"][-1]["content"]


def test_a_rewrite_identical_to_the_original_is_retried():
    replies = iter([json.dumps({"question": MC.question.upper()}), json.dumps({"question": "Peaked T waves: which ion?"})])
    judge = FakeJudge(lambda _u: next(replies))
    (rw,) = run(judge, [MC], QuestionType.KMC, "paraphrase")
    assert rw.ok and rw.question.question == "Peaked T waves: which ion?"
    assert len(judge.calls) == 3  # the copy, the retry, the blind check of the paraphrase

    judge = FakeJudge(lambda _u: json.dumps({"question": MC.question}))
    (rw,) = run(judge, [MC], QuestionType.KMC, "paraphrase")
    assert not rw.ok and "identical to the original" in rw.error


def test_many_questions_keep_their_order_and_ids():
    qs = [Question(id=f"q{i}", question=f"Question number {i}?", answer="x") for i in range(5)]
    judge = FakeJudge(lambda u: json.dumps({"question": "Item " + re.search(r"Question number (\d+)", u).group(1) + ", reworded?"}))
    out = run(judge, qs, QuestionType.KQA, "paraphrase")
    assert [r.question.id for r in out] == [q.id for q in qs]
    assert [r.original for r in out] == qs
    assert all(r.ok and r.question.question.endswith("reworded?") for r in out)


def test_unknown_mode_is_a_config_error():
    with pytest.raises(ConfigError, match="paraphrase, modify or unclarify"):
        run(FakeJudge(lambda _u: "{}"), [MC], QuestionType.KMC, "shuffle")


def test_a_rewrite_that_keeps_the_original_stem_is_not_a_paraphrase():
    # What SmolLM2 did on the demo: the stem unchanged, with the options appended.
    appended = MC.question + " A. " + " B. ".join(MC.options.values())
    judge = FakeJudge(lambda _u: json.dumps({"question": appended}))
    (rw,) = run(judge, [MC], QuestionType.KMC, "paraphrase")
    assert not rw.ok and rw.question == MC and "keeps the original wording" in rw.error


def test_a_paraphrase_that_changes_the_answer_keeps_the_original():
    # SmolLM2 once turned "which ion is high" into "which is NOT a sign": a blind reader disagrees.
    judge = FakeJudge(lambda _u: json.dumps({"question": "Which of these is not raised with peaked T waves?"}),
                      blind=lambda u: json.dumps({"answer": letter_of(u, "Sodium")}))
    (rw,) = run(judge, [MC], QuestionType.KMC, "paraphrase")
    assert not rw.ok and rw.question == MC and rw.error.startswith("verification failed")
