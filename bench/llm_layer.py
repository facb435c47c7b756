"""Benchmark of the model layer (judgeagent.llm).

1. Client overhead: 200 requests against the scripted server with a fixed 200 ms delay,
   at concurrency 1, 8 and 32; wall time vs the ideal (requests x 0.2 s / concurrency).
   The ideal cannot be met at every level: with whole requests some slot serves
   ceil(requests / concurrency) of them in turn, 1.40 s at concurrency 32 = 1.12x the
   ideal. And the same requests sent with bare httpx and a semaphore to the same
   pure-Python server on the same 2 cores take ~1.07x that bound at concurrency 32: that
   is the harness, not the layer. So the target is on the layer's own cost: wall time
   <= 1.10x bare httpx at each level. The ratios to the ideal and to the bound are printed.
2. Cache replay: the same 200 requests again from the journal. Target: < 2% of uncached.
   Thinking model: the same requests at concurrency 8 against a server that puts 200
   thinking words (``<think>…</think>``) before every reply at the same latency; the
   client strips and counts them. Target: wall time <= 1.05x the plain row's.
3. The bundled model: cold start of the llama.cpp server and generation tokens/s.

Run: .venv/bin/python bench/llm_layer.py   (about a minute; writes bench/out/llm_layer.json)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the scripted server

import httpx  # noqa: E402
from scripted_server import ScriptedServerProcess  # noqa: E402

from judgeagent.config import LLMConfig  # noqa: E402
from judgeagent.llm import LLMClient, ModelSpec, load_registry  # noqa: E402

DELAY = 0.2
THINK_WORDS = 200


async def _batch(spec: ModelSpec, journal: Path | None, n: int) -> tuple[float, list]:
    async with LLMClient(journal) as client:
        t0 = time.perf_counter()
        results = await asyncio.gather(
            *(client.chat(spec, [{"role": "user", "content": f"question number {i}"}], stage="bench") for i in range(n))
        )
        return time.perf_counter() - t0, results


async def _bare_http(base_url: str, n: int, c: int) -> float:
    """The same requests with bare httpx and a semaphore: what the harness itself costs."""
    sem = asyncio.Semaphore(c)
    async with httpx.AsyncClient(trust_env=False, limits=httpx.Limits(max_connections=1000), timeout=60) as http:

        async def one(i: int) -> None:
            async with sem:
                body = {"model": "bare", "messages": [{"role": "user", "content": f"question number {i}"}]}
                (await http.post(base_url + "/chat/completions", json=body)).json()

        t0 = time.perf_counter()
        await asyncio.gather(*(one(i) for i in range(n)))
        return time.perf_counter() - t0


def bench_client(n: int, levels: list[int]) -> dict:
    out: dict = {"requests": n, "delay_s": DELAY, "concurrency": {}}
    srv = ScriptedServerProcess(DELAY)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            for c in levels:
                spec = ModelSpec(f"scripted-c{c}", srv.base_url, f"model-c{c}", concurrency=c)
                journal = Path(tmp) / f"journal-c{c}.sqlite"
                srv.reset()
                wall, results = asyncio.run(_batch(spec, journal, n))
                assert all(r.ok for r in results), [r.error for r in results if not r.ok][:3]
                stats = srv.stats()
                ideal = n * DELAY / c
                # With whole requests, some slot serves ceil(n / c) of them one after another.
                floor = math.ceil(n / c) * DELAY
                row = {
                    "wall_s": round(wall, 3),
                    "ideal_s": round(ideal, 3),
                    "ratio": round(wall / ideal, 3),
                    "lower_bound_s": round(floor, 3),
                    "ratio_to_lower_bound": round(wall / floor, 3),
                    "max_in_flight": stats["max_in_flight"],
                    "sent": stats["requests"],
                }
                bare = asyncio.run(_bare_http(srv.base_url, n, c))
                row["bare_http_s"] = round(bare, 3)
                row["layer_vs_bare"] = round(wall / bare, 3)
                srv.reset()
                replay, results = asyncio.run(_batch(spec, journal, n))
                assert all(r.cached for r in results) and srv.stats()["requests"] == 0
                row["replay_s"] = round(replay, 4)
                row["replay_share"] = round(replay / wall, 4)
                out["concurrency"][c] = row
                print(
                    f"concurrency {c:>2}: {n} requests in {wall:6.2f} s; ideal {ideal:5.2f} s -> {wall / ideal:.3f}x "
                    f"(whole-request bound {floor:4.2f} s -> {wall / floor:.3f}x); max in flight {row['max_in_flight']}; "
                    f"bare httpx {bare:5.2f} s (layer/bare {wall / bare:.3f}); "
                    f"cache replay {replay * 1000:5.1f} ms = {replay / wall:.2%} of uncached",
                    flush=True,
                )
    finally:
        srv.close()
    return out


def bench_thinking(n: int, plain_wall: float | None, c: int = 8) -> dict:
    """The plain row's requests against a thinking model: the cost of stripping and counting."""
    srv = ScriptedServerProcess(DELAY, thinking=THINK_WORDS)
    try:
        spec = ModelSpec("scripted-thinking", srv.base_url, "model-thinking", concurrency=c)
        with tempfile.TemporaryDirectory() as tmp:  # journaled, as the plain row is
            wall, results = asyncio.run(_batch(spec, Path(tmp) / "journal.sqlite", n))
        assert all(r.ok and "<think>" not in r.text for r in results), [r.error for r in results if not r.ok][:3]
        reasoning = sum(r.usage.reasoning_tokens for r in results)
    finally:
        srv.close()
    row = {"concurrency": c, "wall_s": round(wall, 3), "reasoning_tokens": reasoning}
    if plain_wall:
        row["overhead_vs_plain"] = round(wall / plain_wall, 3)
    print(
        f"thinking model (+{THINK_WORDS} words per reply), concurrency {c}: {n} requests in {wall:6.2f} s"
        + (f"; {wall / plain_wall:.3f}x the plain row" if plain_wall else "")
        + f"; {reasoning} reasoning tokens counted",
        flush=True,
    )
    return row


