"""What `--batch-api` does to a run, protocol by protocol, against the scripted Batch API.

For each protocol (and ``ablate``) it runs ``judgeagent evaluate --limit N`` on medqa-demo
twice, with the interview doubles (tests/interview_double.py, the order-free judge) as
target and judge behind the scripted Batch API server (tests/batch_server.py): once live,
once with ``--batch-api``. It prints, per protocol: the waves ``--dry-run --batch-api``
expected (and its range), the waves the run took (batch jobs one after another), requests
per wave (mean and largest), the requests sent live and in jobs, whether the figures are
the same, and both wall times.
Each job spends ``--job-s`` seconds in the provider (validating, in progress and finalizing
in equal thirds), a stand-in for a real provider's turnaround, which is minutes to hours: the
batched wall time is then about waves × (job time + one poll). The graph is built once into
a temporary folder. The load average is printed beside the figures.

Usage: python bench/batch_api.py [--limit 6] [--job-s 0.3] [--protocols judgeagent,kieval,...]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from batch_server import BatchServer, JobScript  # noqa: E402
from interview_double import OrderFreeScript  # noqa: E402

from judgeagent import estimate, evaluate  # noqa: E402
from judgeagent.config import EvalConfig, GraphConfig  # noqa: E402
from judgeagent.data import load_benchmark  # noqa: E402
from judgeagent.graph import build_graph  # noqa: E402

DATA = ROOT / "data" / "medqa-demo"
PROTOCOLS = ("judgeagent", "kieval", "interviewer", "escalate", "contamination", "ablate")
PLAN = [(True, True), (True, False), (False, True), (False, False), (False, True), (True, True)]


def doubles(limit: int) -> OrderFreeScript:
    seeds = load_benchmark(DATA).questions[:limit]
    return OrderFreeScript(seed_plan={q.question.strip(): PLAN[i % len(PLAN)] for i, q in enumerate(seeds)},
                           answers={q.question.strip(): q.answer for q in seeds})  # fmt: skip


def config(protocol: str, model: str, graph: Path, out: Path, limit: int, llm: dict) -> EvalConfig:
    options = {"limit": limit} | ({"ablation": True} if protocol == "ablate" else {})
    return EvalConfig(target=model, judge=model, data=DATA, graph=graph, out=out, report=False, llm=llm,
                      protocol="judgeagent" if protocol == "ablate" else protocol, options=options)  # fmt: skip


def one(protocol: str, graph: Path, out: Path, limit: int, job_s: float, batch: bool) -> dict:
    phase = job_s / 3
    with BatchServer(doubles(limit), default=JobScript(validating_s=phase, in_progress_s=phase, finalizing_s=phase)) as srv:
        model = f"{srv.base_url}@scripted"
        cfg = config(protocol, model, graph, out, limit, {"batch_api": batch, "batch_api_poll_s": max(0.01, phase / 2)})
        planned = estimate(cfg).batch if batch else None
        t = time.perf_counter()
        result = evaluate(cfg, progress=False)
        wall = time.perf_counter() - t
        jobs = [len(j.lines) for j in srv.jobs]
        waves = len({j.metadata["judgeagent_wave"] for j in srv.jobs})
        live = len(srv.requests)
    metrics = json.loads((out / "ablation.json").read_text())["metrics"] if protocol == "ablate" else {"run": result.metrics}
    figures = {arm: {k: v for k, v in m.items() if k not in ("llm_usage", "timings", "target", "judge")} for arm, m in metrics.items()}
    return {"wall": wall, "jobs": jobs, "waves": waves, "live": live, "figures": figures, "planned": planned}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=6)
    ap.add_argument("--job-s", type=float, default=0.3, help="seconds each job spends at the provider")
    ap.add_argument("--protocols", default=",".join(PROTOCOLS))
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        graph = Path(tmp) / "graph"
        build_graph(load_benchmark(DATA), GraphConfig(), graph, progress=False)
        print(f"--limit {args.limit}, each job {args.job_s:g} s at the provider; load average {os.getloadavg()[0]:.2f} at the start")
        print(f"{'protocol':14} {'dry run':>11} {'waves':>5} {'jobs':>4} {'req/wave':>8} {'largest':>7} {'in jobs':>7} {'live':>5} {'same':>5} "
              f"{'live s':>7} {'batch s':>8} {'s/wave':>6}")  # fmt: skip
        for protocol in args.protocols.split(","):
            live = one(protocol, graph, Path(tmp) / f"{protocol}-live", args.limit, args.job_s, batch=False)
            batched = one(protocol, graph, Path(tmp) / f"{protocol}-batch", args.limit, args.job_s, batch=True)
            jobs, waves, w = batched["jobs"], batched["waves"], batched["planned"].waves
            same = json.dumps(live["figures"], sort_keys=True) == json.dumps(batched["figures"], sort_keys=True)
            planned = f"{w.expected:.0f} ({w.low:.0f}–{w.high:.0f})"
            print(f"{protocol:14} {planned:>11} {waves:>5} {len(jobs):>4} {sum(jobs) / max(1, waves):>8.1f} {max(jobs, default=0):>7} {sum(jobs):>7} "
                  f"{batched['live']:>5} {'yes' if same else 'NO':>5} {live['wall']:>7.1f} {batched['wall']:>8.1f} "
                  f"{batched['wall'] / max(1, waves):>6.2f}")  # fmt: skip
        print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
