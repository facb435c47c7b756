"""A deterministic target + judge behind the scripted server, for pipeline tests.

The responder tells requests apart by the name of the reply schema they ask for (the
``title`` every schema in judgeagent/prompts/schemas.py has, which the client sends as
``response_format``), never by prompt wording, so a reworded prompt breaks no test that
is not about it. It reads the questions out of the prompt the way a model would and
answers by a script:
- the target answers a seed question right or wrong according to ``seed_plan``
  (question text → (right before advice, right after advice));
- it answers generated questions right while ``followups_right`` says so;
- the judge writes well-formed questions and feedback, unless told to break them; reading
  the gate's passages, it answers with both passages and says "cannot be determined" with
  one of them removed.
Multiple choice and phrase questions (KMC, RMC, KQA) alike.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field

RIGHT = "the right one"
PARAPHRASE_PREFIX = "In other words: "


def paraphrase(question: str) -> str:
    """The double's rewording: the words in reverse order, which its target can undo."""
    return PARAPHRASE_PREFIX + " ".join(reversed(question.split(" ")))


def unparaphrase(text: str) -> str:
    if not text.startswith(PARAPHRASE_PREFIX):
        return text
    return " ".join(reversed(text.removeprefix(PARAPHRASE_PREFIX).split(" ")))
# Distinct follow-up questions, so the quality gate's duplicate check lets them through.
TOPICS = [
    "Which enzyme does the liver release when bile flow is blocked?",
    "What rhythm follows a heart attack most often?",
    "Which hormone keeps the kidney from losing water?",
    "How do inhaled steroids change asthma attacks?",
    "Which bacterium makes stomach ulcers likely?",
    "What does a low ferritin level suggest about the blood?",
    "Which nerve damage comes with long-standing diabetes?",
    "Why is warfarin monitored with a blood test?",
    "What lung pattern does tuberculosis leave on an X-ray?",
    "Which antibody marks Graves disease of the thyroid?",
    "What treatment stops an eclamptic seizure in pregnancy?",
    "Which gene is broken in cystic fibrosis?",
]
WRONGS = ["wrong one", "another wrong one", "a third wrong one"]
UNDETERMINED = "cannot be determined"


def schema_name(body: dict) -> str:
    """The name of the reply schema a chat request asks for, as the client sends it:
    ``json_schema.name`` (remote servers), or the schema's title in llama.cpp's
    ``json_object`` + ``schema`` form. A server that refused both forms gets the schema only
    as the description the client appends to the system message: the name is then looked up
    from it (:func:`_described_name`). Empty when the request asks for no schema."""
    rf = body.get("response_format") or {}
    if rf.get("type") == "json_schema":
        return str((rf.get("json_schema") or {}).get("name", ""))
    if isinstance(rf.get("schema"), dict):
        return str(rf["schema"].get("title", ""))
    msgs = body.get("messages") or [{}]
    return _described_name(str(msgs[0].get("content", ""))) if msgs[0].get("role") == "system" else ""


def _described_name(system: str) -> str:
    """The schema whose description ends ``system``. Two pairs share a description (a
    follow-up and a "modify" rewrite; the gate's phrase answer and a phrase blind answer):
    the first of each, the one the pipeline tests use, is taken."""
    from judgeagent.llm.structured import describe
    from judgeagent.prompts import schemas

    if '{"response": [{"answer": ' in system:
        return "answer_batch"
    named = [s for s in vars(schemas).values() if isinstance(s, dict) and "title" in s]
    named += [schemas.decon_verify(list(letters)) for letters in ("ABCD", "ABCDE")]
    return next((s["title"] for s in named if system.endswith("\n" + describe(s))), "")


def _options(text: str) -> dict[str, str]:
    return {m.group(1): m.group(2) for m in re.finditer(r"^([A-E])\. (.*)$", text, re.M)}


