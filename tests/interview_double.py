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
WRONGS = ["wrong one", "another wrong one", "a third wrong one"]


@dataclass
class Script:
    seed_plan: dict[str, tuple[bool, bool]] = field(default_factory=dict)  # question → (before, after)
    answers: dict[str, str] = field(default_factory=dict)  # seed question → correct letter
    followups_right: bool = True
    broken_generation: bool = False
    generation_prompts: list[str] = field(default_factory=list)
    generation_requests: int = 0
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
            n = self.generation_requests
            return json.dumps({"question": f"Generated question number {n} about the passage?", "correct_option": RIGHT, "distractors": WRONGS, "rationale": "stated"})
        if system.startswith("You are an examiner who diagnoses"):
            return json.dumps({"flaws_knowledge": "mixes up drug classes", "flaws_capability": "skips a step", "comprehensive_performance": "fair", "suggestions": "Recall the mechanism before choosing."})
        if system.startswith("You are an examiner who writes the closing summary"):
            self.summary_requests += 1
            return json.dumps({"strengths": ["recall"], "weaknesses": ["drug classes"], "knowledge_gaps": ["potassium handling"],
                               "reasoning_gaps": ["skips steps"], "response_to_feedback": "improved"})
        if system.startswith("You grade short answers"):
            return json.dumps({"equivalent": "no"})
        return json.dumps({"error": "unexpected prompt"})

    def answer(self, user: str) -> str:
        advised = "Advice from your examiner" in user
        body = user.split("\n\nReply with JSON only")[0]
        out = []
        for block in re.findall(r"^Q\d+\. .*?(?=\n\n|\Z)", body, re.M | re.S):
            lines = block.splitlines()
            question = re.sub(r"^Q\d+\. ", "", lines[0]).strip()
            options = {m.group(1): m.group(2) for ln in lines[1:] if (m := re.match(r"([A-E])\. (.*)", ln))}
            if question in self.seed_plan:
                right = self.seed_plan[question][1 if advised else 0]
                correct = self.answers[question]
            else:  # a generated question: the right option is the one with RIGHT's text
                right = self.followups_right
                correct = next((k for k, v in options.items() if v == RIGHT), "A")
            out.append({"answer": correct if right else next(k for k in options if k != correct)})
        return json.dumps({"response": out})
