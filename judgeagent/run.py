"""``judgeagent evaluate`` and ``ablate`` as library calls: set up, run, write the run folder.

Everything that can fail on bad setup (model names, keys, endpoints, data) fails before any
model is asked anything, with a one-line error (see :mod:`judgeagent.scaffold`, which also
says how a run ends early: incomplete batches, a budget or circuit-breaker stop, Ctrl-C).
"""

from __future__ import annotations

import functools
import platform
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from importlib import metadata

from judgeagent.batches import Batch, batch_seed
from judgeagent.config import EvalConfig
from judgeagent.data.benchmark import Benchmark
from judgeagent.interview import ABLATIONS, Setting, answers_from, grade_seeds, interview_batch
from judgeagent.metrics.summary import compute_metrics, incomplete_summary
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
    """Run an interview (or the four ablation settings) and write the run folder.

    Ctrl-C raises RunInterrupted (the folder stays resumable); see RunScaffold.drive."""
    settings = ABLATIONS if ablation else (Setting.from_config(cfg),)
    identity = settings_json(cfg, settings)
    run = RunScaffold.open(cfg, settings, identity, name=cfg.target, kind="-ablation" if ablation else "", progress=progress,
                           command="ablate" if ablation else "evaluate")
    return run.drive(lambda: _run(run, identity, ablation=ablation))


def run_config(cfg: EvalConfig, settings: dict, bench, batches, graph, target, judge, *, learned: dict | None = None, before: dict | None = None) -> dict:
    """config.json: every setting, the graph it used, the models, the package versions.

    ``learned``: the client's usage summary "models" (what each model showed: reasoning,
    sampled); ``before``: the config.json of an earlier session of the run, whose findings stand.
    """
    learned, old_models = learned or {}, (before or {}).get("models") or {}
    return {
        "settings": settings,
        "eval_config": cfg.replay_json(),  # `judgeagent evaluate --config` re-creates the run from it
        "benchmark": {"name": bench.name, "format": bench.format, "question_type": bench.qtype.value, "n_questions": sum(len(b.questions) for b in batches)},
        "graph": {"dir": str(cfg.graph_dir()), "manifest_hash": graph.manifest.get("input_hash") if graph is not None else None},
        "models": {role: model_info(spec, learned.get(spec.name), old_models.get(role)) for role, spec in (("target", target), ("judge", judge))},
        "versions": package_versions(),
        "seed": cfg.seed,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
    }


async def _run(run: RunScaffold, identity: dict, *, ablation: bool) -> RunOutcome:
    cfg, settings = run.cfg, run.settings
    done = {(r["setting"], r["batch_id"]): r for r in run.folder.read_records()}
    before = run.folder.read_config() if run.folder.config_path.exists() else None
    async with run.connected() as models:
        todo = [(s, b) for s in settings for b in run.batches if (s.name, b.id) not in done]
        graph, plans = run.graph_and_plans(todo)
        config = functools.partial(run_config, cfg, identity, run.bench, run.batches, graph, run.target, run.judge, before=before)
        run.folder.write_json("config.json", config())
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
        # Now known: whether each model reasons, and whether its answers are samples.
        run.folder.write_json("config.json", config(learned=run.model_notes()))
    records = run.folder.read_records()
    metrics = metrics_by_setting(records, settings, cfg, usage=usage, complete=run.complete, batches=run.batches,
                                 incomplete=run.incomplete, stopped=run.stopped, timings=run.timings)
    write_outputs(run.folder, metrics, settings, ablation=ablation, report=cfg.report)
    bank_followups(cfg, run, graph, records)  # an extra write after the run: nothing above reads the bank
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

    def __post_init__(self) -> None:
        # Each batch's first finished record, by batch id: looked up once per batch, where
        # a scan of ``done`` made a resumed or ablated run's bookkeeping grow with its square.
        self._first: dict[str, dict] = {}
        for (_, bid), rec in self.done.items():
            self._first.setdefault(bid, rec)

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
            self._first.setdefault(b.id, rec)

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
        prior = self._first.get(b.id)
        return answers_from(prior) if prior else await grade_seeds(self.models, self.bench, b)


async def write_summary(models: Models, folder: RunFolder, setting: Setting) -> None:
    """summary.json: the judge's closing interview summary over the main setting's records."""
    from judgeagent.report.summary import summarize_interview

    recs = [r for r in folder.read_records() if r["setting"] == setting.name]
    folder.write_json("summary.json", await summarize_interview(models, recs))


def metrics_by_setting(records: list[dict], settings, cfg: EvalConfig, *, usage: dict, complete: bool, batches: list[Batch],
                       incomplete: dict, stopped: str | None, timings: dict) -> dict:
    """Each setting's metrics.json figures, from its finished records alone (a batch left
    incomplete is not in them), with why the others are missing, and this session's usage
    and timings."""
    metrics = {}
    for s in settings:
        recs = [r for r in records if r["setting"] == s.name]
        m = compute_metrics(recs, eval_every_round=cfg.eval_every_round, bootstrap=cfg.bootstrap, seed=cfg.seed)
        finished = {r["batch_id"] for r in recs}
        m["incomplete"] = incomplete_summary([b.id for b in batches if b.id not in finished], incomplete, stopped)
        m["llm_usage"] = usage
        m["complete"] = complete and len(recs) == len(batches)
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


def bank_followups(cfg: EvalConfig, run: RunScaffold, graph, records: list[dict]) -> None:
    """The gated follow-ups and the target's answers into the graph's question bank."""
    if graph is None:
        return
    from judgeagent.bank.fill import fill_bank

    fill_bank(cfg.graph_dir(), run.folder.path, records, qtype=run.bench.qtype.value, graph_hash=graph.manifest.get("input_hash"),
              data=run.bench.name, target=run.target, judge=run.judge)


def model_info(spec, learned: dict | None = None, before: dict | None = None) -> dict:
    """A model as config.json records it, with whether its answers are samples (a temperature
    above 0, asked for or forced to 1 by the server) and whether it reasons before answering
    (declared, or seen in its replies: think text or reasoning tokens). What an earlier
    session of the run saw still holds: a resumed run may replay every answer."""
    learned, before = learned or {}, before or {}
    return {
        "name": spec.name, "base_url": spec.base_url, "model": spec.model,
        "temperature": learned.get("temperature_sent") or spec.temperature,
        "sampled": bool(spec.temperature > 0 or learned.get("sampled") or before.get("sampled")),
        "reasoning": bool(spec.reasoning or learned.get("reasoning") or before.get("reasoning")),
        "served_models": sorted(set(learned.get("served_models") or []) | set(before.get("served_models") or [])),
    }  # fmt: skip
