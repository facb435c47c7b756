"""One interview run, from seed questions to validated feedback (method.md §2–§4).

Reading order:
1. ``make_batches``   cut the seed questions into batches (RMC: one article per batch);
2. ``plan_batch``     graph work, done up front: seed entities → graph nodes → one knowledge
                      path per batch, long enough for every round's window;
3. ``interview_batch`` the three stages for one batch: grade the seeds, extend round by round
                      at the controller's difficulty, then feedback and the re-ask;
4. ``run_interview``  batches run concurrently; every finished batch is one line of
                      records.jsonl, so a rerun of the same command skips it.
"""

from __future__ import annotations

import asyncio
import random
import zlib
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Callable

from judgeagent.config import EvalConfig
from judgeagent.data.benchmark import Benchmark, Question, QuestionType
from judgeagent.metrics.difficulty import DifficultyController
from judgeagent.stages.controls import placebo_suggestion
from judgeagent.stages.extension import generate_question, path_text
from judgeagent.stages.feedback import RecordItem, evaluate_batch
from judgeagent.stages.gate import balanced_position
from judgeagent.stages.grading import Answer, ask_batch
from judgeagent.stages.leakage import guard_suggestions
from judgeagent.stages.models import Models

DOMAINS = {"medqa": "medical", "multihop": "news", "quality": "reading comprehension", "generic": "general knowledge"}
MIN_ENTITY_SIMILARITY = 0.5


@dataclass
class Batch:
    index: int
    id: str
    questions: list[Question]
    context: str | None = None  # the article, for reading comprehension


@dataclass(frozen=True)
class Setting:
    """Which modules are on. ``evaluate`` runs one; ``ablate`` runs four on the same seed answers."""

    name: str = "full"
    no_graph: bool = False
    fixed_difficulty: str | None = None
    no_extension: bool = False

    @classmethod
    def from_config(cls, cfg: EvalConfig) -> "Setting":
        return cls("full", cfg.no_graph, cfg.fixed_difficulty, cfg.no_extension)


ABLATIONS = (
    Setting("full"),
    Setting("no graph", no_graph=True),
    Setting("no adaptive difficulty", fixed_difficulty="medium"),
    Setting("no extension", no_extension=True),
)


def make_batches(bench: Benchmark, batch_size: int, limit: int | None = None) -> list[Batch]:
    questions = bench.questions[:limit] if limit else list(bench.questions)
    groups: list[list[Question]] = []
    if bench.qtype is QuestionType.RMC:
        by_doc: dict[str, list[Question]] = {}
        for q in questions:
            by_doc.setdefault(q.doc_id or "", []).append(q)
        # One batch holds one article's questions; a long question list is split so a batch
        # never exceeds batch_size by much more than one article allows.
        for qs in by_doc.values():
            groups.extend(qs[i : i + batch_size] for i in range(0, len(qs), batch_size))
    else:
        groups = [questions[i : i + batch_size] for i in range(0, len(questions), batch_size)]
    batches = []
    for i, qs in enumerate(groups):
        context = bench.document_text(qs[0].doc_id) if bench.qtype is QuestionType.RMC and qs[0].doc_id else None
        batches.append(Batch(i, f"b{i:04d}", qs, context))
    return batches


def batch_seed(seed: int, batch_id: str, *parts: object) -> int:
    """A stable per-batch seed (Python's hash() is salted per process)."""
    return zlib.crc32("|".join(map(str, (seed, batch_id, *parts))).encode())


def batch_text(batch: Batch) -> str:
    parts = []
    for q in batch.questions:
        parts.append(q.question)
        parts.extend((q.options or {}).values())
    return "\n".join(parts)


