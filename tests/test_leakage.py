"""The leakage guard: which suggestions give answers away, the judge's leak check, and the one
judge rewrite."""

from __future__ import annotations

import asyncio
import hashlib

import numpy as np
import pytest

from judgeagent.data.benchmark import Question
from judgeagent.graph.embed_queue import EmbeddingQueue
from judgeagent.llm.client import LLMResult
from judgeagent.llm.registry import ModelSpec
from judgeagent.llm.usage import TokenUsage
from judgeagent.stages.leak_judge import leak_check_messages, leak_check_summary, resolve_leak_check
from judgeagent.stages.leakage import (
    ANSWER_RULES,
    LeakCheck,
    find_leaks,
    guard_suggestions,
    prime_guard,
)
from tests.leak_table import CLEAN as TABLE_CLEAN
from tests.leak_table import LEAKING as TABLE_LEAKING
from tests.leak_table import QUESTIONS as TABLE_QUESTIONS

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
    assert kinds(find_leaks(text, [MC], rules=ANSWER_RULES)) == {("q1", "option_text")}


def test_distractor_text_is_not_a_leak():
    assert find_leaks("Do not confuse it with bradycardia or tachycardia.", [MC2]) == []


def test_answer_inside_a_longer_option_is_not_a_leak():
    # "hypertension" is the answer to q2, but here it is part of the distractor "pulmonary hypertension".
    assert find_leaks("Consider what pulmonary hypertension does to the right heart.", [MC2]) == []
    assert kinds(find_leaks("Consider systemic hypertension.", [MC2], rules=ANSWER_RULES)) == {("q2", "option_text")}


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
    leaks = find_leaks(text, [MC, MC2], rules=ANSWER_RULES)
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
    leaks = find_leaks(text, [MC], embedder=emb, rules=ANSWER_RULES)
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
        "mode": "rules",
        "judge_before": [],
        "judge_after": [],
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
    # The sentence states the answer's text and calls it the one: two rules fire.
    assert kinds(check.leaks_before) == {("q1", "option_text"), ("q1", "pointer")}
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


# --- eliminations, disclosure and pointers: the table of tests/leak_table.py ----------------


def test_rule_layer_catches_the_table_leaks_without_false_alarms():
    caught = [(s, k) for s, k in TABLE_LEAKING if find_leaks(s, TABLE_QUESTIONS)]
    false_alarms = [s for s in TABLE_CLEAN if find_leaks(s, TABLE_QUESTIONS)]
    assert (len(TABLE_LEAKING), len(TABLE_CLEAN)) == (40, 34)
    assert (len(caught), len(false_alarms)) == (38, 0)
    assert len(caught) >= 0.9 * len(TABLE_LEAKING) and len(false_alarms) <= 0.05 * len(TABLE_CLEAN)
    # The two it misses describe the answer without naming it: left to the judge's check.
    assert [k for s, k in TABLE_LEAKING if (s, k) not in caught] == ["described", "described"]


def test_old_guard_catches_only_the_stated_answers_of_the_table():
    caught = [k for s, k in TABLE_LEAKING if find_leaks(s, TABLE_QUESTIONS, rules=ANSWER_RULES)]
    assert caught == ["answer", "answer", "answer"]
    assert [s for s in TABLE_CLEAN if find_leaks(s, TABLE_QUESTIONS, rules=ANSWER_RULES)] == []


@pytest.mark.parametrize("text, kind", [(s, k) for s, k in TABLE_LEAKING if k in ("elimination", "disclosure", "pointer")])
def test_each_table_leak_fires_the_rule_it_was_written_for(text, kind):
    assert kind in {d["kind"] for d in find_leaks(text, TABLE_QUESTIONS)}


