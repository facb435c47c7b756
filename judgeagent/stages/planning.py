"""Each batch's plan, made before any model is asked: seed entities → graph nodes → one
knowledge path, long enough for every round's window (docs/concepts/method.md §2).

Reading order:
1. ``seed_block``   the model work for a block of consecutive batches, in one pass each:
                    spaCy over the block's questions, MiniLM over its batch texts and over the
                    names that no node matches by its text; then each batch's start entity.
2. ``plan_batches`` the blocks the batches to do fall in, and a plan per (setting, batch).

Why blocks: asked one batch at a time, the models' per-call costs took 40 s to plan
MedQA's 1,273 questions, a third of the whole command. Why fixed blocks
(``Batch.index // PLAN_BLOCK``), not "the batches still to do": a model's output differs in
the last digits with what it is batched with, so a resumed run must plan each batch in the
same company as an uninterrupted one to take the same paths. A resumed run plans at most a
block's worth of finished batches again.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TypedDict

import numpy as np

from judgeagent.batches import Batch, batch_seed, batch_text
from judgeagent.data.benchmark import Question
from judgeagent.graph import KnowledgePath
from judgeagent.graph.seeds import SeedMatch, choose_start, decide_matches
from judgeagent.records import MatchedEntity, QuestionRecord

MIN_ENTITY_SIMILARITY = 0.5
PLAN_BLOCK = 16  # batches whose model work is done together


@dataclass(frozen=True)
class Setting:
    """Which modules are on, and under what name a plan is kept: a protocol plans one setting
    per arm (the JudgeAgent interview's ablation runs four on the same seed answers)."""

    name: str = "full"
    no_graph: bool = False
    fixed_difficulty: str | None = None
    no_extension: bool = False


@dataclass(frozen=True)
class Plan:
    """One batch's plan: the graph entities its seeds matched, where its path starts, and the
    path (None: the batch is not extended, so it needs none)."""

    matched: tuple[MatchedEntity, ...] = ()
    start_entity: str | None = None
    path: KnowledgePath | None = None


NO_PLAN = Plan()


class Head(TypedDict):
    """What every record of seed questions starts with: the seeds and their graph match."""

    batch_id: str
    batch_index: int
    seed: list[QuestionRecord]
    matched_entities: list[MatchedEntity]
    start_entity: str | None


def record_head(batch: Batch, plan: Plan) -> Head:
    """The seeds of a unit and what they matched in the graph, as its record starts."""
    return {
        "batch_id": batch.id,
        "batch_index": batch.index,
        "seed": [QuestionRecord.of(q) for q in batch.questions],
        "matched_entities": list(plan.matched),
        "start_entity": plan.start_entity,
    }


@dataclass(frozen=True)
class PathLength:
    """How long each batch's knowledge path is: enough for ``rounds`` windows of ``hops``
    steps (window r starts one hop after window r−1), drawn with the run's ``seed``."""

    hops: int
    rounds: int
    seed: int


@dataclass
class SeedPlan:
    """What the seeds of one batch point to in the graph."""

    matches: list[SeedMatch]
    start: str | None  # the entity the path starts from (None: a random path)
    query: np.ndarray  # the batch text's vector (the chunks' encoder): paths stay close to it
    text: str | None = None  # the batch text: a lazy graph's lexical stage searches with it


def seed_text(q: Question) -> str:
    return q.question + " " + " ".join((q.options or {}).values())


def seed_block(graph, extractor, block: Sequence[Batch]) -> dict[str, SeedPlan]:
    """Each batch's :class:`SeedPlan`, by batch id, with one pass of each model for the block."""
    texts = [[seed_text(q) for q in b.questions] for b in block]
    flat_names = extractor.extract([t for ts in texts for t in ts])
    batch_texts = [batch_text(b) for b in block]
    queries = graph.embed(batch_texts)
    # Start entities are ranked by their name vectors' cosine to the batch text: in the names' encoder.
    name_queries = queries if graph.shared_encoder else graph.embed(batch_texts, "entities")
    # Every name of the block resolved at once; each batch then keeps those of its own seeds.
    names = sorted({n for ns in flat_names for n in ns})
    best = decide_matches(graph, names, MIN_ENTITY_SIMILARITY) if names else {}
    out, at = {}, 0
    for b, ts, query, name_query, text in zip(block, texts, queries, name_queries, batch_texts):
        question_names, at = flat_names[at : at + len(ts)], at + len(ts)
        matches, start = choose_start(graph, ts, question_names, name_query, MIN_ENTITY_SIMILARITY, best=best,
                                      chunk_query=query, text=text)
        out[b.id] = SeedPlan(matches, start, query, text)
    return out


def plan_batch(graph, batch: Batch, length: PathLength, setting: Setting, seeds: SeedPlan | None) -> Plan:
    """The batch's plan under ``setting``; ``seeds`` from :func:`seed_block`, needed unless
    the setting has no graph or no extension."""
    steps = length.hops + length.rounds - 1
    seed = batch_seed(length.seed, batch.id, "path")
    if setting.no_extension or graph is None:
        return NO_PLAN
    if setting.no_graph:
        return Plan(path=graph.random_path(steps, seed=seed))
    assert seeds is not None, "a graph setting needs the batch's seed plan"
    start = seeds.start
    path = (graph.sample_path(start, steps, seed=seed, query_vector=seeds.query, query_text=seeds.text) if start
            else graph.random_path(steps, seed=seed))
    named = sorted({(m.query, m.entity, m.similarity) for m in seeds.matches})
    return Plan(tuple(MatchedEntity(query=q, entity=e, similarity=round(float(s), 4)) for q, e, s in named), start, path)


def plan_batches(graph, extractor, batches: Sequence[Batch], todo: Iterable[tuple[Setting, Batch]], length: PathLength) -> dict[tuple[str, str], Plan]:
    """The plan of each (setting, batch) in ``todo``, keyed by (setting name, batch id).

    ``batches`` are all the run's batches: they fix the blocks. ``extractor`` may be None
    when no setting of ``todo`` follows the graph from the seeds.
    """
    todo = list(todo)
    seeded = {b.id for s, b in todo if graph is not None and not (s.no_extension or s.no_graph)}
    blocks: dict[int, list[Batch]] = {}
    for b in batches:
        blocks.setdefault(b.index // PLAN_BLOCK, []).append(b)
    seeds: dict[str, SeedPlan] = {}
    for block in blocks.values():
        if any(b.id in seeded for b in block):
            seeds.update(seed_block(graph, extractor, block))
    return {(s.name, b.id): plan_batch(graph, b, length, s, seeds.get(b.id)) for s, b in todo}
