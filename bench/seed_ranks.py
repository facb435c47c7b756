"""Rank validity of generated seeds: do targets of known ability rank the same on seeds written
from a benchmark's documents as on the benchmark's own questions?

For each demo benchmark (data/*-demo: questions and the reference texts behind them), the
graph is built (once, into bench/out/seed-ranks/) and seeds are written from it with the
scripted writer of tests/seeds_double.py (cloze questions from the slots' passages, with
citations: the bundled model keeps too few to rank anything), as many as the benchmark has
questions, through the real pipeline (plan, citations, distractors, gate).

Targets are simulated as the sweep's bench simulates them (bench/sweep.py, tests/ability_server.py):
target t answers question q right with probability σ(θ_t + u_{t,d} − b_q), where θ_t is its
ability (evenly spaced in [−2, 2]), b_q the question's difficulty, N(0, 1) from a seeded hash of
its text, and u_{t,d} ~ N(0, τ²) what target t knows of document d beyond its ability: with
τ = 0 every target is as good on every document, and a set of questions ranks them as well as
any other of its size; with τ > 0 a ranking depends on which documents the questions are
about. A seed's document is the one its first citation is in; a benchmark question's is its
own (``doc_id``: QuALITY's article) or, when the benchmark does not link them (MedQA's
textbooks, MultiHop-RAG's evidence titles), the document of the chunk nearest the question in
the graph's chunk index.

Printed per benchmark and τ, over the replications (each draws b, u and the answers anew):

* ρ: Spearman's rho between the targets' accuracies on the seeds and on the benchmark's
  questions, with its 95% interval: a percentile bootstrap over questions, resampled by
  document (questions about one document share its u, so they are not independent), both
  sets resampled independently (judgeagent.metrics.ranking.rank_agreement, as the sweep's
  seed-versus-generated agreement). Not Fisher's z: with a dozen targets it gives the
  uncertainty of the targets' sample, not of the questions', which is what varies here.
  The figures of replication 0 are one study's; the mean and range over the replications
  show how much one study varies;
* how often ρ's interval holds the mean ρ over the replications (what a study of sets of these
  sizes finds on average, the value the interval is about);
* ρ∞: the same on the expected accuracies (no draw of answers: what infinitely many answers
  to these questions would give; a ceiling that a study's finitely many answers do not reach);
* ρ vs θ: each set's ranking against the targets' true abilities.

    flock /tmp/bench.lock .venv/bin/python bench/seed_ranks.py [--targets 12] [--replications 200]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the scripted server and the seed writer double
sys.path.insert(0, str(ROOT / "bench"))

from machine import describe  # noqa: E402

DEMOS = ("medqa-demo", "multihop-demo", "quality-demo")
OUT = ROOT / "bench" / "out" / "seed-ranks"


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def built_graph(name: str) -> Path:
    """The demo's graph, built once into bench/out/seed-ranks/ and reused by later runs."""
    from judgeagent.config import GraphConfig
    from judgeagent.data import load_benchmark
    from judgeagent.graph import build_graph

    out = OUT / "graphs" / name
    t = time.perf_counter()
    graph = build_graph(load_benchmark(ROOT / "data" / name), GraphConfig(), out, progress=False)
    if not graph.reused:
        print(f"  built the {name} graph in {time.perf_counter() - t:.1f} s ({load()})", flush=True)
    return out


def written_seeds(name: str, graph: Path, n: int, n_docs: int, seed: int) -> list[dict]:
    """Seeds from the demo's graph by the scripted writer (as many as the benchmark has questions)."""
    from scripted_server import ScriptedServer
    from seeds_double import SeedScript

    from judgeagent import write_seeds

    share = min(1.0, max(0.2, 1.5 / n_docs))  # a benchmark of three articles cannot hold a fifth of the seeds each
    with tempfile.TemporaryDirectory() as tmp, ScriptedServer(SeedScript()) as srv:
        out = Path(tmp) / "set"
        t = time.perf_counter()
        result = write_seeds(graph=graph, n=n, writer=f"{srv.base_url}@scripted", out=out, concurrency=1, seed=seed,
                             multi_hop_share=0.5, max_share=share, reserve=1.0)  # fmt: skip
        lines = [json.loads(x) for x in (out / "questions.jsonl").read_text().splitlines()] if result.n_written else []
    print(f"  {name}: {len(lines)} seeds written (of {n}) in {time.perf_counter() - t:.1f} s, --max-share {share:.2f} ({load()})", flush=True)
    return lines


def question_documents(name: str, graph_dir: Path) -> list[str]:
    """Each benchmark question's document: its own, else the nearest chunk's."""
    from judgeagent.data import load_benchmark
    from judgeagent.graph import load_graph

    bench = load_benchmark(ROOT / "data" / name)
    graph = load_graph(graph_dir)
    docs = []
    for q in bench.questions:
        if q.doc_id:
            docs.append(q.doc_id)
        else:
            chunk, _ = graph.search_chunks(q.question, k=1)[0]
            docs.append(graph.chunk_doc(chunk))
    return docs


def difficulties(texts: list[str], rng: np.random.Generator) -> np.ndarray:
    """b per question: N(0, 1), one draw per distinct text (a text asked twice is one question)."""
    distinct = {t: rng.normal() for t in dict.fromkeys(texts)}
    return np.asarray([distinct[t] for t in texts])


def expected(theta: np.ndarray, u: dict[str, np.ndarray], docs: list[str], b: np.ndarray) -> np.ndarray:
    """targets × questions: the probability of a right answer."""
    topic = np.stack([u[d] for d in docs], axis=1)
    return 1.0 / (1.0 + np.exp(-(theta[:, None] + topic - b[None, :])))