def plan_batch(graph, extractor, batch: Batch, cfg: EvalConfig, setting: Setting) -> dict:
    """Seed entities, their graph matches and the batch's knowledge path (JSON-ready)."""
    steps = cfg.hops + cfg.rounds - 1
    seed = batch_seed(cfg.seed, batch.id, "path")
    if setting.no_extension:
        return {"matched": [], "start_entity": None, "path": None}
    if setting.no_graph:
        return {"matched": [], "start_entity": None, "path": graph.random_path(steps, seed=seed).to_dict()}
    texts = [q.question + " " + " ".join((q.options or {}).values()) for q in batch.questions]
    names = sorted({n for ents in extractor.extract(texts) for n in ents})
    matches = graph.match_entities(names, min_sim=MIN_ENTITY_SIMILARITY) if names else []
    counts = Counter(entity for _, entity, _ in matches)
    best_sim: dict[str, float] = {}
    for _, entity, sim in matches:
        best_sim[entity] = max(sim, best_sim.get(entity, 0.0))
    # Rank nodes by how often the batch's entities map to them, then by similarity.
    ranked = sorted(counts, key=lambda e: (-counts[e], -best_sim[e], e))
    query = batch_text(batch)
    start = ranked[0] if ranked else None
    if start is None:
        # Nothing matched well enough: start from the entities of the chunk nearest the batch.
        hits = graph.search_chunks(query, 1)
        ents = graph.chunk_entities(hits[0][0]) if hits else []
        start = ents[0] if ents else None
    path = graph.sample_path(start, steps, seed=seed, query_text=query) if start else graph.random_path(steps, seed=seed)
    return {
        "matched": [{"query": q, "entity": e, "similarity": round(float(s), 4)} for q, e, s in matches],
        "start_entity": start,
        "path": path.to_dict(),
    }


def _item(kind: str, q: Question, a: Answer) -> RecordItem:
    return RecordItem(kind, q.question, q.options, q.answer if not q.options else f"{q.answer}. {q.answer_text}", a.reply, a.correct, q.difficulty)


async def grade_seeds(models: Models, bench: Benchmark, batch: Batch) -> list[Answer]:
    return await ask_batch(models, bench.qtype, batch.questions, stage="grading", context=batch.context)


async def interview_batch(
    models: Models,
    bench: Benchmark,
    batch: Batch,
    plan: dict,
    cfg: EvalConfig,
    setting: Setting,
    seed_answers: list[Answer],
    *,
    gate=None,
    embedder=None,
) -> dict:
    """Stages 2 and 3 for one batch, given its stage-1 answers. Returns the record.

    ``gate`` (a run-wide QualityGate) checks every generated question; ``embedder`` lets
    the leakage guard compare suggestions with the answers by meaning, not only by text.
    """
    from judgeagent.graph import KnowledgePath

    ctl = DifficultyController(cfg.difficulty)
    for q, a in zip(batch.questions, seed_answers):
        ctl.update(q.difficulty, a.correct)
    items = [_item("seed", q, a) for q, a in zip(batch.questions, seed_answers)]
    rounds: list[dict] = []
    validations: list[dict] = []
    n_rounds = 0 if setting.no_extension else cfg.rounds
    path = KnowledgePath.from_dict(plan["path"]) if plan.get("path") else None
    avoid = [q.question for q in batch.questions]

    async def validate(after_round: int) -> None:
        evaluation, error = await evaluate_batch(models, items, stage="feedback")
        all_right = all(a.correct for a in seed_answers)
        reanswers = seed_answers
        reasked = False
        leak = controls = None
        if evaluation and (not all_right or cfg.reask_correct):
            check = await guard_suggestions(
                models, evaluation["suggestions"], batch.questions, embedder=embedder, threshold=cfg.leak_threshold
            )
            leak = check.to_dict()
            reask = ask_batch(
                models, bench.qtype, batch.questions, stage="validation", context=batch.context, suggestions=check.suggestions
            )
            if cfg.controls:
                # Independent of each other: asked at once, so the controls add no wait to the batch.
                control_seed = batch_seed(cfg.seed, batch.id, "placebo", after_round)
                reanswers, controls = await asyncio.gather(reask, ask_controls(models, bench, batch, check.suggestions, seed=control_seed))
            else:
                reanswers = await reask
            reasked = True
        validations.append(
            {
                "after_round": after_round,
                "evaluation": evaluation,
                "evaluation_error": error,
                "reasked": reasked,
                "leak": leak,
                "reanswers": [a.to_dict() for a in reanswers],
                "controls": controls,
            }
        )

    if cfg.eval_every_round:
        await validate(0)
    for r in range(n_rounds):
        level = setting.fixed_difficulty or ctl.level
        window = path.window(r, cfg.hops) if path else None
        rec: dict = {"round": r + 1, "level": level, "path": window.to_dict() if window else None}
        if not window or not window.steps:
            rec.update(skipped="no knowledge path", question=None, answer=None, score_after=None)
            rounds.append(rec)
            continue
        source = path_text(window.texts, window.entities)
        rng = random.Random(batch_seed(cfg.seed, batch.id, "options", r))
        gen = await generate_question(
            models, bench.qtype, level, source, qid=f"{batch.id}-r{r + 1}", rng=rng, domain=DOMAINS.get(bench.format, "general"), avoid=avoid,
            gate=gate, path_texts=list(dict.fromkeys(window.texts)), tries=cfg.generation_tries,
            # Answer letters balanced over each batch's rounds, the same whatever the scheduling.
            position=balanced_position(batch_seed(cfg.seed, batch.id, "letters"), r) if bench.qtype.is_multiple_choice else None,
        )
        rec["generation_attempts"] = gen.attempts
        rec["gate"] = gen.verdict.to_dict() if gen.verdict is not None else None
        if gen.question is None:
            rec.update(skipped=gen.skipped, question=None, answer=None, score_after=None)
            rounds.append(rec)
            continue
        q = gen.question
        avoid.append(q.question)
        context = source if bench.qtype.shows_context else None
        (answer,) = await ask_batch(models, bench.qtype, [q], stage="extension", context=context)
        # A Hard question that one chunk answers is not Hard: it moves the score as Medium.
        counted = "medium" if level == "hard" and gen.verdict is not None and gen.verdict.single_hop else level
        ctl.update(counted, answer.correct)
        items.append(_item("follow-up", q, answer))
        rec.update(skipped=None, question=asdict(q), answer=answer.to_dict(), score_after=round(ctl.score, 4), counted_as=counted)
        rounds.append(rec)
        if cfg.eval_every_round:
            await validate(r + 1)
    if not cfg.eval_every_round:
        await validate(n_rounds)

    return {
        "setting": setting.name,
        **record_head(batch, plan, seed_answers),
        "rounds": rounds,
        "trajectory": [round(s, 4) for s in ctl.history],
        "final_level": ctl.level,
        "validations": validations,
    }


