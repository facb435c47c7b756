"""Our tag ruler against spaCy's attribute ruler: the same tokens, and what each costs.

    .venv/bin/python bench/tag_ruler.py                      # real prose, 1M words (bench/real_prose.py)
    .venv/bin/python bench/tag_ruler.py --words 250000 --limit 2000

Runs spaCy's pipeline (the components the graph builder keeps) once per chunk up to the
ruler, then gives copies of each parsed text to both rulers and to NER after them, and
compares every token's tag, POS, morphology, lemma, dependency, head and entity, and the
mentions the builder reads (``doc_mentions``). Any difference is printed and the exit code
is 1. CPU seconds of each ruler and of the whole pipeline are printed with the load average.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

ATTRS = ("TAG", "POS", "MORPH", "LEMMA", "DEP", "HEAD", "ENT_IOB", "ENT_TYPE", "SENT_START", "NORM")


def chunks(words: int, limit: int | None) -> list[str]:
    import real_prose

    from judgeagent.config import GraphConfig
    from judgeagent.data import generic

    folder, _, _ = real_prose.write_corpus(words, real_prose.DEFAULT_PACKAGES)
    texts = [c.text for c in generic.load(folder, chunk_tokens=GraphConfig().chunk_tokens).chunks]
    return texts[:limit] if limit else texts


def corpus_from_args(description: str, argv: list[str] | None) -> list[str]:
    """The chunks a pipeline bench reads, from its --words and --limit."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--words", type=int, default=1_000_000)
    ap.add_argument("--limit", type=int, default=None, help="only the first N chunks")
    args = ap.parse_args(argv)
    return chunks(args.words, args.limit)


def main(argv: list[str] | None = None) -> int:
    texts = corpus_from_args(__doc__.split("\n\n")[0], argv)

    import spacy
    from spacy.tokens import Doc

    from judgeagent.graph.extract import SPACY_COMPONENTS, SPACY_MODEL, doc_mentions, head_lemma
    from judgeagent.graph.tag_ruler import FACTORY, TagRuler

    nlp = spacy.load(SPACY_MODEL)
    for extra in [p for p in nlp.component_names if p not in SPACY_COMPONENTS]:
        nlp.remove_pipe(extra)
    spacys = nlp.get_pipe("attribute_ruler")
    ours = TagRuler(nlp.vocab).take(spacys)
    ner, lemma = nlp.get_pipe("ner"), head_lemma(SPACY_MODEL)
    before = [name for name in nlp.pipe_names if name not in ("attribute_ruler", "ner")]
    print(f"{len(texts)} chunks; ruler entries {len(ours.attrs)}: by tag {len({e for es in ours.by_tag.values() for e in es})}, by word {len({e for es in ours.by_word.values() for e, _ in es})}, on arrays {len(ours.arrayed)}, "
          f"others {len(ours.others)}   (load {os.getloadavg()[0]:.2f}; factory {FACTORY})")

    cpu = {"spacy": 0.0, "ours": 0.0, "pipeline": 0.0}
    differ = 0
    with nlp.select_pipes(enable=before):
        parsed = nlp.pipe(texts, batch_size=64)
        for n, doc in enumerate(parsed):
            a, b = doc, Doc(doc.vocab).from_bytes(doc.to_bytes())
            t = time.process_time()
            spacys(a)
            cpu["spacy"] += time.process_time() - t
            t = time.process_time()
            ours(b)
            cpu["ours"] += time.process_time() - t
            ner(a), ner(b)
            if (a.to_array(list(ATTRS)) != b.to_array(list(ATTRS))).any() or doc_mentions(a, lemma) != doc_mentions(b, lemma):
                differ += 1
                bad = [(t1.i, t1.text, t1.pos_, t2.pos_, str(t1.morph), str(t2.morph), t1.lemma_, t2.lemma_)
                       for t1, t2 in zip(a, b) if (t1.pos, t1.morph.key, t1.lemma) != (t2.pos, t2.morph.key, t2.lemma)]
                print(f"chunk {n}: differs at {bad[:5]}")
            if (n + 1) % 1000 == 0:
                print(f"  {n + 1} chunks, {differ} differ   (load {os.getloadavg()[0]:.2f})", flush=True)
    t = time.process_time()
    for _ in nlp.pipe(texts[:1000], batch_size=64):
        pass
    cpu["pipeline"] = time.process_time() - t
    n = len(texts)
    print(f"chunks differing: {differ} of {n}")
    print(f"CPU per 1,000 chunks: spaCy's ruler {1000 * cpu['spacy'] / n:.2f} s, ours {1000 * cpu['ours'] / n:.2f} s; "
          f"the whole pipeline with spaCy's ruler {1000 * cpu['pipeline'] / min(n, 1000):.2f} s   (load {os.getloadavg()[0]:.2f})")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