async def _local() -> dict:
    spec = load_registry().resolve("local")
    prompt = [{"role": "user", "content": "Write a short story about a cat who learns to read."}]
    async with LLMClient(None, LLMConfig(no_cache=True)) as client:
        t0 = time.perf_counter()
        await client.preflight(spec)
        cold = time.perf_counter() - t0
        await client.chat(spec, [{"role": "user", "content": "Hi"}], max_tokens=4)  # warm-up
        runs = []
        for seed in range(3):
            r = await client.chat(spec, prompt, max_tokens=128, seed=seed, temperature=0.7)
            assert r.ok, r.error
            runs.append((r.usage.completion_tokens, r.latency_s))
    tokens = sum(t for t, _ in runs)
    secs = sum(s for _, s in runs)
    return {
        "cold_start_s": round(cold, 3),
        "completion_tokens": tokens,
        "seconds": round(secs, 3),
        "tokens_per_s": round(tokens / secs, 1),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--requests", type=int, default=200)
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32])
    ap.add_argument("--no-local", action="store_true", help="skip the bundled-model part")
    ap.add_argument("--no-client", action="store_true", help="skip the scripted-server part")
    args = ap.parse_args()

    # The figures are wall-clock: other work on the machine shows up in them.
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs", flush=True)
    report: dict = {"loadavg_before": os.getloadavg()[0]}
    if not args.no_client:
        report["client"] = bench_client(args.requests, args.concurrency)
        c = 8 if 8 in args.concurrency else args.concurrency[0]
        plain = report["client"]["concurrency"][c]["wall_s"]
        report["thinking"] = bench_thinking(args.requests, plain, c)
    if not args.no_local:
        local = asyncio.run(_local())
        report["local"] = local
        print(
            f"local (SmolLM2-135M, llama.cpp, 2 threads): cold start {local['cold_start_s']:.2f} s, "
            f"{local['tokens_per_s']:.1f} tokens/s ({local['completion_tokens']} tokens in {local['seconds']:.2f} s)"
        )
    out = ROOT / "bench" / "out"
    out.mkdir(parents=True, exist_ok=True)
    (out / "llm_layer.json").write_text(json.dumps(report, indent=2))
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    rows = report.get("client", {}).get("concurrency", {}).values()
    ok = all(r["layer_vs_bare"] <= 1.10 and r["replay_share"] < 0.02 for r in rows)
    ok = ok and report.get("thinking", {}).get("overhead_vs_plain", 1.0) <= 1.05
    print("targets met" if ok else "TARGETS MISSED")


if __name__ == "__main__":
    main()