@pytest.mark.parametrize(
    "text, expected",
    [
        ("For question 1, option C is the safe choice.", {("t1", "pointer")}),
        ("Your answer to question 1 was wrong; option B is not correct.", {("t1", "disclosure"), (None, "elimination")}),
        ("Rule out heparin and aspirin.", {("t1", "elimination")}),
        ("Avoid B and A on Q1.", {("t1", "elimination")}),
        ("You got Q2 right.", {("t2", "disclosure")}),
        ("Measles virus is unlikely in the rash question.", {("t2", "elimination")}),
        ("Instead of warfarin, think again.", {("t1", "option_text"), ("t1", "elimination")}),
        ("Q3: wrong.", {("t3", "disclosure")}),
    ],
)
def test_the_new_rules_name_the_rule_and_the_question(text, expected):
    assert kinds(find_leaks(text, TABLE_QUESTIONS)) == expected


@pytest.mark.parametrize(
    "text",
    [
        "Clopidogrel and aspirin are antiplatelet drugs, so they are not the answer here.",
        "Skip the antiplatelet options, A and E.",
        "Q2: not B.",
        "I would not go with measles virus for the rash.",
        "Two of your three answers were wrong.",
        "The best answer for the anticoagulation question is C.",
        "Lean away from radioactive iodine.",
        "B is a trap in question 3.",
    ],
)
def test_phrasings_not_in_the_table_are_caught_too(text):
    assert {d["kind"] for d in find_leaks(text, TABLE_QUESTIONS)} & {"elimination", "disclosure", "pointer"}


def test_a_finding_quotes_its_sentence():
    leaks = find_leaks("Review the cascade. Rule out heparin, then weigh the rest.", TABLE_QUESTIONS)
    assert leaks == [{"question_id": "t1", "kind": "elimination", "evidence": "Rule out heparin, then weigh the rest."}]


@pytest.mark.parametrize(
    "text",
    [
        "Hepatitis B and C do not cause this rash.",
        "Vitamin C is not relevant here.",
        "Make sure your answer is correct before you move on.",
        "Check whether your answers were consistent with the stem.",
        "Do not confuse heparin with the newer drugs.",
        "Compare heparin and aspirin.",
        "You missed a key feature: the strawberry tongue.",
        "A patient with a valve needs lifelong therapy; B cells matter in question 2.",
        "Reconsider your answers in light of the mechanism.",
    ],
)
def test_english_that_only_looks_like_a_hint_passes(text):
    assert find_leaks(text, TABLE_QUESTIONS) == []


# --- the judge's leak check -----------------------------------------------------------------

REMOTE = ModelSpec("remote-judge", "https://judge.example/v1", "big", price_in_per_1k=0.002, price_out_per_1k=0.008)
LOCAL = ModelSpec("local", "http://127.0.0.1:0/v1", "smol", gguf="/models/smol.gguf")


class LeakJudge:
    """Plays the judge: leak-check verdicts per question number from ``verdicts`` (one dict
    per round of checks), rewrites from ``rewrites``; every call reports 100 + 20 tokens."""

    def __init__(self, verdicts: list[dict[int, str]], rewrites: list[str] = (), fail: bool = False):
        self.judge = REMOTE
        self.verdicts = list(verdicts)
        self.rewrites = list(rewrites)
        self.fail = fail
        self.calls: list[dict] = []
        self.seen: set[int] = set()

    async def ask_judge(self, messages, *, schema, stage, max_tokens, temperature=0.0):
        self.calls.append({"messages": messages, "schema": schema, "stage": stage})
        usage = TokenUsage(100, 20)
        if stage == "leak-rewrite":
            return LLMResult(ok=True, data={"suggestions": self.rewrites.pop(0)}, usage=usage)
        if self.fail:
            return LLMResult(ok=False, error="timeout: no reply", usage=TokenUsage())
        number = int(messages[-1]["content"].split("Here is question ")[1].split()[0])
        if number in self.seen:  # a new round of checks (the rewrite's)
            self.verdicts.pop(0)
            self.seen.clear()
        self.seen.add(number)
        verdict = self.verdicts[0].get(number, "none")
        data = {"verdict": verdict, "options": ["C"] if verdict != "none" else [], "evidence": "the vitamin K antagonist" if verdict != "none" else ""}
        return LLMResult(ok=True, data=data, usage=usage)


DESCRIBED = "The right drug is the vitamin K antagonist monitored with the INR."
Q1, Q2, Q3 = TABLE_QUESTIONS


