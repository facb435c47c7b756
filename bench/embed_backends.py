"""Agreement and speed of the MiniLM backends (torch, onnx, onnx-int8, openvino) against torch fp32.

    .venv/bin/python bench/embed_backends.py                  # agreement, then throughput
    .venv/bin/python bench/embed_backends.py --no-throughput  # agreement only (any machine load)

The strings are real-ish: every chunk text, every extracted entity name and every question of
the demo benchmarks under data/. For each backend it prints

- the cosine between its embedding and torch fp32's of the same text (mean, 1st percentile,
  minimum), for chunks and for entity names; the issue's bar is a mean >= 0.99;
- top-5 chunk search: for each query (the questions and a seeded sample of entity names),
  the share whose 5 nearest chunks of its benchmark are the same set as with torch fp32,
  both sides embedded by the backend (bar: >= 95%); and "mixed", the query embedded by the
  backend against chunk vectors from torch fp32, the case of a graph built by one backend
  and queried by another;
- throughput in texts/s for chunk texts and for entity names, wall and per CPU second, with
  the load average beside each figure: run it on a quiet machine, the timings are noisy.

Nothing is downloaded: the model comes from its installed package, and an ONNX export is
built once into the user cache (see judgeagent/graph/embed_backends.py).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import sys
import time
from dataclasses import dataclass
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
DEMOS = ("medqa-demo", "multihop-demo", "quality-demo")
TOP_K = 5
ENTITY_QUERIES = 100  # per benchmark, drawn with a fixed seed
MEAN_COSINE_BAR = 0.99
TOP5_BAR = 0.95


@dataclass
class Corpus:
    """One demo benchmark's strings, and the queries a graph answers about them."""

    name: str
    chunks: list[str]
    entities: list[str]
    questions: list[str]
    sentences: list[str]  # one sentence drawn from each chunk: a short query about one fact
    mentions: list[str]  # entities extracted from the questions that name no graph node exactly

    def chunk_queries(self) -> dict[str, list[str]]:
        """Chunk search is asked with question-like text (the seed batch, a generated question)."""
        return {"questions": self.questions, "sentences": self.sentences}


def load_corpora(seed: int = 0) -> list[Corpus]:
    """Chunks, spaCy entity names, questions, one sentence per chunk and question mentions."""
    from judgeagent.data import load_benchmark
    from judgeagent.graph import SpacyExtractor

    extractor = SpacyExtractor(workers=1)
    rng = random.Random(seed)
    out = []
    for name in DEMOS:
        b = load_benchmark(ROOT / "data" / name)
        chunks = [c.text for c in b.chunks]
        entities = sorted({e for ents in extractor.extract(chunks) for e in ents})
        questions = [q.question for q in b.questions]
        sentences = [rng.choice([s for s in _SENT.split(c) if len(s.split()) >= 5] or [c]) for c in chunks]
        known = set(entities)
        mentions = sorted({e for ents in extractor.extract(questions) for e in ents} - known)
        out.append(Corpus(name, chunks, entities, questions, sentences, mentions))
    return out


_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9])")


def top_k(queries: np.ndarray, index: np.ndarray, k: int = TOP_K) -> list[frozenset[int]]:
    scores = queries @ index.T
    return [frozenset(np.argsort(-row, kind="stable")[:k].tolist()) for row in scores]


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(axis=1)


def embed_all(embedder, corpora: list[Corpus]) -> dict[str, dict[str, np.ndarray]]:
    out = {}
    for c in corpora:
        texts = {"chunks": c.chunks, "entities": c.entities, "mentions": c.mentions, **c.chunk_queries()}
        out[c.name] = {kind: embedder.encode(t) for kind, t in texts.items()}
        out[c.name]["entity_queries"] = out[c.name]["entities"]
    return out


def agreement(vecs: dict, ref: dict) -> dict[str, float]:
    """Cosines to the reference per kind of string, and search agreement per kind of query:
    top-5 chunks for questions and sentences (and, as a stress case, for bare entity names,
    which tie often), top-1 entity for question mentions. ``mixed_*``: the backend's queries
    against the reference's vectors, as when a graph built by torch is queried by another."""
    out: dict[str, float] = {}
    for kind in ("chunks", "entities"):
        cos = np.concatenate([cosines(vecs[n][kind], ref[n][kind]) for n in ref])
        out[f"{kind}_mean"], out[f"{kind}_p1"], out[f"{kind}_min"] = float(cos.mean()), float(np.percentile(cos, 1)), float(cos.min())
    searches = [("questions", "chunks", TOP_K), ("sentences", "chunks", TOP_K), ("entity_queries", "chunks", TOP_K), ("mentions", "entities", 1)]
    for query, index, k in searches:
        same = mixed = total = 0
        for n in ref:
            if not len(ref[n][query]):
                continue
            want = top_k(ref[n][query], ref[n][index], k)
            same += sum(a == b for a, b in zip(top_k(vecs[n][query], vecs[n][index], k), want))
            mixed += sum(a == b for a, b in zip(top_k(vecs[n][query], ref[n][index], k), want))
            total += len(want)
        out[f"same_{query}"], out[f"mixed_{query}"], out[f"n_{query}"] = same / total, mixed / total, total
    chunk_search = ("questions", "sentences")
    out["same_chunk_search"] = sum(out[f"same_{q}"] * out[f"n_{q}"] for q in chunk_search) / sum(out[f"n_{q}"] for q in chunk_search)
    return out


