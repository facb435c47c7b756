"""``judgeagent evaluate`` and ``ablate`` as library calls: set up, run, write the run folder.

Everything that can fail on bad setup (model names, keys, endpoints, data) fails before any
model is asked anything, with a one-line error.
"""

from __future__ import annotations

import asyncio
import json
import platform
import time
from datetime import datetime, timezone
from dataclasses import dataclass, field, replace
from importlib import metadata
from pathlib import Path
from typing import Callable

from judgeagent.config import EvalConfig
from judgeagent.data import load_benchmark
from judgeagent.errors import BudgetExceeded, ConfigError
from judgeagent.interview import (
    ABLATIONS,
    Batch,
    Setting,
    answers_from,
    batch_seed,
    data_name,
    grade_seeds,
    interview_batch,
    make_batches,
    plan_batch,
    run_batches,
    settings_json,
)
from judgeagent.graph.embed import shared_embedder
from judgeagent.graph.embed_queue import EmbeddingQueue
from judgeagent.llm.usage import journal_usage
from judgeagent.metrics.summary import compute_metrics
from judgeagent.stages.decontaminate import decontaminate
from judgeagent.stages.leakage import prime_guard
from judgeagent.runfolder import RunFolder
from judgeagent.stages.models import Models

VERSIONED = ("judgeagent", "spacy", "sentence-transformers", "faiss-cpu", "openai", "llama-cpp-python", "networkx", "numpy", "torch")


@dataclass
class RunOutcome:
    folder: RunFolder
    metrics: dict  # setting name → metrics
    complete: bool = True
    stopped_reason: str | None = None
    timings: dict = field(default_factory=dict)


def package_versions() -> dict:
    out = {"python": platform.python_version()}
    for name in VERSIONED:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


def check_config(cfg: EvalConfig) -> None:
    for name in ("batch_size", "concurrency"):
        if getattr(cfg, name) < 1:
            raise ConfigError(f"--{name.replace('_', '-')} must be at least 1 (got {getattr(cfg, name)})")
    if cfg.rounds < 0 or cfg.hops < 1:
        raise ConfigError("--rounds must be ≥ 0 and --hops ≥ 1")
    if cfg.fixed_difficulty not in (None, "easy", "medium", "hard"):
        raise ConfigError(f"--fixed-difficulty must be easy, medium or hard (got {cfg.fixed_difficulty!r})")
    if cfg.limit is not None and cfg.limit < 1:
        raise ConfigError("--limit must be at least 1")
    if cfg.decontaminate not in (None, "paraphrase", "modify", "unclarify"):
        raise ConfigError(f"--decontaminate must be paraphrase, modify or unclarify (got {cfg.decontaminate!r})")
    if cfg.generation_tries < 1 or cfg.bootstrap < 100:
        raise ConfigError("--generation-tries must be at least 1 and --bootstrap at least 100")


def ensure_graph(cfg: EvalConfig, bench, progress: bool):
    from judgeagent.graph import build_graph, load_graph

    gdir = cfg.graph_dir()
    if (gdir / "manifest.json").exists():
        return load_graph(gdir)
    return build_graph(bench, cfg.graph_build, gdir, progress=progress)


def run_evaluation(
    cfg: EvalConfig,
    *,
    ablation: bool = False,
    progress: bool = True,
    on_event: Callable[[str], None] | None = None,
) -> RunOutcome:
    """Run an interview (or the four ablation settings) and write the run folder."""
    return asyncio.run(_run(cfg, ablation=ablation, progress=progress, say=on_event or (lambda _m: None)))


def prepare(cfg: EvalConfig):
    """(target, judge, benchmark, batches), after checking everything that needs no model."""
    from judgeagent.llm import load_registry

    check_config(cfg)
    registry = load_registry(cfg.llm.models_file)
    target, judge = registry.resolve(cfg.target), registry.resolve(cfg.judge)
    bench = load_benchmark(cfg.data, chunk_tokens=cfg.graph_build.chunk_tokens, section_chunks=cfg.graph_build.section_chunks)
    batches = make_batches(bench, cfg.batch_size, cfg.limit)
    if not batches:
        raise ConfigError(f"{cfg.data}: no seed questions to ask")
    return target, judge, bench, batches


