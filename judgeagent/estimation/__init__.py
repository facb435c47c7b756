"""Cost before the run: ``judgeagent evaluate ... --dry-run`` and ``judgeagent.estimate(cfg)``.

What a run will send, per model and stage: requests, prompt and completion tokens, cost, and
the wall time, each as a range (low, expected, high), because regenerations, rounds without
a knowledge path, gate failures, re-asks and early stops are random. Nothing is sent, no
model is loaded (the bundled llama server is not started) and no graph is built or read.

How it is made, one module per job:

1. The run is opened as the engine opens it (``engine.open_run``: models, benchmark, units,
   run folder), so the units still to ask are exactly those a real run would ask.
2. The protocol is asked for everything that is its own: its call plan per unit
   (:meth:`~judgeagent.engine.protocol.Protocol.call_plan`: the prompts rendered from the
   real templates on the unit's real questions, each with its stage's budget and completion
   prior, and how many of each as a random count), the rates those counts depend on and
   their priors (``Protocol.rates``), and whether it needs a graph. The estimate knows no
   protocol by name.
3. :mod:`~judgeagent.estimation.history` reads earlier runs: their journals (completion
   tokens and seconds per request, the tokenizer ratio, re-asks) and their records, which
   the protocol that wrote them reads for the rates they show (``Protocol.observe``).
4. :mod:`~judgeagent.estimation.lines` turns the plans, made at the low, expected and high
   end of every rate, into one line per model and stage; :mod:`~judgeagent.estimation.tokens`
   counts the prompts; :mod:`~judgeagent.estimation.model` adds lines and runs up;
   :mod:`~judgeagent.estimation.render` writes them out.
5. With ``--batch-api`` (or ``batch_api = true`` for a model), :mod:`~judgeagent.estimation.batch`
   counts the run's waves from the same plans; the batched models' requests are costed at
   batch prices beside live ones, and the wall time is the waves times the provider's
   turnaround.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from judgeagent.config import EvalConfig
from judgeagent.engine.callplan import SCENARIOS, Call, Count, unit_chain
from judgeagent.engine.protocol import Protocol
from judgeagent.engine.run import open_run
from judgeagent.estimation.batch import BatchPlan, turnaround, waves
from judgeagent.estimation.history import History, rates_from, read_history
from judgeagent.estimation.lines import Plans, Sums, line, model_info, sums, wall
from judgeagent.estimation.model import Estimate, Line, ModelInfo, RateRange, Span, batch_wall, combine
from judgeagent.estimation.render import render_text
from judgeagent.estimation.tokens import count_prompts
from judgeagent.llm.registry import ModelSpec

MAX_PLANNED_UNITS = 120  # beyond this many units, a seeded sample is planned and scaled up

__all__ = ["Estimate", "Line", "ModelInfo", "RateRange", "Span", "combine", "estimate", "render_text"]


def estimate(cfg: EvalConfig) -> Estimate:
    """What running ``cfg`` will send and cost, without sending anything (see the module docstring).

    Bad settings raise the same one-line errors a run does (an unknown model, a missing data
    folder); a missing API key does not matter here."""
    protocol, run = open_run(cfg)
    cfg = run.cfg
    todo = protocol.todo(run)
    roles = {"target": run.target, "judge": run.judge, **run.roles}
    history = read_history(cfg, run.folder.path, roles)
    rates = rates_from(history, protocol.rates)
    notes: list[str] = []
    if type(protocol).call_plan is Protocol.call_plan:
        notes.append(f"--protocol {protocol.name} has no call plan of its own: counted as one answer per unit (a lower bound)")
    planned = todo
    if len(todo) > MAX_PLANNED_UNITS:
        planned = sorted(random.Random(cfg.seed).sample(todo, MAX_PLANNED_UNITS), key=lambda u: u.index)
        notes.append(f"{len(todo)} units: {len(planned)} of them planned (seeded sample), scaled up")
    scale = len(todo) / len(planned) if planned else 0.0

    # Every scenario's calls; the prompts counted once (the plans render the same prompts).
    plans: Plans = {}
    per_unit: dict[str, list[list[Call]]] = {}
    closing: dict[str, list[Call]] = {}
    for s in SCENARIOS:
        values = rates.scenario(s)
        per_unit[s] = [protocol.call_plan(run, u, values) for u in planned]
        closing[s] = protocol.call_plan(run, None, values) if todo or not run.done else []  # the closing requests, once per run
        plans[s] = [(c, scale) for calls in per_unit[s] for c in calls] + [(c, 1.0) for c in closing[s]]
    prompts = {id(c.messages): c.messages for calls in plans.values() for c, _ in calls}
    counted = dict(zip(prompts, count_prompts(list(prompts.values()))))
    accs = sums(plans, roles, counted)

    infos = {spec.name: model_info(spec, cfg, history) for spec in roles.values()}
    priors = {stage: acc.per_completion() for (_, stage), acc in accs["expected"].items()}
    lines = []
    for model, stage in sorted({k for acc in accs.values() for k in acc}):
        spec = next(sp for sp in roles.values() if sp.name == model)
        lines.append(line(model, stage, [accs[s].get((model, stage)) or Sums() for s in SCENARIOS], spec, history, priors))
    est = Estimate(lines, infos, Span.zero(), len(todo), len(run.units) - len(todo), protocol.name, str(run.folder.path), notes,
                   {r.name: RateRange(round(v[0], 3), round(v[1], 3), round(v[2], 3), rates.sources[r]) for r, v in rates.values.items()},
                   cfg.llm.budget_usd, cfg.llm.max_requests)  # fmt: skip
    est.wall_s = wall(est, cfg)
    est.batch = batch_plan(cfg, roles, per_unit, closing, len(todo), history)
    if est.batch is not None:
        est.wall_s = batch_wall(est)
    elif cfg.llm.batch_api:
        notes.append("--batch-api: every model of this run is local, so nothing goes through a Batch API")
    if run.units and len(todo) < len(run.units):
        notes.append(f"{len(run.units) - len(todo)} of {len(run.units)} units are finished in {run.folder.path}: only the rest is counted")
    if protocol.needs_graph(run.options) and not (cfg.graph_dir() / "manifest.json").exists():
        notes.append(f"the graph {cfg.graph_dir()} is not built yet: building it adds time (not counted), and no model request")
    return est


def batch_plan(cfg: EvalConfig, roles: Mapping[str, ModelSpec], per_unit: Mapping[str, list[list[Call]]], closing: Mapping[str, list[Call]],
               n_units: int, h: History) -> BatchPlan | None:  # fmt: skip
    """The waves and their turnaround when some model of the run goes through a Batch API."""
    batched = {role: spec for role, spec in roles.items() if spec.batched(cfg.llm.batch_api)}
    if not batched:
        return None

    def chain(calls: list[Call]) -> Count:
        return unit_chain(calls, lambda role: role in batched)

    chains = {s: [chain(calls) for calls in per_unit[s]] for s in SCENARIOS}
    ends = {s: chain(closing[s]) for s in SCENARIOS}
    seen = list({spec.identity: (spec.identity, spec.base_url) for spec in batched.values()}.values())
    took, source = turnaround(h.turnarounds, seen)
    local = sorted({spec.name for spec in roles.values() if spec.is_local and (cfg.llm.batch_api or spec.batch_api)})
    return BatchPlan(sorted({spec.name for spec in batched.values()}), local, waves(chains, ends, n_units), took, source, cfg.llm.batch_api_poll_s,
                     cfg.llm.batch_api_expired, cfg.llm.batch_api_expired_retries)  # fmt: skip

