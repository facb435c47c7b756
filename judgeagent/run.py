"""``judgeagent evaluate`` and ``ablate`` as library calls: set up, run, write the run folder.

Everything that can fail on bad setup (model names, keys, endpoints, data) fails before any
model is asked anything, with a one-line error (see :mod:`judgeagent.scaffold`).
"""

from __future__ import annotations

import asyncio
import platform
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from importlib import metadata

from judgeagent.batches import Batch, batch_seed
from judgeagent.config import EvalConfig
from judgeagent.data.benchmark import Benchmark
from judgeagent.interview import ABLATIONS, Setting, answers_from, grade_seeds, interview_batch
from judgeagent.metrics.summary import compute_metrics
from judgeagent.runfolder import RunFolder, settings_json
from judgeagent.scaffold import RunScaffold
from judgeagent.stages.decontaminate import Rewrite, decontaminate
from judgeagent.stages.grading import Answer
from judgeagent.stages.leakage import prime_guard
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


def run_evaluation(cfg: EvalConfig, *, ablation: bool = False, progress: bool = True) -> RunOutcome:
    """Run an interview (or the four ablation settings) and write the run folder."""
    return asyncio.run(_run(cfg, ablation=ablation, progress=progress))


def run_config(cfg: EvalConfig, settings: dict, bench, batches, graph, target, judge) -> dict:
    """config.json: every setting, the graph it used, the models, the package versions."""
    return {
        "settings": settings,
        "eval_config": cfg.replay_json(),  # `judgeagent evaluate --config` re-creates the run from it
        "benchmark": {"name": bench.name, "format": bench.format, "question_type": bench.qtype.value, "n_questions": sum(len(b.questions) for b in batches)},
        "graph": {"dir": str(cfg.graph_dir()), "manifest_hash": graph.manifest.get("input_hash") if graph is not None else None},
        "models": {"target": model_info(target), "judge": model_info(judge)},
        "versions": package_versions(),
        "seed": cfg.seed,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
    }


async def _run(cfg: EvalConfig, *, ablation: bool, progress: bool) -> RunOutcome:
    settings = ABLATIONS if ablation else (Setting.from_config(cfg),)
    identity = settings_json(cfg, settings)
    run = RunScaffold.open(cfg, settings, identity, name=cfg.target, kind="-ablation" if ablation else "", progress=progress)
    done = {(r["setting"], r["batch_id"]): r for r in run.folder.read_records()}
    async with run.connected() as models:
        todo = [(s, b) for s in settings for b in run.batches if (s.name, b.id) not in done]
        graph, plans = run.graph_and_plans(todo)
        run.folder.write_json("config.json", run_config(cfg, identity, run.bench, run.batches, graph, run.target, run.judge))
        embedder = run.embedding_queue(graph)
        with run.timed("prime_s"):
            gates = run.gates(graph, embedder, done.values())
            # The seed-side texts both checks compare with are known now: embedded in one pass
            # each, not on the batches' critical paths.
            prime_guard(embedder, [q for b in run.batches if any((s.name, b.id) not in done for s in settings) for q in b.questions])
        work = InterviewWork(cfg, run.bench, models, settings, done, plans, gates, embedder, run.folder)
        with run.timed("interview_s"):
            await run.run_batches(work)
        if run.complete and cfg.summary:
            with run.timed("summary_s"):
                await write_summary(models, run.folder, settings[0])
        usage = run.llm_usage()
    records = run.folder.read_records()
    metrics = metrics_by_setting(records, settings, cfg, usage=usage, complete=run.complete, n_batches=len(run.batches), timings=run.timings)
    write_outputs(run.folder, metrics, settings, ablation=ablation, report=cfg.report)
    run.raise_if_stopped(len(records))
    return RunOutcome(run.folder, metrics, run.complete, run.stopped, run.timings)


