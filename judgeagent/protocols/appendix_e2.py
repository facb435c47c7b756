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

Both ask through the run's journal, so a rerun replays them for free.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import asdict, dataclass, replace

import numpy as np

from judgeagent.batches import batch_seed
from judgeagent.config import EvalConfig
from judgeagent.data.benchmark import Benchmark, Question
from judgeagent.errors import CallFailed, RunInterrupted
from judgeagent.graph import KnowledgePath
from judgeagent.metrics.scores import difference, paper_metrics
from judgeagent.metrics.stats import clustered_bootstrap_ci
from judgeagent.protocols.base import LeakGuard
from judgeagent.stages.controls import placebo_suggestion
from judgeagent.stages.extension import path_text
from judgeagent.stages.grading import ask_batch
from judgeagent.stages.leak_judge import resolve_leak_check
from judgeagent.stages.models import Models


def run_appendix_e2(cfg: EvalConfig, outcome):
    """Both experiments as asked; metrics.json and the reports rewritten with their figures."""
    try:
        return asyncio.run(_run(cfg, outcome))
    except KeyboardInterrupt:
        raise RunInterrupted(
            f"interrupted during the Appendix E.2 experiments; the interview is saved in {outcome.folder.path} "
            "and finished requests are journaled: rerun the same command to continue"
        ) from None


async def settled(work, batch_id: str):
    """``work``'s result, or a note of the call that brought no answer: that batch is left out
    of the figures (a rerun retries it), the others go on, as in the interview itself."""
    try:
        return await work
    except CallFailed as e:
        return {"batch_id": batch_id, "incomplete": str(e)}


async def _run(cfg: EvalConfig, outcome):
    from judgeagent.graph.embed import shared_embedder
    from judgeagent.llm import LLMClient
    from judgeagent.scaffold import prepare

    folder = outcome.folder
    records = sorted((r for r in folder.read_records() if r.get("setting", "full") == "full"), key=lambda r: r["batch_index"])
    target, judge, bench, _ = prepare(cfg)
    details: dict = {}
    async with LLMClient.from_config(cfg.llm, folder.journal_path) as client:
        models = Models(client, target, judge, seed=cfg.seed)
        embedder = shared_embedder()
        guard = LeakGuard(models, embedder, cfg.leak_threshold, resolve_leak_check(cfg.leak_check, judge))
        if cfg.reask_extended:
            done = await asyncio.gather(*(settled(reask_followups(models, bench, guard, r), r["batch_id"]) for r in records))
            details["reask_extended"] = [x if isinstance(x, dict) else asdict(x) for x in done]
        if cfg.transfer:
            details["transfer"] = await transfer(models, bench, guard, embedder, records, cfg)
        usage = client.usage.summary()
    folder.write_json("appendix_e2.json", details)
    metrics = dict(outcome.metrics["full"])
    if cfg.reask_extended:
        metrics["reask_extended"] = reask_extended_metrics(details["reask_extended"], metrics)
    if cfg.transfer:
        metrics["transfer"] = transfer_metrics(details["transfer"], bootstrap=cfg.bootstrap, seed=cfg.seed)
    metrics["llm_usage"] = {**metrics.get("llm_usage", {}), "appendix_e2": usage}
    folder.write_json("metrics.json", metrics)
    if cfg.report:
        from judgeagent.report import write_reports

        write_reports(folder.path)
    return replace(outcome, metrics={**outcome.metrics, "full": metrics})


# ----------------------------------------------------------------------------- re-ask extended
@dataclass
class FollowUpReask:
    batch_id: str
    suggestions: str | None
    leak: dict | None
    before: list[bool]
    after: list[dict]  # grading.Answer dicts, one per follow-up


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
    answers = []
    for q, _, path in followups:
        context = None
        if bench.qtype.shows_context and path:
            p = KnowledgePath.from_dict(path)
            context = path_text(p.texts, p.entities)
        (a,) = await ask_batch(models, bench.qtype, [q], stage="reask-extended", context=context, suggestions=check.suggestions)
        answers.append(a.to_dict())
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


async def transfer(models: Models, bench: Benchmark, guard: LeakGuard, embedder, records: list[dict], cfg: EvalConfig) -> dict:
    by_id = {r["batch_id"]: r for r in records}
    if len(by_id) < 2:
        return {"error": "needs at least 2 batches (lower --batch-size or raise --limit)", "source": sorted(by_id), "held_out": [], "batches": []}
    source, held_out = split_batches(list(by_id), cfg.seed)
    with_advice = {sid: by_id[sid] for sid in source if suggestions_of(by_id[sid])}
    batches = await asyncio.gather(*(settled(transfer_one(models, bench, guard, embedder, by_id[hid], with_advice, cfg), hid) for hid in held_out))
    return {"source": source, "held_out": held_out, "batches": [b for b in batches if b is not None]}


async def transfer_one(models: Models, bench: Benchmark, guard: LeakGuard, embedder, held: dict, sources: dict[str, dict], cfg: EvalConfig) -> dict | None:
    """One held-out batch asked with its nearest source batch's suggestions and with a placebo."""
    if not sources:
        return None
    ents = {sid: record_entities(r) for sid, r in sources.items()}
    similarity = None if any(record_entities(held) & e for e in ents.values()) else chunk_similarity(embedder, held, sources)
    sid, why = nearest_source(record_entities(held), ents, similarity)
    questions = [Question(**q) for q in held["seed"]]
    check = await guard.check(suggestions_of(sources[sid]) or "", questions)
    context = bench.document_text(questions[0].doc_id) if bench.qtype.shows_context and questions[0].doc_id else None
    placebo = placebo_suggestion(len(check.suggestions), batch_seed(cfg.seed, held["batch_id"], "transfer-placebo"))
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
