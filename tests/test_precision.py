"""Verdicts taken on MiniLM scores are the same on any CPU (issue 30).

A CPU with native bf16 runs MiniLM under bf16 autocast, one without runs it in fp32 with AVX2
kernels; every threshold on cosines (the leakage guard, the gate's copy checks, the seed
matching floor) decides on fp32 vectors whatever the run's embedder
(judgeagent.graph.fixed_precision). Each test forces both precisions itself, so it passes,
and means the same, on whatever CPU runs it. bench/precision.py measures the differences.
The leakage guard's own test is in test_leakage.py, beside the other users of the session's
leak verdicts, so that under xdist one worker computes them.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import numpy as np
import pytest

from judgeagent.data.benchmark import Question, QuestionType
from judgeagent.graph.embed import Embedder
from judgeagent.graph.embed_queue import EmbeddingQueue
from judgeagent.graph.fixed_precision import decision_embedder
from judgeagent.llm.client import LLMResult
from judgeagent.stages.gate import GateConfig, QualityGate

ROOT = Path(__file__).resolve().parents[1]


class Plain:
    """An embedder that is no MiniLM: a test double is left as it is."""

    def encode(self, texts):
        return np.ones((len(texts), 4), dtype=np.float32) / 2


def test_decisions_use_torch_fp32_vectors_whatever_the_run_embedder():
    fp32 = Embedder(bf16=False)
    assert decision_embedder(fp32) is fp32
    for other in (Embedder(bf16=True), Embedder(backend="onnx-int8")):
        chosen = decision_embedder(other)
        assert (chosen.backend, chosen.precision) == ("torch", "fp32")
    queue = EmbeddingQueue(Embedder(bf16=True), cache_size=123, threads=1)
    companion = decision_embedder(queue)
    assert isinstance(companion, EmbeddingQueue) and companion.embedder.precision == "fp32"
    assert (companion.cache_size, companion.threads) == (123, 1)
    assert decision_embedder(queue) is companion  # one per run queue: its cache is reused
    assert decision_embedder(companion) is companion
    plain = Plain()
    assert decision_embedder(plain) is plain and decision_embedder(None) is None


class Judge:
    """Answers the gate's answerable check with the marked letter; remembers nothing."""

    def recall(self, key):
        return None

    def remember(self, key, value):
        pass

    async def ask_judge(self, messages, *, schema, stage, max_tokens, temperature=0.0):
        return LLMResult(ok=True, data={"answer": "B"})


@pytest.mark.slow
def test_the_gate_takes_the_same_copy_verdicts_under_bf16_and_fp32(demo_seeds):
    from judgeagent.data import load_benchmark

    seeds = [q.question for q in load_benchmark(ROOT / "data" / "medqa-demo").questions]
    options = {"A": "One", "B": "Two", "C": "Three", "D": "Four"}
    # Copies edited more and more: some stay above the 0.9 cosine, some fall below it.
    variants = []
    for q in demo_seeds:
        words = q.question.split()
        variants += [
            q.question.replace("Which of the following", "What"),
            " ".join(words[: max(4, len(words) * 2 // 3)]) + "?",
            "In a patient like this, " + " ".join(words[len(words) // 3 :]),
            "Concerning kidney physiology, " + " ".join(words[len(words) // 2 :]),
        ]
    verdicts = {}
    for bf16 in (False, True):
        gate = QualityGate(Judge(), EmbeddingQueue(Embedder(bf16=bf16)), seeds, GateConfig(check_hops=False))
        got = []
        for i, text in enumerate(variants):
            v = asyncio.run(gate.check(Question(f"v{i}", text, "B", dict(options)), QuestionType.KMC, "medium", ["a passage"]))
            if v.passed:
                gate.accept(Question(f"v{i}", text, "B", dict(options)))
            got.append([(c.name, c.passed, c.reason) for c in v.checks])
        verdicts[bf16] = got
    assert verdicts[False] == verdicts[True]
    seed_copy = [dict((name, ok) for name, ok, _ in v)["not_seed_copy"] for v in verdicts[False]]
    assert True in seed_copy and False in seed_copy  # both sides of the threshold are exercised


@pytest.mark.slow
def test_seed_matching_decides_the_same_under_bf16_and_fp32(demo_graph, spacy_extractor):
    from judgeagent.data import load_benchmark
    from judgeagent.graph import load_graph
    from judgeagent.graph.seeds import decide_matches
    from judgeagent.stages.planning import MIN_ENTITY_SIMILARITY, seed_text

    questions = load_benchmark(ROOT / "data" / "medqa-demo").questions
    names = sorted({n for ns in spacy_extractor.extract([seed_text(q) for q in questions]) for n in ns})
    got = {bf16: decide_matches(load_graph(demo_graph, Embedder(bf16=bf16)), names, MIN_ENTITY_SIMILARITY) for bf16 in (False, True)}
    assert got[False] == got[True]
    # Names matched by similarity, not only by their text, are part of it.
    assert any(s < 1.0 for _, s in got[False].values())
