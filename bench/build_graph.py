"""Benchmark the graph build: throughput, memory, and overhead over the raw models.

    .venv/bin/python bench/build_graph.py --chunks 2000 --workers 2

Makes N chunks of realistic English (~90 words each) with a seeded sampler over the text
found under data/ (plus the built-in paragraphs below when data/ holds too little),
builds the graph, and prints for each stage: chunks/s, seconds, peak RSS (this process
plus the spaCy worker processes). It then times the raw models alone on the same chunks
(spaCy ``nlp.pipe`` with the same components and n_process, and
``SentenceTransformer.encode`` with the same batch sizes) and prints the builder's
overhead = builder time / raw model time, and times ``judgeagent sample-path`` (a new
process, load included) and in-process sampling per hop.

Nothing is downloaded: the models come from installed packages.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

import psutil  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
WORDS_PER_CHUNK = 90
MIN_SENTENCES = 3000  # below this many distinct sentences from data/, add the built-in ones
CHUNKS_PER_DOC = 6  # like a MedQA textbook section
TOPIC_SPAN = 3  # a document draws its sentences from this many neighbouring paragraphs

# Our own short textbook-style paragraphs, used when data/ has little text.
BUILTIN_PARAGRAPHS = [
    'Myocardial infarction occurs when blood flow through a coronary artery is interrupted, usually by rupture of an atherosclerotic plaque and the thrombus that forms on it. Patients classically describe crushing substernal chest pain that radiates to the left arm or jaw, often with sweating, nausea and shortness of breath. The electrocardiogram may show ST-segment elevation in the leads facing the injured wall. Cardiac troponin rises within a few hours and stays elevated for days. Early reperfusion with percutaneous coronary intervention or fibrinolytic therapy limits the size of the infarct and improves survival.',
    'Type 1 diabetes mellitus results from autoimmune destruction of the pancreatic beta cells, leaving the patient dependent on exogenous insulin. Type 2 diabetes, by contrast, combines insulin resistance in muscle, liver and adipose tissue with a progressive decline in insulin secretion. Chronic hyperglycemia damages small vessels in the retina, kidney and peripheral nerves. Metformin lowers hepatic glucose production and remains the usual first drug for type 2 disease. Glycated hemoglobin reflects average blood glucose over the previous three months and guides the adjustment of therapy.',
    'Tuberculosis is caused by Mycobacterium tuberculosis, an acid-fast bacillus spread by airborne droplets. Most infected people contain the organism within granulomas and never develop symptoms, a state called latent infection. Reactivation often follows immunosuppression, such as HIV infection or treatment with tumor necrosis factor inhibitors. Active pulmonary disease presents with chronic cough, night sweats, weight loss and upper lobe cavitation on the chest radiograph. Standard treatment combines isoniazid, rifampin, pyrazinamide and ethambutol for two months, followed by four months of isoniazid and rifampin.',
    'The kidney regulates the volume and composition of the extracellular fluid. Each nephron begins with a glomerulus, where plasma is filtered across a capillary wall that holds back cells and most proteins. The proximal tubule reabsorbs about two thirds of the filtered sodium and water, together with nearly all glucose and amino acids. In the collecting duct, antidiuretic hormone inserts aquaporin channels and concentrates the urine. Aldosterone acts on the principal cells to retain sodium and excrete potassium, which explains why its excess causes hypertension and hypokalemia.',
    'Parkinson disease reflects the loss of dopaminergic neurons in the substantia nigra pars compacta. The cardinal signs are a resting tremor, rigidity, bradykinesia and postural instability. Levodopa, given with carbidopa to block its peripheral conversion, remains the most effective symptomatic treatment. Over years of therapy many patients develop motor fluctuations and dyskinesia. Lewy bodies containing aggregated alpha-synuclein are found in the surviving neurons at autopsy.',
    'Warfarin inhibits vitamin K epoxide reductase and thereby reduces the synthesis of clotting factors II, VII, IX and X. Its effect is monitored with the international normalized ratio. Many drugs interact with warfarin through the cytochrome P450 system; rifampin speeds its metabolism, while amiodarone and fluconazole slow it and raise the risk of bleeding. Heparin, by contrast, acts by potentiating antithrombin and is monitored with the partial thromboplastin time. Protamine sulfate reverses heparin, whereas vitamin K and prothrombin complex concentrate reverse warfarin.',
    'Iron deficiency is the most common cause of anemia worldwide. It produces a microcytic, hypochromic anemia with a low serum ferritin and a high total iron binding capacity. In adult men and postmenopausal women, occult gastrointestinal bleeding from a colon cancer must be excluded. Vitamin B12 deficiency, on the other hand, causes a macrocytic anemia with hypersegmented neutrophils and may damage the dorsal columns of the spinal cord. Pernicious anemia, an autoimmune gastritis that destroys parietal cells, is a classic cause of B12 deficiency.',
    'The thyroid gland secretes thyroxine and triiodothyronine under the control of thyroid stimulating hormone from the anterior pituitary. Graves disease is caused by antibodies that stimulate the TSH receptor, producing hyperthyroidism, a diffuse goiter and ophthalmopathy. Hashimoto thyroiditis is the most common cause of hypothyroidism in iodine-sufficient regions and is marked by antibodies against thyroid peroxidase. Patients with hypothyroidism report fatigue, cold intolerance, weight gain and constipation. Levothyroxine replacement is adjusted according to the serum TSH.',
    'Asthma is a chronic inflammatory disease of the airways characterised by reversible bronchoconstriction. Symptoms include wheezing, cough and chest tightness, often worse at night or after exercise. Spirometry shows an obstructive pattern that improves after an inhaled beta-2 agonist such as albuterol. Inhaled corticosteroids reduce airway inflammation and are the foundation of long-term control. Chronic obstructive pulmonary disease, usually caused by cigarette smoking, also obstructs airflow, but the obstruction is largely irreversible.',
    "The Royal Society was founded in London in 1660 to promote experimental knowledge of nature. Robert Boyle, Robert Hooke and later Isaac Newton were among its early fellows. Its journal, the Philosophical Transactions, is one of the oldest scientific periodicals still in print. Members debated the results of experiments with the air pump and the microscope, and the society's motto asks readers to take nobody's word for it.",
    'Helicobacter pylori is a spiral, urease-producing bacterium that colonises the gastric mucosa. It is the leading cause of peptic ulcer disease and a risk factor for gastric adenocarcinoma and MALT lymphoma. Nonsteroidal anti-inflammatory drugs are the other major cause of ulcers, because they block prostaglandin synthesis and weaken the mucosal barrier. Infection is confirmed with a urea breath test or a stool antigen test. Eradication usually combines a proton pump inhibitor with clarithromycin and amoxicillin.',
    'Type I hypersensitivity is mediated by immunoglobulin E bound to mast cells and basophils. When an allergen cross-links the bound antibody, the cells release histamine, leukotrienes and other mediators within minutes. Anaphylaxis is the most severe form, with hypotension, bronchospasm and swelling of the airway. Intramuscular epinephrine is the first treatment and should not be delayed. Antihistamines and corticosteroids are given afterwards but do not replace epinephrine.',
    'Cystic fibrosis is an autosomal recessive disorder caused by mutations in the CFTR gene on chromosome 7. The defective chloride channel produces thick secretions that obstruct the airways, pancreatic ducts and vas deferens. Recurrent lung infections with Pseudomonas aeruginosa and Staphylococcus aureus are common. An elevated sweat chloride concentration confirms the diagnosis. Newer drugs called CFTR modulators improve the function of the mutant protein in patients with specific mutations.',
    'Preeclampsia is new hypertension after twenty weeks of pregnancy accompanied by proteinuria or signs of organ damage. It is thought to begin with abnormal remodelling of the spiral arteries in the placenta. Severe features include headache, visual disturbance, right upper quadrant pain and thrombocytopenia. Magnesium sulfate is given to prevent eclamptic seizures, and delivery of the placenta is the definitive cure. The HELLP syndrome, with hemolysis, elevated liver enzymes and low platelets, is a dangerous variant.',
    'Major depressive disorder requires at least two weeks of depressed mood or loss of interest together with other symptoms such as sleep disturbance, poor concentration and feelings of worthlessness. Selective serotonin reuptake inhibitors such as sertraline and fluoxetine are common first-line drugs. Their benefit usually appears after several weeks. Lithium remains an effective treatment for bipolar disorder but has a narrow therapeutic window, and its levels rise with dehydration, thiazide diuretics and nonsteroidal anti-inflammatory drugs.'
]

_SENT = re.compile(r"(?<=[.!?])\s+(?=[A-Z0-9])")


# --- corpus ---------------------------------------------------------------------------


def _strings(obj, out: list[str]) -> None:
    """Long string values anywhere in a JSON value (article bodies, passages)."""
    if isinstance(obj, str):
        if len(obj) >= 200:
            out.append(obj)
    elif isinstance(obj, dict):
        for v in obj.values():
            _strings(v, out)
    elif isinstance(obj, list):
        for v in obj:
            _strings(v, out)


def data_paragraphs(root: Path) -> list[str]:
    paras: list[str] = []
    if not root.is_dir():
        return paras
    for path in sorted(root.rglob("*")):
        if path.suffix == ".txt":
            paras += [ln.strip() for ln in path.read_text(encoding="utf-8", errors="replace").splitlines()
                      if len(ln.split()) >= 12]
        elif path.suffix in (".json", ".jsonl"):
            text = path.read_text(encoding="utf-8", errors="replace")
            values = []
            try:
                _strings(json.loads(text), values)
            except ValueError:
                for line in text.splitlines():
                    try:
                        _strings(json.loads(line), values)
                    except ValueError:
                        pass
            for v in values:
                paras += [p.strip() for p in re.split(r"\n\s*\n", v) if len(p.split()) >= 12]
    return paras


def sentence_pool(data_root: Path) -> tuple[list[list[str]], dict]:
    """Paragraphs as sentence lists, from data/ first, topped up with the built-in text."""
    from_data = [[s for s in _SENT.split(p) if len(s.split()) >= 4] for p in data_paragraphs(data_root)]
    from_data = [p for p in from_data if p]
    n_data = len({s for p in from_data for s in p})
    pool = list(from_data)
    used_builtin = n_data < MIN_SENTENCES
    if used_builtin:
        pool += [[s for s in _SENT.split(p)] for p in BUILTIN_PARAGRAPHS]
    source = {"data_paragraphs": len(from_data), "data_sentences": n_data, "builtin_added": used_builtin,
              "distinct_sentences": len({s for p in pool for s in p})}
    return pool, source


def make_chunks(n: int, pool: list[list[str]], seed: int) -> tuple[list[str], list[int]]:
    """N distinct chunks of ~90 words and each chunk's document; a document keeps to one topic.

    Chunks are kept distinct so the builder's de-duplication cannot flatter its figures
    against the raw model, which encodes every chunk.
    """
    rng = random.Random(seed)
    texts, doc_of, seen = [], [], set()
    doc = -1
    for i in range(n):
        if i % CHUNKS_PER_DOC == 0:
            doc += 1
            first = rng.randrange(len(pool))
            topic = [s for k in range(TOPIC_SPAN) for s in pool[(first + k) % len(pool)]]
        text = _draw(rng, topic)
        while text in seen:  # widen to the whole pool when a small topic runs dry
            text = _draw(rng, topic if rng.random() < 0.5 else [s for p in pool for s in p])
        seen.add(text)
        texts.append(text)
        doc_of.append(doc)
    return texts, doc_of


def _draw(rng: random.Random, sentences: list[str]) -> str:
    words, parts = 0, []
    while words < WORDS_PER_CHUNK - 10:
        s = rng.choice(sentences)
        parts.append(s)
        words += len(s.split())
    return " ".join(parts)


def make_benchmark(texts: list[str], doc_of: list[int]):
    from judgeagent.data.benchmark import Benchmark, Chunk, Document, QuestionType

    chunks = [Chunk(f"c{i}", f"d{d}", t) for i, (t, d) in enumerate(zip(texts, doc_of))]
    docs: dict[int, list[str]] = {}
    for c, d in zip(chunks, doc_of):
        docs.setdefault(d, []).append(c.id)
    documents = [Document(f"d{d}", f"section {d}", tuple(ids)) for d, ids in docs.items()]
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
                    bf16: bool) -> tuple[float, float]:
    """(wall s, CPU s) of loading MiniLM and encoding every chunk text and entity name."""
    import torch
    from sentence_transformers import SentenceTransformer

    from judgeagent.graph.embed import model_path

    t0, c0 = time.perf_counter(), cpu_seconds()
    model = SentenceTransformer(model_path(), device="cpu")
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        model.encode(texts, batch_size=batch_size, normalize_embeddings=True)
        model.encode(names, batch_size=entity_batch_size, normalize_embeddings=True)
    return time.perf_counter() - t0, cpu_seconds() - c0


def time_sample_cli(graph_dir: Path, entity: str, runs: int = 3) -> list[float]:
    exe = Path(sys.executable).parent / "judgeagent"
    cmd = [str(exe), "sample-path", str(graph_dir), "--entity", entity, "--hops", "2", "--seed", "0"]
    out = []
    for _ in range(runs):
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True, capture_output=True)
        out.append(time.perf_counter() - t0)
    return out


def time_sampling(graph, hops: int = 4, n: int = 200) -> float:
    """Mean seconds per hop of in-process sample_path from random non-stop entities."""
    import numpy as np

    rng = np.random.default_rng(0)
    live = [i for i in range(len(graph.entity_names)) if not graph.tables.stop[i]] or list(range(len(graph.entity_names)))
    starts = [graph.entity_names[i] for i in rng.choice(live, size=n)]
    graph.sample_path(starts[0], hops, seed=0)  # warm the memory maps
    t0 = time.perf_counter()
    steps = 0
    for s, name in enumerate(starts):
        steps += len(graph.sample_path(name, hops, seed=s))
    return (time.perf_counter() - t0) / max(steps, 1)


# --- main -------------------------------------------------------------------------------


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chunks", type=int, required=True)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--embed-batch-size", type=int, default=None, help="default: GraphConfig's")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--data", type=Path, default=ROOT / "data")
    ap.add_argument("--out", type=Path, default=None, help="graph folder (default: a temporary one)")
    ap.add_argument("--skip-raw", action="store_true", help="do not time the raw models")
    ap.add_argument("--json", type=Path, default=None, help="also write the figures here")
    ap.add_argument("--progress", action="store_true", help="show the builder's progress bars")
    ap.add_argument("--fp32-reference", action="store_true",
                    help="also time fp32 encoding when the builder uses bf16 autocast")
    args = ap.parse_args(argv)

    from judgeagent.config import GraphConfig
    from judgeagent.graph import build_graph
    from judgeagent.graph.build import ENTITY_BATCH_SIZE

    pool, source = sentence_pool(args.data)
    texts, doc_of = make_chunks(args.chunks, pool, args.seed)
    words = statistics.mean(len(t.split()) for t in texts)
    bench = make_benchmark(texts, doc_of)
    config = GraphConfig(workers=args.workers, force=True)
    if args.embed_batch_size:
        config.embed_batch_size = args.embed_batch_size
    tmp = None
    if args.out is None:
        tmp = tempfile.TemporaryDirectory(prefix="judgeagent-bench-")
        args.out = Path(tmp.name) / "graph"

    print(f"corpus: {len(texts)} chunks, {words:.1f} words/chunk on average, {len(set(texts))} distinct; "
          f"text source {source}")
    print(f"machine: {psutil.cpu_count()} cores, load average {os.getloadavg()[0]:.2f} at start")

    # Import the libraries up front so neither the builder nor the raw baseline is charged
    # for Python imports, only for loading and running the models.
    import sentence_transformers  # noqa: F401
    import spacy  # noqa: F401

    with RssMonitor() as mon:
        t0 = time.perf_counter()
        graph = build_graph(bench, config, args.out, progress=args.progress, on_stage=mon.mark)
        total = time.perf_counter() - t0
    m = graph.manifest
    n = len(texts)
    timings = m["timings_s"]
    figures = {"chunks": n, "workers": args.workers, "embed_batch_size": config.embed_batch_size,
               "words_per_chunk": round(words, 1), "counts": m["counts"], "indexes": m["indexes"], "stages": {}}
    print(f"graph: {m['counts']}")
    print(f"{'stage':<8} {'chunks/s':>9} {'seconds':>8} {'peak RSS':>9} {'CPU s':>8}")
    cpu_total = 0.0
    for stage in ("extract", "graph", "embed", "index", "write"):
        sec = timings[stage]
        peak = mon.stage_peak(stage) / 2**30
        cpu = mon.stage_cpu(stage)
        cpu_total += cpu
        figures["stages"][stage] = {"seconds": sec, "chunks_per_s": n / sec if sec else None, "peak_rss_gib": peak,
                                    "cpu_seconds": cpu}
        print(f"{stage:<8} {n / sec if sec else float('inf'):>9.1f} {sec:>8.2f} {peak:>7.2f} G {cpu:>8.2f}")
    peak_all = mon.peak() / 2**30
    print(f"{'total':<8} {n / total:>9.1f} {total:>8.2f} {peak_all:>7.2f} G {cpu_total:>8.2f}   "
          f"({total / n * 1000:.1f} ms per chunk wall, {cpu_total / n * 1000:.1f} ms CPU)")
    figures.update(total_seconds=total, chunks_per_s=n / total, ms_per_chunk=total / n * 1000, peak_rss_gib=peak_all,
                   cpu_seconds=cpu_total)

    if not args.skip_raw:
        bf16 = graph.manifest["embedding_model"]["precision"] == "bf16-autocast"
        raw_spacy, raw_spacy_cpu = time_raw_spacy(texts, args.workers, 64)
        raw_encode, raw_encode_cpu = time_raw_encode(texts, graph.entity_names, config.embed_batch_size,
                                                     ENTITY_BATCH_SIZE, bf16)
        ext, emb = timings["extract"], timings["embed"]
        ext_cpu, emb_cpu = mon.stage_cpu("extract"), mon.stage_cpu("embed")
        precision = "bf16 autocast" if bf16 else "fp32"
        print("overhead = builder / raw model, by wall time and by CPU time (CPU time is what a busy "
              "machine distorts least)")
        print(f"raw spaCy nlp.pipe (n_process={args.workers}, same components): {raw_spacy:.2f} s wall "
              f"({n / raw_spacy:.1f} chunks/s), {raw_spacy_cpu:.2f} s CPU; builder extract -> overhead "
              f"{ext / raw_spacy:.2f}x wall, {ext_cpu / raw_spacy_cpu:.2f}x CPU")
        print(f"raw SentenceTransformer.encode ({precision}, batch {config.embed_batch_size}, names "
              f"{ENTITY_BATCH_SIZE}): {raw_encode:.2f} s wall ({n / raw_encode:.1f} chunks/s), "
              f"{raw_encode_cpu:.2f} s CPU; builder embed -> overhead {emb / raw_encode:.2f}x wall, "
              f"{emb_cpu / raw_encode_cpu:.2f}x CPU")
        raw, raw_cpu = raw_spacy + raw_encode, raw_spacy_cpu + raw_encode_cpu
        print(f"builder total {total:.2f} s wall, {cpu_total:.2f} s CPU / raw models {raw:.2f} s wall, "
              f"{raw_cpu:.2f} s CPU -> overhead {total / raw:.2f}x wall, {cpu_total / raw_cpu:.2f}x CPU")
        figures.update(raw_spacy_s=raw_spacy, raw_encode_s=raw_encode, raw_spacy_cpu_s=raw_spacy_cpu,
                       raw_encode_cpu_s=raw_encode_cpu, overhead_extract=ext / raw_spacy,
                       overhead_embed=emb / raw_encode, overhead_total=total / raw,
                       overhead_total_cpu=cpu_total / raw_cpu, precision=precision)
        if bf16 and args.fp32_reference:
            raw32, _ = time_raw_encode(texts, graph.entity_names, config.embed_batch_size, ENTITY_BATCH_SIZE, False)
            print(f"reference: fp32 SentenceTransformer.encode {raw32:.2f} s ({n / raw32:.1f} chunks/s)")
            figures.update(raw_encode_fp32_s=raw32)

    top = sorted(range(len(graph.entity_names)), key=lambda i: -(graph.tables.adj_ptr[i + 1] - graph.tables.adj_ptr[i]))
    entity = graph.entity_names[top[0]] if top else "x"
    cli = time_sample_cli(args.out, entity)
    per_hop = time_sampling(graph)
    print(f"judgeagent sample-path --entity {entity!r} --hops 2 (new process, load included): "
          + ", ".join(f"{x:.2f}" for x in cli) + " s")
    print(f"in-process sampling: {per_hop * 1000:.2f} ms per hop")
    print(f"load average {os.getloadavg()[0]:.2f} at end (other work on the machine slows every figure)")
    figures.update(sample_path_cli_s=cli, sample_ms_per_hop=per_hop * 1000)
    if args.json:
        args.json.write_text(json.dumps(figures, indent=2))
    if tmp is not None:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
