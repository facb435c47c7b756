"""The leak corpus of bench/leak_corpus.jsonl, read into questions, batches and suggestions.

The corpus is plain data, written for this project (no benchmark text) and kept apart from
the rules: 33 invented questions (medicine, law, history, science, economics, literature,
geography; multiple choice and phrase answers) in batches of three, and for each question
suggestions that leak, labelled with the kind of give-away they were written as, and clean
ones (concepts and reasoning steps, options named without any being singled out). Its first
line records the one split, by batch and so by question, into a development half (the only
one the rules and the semantic threshold were tuned on) and a held-out half. A third group,
"fresh", was written after the held-out half's first measurement and before any change made
in response to it: changes made after that are measured there. A fourth, "fresh2" (12 more
questions), was written at the start of the next session of the issue, before any change to
the guard in it, so that session's guard is measured on suggestions nobody tuned on.

Used by tests/test_leakage.py and bench/leak_guard.py.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from judgeagent.data.benchmark import Question

CORPUS = Path(__file__).resolve().parents[1] / "bench" / "leak_corpus.jsonl"
HALVES = ("development", "held_out")
# Written after the held-out half's first measurement, to measure changes made after it.
FRESH = "fresh"
# Written in the next session before any change to the guard in it: the untouched test of that
# session's guard.
FRESH2 = "fresh2"
GROUPS = (*HALVES, FRESH, FRESH2)


@dataclass(frozen=True)
class Suggestion:
    text: str
    batch: str
    question: str | None  # the question it was written about (None: the batch as a whole)
    kind: str | None  # the kind of leak it was written as; None for a clean suggestion
    half: str  # "development" | "held_out" | "fresh" | "fresh2"

    @property
    def leaks(self) -> bool:
        return self.kind is not None


@dataclass(frozen=True)
class Corpus:
    split: dict
    batches: dict[str, list[Question]]  # batch id → its questions, in order
    suggestions: list[Suggestion]

    def half(self, name: str) -> list[Suggestion]:
        return [s for s in self.suggestions if s.half == name]

    def questions(self, half: str | None = None) -> list[Question]:
        names = self.split[half] if half else list(self.batches)
        return [q for b in names for q in self.batches[b]]


@cache
def load_corpus(path: Path = CORPUS) -> Corpus:
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]
    split = lines[0]["split"]
    half_of = {b: half for half in GROUPS for b in split.get(half, [])}
    batches: dict[str, list[Question]] = {}
    suggestions = []
    for d in lines[1:]:
        if "suggestion" in d:
            suggestions.append(Suggestion(d["suggestion"], d["batch"], d["question"], d["leak"], half_of[d["batch"]]))
        else:
            batches.setdefault(d["batch"], []).append(Question(d["question"], d["text"], d["answer"], d.get("options")))
    return Corpus(split, batches, suggestions)


def guard_verdicts(embedder) -> list[list]:
    """[text, batch, sorted (question, kind) findings] of the guard with ``embedder`` for every
    suggestion of the corpus against its batch, and for every content-free sentence against
    every batch: what must not depend on the CPU or the embedder's precision."""
    from judgeagent.graph.fixed_precision import decision_embedder
    from judgeagent.stages.controls import PLACEBO_SENTENCES
    from judgeagent.stages.leakage import find_leaks, guard_texts

    corpus = load_corpus()
    checks = [(s.text, s.batch) for s in corpus.suggestions] + [(p, b) for p in PLACEBO_SENTENCES for b in corpus.batches]
    # One pass over every text first, as a run primes its guard; each check then reads the cache.
    decision_embedder(embedder).encode(list(dict.fromkeys(t for text, b in checks for t in guard_texts(text, corpus.batches[b]))))
    out = []
    for text, batch in checks:
        found = find_leaks(text, corpus.batches[batch], embedder=embedder)
        out.append([text, batch, sorted([d["question_id"] or "", d["kind"]] for d in found)])
    return out


if __name__ == "__main__":  # python -m tests.leak_table OUT: the verdicts with this process's run embedder
    import sys

    from judgeagent.graph.embed import shared_embedder
    from judgeagent.graph.embed_queue import EmbeddingQueue

    Path(sys.argv[1]).write_text(json.dumps(guard_verdicts(EmbeddingQueue(shared_embedder()))), encoding="utf-8")
