"""The contamination probe (the JudgeAgent paper, Appendix E.1): does the target do better on
the published seed questions than on new questions about the same knowledge?

For every batch of seed questions:
1. the target answers the seeds (stage 1, as in an interview);
2. a knowledge path is planned from the seeds' entities (the full method's plan_batch), and the
   judge writes one new question per seed from successive windows of it, at the seed's
   difficulty label — or at "medium" when the benchmark has no labels, the level an
   unlabeled seed counts as in the difficulty controller;
3. the target answers the new questions in the same form (one prompt per batch; reading
   questions one at a time, each with its own passage), and they are graded.

gap = acc_seed − acc_generated, in percentage points, with a bootstrap interval that resamples
the two groups independently (they are different questions, not pairs). A large positive gap
suggests the seeds, not the knowledge, were learned. Generated questions are also harder to
answer for reasons other than contamination (new wording, judge-written distractors), so a
small gap is the meaningful null, not exactly zero.

Everything lands in a run folder like an interview's: config.json, records.jsonl (one line per
probed batch), journal.sqlite (so rerunning the command resumes it) and contamination.json.
"""

from __future__ import annotations

import asyncio
import random
from collections import Counter
from dataclasses import asdict, replace
from typing import Sequence

from judgeagent.config import EvalConfig
from judgeagent.data.benchmark import Benchmark
from judgeagent.errors import BudgetExceeded
from judgeagent.interview import DOMAINS, record_head, Batch, Setting, batch_seed, data_name, grade_seeds, plan_batch, run_batches, settings_json
from judgeagent.metrics.stats import unpaired_gap_ci
from judgeagent.graph.embed_queue import EmbeddingQueue
from judgeagent.run import ensure_graph, make_gates, preflight, prepare, run_config
from judgeagent.runfolder import RunFolder
from judgeagent.stages.extension import generate_question, path_text
from judgeagent.stages.gate import gate_summary
from judgeagent.stages.grading import ask_batch
from judgeagent.stages.models import Models

PROBE = Setting("full")  # the path is planned as in a full interview: from the seeds' entities
UNLABELED = "unlabeled"
LEVEL = 0.95


def _acc(flags: Sequence[bool]) -> float | None:
    return round(100.0 * sum(map(bool, flags)) / len(flags), 4) if flags else None


def _gap_figures(seed_flags: Sequence[bool], gen_flags: Sequence[bool], *, seed: int, n_resamples: int) -> dict:
    acc_s, acc_g = _acc(seed_flags), _acc(gen_flags)
    ci = unpaired_gap_ci(seed_flags, gen_flags, n_resamples=n_resamples, seed=seed, level=LEVEL)
    return {
        "n_seed": len(seed_flags),
        "n_generated": len(gen_flags),
        "acc_seed": acc_s,
        "acc_generated": acc_g,
        "gap": round(acc_s - acc_g, 4) if acc_s is not None and acc_g is not None else None,
        "gap_ci": list(ci) if ci is not None else None,
    }


def contamination_metrics(
    seed_flags: Sequence[bool],
    gen_flags: Sequence[bool],
    seed_labels: Sequence[str | None],
    gen_labels: Sequence[str | None],
    *,
    seed: int = 0,
    n_resamples: int = 2000,
) -> dict:
    """Accuracies (percent), gap = acc_seed − acc_generated (points) with a 95% bootstrap CI,
    overall and per difficulty label (None → "unlabeled"). A figure with no questions is None."""
    if len(seed_flags) != len(seed_labels) or len(gen_flags) != len(gen_labels):
        raise ValueError("every correctness flag needs a label")
    out = _gap_figures(seed_flags, gen_flags, seed=seed, n_resamples=n_resamples) | {"level": LEVEL, "n_resamples": n_resamples}
    s_labels = [lab or UNLABELED for lab in seed_labels]
    g_labels = [lab or UNLABELED for lab in gen_labels]
    out["by_difficulty"] = {
        label: _gap_figures(
            [f for f, lab in zip(seed_flags, s_labels) if lab == label],
            [f for f, lab in zip(gen_flags, g_labels) if lab == label],
            seed=seed,
            n_resamples=n_resamples,
        )
        for label in sorted(set(s_labels) | set(g_labels))
    }
    return out


