"""The leakage guard: which suggestions give answers away, and the one judge rewrite."""

from __future__ import annotations

import asyncio
import hashlib

import numpy as np
import pytest

from judgeagent.data.benchmark import Question
from judgeagent.graph.embed_queue import EmbeddingQueue
from judgeagent.llm.client import LLMResult
from judgeagent.stages.leakage import (
    LeakCheck,
    find_leaks,
    guard_suggestions,
    prime_guard,
)

MC = Question(
    "q1",
    "Which virus most often causes hand, foot and mouth disease?",
    "B",
    {"A": "Hypertension", "B": "Coxsackie A virus", "C": "Pulmonary hypertension", "D": "None of the above"},
)
MC2 = Question(
    "q2",
    "Which finding is most typical of this patient?",
    "A",
    {"A": "Hypertension", "B": "Pulmonary hypertension", "C": "Bradycardia", "D": "Tachycardia"},
)
KQA = Question("k1", "Who founded the company that bought the bookstore chain?", "Jeff Bezos")
YES_NO = Question("k2", "Did both outlets report the merger?", "Yes")

CLEAN = "Recall how viral families differ in their typical age group and season, and reason from the symptoms."


def kinds(leaks: list[dict]) -> set[tuple[str | None, str]]:
    return {(d["question_id"], d["kind"]) for d in leaks}


@pytest.mark.parametrize(
    "text",
    [
        "Remember that coxsackie  A virus is the usual culprit.",
        "Think of COXSACKIE A VIRUS first.",
        "The culprit (Coxsackie A virus) is common in summer.",
    ],
)
def test_correct_option_text_is_a_leak(text):
    assert kinds(find_leaks(text, [MC])) == {("q1", "option_text")}


def test_distractor_text_is_not_a_leak():
    assert find_leaks("Do not confuse it with bradycardia or tachycardia.", [MC2]) == []


def test_answer_inside_a_longer_option_is_not_a_leak():
    # "hypertension" is the answer to q2, but here it is part of the distractor "pulmonary hypertension".
    assert find_leaks("Consider what pulmonary hypertension does to the right heart.", [MC2]) == []
    assert kinds(find_leaks("Consider systemic hypertension.", [MC2])) == {("q2", "option_text")}


def test_generic_option_texts_are_skipped():
    q = Question("q3", "Which is true?", "D", {"A": "Fever", "B": "Rash", "C": "Cough", "D": "None of the above"})
    assert find_leaks("If none of the above fits, say so.", [q]) == []
    q_short = Question("q4", "Which ion?", "B", {"A": "K", "B": "Na", "C": "Ca", "D": "Mg"})
    assert find_leaks("Na and K balance matters.", [q_short]) == []


@pytest.mark.parametrize(
    "text, question_ids",
    [
        ("The answer is B.", {"q1"}),
        ("the correct answer is (A) because of the history", {"q2"}),
        ("Answer: (D)", {None}),  # names a letter that is no question's answer: still a leak
        ("Option B is correct for the first one.", {"q1"}),
        ("Read carefully. A is the correct answer.", {"q2"}),
        ("Choose B.", {"q1"}),
        ("pick option C", {None}),
        ("The answer to question 2 is option A", {"q2"}),
    ],
)
def test_answer_letter_statements_are_leaks(text, question_ids):
    leaks = find_leaks(text, [MC, MC2])
    assert {d["kind"] for d in leaks} == {"answer_letter"}
    assert {d["question_id"] for d in leaks} == question_ids


@pytest.mark.parametrize(
    "text",
    [
        "Choose a drug that fits the timeline.",
        "Choose A drug class before the dose.",
        "Select B cells as the source of antibodies.",
        "Vitamin C is the best studied antioxidant.",
        "Hepatitis B is common in some regions.",
        "Your answer is what matters.",
    ],
)
def test_ordinary_english_is_not_an_answer_letter(text):
    assert find_leaks(text, [MC, MC2]) == []


def test_letters_mean_nothing_without_options():
    assert find_leaks("The answer is B.", [KQA]) == []


def test_reference_phrase_is_a_leak():
    assert kinds(find_leaks("Keep in mind that Jeff Bezos founded it.", [KQA])) == {("k1", "reference_phrase")}
    assert kinds(find_leaks("Think of Jeff Bezos's early years.", [KQA])) == {("k1", "reference_phrase")}
    assert find_leaks("Think of Jeff Bezosian thrift.", [KQA]) == []
    assert find_leaks("Consider who founded the buyer.", [KQA]) == []


def test_yes_no_reference_only_leaks_when_stated_as_the_answer():
    assert find_leaks("Yes, both reports matter; check whether no outlet disagrees.", [YES_NO]) == []
    leaks = find_leaks("So the answer is yes.", [YES_NO])
    assert kinds(leaks) == {("k2", "reference_phrase")}
    assert find_leaks("So the answer is no.", [YES_NO]) == []


class AliasEmbedder:
    """Random unit vectors per text, except that an alias shares its target's vector."""

    def __init__(self, aliases: dict[str, str]):
        self.aliases = aliases
        self.calls = 0

    def encode(self, texts):
        self.calls += 1
        rows = []
        for t in texts:
            seed = int(hashlib.sha256(self.aliases.get(t, t).encode()).hexdigest()[:8], 16)
            v = np.random.default_rng(seed).normal(size=64)
            rows.append(v / np.linalg.norm(v))
        return np.asarray(rows, dtype=np.float32)


