"""The known-ability target (tests/ability_server.py) on its own, asked through the real
prompt builder, client and grader (stages.grading.ask_batch): its accuracy follows its
hidden ability, its answers do not depend on batching, and it answers every prompt shape
a target gets."""

from __future__ import annotations

import asyncio
import math

import numpy as np
import pytest
from ability_server import WRONG_PHRASE, AbilityTarget, ability_servers, difficulty, parse_questions, sigmoid
from interview_double import RIGHT, WRONGS
from scripted_server import ScriptedServer

from judgeagent.config import LLMConfig
from judgeagent.data.benchmark import Question, QuestionType
from judgeagent.llm import LLMClient
from judgeagent.llm.registry import ModelSpec
from judgeagent.stages.grading import answer_messages, ask_batch
from judgeagent.stages.models import Models

KMC, KQA, RMC = QuestionType.KMC, QuestionType.KQA, QuestionType.RMC


def _generated(n: int, start: int = 0) -> list[Question]:
    """Generated-style MC questions: RIGHT is the right option, at a varying letter."""
    out = []
    for i in range(start, start + n):
        texts = list(WRONGS)
        texts.insert(i % 4, RIGHT)
        out.append(Question(f"g{i}", f"Generated question number {i} about topic {i * 7 % 13}?", "ABCD"[i % 4], dict(zip("ABCD", texts))))
    return out


def _ask(servers: list[ScriptedServer], qtype, batches: list[list[Question]], **kwargs) -> list[list[list]]:
    """Every server's graded answers to every batch: [server][batch][question] -> Answer."""

    async def go():
        async with LLMClient(None, LLMConfig(timeout_s=10.0), backoff_base=0.01) as client:
            out = []
            for srv in servers:
                spec = ModelSpec("scripted", srv.base_url, "scripted-model")
                models = Models(client, spec, spec)
                out.append([await ask_batch(models, qtype, b, stage="grading", **kwargs) for b in batches])
            return out

    return asyncio.run(go())


def test_accuracy_follows_ability():
    questions = _generated(400)
    batches = [questions[i : i + 5] for i in range(0, 400, 5)]
    targets = [AbilityTarget(a, name=f"t{a}", seed=3) for a in (-1.5, 0.0, 1.5)]
    with ability_servers(targets) as servers:
        graded = _ask(servers, KMC, batches)
    accs = []
    for target, per_batch in zip(targets, graded):
        answers = [a for batch in per_batch for a in batch]
        acc = float(np.mean([a.correct for a in answers]))
        expected = float(np.mean([target.p_right(q.question) for q in questions]))
        se = math.sqrt(expected * (1 - expected) / len(questions))
        assert abs(acc - expected) < 3 * se, (target.ability, acc, expected)
        assert target.asked == 400 and target.unknown == [] and target.accuracy == acc
        assert all(a.error is None and a.graded_by == "letter" for a in answers)
        accs.append(acc)
    assert accs[0] < accs[1] < accs[2]
    assert accs[2] - accs[0] > 0.4


def test_difficulty_is_a_seeded_hash_of_the_text():
    d = [difficulty(f"question {i}", seed=1) for i in range(2000)]
    assert abs(np.mean(d)) < 0.1 and abs(np.std(d) - 1.0) < 0.05
    assert difficulty("question 5", seed=1) == d[5]
    assert difficulty("question   5", seed=1) == d[5]  # layout does not matter
    assert difficulty("question 5", seed=2) != d[5]
    assert difficulty("question 5", seed=1, spread=2.0) == 2 * d[5]
    assert sigmoid(0.0) == 0.5


def test_answers_do_not_depend_on_batching_or_order():
    questions = _generated(12)
    target = AbilityTarget(0.0, seed=5)
    with ScriptedServer(target) as srv:
        (in_fours,) = _ask([srv], KMC, [questions[i : i + 4] for i in range(0, 12, 4)])
        (alone,) = _ask([srv], KMC, [[q] for q in reversed(questions)])
    chosen_fours = [a.chosen for batch in in_fours for a in batch]
    chosen_alone = [batch[0].chosen for batch in reversed(alone)]
    assert chosen_fours == chosen_alone
    # Wrong answers pick one of the other options, never an unknown letter.
    assert set(chosen_fours) <= set("ABCD")
    assert {c == q.answer for q, c in zip(questions, chosen_fours)} == {True, False}


