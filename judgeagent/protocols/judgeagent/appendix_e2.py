"""The JudgeAgent paper's Appendix E.2 experiments, run after the interview on its records.

``--reask-extended``: each batch's follow-up questions are asked again with the batch's
suggestions, guarded against those questions; their ACC1/ACC2/CR/CtE sit beside the seeds'.

``--transfer``: do the suggestions carry over to questions they were not written for? The
batches are split, seeded, into a *source* half and a *held-out* half. Each held-out batch
takes the suggestions of the source batch closest to it in the graph (most shared matched
entities; with none shared, the most similar path chunks), guarded against the held-out
questions, and is asked again with them and with a placebo of the same length. Reported:
the held-out ΔACC = ACC2 − ACC1 with its batch-clustered interval, the placebo's, and the
difference of the two. The held-out batches' own interviews are untouched.

Both ask through the run's journal, so a rerun replays them for free. They are the
protocol's finishing steps: the engine runs them inside the run's client.
"""

from __future__ import annotations

import asyncio
import json
import random
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from judgeagent.batches import batch_seed, together
from judgeagent.data.benchmark import Benchmark, Question
from judgeagent.engine.protocol import LeakGuard
from judgeagent.engine.run import RunContext
from judgeagent.errors import CallFailed
from judgeagent.graph import KnowledgePath
from judgeagent.metrics.scores import difference, paper_metrics
from judgeagent.metrics.stats import clustered_bootstrap_ci
from judgeagent.records import AnswerRecord
from judgeagent.stages.controls import placebo_suggestion
from judgeagent.stages.extension import path_text
from judgeagent.stages.grading import ask_batch
from judgeagent.stages.leak_judge import resolve_leak_check
from judgeagent.stages.models import Models


async def settled(work, batch_id: str):
    """``work``'s result, or a note of the call that brought no answer: that batch is left out
    of the figures (a rerun retries it), the others go on, as in the interview itself."""
    try:
        return await work
    except CallFailed as e:
        return {"batch_id": batch_id, "incomplete": str(e)}


async def run_experiments(ctx: RunContext) -> None:
    """Both experiments as asked, over the interview's main-arm records; appendix_e2.json."""
    from judgeagent.graph.embed import shared_embedder

    opts, models, bench = ctx.options, ctx.models, ctx.bench
    assert models is not None and bench is not None
    records = sorted((r for r in ctx.folder.read_records() if r.get("setting", "full") == "full"), key=lambda r: r["batch_index"])
    details: dict = {}
    # The encoder the experiments were measured with (not the graph's backend): the same
    # leak checks, so the same re-asks, as in runs made before they joined the engine.
    embedder = shared_embedder()
    guard = LeakGuard(models, embedder, opts.leak_threshold, resolve_leak_check(opts.leak_check, models.judge))
    with ctx.timed("appendix_e2_s"):
        if opts.reask_extended:
            done = await asyncio.gather(*(settled(reask_followups(models, bench, guard, r), r["batch_id"]) for r in records))
            details["reask_extended"] = [x if isinstance(x, dict) else asdict(x) for x in done]
        if opts.transfer:
            details["transfer"] = await transfer(models, bench, guard, embedder, records, opts, ctx.cfg.seed)
    ctx.folder.write_json("appendix_e2.json", details)


def figures(ctx: RunContext, seed_metrics: dict) -> dict:
    """The experiments' figures for metrics.json, from appendix_e2.json."""
    path = ctx.folder.path / "appendix_e2.json"
    details = json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}
    out: dict = {}
    if "reask_extended" in details:
        out["reask_extended"] = reask_extended_metrics(details["reask_extended"], seed_metrics)
    if "transfer" in details:
        out["transfer"] = transfer_metrics(details["transfer"], bootstrap=ctx.options.bootstrap, seed=ctx.cfg.seed)
    return out


# ----------------------------------------------------------------------------- re-ask extended
@dataclass
class FollowUpReask:
    batch_id: str
    suggestions: str | None
    leak: dict | None
    before: list[bool]
    after: list[AnswerRecord]  # one per follow-up


