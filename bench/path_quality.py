"""Do knowledge paths follow the seed questions? A quality measurement, not a timing one.

    .venv/bin/python bench/path_quality.py [--chains 60] [--seed 7] [--no-demos] [--entity-encoder wordllama] [--chunk-encoder wordllama]
    .venv/bin/python bench/path_quality.py --embed both     # lazy graphs against full ones

Writes a synthetic multi-hop corpus (our own templates and invented names, seeded; no
real benchmark text), shaped the way HotpotQA-style data is: each question names a person
whose article (gold paragraph A) names the town they lived in (the bridge entity), whose
own article (gold paragraph B) names the river that is the answer. The gold paragraphs
sit among many distractor articles that reuse the bridge towns, shared clubs and the
everyday words ("year", "time", "season", "member", months, numbers) real text is full of.

For batches of three questions it runs the interview's own ``plan_batch``, once with the
graph sampler and once with ``--no-graph`` (random chunks), and prints:

- ``first-window gold``: share of batches whose first window (the first ``hops`` steps,
  what round 1 asks about) holds a gold paragraph of one of the batch's seeds;
- ``generic pivots``: share of hops (path steps after the first) whose entity is generic;
- ``generic starts``: share of batches whose start entity is generic.

"Generic" is judged here by the bench's own yardstick, independent of the builder's rules:
numbers, months and a hand-written list of everyday nouns (:data:`GENERIC_WORDS`); an
entity is generic when every word of it is. The demo graphs under data/ get the same
figures (first-window gold where the data says which passages are gold: the evidence
articles of multihop-demo, the article of a quality-demo question; medqa-demo has none).
Targets: first-window gold >= 85%, generic pivots <= 10%, generic starts 0.

``--embed both`` builds every corpus twice, lazily (the default: vectors on demand, global
searches in two stages) and with ``--embed all`` (FAISS over every stored vector), prints the
figures of each, and how many batches got another start entity or another path: only a
global search (a dead end's jump, a question name matching no node by its text, a batch
naming no node) can make them differ, and only where the lexical stage missed the chunk or
name that the exact search finds.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HOPS, ROUNDS, BATCH_SIZE = 2, 3, 3  # the interview's defaults
TARGETS = {"first_window_gold": 0.85, "generic_pivots": 0.10, "generic_starts": 0.0}

MONTHS = "january february march april may june july august september october november december".split()
# Everyday nouns and modifiers that carry no identity of their own (the yardstick).
GENERIC_WORDS = frozenset(
    """time year years day days week month months season seasons series work works member members band bands
    life working people person region area period end beginning century decade number part parts way thing
    things place places group groups kind sort lot side fact case point world home family man men woman women
    child children name names use history record records town towns city cities river rivers village fair
    visitor visitors population early late first last new old many most several other same following
    spring summer autumn winter today yesterday tomorrow morning evening night hour hours minute minutes
    american band ability accordance attention interest matter question answer reason result example
    problem level order form line course term issue idea story job area state system company country
    age moment while word words note member's critic critics edition""".split()
)

SYLLABLES = "bra cor dan el fen gal hor is jun kel lor mar nes or pel quin ros sel tor ul var wen yor zal".split()
OCCUPATIONS = "painter sculptor cartographer clockmaker weaver glassblower engraver bookbinder".split()
TOPICS = "light and shadow|the texture of stone|old trade routes|the lives of fishermen|river crossings".split("|")
INDUSTRIES = "mill|tannery|brewery|shipyard|ropewalk|foundry".split("|")


@dataclass
class Synthetic:
    folder: Path
    gold: dict[str, tuple[str, str]]  # question id -> (person article, town article) doc ids


# --- the synthetic corpus ---------------------------------------------------------------


def invented(rng: random.Random, used: set[str], parts: int = 2) -> str:
    """A new made-up word (3 syllables give 13,824 of them; 2 give 576)."""
    while True:
        word = "".join(rng.choice(SYLLABLES) for _ in range(parts)).capitalize()
        if word not in used:
            used.add(word)
            return word


def new_person(rng: random.Random, used: set[str]) -> str:
    first = "".join(rng.choice(SYLLABLES) for _ in range(2)).capitalize()  # first names may repeat
    return f"{first} {invented(rng, used, 3)}"


def new_work(rng: random.Random, used: set[str]) -> str:
    return f"The {invented(rng, used, 3)} {rng.choice(['Harrow', 'Lantern', 'Gate'])}"


