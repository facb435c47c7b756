"""Train the leakage guard's learned layer on the leak corpus, and say how well it does on a
group it was not trained on (judgeagent/stages/leak_learned.py says what it reads).

1. Leave one group out: for each group written apart from the rules (fresh3 to fresh24, each
   by a different writer on seven new subjects), the model is trained on every other group
   and scored on that one, alone and joined with the other layers as the guard joins them.
   The other layers are those of this checkout, which were tuned on these groups: their
   figures here are better than on a group nobody tuned on (bench/leak_guard.py gives those).
   Each group's clean messages are left out with it.
2. The model is trained on every group that is not sealed (bench/leak_guard.py SEALED) and
   written to judgeagent/stages/leak_model.json, after checking that the guard's numpy
   scoring of that file gives scikit-learn's probabilities on every suggestion.

The choices (C, the thresholds LEAN and DOUBT, OPTKEY/OPTX masking) were made by step 1 on
fresh3 to fresh7, with the verdicts fresh6 and fresh7 got from the guards they measured,
before fresh8 was read; letters (from fresh8), what the model does not read (fresh9 to
fresh11) and the doubted option text (fresh10) each after a group's one measurement, each
measured by the next group; guard 9's doubt below 0.2 and its ANSWERKEY mask by leaving out
fresh3 to fresh13 in turn (fresh13 read after its one measurement of guard 8), measured by
fresh14; guard 11's LEAN of 0.75 by leaving out fresh3 to fresh16, measured by fresh17 and
fresh18; guard 12's doubt in the sentences that fired, below 0.4, by leaving out fresh3 to
fresh18 and by replaying fresh17 and fresh18 as guard 11 measured them, measured by fresh19 and
fresh20; guard 13's LEAN of 0.8 by leaving out fresh3 to fresh20 and replaying fresh17 to
fresh20, measured by fresh21 and fresh22 (and fresh23 and fresh24 again). Guard 14's model,
the same choices trained on every group to fresh24, is measured by fresh25 and fresh26, on which
it is not trained; fresh27 to fresh32 measured guards 15 to 17 with that model. Guard 18's model,
the same choices trained on every group to fresh32, was measured by fresh33 and fresh34; guard
19's, trained on every group to fresh34, was measured by fresh35 and fresh36; guard 20's, trained on
every group to fresh36, was measured by fresh37 and fresh38; guard 21's, trained on every group
to fresh38, was measured by fresh39 to fresh42; guard 22's, trained on every group to fresh42, was
measured by fresh43 and fresh44; guard 23's, trained on every group to fresh44, was measured by
fresh45 and fresh46, and guard 24, with the same model, by fresh47 and fresh48; guard 25's,
trained on every group to fresh48, was measured by fresh49 and fresh50, and guard 26, with the same
model, by fresh51 and fresh52; guard 27's, trained on every group to fresh52, was measured by fresh53
and fresh54; guard 28's, trained on every group to fresh54, was measured by fresh55 and fresh56;
guard 29's, trained on every group to fresh56, was measured by fresh57 and fresh58, and guard 30,
with the same model, was measured by fresh59 and fresh60 (trained on every group to fresh58 it
caught 34 leaks fewer and 10 more on the groups it was trained on), guard 31 by fresh61 and fresh62,
guard 32 by fresh63 and fresh64, guard 33 by fresh65 and fresh66, guard 34 by fresh67 and fresh68, and guard
35 by fresh69 and fresh70 and again by fresh71 and fresh72, guard 36 by fresh73 and fresh74, guard 37 by fresh75 and fresh76, and guards 37 and 38 by fresh77 and fresh78, all with the same model. Guard 39's, the same choices trained on every group to fresh78 (left out in turn, each of fresh57 to fresh78 got 7 in-scope leaks more and 10 false alarms fewer from it than from guard 29's model), was measured by fresh79 and fresh80. Guard 40's, the same choices trained on every group to fresh80, was measured by fresh81 and fresh82. Guard 41's, the same choices trained on every group to fresh82, was measured by fresh83 and fresh84, and kept by guard 42, measured by fresh85 and fresh86. Guard 43's, the same choices trained on every group to fresh86, was measured by fresh87 and fresh88 and kept by guards 44 to 46, measured by fresh89 to fresh94. Guard 47's, the same choices trained on every group to fresh94, was measured by fresh95 and fresh96, and kept by guard 48. Guard 49's, the same choices trained on every group to fresh96 and, as clean rows, on every sentence of those groups' clean hand-written messages, was measured by fresh97 and fresh98. Guard 50's, the same choices trained on every group to fresh98 and on the sentences of those groups' clean messages, was measured by fresh99 and fresh100. Guard 51's, the same choices trained on every group to fresh100 and on the sentences of those groups' clean messages, was measured by fresh101 and fresh102. Guard 52's, the same choices trained on every group to fresh102 and on the sentences of those groups' clean messages (an option's text that begins or ends with a sign, "£12" or "50%", now masked like any other), was measured by fresh103 and fresh104. Guard 53's, the same choices trained on every group to fresh104 and on the sentences of those groups' clean messages, was measured by fresh105 and fresh106. Guard 54's, the same choices trained on every group to fresh106 and on the sentences of those groups' clean messages, was measured by fresh107 and fresh108. Guard 55's, the same choices trained on every group to fresh108 and on the sentences of those groups' clean messages, was measured by fresh109 and fresh110. Guard 56's, the same choices trained on every group to fresh110 and on the sentences of those groups' clean messages, was measured by fresh111 and fresh112. Guard 57's, the same choices trained on every group to fresh112 and on the sentences of those groups' clean messages, was measured by fresh113 and fresh114. Guard 58's, the same choices trained on every group to fresh114 and on the sentences of those groups' clean messages, was measured by fresh115 and fresh116. Guard 59's, the same choices trained on every group to fresh116 and on the sentences of those groups' clean messages, was measured by fresh117 and fresh118. Guard 60's, the same choices trained on every group to fresh118 and on the sentences of those groups' clean messages, was measured by fresh119 and fresh120. Guard 61's, the same choices trained on every group to fresh120 and on the sentences of those groups' clean messages, was measured by fresh121 and fresh122. Guard 62's, the same choices trained on every group to fresh122 and on the sentences of those groups' clean messages, was measured by fresh123 and fresh124. Guard 63's, the same choices trained on every group to fresh124 and on the sentences of those groups' clean messages, was measured by fresh125 and fresh126. Guard 64's, the same choices trained on every group to fresh126 and on the sentences of those groups' clean messages, was measured by fresh127 and fresh128. Guard 65's, the same choices trained on every group to fresh128 and on the sentences of those groups' clean messages, was measured by fresh129 and fresh130. Guard 66's, the same choices trained on every group to fresh130 and on the sentences of those groups' clean messages, was measured by fresh131 and fresh132, and kept by guard 67, measured by fresh133 and fresh134. Guard 68's, the same choices trained on every group to fresh134 and on the sentences of those groups' clean messages, is measured by fresh135 and fresh136; it is trained on none of the groups from fresh135 on (NOT_TRAINED_ON, or sealed while they wait for it).
Training again reproduces its verdicts, not its bytes: the semantic scores it reads move in their last bits with how the corpus's texts are batched through MiniLM.

Run: .venv/bin/python bench/leak_model.py [--no-write]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.leak_guard import SEALED, rate  # noqa: E402
from judgeagent.stages.leak_learned import DOUBT, LEAN, MODEL_FILE, NUMERIC, UNDOUBTED, is_feedback, load_model, masked_text, numeric_features, terms  # noqa: E402
from judgeagent.stages.leak_rules import sentences, whole_sentences  # noqa: E402
from tests.leak_table import FRESH135, GROUPS, JUDGE_ONLY_KINDS, WRITTEN_APART, load_corpus, load_messages  # noqa: E402

C = 10.0  # inverse regularisation; 1 caught less on every left-out group at the same false alarms
# Groups the shipped model is not trained on though they are unsealed: every group from fresh135
# on, each of which measured a guard that uses it (trained on when the model is next retrained,
# which new groups then measure).
NOT_TRAINED_ON: frozenset[str] = frozenset(WRITTEN_APART[WRITTEN_APART.index(FRESH135) :])
LEFT_OUT = tuple(g for g in WRITTEN_APART if g not in NOT_TRAINED_ON | SEALED)  # fresh3 to fresh134


def fit(texts: list[str], numeric: np.ndarray, labels: np.ndarray):
    from scipy.sparse import csr_matrix, hstack
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    vec = TfidfVectorizer(ngram_range=(1, 3), min_df=2, sublinear_tf=True)
    x = hstack([vec.fit_transform(texts), csr_matrix(numeric)]).tocsr()
    model = LogisticRegression(C=C, max_iter=5000, class_weight="balanced").fit(x, labels)

    def predict(more_texts: list[str], more_numeric: np.ndarray) -> np.ndarray:
        return model.predict_proba(hstack([vec.transform(more_texts), csr_matrix(more_numeric)]).tocsr())[:, 1]

    return vec, model, predict


@dataclass
class Rows:
    """What the model learns from, read once: every suggestion of the unsealed groups, then every
    sentence of their clean hand-written messages (clean rows: a message greets, signs off and
    says what form an answer takes, which single suggestions seldom do, and read alone such a
    sentence otherwise scores as a give-away), each row's masked text, numeric features, label
    and group."""

    texts: list[str]
    numeric: np.ndarray
    labels: np.ndarray
    groups: np.ndarray
    from_message: np.ndarray  # a sentence of a clean message, not a suggestion
    suggestions: int  # the first rows are the suggestions

    def trained(self, keep: np.ndarray):
        """The model data (as leak_model.json holds it) trained on the rows ``keep``, and
        scikit-learn's probabilities for other rows (``predict(texts, numeric)``)."""
        vec, model, predict = fit([t for t, k in zip(self.texts, keep, strict=True) if k], self.numeric[keep], self.labels[keep])
        return model_data(vec, model, sorted(set(self.groups[keep].tolist())), int(keep.sum())), predict


