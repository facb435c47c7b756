"""How far the CPU moves the scores that decide a threshold on MiniLM cosines (issue 30).

A CPU with native bf16 runs MiniLM under bf16 autocast; one without (AVX2 only) runs it in
fp32 with AVX2 kernels, numpy's OpenBLAS included. For each place where a verdict is a
threshold on cosines, this prints the largest score difference between

* ``bf16``: bf16 vectors, this CPU's kernels (what the run's own embedder gives here);
* ``fp32``: fp32 vectors, this CPU's kernels (what every decision now uses:
  judgeagent.graph.fixed_precision);
* ``fp32-avx2``: fp32 vectors and scores computed in a subprocess held to AVX2 kernels
  (``OPENBLAS_CORETYPE=Haswell``, ``ONEDNN_MAX_CPU_ISA=AVX2``, ``MKL_ENABLE_INSTRUCTIONS=AVX2``,
  ``ATEN_CPU_CAPABILITY=avx2``): what an AVX2 machine computes, which is how issue 30's
  failure is reproduced on this CPU;

and how many verdicts differ at the site's threshold. The sites and their real data:

* the leakage guard's semantic layer (judgeagent/stages/leak_semantic.py): every suggestion of
  bench/leak_corpus.jsonl against its batch, and the content-free sentences against every batch;
* its ``embedding`` check (judgeagent/stages/leakage.py): each sentence's cosine to each
  question's answer text, on the same suggestions;
* the quality gate's ``not_seed_copy`` / ``not_duplicate`` (judgeagent/stages/gate.py): every
  generated follow-up in tests/fixtures/replay against the medqa-demo seed stems, and every
  pair of seed stems of each demo benchmark in data/;
* the seed-entity matching floor and MENTION_SIMILARITY (judgeagent/graph/seeds.py): the names
  spaCy extracts from each demo benchmark's seeds, each with the node its graph's index
  proposes (graphs built once into ``--graphs``).

The decontamination check (judgeagent/stages/decontaminate.py) decides on the judge's answers
and normalised strings, no embedding score, so it has no site here.

Run alone (it loads MiniLM twice and spaCy):
    flock -x /tmp/ja-cpu.lock .venv/bin/python bench/precision.py [--graphs /tmp/precision-graphs]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

AVX2_ENV = {"OPENBLAS_CORETYPE": "Haswell", "ONEDNN_MAX_CPU_ISA": "AVX2", "MKL_ENABLE_INSTRUCTIONS": "AVX2",
            "ATEN_CPU_CAPABILITY": "avx2", "JUDGEAGENT_EMBED_BF16": "0"}
DEMOS = ("medqa-demo", "multihop-demo", "quality-demo")


class Vectors:
    """An embedder double over a given model: the scoring functions take it as it is (it is no
    MiniLM Embedder, so judgeagent.graph.fixed_precision leaves it alone) and so see the
    vectors of the precision under test."""

    def __init__(self, embedder):
        self.embedder = embedder
        self.cache: dict[str, np.ndarray] = {}

    def encode(self, texts):
        missing = list(dict.fromkeys(t for t in texts if t not in self.cache))
        if missing:
            self.cache.update(zip(missing, self.embedder.encode(missing)))
        return np.stack([self.cache[t] for t in texts]).astype(np.float32)


# --- the inputs of each site (made once, in the parent) -------------------------------------------


def plan(graphs: Path) -> dict:
    """Every input each site scores: the same in every process that scores them."""
    from judgeagent.data import load_benchmark
    from tests.leak_table import load_corpus

    corpus = load_corpus()
    demo = {name: load_benchmark(ROOT / "data" / name) for name in DEMOS}
    followups = _fixture_followups()
    return {
        "leak": [[s.text, s.batch] for s in corpus.suggestions],
        "seeds": {name: [q.question for q in b.questions] for name, b in demo.items()},
        "followups": followups,
        "names": _name_pairs(demo, graphs),
    }


def _fixture_followups() -> list[str]:
    """The follow-up stems the bundled model generated in the replay fixtures' runs."""
    found: list[str] = []

    def walk(x, key=""):
        if isinstance(x, dict):
            for k, v in x.items():
                walk(v, k)
        elif isinstance(x, list):
            for v in x:
                walk(v, key)
        elif key == "question" and isinstance(x, str):
            found.append(x)

    for path in sorted((ROOT / "tests" / "fixtures" / "replay").glob("*/records.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            for k in ("rounds", "interview", "dialogue", "generated"):
                walk(record.get(k))
    return list(dict.fromkeys(found))


def _name_pairs(demo: dict, graphs: Path) -> list[list[str]]:
    """(benchmark, name, proposed node) for every name extracted from the seeds that no node
    names exactly: the pairs whose cosine the matching floor decides on."""
    from judgeagent.config import GraphConfig
    from judgeagent.graph import build_graph, load_graph, make_extractor
    from judgeagent.stages.planning import seed_text

    extractor = make_extractor(GraphConfig())
    pairs = []
    for name, bench in demo.items():
        out = graphs / name
        if not (out / "manifest.json").exists():
            print(f"building the {name} graph into {out} ...", file=sys.stderr)
            build_graph(bench, GraphConfig(), out, progress=False)
        graph = load_graph(out)
        names = sorted({n for ns in extractor.extract([seed_text(q) for q in bench.questions]) for n in ns})
        for m in graph.resolve_entities(names):
            if m is not None and not m.exact:
                pairs.append([name, m.query, m.entity])
    return pairs


# --- the scores of each site (in whichever process and precision) -----------------------------------


def scores(inputs: dict, embedder) -> dict[str, dict[str, float]]:
    """Site → {input key: score}, with ``embedder``'s vectors and this process's kernels."""
    from judgeagent.stages.controls import PLACEBO_SENTENCES
    from judgeagent.stages.leak_rules import identifying
    from judgeagent.stages.leak_semantic import scores as semantic_scores
    from judgeagent.stages.leakage import _distractors, _sentences, answer_texts
    from tests.leak_table import load_corpus

    batches = load_corpus().batches
    vec = Vectors(embedder)
    out: dict[str, dict[str, float]] = {"semantic": {}, "content_free": {}, "embedding": {}, "gate": {}, "matching": {}}
    checks = [(text, b) for text, b in inputs["leak"]] + [(p, b) for p in PLACEBO_SENTENCES for b in batches]
    for text, b in checks:
        for s in semantic_scores(text, batches[b], vec):
            kind = "options" if s.option else "phrase"
            out["semantic"][f"{kind}|{b}|{s.question_id}|{text}|{s.sentence}"] = s.score
            out["content_free"][f"{kind}|{b}|{s.question_id}"] = s.content_free
    for text, b in inputs["leak"]:
        sents = _sentences(text)
        qs = [q for q in batches[b] if identifying(q.answer_text)]
        if not sents or not qs:
            continue
        v = vec.encode(sents + answer_texts(qs))
        sims = v[: len(sents)] @ v[len(sents) :].T
        col = 0
        for q in qs:
            others = sims[:, col + 1 : col + 1 + len(_distractors(q))]
            for i, sent in enumerate(sents):
                out["embedding"][f"{b}|{q.id}|{sent}"] = float(sims[i, col])
                out["embedding"][f"other|{b}|{q.id}|{sent}"] = float(others[i].max()) if others.shape[1] else -1.0
            col += 1 + len(_distractors(q))
    seeds = inputs["seeds"]
    for name, stems in seeds.items():
        v = vec.encode(stems)
        sims = v @ v.T
        for i in range(len(stems)):
            for j in range(i + 1, len(stems)):
                out["gate"][f"{name}|{i}|{j}"] = float(sims[i, j])
    if inputs["followups"]:
        f = vec.encode(inputs["followups"])
        s = vec.encode(seeds["medqa-demo"])
        sims = f @ s.T
        for i in range(len(f)):
            for j in range(len(s)):
                out["gate"][f"followup|{i}|{j}"] = float(sims[i, j])
        dup = f @ f.T
        for i in range(len(f)):
            for j in range(i + 1, len(f)):
                out["gate"][f"duplicate|{i}|{j}"] = float(dup[i, j])
    for bench, name, entity in inputs["names"]:
        a, b2 = vec.encode([name, entity])
        out["matching"][f"{bench}|{name}|{entity}"] = float(np.dot(a, b2))
    return out


# --- verdicts, differences, report ----------------------------------------------------------------


def semantic_verdicts(s: dict, margin: float) -> dict[str, bool]:
    from judgeagent.stages.leak_semantic import THRESHOLD_OPTIONS, THRESHOLD_PHRASE

    out = {}
    for key, score in s["semantic"].items():
        kind, b, qid = key.split("|")[:3]
        threshold = THRESHOLD_OPTIONS if kind == "options" else THRESHOLD_PHRASE
        out[key] = score >= threshold and score > s["content_free"][f"{kind}|{b}|{qid}"] + margin
    return out


def embedding_verdicts(s: dict, threshold: float) -> dict[str, bool]:
    e = s["embedding"]
    return {k: e[k] >= threshold and e[k] > e["other|" + k] for k in e if not k.startswith("other|")}


def threshold_verdicts(site: dict[str, float], threshold: float) -> dict[str, bool]:
    return {k: v >= threshold for k, v in site.items()}


def largest_difference(a: dict[str, float], b: dict[str, float], keys: Iterable[str] | None = None) -> tuple[float, str]:
    keys = list(keys if keys is not None else a)
    if not keys:
        return 0.0, ""
    diffs = [(abs(a[k] - b[k]), k) for k in keys]
    return max(diffs)


def flips(a: dict[str, bool], b: dict[str, bool]) -> list[str]:
    return [k for k in a if a[k] != b[k]]


def nearest(site: dict[str, float], threshold: float) -> float:
    return min((abs(v - threshold) for v in site.values()), default=float("nan"))


def report(runs: dict[str, dict], margin: float) -> None:
    from judgeagent.graph.seeds import MENTION_SIMILARITY
    from judgeagent.stages.gate import GateConfig
    from judgeagent.stages.leak_semantic import THRESHOLD_OPTIONS, THRESHOLD_PHRASE
    from judgeagent.stages.planning import MIN_ENTITY_SIMILARITY

    gate_threshold = GateConfig().seed_similarity
    fp32 = runs["fp32"]
    for other in ("bf16", "fp32-avx2"):
        o = runs[other]
        print(f"\nfp32 (this CPU) against {other}:")
        for kind in ("options", "phrase"):
            keys = [k for k in fp32["semantic"] if k.startswith(kind)]
            d, k = largest_difference(fp32["semantic"], o["semantic"], keys)
            print(f"  semantic score, {kind:<8} {len(keys):>6} scores, largest difference {d:.2e}")
        d, _ = largest_difference(fp32["content_free"], o["content_free"])
        print(f"  semantic content-free maximum      {len(fp32['content_free']):>6} values, largest difference {d:.2e}")
        for name, m in (("strict (> content-free)", 0.0), (f"margin {margin:g}", margin)):
            f = flips(semantic_verdicts(fp32, m), semantic_verdicts(o, m))
            print(f"  semantic verdicts, {name}: {len(f)} differ" + "".join(f"\n      {k.split('|', 3)[3][:110]}" for k in f[:6]))
        keys = [k for k in fp32["embedding"] if not k.startswith("other|")]
        d, _ = largest_difference(fp32["embedding"], o["embedding"])
        print(f"  embedding check cosine             {len(keys):>6} cosines, largest difference {d:.2e}, "
              f"verdicts at 0.85 differing: {len(flips(embedding_verdicts(fp32, 0.85), embedding_verdicts(o, 0.85)))}")
        near = [k for k in fp32["gate"] if fp32["gate"][k] >= 0.7]
        d, _ = largest_difference(fp32["gate"], o["gate"])
        dn, _ = largest_difference(fp32["gate"], o["gate"], near)
        print(f"  gate stem cosine                   {len(fp32['gate']):>6} pairs, largest difference {d:.2e} "
              f"({len(near)} pairs at 0.7 or more: {dn:.2e}), verdicts at {gate_threshold} differing: "
              f"{len(flips(threshold_verdicts(fp32['gate'], gate_threshold), threshold_verdicts(o['gate'], gate_threshold)))}")
        d, _ = largest_difference(fp32["matching"], o["matching"])
        f = [len(flips(threshold_verdicts(fp32["matching"], t), threshold_verdicts(o["matching"], t))) for t in (MIN_ENTITY_SIMILARITY, MENTION_SIMILARITY)]
        print(f"  seed matching cosine               {len(fp32['matching']):>6} pairs, largest difference {d:.2e}, "
              f"verdicts differing at {MIN_ENTITY_SIMILARITY}: {f[0]}, at {MENTION_SIMILARITY}: {f[1]}")
    print("\nDistance of each threshold from the nearest fp32 score it decides on:")
    opts = {k: v for k, v in fp32["semantic"].items() if k.startswith("options")}
    phrase = {k: v for k, v in fp32["semantic"].items() if k.startswith("phrase")}
    answer = {k: v for k, v in fp32["embedding"].items() if not k.startswith("other|")}
    print(f"  semantic {THRESHOLD_OPTIONS} (options) {nearest(opts, THRESHOLD_OPTIONS):.6f}; {THRESHOLD_PHRASE} (phrase) "
          f"{nearest(phrase, THRESHOLD_PHRASE):.6f}; embedding 0.85 {nearest(answer, 0.85):.6f}; gate {gate_threshold} "
          f"{nearest(fp32['gate'], gate_threshold):.6f}; matching {MIN_ENTITY_SIMILARITY} "
          f"{nearest(fp32['matching'], MIN_ENTITY_SIMILARITY):.6f}, {MENTION_SIMILARITY} {nearest(fp32['matching'], MENTION_SIMILARITY):.6f}")


def cpu_flags() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("flags"):
                flags = set(line.split(":", 1)[1].split())
                return " ".join(f for f in ("avx2", "avx512f", "avx512_bf16", "amx_bf16") if f in flags)
    except OSError:
        pass
    return "?"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--graphs", type=Path, default=Path(tempfile.gettempdir()) / "precision-graphs",
                        help="where the demo graphs are built (reused when there)")
    parser.add_argument("--score", nargs=2, metavar=("PLAN", "OUT"), help=argparse.SUPPRESS)  # the subprocess's job
    args = parser.parse_args()
    from judgeagent.graph.embed import Embedder
    from judgeagent.stages.leak_semantic import CONTENT_FREE_MARGIN

    if args.score:
        inputs = json.loads(Path(args.score[0]).read_text(encoding="utf-8"))
        Path(args.score[1]).write_text(json.dumps(scores(inputs, Embedder(bf16=False))), encoding="utf-8")
        return 0
    one, five, fifteen = os.getloadavg()
    print(f"CPU flags: {cpu_flags()}; load average {one:.2f}, {five:.2f}, {fifteen:.2f} ({os.cpu_count()} cores)")
    inputs = plan(args.graphs)
    print(f"inputs: {len(inputs['leak'])} leak-corpus suggestions, {sum(map(len, inputs['seeds'].values()))} seed stems, "
          f"{len(inputs['followups'])} generated follow-ups, {len(inputs['names'])} extracted names matched by similarity")
    runs = {"fp32": scores(inputs, Embedder(bf16=False)), "bf16": scores(inputs, Embedder(bf16=True))}
    with tempfile.TemporaryDirectory() as tmp:
        plan_file, out = Path(tmp) / "plan.json", Path(tmp) / "scores.json"
        plan_file.write_text(json.dumps(inputs), encoding="utf-8")
        env = {**os.environ, **AVX2_ENV, "PYTHONPATH": str(ROOT)}
        subprocess.run([sys.executable, __file__, "--score", str(plan_file), str(out)], env=env, check=True)
        runs["fp32-avx2"] = json.loads(out.read_text(encoding="utf-8"))
    report(runs, CONTENT_FREE_MARGIN)
    one, five, fifteen = os.getloadavg()
    print(f"\nload average {one:.2f}, {five:.2f}, {fifteen:.2f} at end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