def person_article(rng, person, town, club, work, occupation) -> str:
    year = rng.randint(1780, 1900)
    return (
        f"{person} was a {occupation} born in {year}. For most of that working life "
        f"{person} lived in {town}, where the young artist became a member of the {club}. "
        f"The best-known work of {person}, {work}, appeared in {rng.choice(MONTHS).title()} {year + rng.randint(20, 40)} "
        f"and was reissued several times over the following years. Critics at the time praised its "
        f"attention to {rng.choice(TOPICS)}, and for a season it was the talk of the region."
    )


def town_article(rng, town, river) -> str:
    industry, other = rng.sample(INDUSTRIES, 2)
    return (
        f"{town} is a market town on the banks of the {river}. The town grew around a {industry} in the "
        f"{rng.choice(['sixteenth', 'seventeenth', 'eighteenth'])} century, and by the end of that period it had "
        f"a population of about {rng.randint(2, 40) * 100} people. Every year in {rng.choice(MONTHS).title()} the "
        f"town holds a fair that draws visitors from across the region. The {river} also turns the wheels of "
        f"the old {other} of {town}."
    )


FILLERS = (
    "The year {year} was a difficult time for the {club}. Over the season many members left for work "
    "elsewhere, and the series of concerts held each month in {town} was cancelled. By {month} only {n} "
    "members remained, and the number of people who came to hear the band fell for the first time in {m} years.",
    "Accounts of the period describe {town} as a busy place. Each week the market drew farmers from the "
    "villages around, and in {month} the {club} gave its yearly exhibition, at which {person} showed new work.",
    "In {year} the {club} moved its meetings from {town} to a hall beside the station. The change was "
    "unpopular at the time, and several members, among them {person}, argued for a return within the year.",
    "Travellers in the {century} century rarely stopped in {town}. Those who did wrote of its narrow streets, "
    "its {industry}, and a fair held every {month} that was said to be the oldest in the region.",
)


def filler_article(rng, club, town, person) -> str:
    return rng.choice(FILLERS).format(
        year=rng.randint(1780, 1900), club=club, town=town, person=person, month=rng.choice(MONTHS).title(),
        n=rng.randint(3, 12), m=rng.randint(5, 30), industry=rng.choice(INDUSTRIES),
        century=rng.choice(["sixteenth", "seventeenth", "eighteenth"]),
    )


QUESTIONS = (
    "Which river flows past the town where {person} spent most of that working life?",
    "At the time {person} became a member of the {club}, which river ran through the town where that member lived?",
    "In the years after {work} appeared, which river turned the mill wheels of the town that {person} called home?",
    "According to accounts of the period, which river ran beside the home town of the {occupation} {person}?",
    "By the end of that century, what was the name of the river at the town where {person} did most work?",
)


