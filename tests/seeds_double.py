"""A scripted seed writer and gate reader behind the scripted server (tests/scripted_server.py).

It reads the excerpts of the writer's prompt (numbered sentences) the way a model would and
writes a cloze question from them: a sentence of excerpt 1 that names the path's entity, with
the entity blanked (and, across passages, a sentence of excerpt 2 beside it), the entity as
the key and the sentences' numbers as citations. The reader answers only what the passages it is shown
hold: the key when every statement of the question is in them, else "cannot be determined".

``mistakes`` makes the n-th first try (0-based, in the order the slots are written) wrong in
one known way; its retry is right:
- ``bad_citation``: a sentence number the excerpts do not have;
- ``unsupported``: a key the cited sentence does not state (one the writer made up);
- ``paraphrase``: the last question written without a mistake, in other words (a near-duplicate, not a copy);
- ``two_right``: a question whose first wrong option the reader also takes for right;
- ``off_document``: a question about something the excerpts do not say (its key and citation are real).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field

from interview_double import schema_name

UNDETERMINED = "cannot be determined"
WRITER_WRONG = ["alpha option", "beta option", "gamma option"]
OFF_DOCUMENT = "Which planet is the largest in the solar system?"


def excerpts(prompt: str) -> list[tuple[str, list[tuple[int, str]]]]:
    """(entity, [(number, sentence)]) of each excerpt, in order: the numbered lines under each
    "Excerpt k (about entity):" heading (a text's own "[1] ..." line is not the next number)."""
    body = prompt.split("Excerpts:\n", 1)[1]
    out: list[tuple[str, list[tuple[int, str]]]] = []
    expected = 1
    for line in body.splitlines():
        head = re.match(r"^Excerpt (\d+) \(about (.*)\):$", line)
        if head and int(head.group(1)) == len(out) + 1:
            out.append((head.group(2), []))
            continue
        m = re.match(r"^\[(\d+)\] (.*)$", line)
        if m and out and int(m.group(1)) == expected:
            out[-1][1].append((expected, m.group(2)))
            expected += 1
    return out


def is_first(msgs: list[dict]) -> bool:
    """A slot's first try: its prompt says nothing of an earlier one."""
    return "before were unusable" not in msgs[-1]["content"]


def blank(sentence: str, key: str) -> str:
    return re.sub(re.escape(key), "___", sentence, count=1, flags=re.I)


def cloze(entity: str, numbered: list[tuple[int, str]]) -> tuple[int, str, str]:
    """(number, sentence, key): a sentence naming the entity, else the first long one and its
    last word of five letters or more (a word that names something, not "both" or "it")."""
    long = [(k, s) for k, s in numbered if len(s.split()) >= 6] or numbered
    for k, s in long:
        if re.search(rf"\b{re.escape(entity)}\b", s, re.I):
            return k, s, entity
    k, s = long[0]
    words = re.findall(r"[A-Za-z]{5,}", s) or s.rstrip(".!?").split()
    return k, s, words[-1]


def normal(text: str) -> str:
    return " ".join(text.split()).casefold()


@dataclass
class SeedScript:
    mistakes: dict[int, str] = field(default_factory=dict)
    off_document_retries: bool = False  # every try off the document, retries too
    keys: dict[str, str] = field(default_factory=dict)  # question → key
    two_right: set[str] = field(default_factory=set)
    written: list[str] = field(default_factory=list)  # every question written, in order
    good: list[str] = field(default_factory=list)  # those written without a mistake
    first_tries: int = 0
    requests: Counter = field(default_factory=Counter)

    def __call__(self, body: dict) -> str:
        name = schema_name(body)
        self.requests[name] += 1
        msgs = body["messages"]
        if name in ("seed_mc", "seed_phrase"):
            return self.write(msgs, multiple_choice=name == "seed_mc")
        if name in ("gate_answer_mc", "gate_answer_phrase"):
            return self.read(msgs[-1]["content"], multiple_choice=name == "gate_answer_mc")
        if name == "phrase_judgement":
            return json.dumps({"equivalent": "no"})
        return json.dumps({"error": f"unexpected reply schema {name!r}"})

    def write(self, msgs: list[dict], *, multiple_choice: bool) -> str:
        first = is_first(msgs)
        mistake = self.mistakes.get(self.first_tries) if first else None
        self.first_tries += first
        shown = excerpts(msgs[1]["content"])
        (entity, numbered), rest = shown[0], shown[1:]
        number, sentence, key = cloze(entity, numbered)
        statements, cited = [blank(sentence, key)], [number]
        if rest and rest[0][1]:  # across passages: a statement of excerpt 2 joins the question
            other = [(k, t) for k, t in rest[0][1] if len(t.split()) >= 6] or rest[0][1]
            statements.append(other[0][1])
            cited.append(other[0][0])
        # A retry is worded anew, as a sampled retry would be (the same request would replay the same reading).
        opening = "Which term completes this account:" if first else "Which term is missing from this account:"
        question = f"{opening} {' / '.join(statements)}?"
        if mistake == "bad_citation":
            cited[0] = max(k for _, ns in shown for k, _ in ns) + 5
        elif mistake == "unsupported":
            key = "Zorblax compound"
        elif mistake == "paraphrase" and self.good:
            question = "What word fills the gap in this account:" + self.good[-1].split("account:", 1)[1]
        elif mistake == "off_document" or (self.off_document_retries and not first):
            question = OFF_DOCUMENT  # the key and its citation stay real: only a reader of the passages finds it out
        elif mistake == "two_right":
            self.two_right.add(question)
        self.keys.setdefault(question, key)
        self.written.append(question)
        if mistake is None:
            self.good.append(question)
        if multiple_choice:
            return json.dumps({"question": question, "correct_option": key, "distractors": WRITER_WRONG, "citations": cited})
        return json.dumps({"question": question, "answer": key, "citations": cited})

    def read(self, user: str, *, multiple_choice: bool) -> str:
        passages = normal(user.split("Question:")[0])
        question = user.split("Question:")[1].strip().split("\n")[0].strip() if "Question:" in user else ""
        question = next((q for q in self.keys if q in user), question)
        m = re.search(r"account: (.*)\?$", question)
        held = m is not None and all(all(normal(part) in passages for part in s.split("___") if part.strip()) for s in m.group(1).split(" / "))
        if not held:
            return json.dumps({"answer": UNDETERMINED})
        key = self.keys[question]
        if not multiple_choice:
            return json.dumps({"answer": key})
        options = {mm.group(1): mm.group(2).strip() for mm in re.finditer(r"^([A-E])\. (.*)$", user, re.M)}
        right = next(k for k, v in options.items() if v == key)
        if question in self.two_right:
            right = next(k for k in options if k != right)
        return json.dumps({"answer": right})
