"""Benchmark of `judgeagent evaluate`'s scheduling, against the scripted server at 200 ms a request.

It interviews 60 seed questions at concurrency 8 and prints:
- the wall time and its ratio to the critical-path ideal: for every wave of `concurrency`
  batches, the longest batch's request chain × 200 ms, summed over the waves;
- requests and tokens per seed question;
- the time to replay the same run from its journal.

The 60 questions are the MedQA demo's, with reworded copies to reach 60 (a generic-format
benchmark written to a temporary folder; the corpus is the demo textbooks).

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
import re
import os
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the scripted server and the deterministic target/judge

from scripted_server import ScriptedServerProcess  # noqa: E402

from judgeagent.config import EvalConfig, GraphConfig, LLMConfig  # noqa: E402
from judgeagent.data import load_benchmark  # noqa: E402
from judgeagent.graph import build_graph  # noqa: E402
from judgeagent.run import run_evaluation  # noqa: E402

DEMO = ROOT / "data" / "medqa-demo"


def write_benchmark(folder: Path, n: int) -> list[dict]:
    src = [json.loads(l) for l in (DEMO / "questions.jsonl").read_text().splitlines()]
    folder.mkdir(parents=True, exist_ok=True)
    questions = []
    for i in range(n):
        q = src[i % len(src)]
        variant = i // len(src)
        text = q["question"] if variant == 0 else f"(Variant {variant + 1}) {q['question']}"
        questions.append({"id": f"q{i}", "question": text, "options": q["options"], "answer": q["answer_idx"]})
    (folder / "questions.jsonl").write_text("".join(json.dumps(q) + "\n" for q in questions))
    with open(folder / "corpus.jsonl", "w") as f:
        for p in sorted((DEMO / "textbooks").glob("*.txt")):
            f.write(json.dumps({"doc_id": p.stem, "title": p.stem, "text": p.read_text().replace("\n", "\n\n")}) + "\n")
    return questions


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
    ap.add_argument("--questions", type=int, default=60)
    ap.add_argument("--concurrency", type=int, default=8)
    ap.add_argument("--delay", type=float, default=0.2)
    args = ap.parse_args()

    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        qs = write_benchmark(tmp / "bench-data", args.questions)
        bench = load_benchmark(tmp / "bench-data")
        t = time.perf_counter()
        build_graph(bench, GraphConfig(), tmp / "graph", progress=False)
        print(f"graph built in {time.perf_counter() - t:.1f} s ({len(bench.chunks)} chunks)")

        # Every other question right, before and after advice: a realistic mix of re-asks.
        plan = {q["question"]: (i % 2 == 0, i % 3 != 0) for i, q in enumerate(qs)}
        script = {"seed_plan": plan, "answers": {q["question"]: q["answer"] for q in qs}}
        with ScriptedServerProcess(args.delay, interview=script) as srv:
            endpoint_limit = 3 * args.concurrency
            models_file = tmp / "judgeagent.toml"
            models_file.write_text(
                f'[models.scripted]\nbase_url = "{srv.base_url}"\nmodel = "scripted"\nconcurrency = {endpoint_limit}\n'
            )
            cfg = EvalConfig(target="scripted", judge="scripted", data=tmp / "bench-data", graph=tmp / "graph",
                             out=tmp / "run", concurrency=args.concurrency, llm=LLMConfig(models_file=models_file))
            t = time.perf_counter()
            outcome = run_evaluation(cfg, progress=False)
            wall = time.perf_counter() - t
            n_requests = srv.stats()["requests"]
            interview_s = outcome.timings["interview_s"]

            records = sorted((json.loads(l) for l in (tmp / "run" / "records.jsonl").read_text().splitlines()),
                             key=lambda r: r["batch_index"])
            chains = [chain_length(r) for r in records]
            waves = [chains[i : i + args.concurrency] for i in range(0, len(chains), args.concurrency)]
            ideal = sum(max(w) for w in waves) * args.delay

            # Replay through the journal: a fresh run folder holding only the copied journal,
            # so every batch is redone and every request is answered from the journal.
            (tmp / "replay").mkdir()
            shutil.copy(tmp / "run" / "journal.sqlite", tmp / "replay" / "journal.sqlite")
            t = time.perf_counter()
            replayed = run_evaluation(replace(cfg, out=tmp / "replay"), progress=False)
            replay = replayed.timings["interview_s"]
            replay_requests = srv.stats()["requests"] - n_requests
            same = replayed.metrics["full"]["acc2"] == outcome.metrics["full"]["acc2"]

        usage = outcome.metrics["full"]["llm_usage"]["total"]
        n = len(qs)
        print(f"seed questions: {n}, batches: {len(records)}, concurrency: {args.concurrency} batches "
              f"({endpoint_limit} requests at the endpoint), delay: {args.delay * 1000:.0f} ms")
        print(f"requests sent: {n_requests} (chain lengths {min(chains)}–{max(chains)})")
        print(f"interview wall time: {interview_s:.2f} s; critical-path ideal: {ideal:.2f} s; ratio: {interview_s / ideal:.3f} (target ≤ 1.15)")
        tm = outcome.timings
        print(f"whole command: {wall:.2f} s, incl. graph load and planning {tm['plan_s']:.2f} s and embedding "
              f"the seed-side texts {tm['prime_s']:.2f} s before the batches start")
        print(f"requests per seed question: {n_requests / n:.2f}")
        print(f"tokens per seed question: {(usage['prompt_tokens'] + usage['completion_tokens']) / n:.1f} "
              f"(prompt {usage['prompt_tokens'] / n:.1f}, completion {usage['completion_tokens'] / n:.1f}; scripted server counts words)")
        print(f"replay from the journal: {replay:.2f} s ({100 * replay / interview_s:.1f}% of the live run), "
              f"{replay_requests} requests sent, same metrics: {same}")


if __name__ == "__main__":
    main()
