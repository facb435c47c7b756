"""Our entity recognizer's loop against spaCy's: the same entities, and what each costs.

    .venv/bin/python bench/greedy_ner.py                      # real prose, 1M words (bench/real_prose.py)
    .venv/bin/python bench/greedy_ner.py --words 250000 --limit 2000

Runs the components the graph builder keeps up to the entity recognizer over every chunk,
then gives copies of the parsed chunks to spaCy's recognizer and to ours, in batches as the
builder sends them, and compares every token's entity tag and type and the mentions the
builder reads (``doc_mentions``). Any difference is printed and the exit code is 1. CPU
seconds of each recognizer are printed with the load average.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

ATTRS = ["ENT_IOB", "ENT_TYPE"]
BATCH = 64  # what the builder's extractor sends spaCy at a time


def main(argv: list[str] | None = None) -> int:
    from tag_ruler import corpus_from_args

    texts = corpus_from_args(__doc__.split("\n\n")[0], argv)

    from precision import cpu_flags
    from spacy.tokens import Doc

    from judgeagent.graph.extract import SPACY_MODEL, doc_mentions, head_lemma, load_pipeline
    from judgeagent.graph.greedy_ner import GreedyNer

    nlp = load_pipeline(SPACY_MODEL)
    ours = nlp.get_pipe("ner")
    assert isinstance(ours, GreedyNer)
    spacys, lemma = ours.ner, head_lemma(SPACY_MODEL)
    print(f"{len(texts)} chunks; {len(ours.move_type)} moves   (load {os.getloadavg()[0]:.2f}; cpu flags: {cpu_flags()})")

    cpu = {"spacy": 0.0, "ours": 0.0}
    differ = entities = 0
    with nlp.select_pipes(disable=["ner"]):
        parsed = list(nlp.pipe(texts, batch_size=BATCH))
    for start in range(0, len(parsed), BATCH):
        batch = parsed[start : start + BATCH]
        a = [Doc(doc.vocab).from_bytes(doc.to_bytes()) for doc in batch]
        b = [Doc(doc.vocab).from_bytes(doc.to_bytes()) for doc in batch]
        t = time.process_time()
        a = list(spacys.pipe(a, batch_size=BATCH))
        cpu["spacy"] += time.process_time() - t
        t = time.process_time()
        b = list(ours.pipe(b, batch_size=BATCH))
        cpu["ours"] += time.process_time() - t
        for n, (x, y) in enumerate(zip(a, b), start):
            entities += len(x.ents)
            if (x.to_array(ATTRS) != y.to_array(ATTRS)).any() or doc_mentions(x, lemma) != doc_mentions(y, lemma):
                differ += 1
                print(f"chunk {n}: spaCy {[(e.start, e.end, e.label_) for e in x.ents][:6]}, ours {[(e.start, e.end, e.label_) for e in y.ents][:6]}")
        if (start // BATCH + 1) % 20 == 0:
            print(f"  {start + len(batch)} chunks, {differ} differ   (load {os.getloadavg()[0]:.2f})", flush=True)
    n = len(texts)
    print(f"chunks differing: {differ} of {n} ({entities} entities)")
    print(f"CPU per 1,000 chunks: spaCy's recognizer {1000 * cpu['spacy'] / n:.2f} s, ours {1000 * cpu['ours'] / n:.2f} s "
          f"({cpu['spacy'] / max(cpu['ours'], 1e-9):.2f}x)   (load {os.getloadavg()[0]:.2f})")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
