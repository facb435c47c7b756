"""Benchmark the graph build on a corpus that behaves like real text.

    .venv/bin/python bench/build_graph.py --chunks 2000
    .venv/bin/python bench/build_graph.py --chunks 20000 --incremental
    .venv/bin/python bench/build_graph.py --chunks 20000 --engine ray --ray-nodes 2
    .venv/bin/python bench/build_graph.py --real-prose 1000000      # real documentation, 1M words
    .venv/bin/python bench/build_graph.py --real-prose 1000000 --embed all   # every vector at build time

Entity count and edge count, not chunk count, decide a build's speed and memory, so the
corpus is generated to have real text's diversity rather than recombined from a few hundred
sentences: people, organisations, places and technical terms are drawn from large generated
vocabularies (pseudo-words no dictionary knows) with Zipf-distributed frequencies, each
document has its own cast that it keeps returning to, and documents run to tens of chunks.
That gives about as many entities per chunk as real prose (about 13 in the technical
documentation we measured) and a number of distinct entities that grows with corpus size
as Heaps' law says (V ~ K·n^β, β around 0.5–0.8 for real text). The bench prints both.

It builds the graph and prints, each with the load average it ran under: entities per
chunk, distinct entities against corpus size (and the Heaps exponent), entities, strong and
weak edges, peak RSS, chunks/s per stage and end to end, the builder's overhead over the
raw models (spaCy ``nlp.pipe`` and the embedding runner alone, on the same chunks and on the
names the builder embeds), the floor those models allow in sequence, the per-chunk cost
growth from a tenth of the corpus to all of it, and opening the graph (``sample-path`` in a
new process: seconds and peak RSS). ``--incremental`` then changes 1% of the documents and
times the rebuild against the full build.

``--real-prose WORDS`` builds from real prose instead: Debian documentation packages with
their reStructuredText stripped (``bench/real_prose.py``, which fetches them with ``apt-get
download`` into ``bench/out/`` once), loaded and chunked by the generic loader as
``build-graph`` would; loading and chunking are timed too, and "end to end" counts them.
A lazy build of real prose (the default) is followed by ``bench/lazy_costs.py``: what
planning seed batches then costs in on-demand embedding on a cold and a warm graph, and
the recall of the lexical first stage against its candidate count (``--no-lazy-costs``
skips it).

Nothing is downloaded but those packages: the models come from installed packages. Run one at a time on a
quiet machine; every figure is printed with the load average beside it.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import numpy as np  # noqa: E402
import psutil  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent

# --- corpus ---------------------------------------------------------------------------

CONSONANTS = "bcdfghjklmnprstvz"
VOWELS = "aeiou"
CODAS = ["", "", "", "n", "r", "s", "l", "x", "th", "nd"]
TERM_HEADS = ("receptor", "protocol", "valve", "module", "enzyme", "compiler", "kernel", "syndrome", "inhibitor",
              "scheduler", "pathway", "reactor", "cluster", "antibody", "turbine", "catalyst", "parser", "lesion",
              "algorithm", "membrane", "transistor", "fibrosis", "vaccine", "cache", "gradient", "filter")
ORG_KINDS = ("Institute", "Laboratories", "Corporation", "University", "Foundation", "Systems", "Group", "Agency")
VOCAB = {"first": 3_000, "last": 60_000, "org": 40_000, "place": 20_000, "term": 400_000}
ZIPF_S = 1.07  # rank-frequency exponent of each vocabulary (real text: about 1)
CAST_SHARE = 0.55  # share of a document's entity mentions that return to its own cast
SENTENCES_PER_CHUNK = (6, 9)
DOC_CHUNKS = (8, 40)  # tens of chunks per document, uniform

# Sentence frames: {P} person, {O} organisation, {L} place, {T} technical term, {Y} year.
# About two entity slots per sentence, and plain words between them, as in prose.
FRAMES = (
    "{P} of the {O} measured how the {T} responds when it is pushed harder than usual.",
    "In {Y}, it was reported that the {T} and the {T} behave alike.",
    "{P} traced most of these problems to the {T}.",
    "It depends on the {T}, which {P} first described.",
    "Engineers in {L} replaced it with a {T} after a long review.",
    "A later study found that the {T} limits what the {T} can do.",
    "{P} argued that this explains it better than anything else.",
    "The {O} agreed in {Y} to try it in {L}.",
    "Without the {T}, everything stalls, as {P} showed.",
    "The report lists the {T} and the {T} among the main risks.",
    "Nobody expected that, and it took months to understand why.",
    "When the {T} is missing, the {T} is used instead.",
    "That was not the whole story, and the second round of tests showed it clearly.",
    "Few people outside the field noticed at the time.",
)


def pseudo_words(n: int, rng: np.random.Generator, syllables: tuple[int, int], seen: set[str]) -> list[str]:
    """``n`` distinct pronounceable pseudo-words (no dictionary knows them, like real rare names)."""
    from wordfreq import zipf_frequency

    out: list[str] = []
    while len(out) < n:
        k = int(rng.integers(syllables[0], syllables[1] + 1))
        w = "".join(CONSONANTS[rng.integers(len(CONSONANTS))] + VOWELS[rng.integers(len(VOWELS))] for _ in range(k))
        w += CODAS[rng.integers(len(CODAS))]
        if w not in seen and zipf_frequency(w, "en") == 0.0:
            seen.add(w)
            out.append(w)
    return out


class Vocabulary:
    """Generated names and terms, each vocabulary sampled by Zipf rank."""

    def __init__(self, seed: int, scale: float = 1.0):
        rng = np.random.default_rng(seed)
        seen: set[str] = set()
        size = {k: max(50, int(v * scale)) for k, v in VOCAB.items()}
        self.first = [w.title() for w in pseudo_words(size["first"], rng, (2, 2), seen)]
        self.last = [w.title() for w in pseudo_words(size["last"], rng, (2, 3), seen)]
        self.org = [f"{w.title()} {ORG_KINDS[i % len(ORG_KINDS)]}" for i, w in
                    enumerate(pseudo_words(size["org"], rng, (2, 3), seen))]
        self.place = [w.title() for w in pseudo_words(size["place"], rng, (2, 3), seen)]
        stems = pseudo_words(size["term"] // 4, rng, (2, 4), seen)
        # A term is a pseudo-word stem with a real head noun ("ostravine receptor"); some stand alone.
        self.term = [f"{s} {TERM_HEADS[(i * 7 + j) % len(TERM_HEADS)]}" if j else s
                     for i, s in enumerate(stems) for j in range(4)]
        self._cdf = {k: self._zipf_cdf(len(v)) for k, v in self.lists().items()}

    def lists(self) -> dict[str, list[str]]:
        return {"first": self.first, "last": self.last, "org": self.org, "place": self.place, "term": self.term}

    @staticmethod
    def _zipf_cdf(n: int) -> np.ndarray:
        w = 1.0 / np.arange(1, n + 1) ** ZIPF_S
        return np.cumsum(w) / w.sum()

    def draw(self, kind: str, rng: np.random.Generator) -> str:
        if kind == "P":
            return f"{self.first[self._rank('first', rng)]} {self.last[self._rank('last', rng)]}"
        key = {"O": "org", "L": "place", "T": "term"}[kind]
        return self.lists()[key][self._rank(key, rng)]

    def _rank(self, key: str, rng: np.random.Generator) -> int:
        return int(np.searchsorted(self._cdf[key], rng.random()))


def make_corpus(n_chunks: int, seed: int) -> tuple[list[str], list[int]]:
    """``n_chunks`` chunk texts and each one's document index (documents in order)."""
    vocab = Vocabulary(seed)
    rng = np.random.default_rng(seed + 1)
    texts: list[str] = []
    doc_of: list[int] = []
    doc = 0
    while len(texts) < n_chunks:
        length = int(rng.integers(DOC_CHUNKS[0], DOC_CHUNKS[1] + 1))
        for chunk in document_chunks(vocab, rng, length):
            if len(texts) == n_chunks:
                break
            texts.append(chunk)
            doc_of.append(doc)
        doc += 1
    return texts, doc_of


