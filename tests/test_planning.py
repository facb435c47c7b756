"""Plans made up front in blocks of batches (judgeagent.stages.planning)."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from conftest import MEDQA_DEMO

from judgeagent.batches import make_batches
from judgeagent.data import load_benchmark
from judgeagent.graph import load_graph
from judgeagent.stages import planning
from judgeagent.stages.planning import Setting, plan_batches

CFG = SimpleNamespace(hops=2, rounds=2, seed=0)
FULL, NO_GRAPH, NO_EXTENSION = Setting("full"), Setting("no graph", no_graph=True), Setting("no extension", no_extension=True)


class CountingExtractor:
    """The real extractor, counting its passes and the texts each was given."""

    def __init__(self, inner):
        self.inner, self.passes = inner, []

    def extract(self, texts, progress=None):
        self.passes.append(list(texts))
        return self.inner.extract(texts, progress)


@pytest.fixture(scope="module")
def demo(demo_graph):
    return load_graph(demo_graph), make_batches(load_benchmark(MEDQA_DEMO), 3)


@pytest.mark.slow
def test_a_resumed_run_plans_its_batches_in_the_same_blocks_as_an_uninterrupted_one(demo, spacy_extractor, monkeypatch):
    graph, batches = demo
    monkeypatch.setattr(planning, "PLAN_BLOCK", 2)
    counting = CountingExtractor(spacy_extractor)
    full = plan_batches(graph, counting, batches, [(FULL, b) for b in batches], CFG)
    assert len(counting.passes) == (len(batches) + 1) // 2  # one spaCy pass per block of two batches
    assert [len(p) for p in counting.passes[:2]] == [6, 6]  # three questions a batch
    assert all(p.path is not None and p.path.steps for p in full.values())
    assert sum(p.start_entity is not None for p in full.values()) >= len(batches) - 1

    left = [batches[3], batches[-1]]  # what a resumed run still has to do
    counting.passes.clear()
    resumed = plan_batches(graph, counting, batches, [(FULL, b) for b in left], CFG)
    assert resumed == {("full", b.id): full[("full", b.id)] for b in left}
    # Batch 3 is planned with batch 2, its block's other member, as in the uninterrupted run.
    assert counting.passes[0] == [planning.seed_text(q) for b in batches[2:4] for q in b.questions]
    assert len(counting.passes) == 2


def test_settings_without_the_seeds_graph_need_no_extractor(demo):
    graph, batches = demo
    plans = plan_batches(graph, None, batches, [(s, b) for s in (NO_GRAPH, NO_EXTENSION) for b in batches[:2]], CFG)
    assert [plans[("no extension", b.id)] for b in batches[:2]] == [planning.NO_PLAN] * 2
    random_paths = [plans[("no graph", b.id)] for b in batches[:2]]
    assert all(p.start_entity is None and p.matched == () and p.path is not None and len(p.path.steps) == 3 for p in random_paths)
    assert plan_batches(None, None, batches, [(FULL, batches[0])], CFG) == {("full", batches[0].id): planning.NO_PLAN}