def write_synthetic(folder: Path, seed: int, n_chains: int) -> Synthetic:
    """Write corpus.jsonl + questions.jsonl (generic format) and return the gold map."""
    rng = random.Random(seed)
    used: set[str] = set()
    clubs = [f"{invented(rng, used)} {rng.choice(['Guild', 'Society', 'Circle'])}" for _ in range(6)]
    rivers = [f"{invented(rng, used)} River" for _ in range(max(4, n_chains // 3))]
    towns = [invented(rng, used, 3) for _ in range(n_chains + n_chains // 2)]
    town_river = {t: rng.choice(rivers) for t in towns}
    docs: list[dict] = []

    def add(text: str, title: str) -> str:
        doc_id = f"p{len(docs):04d}"
        docs.append({"doc_id": doc_id, "title": title, "text": text})
        return doc_id

    questions, gold, people = [], {}, []
    for i in range(n_chains):
        person, work, occupation = new_person(rng, used), new_work(rng, used), rng.choice(OCCUPATIONS)
        town, club = towns[i], rng.choice(clubs)
        a = add(person_article(rng, person, town, club, work, occupation), person)
        b = add(town_article(rng, town, town_river[town]), town)
        qid = f"q{i:03d}"
        text = QUESTIONS[i % len(QUESTIONS)].format(person=person, club=club, work=work, occupation=occupation)
        questions.append({"id": qid, "question": text, "answer": town_river[town]})
        gold[qid] = (a, b)
        people.append(person)
    for _ in range(4 * n_chains):  # people who are in no question, living in the same towns
        person, work = new_person(rng, used), new_work(rng, used)
        add(person_article(rng, person, rng.choice(towns), rng.choice(clubs), work, rng.choice(OCCUPATIONS)), person)
        people.append(person)
    for town in towns[n_chains:]:
        add(town_article(rng, town, town_river[town]), town)
    for _ in range(3 * n_chains):  # notes that mention the questions' people and towns in passing
        add(filler_article(rng, rng.choice(clubs), rng.choice(towns), rng.choice(people)), "Notes")
    order = list(range(len(docs)))
    rng.shuffle(order)  # gold articles are not next to each other in the file
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "corpus.jsonl", "w", encoding="utf-8") as f:
        for k in order:
            f.write(json.dumps(docs[k]) + "\n")
    with open(folder / "questions.jsonl", "w", encoding="utf-8") as f:
        for q in questions:
            f.write(json.dumps(q) + "\n")
    return Synthetic(folder, gold)


# --- measuring --------------------------------------------------------------------------


def is_generic(entity: str) -> bool:
    words = re.findall(r"[^\W_]+", entity.casefold())
    if not words:
        return True
    return all(w in GENERIC_WORDS or w in MONTHS or w.isdigit() for w in words)


def measure(graph, bench, batches, extractor, gold_chunks, *, no_graph: bool, plans_out: dict | None = None) -> dict:
    """The three figures over ``batches`` for one sampler (``plans_out`` receives the plans)."""
    from judgeagent.stages.planning import Setting, plan_batches

    cfg = SimpleNamespace(hops=HOPS, rounds=ROUNDS, seed=0)
    setting = Setting("no graph", no_graph=True) if no_graph else Setting("full")
    plans = plan_batches(graph, extractor, batches, [(setting, b) for b in batches], cfg)
    if plans_out is not None:
        plans_out.update(plans)
    hits = judged = starts = generic_starts = pivots = generic_pivots = 0
    for batch in batches:
        plan = plans[(setting.name, batch.id)]
        steps = [vars(st) for st in plan.path.steps] if plan.path else []
        if not steps:
            continue
        starts += 1
        generic_starts += is_generic(steps[0]["entity"])
        pivots += len(steps) - 1
        generic_pivots += sum(is_generic(s["entity"]) for s in steps[1:])
        gold = set().union(*(gold_chunks.get(q.id, set()) for q in batch.questions))
        if gold:
            judged += 1
            hits += any(s["chunk_id"] in gold for s in steps[:HOPS])
    return {
        "batches": len(batches),
        "first_window_gold": hits / judged if judged else None,
        "generic_pivots": generic_pivots / pivots if pivots else 0.0,
        "generic_starts": generic_starts / starts if starts else 0.0,
    }


def synthetic_gold(bench, synth: Synthetic) -> dict[str, set[str]]:
    by_doc: dict[str, set[str]] = {}
    for c in bench.chunks:
        by_doc.setdefault(c.doc_id, set()).add(c.id)
    return {qid: by_doc[a] | by_doc[b] for qid, (a, b) in synth.gold.items()}


def demo_gold(bench) -> dict[str, set[str]]:
    """Gold chunks where the data names them: evidence facts (multihop), the article (quality)."""
    out: dict[str, set[str]] = {}
    for q in bench.questions:
        facts = [f for f in q.meta.get("evidence_facts", []) if f]
        docs = set(q.meta.get("evidence_doc_ids", []))
        if docs:
            chunks = [c for c in bench.chunks if c.doc_id in docs]
            hit = {c.id for c in chunks if any(_squash(f[:60]) in _squash(c.text) for f in facts)}
            out[q.id] = hit or {c.id for c in chunks}
        elif bench.format == "quality" and q.doc_id:
            out[q.id] = {c.id for c in bench.chunks if c.doc_id == q.doc_id}
    return out


def _squash(text: str) -> str:
    return " ".join(text.split()).casefold()


ENCODERS: dict[str, str] = {}  # GraphConfig's entity_encoder / chunk_encoder, from the command line


def build(data: Path, out: Path, embed: str | None = None):
    from judgeagent.config import GraphConfig
    from judgeagent.data import load_benchmark
    from judgeagent.graph import build_graph

    bench = load_benchmark(data)
    config = GraphConfig(out=out, **ENCODERS)
    if embed is not None:
        config = config.model_copy(update={"embed": embed})
    graph = build_graph(bench, config, out, progress=False)
    return bench, graph


def fmt(x) -> str:
    return "   n/a" if x is None else f"{x:6.1%}"


def report(name: str, graph, bench, extractor, gold, embed: str = "", plans: dict | None = None) -> list[dict]:
    try:
        from judgeagent.batches import make_batches
    except ImportError:  # before batching had its own module
        from judgeagent.interview import make_batches

    batches = make_batches(bench, BATCH_SIZE)
    rows = []
    samplers = (("graph", False), ("--no-graph", True)) if embed in ("", "all") else (("graph", False),)
    for label, no_graph in samplers:
        r = measure(graph, bench, batches, extractor, gold, no_graph=no_graph, plans_out=plans if not no_graph else None)
        shown = f"{label} {embed}".strip() if not no_graph else label
        rows.append({"corpus": name, "sampler": label, "embed": embed or None, **r})
        print(f"{name:<16} {shown:<11} {r['batches']:>7}  {fmt(r['first_window_gold'])}  "
              f"{fmt(r['generic_pivots'])}  {fmt(r['generic_starts'])}", flush=True)
    return rows


def compare_plans(name: str, lazy: dict, full: dict) -> dict:
    """How many batches' start entity and path differ between the lazy and the full graph."""
    keys = sorted(full)
    starts = sum(lazy[k].start_entity == full[k].start_entity for k in keys)
    paths = sum((lazy[k].path.to_dict() if lazy[k].path else None) == (full[k].path.to_dict() if full[k].path else None)
                for k in keys)
    print(f"{name:<16} lazy vs all: same start entity {starts}/{len(keys)} ({starts / max(len(keys), 1):.1%}), "
          f"same path {paths}/{len(keys)} ({paths / max(len(keys), 1):.1%})", flush=True)
    return {"corpus": name, "batches": len(keys), "same_start": starts, "same_path": paths}


def corpus_rows(name: str, data: Path, work: Path, extractor, gold_of, embeds: tuple[str | None, ...]) -> list[dict]:
    rows, plans = [], {}
    for embed in embeds:
        plans[embed] = {}
        bench, graph = build(data, work / "graphs" / (name if embed is None else f"{name}-{embed}"), embed)
        rows += report(name, graph, bench, extractor, gold_of(bench), embed or "", plans[embed])
    if "lazy" in plans and "all" in plans:
        rows.append(compare_plans(name, plans["lazy"], plans["all"]))
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--chains", type=int, default=60, help="planted question chains (batches = chains / 3)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--work", type=Path, default=Path(tempfile.gettempdir()) / "judgeagent-path-quality",
                    help="where the corpus and graphs go (graphs are reused when unchanged)")
    ap.add_argument("--no-demos", action="store_true", help="skip the demo graphs")
    ap.add_argument("--json", type=Path, help="also write the figures here")
    ap.add_argument("--entity-encoder", default="minilm", help="encoder of the graph's entity names")
    ap.add_argument("--chunk-encoder", default="minilm", help="encoder of the graph's chunk texts")
    ap.add_argument("--embed", choices=("default", "lazy", "all", "both"), default="default",
                    help="how the graphs are built: GraphConfig's default, lazy, all, or both (and compare them)")
    args = ap.parse_args()
    ENCODERS.update(entity_encoder=args.entity_encoder, chunk_encoder=args.chunk_encoder)
    print(f"encoders: entity names {args.entity_encoder}, chunks {args.chunk_encoder}")

    from judgeagent.graph import SpacyExtractor

    started = time.perf_counter()
    extractor = SpacyExtractor(workers=1)
    synth = write_synthetic(args.work / "synthetic-data", args.seed, args.chains)
    print(f"{'corpus':<16} {'sampler':<11} {'batches':>7}  {'gold@1':>6}  {'gen.piv':>6}  {'gen.st':>6}")
    embeds = {"default": (None,), "lazy": ("lazy",), "all": ("all",), "both": ("all", "lazy")}[args.embed]
    rows = corpus_rows("synthetic", synth.folder, args.work, extractor, lambda bench: synthetic_gold(bench, synth), embeds)
    if not args.no_demos:
        for demo in ("medqa-demo", "multihop-demo", "quality-demo"):
            rows += corpus_rows(demo, ROOT / "data" / demo, args.work, extractor, demo_gold, embeds)
    print(f"targets: first-window gold >= {TARGETS['first_window_gold']:.0%}, generic pivots <= "
          f"{TARGETS['generic_pivots']:.0%}, generic starts {TARGETS['generic_starts']:.0%} "
          f"(graph sampler); {time.perf_counter() - started:.0f} s, load average {os.getloadavg()[0]:.2f}")
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