def test_judge_sees_one_question_with_its_options_and_never_the_key():
    msgs = leak_check_messages(DESCRIBED, Q1, 1, 3)
    keyless = leak_check_messages(DESCRIBED, Question(Q1.id, Q1.question, "A", Q1.options), 1, 3)
    assert msgs == keyless  # the answer key changes nothing in what the judge reads
    user = msgs[-1]["content"]
    assert "Here is question 1 of the 3:\n" + Q1.question + "\nOptions:\nA. Aspirin\nB. Heparin\nC. Warfarin\nD. Dabigatran\nE. Clopidogrel" in user
    assert "Advice:\n" + DESCRIBED + "\n" in user
    assert Q2.question not in user and "Streptococcus" not in user


def test_judge_finding_triggers_the_rewrite_and_records_verdicts_and_cost():
    judge = LeakJudge([{1: "picks_out"}, {}], rewrites=[CLEAN])
    check = guard(judge, DESCRIBED, TABLE_QUESTIONS, mode="judge")
    assert [c["stage"] for c in judge.calls] == ["leak-check"] * 3 + ["leak-rewrite"] + ["leak-check"] * 3
    assert check.leaks_before == [{"question_id": "t1", "kind": "judge", "evidence": "picks_out (C): the vitamin K antagonist"}]
    assert check.rewritten and not check.flagged and check.suggestions == CLEAN and check.leaks_after == []
    assert [v["verdict"] for v in check.judge_before] == ["picks_out", "none", "none"]
    assert [v["verdict"] for v in check.judge_after] == ["none", "none", "none"]
    # 100 tokens in at $0.002/1k and 20 out at $0.008/1k
    assert {(v["prompt_tokens"], v["completion_tokens"], v["cost_usd"]) for v in check.judge_before} == {(100, 20, 0.00036)}


def test_a_failed_judge_check_is_recorded_and_leaves_the_rules_verdict():
    judge = LeakJudge([], fail=True)
    check = guard(judge, CLEAN, TABLE_QUESTIONS, mode="judge")
    assert not check.rewritten and not check.flagged and check.leaks_before == []
    assert [(v["verdict"], v["error"]) for v in check.judge_before] == [(None, "timeout: no reply")] * 3


def test_rules_mode_asks_no_judge_and_off_checks_nothing():
    judge = LeakJudge([{1: "picks_out"}])
    assert guard(judge, DESCRIBED, TABLE_QUESTIONS, mode="rules").leaks_before == []
    off = guard(judge, "Rule out heparin and aspirin.", TABLE_QUESTIONS, mode="off")
    assert judge.calls == []
    assert (off.mode, off.suggestions, off.leaks_before, off.flagged) == ("off", "Rule out heparin and aspirin.", [], False)


def test_leak_check_default_follows_the_judge():
    assert resolve_leak_check("auto", REMOTE) == "judge"
    assert resolve_leak_check("auto", LOCAL) == "rules"
    assert resolve_leak_check("off", REMOTE) == "off"
    with pytest.raises(ValueError, match="leak_check must be auto, rules, judge or off"):
        resolve_leak_check("maybe", REMOTE)


def test_leak_check_summary_counts_verdicts_failures_and_cost():
    judged = guard(LeakJudge([{1: "picks_out"}, {}], rewrites=[CLEAN]), DESCRIBED, TABLE_QUESTIONS, mode="judge")
    failed = guard(LeakJudge([], fail=True), CLEAN, TABLE_QUESTIONS, mode="judge")
    ruled = guard(LeakJudge([]), CLEAN, TABLE_QUESTIONS, mode="rules")
    assert leak_check_summary([judged.to_dict(), failed.to_dict(), ruled.to_dict()]) == {
        "modes": {"judge": 2, "rules": 1},
        "judge": {
            "calls": 9,
            "verdicts": {"none": 5, "picks_out": 1, "eliminates": 0, "both": 0},
            "failures": 3,
            "batches_judge_only": 1,
            "prompt_tokens": 600,
            "completion_tokens": 120,
            "cost_usd": 0.00216,
        },
    }