def replication(rep: int, theta: np.ndarray, tau: float, seeds: tuple[list[str], list[str]], bench: tuple[list[str], list[str]],
                bootstrap: int) -> dict:
    from judgeagent.metrics.ranking import rank_agreement, spearman

    rng = np.random.default_rng([rep, int(tau * 1000)])
    all_docs = sorted(set(seeds[1]) | set(bench[1]))
    u = {d: rng.normal(scale=tau, size=theta.size) if tau > 0 else np.zeros(theta.size) for d in all_docs}
    p_seed = expected(theta, u, seeds[1], difficulties(seeds[0], rng))
    p_bench = expected(theta, u, bench[1], difficulties(bench[0], rng))
    x_seed = (rng.random(p_seed.shape) < p_seed).astype(float)
    x_bench = (rng.random(p_bench.shape) < p_bench).astype(float)
    agreement = rank_agreement(x_seed, seeds[1], x_bench, reference_clusters=bench[1], n_resamples=bootstrap, seed=rep)
    rho_inf = spearman(p_seed.mean(axis=1), p_bench.mean(axis=1))
    ci = agreement.spearman_ci
    return {
        "rho": agreement.spearman, "ci": ci, "rho_inf": rho_inf,
        "seeds_vs_theta": spearman(x_seed.mean(axis=1), theta), "bench_vs_theta": spearman(x_bench.mean(axis=1), theta),
    }  # fmt: skip


def summary(rows: list[dict]) -> dict:
    def stats(key: str) -> dict:
        v = np.asarray([r[key] for r in rows if r[key] is not None], dtype=float)
        return {"mean": round(float(v.mean()), 3), "p5": round(float(np.percentile(v, 5)), 3), "p95": round(float(np.percentile(v, 95)), 3)}

    widths = [r["ci"][1] - r["ci"][0] for r in rows if r["ci"] is not None]
    # What a study of these sets finds on average: the ρ its interval is for (ρ∞, with no
    # answer noise, is a ceiling that finitely many answers do not reach).
    expected_rho = float(np.mean([r["rho"] for r in rows if r["rho"] is not None]))
    covers = [r["ci"][0] <= expected_rho <= r["ci"][1] for r in rows if r["ci"] is not None]
    return {"rep0": rows[0], "rho": stats("rho"), "rho_inf": stats("rho_inf"), "seeds_vs_theta": stats("seeds_vs_theta"),
            "bench_vs_theta": stats("bench_vs_theta"), "ci_width": round(float(np.mean(widths)), 3) if widths else None,
            "coverage": round(sum(covers) / len(covers), 3) if covers else None}  # fmt: skip


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--demos", nargs="+", default=list(DEMOS))
    ap.add_argument("--targets", type=int, default=12)
    ap.add_argument("--taus", type=float, nargs="+", default=[0.0, 0.5, 1.0])
    ap.add_argument("--replications", type=int, default=200)
    ap.add_argument("--bootstrap", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, default=ROOT / "bench" / "out" / "seed_ranks.json")
    args = ap.parse_args()
    print(describe(), flush=True)
    t0 = time.perf_counter()
    from judgeagent.data import load_benchmark

    theta = np.linspace(-2.0, 2.0, args.targets)
    results: dict = {"machine": describe(), "args": {k: str(v) for k, v in vars(args).items()}, "demos": {}}
    for name in args.demos:
        bench = load_benchmark(ROOT / "data" / name)
        graph = built_graph(name)
        n_docs = len({c.doc_id for c in bench.chunks})
        lines = written_seeds(name, graph, len(bench.questions), n_docs, args.seed)
        seed_set = ([q["question"] for q in lines], [q["citations"][0]["doc_id"] if q["citations"] else q["doc_id"] for q in lines])
        bench_set = ([q.question for q in bench.questions], question_documents(name, graph))
        spread = {"seeds": dict(Counter(seed_set[1]).most_common()), "benchmark": dict(Counter(bench_set[1]).most_common())}
        print(f"  {name}: {n_docs} documents; questions per document: seeds {sorted(spread['seeds'].values(), reverse=True)}, "
              f"benchmark {sorted(spread['benchmark'].values(), reverse=True)}", flush=True)  # fmt: skip
        results["demos"][name] = {"n_seeds": len(lines), "n_questions": len(bench.questions), "documents": n_docs, "spread": spread, "taus": {}}
        for tau in args.taus:
            t = time.perf_counter()
            rows = [replication(rep, theta, tau, seed_set, bench_set, args.bootstrap) for rep in range(args.replications)]
            s = summary(rows)
            results["demos"][name]["taus"][str(tau)] = s
            r0 = s["rep0"]
            ci = "–" if r0["ci"] is None else f"[{r0['ci'][0]:.2f}, {r0['ci'][1]:.2f}]"
            print(f"{name:14s} tau {tau:.1f}: rep 0 rho {r0['rho']:.2f} {ci} (rho_inf {r0['rho_inf']:.2f}); over {args.replications}: "
                  f"rho mean {s['rho']['mean']:.2f} [p5 {s['rho']['p5']:.2f}, p95 {s['rho']['p95']:.2f}], ci width {s['ci_width']:.2f}, "
                  f"ci holds the mean rho {100 * s['coverage']:.0f}%; rho_inf mean {s['rho_inf']['mean']:.2f}; vs theta: seeds "
                  f"{s['seeds_vs_theta']['mean']:.2f}, benchmark {s['bench_vs_theta']['mean']:.2f} ({time.perf_counter() - t:.1f} s, {load()})",
                  flush=True)  # fmt: skip
    results["wall_s"] = round(time.perf_counter() - t0, 1)
    print(f"wall {results['wall_s']} s; {describe()}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps(results, indent=2, default=lambda o: list(o) if isinstance(o, tuple) else str(o)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
