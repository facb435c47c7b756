"""What `--batch-api` does to a run, protocol by protocol, against the scripted Batch API.

For each protocol it runs ``judgeagent evaluate --limit N`` on medqa-demo twice, with the
interview doubles (tests/interview_double.py) as target and judge behind the scripted Batch
API server (tests/batch_server.py): once live, once with ``--batch-api``. It prints, per
protocol: the waves (batch jobs one after another), requests per wave (mean and largest),
the requests sent live and in jobs, whether the figures are the same, and both wall times.
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
from interview_double import Script  # noqa: E402

from judgeagent import evaluate  # noqa: E402
from judgeagent.config import EvalConfig, GraphConfig  # noqa: E402
from judgeagent.data import load_benchmark  # noqa: E402
from judgeagent.graph import build_graph  # noqa: E402

DATA = ROOT / "data" / "medqa-demo"
PROTOCOLS = ("judgeagent", "kieval", "interviewer", "escalate", "contamination")
PLAN = [(True, True), (True, False), (False, True), (False, False), (False, True), (True, True)]


def doubles(limit: int) -> Script:
    seeds = load_benchmark(DATA).questions[:limit]
    return Script(seed_plan={q.question.strip(): PLAN[i % len(PLAN)] for i, q in enumerate(seeds)},
                  answers={q.question.strip(): q.answer for q in seeds})  # fmt: skip


def one(protocol: str, graph: Path, out: Path, limit: int, job_s: float, batch: bool) -> dict:
    phase = job_s / 3
    with BatchServer(doubles(limit), default=JobScript(validating_s=phase, in_progress_s=phase, finalizing_s=phase)) as srv:
        model = f"{srv.base_url}@scripted"
        llm = {"batch_api": batch, "batch_api_poll_s": max(0.01, phase / 2)}
        cfg = EvalConfig(target=model, judge=model, data=DATA, graph=graph, out=out, report=False, protocol=protocol, limit=limit, llm=llm)
        t = time.perf_counter()
        result = evaluate(cfg, progress=False)
        wall = time.perf_counter() - t
        jobs = [len(j.lines) for j in srv.jobs]
        live = len(srv.requests)
    figures = {k: v for k, v in result.metrics.items() if k not in ("llm_usage", "timings", "target", "judge")}
    return {"wall": wall, "jobs": jobs, "live": live, "figures": figures}


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
        print(f"{'protocol':14} {'waves':>5} {'req/wave':>8} {'largest':>7} {'in jobs':>7} {'live':>5} {'same':>5} {'live s':>7} {'batch s':>8}")
        for protocol in args.protocols.split(","):
            live = one(protocol, graph, Path(tmp) / f"{protocol}-live", args.limit, args.job_s, batch=False)
            batched = one(protocol, graph, Path(tmp) / f"{protocol}-batch", args.limit, args.job_s, batch=True)
            jobs = batched["jobs"]
            same = json.dumps(live["figures"], sort_keys=True) == json.dumps(batched["figures"], sort_keys=True)
            print(f"{protocol:14} {len(jobs):>5} {sum(jobs) / max(1, len(jobs)):>8.1f} {max(jobs, default=0):>7} {sum(jobs):>7} "
                  f"{batched['live']:>5} {'yes' if same else 'NO':>5} {live['wall']:>7.1f} {batched['wall']:>8.1f}")  # fmt: skip
        print(f"load average {os.getloadavg()[0]:.2f} at the end")


if __name__ == "__main__":
    main()