@dataclass
class Script:
    seed_plan: dict[str, tuple[bool, bool]] = field(default_factory=dict)  # question → (before, after)
    answers: dict[str, str] = field(default_factory=dict)  # seed question → correct letter or phrase
    followups_right: bool = True
    broken_generation: bool = False
    generation_prompts: list[str] = field(default_factory=list)
    generation_requests: int = 0
    gate_requests: int = 0
    leak: str | None = None  # text the judge's suggestions give away, when set
    leak_rewrites: int = 0
    answer_prompts: list[str] = field(default_factory=list)
    summary_requests: int = 0
    # The protocols' roles (judgeagent/protocols/):
    attempt_plan: dict[str, list[bool]] = field(default_factory=dict)  # interviewer: question → right at attempt 1, 2, 3
    level_right: dict[str, bool] = field(default_factory=dict)  # escalate: right answers by the follow-up's level
    kieval_overall: list[int] = field(default_factory=lambda: [4, 3, 2, 1, 4])  # the evaluator's overall score by turn
    repeat_from_turn: int | None = None  # kieval: the target repeats its last reply from this turn on
    placebo_inert: bool = False  # only the judge's own advice moves the target, not a placebo's
    generated_levels: dict[str, str] = field(default_factory=dict)  # generated question → its level
    interactor_requests: int = 0

    def __call__(self, body: dict) -> str:
        msgs = body["messages"]
        user = msgs[-1]["content"] if msgs[-1]["role"] == "user" else msgs[1]["content"]
        name = schema_name(body)
        reply = {
            "answer_batch": lambda: self.answer(user),
            "generated_mc": lambda: self.generate(msgs, multiple_choice=True),
            "generated_phrase": lambda: self.generate(msgs, multiple_choice=False),
            "gate_answer_mc": lambda: self.read_passages(user, multiple_choice=True),
            "gate_answer_phrase": lambda: self.read_passages(user, multiple_choice=False),
            "feedback": self.feedback,
            "leak_rewrite": self.rewrite_advice,
            "leak_check": lambda: json.dumps({"verdict": "picks_out" if self.leak and self.leak in user.split("Advice:")[-1] else "none", "evidence": ""}),
            "decon_verify": lambda: self.blind_answer(user),
            "decon_paraphrase": lambda: self.paraphrase(user),
            "summary": self.summary,
            "phrase_judgement": lambda: json.dumps({"equivalent": "no"}),
            "kieval_question": self.interactor,
            "dialogue_reply": lambda: self.dialogue_reply(user),
            "kieval_score": lambda: self.kieval_score(user),
            "interviewer_feedback": lambda: json.dumps({"feedback": "Recall the mechanism before choosing." + (f" Remember: {self.leak}." if self.leak else "")}),
            "interviewer_followups": lambda: json.dumps({"rationale": "Why does that answer hold?", "clarification": "What does the key term mean here?"}),
            "followup_grades": lambda: json.dumps({"rationale": "adequate", "clarification": "inadequate", "comment": "explains why, not the term"}),
            "interview_report": lambda: json.dumps({"strengths": ["recall"], "weaknesses": ["definitions"]}),
        }.get(name)
        return reply() if reply is not None else json.dumps({"error": f"unexpected reply schema {name!r}"})

    def generate(self, msgs: list[dict], *, multiple_choice: bool) -> str:
        self.generation_requests += 1
        self.generation_prompts.append(msgs[1]["content"])
        if self.broken_generation:
            return "Sure! Here is a question: what is it?"
        topic = TOPICS[(self.generation_requests - 1) % len(TOPICS)]
        level = re.search(r"^Difficulty (\w+):", msgs[1]["content"], re.M)
        self.generated_levels[topic] = level.group(1).lower() if level else ""
        if multiple_choice:
            return json.dumps({"question": topic, "correct_option": RIGHT, "distractors": WRONGS, "rationale": "stated"})
        return json.dumps({"question": topic, "answer": RIGHT, "rationale": "stated"})

    def read_passages(self, user: str, *, multiple_choice: bool) -> str:
        """The gate's reader: the questions combine two passages, so it answers (RIGHT, or
        RIGHT's letter) when it reads two and says it cannot tell from one; the needs-hops
        check then sees Hard questions that need both."""
        self.gate_requests += 1
        if re.search(r"^\[2\] ", user, re.M) is None:
            return json.dumps({"answer": UNDETERMINED})
        if not multiple_choice:
            return json.dumps({"answer": RIGHT})
        return json.dumps({"answer": next((k for k, v in _options(user).items() if v == RIGHT), "A")})

    def feedback(self) -> str:
        advice = "Recall the mechanism before choosing." + (f" Remember: {self.leak}." if self.leak else "")
        return json.dumps({"flaws_knowledge": "mixes up drug classes", "flaws_capability": "skips a step", "comprehensive_performance": "fair", "suggestions": advice})

    def rewrite_advice(self) -> str:
        self.leak_rewrites += 1
        return json.dumps({"suggestions": "Recall the mechanism before choosing, and check each option against it."})

    def blind_answer(self, user: str) -> str:
        """The blind check of a paraphrase: the double knows the answers of the originals."""
        stem = re.search(r"^(?:Q1\. )?(In other words: .*)$", user, re.M).group(1)
        return json.dumps({"answer": self.answers.get(unparaphrase(stem).strip(), "A")})

    def paraphrase(self, user: str) -> str:
        """The same question, reworded by a fixed prefix the target's plan knows."""
        question = re.search(r"Question:\n(.*?)\n\nCorrect answer", user, re.S).group(1).split("\nA. ")[0].strip()
        return json.dumps({"question": paraphrase(question)})

    def summary(self) -> str:
        self.summary_requests += 1
        return json.dumps({"strengths": ["recall"], "weaknesses": ["drug classes"], "knowledge_gaps": ["potassium handling"],
                           "reasoning_gaps": ["skips steps"], "response_to_feedback": "improved"})

    def interactor(self) -> str:
        self.interactor_requests += 1
        return json.dumps({"question": f"Probe {self.interactor_requests}: why does that hold?"})

    @staticmethod
    def _replies(text: str) -> list[str]:
        return re.findall(r"^Candidate: (.*)$", text, re.M)

    def dialogue_reply(self, user: str) -> str:
        """Turn t's reply is "Reply t" (t = replies already in the transcript), or a repeat."""
        replies = self._replies(user.split("Examiner's question:")[0])
        if self.repeat_from_turn is not None and len(replies) >= self.repeat_from_turn and replies:
            return json.dumps({"reply": replies[-1]})
        return json.dumps({"reply": f"Reply {len(replies)} about the topic."})

    def kieval_score(self, user: str) -> str:
        """Turn t: overall and accuracy kieval_overall[t]; logic 4, relevance 3, coherence 2, conciseness 1."""
        t = len(self._replies(user.split("Question of this turn:")[0]))
        overall = self.kieval_overall[t % len(self.kieval_overall)]
        fixed = {"accuracy": overall, "logic": 4, "relevance": 3, "coherence": 2, "conciseness": 1}
        body = {a: {"score": str(v), "comment": f"{a} {v}"} for a, v in fixed.items()}
        return json.dumps(body | {"overall": str(overall), "stop": "continue", "stop_reason": ""})

    def answer(self, user: str) -> str:
        self.answer_prompts.append(user)
        advised = "Advice from your examiner" in user
        if self.placebo_inert and advised:
            advised = "Recall the mechanism" in user
        earlier = re.search(r"^Your earlier answers to this question: (.*)$", user, re.M)
        attempt = len(earlier.group(1).split("; ")) if earlier else 0
        body = user.split("\n\nReply with JSON only")[0]
        out = []
        for block in re.findall(r"^Q\d+\. .*?(?=\n\n|\Z)", body, re.M | re.S):
            lines = block.splitlines()
            question = unparaphrase(re.sub(r"^Q\d+\. ", "", lines[0]).strip())
            options = _options("\n".join(lines[1:]))
            if question in self.attempt_plan:
                right = self.attempt_plan[question][attempt]
                correct = self.answers[question]
            elif question in self.seed_plan:
                right = self.seed_plan[question][1 if advised else 0]
                correct = self.answers[question]
            else:  # a generated question: the right option is the one with RIGHT's text
                level = self.generated_levels.get(question, "")
                right = self.level_right.get(level, self.followups_right)
                correct = next((k for k, v in options.items() if v == RIGHT), "A") if options else RIGHT
            wrong = next((k for k in options if k != correct), None) if options else WRONGS[0]
            out.append({"answer": correct if right else wrong})
        return json.dumps({"response": out})