def suggestions_of(record: dict) -> str | None:
    """The batch's last suggestions, as re-asked (the guarded text) when they were re-asked."""
    last = (record.get("validations") or [{}])[-1]
    if last.get("leak"):
        return last["leak"]["suggestions"]
    return ((last.get("evaluation") or {}).get("suggestions") or None)


def asked_followups(record: dict) -> list[tuple[Question, dict, dict | None]]:
    """(question, first answer, path) of each follow-up the batch asked."""
    return [(Question(**rd["question"]), rd["answer"], rd.get("path")) for rd in record.get("rounds", []) if rd.get("question") and rd.get("answer")]


async def reask_followups(models: Models, bench: Benchmark, guard: LeakGuard, record: dict) -> FollowUpReask:
    followups = asked_followups(record)
    text = suggestions_of(record)
    if not followups or not text:
        return FollowUpReask(record["batch_id"], text, None, [], [])
    check = await guard.check(text, [q for q, _, _ in followups])

    async def reask(q: Question, path: dict | None) -> AnswerRecord:
        context = None
        if bench.qtype.shows_context and path:
            p = KnowledgePath.from_dict(path)
            context = path_text(p.texts, p.entities)
        (a,) = await ask_batch(models, bench.qtype, [q], stage="reask-extended", context=context, suggestions=check.suggestions)
        return a.to_dict()

    # Independent of each other: asked at once (one wave under --batch-api).
    answers = list(await together(*(reask(q, path) for q, _, path in followups)))
    return FollowUpReask(record["batch_id"], check.suggestions, check.to_dict(), [bool(a["correct"]) for _, a, _ in followups], answers)


def reask_extended_metrics(items: list[dict], seed_metrics: dict) -> dict:
    """The follow-ups' paper metrics, with the seeds' beside them."""
    incomplete = [it["batch_id"] for it in items if "incomplete" in it]
    items = [it for it in items if "incomplete" not in it]
    before = [b for it in items for b in it["before"]]
    after = [bool(a["correct"]) for it in items for a in it["after"]]
    return {
        "followups": paper_metrics(before, after).to_dict(),
        "seeds": {k: seed_metrics.get(k) for k in ("n_questions", "acc1", "acc2", "cr", "cte", "delta_acc")},
        "batches_flagged": sum(1 for it in items if (it.get("leak") or {}).get("flagged")),
        "incomplete_batches": incomplete,
    }


# ----------------------------------------------------------------------------- transfer
def split_batches(batch_ids: list[str], seed: int) -> tuple[list[str], list[str]]:
    """(source, held-out): a seeded shuffle cut in half; the source half takes the odd one."""
    order = sorted(batch_ids)
    random.Random(batch_seed(seed, "transfer", "split")).shuffle(order)
    cut = (len(order) + 1) // 2
    return sorted(order[:cut]), sorted(order[cut:])


def record_entities(record: dict) -> set[str]:
    """The graph entities a batch touches: its seeds' matches and its path's start."""
    out = {m["entity"] for m in record.get("matched_entities") or []}
    return out | ({record["start_entity"]} if record.get("start_entity") else set())


def nearest_source(held: set[str], sources: dict[str, set[str]], similarity: dict[str, float] | None) -> tuple[str, str]:
    """The source batch closest to a held-out one: most shared entities (ties: the first id);
    with none shared, the highest chunk similarity. Returns (batch id, how it was chosen)."""
    shared = {sid: len(held & ents) for sid, ents in sources.items()}
    best = max(sorted(shared), key=lambda sid: shared[sid])
    if shared[best] > 0:
        return best, f"{shared[best]} shared entities"
    assert similarity, "no shared entity and no similarity to fall back on"
    best = max(sorted(similarity), key=lambda sid: similarity[sid])
    return best, f"chunk similarity {similarity[best]:.3f}"


def chunk_similarity(embedder, held: dict, sources: dict[str, dict]) -> dict[str, float]:
    """Cosine of the held-out seeds' text to each source batch's path chunks (MiniLM, normalised)."""
    def text(r: dict) -> str:
        chunks = [t for rd in r.get("rounds", []) if rd.get("path") for t in KnowledgePath.from_dict(rd["path"]).texts]
        return "\n".join(dict.fromkeys(chunks)) or "\n".join(q["question"] for q in r["seed"])

    vecs = np.asarray(embedder.encode(["\n".join(q["question"] for q in held["seed"]), *(text(r) for r in sources.values())]), dtype=float)
    vecs /= np.linalg.norm(vecs, axis=1, keepdims=True) + 1e-12
    return {sid: round(float(vecs[0] @ v), 4) for sid, v in zip(sources, vecs[1:])}


