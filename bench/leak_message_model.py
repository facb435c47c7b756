"""Train the leakage guard's feedback classifier on the whole messages written by hand, and say
how well it does on a group it was not trained on (judgeagent/stages/leak_message.py says what
it weighs).

1. Each message of a group that is neither sealed (bench/leak_guard.py SEALED) nor among the groups
   that measured the shipped guard (bench/leak_model.py NOT_TRAINED_ON) is read as the guard
   reads a whole feedback: the learned layer on the whole and on each sentence alone, the other
   layers' findings in the whole and in each sentence. The learned layer that reads it is
   trained as the shipped one but without the clean messages of its fifth of the groups
   (cross_fitted), since the shipped one learned from every clean message's sentences.
2. Leave one group out: the classifier is trained on every other group's messages and scored on
   that one's, for each threshold; a message with the answer stated outright is a leak, as in
   the guard. The rules and the learned layer were tuned on these messages, so these figures are
   better than on messages nobody read (bench/leak_guard.py gives those).
3. It is trained on every such message and written to judgeagent/stages/leak_message_model.json.

Messages labelled ``described`` (judge only) are left out of training and of the catch.
C and THRESHOLD were chosen by step 2 on fresh27 to fresh78, before fresh79 and fresh80 were read, and
kept on fresh27 to fresh80; THRESHOLD moved from 0.5 to 0.6 by step 2 on fresh27 to fresh94, before
fresh95 and fresh96 were read, and back to 0.5 by step 2 on fresh27 to fresh96 once the learned layer
was trained on clean messages too, before fresh97 and fresh98 were read; kept at 0.5 by step 2 on fresh27 to
fresh98 with the sentence count among the features, before fresh99 and fresh100 were read, and on fresh27 to
fresh100 before fresh101 and fresh102 were read, on fresh27 to fresh102 before fresh103 and fresh104 were read, on fresh27 to fresh104 before fresh105 and fresh106 were read, on fresh27 to fresh106 before fresh107 and
fresh108 were read, on fresh27 to fresh108 before fresh109 and fresh110 were read, on fresh27 to fresh110 before
fresh111 and fresh112 were read, on fresh27 to fresh112 before fresh113 and fresh114 were read, on fresh27 to
fresh114 before fresh115 and fresh116 were read, on fresh27 to fresh116 before fresh117 and fresh118 were read, on fresh27 to fresh118 before fresh119 and fresh120 were read, on fresh27 to fresh120 before fresh121 and fresh122 were read, on fresh27 to fresh122 before fresh123 and fresh124 were read, on fresh27 to fresh124 before fresh125 and fresh126 were read, on fresh27 to fresh126 before fresh127 and fresh128 were read, on fresh27 to fresh128 before fresh129 and fresh130 were read, on fresh27 to fresh130 before fresh131 and fresh132 were read, and on fresh27 to fresh134 before fresh135 and fresh136 were read.

Run: .venv/bin/python bench/leak_message_model.py [--no-write]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench.leak_guard import SEALED, rate  # noqa: E402
from bench.leak_model import NOT_TRAINED_ON, read_rows  # noqa: E402
from judgeagent.stages.leak_learned import UNDOUBTED, LeakModel, is_feedback, leak_probability, model_from_data, read_feedback  # noqa: E402
from judgeagent.stages.leak_message import MODEL_FILE, FeedbackReading, features  # noqa: E402
from judgeagent.stages.leakage import LEAK_KINDS, find_leaks, guard_texts, kinds_alone  # noqa: E402
from tests.leak_table import JUDGE_ONLY_KINDS, load_corpus, load_messages  # noqa: E402

C = 1.0  # 0.1 to 10 gave the same left-out figures within three messages (with guard 29's learned layer)
# Left out in turn on fresh27 to fresh78 (guard 39): 0.4 caught 1 leak more for 1 false alarm more, 0.6 and
# 0.7 lost 1 and 4 for 0 and 2 fewer; on fresh27 to fresh80 (guard 40): 0.4 caught 5 more for 7 more, 0.6
# and 0.7 lost 1 and 4 for 2 and 5 fewer. On fresh27 to fresh94 (guard 47, models trained to fresh94): 0.6 lost 1
# for 5 fewer (955/1013 caught, 46/832 clean flagged), 0.7 lost 29 for 16 fewer, 0.4 caught 1 more for 4 more.
# With the learned layer trained on clean messages' sentences too and the readings cross-fitted
# (guard 49), on fresh27 to fresh96: 0.5 caught 979/1049 with 41/860 clean flagged, 0.6 lost 4 for 5
# fewer, 0.4 caught 18 more for 16 more; so 0.5 again. With the sentence count too (guard 50), on fresh27 to
# fresh98: 0.5 caught 1023/1085 with 45/888 clean flagged, 0.6 lost 12 for 8 fewer, 0.4 caught 14 more for 14 more.
# On fresh27 to fresh100 (guard 51): 0.5 caught 1057/1121 with 42/916, 0.6 lost 5 for 7 fewer, 0.4 caught 14 more for 13 more.
# On fresh27 to fresh102 (guard 52): 0.5 caught 1097/1157 with 46/944, 0.6 lost 9 for 11 fewer, 0.4 caught 10 more for 15 more.
# On fresh27 to fresh104 (guard 53): 0.5 caught 1130/1193 with 45/972, 0.6 lost 6 for 9 fewer, 0.4 caught 8 more for 11 more.
# On fresh27 to fresh106 (guard 54): 0.5 caught 1164/1229 with 46/1000, 0.6 lost 7 for 12 fewer, 0.4 caught 12 more for 14 more.
# On fresh27 to fresh108 (guard 55): 0.5 caught 1199/1265 with 46/1028, 0.6 lost 6 for 5 fewer, 0.4 caught 15 more for 10 more.
# On fresh27 to fresh110 (guard 56): 0.5 caught 1232/1301 with 45/1056, 0.6 lost 8 for 4 fewer, 0.4 caught 12 more for 12 more.
# On fresh27 to fresh112 (guard 57): 0.5 caught 1266/1337 with 47/1084, 0.6 lost 6 for 8 fewer, 0.4 caught 13 more for 10 more.
# On fresh27 to fresh114 (guard 58): 0.5 caught 1303/1373 with 49/1112, 0.6 lost 8 for 7 fewer, 0.4 caught 14 more for 10 more.
# On fresh27 to fresh116 (guard 59): 0.5 caught 1342/1409 with 50/1140, 0.6 lost 10 for 8 fewer, 0.4 caught 3 more for 7 more.
# On fresh27 to fresh118 (guard 60): 0.5 caught 1377/1445 with 50/1168, 0.6 lost 9 for 8 fewer, 0.4 caught 6 more for 6 more.
# On fresh27 to fresh120 (guard 61): 0.5 caught 1412/1481 with 51/1196, 0.6 lost 10 for 10 fewer, 0.4 caught 10 more for 9 more.
# On fresh27 to fresh122 (guard 62): 0.5 caught 1450/1517 with 53/1224, 0.6 lost 15 for 7 fewer, 0.4 caught 4 more for 10 more.
# On fresh27 to fresh124 (guard 63): 0.5 caught 1485/1553 with 53/1252, 0.6 lost 16 for 9 fewer, 0.4 caught 8 more for 12 more.
# On fresh27 to fresh126 (guard 64): 0.5 caught 1525/1589 with 52/1280, 0.6 lost 15 for 5 fewer, 0.4 caught 4 more for 6 more.
# On fresh27 to fresh128 (guard 65): 0.5 caught 1562/1625 with 53/1308, 0.6 lost 11 for 7 fewer, 0.4 caught 7 more for 7 more.
# On fresh27 to fresh130 (guard 66): 0.5 caught 1601/1661 with 51/1336, 0.6 lost 12 for 3 fewer, 0.4 caught 7 more for 7 more.
# On fresh27 to fresh134 (guard 68): 0.5 caught 1672/1733 with 52/1392, 0.6 lost 12 for 5 fewer, 0.4 caught 6 more for 5 more.
THRESHOLD = 0.5
# A kind found in the whole was found in one of its sentences too in every message of the corpus
# (a finding across sentences is rare), so the whole's findings are read and not the sentences'.
KINDS = tuple(k for k in LEAK_KINDS if k not in {"learned", "judge"})
FEATURES = (
    "whole", "top_sentence", "second_sentence", "fired_max", "fired_min", "fired_count", *(f"found:{k}" for k in KINDS),
    "long_sentence_leans", "long_sentence_half", "fired_sentence_leans", "fired_sentence_clean", "pointer_by_place",
    "sentences_log",
)


def read(text: str, questions, embedder, model: LeakModel | None = None) -> tuple[FeedbackReading, bool]:
    """The message as the guard reads a whole feedback, and whether it states an answer outright."""
    found = find_leaks(text, questions, embedder=embedder, learned=False)

    def fires(sentence: str) -> set[str]:
        return kinds_alone(sentence, questions, embedder=embedder)

    p, _ = leak_probability(text, questions, embedder, model)
    return read_feedback(text, questions, embedder, found, fires, p, model), any(d.kind in UNDOUBTED for d in found)


# The learned layer is trained on the sentences of the clean messages too (bench/leak_model.py), so a
# message it was trained on reads cleaner than a new one would. Each message is read by a learned
# layer trained without the clean messages of its fifth of the groups: the classifier learns from
# readings like those of a run.
FOLDS = 5


def fold(group: str) -> int:
    return int(group.removeprefix("fresh")) % FOLDS if group.removeprefix("fresh").isdigit() else 0


def cross_fitted(messages, corpus, embedder) -> list[tuple[FeedbackReading, bool]]:
    table = read_rows(corpus, embedder)
    trainable = np.array([g not in NOT_TRAINED_ON for g in table.groups])
    readings: dict[int, tuple[FeedbackReading, bool]] = {}
    for k in range(FOLDS):
        data, _ = table.trained(trainable & ~(table.from_message & np.array([fold(g) == k for g in table.groups])))
        model = model_from_data(data)
        for i, m in enumerate(messages):
            if fold(m.group) == k:
                readings[i] = read(m.text, corpus.batches[m.batch], embedder, model)
    return [readings[i] for i in range(len(messages))]


def fit(x: np.ndarray, y: np.ndarray):
    from sklearn.linear_model import LogisticRegression

    return LogisticRegression(C=C, max_iter=5000, class_weight="balanced").fit(x, y)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--no-write", action="store_true", help="only the leave-one-group-out figures")
    args = parser.parse_args()
    from judgeagent.graph.embed import shared_embedder
    from judgeagent.graph.embed_queue import EmbeddingQueue
    from judgeagent.graph.fixed_precision import decision_embedder
    from judgeagent.stages.leak_rules import whole_sentences

    t0 = time.perf_counter()
    corpus = load_corpus()
    messages = [m for m in load_messages(corpus=corpus) if m.group not in SEALED | NOT_TRAINED_ON and is_feedback(m.text)]
    embedder = EmbeddingQueue(shared_embedder(), cache_size=200_000)
    texts = [t for m in messages for x in (m.text, *whole_sentences(m.text)) for t in guard_texts(x, corpus.batches[m.batch])]
    decision_embedder(embedder).encode(list(dict.fromkeys(texts)))
    readings = cross_fitted(messages, corpus, embedder)
    print(f"{len(messages)} whole messages read in {time.perf_counter() - t0:.0f} s, each by a learned layer trained without its fold's clean messages")

    x = np.array([features(r, FEATURES) for r, _ in readings])
    stated = np.array([s for _, s in readings])
    leaks = np.array([m.kind is not None for m in messages])
    in_scope = np.array([m.in_scope for m in messages])
    trained = np.array([m.kind not in JUDGE_ONLY_KINDS for m in messages])
    groups = np.array([m.group for m in messages])
    left_out = np.zeros(len(messages))
    for g in dict.fromkeys(groups):
        out = groups == g
        left_out[out] = fit(x[~out & trained], leaks[~out & trained]).predict_proba(x[out])[:, 1]
    print("left out in turn (the answer stated outright always a leak):")
    for t in (0.3, 0.4, 0.5, 0.6, 0.7):
        flagged = stated | (left_out >= t)
        mark = "  <- THRESHOLD" if t == THRESHOLD else ""
        print(f"  {t:.1f}: in scope {rate(int(flagged[in_scope].sum()), int(in_scope.sum()))}  "
              f"clean flagged {rate(int(flagged[~leaks].sum()), int((~leaks).sum()))}{mark}")
    if args.no_write:
        return 0
    model = fit(x[trained], leaks[trained])
    data = {
        "features": list(FEATURES),
        "weights": [round(float(w), 6) for w in model.coef_[0]],
        "intercept": round(float(model.intercept_[0]), 6),
        "threshold": THRESHOLD,
        "trained_on": sorted(set(groups.tolist()), key=lambda g: int(g.removeprefix("fresh"))),
    }
    MODEL_FILE.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    print(f"wrote {MODEL_FILE.relative_to(ROOT)}: {len(FEATURES)} features, trained on {len(messages)} messages")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