def document_chunks(vocab: Vocabulary, rng: np.random.Generator, length: int) -> list[str]:
    """One document: a cast of entities it keeps returning to, and fresh ones from the long tail."""
    cast = {k: [vocab.draw(k, rng) for _ in range(n)] for k, n in (("P", 6), ("O", 4), ("L", 4), ("T", 30))}
    out = []
    for _ in range(length):
        sentences = []
        for _ in range(int(rng.integers(SENTENCES_PER_CHUNK[0], SENTENCES_PER_CHUNK[1] + 1))):
            frame = FRAMES[int(rng.integers(len(FRAMES)))]
            sentences.append(_fill(frame, cast, vocab, rng))
        out.append(" ".join(sentences))
    return out


def _fill(frame: str, cast: dict[str, list[str]], vocab: Vocabulary, rng: np.random.Generator) -> str:
    parts = frame.split("{")
    text = parts[0]
    for part in parts[1:]:
        kind, rest = part[0], part[2:]
        if kind == "Y":
            value = str(int(rng.integers(1950, 2025)))
        elif rng.random() < CAST_SHARE:
            pool = cast[kind]
            value = pool[int(rng.integers(len(pool)))]
        else:
            value = vocab.draw(kind, rng)
        text += value + rest
    return text[0].upper() + text[1:]


