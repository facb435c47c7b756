"""How well the seed writer's filters catch known mistakes (`judgeagent seeds`).

A scripted writer (tests/seeds_double.py) writes cloze questions from each slot's passages,
citing its sentences by number, and at known rates makes one of five mistakes on a slot's
first try: a sentence number the excerpts do not have, a key the cited sentence does not state
(made up), the last kept question in other words (a near-duplicate, not a copy), a question
whose wrong option the reader also takes for right, and a question the excerpts do not answer
(its key and citation real). A retry is right. The reader answers only what
the passages it is shown hold. Everything else is the real pipeline: the graph, the plan, the
citation check, the graph's distractors, MiniLM for the duplicate check, the gate.

Printed: per mistake, how many were made and how many the filters caught (and by which
filter), how many good tries they dropped (and why), the seeds per document and per entity,
the multi-hop share and how many multi-hop paths cross documents.

    .venv/bin/python bench/real_prose.py --words 40000            # a corpus we did not write
    .venv/bin/python -m judgeagent.cli build-graph bench/out/real-prose-40000 --out bench/out/graph-prose
    flock /tmp/bench.lock .venv/bin/python bench/seeds.py --graph bench/out/graph-prose --n 300
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import tempfile
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the scripted server and the seed writer double
sys.path.insert(0, str(ROOT / "bench"))

from machine import describe  # noqa: E402
from scripted_server import ScriptedServer  # noqa: E402
from seeds_double import SeedScript, is_first  # noqa: E402

MISTAKES = ("bad_citation", "unsupported", "paraphrase", "two_right", "off_document")
MEANT = {"bad_citation": "citation", "unsupported": "support", "paraphrase": "not_duplicate", "two_right": "answerable", "off_document": "answerable"}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--graph", type=Path, required=True)
    ap.add_argument("--n", type=int, default=300)
    ap.add_argument("--rate", type=float, default=0.08, help="the rate of each mistake on a first try")
    ap.add_argument("--multi-hop-share", type=float, default=0.5)
    ap.add_argument("--max-share", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--json", type=Path, default=ROOT / "bench" / "out" / "seeds.json")
    args = ap.parse_args()
    print(describe(), flush=True)

    from judgeagent import write_seeds

    rng = random.Random(args.seed)
    slots = int(args.n * 2)
    mistakes = {}
    for i in range(slots):
        x = rng.random()
        for k, kind in enumerate(MISTAKES):
            if args.rate * k <= x < args.rate * (k + 1):
                mistakes[i] = kind
    script = SeedScript(mistakes=mistakes)
    log: list[str | None] = []  # the mistake of every question written, in order
    write = script.write

    def logged(msgs, *, multiple_choice):
        first = is_first(msgs)
        mistake = mistakes.get(script.first_tries) if first else None
        log.append(None if mistake == "paraphrase" and not script.good else mistake)
        return write(msgs, multiple_choice=multiple_choice)

    script.write = logged  # type: ignore[method-assign]
    with tempfile.TemporaryDirectory() as tmp, ScriptedServer(script) as srv:
        out = Path(tmp) / "set"
        result = write_seeds(graph=args.graph, n=args.n, writer=f"{srv.base_url}@scripted", out=out, concurrency=1, seed=args.seed,
                             multi_hop_share=args.multi_hop_share, max_share=args.max_share, reserve=1.0)  # fmt: skip
        records = [json.loads(x) for x in (out / "generation" / "records.jsonl").read_text().splitlines()]
        questions = [json.loads(x) for x in (out / "questions.jsonl").read_text().splitlines()]
    attempts = [a for r in sorted(records, key=lambda r: r["batch_index"]) for a in (r["written"].get("generation_attempts") or [])]
    assert len(attempts) == len(log), (len(attempts), len(log))

    from judgeagent.protocols.seeds import drop_filter
    from judgeagent.records import GenerationAttempt

    caught: dict[str, Counter] = {k: Counter() for k in MISTAKES}
    made: Counter = Counter()
    good_dropped: Counter = Counter()
    good = 0
    for a, mistake in zip(attempts, log):
        f = drop_filter(GenerationAttempt.from_json(a))
        if mistake is None:
            good += 1
            if f is not None:
                good_dropped[f] += 1
            continue
        made[mistake] += 1
        caught[mistake][f or "kept"] += 1
    m = result.metrics
    print(f"seeds kept {m['n_written']} of {args.n}; slots tried {m['slots_tried']}, tries {m['tries']}")
    print("mistake         made  caught by the filter meant for it  caught by another  kept")
    for k in MISTAKES:
        c = caught[k]
        meant = c[MEANT[k]]
        other = sum(v for f, v in c.items() if f not in (MEANT[k], "kept"))
        print(f"{k:15s} {made[k]:5d}  {meant:5d} ({MEANT[k]})".ljust(56) + f"{other:5d}  {c['kept']:5d}")
    print(f"good tries {good}: dropped {sum(good_dropped.values())} ({dict(good_dropped)})")
    per_doc, per_ent = Counter(), Counter()
    for q in questions:
        per_doc.update(set(q["documents"]))
        per_ent.update({s["entity"] for s in q["path"]})
    print(f"documents with seeds: {len(per_doc)}; seeds per document: max {max(per_doc.values())}, median "
          f"{sorted(per_doc.values())[len(per_doc) // 2]}; entities: {len(per_ent)}, max seeds per entity {max(per_ent.values())}")
    print(f"multi-hop {m['multi_hop']} of {m['n_written']} ({m['multi_hop_share']}), crossing documents {m['multi_hop_crossing_documents']}; "
          f"difficulty {m['difficulty']}; distractors {m['distractors']}")
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"machine": describe(), "args": {k: str(v) for k, v in vars(args).items()}, "made": made, "caught": caught,
                                     "good": good, "good_dropped": good_dropped, "metrics": {k: m[k] for k in (
                                         "n_written", "slots_tried", "tries", "drops", "multi_hop", "multi_hop_crossing_documents",
                                         "max_document_share", "max_entity_share", "difficulty", "distractors")}}, indent=2, default=dict))  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
