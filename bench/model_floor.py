"""The fastest a graph build of real prose can be on this CPU: the two models' own CPU per chunk.

    .venv/bin/python bench/model_floor.py [--words 1000000] [--sample 800] [--cores 2] [--int8] [--backends torch,openvino]
    JUDGEAGENT_EMBED_BF16=0 .venv/bin/python bench/model_floor.py     # MiniLM in fp32, as on an AVX2-only CPU

A build cannot run faster than its models. On a seeded sample of the real-prose chunks
(``bench/real_prose.py``, chunked as ``build-graph`` does) it measures, in CPU seconds per
1,000 chunks with torch on one thread:

* spaCy, component by component (tokenizer, tok2vec, tagger, parser, attribute ruler, NER)
  and the builder's own span-to-name rules;
* MiniLM (the builder's backend and precision) on the chunk texts, and per entity name;

* each MiniLM backend of ``--backends`` the same way (torch is the default; the others are
  extras), and WordLlama's static vectors (``--entity-encoder``/``--chunk-encoder wordllama``);

then scales the names to the whole corpus's distinct names (they are embedded once each,
and the sample has more names per chunk than the corpus has distinct ones), and prints, for
each way of serving the two roles, the CPU the models need for the corpus, the chunks/s
they allow on ``--cores`` fully busy cores, and the CPU a target rate allows (default: 40
where bf16 is native, 30 where it is not: issue 35's targets). ``--int8`` also measures torch's dynamic int8
quantisation of MiniLM (CPU and cosine to fp32), the cheapest kernel this CPU offers.

Run it alone on a quiet machine: CPU seconds are steadier than wall time, but cores shared
with other work still slow it.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


def per_thousand(seconds: float, n: int) -> float:
    return seconds / n * 1000


def spacy_profile(texts: list[str]) -> tuple[dict[str, float], list[str]]:
    """CPU seconds of each spaCy stage over ``texts`` and the distinct names extracted."""
    from judgeagent.graph.extract import doc_mentions, head_lemma, load_pipeline

    nlp, lemma = load_pipeline(), head_lemma()
    times: dict[str, float] = {}
    t = time.process_time()
    docs = [nlp.make_doc(s) for s in texts]
    times["tokenizer"] = time.process_time() - t
    for name, proc in nlp.pipeline:
        t = time.process_time()
        docs = list(proc.pipe(docs, batch_size=64))
        times[name] = time.process_time() - t
    t = time.process_time()
    mentions = [doc_mentions(d, lemma) for d in docs]
    times["name rules"] = time.process_time() - t
    names = sorted({m[0] for found, _ in mentions for m in found})
    return times, names


def embed_cpu(embedder, texts: list[str], batch_size: int) -> tuple[float, np.ndarray]:
    embedder.encode(texts[:batch_size], batch_size=batch_size)  # load and warm up outside the clock
    t = time.process_time()
    vecs = embedder.encode(texts, batch_size=batch_size)
    return time.process_time() - t, vecs


def int8_check(texts: list[str], names: list[str]) -> None:
    import torch
    from sentence_transformers import SentenceTransformer

    from judgeagent.minilm import model_path

    def encode(model, items, bs):
        v = model.encode(items, batch_size=bs, convert_to_numpy=True, show_progress_bar=False)
        return v / np.linalg.norm(v, axis=1, keepdims=True)

    fp32 = SentenceTransformer(model_path(), device="cpu")
    q8 = torch.ao.quantization.quantize_dynamic(fp32, {torch.nn.Linear}, dtype=torch.qint8)
    ref_c, ref_n = encode(fp32, texts, 16), encode(fp32, names, 64)
    encode(q8, texts[:16], 16)
    t = time.process_time()
    got_c = encode(q8, texts, 16)
    cpu = time.process_time() - t
    got_n = encode(q8, names, 64)
    cos_c, cos_n = (got_c * ref_c).sum(1), (got_n * ref_n).sum(1)
    print(f"  int8 (torch dynamic): chunks {per_thousand(cpu, len(texts)):.1f} CPU s per 1,000; cosine to fp32: "
          f"chunks mean {cos_c.mean():.3f} min {cos_c.min():.3f}, names mean {cos_n.mean():.3f} min {cos_n.min():.3f} "
          "(the backends' bar is a mean of 0.99)")


def main(argv=None) -> int:
    import real_prose

    from judgeagent.config import GraphConfig
    from judgeagent.data import generic
    from judgeagent.graph.embed import Embedder

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--words", type=int, default=1_000_000)
    ap.add_argument("--sample", type=int, default=800, help="chunks measured, drawn with --seed")
    ap.add_argument("--cores", type=int, default=2)
    ap.add_argument("--target", type=float, default=None, help="chunks/s to compare with (default 40 with bf16, 30 without)")
    ap.add_argument("--backends", default="torch", help="MiniLM backends to measure, comma-separated")
    ap.add_argument("--int8", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)

    config = GraphConfig()
    folder, n_docs, n_words = real_prose.write_corpus(args.words, tuple(real_prose.DEFAULT_PACKAGES))
    texts = [c.text for c in generic.load(folder, chunk_tokens=config.chunk_tokens).chunks]
    sample = random.Random(args.seed).sample(texts, min(args.sample, len(texts)))
    from machine import describe

    from judgeagent.graph.embed import bf16_supported

    print(describe())
    print(f"{folder.name}: {len(texts)} chunks; measuring {len(sample)} (seed {args.seed})   ({load()})")
    target = args.target or (40.0 if bf16_supported() else 30.0)

    import torch

    torch.set_num_threads(1)
    times, names = spacy_profile(sample)
    spacy_k = per_thousand(sum(times.values()), len(sample))
    print(f"spaCy: {spacy_k:.1f} CPU s per 1,000 chunks: " + ", ".join(
        f"{k} {per_thousand(v, len(sample)):.1f}" for k, v in times.items()) + f"   ({load()})")

    from judgeagent.graph.static_embed import StaticEncoder

    costs: dict[str, tuple[float, float]] = {}  # encoder -> (CPU s per 1,000 chunk texts, CPU ms per name)
    for backend in [b for b in args.backends.split(",") if b]:
        embedder = Embedder(backend=backend)
        chunk_cpu, _ = embed_cpu(embedder, sample, 16)
        name_cpu, _ = embed_cpu(embedder, names, 64)
        costs[f"minilm/{backend}"] = (per_thousand(chunk_cpu, len(sample)), name_cpu / len(names) * 1000)
        print(f"MiniLM {backend} ({embedder.precision}): chunk texts {costs[f'minilm/{backend}'][0]:.1f} CPU s per "
              f"1,000 chunks; entity names {costs[f'minilm/{backend}'][1]:.2f} CPU ms each   ({load()})")
    static = StaticEncoder()
    chunk_cpu, _ = embed_cpu(static, sample, 16)
    name_cpu, _ = embed_cpu(static, names, 64)
    costs["wordllama"] = (per_thousand(chunk_cpu, len(sample)), name_cpu / len(names) * 1000)
    print(f"WordLlama static ({static.precision}): chunk texts {costs['wordllama'][0]:.2f} CPU s per 1,000 chunks; "
          f"entity names {costs['wordllama'][1]:.3f} CPU ms each   ({load()})")
    if args.int8:
        int8_check(sample[:300], names[:3000])

    # The whole corpus's distinct names, from the same extractor: counted, not embedded.
    from judgeagent.graph.extract import SpacyExtractor

    t = time.perf_counter()
    corpus_names = {n for ents in SpacyExtractor(workers=args.cores).extract(texts) for n in ents}
    print(f"distinct names in the corpus: {len(corpus_names)} ({len(corpus_names) / len(texts):.1f} per chunk; "
          f"counted in {time.perf_counter() - t:.0f} s)")
    allowed = len(texts) / target * args.cores
    print(f"{target:g} chunks/s on {args.cores} cores allows {allowed:.0f} CPU s for the corpus. The models' own CPU, "
          f"by the encoders serving (chunks, entity names):")
    spacy_total = spacy_k * len(texts) / 1000
    minilm = [k for k in costs if k.startswith("minilm/")]
    for chunks_by in [*minilm, "wordllama"]:
        for names_by in dict.fromkeys([chunks_by, *minilm[:1], "wordllama"]):
            total = spacy_total + costs[chunks_by][0] * len(texts) / 1000 + costs[names_by][1] * len(corpus_names) / 1000
            print(f"  chunks {chunks_by:<16} names {names_by:<16} {total:6.0f} CPU s -> at most "
                  f"{len(texts) / (total / args.cores):5.1f} chunks/s (spaCy {spacy_total:.0f})")
    print(f"({load()})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