async def transfer(models: Models, bench: Benchmark, guard: LeakGuard, embedder, records: list[dict], opts: Any, seed: int) -> dict:
    by_id = {r["batch_id"]: r for r in records}
    if len(by_id) < 2:
        return {"error": "needs at least 2 batches (lower --batch-size or raise --limit)", "source": sorted(by_id), "held_out": [], "batches": []}
    source, held_out = split_batches(list(by_id), seed)
    with_advice = {sid: by_id[sid] for sid in source if suggestions_of(by_id[sid])}
    batches = await asyncio.gather(*(settled(transfer_one(models, bench, guard, embedder, by_id[hid], with_advice, seed), hid) for hid in held_out))
    return {"source": source, "held_out": held_out, "batches": [b for b in batches if b is not None]}


async def transfer_one(models: Models, bench: Benchmark, guard: LeakGuard, embedder, held: dict, sources: dict[str, dict], seed: int) -> dict | None:
    """One held-out batch asked with its nearest source batch's suggestions and with a placebo."""
    if not sources:
        return None
    ents = {sid: record_entities(r) for sid, r in sources.items()}
    similarity = None if any(record_entities(held) & e for e in ents.values()) else chunk_similarity(embedder, held, sources)
    sid, why = nearest_source(record_entities(held), ents, similarity)
    questions = [Question(**q) for q in held["seed"]]
    check = await guard.check(suggestions_of(sources[sid]) or "", questions)
    context = bench.document_text(questions[0].doc_id) if bench.qtype.shows_context and questions[0].doc_id else None
    placebo = placebo_suggestion(len(check.suggestions), batch_seed(seed, held["batch_id"], "transfer-placebo"))
    after, control = await asyncio.gather(
        ask_batch(models, bench.qtype, questions, stage="transfer", context=context, suggestions=check.suggestions),
        ask_batch(models, bench.qtype, questions, stage="transfer-placebo", context=context, suggestions=placebo),
    )
    return {
        "batch_id": held["batch_id"], "source": sid, "chosen_by": why, "leak": check.to_dict(),
        "before": [bool(a["correct"]) for a in held["seed_answers"]],
        "after": [a.to_dict() for a in after], "placebo": [a.to_dict() for a in control], "placebo_text": placebo,
    }


def transfer_metrics(details: dict, *, bootstrap: int, seed: int) -> dict:
    """Held-out ACC1 → ACC2 and the placebo's, with batch-clustered intervals."""
    if details.get("error"):
        return {"error": details["error"]}
    incomplete = [b["batch_id"] for b in details["batches"] if "incomplete" in b]
    batches = [b for b in details["batches"] if "incomplete" not in b]
    before = [b["before"] for b in batches]
    after = [[bool(a["correct"]) for a in b["after"]] for b in batches]
    placebo = [[bool(a["correct"]) for a in b["placebo"]] for b in batches]
    flat = lambda xs: [x for b in xs for x in b]  # noqa: E731
    ci = lambda a, b: clustered_bootstrap_ci(list(zip(a, b)), n_resamples=bootstrap, seed=seed)["delta_acc"]  # noqa: E731
    m = paper_metrics(flat(before), flat(after)).to_dict()
    acc_placebo = paper_metrics(flat(before), flat(placebo)).acc2
    return {
        **m,
        "n_batches": len(batches),
        "source": details["source"],
        "held_out": details["held_out"],
        "ci_delta_acc": ci(before, after),
        "placebo": {"acc": acc_placebo, "delta_acc": difference(acc_placebo, m["acc1"]), "ci_delta_acc": ci(before, placebo)},
        "suggestions_minus_placebo": {"delta": difference(m["acc2"], acc_placebo), "ci": ci(placebo, after)},
        "ci_method": "batch_bootstrap",
        "incomplete_batches": incomplete,
    }
