"""Does a sweep recover the true order of targets of known ability, and do its rank intervals
cover the true ranks? (issue 25)

Five scripted targets (tests/ability_server.py) answer each question right with probability
σ(θ − b): θ well separated (default −2, −1, 0, 1, 2), b a seeded hash of the question text,
N(0, 1). Each replication changes the seed of the difficulties and of the draws (and of the
sweep). Printed, over the replications:

* Spearman's ρ between the leaderboard's order (accuracy on the shared items) and the true
  order: mean [min, max], and the share of replications at ρ ≥ 0.9 (target: mean ≥ 0.9);
* the coverage of the rank intervals: the share of (target, replication) pairs whose
  interval holds the target's true rank (target: ≥ 90%), and the mean interval width;
* Spearman's ρ of the IRT θ order, and the leaderboard's own seed-vs-generated agreement;
* wall time per replication, with the load average.

Modes:

* default: the real sweep (``judgeagent.sweep``) on data/medqa-demo, the five
  targets and a scripted judge (tests/interview_double.py's, writing a distinct question
  from each path's passages) on 127.0.0.1; the graph is built once into bench/out/;
* ``--simulated``: the same maths (judgeagent.metrics.ranking) on answer matrices drawn
  from the same model, shaped like a sweep's (items written 3 per interview batch, seeds
  asked 3 per batch): many replications in seconds, no server.

Run: .venv/bin/python bench/sweep.py [--simulated] [--replications N] [--limit N]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))  # the scripted server, the judge double and the ability target

from judgeagent.metrics.ranking import rank_agreement, rank_intervals, spearman  # noqa: E402

DATA = ROOT / "data" / "medqa-demo"
OUT = ROOT / "bench" / "out"
ABILITIES = (-2.0, -1.0, 0.0, 1.0, 2.0)


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def true_ranks(abilities) -> list[int]:
    order = np.argsort(-np.asarray(abilities), kind="stable")
    ranks = np.empty(len(abilities), dtype=int)
    ranks[order] = np.arange(1, len(abilities) + 1)
    return ranks.tolist()


# ----------------------------------------------------------------------------- simulated
def simulated_replication(rep: int, abilities, n_items: int, n_seeds: int, per_batch: int, bootstrap: int) -> dict:
    rng = np.random.default_rng(1000 + rep)
    theta = np.asarray(abilities, dtype=float)

    def answers(n: int) -> np.ndarray:
        b = rng.normal(size=n)
        p = 1.0 / (1.0 + np.exp(-(theta[:, None] - b[None, :])))
        return (rng.random(p.shape) < p).astype(float)

    shared, seeds = answers(n_items), answers(n_seeds)
    clusters = [j // per_batch for j in range(n_items)]
    seed_clusters = [j // per_batch for j in range(n_seeds)]
    names = [f"t{k}" for k in range(len(theta))]
    ranks = rank_intervals(shared, names, clusters, n_resamples=bootstrap, seed=rep)
    agreement = rank_agreement(shared, clusters, seeds, reference_clusters=seed_clusters, n_resamples=bootstrap, seed=rep)
    return {
        "scores": [r.score for r in ranks],
        "intervals": [(r.rank_lo, r.rank_hi) for r in ranks],
        "theta": None,
        "seed_vs_generated": agreement.spearman,
        "n_items": n_items,
    }


# ----------------------------------------------------------------------------- real sweep
def bench_judge():
    """The interview tests' judge, writing one distinct question per path (its 12 fixed
    topics would make every sweep share the same 12 items): the question quotes the start
    of the path's first and last passages, so two paths give two questions the quality
    gate's duplicate check tells apart."""
    from interview_double import RIGHT, WRONGS, Script

    class Judge(Script):
        def generate(self, msgs, *, multiple_choice):
            self.generation_requests += 1
            prompt = msgs[1]["content"]
            passages = re.findall(r"^\[\d+\]\s*(?:\[[^\]]*\]\s*)?(.+)$", prompt.split("Excerpts:")[-1], re.M)
            if not passages:
                return super().generate(msgs, multiple_choice=multiple_choice)
            first = " ".join(passages[0].split()[:12])
            last = " ".join(passages[-1].split()[:8])
            topic = f"Given that {first.rstrip('.,;:')}, what follows about {last.rstrip('.,;:')}?"
            level = re.search(r"^Difficulty (\w+):", prompt, re.M)
            self.generated_levels[topic] = level.group(1).lower() if level else ""
            if multiple_choice:
                return json.dumps({"question": topic, "correct_option": RIGHT, "distractors": WRONGS, "rationale": "stated"})
            return json.dumps({"question": topic, "answer": RIGHT, "rationale": "stated"})

    return Judge()