class Target:
    """A scripted target: seed question i is right before advice if ``seeds[i]`` (and after,
    if ``after[i]``); a generated question is right if ``followup(topic index)``."""

    def __init__(self, demo_seeds, seeds: str, after: str, followup):
        self.plan = {q.question.strip(): (s == "1", a == "1") for q, s, a in zip(demo_seeds, seeds, after)}
        self.answers = {q.question.strip(): q.answer for q in demo_seeds}
        self.followup = followup

    def __call__(self, body: dict) -> str:
        assert schema_name(body) == "answer_batch", "a target is only asked questions"
        user = body["messages"][-1]["content"]
        advised = "Advice from your examiner" in user
        out = []
        for block in re.findall(r"^Q\d+\. .*?(?=\n\n|\Z)", user.split("\n\nReply with JSON only")[0], re.M | re.S):
            lines = block.splitlines()
            question = re.sub(r"^Q\d+\. ", "", lines[0]).strip()
            options = {m.group(1): m.group(2) for m in re.finditer(r"^([A-E])\. (.*)$", "\n".join(lines[1:]), re.M)}
            if question in self.plan:
                right, correct = self.plan[question][1 if advised else 0], self.answers[question]
            else:
                right, correct = self.followup(TOPICS.index(question)), next(k for k, v in options.items() if v == RIGHT)
            out.append({"answer": correct if right else next(k for k in options if k != correct)})
        return json.dumps({"response": out})


class OrderFreeScript(Script):
    """The double, its judge naming each question it writes after the prompt it was written
    from (not by how many it wrote before), so what it writes does not depend on the order
    requests reach it: live calls and a Batch API job's lines arrive in different orders."""

    def generate(self, msgs: list[dict], *, multiple_choice: bool) -> str:
        self.generation_requests += 1
        # Asked about its first passage's own words, so questions from different passages are
        # not near-copies of each other (whether the gate finds a question a repeat of one
        # another batch accepted first would depend on which was first, live or in a job), and
        # marked with its prompt's digest, so two prompts (another level, another target's
        # interview) never write the very same question.
        first = re.search(r"^\[1\] \((.*?)\) (.*)$", msgs[1]["content"], re.M)
        digest = hashlib.sha256(msgs[1]["content"].encode()).hexdigest()[:8]
        words = " ".join(first.group(2).split()[:14]) if first else "these passages"
        topic = f"Which finding about {first.group(1) if first else 'this'} follows from: {words} ({digest})?"
        level = re.search(r"^Difficulty (\w+):", msgs[1]["content"], re.M)
        self.generated_levels[topic] = level.group(1).lower() if level else ""
        if multiple_choice:
            return json.dumps({"question": topic, "correct_option": RIGHT, "distractors": WRONGS, "rationale": "stated"})
        return json.dumps({"question": topic, "answer": RIGHT, "rationale": "stated"})
