"""A target of known ability behind the scripted OpenAI-compatible server, for testing rankings.

Each question has a hidden difficulty b, drawn from N(0, ``spread``²) by a seeded hash of its
text; each target a hidden ability θ. The target answers a question right with probability
σ(θ − b) (a Rasch model), so the true order of several targets is known and a ranking
method can be checked against it. Whether it is right is itself a seeded hash of (seed,
target name, question, the examiner's advice if any) compared with σ(θ − b): the answer does
not depend on which batch the question came in, its position, or the order of requests, so a
rerun gets the same answers and concurrency cannot change a result. A wrong answer to a
multiple-choice question picks another of its options (chosen by the same hash); a wrong
phrase answer is a fixed wrong phrase.

It answers the prompts a target really gets (judgeagent/stages/grading.py): a batch of
seed questions in one prompt, a follow-up or a bank item alone (with the article or the
path's passages before it), a re-ask with the examiner's advice; the reply is the
``answer_batch`` JSON, ``{"response": [{"answer": ...}, ...]}``, one per question.

The target must know the right answer to give it, as the interview double does: ``answers``
(question text → the right letter or phrase, e.g. a benchmark's seed key), else the option
whose text is ``right_text`` (the judge double of tests/interview_double.py writes every
generated question with RIGHT as its right option). A question it has no key for is
answered "A" and listed in ``unknown``, so a test can insist there are none.

    target = AbilityTarget(1.5, name="strong", answers={q.question.strip(): q.answer for q in seeds})
    with ScriptedServer(target) as srv:
        model = f"{srv.base_url}@scripted"
"""

from __future__ import annotations

import hashlib
import json
import math
import re
import threading
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from statistics import NormalDist

from interview_double import RIGHT, schema_name, unparaphrase
from scripted_server import ScriptedServer

WRONG_PHRASE = "a wrong guess"
_QUESTIONS = re.compile(r"^Questions: (\d+)\. Give exactly \1 answers, in this order\.\n\n", re.M)
_OPTION = re.compile(r"^([A-Z])\. (.*)$")


def _unit(*parts: object) -> float:
    """A uniform number in (0, 1) from a hash of ``parts``: the same parts, the same number."""
    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode()).digest()
    return (int.from_bytes(digest[:8], "big") + 0.5) / 2**64


def difficulty(question: str, *, seed: int = 0, spread: float = 1.0) -> float:
    """The hidden difficulty of a question: N(0, spread²) from a seeded hash of its text
    (whitespace-normalised, so the prompt's layout does not change it)."""
    return spread * NormalDist().inv_cdf(_unit("difficulty", seed, " ".join(question.split())))


def sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x))


def parse_questions(user: str) -> list[tuple[str, dict[str, str]]]:
    """The questions of an answer prompt, in order: (question text, {letter: option text}).

    The prompt ends with "Questions: n. Give exactly n answers, in this order." and then
    Q1. … Qn., each followed by its option lines; a question may span several lines.
    """
    found = list(_QUESTIONS.finditer(user))  # the last: an article before it may quote anything
    if not found:
        return []
    m = found[-1]
    n, body = int(m.group(1)), user[m.end() :]
    starts = []
    pos = 0
    for k in range(1, n + 1):
        head = f"Q{k}. "
        i = body.find(head, pos) if k == 1 else body.find("\n\n" + head, pos)
        if i < 0:
            break
        i = i if k == 1 else i + 2
        starts.append(i)
        pos = i + len(head)
    out = []
    for k, start in enumerate(starts):
        end = starts[k + 1] - 2 if k + 1 < len(starts) else len(body)
        lines = body[start:end].rstrip("\n").split("\n")
        lines[0] = lines[0][len(f"Q{k + 1}. ") :]
        options: dict[str, str] = {}
        while len(lines) > 1 and (opt := _OPTION.match(lines[-1])):
            options[opt.group(1)] = opt.group(2)
            lines.pop()
        out.append(("\n".join(lines).strip(), dict(sorted(options.items()))))
    return out


def advice_of(user: str) -> str:
    """The examiner's advice in a re-ask prompt ("" when there is none)."""
    m = re.search(r"^Advice from your examiner, to help you reason about these topics:\n(.*?)(?=\n\nQuestions: |\Z)", user, re.M | re.S)
    return m.group(1).strip() if m else ""


@dataclass
class AbilityTarget:
    """A scripted target of ability ``ability`` (θ on the difficulties' scale).

    ``advice_gain`` is added to θ when the prompt carries the examiner's advice (0: advice
    neither helps nor hurts, the re-ask is a fresh draw at the same odds).
    """

    ability: float
    name: str = "target"
    seed: int = 0
    spread: float = 1.0
    answers: dict[str, str] = field(default_factory=dict)
    right_text: str | None = RIGHT
    advice_gain: float = 0.0
    asked: int = 0  # questions answered
    right: int = 0  # of them, answered right
    unknown: list[str] = field(default_factory=list)  # questions it had no key for
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def difficulty(self, question: str) -> float:
        return difficulty(question, seed=self.seed, spread=self.spread)

    def p_right(self, question: str, *, advised: bool = False) -> float:
        return sigmoid(self.ability + (self.advice_gain if advised else 0.0) - self.difficulty(question))

    def key(self, question: str, options: dict[str, str]) -> str | None:
        if question in self.answers:
            return self.answers[question]
        if self.right_text is not None:
            if not options:
                return self.right_text
            return next((k for k, v in options.items() if v == self.right_text), None)
        return None

    def answer(self, question: str, options: dict[str, str], advice: str = "") -> str:
        question = unparaphrase(question)
        correct = self.key(question, options)
        if correct is None:
            with self._lock:
                self.unknown.append(question)
            return "A"
        u = _unit("right", self.seed, self.name, " ".join(question.split()), advice)
        right = u < self.p_right(question, advised=bool(advice))
        with self._lock:
            self.asked += 1
            self.right += right
        if right:
            return correct
        if not options:
            return WRONG_PHRASE
        others = [k for k in options if k != correct.strip().upper()]
        return others[int(_unit("wrong", self.seed, self.name, question, advice) * len(others))] if others else correct

    def __call__(self, body: dict) -> str:
        name = schema_name(body)
        if name != "answer_batch":
            return json.dumps({"error": f"a target is not asked for {name!r}"})
        msgs = body["messages"]
        user = next(m["content"] for m in reversed(msgs) if m["role"] == "user")
        advice = advice_of(user)
        return json.dumps({"response": [{"answer": self.answer(q, opts, advice)} for q, opts in parse_questions(user)]})

    @property
    def accuracy(self) -> float | None:
        return self.right / self.asked if self.asked else None


@contextmanager
def ability_servers(targets: list[AbilityTarget], **server_kwargs) -> Iterator[list[ScriptedServer]]:
    """One scripted server per target, all on 127.0.0.1, stopped on exit."""
    with ExitStack() as stack:
        yield [stack.enter_context(ScriptedServer(t, **server_kwargs)) for t in targets]