def built_graph() -> Path:
    """The medqa-demo graph, built once into bench/out/ and reused by later runs."""
    graph = OUT / "sweep-graph" / "medqa-demo"
    if not (graph / "manifest.json").exists():
        from judgeagent.config import GraphConfig
        from judgeagent.data import load_benchmark
        from judgeagent.graph import build_graph

        t = time.perf_counter()
        build_graph(load_benchmark(DATA), GraphConfig(), graph, progress=False)
        print(f"built the medqa-demo graph into {graph} in {time.perf_counter() - t:.1f} s ({load()})")
    return graph


def real_replication(rep: int, abilities, limit: int, bootstrap: int, work: Path) -> dict:
    from ability_server import AbilityTarget, ability_servers
    from scripted_server import ScriptedServer

    from judgeagent.data import load_benchmark
    from judgeagent.sweeps import SweepConfig, sweep

    seeds = load_benchmark(DATA).questions
    key = {q.question.strip(): q.answer for q in seeds}
    doubles = [AbilityTarget(a, name=f"t{k}", seed=rep, answers=key) for k, a in enumerate(abilities)]
    graph = work / f"rep{rep}" / "graphs" / "medqa-demo"
    shutil.copytree(built_graph(), graph)  # the sweep's bank sits beside its graph: one per replication
    names = [f"t{k}" for k in range(len(abilities))]
    with ability_servers(doubles, fast=True) as servers, ScriptedServer(bench_judge(), fast=True) as judge:
        models = work / f"rep{rep}" / "judgeagent.toml"
        lines = []
        for name, url in [("judge", judge.base_url)] + [(n, s.base_url) for n, s in zip(names, servers)]:
            lines += [f"[models.{name}]", f'base_url = "{url}"', f'model = "{name}"', "concurrency = 8", ""]
        models.write_text("\n".join(lines))
        cfg = SweepConfig.model_validate({
            "targets": names, "judge": "judge", "data": DATA, "graph": graph, "limit": limit, "seed": rep, "bootstrap": bootstrap,
            "options": {"summary": False, "controls": False, "leak_check": "rules"}, "out": work / f"rep{rep}" / "sweep",
            "report": False, "llm": {"models_file": models, "max_attempts": 1},
        })  # fmt: skip
        result = sweep(cfg)
    board = result.leaderboard.to_json()
    rows = {r["name"]: r for r in board["targets"]}
    unknown = sum(len(d.unknown) for d in doubles)
    if unknown:
        print(f"  warning: the targets had no key for {unknown} question(s) (answered 'A')")
    failed = [r["name"] for r in board["targets"] if r.get("status") == "failed"]
    if failed:
        raise SystemExit(f"replication {rep}: target(s) failed: {', '.join(failed)}")
    return {
        "scores": [rows[n].get("shared_accuracy") for n in names],
        "intervals": [tuple(rows[n]["rank_interval"]) for n in names],
        "theta": [rows[n].get("theta") for n in names],
        "seed_vs_generated": ((board.get("validity") or {}).get("seed_vs_generated") or {}).get("spearman"),
        "n_items": board.get("n_shared_items"),
        "ranked_on": board.get("ranked_on"),
    }