async def probe_batch(models: Models, bench: Benchmark, batch: Batch, plan: dict, cfg: EvalConfig, gate=None) -> dict:
    """Seed answers and one matched generated question per seed, graded. Returns the record."""
    from judgeagent.graph import KnowledgePath

    seed_answers = await grade_seeds(models, bench, batch)
    path = KnowledgePath.from_dict(plan["path"]) if plan.get("path") else None
    avoid = [q.question for q in batch.questions]
    items: list[dict] = []
    asked = []  # (item, question, source passage)
    for i, seed_q in enumerate(batch.questions):
        level = seed_q.difficulty or "medium"
        window = path.window(i, cfg.hops) if path else None
        item: dict = {"seed_id": seed_q.id, "seed_difficulty": seed_q.difficulty, "level": level,
                      "path": window.to_dict() if window else None, "question": None, "answer": None, "skipped": None}
        items.append(item)
        if not window or not window.steps:
            item["skipped"] = "no knowledge path"
            continue
        source = path_text(window.texts, window.entities)
        rng = random.Random(batch_seed(cfg.seed, batch.id, "contamination", i))
        gen = await generate_question(
            models, bench.qtype, level, source, qid=f"{batch.id}-c{i + 1}", rng=rng, domain=DOMAINS.get(bench.format, "general"), avoid=avoid,
            # The same quality gate as an interview: an unsound question would widen the gap by itself.
            gate=gate, path_texts=list(dict.fromkeys(window.texts)), tries=cfg.generation_tries,
        )
        item["generation_attempts"] = gen.attempts
        item["gate"] = gen.verdict.to_dict() if gen.verdict is not None else None
        if gen.question is None:
            item["skipped"] = gen.skipped
            continue
        avoid.append(gen.question.question)
        item["question"] = asdict(gen.question)
        asked.append((item, gen.question, source))

    if bench.qtype.shows_context:
        # Each reading question needs its own passage, so they cannot share one prompt.
        answers = [(await ask_batch(models, bench.qtype, [q], stage="contamination", context=src))[0] for _, q, src in asked]
    else:
        # One prompt, like the seeds were asked: the two groups differ in the questions only.
        answers = await ask_batch(models, bench.qtype, [q for _, q, _ in asked], stage="contamination") if asked else []
    for (item, _, _), answer in zip(asked, answers):
        item["answer"] = answer.to_dict()

    return record_head(batch, plan, seed_answers) | {"generated": items}


def summarize(records: list[dict], *, seed: int) -> dict:
    """contamination_metrics over the records, plus counts of generated and skipped questions."""
    seed_flags, seed_labels, gen_flags, gen_labels = [], [], [], []
    skipped: Counter = Counter()
    for rec in records:
        seed_flags += [a["correct"] for a in rec["seed_answers"]]
        seed_labels += [q["difficulty"] for q in rec["seed"]]
        for item in rec["generated"]:
            if item["answer"] is None:
                skipped[item["skipped"] or "not asked"] += 1
                continue
            gen_flags.append(item["answer"]["correct"])
            # Grouped with the seed it was matched to, so an unlabeled benchmark stays one group.
            gen_labels.append(item["seed_difficulty"])
    m = contamination_metrics(seed_flags, gen_flags, seed_labels, gen_labels, seed=seed)
    gate = gate_summary([item for rec in records for item in rec["generated"]])
    return m | {"generated": len(gen_flags), "skipped": sum(skipped.values()), "skipped_reasons": dict(skipped), "gate": gate}


def run_contamination(cfg: EvalConfig, *, console=None) -> dict:
    """Run the probe and write contamination.json into the run folder; returns its content
    (with "folder" set). ``console``: a rich Console for progress, or None for a quiet run."""
    return asyncio.run(_run(cfg, console))


async def _run(cfg: EvalConfig, console) -> dict:
    from judgeagent.llm import LLMClient

    # One generated question per seed, from successive path windows: a path as long as an
    # interview with batch_size rounds.
    cfg = replace(cfg, rounds=cfg.batch_size)
    target, judge, bench, batches = prepare(cfg)

    sj = settings_json(cfg, (PROBE,)) | {"probe": "contamination"}
    folder = RunFolder(cfg.resume) if cfg.resume else RunFolder.for_settings(sj, target=f"contamination-{cfg.target}", data=data_name(cfg), out=cfg.out)
    done = {r["batch_id"] for r in folder.read_records()}
    stopped = None
    async with LLMClient.from_config(cfg.llm, folder.journal_path) as client:
        await preflight(client, target, judge)
        graph = ensure_graph(cfg, bench, progress=console is not None)
        from judgeagent.graph import SpacyExtractor

        extractor = SpacyExtractor()
        plans = {b.id: plan_batch(graph, extractor, b, cfg, PROBE) for b in batches if b.id not in done}
        folder.write_json("config.json", run_config(cfg, sj, bench, batches, graph, target, judge))
        models = Models(client, target, judge, seed=cfg.seed)
        gate = make_gates(cfg, (PROBE,), bench, models, EmbeddingQueue(graph.embedder), []).get(PROBE.name)

        async def work(b: Batch) -> None:
            if b.id not in done:
                folder.append_record(await probe_batch(models, bench, b, plans[b.id], cfg, gate))

        try:
            await _with_progress(batches, work, cfg.concurrency, console)
        except BudgetExceeded as e:
            stopped = str(e)
        usage = client.usage.summary()

    records = sorted(folder.read_records(), key=lambda r: r["batch_index"])
    result = {
        "target": cfg.target,
        "judge": cfg.judge,
        "data": data_name(cfg),
        **summarize(records, seed=cfg.seed),
        "n_batches": len(records),
        "complete": stopped is None and len(records) == len(batches),
        "llm_usage": usage,
    }
    folder.write_json("contamination.json", result)
    if stopped:
        raise BudgetExceeded(f"{stopped}; {len(records)} batch records saved in {folder.path} (rerun the same command with a larger budget to continue)")
    return result | {"folder": str(folder.path)}


async def _with_progress(batches: list[Batch], work, concurrency: int, console) -> None:
    if console is None:
        await run_batches(batches, work, concurrency)
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("[bold]contamination probe"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), console=console) as bar:
        task = bar.add_task("batches", total=len(batches))
        await run_batches(batches, work, concurrency, on_done=lambda _b: bar.advance(task))
