"""A deterministic target + judge behind the scripted server, for pipeline tests.

The responder reads each request the way a model would and answers by a script:
- the target answers a seed question right or wrong according to ``seed_plan``
  (question text → (right before advice, right after advice));
- it answers generated questions right while ``followups_right`` says so;
- the judge writes well-formed questions and feedback, unless told to break them.
"""

from __future__ import annotations

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


@dataclass
class Script:
    seed_plan: dict[str, tuple[bool, bool]] = field(default_factory=dict)  # question → (before, after)
    answers: dict[str, str] = field(default_factory=dict)  # seed question → correct letter
    followups_right: bool = True
    broken_generation: bool = False
    generation_prompts: list[str] = field(default_factory=list)
    generation_requests: int = 0
    gate_requests: int = 0
    leak: str | None = None  # text the judge's suggestions give away, when set
    leak_rewrites: int = 0
    answer_prompts: list[str] = field(default_factory=list)
    summary_requests: int = 0

    def __call__(self, body: dict) -> str:
        msgs = body["messages"]
        system = msgs[0]["content"] if msgs and msgs[0]["role"] == "system" else ""
        user = msgs[-1]["content"] if msgs[-1]["role"] == "user" else msgs[1]["content"]
        if system.startswith("You are taking an exam"):
            return self.answer(user)
        if system.startswith("You are an expert examiner"):
            self.generation_requests += 1
            self.generation_prompts.append(msgs[1]["content"])
            if self.broken_generation:
                return "Sure! Here is a question: what is it?"
            topic = TOPICS[(self.generation_requests - 1) % len(TOPICS)]
            return json.dumps({"question": topic, "correct_option": RIGHT, "distractors": WRONGS, "rationale": "stated"})
        if system.startswith("You check exam questions"):
            # The gate's judge reads the question from the passages: it picks RIGHT's letter.
            self.gate_requests += 1
            options = dict(m.groups() for m in re.finditer(r"^([A-E])\. (.*)$", user, re.M))
            right = next((k for k, v in options.items() if v == RIGHT), "A")
            # The questions combine two passages: with one passage left it guesses wrong,
            # so the needs-its-hops check sees Hard questions that need both.
            two_passages = re.search(r"^\[2\] ", user, re.M) is not None
            return json.dumps({"answer": right if two_passages else next(k for k in options if k != right)})
        if system.startswith("You are an examiner who diagnoses"):
            advice = "Recall the mechanism before choosing." + (f" Remember: {self.leak}." if self.leak else "")
            return json.dumps({"flaws_knowledge": "mixes up drug classes", "flaws_capability": "skips a step", "comprehensive_performance": "fair", "suggestions": advice})
        if system.startswith("You are an examiner who edits advice"):
            self.leak_rewrites += 1
            return json.dumps({"suggestions": "Recall the mechanism before choosing, and check each option against it."})
        if system.startswith("You are a careful expert"):
            # The blind check of a paraphrase: the double knows the answers of the originals.
            stem = re.search(r"^(?:Q1\. )?(In other words: .*)$", user, re.M).group(1)
            return json.dumps({"answer": self.answers.get(unparaphrase(stem).strip(), "A")})
        if system.startswith("You are an exam editor"):
            # Paraphrase: the same question, reworded by a fixed prefix the target's plan knows.
            question = re.search(r"Question:\n(.*?)\n\nCorrect answer", user, re.S).group(1).split("\nA. ")[0].strip()
            return json.dumps({"question": paraphrase(question)})
        if system.startswith("You are an examiner who writes the closing summary"):
            self.summary_requests += 1
            return json.dumps({"strengths": ["recall"], "weaknesses": ["drug classes"], "knowledge_gaps": ["potassium handling"],
                               "reasoning_gaps": ["skips steps"], "response_to_feedback": "improved"})
        if system.startswith("You grade short answers"):
            return json.dumps({"equivalent": "no"})
        return json.dumps({"error": "unexpected prompt"})

    def answer(self, user: str) -> str:
        self.answer_prompts.append(user)
        advised = "Advice from your examiner" in user
        body = user.split("\n\nReply with JSON only")[0]
        out = []
        for block in re.findall(r"^Q\d+\. .*?(?=\n\n|\Z)", body, re.M | re.S):
            lines = block.splitlines()
            question = unparaphrase(re.sub(r"^Q\d+\. ", "", lines[0]).strip())
            options = {m.group(1): m.group(2) for ln in lines[1:] if (m := re.match(r"([A-E])\. (.*)", ln))}
            if question in self.seed_plan:
                right = self.seed_plan[question][1 if advised else 0]
                correct = self.answers[question]
            else:  # a generated question: the right option is the one with RIGHT's text
                right = self.followups_right
                correct = next((k for k, v in options.items() if v == RIGHT), "A")
            out.append({"answer": correct if right else next(k for k in options if k != correct)})
        return json.dumps({"response": out})