@dataclass
class InterviewWork:
    """One batch's work in a run: rewrite its seeds if asked, grade them once, and interview
    them under every setting still to do. Each finished setting is one record, written at once."""

    cfg: EvalConfig
    bench: Benchmark
    models: Models
    settings: tuple[Setting, ...]
    done: dict  # (setting name, batch id) → finished record
    plans: dict  # (setting name, batch id) → plan_batch()
    gates: dict  # setting name → QualityGate
    embedder: object
    folder: RunFolder

    async def __call__(self, b: Batch) -> None:
        todo = [s for s in self.settings if (s.name, b.id) not in self.done]
        if not todo:
            return
        b, rewrites = await self.decontaminated(b)
        seed_answers = await self.seed_answers(b)
        for s in todo:
            rec = await interview_batch(
                self.models, self.bench, b, self.plans[(s.name, b.id)], self.cfg, s, seed_answers,
                gate=self.gates.get(s.name), embedder=self.embedder,
            )
            if rewrites is not None:
                rec["decontamination"] = [w.to_dict() for w in rewrites]
            self.folder.append_record(rec)
            self.done[(s.name, b.id)] = rec

    async def decontaminated(self, b: Batch) -> tuple[Batch, list[Rewrite] | None]:
        """With ``--decontaminate``, the batch with its seeds rewritten, and the rewrites (kept
        in the record beside the originals). Journaled like every request, so a rerun
        replays the same rewrites for free."""
        if not self.cfg.decontaminate:
            return b, None
        doc_id = b.questions[0].doc_id
        contexts = {doc_id: b.context} if b.context and doc_id else None
        seed = batch_seed(self.cfg.seed, b.id, "decontaminate")
        rewrites = await decontaminate(self.models, b.questions, self.bench.qtype, self.cfg.decontaminate, seed=seed, contexts=contexts)
        return replace(b, questions=[w.question for w in rewrites]), rewrites

    async def seed_answers(self, b: Batch) -> list[Answer]:
        """Stage 1, asked once per batch: every setting of an ablation (and a resumed one)
        starts from the same seed answers."""
        prior = next((r for (_, bid), r in self.done.items() if bid == b.id), None)
        return answers_from(prior) if prior else await grade_seeds(self.models, self.bench, b)


async def write_summary(models: Models, folder: RunFolder, setting: Setting) -> None:
    """summary.json: the judge's closing interview summary over the main setting's records."""
    from judgeagent.report.summary import summarize_interview

    recs = [r for r in folder.read_records() if r["setting"] == setting.name]
    folder.write_json("summary.json", await summarize_interview(models, recs))


def metrics_by_setting(records: list[dict], settings, cfg: EvalConfig, *, usage: dict, complete: bool, n_batches: int, timings: dict) -> dict:
    """Each setting's metrics.json figures, from its records alone, with this session's usage and timings."""
    metrics = {}
    for s in settings:
        recs = [r for r in records if r["setting"] == s.name]
        m = compute_metrics(recs, eval_every_round=cfg.eval_every_round, bootstrap=cfg.bootstrap, seed=cfg.seed)
        m["llm_usage"] = usage
        m["complete"] = complete and len(recs) == n_batches
        m["timings"] = {k: round(v, 3) for k, v in timings.items()}
        metrics[s.name] = m
    return metrics


def write_outputs(folder: RunFolder, metrics: dict, settings, *, ablation: bool, report: bool) -> None:
    """metrics.json (the main setting's), ablation.json for an ablation, and the reports."""
    if ablation:
        folder.write_json("ablation.json", {"settings": [s.name for s in settings], "metrics": metrics})
    folder.write_json("metrics.json", metrics[settings[0].name] | ({"ablation": "see ablation.json"} if ablation else {}))
    if report:
        from judgeagent.report import write_reports

        write_reports(folder.path)


def model_info(spec) -> dict:
    return {"name": spec.name, "base_url": spec.base_url, "model": spec.model}