def test_seed_key_phrase_questions_advice_and_articles():
    seeds = [Question(f"s{i}", f"Which drug treats condition {i}?", f"drug {i}") for i in range(40)]
    key = {q.question: q.answer for q in seeds}
    strong, weak = AbilityTarget(4.0, name="strong", answers=key), AbilityTarget(-4.0, name="weak", answers=key)
    with ability_servers([strong, weak]) as servers:
        plain = _ask(servers, KQA, [seeds[:20], seeds[20:]])
        advised = _ask(servers, KQA, [seeds[:20], seeds[20:]], suggestions="Recall the mechanism first.")
    strong_plain = [a for b in plain[0] for a in b]
    weak_plain = [a for b in plain[1] for a in b]
    assert sum(a.correct for a in strong_plain) >= 36  # σ(4 − b) is above 0.9 for most b
    assert sum(a.correct for a in weak_plain) <= 4
    assert all(a.reply == WRONG_PHRASE for a in weak_plain if not a.correct)
    assert sum(a.correct for b in advised[0] for a in b) >= 36
    assert strong.unknown == [] and weak.unknown == []


def test_advice_gain_raises_the_odds():
    questions = _generated(300)
    target = AbilityTarget(-1.0, seed=2, advice_gain=2.0)
    with ScriptedServer(target) as srv:
        (before,) = _ask([srv], KMC, [questions[i : i + 10] for i in range(0, 300, 10)])
        (after,) = _ask([srv], KMC, [questions[i : i + 10] for i in range(0, 300, 10)], suggestions="Think of the mechanism.")
    acc1 = np.mean([a.correct for b in before for a in b])
    acc2 = np.mean([a.correct for b in after for a in b])
    assert acc2 - acc1 > 0.25


def test_a_reask_without_gain_is_a_fresh_draw_at_the_same_odds():
    # The advice text is part of the hash: answers move between the ask and the re-ask, as
    # a sampled model's do, but ACC2 has ACC1's expectation.
    questions = _generated(300)
    target = AbilityTarget(0.0, seed=4)
    with ScriptedServer(target) as srv:
        (before,) = _ask([srv], KMC, [questions[i : i + 10] for i in range(0, 300, 10)])
        (after,) = _ask([srv], KMC, [questions[i : i + 10] for i in range(0, 300, 10)], suggestions="Think of the mechanism.")
    b = np.array([a.correct for x in before for a in x])
    a = np.array([a.correct for x in after for a in x])
    assert 40 < np.sum(b != a) < 200
    assert abs(a.mean() - b.mean()) < 0.1


def test_article_and_passages_before_the_questions():
    questions = _generated(3)
    target = AbilityTarget(10.0)  # always right
    with ScriptedServer(target) as srv:
        (graded,) = _ask(
            [srv], RMC, [questions], context="An article.\n\nQ9. A line that looks like a question.\nA. and an option", passages="[1] A passage."
        )
    assert [a.correct for a in graded[0]] == [True, True, True]


def test_parse_questions_reads_multiline_stems_and_options():
    qs = [
        Question("a", "First line of the stem.\nSecond line: what now?", "B", {"A": "x", "B": "y"}),
        Question("b", "Short one?", "x"),
    ]
    user = answer_messages(KMC, qs)[-1]["content"]
    assert parse_questions(user) == [("First line of the stem.\nSecond line: what now?", {"A": "x", "B": "y"}), ("Short one?", {})]


def test_unknown_questions_are_listed_and_other_schemas_refused():
    target = AbilityTarget(0.0, right_text=None)
    user = answer_messages(KMC, _generated(2))[-1]["content"]
    reply = target({"messages": [{"role": "user", "content": user}], "response_format": {"type": "json_schema", "json_schema": {"name": "answer_batch"}}})
    assert reply == '{"response": [{"answer": "A"}, {"answer": "A"}]}'
    assert len(target.unknown) == 2
    refused = target({"messages": [{"role": "user", "content": "x"}], "response_format": {"type": "json_schema", "json_schema": {"name": "feedback"}}})
    assert "error" in refused


@pytest.mark.parametrize("ability", [-2.0, 2.0])
def test_p_right_is_the_rasch_probability(ability):
    t = AbilityTarget(ability, seed=9, spread=1.5)
    q = "Which enzyme rises first?"
    assert t.p_right(q) == pytest.approx(1 / (1 + math.exp(-(ability - difficulty(q, seed=9, spread=1.5)))))