def read_rows(corpus, embedder) -> Rows:
    from judgeagent.graph.fixed_precision import decision_embedder
    from judgeagent.stages.leakage import guard_texts

    rows = [s for s in corpus.suggestions if s.half in GROUPS and s.half not in SEALED]
    clean = [(x, m.batch, m.group) for m in load_messages(corpus=corpus)
             if m.kind is None and m.group not in SEALED and is_feedback(m.text) for x in whole_sentences(m.text)]
    items = [(s.text, s.batch) for s in rows] + [(x, b) for x, b, _ in clean]
    decision_embedder(embedder).encode(list(dict.fromkeys(t for x, b in items for t in guard_texts(x, corpus.batches[b]))))
    return Rows(
        [masked_text(x, corpus.batches[b]) for x, b in items],
        np.array([numeric_features(x, corpus.batches[b], embedder) for x, b in items], dtype=np.float64),
        np.array([s.kind is not None for s in rows] + [False] * len(clean)),
        np.array([s.half for s in rows] + [g for _, _, g in clean]),
        np.array([False] * len(rows) + [True] * len(clean)),
        len(rows),
    )


def model_data(vec, model, trained_on: list[str], rows: int) -> dict:
    return {
        "format": "judgeagent-leak-model",
        "version": 1,
        "trained_on": trained_on,
        "suggestions": rows,
        "C": C,
        "numeric": list(NUMERIC),
        "intercept": float(model.intercept_[0]),
        "vocabulary": sorted(vec.vocabulary_, key=vec.vocabulary_.get),
        "idf": [float(x) for x in vec.idf_],
        "weights": [float(x) for x in model.coef_[0]],
    }