async def preflight(client, target, judge) -> None:
    """One-line errors for a missing key or an unreachable endpoint, before any work."""
    await client.preflight(target)
    if judge.identity != target.identity:
        await client.preflight(judge)


def run_config(cfg: EvalConfig, settings: dict, bench, batches, graph, target, judge) -> dict:
    """config.json: every setting, the graph it used, the models, the package versions."""
    return {
        "settings": settings,
        "benchmark": {"name": bench.name, "format": bench.format, "question_type": bench.qtype.value, "n_questions": sum(len(b.questions) for b in batches)},
        "graph": {"dir": str(cfg.graph_dir()), "manifest_hash": graph.manifest.get("input_hash") if graph is not None else None},
        "models": {"target": model_info(target), "judge": model_info(judge)},
        "versions": package_versions(),
        "seed": cfg.seed,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }


async def _run(cfg: EvalConfig, *, ablation: bool, progress: bool, say) -> RunOutcome:
    from judgeagent.llm import LLMClient

    settings = ABLATIONS if ablation else (Setting.from_config(cfg),)
    target, judge, bench, batches = prepare(cfg)
    sj = settings_json(cfg, settings)
    folder = RunFolder(cfg.resume) if cfg.resume else RunFolder.for_settings(
        sj, target=cfg.target, data=data_name(cfg), out=cfg.out, kind="-ablation" if ablation else ""
    )
    done = {(r["setting"], r["batch_id"]): r for r in folder.read_records()}
    timings: dict[str, float] = {}

    complete, stopped = True, None
    async with LLMClient.from_config(cfg.llm, folder.journal_path) as client:
        t = time.perf_counter()
        await preflight(client, target, judge)
        timings["preflight_s"] = time.perf_counter() - t

        t = time.perf_counter()
        need_graph = any(not s.no_extension for s in settings) and cfg.rounds > 0
        graph = ensure_graph(cfg, bench, progress) if need_graph else None
        extractor = None
        if graph is not None and any(not s.no_graph and not s.no_extension for s in settings):
            from judgeagent.graph import SpacyExtractor

            extractor = SpacyExtractor()
        plans = {
            (s.name, b.id): plan_batch(graph, extractor, b, cfg, s) if graph is not None else {"matched": [], "start_entity": None, "path": None}
            for s in settings
            for b in batches
            if (s.name, b.id) not in done
        }
        timings["plan_s"] = time.perf_counter() - t

        folder.write_json("config.json", run_config(cfg, sj, bench, batches, graph, target, judge))
        models = Models(client, target, judge, seed=cfg.seed)
        # One queue for the whole run: gate and leakage embeddings from every batch are batched.
        embedder = EmbeddingQueue(graph.embedder if graph is not None else shared_embedder())
        # The seed-side texts both checks compare with are known now: embedded in one pass
        # each, not on the batches' critical paths.
        t = time.perf_counter()
        gates = make_gates(cfg, settings, bench, models, embedder, done.values()) if graph is not None else {}
        prime_guard(embedder, [q for b in batches if any((s.name, b.id) not in done for s in settings) for q in b.questions])
        timings["prime_s"] = time.perf_counter() - t

        async def work(b: Batch) -> None:
            todo = [s for s in settings if (s.name, b.id) not in done]
            if not todo:
                return
            rewrites = None
            if cfg.decontaminate:
                # Journaled like every request, so a rerun replays the same rewrites for free.
                contexts = {b.questions[0].doc_id: b.context} if b.context else None
                rewrites = await decontaminate(
                    models, b.questions, bench.qtype, cfg.decontaminate, seed=batch_seed(cfg.seed, b.id, "decontaminate"), contexts=contexts
                )
                b = replace(b, questions=[w.question for w in rewrites])
            prior = next((r for (sn, bid), r in done.items() if bid == b.id), None)
            seed_answers = answers_from(prior) if prior else await grade_seeds(models, bench, b)
            for s in todo:
                rec = await interview_batch(
                    models, bench, b, plans[(s.name, b.id)], cfg, s, seed_answers, gate=gates.get(s.name), embedder=embedder
                )
                if rewrites is not None:
                    rec["decontamination"] = [w.to_dict() for w in rewrites]
                folder.append_record(rec)
                done[(s.name, b.id)] = rec

        t = time.perf_counter()
        try:
            await _with_progress(batches, work, cfg.concurrency, progress)
        except BudgetExceeded as e:
            complete, stopped = False, str(e)
        timings["interview_s"] = time.perf_counter() - t
        if complete and cfg.summary:
            from judgeagent.report.summary import summarize_interview

            t = time.perf_counter()
            recs = [r for r in folder.read_records() if r["setting"] == settings[0].name]
            folder.write_json("summary.json", await summarize_interview(models, recs))
            timings["summary_s"] = time.perf_counter() - t
        usage = client.usage.summary()
        prices = {m.name: (m.price_in_per_1k, m.price_out_per_1k) for m in (target, judge)}
        usage["run_total"] = journal_usage(client.journal.totals(), prices)

    records = folder.read_records()
    metrics = {}
    for s in settings:
        recs = [r for r in records if r["setting"] == s.name]
        m = compute_metrics(recs, eval_every_round=cfg.eval_every_round, bootstrap=cfg.bootstrap, seed=cfg.seed)
        m["llm_usage"] = usage
        m["complete"] = complete and len(recs) == len(batches)
        m["timings"] = {k: round(v, 3) for k, v in timings.items()}
        metrics[s.name] = m
    if ablation:
        folder.write_json("ablation.json", {"settings": [s.name for s in settings], "metrics": metrics})
    folder.write_json("metrics.json", metrics[settings[0].name] | ({"ablation": "see ablation.json"} if ablation else {}))
    if cfg.report:
        from judgeagent.report import write_reports

        write_reports(folder.path)
    outcome = RunOutcome(folder, metrics, complete, stopped, timings)
    if stopped:
        raise BudgetExceeded(f"{stopped}; {len(records)} batch records saved in {folder.path} (rerun the same command with a larger budget to continue)")
    return outcome