def record_head(batch: Batch, plan: dict, seed_answers: list[Answer]) -> dict:
    """What every batch record starts with: the seeds, their first answers, their graph match."""
    return {
        "batch_id": batch.id,
        "batch_index": batch.index,
        "seed": [asdict(q) for q in batch.questions],
        "seed_answers": [a.to_dict() for a in seed_answers],
        "matched_entities": plan.get("matched", []),
        "start_entity": plan.get("start_entity"),
    }


async def ask_controls(models: Models, bench: Benchmark, batch: Batch, suggestions: str, *, seed: int) -> dict:
    """The two control re-asks: no suggestions (asked afresh) and a placebo of the same length."""
    placebo_text = placebo_suggestion(len(suggestions), seed)
    plain, placebo = await asyncio.gather(
        ask_batch(models, bench.qtype, batch.questions, stage="control-plain", context=batch.context, variant="plain re-ask"),
        ask_batch(models, bench.qtype, batch.questions, stage="control-placebo", context=batch.context, suggestions=placebo_text),
    )
    return {"plain": [a.to_dict() for a in plain], "placebo": [a.to_dict() for a in placebo], "placebo_text": placebo_text}


async def run_batches(
    batches: list[Batch],
    work: Callable[[Batch], "asyncio.Future"],
    concurrency: int,
    on_done: Callable[[Batch], None] | None = None,
) -> None:
    """Run ``work`` for every batch, at most ``concurrency`` at once; the first error cancels the rest."""
    sem = asyncio.Semaphore(max(1, concurrency))

    async def one(b: Batch):
        async with sem:
            await work(b)
        if on_done:
            on_done(b)

    tasks = [asyncio.create_task(one(b)) for b in batches]
    try:
        await asyncio.gather(*tasks)
    finally:
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def answers_from(record: dict) -> list[Answer]:
    return [Answer.from_dict(a) for a in record["seed_answers"]]


def settings_json(cfg: EvalConfig, settings: tuple[Setting, ...]) -> dict:
    """What must match for a rerun to resume a run folder (paths to the outputs excluded)."""
    d = cfg.to_json()
    for k in ("out", "resume"):
        d.pop(k, None)
    d["llm"] = {k: v for k, v in d["llm"].items() if k in ("max_attempts",)}
    d["settings"] = [asdict(s) for s in settings]
    return d


def data_name(cfg: EvalConfig) -> str:
    return Path(cfg.data).resolve().name
