"""What a lazily built graph costs a run, and how good its lexical first stage is.

Called by ``bench/build_graph.py --real-prose WORDS`` after a lazy build (the default); also

    .venv/bin/python bench/lazy_costs.py GRAPH_DIR --real-prose WORDS

for a graph built already. Held-out text comes from the documents a larger real-prose corpus
adds (``bench/real_prose.py``: a larger corpus is a prefix-extension of a smaller one), so no
query is a chunk of the graph. It prints, each with the load average:

1. **On-demand embedding per batch**, cold and warm: pseudo seed batches (three held-out
   sentences each, :data:`BATCHES` of them) planned with the interview's own ``plan_batches``
   on a cold graph (nothing embedded yet), then again by a new process-level graph object on
   the same folder (warm: everything read back from the graph folder's cache): CPU seconds of
   embedding and texts embedded, per batch.
2. **Recall of the lexical first stage** against the candidate count: for held-out
   paragraphs, how often MiniLM's nearest chunk over the whole graph is among BM25's top K;
   for names extracted from held-out paragraphs that name no node exactly, how often
   MiniLM's nearest node name is among the character-similarity top K. The exact nearest is
   computed over every vector (MiniLM in batches, the run's precision), which is what a full
   build's FAISS search returns.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

CHUNK_KS = (25, 50, 100, 150, 200, 300, 400, 800)
NAME_KS = (10, 25, 50, 100, 150, 200, 400)
BATCHES = 16  # one planning block (judgeagent.stages.planning.PLAN_BLOCK)
TEXT_QUERIES = 300
NAME_QUERIES = 500
MIN_QUERY_WORDS = 40


def load() -> str:
    return f"load {os.getloadavg()[0]:.2f}"


def held_out(graph_folder: Path, words: int) -> list[str]:
    """Paragraphs of the documents a larger real-prose corpus adds to the graph's."""
    import real_prose

    folder, _, _ = real_prose.write_corpus(words)
    bigger, _, _ = real_prose.write_corpus(int(words * 1.25))
    seen = {json.loads(line)["doc_id"] for line in open(folder / "corpus.jsonl", encoding="utf-8")}
    docs = [json.loads(line) for line in open(bigger / "corpus.jsonl", encoding="utf-8")]
    return [p for d in docs if d["doc_id"] not in seen for p in d["text"].split("\n\n")]


def pseudo_batches(paragraphs: list[str], seed: int):
    """Seed batches of three held-out sentences (a question's length), as plan_batches takes them."""
    from judgeagent.batches import Batch
    from judgeagent.data.benchmark import Question

    rng = random.Random(seed)
    sentences = [s.strip() for p in paragraphs for s in re.split(r"(?<=[.?!])\s+", p) if 12 <= len(s.split()) <= 40]
    picked = rng.sample(sentences, 3 * BATCHES)
    return [Batch(i, f"b{i:04d}", [Question(f"q{3 * i + j}", picked[3 * i + j], "n/a") for j in range(3)])
            for i in range(BATCHES)]


def plan_costs(folder: Path, batches, extractor) -> dict:
    """Embedding work of planning ``batches`` on a cold graph, then a warm one."""
    from judgeagent.graph import load_graph
    from judgeagent.graph.fixed_precision import decision_embedder
    from judgeagent.stages.planning import PathLength, Setting, plan_batches

    todo = [(Setting("full"), b) for b in batches]
    length = PathLength(hops=2, rounds=3, seed=0)
    out = {}
    plans = {}
    for label in ("cold", "warm"):
        graph = load_graph(folder)
        # The models' loads are not an interview's per-batch cost (the run's own and the fp32 decision one).
        graph.embed(["load the model first"])
        decision_embedder(graph.embedder).encode(["and the decision model"])
        before_n, before_cpu = graph.embedding_work()
        t0, c0 = time.perf_counter(), time.process_time()
        plans[label] = plan_batches(graph, extractor, batches, todo, length)
        wall, cpu = time.perf_counter() - t0, time.process_time() - c0
        n, emb_cpu = graph.embedding_work()
        n, emb_cpu = n - before_n, emb_cpu - before_cpu
        out[label] = {"texts_per_batch": n / len(batches), "embed_cpu_s_per_batch": emb_cpu / len(batches),
                      "plan_cpu_s_per_batch": cpu / len(batches), "plan_wall_s_per_batch": wall / len(batches)}
        print(f"on-demand embedding, {label} graph: {n / len(batches):.0f} texts and {emb_cpu / len(batches):.2f} CPU s "
              f"per batch (planning in all {cpu / len(batches):.2f} CPU s, {wall / len(batches):.2f} s per batch; "
              f"{len(batches)} batches)   ({load()})", flush=True)
    out["same_plans_cold_warm"] = plans["cold"] == plans["warm"]
    print(f"warm plans equal cold plans: {out['same_plans_cold_warm']}")
    return out


