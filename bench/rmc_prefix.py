"""Benchmark: a reading-comprehension (RMC) interview reads each article once (issue 16).

Every request about one article (seed batch, follow-ups, re-ask, controls) starts with the
same bytes: system message and reply schema, the article, the fixed instructions. Two rows:

1. the scripted server (tests/scripted_server.py with the interview tests' target and
   judge): an RMC interview on data/quality-demo; the repeated prefix bytes counted from the
   requests it received, per article and in all;
2. the bundled model (SmolLM2-135M behind llama-cpp-python's server), the same interview on
   the first ``--limit`` questions, before and after prefix reuse: "before" is the server
   without its prompt-state cache (``PROMPT_CACHE_BYTES = 0``: it keeps only the KV cache
   of the last prompt, which the judge's requests in between evict); "after" is the server
   as shipped. Printed: the interview's wall time and the cached share, the prompt tokens
   whose KV state the server reused (its "N prefix-match hit" log lines) over all prompt
   tokens, with the load average.

The bundled-model row is slow and CPU-bound: run it on a quiet machine. ``--no-local``
prints only the scripted row.
Usage: python bench/rmc_prefix.py [--limit 2] [--rounds 3] [--no-local]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("HF_HUB_OFFLINE", "1")
ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))  # the scripted server and the deterministic target/judge

from interview_double import Script, schema_name  # noqa: E402
from scripted_server import ScriptedServer  # noqa: E402

from judgeagent import evaluate  # noqa: E402
from judgeagent.config import EvalConfig, GraphConfig  # noqa: E402
from judgeagent.data import load_benchmark  # noqa: E402
from judgeagent.graph import build_graph  # noqa: E402
from judgeagent.llm import local_server  # noqa: E402

DATA = ROOT / "data" / "quality-demo"
PREFIX_HIT = re.compile(r"Llama\.generate: (\d+) prefix-match hit")


def load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def prompt_bytes(body: dict) -> bytes:
    """A request's prompt as a provider caches it: the reply schema, then the messages."""
    parts = [json.dumps(body.get("response_format"), sort_keys=True)] + [f"{m['role']}\n{m['content']}" for m in body["messages"]]
    return "\x00".join(parts).encode()


def common_prefix(blobs: list[bytes]) -> int:
    n = min(map(len, blobs))
    for b in blobs[1:]:
        n = next((i for i in range(n) if blobs[0][i] != b[i]), n)
    return n


def scripted_row(graph: Path, tmp: Path, rounds: int) -> None:
    """Repeated prefix bytes of every answer request about each article, scripted target."""
    bench = load_benchmark(DATA)
    seeds = bench.questions
    script = Script(seed_plan={q.question.strip(): (i % 2 == 0, i % 3 != 0) for i, q in enumerate(seeds)},
                    answers={q.question.strip(): q.answer for q in seeds})  # fmt: skip
    with ScriptedServer(script) as srv:
        cfg = EvalConfig(target=f"{srv.base_url}@scripted", judge=f"{srv.base_url}@scripted", data=DATA, graph=graph,
                         out=tmp / "scripted-run", rounds=rounds, concurrency=2, leak_check="rules", summary=False, report=False)
        evaluate(cfg, progress=False)
        bodies = [b for b in srv.requests if schema_name(b) == "answer_batch"]
    articles = {q.doc_id: bench.document_text(q.doc_id) for q in seeds}
    total = repeated = 0
    print(f"scripted server, {len(seeds)} questions, {rounds} rounds; load average {load()}")
    for doc, text in articles.items():
        group = [prompt_bytes(b) for b in bodies if text.strip() in b["messages"][-1]["content"]]
        n = common_prefix(group)
        sent = sum(map(len, group))
        total += sent
        repeated += n * (len(group) - 1)
        print(f"  article {doc}: {len(text.encode()):,} bytes; {len(group)} requests share a prefix of {n:,} bytes; "
              f"repeated {n * (len(group) - 1):,} of {sent:,} bytes sent")  # fmt: skip
    print(f"  all: {len(bodies)} answer requests, {repeated:,} of {total:,} prompt bytes ({100 * repeated / total:.1f}%) are a repeated prefix")


def local_run(graph: Path, tmp: Path, name: str, limit: int, rounds: int, cache_bytes: int) -> dict:
    """One bundled-model interview; its wall time, prompt tokens and reused prefix tokens."""
    logs = tmp / f"logs-{name}"
    logs.mkdir()
    local_server.PROMPT_CACHE_BYTES, local_server.VERBOSE, local_server.KEEP_LOGS = cache_bytes, True, logs
    cfg = EvalConfig(target="local", judge="local", data=DATA, graph=graph, out=tmp / f"run-{name}", limit=limit, rounds=rounds,
                     leak_check="rules", summary=False, report=False)  # fmt: skip
    before = load()
    t = time.perf_counter()
    outcome = evaluate(cfg, progress=False)
    wall = time.perf_counter() - t
    usage = outcome.metrics["llm_usage"]["total"]
    reused = sum(int(m.group(1)) for f in logs.iterdir() for m in PREFIX_HIT.finditer(f.read_text(errors="replace")))
    return {"name": name, "wall": wall, "interview": outcome.timings.get("interview_s", wall), "prompt": usage["prompt_tokens"],
            "reused": reused, "requests": usage["http_requests"], "load": f"{before} → {load()}"}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--limit", type=int, default=2, help="seed questions in the bundled-model interview")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--no-local", action="store_true", help="only the scripted-server row")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        build_graph(load_benchmark(DATA), GraphConfig(), tmp / "graph", progress=False)
        scripted_row(tmp / "graph", tmp, min(args.rounds, 2))  # the double has 12 distinct follow-ups: 6 batches × 2
        if args.no_local:
            return
        rows = [local_run(tmp / "graph", tmp, name, args.limit, args.rounds, size)
                for name, size in (("before", 0), ("after", local_server.PROMPT_CACHE_BYTES))]  # fmt: skip
        print(f"bundled model, RMC interview of the first {args.limit} questions, {args.rounds} rounds:")
        for r in rows:
            print(f"  {r['name']:6}: interview {r['interview']:.1f} s (command {r['wall']:.1f} s), {r['requests']} requests, "
                  f"{r['prompt']:,} prompt tokens, {r['reused']:,} reused from the KV cache "
                  f"(cached share {r['reused'] / max(1, r['prompt']):.1%}); load average {r['load']}")  # fmt: skip
        print(f"  after / before wall time: {rows[1]['interview'] / rows[0]['interview']:.2f}")


if __name__ == "__main__":
    main()
