"""Benchmark of `judgeagent evaluate`'s scheduling, against the scripted server.

It interviews ``--questions`` seed questions at ``--concurrency`` batches with ``--delay``
seconds a request (default 60 at 8 and 0.2 s; issue 16's full size is
``--questions 1273 --concurrency 64 --delay 0.5``, MedQA's test set against a remote
endpoint) and prints:
- the wall time and its ratio to the critical-path ideal: for every wave of `concurrency`
  batches, the longest batch's request chain × delay, summed over the waves (target ≤ 1.10);
- the peak RSS of the interview and of the replay (target ≤ 1.5 GB), measured by resetting
  the kernel's high-water mark (/proc/self/clear_refs) before each;
- requests and tokens per seed question;
- the time to replay the same run from its journal (target < 2% of the live run).

The questions are synthetic, in MedQA's format (``questions.jsonl`` lines
``{question, options, answer_idx, answer, meta_info}`` and ``textbooks/*.txt``, one
paragraph per line), written to a temporary folder from generated vocabularies of
conditions, findings, markers, organs and drugs: no real benchmark text. Each condition has
a textbook paragraph, so the seeds' entities are in the graph as real ones would be.

The scripted server runs in its own process, as a real endpoint would, so its CPU does not
share our GIL, and it parses HTTP with httptools (C) rather than h11 (pure Python): on 2
cores the pure-Python server added about 8 ms to every request, which a remote endpoint
does not cost our machine. It is declared in a models file with room for 3 requests per
batch (a validation sends the re-ask and its two controls at once), so what is measured is
our scheduling, not an endpoint limit that the ideal does not model. The quality gate and
the leakage guard run as in any evaluate: their judge calls are in the chains, and their
MiniLM embeddings are local work on the same 2 cores that the ideal counts as free. The
seed-side texts they compare with are embedded before the batches start; that time is
printed apart, as part of the whole command.
Usage: python bench/evaluate.py [--questions 60] [--concurrency 8] [--delay 0.2]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the scripted server and the deterministic target/judge

from scripted_server import ScriptedServerProcess  # noqa: E402

from judgeagent import evaluate  # noqa: E402
from judgeagent.config import EvalConfig, GraphConfig, LLMConfig  # noqa: E402
from judgeagent.data import load_benchmark  # noqa: E402
from judgeagent.graph import build_graph  # noqa: E402

SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "zen", "pra", "dul", "sor", "gim", "bex", "thal", "quin", "mor", "fel", "dra"]
SEXES = ["man", "woman"]
STEMS = ["Which of the following is the most likely diagnosis?", "Which of the following conditions best explains these findings?",
         "Which of the following disorders is most likely?", "Which of the following is the most likely cause of the findings?"]  # fmt: skip


def _word(rng: random.Random, parts: int, ending: str) -> str:
    return "".join(rng.choice(SYLLABLES) for _ in range(parts)) + ending


def _vocabulary(rng: random.Random, n_conditions: int) -> list[dict]:
    """Synthetic conditions, each with its organ, two findings, a marker and a drug."""
    names: set[str] = set()
    conditions = []
    while len(conditions) < n_conditions:
        name = _word(rng, 2, rng.choice(["itis", "osis", "emia", "opathy", "oma"]))
        if name in names:
            continue
        names.add(name)
        conditions.append({
            "name": name.capitalize() + " syndrome",
            "organ": _word(rng, 2, rng.choice(["al gland", "ic duct", "ar lobe"])),
            "findings": [_word(rng, 2, rng.choice(["ia", "osis", "ism"])) for _ in range(2)],
            "marker": _word(rng, 2, "in"),
            "drug": _word(rng, 2, rng.choice(["mab", "pril", "olol", "azole", "statin"])),
        })  # fmt: skip
    return conditions


def _paragraph(c: dict) -> str:
    return (f"{c['name']} is a disorder of the {c['organ']} in which {c['findings'][0]} and {c['findings'][1]} develop over weeks. "
            f"Serum {c['marker']} rises early and falls with treatment, so it is followed to judge the response. "
            f"The first-line drug is {c['drug']}, which acts on the {c['organ']}; patients who cannot take it are observed closely.")  # fmt: skip


def write_benchmark(folder: Path, n: int, seed: int = 0) -> list[dict]:
    """``n`` synthetic MedQA-format questions and their textbooks in ``folder``."""
    rng = random.Random(seed)
    conditions = _vocabulary(rng, max(20, min(n, 400)))
    (folder / "textbooks").mkdir(parents=True, exist_ok=True)
    for book in range(10):
        paragraphs = [_paragraph(c) for c in conditions[book::10]]
        (folder / "textbooks" / f"book{book:02d}.txt").write_text("\n".join(paragraphs) + "\n")
    questions, seen = [], set()
    while len(questions) < n:
        c = rng.choice(conditions)
        text = (f"A {rng.randint(18, 85)}-year-old {rng.choice(SEXES)} has had {c['findings'][0]} for {rng.randint(2, 30)} days "
                f"and now has {c['findings'][1]}. Serum {c['marker']} is {rng.randint(2, 9)} times the upper limit. {rng.choice(STEMS)}")  # fmt: skip
        if text in seen:
            continue
        seen.add(text)
        names = [c["name"]] + [o["name"] for o in rng.sample([o for o in conditions if o is not c], 4)]
        rng.shuffle(names)
        options = dict(zip("ABCDE", names))
        letter = next(k for k, v in options.items() if v == c["name"])
        questions.append({"question": text, "options": options, "answer_idx": letter, "answer": c["name"], "meta_info": "synthetic"})
    (folder / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    return questions


def reset_peak_rss() -> bool:
    """Reset this process's peak RSS (VmHWM) to its current RSS; False where Linux does not allow it."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def peak_rss_mb() -> float:
    """VmHWM since the last reset (Linux), else the process's lifetime peak."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def gate_calls(attempt: dict, passages: int) -> int:
    """Judge calls the quality gate made, one after another, for one generated question."""
    checks = (attempt.get("gate") or {}).get("checks") or {}
    n = 1 if (checks.get("answerable") or {}).get("passed") is not None else 0
    hops = checks.get("needs_hops") or {}
    if hops.get("passed") is True:  # stopped at the first passage whose removal made the judge miss
        n += int(re.search(r"passage (\d+)", hops.get("reason", "")).group(1))
    elif hops.get("passed") is False:
        n += passages
    return n


def chain_length(rec: dict) -> int:
    """Requests one batch makes in sequence: the seed ask; each round's tries, their gate
    checks and the ask; each validation's feedback, leak rewrite and re-ask (the two control
    re-asks go out at the same time as the re-ask)."""
    n = 1
    for rd in rec["rounds"]:
        passages = len({s["text"] for s in (rd.get("path") or {}).get("steps", [])})
        for attempt in rd.get("generation_attempts") or []:
            n += 1 + gate_calls(attempt, passages)
        n += 1 if rd.get("answer") else 0
    for v in rec["validations"]:
        n += 1 + (1 if (v.get("leak") or {}).get("rewritten") else 0) + (1 if v["reasked"] else 0)
    return n


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--questions", type=int, default=60, help="synthetic seed questions (issue 16: 1273, MedQA's test set)")
    ap.add_argument("--concurrency", type=int, default=8, help="batches interviewed at once")
    ap.add_argument("--delay", type=float, default=0.2, help="seconds the scripted endpoint takes per request")
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        qs = write_benchmark(tmp / "bench-data", args.questions)
        bench = load_benchmark(tmp / "bench-data")
        t = time.perf_counter()
        build_graph(bench, GraphConfig(), tmp / "graph", progress=False)
        print(f"graph built in {time.perf_counter() - t:.1f} s ({len(bench.chunks)} chunks); load average {load()}")

        # Every other question right, before and after advice: a realistic mix of re-asks.
        plan = {q["question"]: (i % 2 == 0, i % 3 != 0) for i, q in enumerate(qs)}
        script = {"seed_plan": plan, "answers": {q["question"]: q["answer_idx"] for q in qs}}
        with ScriptedServerProcess(args.delay, interview=script) as srv:
            endpoint_limit = 3 * args.concurrency
            models_file = tmp / "judgeagent.toml"
            models_file.write_text(
                f'[models.scripted]\nbase_url = "{srv.base_url}"\nmodel = "scripted"\nconcurrency = {endpoint_limit}\n'
            )
            cfg = EvalConfig(target="scripted", judge="scripted", data=tmp / "bench-data", graph=tmp / "graph",
                             out=tmp / "run", concurrency=args.concurrency, llm=LLMConfig(models_file=models_file))
            reset_peak_rss()
            t = time.perf_counter()
            outcome = evaluate(cfg, progress=False)
            wall = time.perf_counter() - t
            live_rss = peak_rss_mb()
            n_requests = srv.stats()["requests"]
            interview_s = outcome.timings["interview_s"]

            records = sorted((json.loads(line) for line in (tmp / "run" / "records.jsonl").read_text().splitlines()),
                             key=lambda r: r["batch_index"])
            chains = [chain_length(r) for r in records]
            waves = [chains[i : i + args.concurrency] for i in range(0, len(chains), args.concurrency)]
            ideal = sum(max(w) for w in waves) * args.delay

            # Replay through the journal: a fresh run folder holding only the copied journal,
            # so every batch is redone and every request is answered from the journal.
            (tmp / "replay").mkdir()
            shutil.copy(tmp / "run" / "journal.sqlite", tmp / "replay" / "journal.sqlite")
            reset_peak_rss()
            replayed = evaluate(cfg.model_copy(update={"out": tmp / "replay"}), progress=False)
            replay_rss = peak_rss_mb()
            replay = replayed.timings["interview_s"]
            replay_requests = srv.stats()["requests"] - n_requests
            same = replayed.metrics["acc2"] == outcome.metrics["acc2"]

        usage = outcome.metrics["llm_usage"]["total"]
        n = len(qs)
        print(f"seed questions: {n} (synthetic, MedQA format), batches: {len(records)}, concurrency: {args.concurrency} batches "
              f"({endpoint_limit} requests at the endpoint), delay: {args.delay * 1000:.0f} ms; load average {load()}")
        print(f"requests sent: {n_requests} (chain lengths {min(chains)}–{max(chains)})")
        print(f"interview wall time: {interview_s:.2f} s; critical-path ideal: {ideal:.2f} s; ratio: {interview_s / ideal:.3f} (target ≤ 1.10)")
        tm = outcome.timings
        print(f"whole command: {wall:.2f} s, incl. graph load and planning {tm['plan_s']:.2f} s and embedding "
              f"the seed-side texts {tm['prime_s']:.2f} s before the batches start")
        print(f"peak RSS: {live_rss:,.0f} MB during the run, {replay_rss:,.0f} MB during the replay (target ≤ 1,536 MB); "
              f"process lifetime peak, graph build included: {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:,.0f} MB")
        print(f"requests per seed question: {n_requests / n:.2f}")
        print(f"tokens per seed question: {(usage['prompt_tokens'] + usage['completion_tokens']) / n:.1f} "
              f"(prompt {usage['prompt_tokens'] / n:.1f}, completion {usage['completion_tokens'] / n:.1f}; scripted server counts words)")
        print(f"replay from the journal: {replay:.2f} s ({100 * replay / interview_s:.1f}% of the live run; target < 2%), "
              f"{replay_requests} requests sent, same metrics: {same}")


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


if __name__ == "__main__":
    main()
