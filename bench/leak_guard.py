"""How well the leakage guard's rules tell hints from advice (issue 15 §3).

On the table of tests/leak_table.py (three invented MedQA-style questions; leaking
suggestions of every kind and clean ones written to tempt the rules), print for the guard
before the new rules ("before": the answer's text and stated letters only) and for the rule
layer now:

* the catch rate: leaking suggestions with at least one finding;
* the false-alarm rate: clean suggestions with any finding;
* the catches by the kind of leak each suggestion was written as.

Targets: catch rate >= 90%, false alarms <= 5%. ``--embedding`` adds the MiniLM paraphrase
check to both rows (loads the model: a few seconds). No model is called; the judge's leak
check is a separate layer and is not measured here.

Run: .venv/bin/python bench/leak_guard.py [--embedding]
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from judgeagent.stages.leakage import ALL_RULES, ANSWER_RULES, find_leaks  # noqa: E402
from tests.leak_table import CLEAN, LEAKING, QUESTIONS  # noqa: E402

CATCH_TARGET, FALSE_ALARM_TARGET = 0.90, 0.05


def measure(rules: tuple[str, ...], embedder=None) -> dict:
    """Catches and false alarms of ``rules`` (plus the embedding check with ``embedder``)."""

    def leaks(text: str) -> bool:
        return bool(find_leaks(text, QUESTIONS, rules=rules, embedder=embedder))

    caught = [kind for text, kind in LEAKING if leaks(text)]
    alarms = [text for text in CLEAN if leaks(text)]
    return {
        "caught": len(caught),
        "false_alarms": len(alarms),
        "by_kind": Counter(caught),
        "alarm_texts": alarms,
    }


def row(name: str, m: dict) -> str:
    catch = m["caught"] / len(LEAKING)
    alarm = m["false_alarms"] / len(CLEAN)
    return (
        f"{name:<22} catch {m['caught']:>2}/{len(LEAKING)} = {catch:6.1%}   "
        f"false alarms {m['false_alarms']:>2}/{len(CLEAN)} = {alarm:5.1%}"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--embedding", action="store_true", help="add the MiniLM paraphrase check to both rows")
    args = parser.parse_args()
    embedder = None
    if args.embedding:
        from judgeagent.graph.embed import shared_embedder

        embedder = shared_embedder()
    suffix = " + embedding" if embedder is not None else ""
    before = measure(ANSWER_RULES, embedder)
    after = measure(ALL_RULES, embedder)
    written = Counter(kind for _, kind in LEAKING)
    print(f"Leak table: {len(LEAKING)} leaking and {len(CLEAN)} clean suggestions, {len(QUESTIONS)} questions")
    print(row("before (text+letter)" if not embedder else "before" + suffix, before))
    print(row("rules" + suffix, after))
    print("caught by kind written:  " + "   ".join(
        f"{k} {before['by_kind'][k]}->{after['by_kind'][k]}/{n}" for k, n in written.items()
    ))
    for text in after["alarm_texts"]:
        print(f"  false alarm: {text}")
    catch = after["caught"] / len(LEAKING)
    alarm = after["false_alarms"] / len(CLEAN)
    ok = catch >= CATCH_TARGET and alarm <= FALSE_ALARM_TARGET
    print(f"targets: catch >= {CATCH_TARGET:.0%}, false alarms <= {FALSE_ALARM_TARGET:.0%}: {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