def throughput(embedder, texts: list[str], batch_size: int, repeat: int) -> tuple[float, float, float]:
    """(texts/s wall, texts/s per CPU second, 1-minute load average) over ``repeat`` passes."""
    embedder.encode(texts[:batch_size], batch_size=batch_size)  # warm up: load, first-call costs
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(repeat):
        # Each pass encodes again: the embedder de-duplicates within one call, never across calls.
        embedder.encode(texts, batch_size=batch_size)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    n = len(texts) * repeat
    return n / wall, n / max(cpu, 1e-9), os.getloadavg()[0]


def make_embedder(backend: str):
    from judgeagent.graph.embed import Embedder

    if backend == "torch-fp32":
        return Embedder(backend="torch", bf16=False)
    return Embedder(backend=backend)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--backends", default="torch,onnx,onnx-int8,openvino", help="comma list; torch-fp32 is always the reference")
    ap.add_argument("--throughput", action=argparse.BooleanOptionalAction, default=True)
    ap.add_argument("--repeat", type=int, default=3, help="passes over the texts per throughput figure")
    args = ap.parse_args()
    from judgeagent.errors import JudgeAgentError
    from judgeagent.graph.embed import bf16_supported

    corpora = load_corpora()
    n = lambda attr: sum(len(getattr(c, attr)) for c in corpora)  # noqa: E731
    print(f"strings from {', '.join(DEMOS)}: {n('chunks')} chunks, {n('entities')} entity names, {n('questions')} questions, "
          f"{n('sentences')} chunk sentences, {n('mentions')} question mentions; native bf16: {bf16_supported()}; load {os.getloadavg()[0]:.2f}")
    embedders = {"torch-fp32": make_embedder("torch-fp32")}
    ref = embed_all(embedders["torch-fp32"], corpora)
    print(f"\nagreement with torch fp32. Bars: mean cosine >= {MEAN_COSINE_BAR}; the same top-{TOP_K} chunks for >= {TOP5_BAR:.0%} of "
          "chunk-search queries (questions + sentences). Also: names = bare entity names as chunk queries (a stress case), "
          "mention = top-1 entity for question mentions; (mixed) = backend queries against torch-fp32 vectors")
    print(f"{'backend':<12} {'precision':<14} {'chunk cos mean/p1/min':<23} {'entity cos mean/p1/min':<23} "
          f"{'questions':>9} {'sentences':>9} {'names':>6} {'mention':>7}  verdict")
    for backend in args.backends.split(","):
        try:
            embedders[backend] = emb = make_embedder(backend)
            a = agreement(embed_all(emb, corpora), ref)
        except JudgeAgentError as e:
            print(f"{backend:<12} skipped: {e}")
            continue
        ok = min(a["chunks_mean"], a["entities_mean"]) >= MEAN_COSINE_BAR and a["same_chunk_search"] >= TOP5_BAR
        print(f"{backend:<12} {emb.precision:<14} {a['chunks_mean']:.4f}/{a['chunks_p1']:.4f}/{a['chunks_min']:.4f}  "
              f"{a['entities_mean']:.4f}/{a['entities_p1']:.4f}/{a['entities_min']:.4f}  "
              f"{a['same_questions']:>9.1%} {a['same_sentences']:>9.1%} {a['same_entity_queries']:>6.1%} {a['same_mentions']:>7.1%}  "
              f"{'agrees' if ok else 'BELOW THE BAR'}")
        print(f"{'':<12} {'(mixed)':<14} {'':<23} {'':<23} {a['mixed_questions']:>9.1%} {a['mixed_sentences']:>9.1%} "
              f"{a['mixed_entity_queries']:>6.1%} {a['mixed_mentions']:>7.1%}")
    if not args.throughput:
        return
    chunks = [t for c in corpora for t in c.chunks]
    names = [t for c in corpora for t in c.entities]
    print(f"\nthroughput, texts/s (wall | per CPU second), {args.repeat} passes, {os.cpu_count()} cores; load average beside each")
    for backend, emb in embedders.items():
        cw, cc, cl = throughput(emb, chunks, 64, args.repeat)
        nw, nc, nl = throughput(emb, names, 256, args.repeat)
        print(f"{backend:<12} chunks {cw:7.1f} | {cc:7.1f} (load {cl:.2f})   entity names {nw:7.1f} | {nc:7.1f} (load {nl:.2f})")


if __name__ == "__main__":
    main()
