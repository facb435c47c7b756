"""How a protocol other than JudgeAgent's own runs: the same scaffold, folder and journal.

Set up (models, benchmark, run folder; no model asked) → open the client and preflight every
role → plan each unit's knowledge path → interview the units still to do, one record each,
written at once → the protocol's closing step → metrics.json and the reports. A rerun of the
same command finds the folder by its settings, skips finished units and replays finished
requests from the journal.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

from judgeagent.batches import Batch
from judgeagent.config import EvalConfig
from judgeagent.data.benchmark import Benchmark
from judgeagent.followup import FollowUpWriter
from judgeagent.interview import Setting, record_head
from judgeagent.metrics.summary import incomplete_summary
from judgeagent.planning import NO_PLAN, plan_batches
from judgeagent.protocols.base import LeakGuard, Parts, Protocol, split_seeds
from judgeagent.run import RunOutcome, model_info, run_config
from judgeagent.runfolder import RunFolder, settings_json
from judgeagent.scaffold import RunScaffold, ensure_graph
from judgeagent.stages.leak_judge import resolve_leak_check
from judgeagent.stages.leakage import prime_guard
from judgeagent.stages.models import Models

SETTING = Setting("full")


def run_protocol(protocol: Protocol, cfg: EvalConfig, *, progress: bool = True) -> RunOutcome:
    """Run ``protocol`` and write its run folder; Ctrl-C leaves it resumable (RunScaffold.drive)."""
    identity = settings_json(cfg, (SETTING,))
    run = RunScaffold.open(cfg, (SETTING,), identity, name=cfg.target, kind=f"-{protocol.name}", label=protocol.name, progress=progress)
    if protocol.unit == "seed":
        run.batches = split_seeds(run.batches)
    return run.drive(lambda: _run(protocol, run, identity))


def resolve_evaluator(cfg: EvalConfig, judge):
    """The evaluator role's model: ``--evaluator``, else the judge."""
    if not cfg.evaluator:
        return judge
    from judgeagent.llm import load_registry

    return load_registry(cfg.llm.models_file).resolve(cfg.evaluator)


async def _run(protocol: Protocol, run: RunScaffold, identity: dict) -> RunOutcome:
    cfg = run.cfg
    evaluator = resolve_evaluator(cfg, run.judge)
    done = {r["batch_id"]: r for r in run.folder.read_records()}
    async with run.connected() as models:
        if evaluator.identity not in (run.target.identity, run.judge.identity):
            await run.client.preflight(evaluator)
        todo = [b for b in run.batches if b.id not in done]
        graph, plans = plan_units(protocol, cfg, run, todo)
        config = run_config(cfg, identity, run.bench, run.batches, graph, run.target, run.judge)
        config["models"]["evaluator"] = model_info(evaluator)
        run.folder.write_json("config.json", config | {"protocol": protocol.name})
        embedder = run.embedding_queue(graph)
        with run.timed("prime_s"):
            gates = run.gates(graph, embedder, done.values())
            prime_guard(embedder, [q for b in todo for q in b.questions])
        guard = LeakGuard(models, embedder, cfg.leak_threshold, resolve_leak_check(cfg.leak_check, models.judge))
        work = UnitWork(protocol, cfg, run.bench, models, plans, gates.get(SETTING.name), guard, evaluator, done, run.folder)
        with run.timed("interview_s"):
            await run.run_batches(work)
        if run.complete:
            with run.timed("finish_s"):
                await protocol.finish(models, run.folder, run.folder.read_records(), cfg)
        usage = run.llm_usage()
    records = sorted(run.folder.read_records(), key=lambda r: r["batch_index"])
    metrics = protocol_metrics(protocol, records, cfg, usage=usage, complete=run.complete and len(records) == len(run.batches), timings=run.timings)
    finished = {r["batch_id"] for r in records}
    metrics["incomplete"] = incomplete_summary([b.id for b in run.batches if b.id not in finished], run.incomplete, run.stopped)
    write_outputs(run.folder, metrics, report=cfg.report)
    run.raise_if_stopped(len(records))
    return RunOutcome(run.folder, {SETTING.name: metrics}, run.complete, run.stopped, run.timings)


def plan_units(protocol: Protocol, cfg: EvalConfig, run: RunScaffold, todo: list[Batch]):
    """The graph (None when the protocol needs none) and each unit's plan, with a path long
    enough for ``protocol.path_windows`` windows of ``hops`` steps."""
    windows = protocol.path_windows(cfg)
    with run.timed("plan_s"):
        if windows == 0:
            return None, {b.id: dict(NO_PLAN) for b in todo}
        graph = ensure_graph(cfg, run.bench, run.progress)
        from judgeagent.graph import SpacyExtractor

        extractor = SpacyExtractor()
        planning = cfg.model_copy(update={"rounds": windows})
        plans = plan_batches(graph, extractor, run.batches, [(SETTING, b) for b in todo], planning)
        return graph, {bid: plan for (_, bid), plan in plans.items()}


@dataclass
class UnitWork:
    """One unit's work: interview it with the shared parts and write its record at once."""

    protocol: Protocol
    cfg: EvalConfig
    bench: Benchmark
    models: Models
    plans: dict
    gate: object
    guard: LeakGuard
    evaluator: object
    done: dict
    folder: RunFolder

    async def __call__(self, unit: Batch) -> None:
        if unit.id in self.done:
            return
        plan = self.plans[unit.id]
        writer = FollowUpWriter.for_batch(self.models, self.bench, unit, plan, self.cfg, self.gate)
        parts = Parts(self.cfg, self.models, self.bench, plan, writer, self.guard, self.evaluator)
        result = await self.protocol.run(unit, parts)
        record = {"setting": SETTING.name, "protocol": self.protocol.name, **record_head(unit, plan, []), **result.to_dict()}
        record.pop("seed_answers", None)
        self.folder.append_record(record)
        self.done[unit.id] = record


def protocol_metrics(protocol: Protocol, records: list[dict], cfg: EvalConfig, *, usage: dict, complete: bool, timings: dict) -> dict:
    """metrics.json: the protocol's fragments, with this session's usage and timings."""
    m = {"protocol": protocol.name, "n_questions": sum(len(r["seed"]) for r in records), protocol.name: asdict(protocol.metrics(records, cfg))}
    m["llm_usage"] = usage
    m["complete"] = complete
    m["timings"] = {k: round(v, 3) for k, v in timings.items()}
    return m


def write_outputs(folder: RunFolder, metrics: dict, *, report: bool) -> None:
    folder.write_json("metrics.json", metrics)
    if report:
        from judgeagent.report import write_reports

        write_reports(folder.path)