def make_gates(cfg: EvalConfig, settings, bench, models: Models, embedder, done_records) -> dict:
    """One quality gate per setting, primed with the questions a resumed run already accepted."""
    if not cfg.gate:
        return {}
    from judgeagent.data.benchmark import Question
    from judgeagent.stages.gate import GateConfig, QualityGate

    seeds = [q.question for q in bench.questions]
    # Overlap only pays when the judge can answer the early call beside other batches' calls.
    overlap = cfg.gate_overlap and models.judge.concurrency > 1
    gate_cfg = GateConfig(check_hops=cfg.check_hops, seed_similarity=cfg.seed_similarity, overlap=overlap)
    gates = {s.name: QualityGate(models, embedder, seeds, gate_cfg, scope=s.name) for s in settings}
    for gate in gates.values():
        gate.prime()
    for rec in sorted(done_records, key=lambda r: r["batch_index"]):
        for rd in rec["rounds"]:
            if rd.get("question") and rec["setting"] in gates:
                gates[rec["setting"]].accept(Question(**rd["question"]))
    return gates


def model_info(spec) -> dict:
    return {"name": spec.name, "base_url": spec.base_url, "model": spec.model}


async def _with_progress(batches, work, concurrency, progress):
    if not progress:
        await run_batches(batches, work, concurrency)
        return
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(TextColumn("[bold]interview"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn(), transient=False) as bar:
        task = bar.add_task("batches", total=len(batches))
        await run_batches(batches, work, concurrency, on_done=lambda _b: bar.advance(task))


def load_metrics(run_dir: Path) -> dict:
    return json.loads((Path(run_dir) / "metrics.json").read_text())