def change_documents(texts: list[str], doc_of: list[int], share: float, seed: int) -> tuple[list[str], int]:
    """The corpus with ``share`` of its documents rewritten (same chunk count each), and how
    many documents changed."""
    vocab = Vocabulary(seed)
    rng = np.random.default_rng(seed + 99)
    docs = sorted(set(doc_of))
    picked = set(rng.choice(docs, size=max(1, round(share * len(docs))), replace=False).tolist())
    out = list(texts)
    for d in sorted(picked):
        rows = [i for i, x in enumerate(doc_of) if x == d]
        for i, text in zip(rows, document_chunks(vocab, rng, len(rows))):
            out[i] = text
    return out, len(picked)


def make_benchmark(texts: list[str], doc_of: list[int]):
    from judgeagent.data.benchmark import Benchmark, Chunk, Document, QuestionType

    chunks = [Chunk(f"c{i}", f"d{d}", t) for i, (t, d) in enumerate(zip(texts, doc_of))]
    docs: dict[int, list[str]] = {}
    for c, d in zip(chunks, doc_of):
        docs.setdefault(d, []).append(c.id)
    documents = [Document(f"d{d}", f"document {d}", tuple(ids)) for d, ids in docs.items()]
    return Benchmark("bench", "generic", QuestionType.KQA, [], documents, chunks)


# --- memory -----------------------------------------------------------------------------