# ----------------------------------------------------------------------------- summary
def summarize(runs: list[dict], abilities, took: list[float], label: str) -> dict:
    truth = true_ranks(abilities)
    rhos = [spearman(r["scores"], abilities) for r in runs]
    rhos = [r if r is not None else float("nan") for r in rhos]
    covered = [lo <= t <= hi for r in runs for (lo, hi), t in zip(r["intervals"], truth)]
    per_target = [float(np.mean([r["intervals"][k][0] <= t <= r["intervals"][k][1] for r in runs])) for k, t in enumerate(truth)]
    widths = [hi - lo + 1 for r in runs for lo, hi in r["intervals"]]
    thetas = [spearman(r["theta"], abilities) for r in runs if r["theta"] is not None and None not in r["theta"]]
    agree = [r["seed_vs_generated"] for r in runs if r["seed_vs_generated"] is not None]
    out = {
        "mode": label,
        "replications": len(runs),
        "abilities": list(abilities),
        "items_per_replication": [r["n_items"] for r in runs],
        "spearman_mean": float(np.nanmean(rhos)),
        "spearman_min": float(np.nanmin(rhos)),
        "spearman_max": float(np.nanmax(rhos)),
        "share_spearman_ge_0.9": float(np.mean([r >= 0.9 for r in rhos])),
        "coverage": float(np.mean(covered)),
        "coverage_per_target": per_target,
        "mean_interval_width": float(np.mean(widths)),
        "theta_spearman_mean": float(np.mean(thetas)) if thetas else None,
        "seed_vs_generated_mean": float(np.mean(agree)) if agree else None,
        "seconds_per_replication": float(np.mean(took)),
        "load_average_end": os.getloadavg()[0],
    }
    print(f"\n{label}: {len(runs)} replications, abilities {', '.join(f'{a:g}' for a in abilities)}, "
          f"shared items per replication {min(out['items_per_replication'])}–{max(out['items_per_replication'])}")  # fmt: skip
    print(f"  Spearman ρ, recovered vs true order: mean {out['spearman_mean']:.3f} [{out['spearman_min']:.3f}, {out['spearman_max']:.3f}]; "
          f"ρ ≥ 0.9 in {out['share_spearman_ge_0.9']:.0%} of replications   (target: mean ≥ 0.9)")  # fmt: skip
    print(f"  rank intervals cover the true rank: {out['coverage']:.1%} of {len(covered)} (target ≥ 90%); mean width {out['mean_interval_width']:.2f} ranks")
    print("  per target (true rank: share of replications covered): "
          + ", ".join(f"{t}: {c:.0%}" for t, c in sorted(zip(truth, per_target))))
    if thetas:
        print(f"  Spearman ρ of the IRT θ order vs true: mean {out['theta_spearman_mean']:.3f}")
    if agree:
        print(f"  seed (ACC1) vs generated ranking, Spearman ρ: mean {out['seed_vs_generated_mean']:.3f}")
    print(f"  {out['seconds_per_replication']:.1f} s per replication; {load()} at the end")
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--simulated", action="store_true", help="the ranking maths on simulated answer matrices only (no sweep, no server)")
    ap.add_argument("--replications", type=int, default=None, help="default: 5 (real sweep), 200 (simulated)")
    ap.add_argument("--limit", type=int, default=36, help="seed questions per interview (real sweep; batches of 3; medqa-demo has 36)")
    ap.add_argument("--items", type=int, default=60, help="shared items per replication (simulated)")
    ap.add_argument("--seeds", type=int, default=36, help="seed questions per replication (simulated)")
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--abilities", default=",".join(f"{a:g}" for a in ABILITIES), help="comma-separated true abilities")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    args = ap.parse_args()
    abilities = [float(x) for x in args.abilities.split(",")]
    print(f"bench/sweep.py: {len(abilities)} targets of known ability; {load()} at the start")
    runs, took = [], []
    if args.simulated:
        n = args.replications or 200
        for rep in range(n):
            t = time.perf_counter()
            runs.append(simulated_replication(rep, abilities, args.items, args.seeds, 3, args.bootstrap))
            took.append(time.perf_counter() - t)
        out = summarize(runs, abilities, took, f"simulated ({args.items} shared items in clusters of 3, {args.seeds} seeds)")
    else:
        n = args.replications or 5
        built_graph()
        with tempfile.TemporaryDirectory(prefix="bench-sweep-") as tmp:
            for rep in range(n):
                t = time.perf_counter()
                runs.append(real_replication(rep, abilities, args.limit, args.bootstrap, Path(tmp)))
                took.append(time.perf_counter() - t)
                r = runs[-1]
                print(f"  replication {rep}: {r['n_items']} shared items, ranked on {r['ranked_on']}; scores "
                      f"{', '.join('–' if s is None else f'{s:.0f}' for s in r['scores'])}; intervals "
                      f"{', '.join(f'{lo}–{hi}' for lo, hi in r['intervals'])}; {took[-1]:.1f} s ({load()})")  # fmt: skip
        out = summarize(runs, abilities, took, f"real sweep (medqa-demo, --limit {args.limit}, scripted judge and targets)")
    if args.json:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
