"""The verdict on a judge's whole feedback: one classifier over what every layer read in it.

A run checks a batch's feedback whole: four or five suggestions, most of them plain advice. The
learned layer learned from single suggestions, and one give-away among plain advice weighs
little in the whole it reads; the rules, run on five suggestions at once, fire on clean advice
more often than on one. Before this classifier, a long text was decided by thresholds set one
after another (a sentence leaning above one, findings doubted below another), each undoing part
of the last. Here one model weighs it all at once: the learned layer's reading of the whole and
of each sentence alone, which rules fired in the whole and in single sentences, and how the
sentences that fired read.

It is trained on the whole messages written by hand with the corpus's groups
(``bench/leak_message_model.py``), and its threshold chosen by leaving each group out in turn.
The answer stated outright (:data:`judgeagent.stages.leak_learned.UNDOUBTED`) is never put to it:
that is a leak whatever else the feedback says.

The model is plain data (``leak_message_model.json``: feature names, weights, threshold), scored
here; its inputs are the learned layer's probabilities, themselves the same on any CPU.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import cache
from pathlib import Path

MODEL_FILE = Path(__file__).with_name("leak_message_model.json")
# A sentence of at least this many words is long enough to be read alone with weight.
LONG_SENTENCE = 10
# The sentence readings the features name: leaning as the learned layer's LEAN, halfway, and
# the point below which a sentence that fired reads as advice.
LEANS, HALF, FIRED_CLEAN = 0.8, 0.6, 0.5


@dataclass(frozen=True)
class SentenceReading:
    """One sentence of a feedback read alone: the learned layer's probability, its length in
    words, and the kinds of finding the other layers made in it."""

    text: str
    p: float
    words: int
    kinds: frozenset[str]


@dataclass(frozen=True)
class FeedbackReading:
    """Everything the classifier weighs in one feedback."""

    p: float  # the learned layer's reading of the whole
    sentences: tuple[SentenceReading, ...]
    kinds: frozenset[str]  # the kinds of finding the other layers made in the whole
    # A pointer found names one option alone by letter or place ("that points to the first
    # option"): plainer than a pointer by description, which is as often advice.
    by_place: bool = False

    def leaning_sentence(self) -> SentenceReading:
        """The sentence that reads most like a give-away: the evidence of a verdict."""
        return max(self.sentences, key=lambda s: s.p)


def features(reading: FeedbackReading, names: tuple[str, ...]) -> list[float]:
    """The values of the features ``names`` for ``reading``; ``found:K`` says a finding of kind
    K was made in the whole."""
    read = [s for s in reading.sentences if s.words >= 4] or list(reading.sentences)
    top = sorted((s.p for s in read), reverse=True) + [0.0, 0.0]
    fired = [s.p for s in reading.sentences if s.kinds]
    long = max((s.p for s in reading.sentences if s.words >= LONG_SENTENCE), default=0.0)
    named = {
        "whole": reading.p,
        "top_sentence": top[0],
        "second_sentence": top[1],
        "fired_max": max(fired, default=0.0),
        "fired_min": min(fired, default=0.0),
        "fired_count": float(len(fired)),
        "long_sentence_leans": float(long >= LEANS),
        "long_sentence_half": float(long >= HALF),
        "fired_sentence_leans": float(max(fired, default=0.0) >= FIRED_CLEAN),
        "fired_sentence_clean": float(bool(fired) and min(fired) < FIRED_CLEAN),
        "pointer_by_place": float(reading.by_place),
        # The most leaning of many sentences leans more by chance than the most leaning of few:
        # the count lets the classifier weigh the top reading against how many were read.
        "sentences_log": math.log(max(len(reading.sentences), 1)),
    }
    out = []
    for name in names:
        if name.startswith("found:"):
            out.append(float(name[6:] in reading.kinds))
        else:
            out.append(named[name])
    return out


@dataclass(frozen=True)
class MessageModel:
    names: tuple[str, ...]
    weights: tuple[float, ...]
    intercept: float
    threshold: float
    trained_on: tuple[str, ...]

    def probability(self, reading: FeedbackReading) -> float:
        z = self.intercept + sum(w * x for w, x in zip(self.weights, features(reading, self.names), strict=True))
        return 1 / (1 + math.exp(-z))


@cache
def load_message_model(path: Path = MODEL_FILE) -> MessageModel:
    data = json.loads(path.read_text(encoding="utf-8"))
    return MessageModel(tuple(data["features"]), tuple(float(w) for w in data["weights"]), float(data["intercept"]),
                        float(data["threshold"]), tuple(data["trained_on"]))
