"""How well the leakage guard tells hints from advice, on leaks it was not written for (issue 24).

On the leak corpus of bench/leak_corpus.jsonl (33 invented questions in batches of three;
leaking suggestions labelled with the kind of give-away, clean ones), split once by batch
into a development half (the only one the rules and the semantic thresholds were tuned on)
and a held-out half, print for each half:

* the catch rate: leaking suggestions with at least one finding, overall and per kind;
* the false-alarm rate: clean suggestions with any finding;

each with its Wilson 95% interval, for the rules alone and for the rules plus the semantic
layer (the real MiniLM). Each suggestion is checked against the three questions of its
batch, as the guard checks a batch's suggestions in a run. Target (held-out, rules plus the
semantic layer, no judge): catch >= 90%, false alarms <= 5%.

``--judge MODEL`` measures the judge's leak check on its own (the layer ``--leak-check
judge`` adds), on ``--judge-sample`` suggestions of each half drawn with a fixed seed (half
leaking, half clean; 0 = all). The bundled model writes ~30 tokens/s, so sample. MODEL is
any name the registry knows: ``local`` (the bundled SmolLM2), ``openai:gpt-4.1-mini`` (reads
OPENAI_API_KEY), or ``http://HOST:PORT/v1@MODEL`` for any OpenAI-compatible server. A
verdict still unreadable after its retry is counted apart ("check failed"), never as clean.

``--calibrate`` prints the semantic scores' percentiles over the development half's clean
suggestions, from which the thresholds in judgeagent/stages/leak_semantic.py were read (p100,
the development maximum, rounded up).

Run: .venv/bin/python bench/leak_guard.py [--judge local --judge-sample 24] [--calibrate]
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judgeagent.config import LLMConfig  # noqa: E402
from judgeagent.stages.leakage import find_leaks  # noqa: E402
from tests.leak_table import FRESH, FRESH2, GROUPS, HALVES, Suggestion, load_corpus  # noqa: E402

CATCH_TARGET, FALSE_ALARM_TARGET = 0.90, 0.05


def wilson(k: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson score interval of k successes in n trials."""
    if n == 0:
        return (math.nan, math.nan)
    p = k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def rate(k: int, n: int) -> str:
    lo, hi = wilson(k, n)
    return f"{k:>3}/{n:<3} = {k / n:6.1%} [{lo:5.1%}, {hi:5.1%}]" if n else f"{k}/0"


def measure(items: list[Suggestion], flagged) -> dict:
    """Catches per kind and false alarms of ``flagged(suggestion) -> bool``."""
    caught: Counter = Counter()
    total: Counter = Counter()
    alarms, misses = [], []
    for s in items:
        hit = flagged(s)
        if s.leaks:
            total[s.kind] += 1
            caught[s.kind] += hit
            if not hit:
                misses.append(s)
        elif hit:
            alarms.append(s)
    n_clean = sum(1 for s in items if not s.leaks)
    return {"caught": sum(caught.values()), "leaking": sum(total.values()), "by_kind": caught, "total": total,
            "alarms": alarms, "clean": n_clean, "misses": misses}


def report(name: str, m: dict) -> bool:
    print(f"  {name:<18} catch {rate(m['caught'], m['leaking'])}   false alarms {rate(len(m['alarms']), m['clean'])}")
    for kind in sorted(m["total"]):
        print(f"  {'':<20}{kind:<16} {rate(m['by_kind'][kind], m['total'][kind])}")
    return m["caught"] / m["leaking"] >= CATCH_TARGET and len(m["alarms"]) / m["clean"] <= FALSE_ALARM_TARGET


def load_average() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f} ({os.cpu_count()} cores)"