def joined(p: float, sentence_p: list[float], sentence_fires: list[bool], findings: set[str], read: bool) -> bool:
    """The guard's verdict with the learned layer (leak_learned.weigh): ``sentence_p`` and
    ``sentence_fires`` are each sentence's probability and whether the other layers find a leak
    in it alone; ``read``: whether the model read any term of the suggestion."""
    fired = [x for x, f in zip(sentence_p, sentence_fires, strict=True) if f] or sentence_p
    if findings and p < DOUBT and max(fired, default=0.0) < DOUBT:
        return bool(findings & UNDOUBTED)
    return bool(findings) or (p >= LEAN and read)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-write", action="store_true", help="only the leave-one-group-out figures")
    parser.add_argument("--no-logo", action="store_true", help="train and write the model without the leave-one-group-out figures")
    args = parser.parse_args()

    from judgeagent.graph.embed import shared_embedder
    from judgeagent.graph.embed_queue import EmbeddingQueue
    from judgeagent.stages.leakage import find_leaks

    corpus = load_corpus()
    t0 = time.perf_counter()
    embedder = EmbeddingQueue(shared_embedder(), cache_size=200_000)  # every text the corpus embeds, read once
    table = read_rows(corpus, embedder)
    rows = [s for s in corpus.suggestions if s.half in GROUPS and s.half not in SEALED]
    texts, numeric = table.texts[: table.suggestions], table.numeric[: table.suggestions]
    findings = [{d.kind for d in find_leaks(s.text, corpus.batches[s.batch], embedder=embedder, learned=False)} for s in rows]
    print(f"{len(rows)} suggestions of {len(set(s.half for s in rows))} groups and {int(table.from_message.sum())} sentences of clean messages "
          f"read in {time.perf_counter() - t0:.0f} s (sealed, left out: {', '.join(sorted(SEALED)) or 'none'})")

    print(f"\nLeave one group out (C = {C}, flagged alone at p >= {LEAN}, doubting the other layers below {DOUBT}):")
    print(f"  {'group':<8} {'':<22} {'in-scope catch':<32} false alarms")
    for group in () if args.no_logo else LEFT_OUT:
        train = np.flatnonzero(table.groups != group)
        test = [i for i, s in enumerate(rows) if s.half == group]
        _, _, predict = fit([table.texts[i] for i in train], table.numeric[train], table.labels[train])
        p = predict([texts[i] for i in test], numeric[test])
        # Each sentence read alone, for the doubt (leak_learned.weigh).
        parts = [(k, x) for k, i in enumerate(test) for x in sentences(rows[i].text)]
        qs = [corpus.batches[rows[test[k]].batch] for k, _ in parts]
        p_parts = predict([masked_text(x, q) for (_, x), q in zip(parts, qs, strict=True)],
                          np.array([numeric_features(x, q, embedder) for (_, x), q in zip(parts, qs, strict=True)], dtype=np.float64))
        fires = [bool(find_leaks(x, q, embedder=embedder, learned=False)) for (_, x), q in zip(parts, qs, strict=True)]
        sentence_p: list[list[float]] = [[] for _ in test]
        sentence_fires: list[list[bool]] = [[] for _ in test]
        for (k, _), q, f in zip(parts, p_parts, fires, strict=True):
            sentence_p[k].append(float(q))
            sentence_fires[k].append(f)
        in_scope = [k for k, i in enumerate(test) if rows[i].kind is not None and rows[i].kind not in JUDGE_ONLY_KINDS]
        clean = [k for k, i in enumerate(test) if rows[i].kind is None]
        verdicts = {
            "other layers (tuned)": [bool(findings[i]) for i in test],
            "learned alone": [bool(x >= LEAN) and bool(terms(texts[i])) for x, i in zip(p, test, strict=True)],
            "joined": [joined(float(x), sentence_p[k], sentence_fires[k], findings[i], bool(terms(texts[i]))) for k, (x, i) in enumerate(zip(p, test, strict=True))],
        }
        for name, v in verdicts.items():
            caught, alarms = sum(v[k] for k in in_scope), sum(v[k] for k in clean)
            print(f"  {group:<8} {name:<22} {rate(caught, len(in_scope)):<32} {rate(alarms, len(clean))}")
    if args.no_write:
        return 0

    data, predict = table.trained(np.array([g not in NOT_TRAINED_ON for g in table.groups]))
    MODEL_FILE.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
    load_model.cache_clear()
    shipped = load_model()
    ours = np.array([shipped.probability(t, list(f)) for t, f in zip(texts, numeric, strict=True)])
    theirs = predict(texts, numeric)
    worst = float(np.abs(ours - theirs).max())
    print(f"\nwrote {MODEL_FILE.relative_to(ROOT)} ({MODEL_FILE.stat().st_size // 1024} KiB, {len(data['vocabulary'])} terms, trained on {', '.join(data['trained_on'])})")
    print(f"numpy scoring of the file vs scikit-learn, every suggestion: largest difference {worst:.2e}")
    return 0 if worst < 1e-9 else 1


if __name__ == "__main__":
    sys.exit(main())