class RssMonitor:
    """Samples the RSS of this process plus its children; peaks per named window."""

    def __init__(self, interval: float = 0.05):
        self.interval = interval
        self.samples: list[tuple[float, int]] = []
        self.marks: dict[str, list[float]] = {}
        self.cpu: dict[str, list[float]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _rss(self) -> int:
        me = psutil.Process()
        total = me.memory_info().rss
        for child in me.children(recursive=True):
            try:
                total += child.memory_info().rss
            except psutil.Error:
                pass
        return total

    def _run(self) -> None:
        while not self._stop.is_set():
            self.samples.append((time.perf_counter(), self._rss()))
            self._stop.wait(self.interval)

    def __enter__(self):
        self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        self._thread.join()

    def mark(self, name: str, what: str) -> None:
        self.samples.append((time.perf_counter(), self._rss()))
        self.marks.setdefault(name, []).append(time.perf_counter())
        self.cpu.setdefault(name, []).append(cpu_seconds())

    def peak(self, lo: float | None = None, hi: float | None = None) -> int:
        vals = [r for t, r in self.samples if (lo is None or t >= lo) and (hi is None or t <= hi)]
        return max(vals) if vals else 0

    def stage_peak(self, name: str) -> int:
        lo, hi = self.marks[name][0], self.marks[name][-1]
        return self.peak(lo, hi)

    def stage_cpu(self, name: str) -> float:
        return self.cpu[name][-1] - self.cpu[name][0]


def cpu_seconds() -> float:
    """CPU time of this process and its finished children (the spaCy workers).

    Unlike wall time it barely moves when other work shares the cores, so it shows
    how much work a stage does even on a busy machine.
    """
    import resource

    own = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + kids.ru_utime + kids.ru_stime


# --- timing -----------------------------------------------------------------------------


def load() -> str:
    """The 1-minute load average, to print beside a figure."""
    return f"load {os.getloadavg()[0]:.2f}"


def time_raw_spacy(texts: list[str], workers: int, batch_size: int) -> tuple[float, float]:
    """(wall s, CPU s) of loading spaCy and running nlp.pipe over every chunk."""
    import spacy

    from judgeagent.graph.extract import SPACY_COMPONENTS, SPACY_MODEL

    t0, c0 = time.perf_counter(), cpu_seconds()
    nlp = spacy.load(SPACY_MODEL)
    for extra in [p for p in nlp.component_names if p not in SPACY_COMPONENTS]:
        nlp.remove_pipe(extra)  # the same components as the builder
    n_process = workers if len(texts) >= 4 * batch_size else 1
    for _ in nlp.pipe(texts, n_process=n_process, batch_size=batch_size):
        pass
    return time.perf_counter() - t0, cpu_seconds() - c0


def time_raw_encode(texts: list[str], names: list[str], batch_size: int, entity_batch_size: int,
                    backend: str, bf16: bool, roles: dict | None = None) -> tuple[float, float]:
    """(wall s, CPU s) of loading the embedding runner and encoding every chunk text and the
    names the builder embeds, sorted longest first as the builder does, with no cache; a role
    the graph gave a static encoder is timed with that encoder."""
    from judgeagent.graph.embed import model_path
    from judgeagent.graph.embed_backends import load_runner
    from judgeagent.graph.encoders import encoder_for

    roles = roles or {}
    t0, c0 = time.perf_counter(), cpu_seconds()
    runner = None
    for role, items, bs in (("chunks", texts, batch_size), ("entities", names, entity_batch_size)):
        kind = roles[role].encoder if role in roles else "minilm"
        if kind != "minilm":
            encoder_for(kind, None).encode(items)  # type: ignore[arg-type]
            continue
        runner = runner or load_runner(backend, model_path(), bf16=bf16)
        runner.encode(sorted(items, key=len, reverse=True), bs)
    return time.perf_counter() - t0, cpu_seconds() - c0


OPEN_SCRIPT = """
import sys, time
t0 = time.perf_counter()
from judgeagent.cli.app import main
sys.argv = ["judgeagent", "sample-path", sys.argv[1], "--entity", sys.argv[2], "--hops", "2", "--seed", "0"]
try:
    main()
except SystemExit:
    pass
# VmHWM, not ru_maxrss: on Linux ru_maxrss survives exec and would report the forking parent's size.
hwm = [ln.split()[1] for ln in open("/proc/self/status") if ln.startswith("VmHWM:")][0]
print(f"@@ {time.perf_counter() - t0:.3f} {hwm}", file=sys.stderr)
"""


def time_open(graph_dir: Path, entity: str, runs: int = 3) -> list[tuple[float, float]]:
    """(seconds, peak RSS MiB) of ``sample-path`` in a new process, imports and load included."""
    out = []
    for _ in range(runs):
        p = subprocess.run([sys.executable, "-c", OPEN_SCRIPT, str(graph_dir), entity], capture_output=True, text=True,
                           check=True)
        line = [ln for ln in p.stderr.splitlines() if ln.startswith("@@ ")][-1]
        sec, kib = line.split()[1:]
        out.append((float(sec), int(kib) / 1024))
    return out


def heaps(graph, n: int) -> list[tuple[int, int]]:
    """(chunks, distinct entities in the first that many chunks) at a few corpus sizes."""
    t = graph.tables
    first = np.asarray(t.node_chunk_idx)[np.asarray(t.node_chunk_ptr)[:-1]] if t.n_nodes else np.zeros(0, np.int64)
    sizes = sorted({max(1, n // k) for k in (16, 8, 4, 2, 1)})
    return [(s, int((first < s).sum())) for s in sizes]


def heaps_beta(points: list[tuple[int, int]]) -> float:
    xs = [math.log(s) for s, v in points if v > 0]
    ys = [math.log(v) for s, v in points if v > 0]
    return float(np.polyfit(xs, ys, 1)[0]) if len(xs) >= 2 else float("nan")


# --- runs -------------------------------------------------------------------------------


def build(bench, config, out: Path, progress: bool):
    """(graph, wall seconds, monitor) of one build."""
    from judgeagent.graph import build_graph

    with RssMonitor() as mon:
        t0 = time.perf_counter()
        graph = build_graph(bench, config, out, progress=progress, on_stage=mon.mark)
        total = time.perf_counter() - t0
    return graph, total, mon


def print_stages(graph, total: float, mon, n: int) -> dict:
    timings = graph.manifest["timings_s"]
    print(f"{'stage':<8} {'chunks/s':>9} {'seconds':>8} {'peak RSS':>9} {'CPU s':>8}")
    stages, cpu_total = {}, 0.0
    for stage in ("extract", "graph", "embed", "index", "write"):
        sec, peak, cpu = timings[stage], mon.stage_peak(stage) / 2**30, mon.stage_cpu(stage)
        cpu_total += cpu
        stages[stage] = {"seconds": sec, "peak_rss_gib": peak, "cpu_seconds": cpu}
        print(f"{stage:<8} {n / sec if sec else float('inf'):>9.1f} {sec:>8.2f} {peak:>7.2f} G {cpu:>8.2f}   ({load()})")
    peak = mon.peak() / 2**30
    print(f"{'total':<8} {n / total:>9.1f} {total:>8.2f} {peak:>7.2f} G {cpu_total:>8.2f}   "
          f"({total / n * 1000:.1f} ms per chunk; {load()})")
    if graph.manifest["build"].get("engine") == "local" and graph.manifest.get("embed") == "all":
        print("(the local engine embeds the chunk texts beside the extraction: extract's seconds and CPU include "
              "most of that; embed is the rest of it and the entity names)")
    return {"stages": stages, "total_seconds": total, "chunks_per_s": n / total, "peak_rss_gib": peak,
            "cpu_seconds": cpu_total}


def print_corpus(graph, n: int) -> dict:
    c = graph.manifest["counts"]
    per_chunk = c["mentions"] / max(n, 1)
    points = heaps(graph, n)
    beta = heaps_beta(points)
    print(f"entities per chunk {per_chunk:.1f} (real technical prose: about 13)   ({load()})")
    print("distinct entities vs chunks: " + ", ".join(f"{s}: {v}" for s, v in points)
          + f"; Heaps exponent {beta:.2f}   ({load()})")
    print(f"entities {c['entities']} ({c['stop_entities']} stop), edges strong {c['edges_strong']}, "
          f"weak {c['edges_weak']} ({(c['edges_strong'] + c['edges_weak']) / max(n, 1):.1f} per chunk)   ({load()})")
    demo = ROOT / "graphs" / "medqa-demo" / "manifest.json"
    if demo.is_file():
        d = json.loads(demo.read_text())["counts"]
        print(f"for comparison, graphs/medqa-demo: {d['mentions'] / max(d['chunks'], 1):.1f} entities per chunk")
    return {"counts": c, "entities_per_chunk": per_chunk, "heaps": points, "heaps_beta": beta}


def print_raw(graph, texts: list[str], config, workers: int, total: float, mon) -> dict:
    from judgeagent.graph.build import ENTITY_BATCH_SIZE

    n = len(texts)
    emb = graph.manifest["embedding_model"]
    names = [nm for nm, stop in zip(graph.entity_names, graph.tables.stop) if not stop]
    bf16 = emb["precision"] == "bf16-autocast"
    raw_spacy, raw_spacy_cpu = time_raw_spacy(texts, workers, 64)
    print(f"raw spaCy nlp.pipe (n_process={workers}): {raw_spacy:.2f} s ({n / raw_spacy:.1f} chunks/s), "
          f"{raw_spacy_cpu:.2f} s CPU   ({load()})")
    raw_enc, raw_enc_cpu = 0.0, 0.0
    if config.embed == "all":  # a lazy build runs no encoder
        raw_enc, raw_enc_cpu = time_raw_encode(texts, names, config.embed_batch_size, ENTITY_BATCH_SIZE,
                                               emb.get("backend") or "torch", bf16, graph.roles)
    if config.embed == "all":
        print(f"raw encoders (chunks {graph.roles['chunks'].encoder}, names {graph.roles['entities'].encoder}; "
              f"MiniLM {emb.get('backend') or 'torch'} {emb['precision']}), {n} chunks + {len(names)} names: "
              f"{raw_enc:.2f} s ({n / raw_enc:.1f} chunks/s), {raw_enc_cpu:.2f} s CPU   ({load()})")
    raw, raw_cpu = raw_spacy + raw_enc, raw_spacy_cpu + raw_enc_cpu
    cpu_total = sum(mon.stage_cpu(s) for s in ("extract", "graph", "embed", "index", "write"))
    print(f"floor: the two models in sequence allow {n / raw:.1f} chunks/s; the builder did {n / total:.1f}   ({load()})")
    print(f"builder / raw models: {total / raw:.2f}x wall, {cpu_total / raw_cpu:.2f}x CPU (target <= 1.10)   ({load()})")
    return {"raw_spacy_s": raw_spacy, "raw_encode_s": raw_enc, "floor_chunks_per_s": n / raw,
            "overhead_wall": total / raw, "overhead_cpu": cpu_total / raw_cpu}


def run_growth(texts, doc_of, config, total: float, n: int, progress: bool) -> dict:
    """Per-chunk cost at the full size over that at a tenth of it (the same corpus's prefix)."""
    small = max(200, n // 10)
    if small >= n:
        return {}
    with tempfile.TemporaryDirectory(prefix="judgeagent-bench-small-") as d:
        _, t_small, _ = build(make_benchmark(texts[:small], doc_of[:small]), config, Path(d) / "g", progress)
    ratio = (total / n) / (t_small / small)
    print(f"per-chunk cost: {t_small / small * 1000:.1f} ms at {small} chunks, {total / n * 1000:.1f} ms at {n}: "
          f"growth {ratio:.2f}x (target <= 1.2; model loading weighs more in the small build)   ({load()})")
    return {"growth_small_chunks": small, "growth_ratio": ratio}


def run_vs_local(texts, doc_of, config, total: float, progress: bool) -> dict:
    """The same corpus built by the local engine in this process: ray time / local time."""
    with tempfile.TemporaryDirectory(prefix="judgeagent-bench-local-") as d:
        _, t_local, mon = build(make_benchmark(texts, doc_of), config.model_copy(update={"engine": "local"}),
                                Path(d) / "g", progress)
    print(f"local engine on the same corpus: {t_local:.2f} s, peak RSS {mon.peak() / 2**30:.2f} G; "
          f"ray / local = {total / t_local:.2f}x (target <= 1.3 on the same cores)   ({load()})")
    return {"local_seconds": t_local, "ray_over_local": total / t_local}


def run_incremental(texts, doc_of, config, out: Path, total: float, seed: int, progress: bool) -> dict:
    changed, n_docs = change_documents(texts, doc_of, 0.01, seed + 7)
    n_changed = sum(a != b for a, b in zip(texts, changed))
    graph, t_inc, mon = build(make_benchmark(changed, doc_of), config.model_copy(update={"force": False}), out,
                              progress)
    r = graph.manifest["build"]["reused"]
    print(f"incremental: {n_docs} documents ({n_changed} chunks) changed; rebuild {t_inc:.2f} s = "
          f"{t_inc / total:.1%} of the full build (target <= 5%); extracted {r['extracted']}, embedded "
          f"{r['chunk_vectors_embedded']} chunks and {r['entity_vectors_embedded']} names; peak RSS "
          f"{mon.peak() / 2**30:.2f} G   ({load()})")
    return {"incremental_seconds": t_inc, "incremental_ratio": t_inc / total, "incremental_reused": r}


def real_prose_corpus(words: int, packages, config) -> tuple[list[str], list[int], float]:
    """Chunk texts and document indices of the real-prose corpus, and the seconds the generic
    loader took to read and chunk it (what ``build-graph`` pays before the build)."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    import real_prose

    from judgeagent.data import generic

    folder, n_docs, n_words = real_prose.write_corpus(words, tuple(packages or real_prose.DEFAULT_PACKAGES))
    t0 = time.perf_counter()
    bench = generic.load(folder, chunk_tokens=config.chunk_tokens)
    seconds = time.perf_counter() - t0
    index = {d.id: i for i, d in enumerate(bench.documents)}
    print(f"real prose: {folder.name}, {n_docs} documents, {n_words} words; loaded and chunked in {seconds:.1f} s   "
          f"({load()})")
    return [c.text for c in bench.chunks], [index[c.doc_id] for c in bench.chunks], seconds


def start_ray_cluster(nodes: int):
    """A local cluster of ``nodes`` nodes sharing this machine's cores; the driver joins it."""
    import ray
    from ray.cluster_utils import Cluster

    cpus = max(2, (os.cpu_count() or 2) // nodes + 1)
    cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": cpus, "include_dashboard": False})
    for _ in range(nodes - 1):
        cluster.add_node(num_cpus=cpus)
    cluster.wait_for_nodes()
    ray.init(address=cluster.address, log_to_driver=False)
    return cluster


def main(argv=None) -> int:
    from judgeagent.config import GraphConfig

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    corpus = ap.add_mutually_exclusive_group(required=True)
    corpus.add_argument("--chunks", type=int, help="generated corpus of this many chunks")
    corpus.add_argument("--real-prose", type=int, metavar="WORDS",
                        help="real documentation prose of this many words (bench/real_prose.py)")
    ap.add_argument("--packages", nargs="+", default=None, help="with --real-prose: Debian packages to read")
    ap.add_argument("--engine", choices=("local", "ray"), default="local")
    ap.add_argument("--ray-address", default=None, help="Ray cluster to join (default: embedded, or --ray-nodes)")
    ap.add_argument("--ray-nodes", type=int, default=0, help="start a local Ray cluster of this many nodes")
    ap.add_argument("--workers", type=int, default=None, help="spaCy worker processes (default: GraphConfig's)")
    ap.add_argument("--embed-backend", default=None, help="default: GraphConfig's")
    ap.add_argument("--entity-encoder", default=None, help="minilm or wordllama (default: GraphConfig's)")
    ap.add_argument("--chunk-encoder", default=None, help="minilm or wordllama (default: GraphConfig's)")
    ap.add_argument("--embed", choices=("lazy", "all"), default=None, help="default: GraphConfig's (lazy)")
    ap.add_argument("--no-lazy-costs", action="store_true", help="with --real-prose and a lazy build: skip bench/lazy_costs.py")
    ap.add_argument("--no-open", action="store_true", help="skip timing sample-path in a new process")
    ap.add_argument("--vs-local", action="store_true", help="with --engine ray: also build with the local engine, print the ratio")
    ap.add_argument("--incremental", action="store_true", help="then change 1%% of the documents and time the rebuild")
    ap.add_argument("--no-growth", action="store_true", help="skip the tenth-size build for per-chunk cost growth")
    ap.add_argument("--skip-raw", action="store_true", help="do not time the raw models")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--out", type=Path, default=None, help="graph folder (default: a temporary one)")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    ap.add_argument("--progress", action="store_true", help="show the builder's progress bars")
    args = ap.parse_args(argv)

    settings = {"force": True, "engine": args.engine, "ray_address": args.ray_address}
    if args.workers:
        settings["workers"] = args.workers
    if args.embed_backend:
        settings["embed_backend"] = args.embed_backend
    for role in ("entity_encoder", "chunk_encoder", "embed"):
        if getattr(args, role):
            settings[role] = getattr(args, role)
    config = GraphConfig(**settings)
    tmp = None
    if args.out is None:
        tmp = tempfile.TemporaryDirectory(prefix="judgeagent-bench-")
        args.out = Path(tmp.name) / "graph"
    cluster = start_ray_cluster(args.ray_nodes) if args.engine == "ray" and args.ray_nodes else None

    import judgeagent

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from machine import describe

    print(describe())
    print(f"machine: {psutil.cpu_count()} cores, {psutil.virtual_memory().total / 2**30:.1f} GiB; "
          f"code {Path(judgeagent.__file__).parent}   ({load()})")
    t0 = time.perf_counter()
    load_seconds = 0.0
    if args.real_prose:
        texts, doc_of, load_seconds = real_prose_corpus(args.real_prose, args.packages, config)
    else:
        texts, doc_of = make_corpus(args.chunks, args.seed)
    words = statistics.mean(len(t.split()) for t in texts)
    print(f"corpus: {len(texts)} chunks in {len(set(doc_of))} documents, {words:.1f} words per chunk, "
          f"{sum(len(t.split()) for t in texts)} words, made in {time.perf_counter() - t0:.1f} s   ({load()})")
    print(f"engine {config.engine}" + (f" on {args.ray_nodes} local nodes" if cluster else "")
          + f", workers {config.workers}, embed {config.embed}, embed backend {config.embed_backend}, encoders: entity names "
          f"{config.entity_encoder}, chunks {config.chunk_encoder}"
          + ("; peak RSS counts this process and its children: with --ray-nodes the whole local cluster, "
             "with --ray-address the driver only" if args.engine == "ray" else ""))

    # Import the libraries up front so neither the builder nor the raw baseline pays for imports.
    import spacy  # noqa: F401

    graph, total, mon = build(make_benchmark(texts, doc_of), config, args.out, args.progress)
    n = len(texts)
    figures = {"chunks": n, "engine": config.engine, "workers": config.workers, "words_per_chunk": words,
               "load_at_start": os.getloadavg()[0]}
    figures.update(print_corpus(graph, n))
    figures.update(print_stages(graph, total, mon, n))
    if args.real_prose:
        end = load_seconds + total
        from judgeagent.graph.embed import bf16_supported

        # A lazy build: 80 where the CPU multiplies bf16 natively, 60 with JUDGEAGENT_EMBED_BF16=0
        # (the encoder does not run at build time; the figure tells the two kinds of CPU apart).
        target = (80 if bf16_supported() else 60) if config.embed == "lazy" else (40 if bf16_supported() else 30)
        rss_target = 1.5 if config.embed == "lazy" else 2
        print(f"end to end (load and chunk {load_seconds:.1f} s + build {total:.1f} s): {n / end:.1f} chunks/s "
              f"(target >= {target}; MiniLM bf16 {'on' if bf16_supported() else 'off'}), "
              f"{(figures['counts']['edges_strong'] + figures['counts']['edges_weak']) / n:.0f} edges "
              f"per chunk (target <= 200), peak RSS {figures['peak_rss_gib']:.2f} G (target <= {rss_target})   ({load()})")
        figures.update(load_seconds=load_seconds, end_to_end_chunks_per_s=n / end)
    if not args.skip_raw:
        figures.update(print_raw(graph, texts, config, config.workers, total, mon))
    if args.engine == "ray" and args.vs_local:
        figures.update(run_vs_local(texts, doc_of, config, total, args.progress))
    if not args.no_growth:
        figures.update(run_growth(texts, doc_of, config, total, n, args.progress))

    from judgeagent.graph.normalize import normalize_query

    # The busiest live entity that a query names exactly: opening, not the encoder, is timed.
    live = [i for i in range(len(graph.entity_names))
            if not graph.tables.stop[i] and normalize_query(graph.entity_names[i]) == graph.entity_names[i]]
    if live and not args.no_open:
        entity = graph.entity_names[max(live, key=lambda i: graph.tables.adj_ptr[i + 1] - graph.tables.adj_ptr[i])]
        opened = time_open(args.out, entity)
        print(f"open: sample-path --entity {entity!r} in a new process (imports included): "
              + ", ".join(f"{s:.2f} s / {m:.0f} MiB" for s, m in opened)
              + f" (target <= 1.5 s, <= 500 MB at 20k chunks)   ({load()})")
        figures["open"] = opened
    if args.real_prose and config.embed == "lazy" and not args.no_lazy_costs:
        import lazy_costs

        figures["lazy_costs"] = lazy_costs.measure(args.out, args.real_prose, args.seed)
    if args.incremental:
        figures.update(run_incremental(texts, doc_of, config, args.out, total, args.seed, args.progress))
    print(f"load average at end: {os.getloadavg()[0]:.2f} (other work on the machine slows every figure)")
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2, default=str))
    if cluster is not None:
        import ray

        ray.shutdown()
        cluster.shutdown()
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