def sample(items: list[Suggestion], n: int, seed: int = 24) -> list[Suggestion]:
    """Half leaking, half clean, drawn with a fixed seed (all of them when n is 0)."""
    if n <= 0:
        return items
    rng = random.Random(seed)
    leaking = [s for s in items if s.leaks]
    clean = [s for s in items if not s.leaks]
    return rng.sample(leaking, min(len(leaking), n - n // 2)) + rng.sample(clean, min(len(clean), n // 2))


async def judge_flags(model: str, items: list[Suggestion], batches: dict) -> tuple[dict[str, bool], int]:
    """The judge's leak check on each suggestion: {text: leaks}, and how many checks failed
    (a verdict unreadable after its retry), which are left out of the rates."""
    from judgeagent.llm import LLMClient, load_registry
    from judgeagent.stages.leak_judge import judge_leak_check
    from judgeagent.stages.models import Models

    spec = load_registry().resolve(model)
    flags: dict[str, bool] = {}
    failed = 0
    async with LLMClient(None, LLMConfig(no_cache=True)) as client:
        models = Models(client, spec, spec)
        for i, s in enumerate(items, 1):
            verdicts = await judge_leak_check(models, s.text, batches[s.batch])
            if any(v.verdict is None for v in verdicts):
                failed += 1
                continue
            flags[s.text] = any(v.leaks for v in verdicts)
            print(f"\r  judged {i}/{len(items)}", end="", file=sys.stderr, flush=True)
    print(file=sys.stderr)
    return flags, failed


def calibrate(corpus, embedder) -> None:
    import numpy as np

    from judgeagent.stages.leak_semantic import scores

    dev = [s for s in corpus.half("development") if not s.leaks]
    for label, with_options in (("with options", True), ("phrase answers", False)):
        values = []
        for s in dev:
            qs = [q for q in corpus.batches[s.batch] if bool(q.options) == with_options]
            got = [x.score for x in scores(s.text, qs, embedder)]
            if got:
                values.append(max(got))
        qs_ = [0.5, 0.9, 0.95, 0.97, 0.99, 1.0]
        print(f"  semantic score, {label}, development clean (n={len(values)}): "
              + "  ".join(f"p{int(q * 100)} {v:.3f}" for q, v in zip(qs_, np.quantile(values, qs_), strict=True)))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--judge", metavar="MODEL", help="also measure the judge's leak check with this model")
    parser.add_argument("--judge-sample", type=int, default=24, help="suggestions per half for the judge (0: all)")
    parser.add_argument("--calibrate", action="store_true", help="print the semantic scores' development percentiles")
    parser.add_argument("--show-misses", action="store_true", help="list the held-out leaks that slip and the false alarms")
    args = parser.parse_args()

    corpus = load_corpus()
    print(f"Leak corpus: {len(corpus.batches)} batches, {len(corpus.questions())} questions; split seed {corpus.split['seed']}")
    print(load_average() + " at start")
    from judgeagent.graph.embed import shared_embedder
    from judgeagent.graph.embed_queue import EmbeddingQueue
    from judgeagent.graph.fixed_precision import decision_embedder
    from judgeagent.stages.leakage import guard_texts

    t0 = time.perf_counter()
    embedder = EmbeddingQueue(shared_embedder())
    texts = [t for s in corpus.suggestions for t in guard_texts(s.text, corpus.batches[s.batch])]
    # One pass, so each check below reads the cache (of the fp32 queue the guard decides with).
    decision_embedder(embedder).encode(list(dict.fromkeys(texts)))
    print(f"MiniLM loaded and {len(set(texts))} texts embedded in {time.perf_counter() - t0:.1f} s")

    ok = True
    for half in GROUPS:
        items = corpus.half(half)
        if not items:
            continue
        if half == FRESH:
            print("\n(fresh: written after the held-out half's first measurement, to measure the changes made after it)")
        if half == FRESH2:
            print("\n(fresh2: written before any change of the next session, to measure that session's guard untouched)")
        print(f"\n{half}: {sum(s.leaks for s in items)} leaking, {sum(not s.leaks for s in items)} clean, "
              f"batches {', '.join(corpus.split[half])}")
        rules = measure(items, lambda s: bool(find_leaks(s.text, corpus.batches[s.batch])))
        both = measure(items, lambda s: bool(find_leaks(s.text, corpus.batches[s.batch], embedder=embedder)))
        report("rules", rules)
        met = report("rules + semantic", both)
        if half in ("held_out", FRESH, FRESH2):
            ok = ok and met
            print(f"  target ({half}, rules + semantic): catch >= {CATCH_TARGET:.0%}, false alarms <= "
                  f"{FALSE_ALARM_TARGET:.0%}: {'met' if met else 'NOT met'}")
        if half in ("held_out", FRESH, FRESH2) and args.show_misses:
            for s in both["misses"]:
                print(f"    slips ({s.kind}): {s.text}")
            for s in both["alarms"]:
                print(f"    false alarm: {s.text}")
    if args.calibrate:
        print()
        calibrate(corpus, embedder)
    if args.judge:
        print(f"\njudge layer alone ({args.judge}), {args.judge_sample or 'all'} suggestions per half (seed 24):")
        for half in HALVES:
            items = sample(corpus.half(half), args.judge_sample)
            t0 = time.perf_counter()
            flags, failed = asyncio.run(judge_flags(args.judge, items, corpus.batches))
            judged = [s for s in items if s.text in flags]
            m = measure(judged, lambda s, flags=flags: flags[s.text])
            print(f"  {half}: {len(items)} sampled, {failed} leak checks failed (left out), {time.perf_counter() - t0:.0f} s")
            report("judge", m)
    print("\n" + load_average() + " at end")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