def test_embedding_catches_a_paraphrase_of_the_answer():
    text = "Review the material. It is the enterovirus of summer daycare outbreaks."
    emb = AliasEmbedder({"It is the enterovirus of summer daycare outbreaks.": "Coxsackie A virus"})
    assert find_leaks(text, [MC]) == []
    leaks = find_leaks(text, [MC], embedder=emb)
    assert kinds(leaks) == {("q1", "embedding")}
    assert "enterovirus" in leaks[0]["evidence"]


def test_embedding_ignores_sentences_closer_to_a_distractor_or_below_threshold():
    text = "It is the enterovirus of summer daycare outbreaks."
    # Identical to both the answer and a distractor: not closer to the answer, so no leak.
    same = AliasEmbedder({text: "Hypertension", "Coxsackie A virus": "Hypertension"})
    assert find_leaks(text, [MC], embedder=same) == []
    assert find_leaks(CLEAN, [MC, KQA], embedder=AliasEmbedder({})) == []


class FakeJudge:
    def __init__(self, *replies: LLMResult):
        self.replies = list(replies)
        self.calls: list[dict] = []

    async def ask_judge(self, messages, *, schema, stage, max_tokens, temperature=0.0):
        self.calls.append({"messages": messages, "schema": schema, "stage": stage})
        return self.replies.pop(0)


def rewrite(text: str) -> LLMResult:
    return LLMResult(ok=True, text=text, data={"suggestions": text})


def guard(judge, suggestions, questions, **kw) -> LeakCheck:
    return asyncio.run(guard_suggestions(judge, suggestions, questions, **kw))


def test_clean_suggestions_pass_without_a_judge_call():
    judge = FakeJudge()
    check = guard(judge, CLEAN, [MC, MC2])
    assert judge.calls == []
    assert check.to_dict() == {
        "suggestions": CLEAN,
        "leaks_before": [],
        "rewritten": False,
        "leaks_after": [],
        "flagged": False,
        "rewrite_error": None,
    }


def test_leak_is_rewritten_once_and_cleared():
    judge = FakeJudge(rewrite(CLEAN))
    check = guard(judge, "Coxsackie A virus is the one to remember.", [MC])
    assert len(judge.calls) == 1
    call = judge.calls[0]
    assert call["stage"] == "leak-rewrite"
    assert call["schema"]["required"] == ["suggestions"]
    prompt = call["messages"][-1]["content"]
    assert "states the text of a correct option" in prompt and "Coxsackie A virus is the one to remember." in prompt
    assert check.rewritten and not check.flagged and check.leaks_after == []
    assert kinds(check.leaks_before) == {("q1", "option_text")}
    assert check.suggestions == CLEAN


def test_rewrite_that_still_leaks_is_flagged_and_kept():
    judge = FakeJudge(rewrite("Focus on symptoms; the answer is B."))
    check = guard(judge, "The answer is B.", [MC, MC2])
    assert len(judge.calls) == 1
    assert check.rewritten and check.flagged
    assert check.suggestions == "Focus on symptoms; the answer is B."
    assert kinds(check.leaks_after) == {("q1", "answer_letter")}


def test_failed_rewrite_keeps_the_original_and_flags():
    judge = FakeJudge(LLMResult(ok=False, error="timeout: no reply"))
    check = guard(judge, "Keep in mind that Jeff Bezos founded it.", [KQA])
    assert check.suggestions == "Keep in mind that Jeff Bezos founded it."
    assert not check.rewritten and check.flagged
    assert check.rewrite_error == "timeout: no reply"
    assert check.leaks_after == check.leaks_before != []


def test_guard_uses_the_embedder_when_given():
    sentence = "It is the enterovirus of summer daycare outbreaks."
    emb = AliasEmbedder({sentence: "Coxsackie A virus"})
    judge = FakeJudge(rewrite(CLEAN))
    check = guard(judge, sentence, [MC], embedder=emb, threshold=0.9)
    assert kinds(check.leaks_before) == {("q1", "embedding")}
    assert not check.flagged and emb.calls == 2


class RecordingEmbedder(AliasEmbedder):
    def __init__(self, aliases: dict[str, str]):
        super().__init__(aliases)
        self.texts: list[list[str]] = []

    def encode(self, texts):
        self.texts.append(list(texts))
        return super().encode(texts)


def test_primed_guard_embeds_only_the_suggestion_sentences():
    sentence = "It is the enterovirus of summer daycare outbreaks."
    model = RecordingEmbedder({sentence: "Coxsackie A virus"})
    queue = EmbeddingQueue(model)
    prime_guard(queue, [MC, MC2, KQA])
    # Each answer text and distractor once, in one pass.
    assert model.texts == [["Coxsackie A virus", "Hypertension", "Pulmonary hypertension", "None of the above",
                            "Bradycardia", "Tachycardia", "Jeff Bezos"]]
    check = guard(FakeJudge(rewrite(CLEAN)), f"{CLEAN} {sentence}", [MC, MC2, KQA], embedder=queue, threshold=0.9)
    # The verdict is the unprimed one; the only texts left to embed were the sentences.
    assert kinds(check.leaks_before) == {("q1", "embedding")} and check.suggestions == CLEAN
    assert model.texts[1] == [CLEAN, sentence]