def recall_at(ranks: np.ndarray, ks) -> dict[int, float]:
    return {k: float(np.mean(ranks < k)) for k in ks}


def chunk_recall(graph, paragraphs: list[str], embedder, seed: int) -> dict:
    """How often the exact nearest chunk is among BM25's top K."""
    rng = random.Random(seed)
    long = [p for p in paragraphs if len(p.split()) >= MIN_QUERY_WORDS]
    queries = rng.sample(long, min(TEXT_QUERIES, len(long)))
    texts = [graph.chunk_text(c) for c in graph.chunk_ids]
    t0 = time.process_time()
    chunk_vecs = embedder.encode(texts, batch_size=16)
    query_vecs = embedder.encode(queries, batch_size=16)
    cpu = time.process_time() - t0
    exact = np.argmax(query_vecs @ chunk_vecs.T, axis=1)
    ranks = []
    for q, e in zip(queries, exact):
        scores = graph.lexicon.scores(q).astype(np.float64)
        # Rank as candidates() orders them: score, then row; a chunk sharing no word ranks last.
        better = np.sum(scores > scores[e]) + np.sum((scores == scores[e]) & (np.arange(len(scores)) < e))
        ranks.append(better if scores[e] > 0 else len(scores))
    r = recall_at(np.asarray(ranks), CHUNK_KS)
    print(f"chunk first stage (BM25), {len(queries)} held-out paragraphs, {len(texts)} chunks: exact top-1 among the "
          f"top K for " + ", ".join(f"K={k}: {v:.1%}" for k, v in r.items())
          + f"   (exact vectors: {cpu:.0f} CPU s; {load()})", flush=True)
    return {"queries": len(queries), "recall": r}


def name_recall(graph, paragraphs: list[str], embedder, extractor, seed: int) -> dict:
    """How often the exact nearest node name is among the character-similarity top K."""
    from rapidfuzz import fuzz, process

    from judgeagent.graph.normalize import normalize_query

    rng = random.Random(seed)
    sample = rng.sample(paragraphs, min(600, len(paragraphs)))
    extracted = {n for ns in extractor.extract(sample) for n in ns}
    free = sorted(n for n in extracted if normalize_query(n) not in graph)
    queries = rng.sample(free, min(NAME_QUERIES, len(free)))
    live = np.flatnonzero(~np.asarray(graph.tables.stop, dtype=bool))
    names = [graph.entity_names[i] for i in live]
    t0 = time.process_time()
    name_vecs = embedder.encode(names, batch_size=64)
    query_vecs = embedder.encode(queries, batch_size=64)
    cpu = time.process_time() - t0
    exact = np.argmax(query_vecs @ name_vecs.T, axis=1)
    scorers = {"ratio": [fuzz.ratio], "token_set_ratio": [fuzz.token_set_ratio], "WRatio": [fuzz.WRatio],
               "max(ratio, token_set)": [fuzz.ratio, fuzz.token_set_ratio]}
    out = {}
    for label, fns in scorers.items():
        t1 = time.perf_counter()
        scores = np.max([process.cdist(queries, names, scorer=f, dtype=np.float32, workers=1) for f in fns], axis=0)
        seconds = (time.perf_counter() - t1) / len(queries)
        ranks = []
        for s, e in zip(scores, exact):
            better = np.sum(s > s[e]) + np.sum((s == s[e]) & (np.arange(len(s)) < e))
            ranks.append(better)
        r = recall_at(np.asarray(ranks), NAME_KS)
        out[label] = {"recall": r, "ms_per_query": 1000 * seconds}
        print(f"name first stage ({label}), {len(queries)} free names, {len(names)} node names: exact top-1 among the "
              f"top K for " + ", ".join(f"K={k}: {v:.1%}" for k, v in r.items())
              + f"; {1000 * seconds:.1f} ms per query   ({load()})", flush=True)
    print(f"(exact name vectors: {cpu:.0f} CPU s)")
    return {"queries": len(queries), "scorers": out}


def measure(folder: Path, words: int, seed: int = 0, recall: bool = True) -> dict:
    from judgeagent.graph import SpacyExtractor, load_graph, shared_embedder

    paragraphs = held_out(folder, words)
    extractor = SpacyExtractor(workers=1)
    figures = {"plan": plan_costs(folder, pseudo_batches(paragraphs, seed), extractor)}
    if recall:
        graph = load_graph(folder)
        embedder = shared_embedder(graph.meta.embedding_model.backend)
        figures["chunk_recall"] = chunk_recall(graph, paragraphs, embedder, seed)
        figures["name_recall"] = name_recall(graph, paragraphs, embedder, extractor, seed)
    return figures


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("graph", type=Path, help="a lazily built graph of the real-prose corpus")
    ap.add_argument("--real-prose", type=int, required=True, metavar="WORDS", help="the words it was built from")
    ap.add_argument("--no-recall", action="store_true")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)
    from machine import describe

    print(describe())
    figures = measure(args.graph, args.real_prose, recall=not args.no_recall)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
