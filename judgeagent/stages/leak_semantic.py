"""The semantic layer of the leakage guard: does a sentence single out one option more than a
content-free sentence would?

The rules see options named; a sentence that describes one without naming it ("the scan that
uses contrast", "the Iron Chancellor") passes them. Here each suggestion sentence is compared
with MiniLM to every option of each question (to the reference phrase, for a question without
options), and each cosine is taken above what content-free sentences reach with that same
option: the mean over the placebo sentences of :mod:`judgeagent.stages.controls`, which say
nothing about any question. A short or common option that is close to every sentence so
gains no head start.

* With options: the top option's excess over the runner-up's. A sentence about the topic is
  close to all options alike and scores low; one that points at an option, or rules one
  out, lifts that option alone.
* Without options: the reference phrase's excess, less the largest excess of a question text
  of the batch (when positive), so that advice which restates the batch's topic does not
  count as describing its answer. (Until guard 11 only the question's own text was
  subtracted; "avalanche transceiver" is close to any advice about avalanches, which its
  question never names but the batch's other questions do: four false alarms of one written-apart group.) (The first version scored the reference's excess alone; on the
  held-out half it raised false alarms from 2.4% to 15.5%, nearly all on batches with phrase
  answers: "Recall the charges and masses of the particles..." is close to "neutron". This
  correction was made after that measurement, so it is measured on the corpus's "fresh"
  batches, written before it.)

A sentence that says no more than the kind of answer a question asks for ("The question asks
for a person's name") is never flagged: it is close to a name answer because it speaks of
names, and the category of an answer tells nothing of which one it is
(:func:`judgeagent.stages.leak_rules.only_the_kind_asked`).

A sentence is never flagged unless it scores above the highest score a content-free
sentence itself reaches on that question, by more than :data:`CONTENT_FREE_MARGIN`. The thresholds were chosen on the development half of bench/leak_corpus.jsonl only
(``bench/leak_guard.py --calibrate`` prints the table): each the highest score of its kind
over the development clean suggestions, rounded up, so that the layer flags none of them.
(The 99th percentiles, 0.40 and 0.056, added 3 development false alarms for 3 catches;
every development catch of the layer scores above the maximum, so the maximum keeps the
catches and drops the alarms.) With MiniLM the layer adds little: a description of an answer ("the
tetracycline class") is rarely closer to the option's name than to its neighbours'; see
docs/measurements/leak-guard.md. Dividing by the content-free spread (a z-score) was tried and separated
worse on the development half.

The same verdicts on any CPU. The layer's vectors are MiniLM's in fp32, whatever
the CPU and the run's encoder (:mod:`judgeagent.graph.fixed_precision`): on the whole leak
corpus (765 suggestions against their batches, and the content-free sentences against every
batch; ``bench/precision.py``, on an AMD EPYC with avx2, avx512f and avx512_bf16), bf16
vectors moved a score by up to 0.0025 with options and 0.0020 for phrase answers, and the
content-free maximum by up to 0.0014, while a clean development suggestion scores 0.059
against the phrase threshold of 0.06 and one fp32 score lies 0.00012 from it. fp32 with AVX2
kernels moved no score by more than 1e-6; but a content-free sentence scored against itself
is a tie, and rounding decided which side of it the sentence fell (a test that failed:
"The questions below are shown a second time.", flagged on an AVX2 machine). Hence the
margin over the content-free maximum, 1e-3: 2 verdicts differed without it, none with it.
The thresholds, recalibrated on fp32 scores, are unchanged: the development clean maxima
are 0.574 with options and 0.059 for phrase answers (0.573 and 0.058 under bf16).

Recalibrated when seven subjects besides medicine were added, on the development half only, which now holds seven subjects
besides medicine (chemistry, history, geography, computing, economics, literature, physics):
the clean maximum with options is still 0.574 (threshold 0.58), but for phrase answers it is
0.220 ("Be careful with transliterated Russian names: spell the author's name in a standard
English form ..." against a novelist), so the phrase threshold is 0.23. At 0.06 the layer had
raised 19 of the held-out half's 33 false alarms (advice on a phrase question's topic, or
warning against confusing its answer's period or unit with another's). The margin over the
content-free maximum is kept; the nearest development clean score lies 0.0096 below 0.23,
far beyond the 0.0025 that bf16 moves a score.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from judgeagent.data.benchmark import Question
from judgeagent.graph.fixed_precision import decision_embedder
from judgeagent.stages import leak_margins
from judgeagent.stages.controls import PLACEBO_SENTENCES
from judgeagent.stages.leak_finding import LeakFinding
from judgeagent.stages.leak_rules import identifying, only_form, only_the_kind_asked, praise_of_form, sentences

# Calibrated on the development half (bench/leak_guard.py --calibrate); see the module doc.
THRESHOLD_OPTIONS = 0.58  # development clean maximum 0.574 (fp32)
THRESHOLD_PHRASE = 0.23  # development clean maximum 0.2204 (fp32; with the subjects besides medicine)
# How far a sentence must score above the content-free maximum. A content-free sentence ties
# with itself, and which side of a tie rounding falls on depends on the BLAS kernels (see
# the module doc): a margin far above rounding, far below any difference that means something.
CONTENT_FREE_MARGIN = 1e-3


@dataclass(frozen=True)
class SentenceScore:
    sentence: str
    question_id: str
    score: float
    option: str | None  # the option letter singled out (None for a question without options)
    content_free: float  # the highest score any content-free sentence reaches on this question


def _targets(q: Question, batch: list[Question]) -> list[str]:
    if q.options:
        return [t for t in q.options.values() if t.strip()]
    # The reference phrase, then the texts of every question of the batch: the topic's baseline.
    return [q.answer, q.question] + [o.question for o in batch if o is not q]


def semantic_texts(suggestions: str, questions: list[Question]) -> list[str]:
    """Every text the layer embeds: the sentences, the content-free baseline, each question's
    options (or its reference phrase and the question's own text)."""
    sents = sentences(suggestions)
    if not sents:
        return []
    return sents + list(PLACEBO_SENTENCES) + [t for q in _scored(questions) for t in _targets(q, questions)]


def _scored(questions: list[Question]) -> list[Question]:
    return [q for q in questions if (q.options and len(q.options) >= 2) or (not q.options and identifying(q.answer))]


def scores(suggestions: str, questions: list[Question], embedder: Any) -> list[SentenceScore]:
    """Per sentence and question, how much the sentence singles out one option (see the module)."""
    sents = sentences(suggestions)
    qs = _scored(questions)
    if not sents or not qs:
        return []
    texts = semantic_texts(suggestions, questions)
    vecs = np.asarray(decision_embedder(embedder).encode(texts), dtype=np.float32)
    n_s, n_b = len(sents), len(PLACEBO_SENTENCES)
    sv, bv, tv = vecs[:n_s], vecs[n_s : n_s + n_b], vecs[n_s + n_b :]
    out = []
    col = 0
    for q in qs:
        k = len(_targets(q, questions))
        t = tv[col : col + k]
        col += k
        mean = (bv @ t.T).mean(axis=0)
        z = sv @ t.T - mean  # (n_s, k): cosines above the content-free mean
        got, picked = _single_out(z, bool(q.options))
        base, _ = _single_out(bv @ t.T - mean, bool(q.options))
        letters = [letter for letter, text in (q.options or {}).items() if text.strip()]
        for i in range(n_s):
            out.append(SentenceScore(sents[i], q.id, float(got[i]), letters[picked[i]] if letters else None, float(base.max())))
    return out


def _single_out(z: np.ndarray, with_options: bool) -> tuple[np.ndarray, np.ndarray]:
    """Per row of excess cosines: the score (see the module) and the column it points at."""
    if with_options:
        order = np.argsort(-z, axis=1)
        rows = np.arange(len(z))
        return z[rows, order[:, 0]] - z[rows, order[:, 1]], order[:, 0]
    # Advice that restates the batch's topic is close to its answer too: only the closeness
    # beyond the nearest question text of the batch counts.
    return z[:, 0] - np.maximum(z[:, 1:].max(axis=1), 0.0), np.zeros(len(z), dtype=int)


def semantic_leaks(
    suggestions: str,
    questions: list[Question],
    embedder: Any,
    threshold_options: float = THRESHOLD_OPTIONS,
    threshold_phrase: float = THRESHOLD_PHRASE,
) -> list[LeakFinding]:
    """The sentences that score at or above their threshold, as findings of kind ``semantic``."""
    has_options = {q.id: bool(q.options) for q in questions}
    leaks = []
    for s in scores(suggestions, questions, embedder):
        # the kind of answer wanted, how to answer, or praise of how it was done: never which one
        if only_the_kind_asked(s.sentence) or only_form(s.sentence) or praise_of_form(s.sentence):
            continue
        threshold = threshold_options if has_options[s.question_id] else threshold_phrase
        leak_margins.note(s.score, threshold)
        leak_margins.note(s.score, s.content_free + CONTENT_FREE_MARGIN)
        # Never below what a content-free sentence reaches: that much singles out nothing.
        if s.score >= threshold and s.score > s.content_free + CONTENT_FREE_MARGIN:
            what = f"option {s.option}" if s.option else "the answer"
            leaks.append(LeakFinding(s.question_id, "semantic", f"{s.sentence} (singles out {what}: {s.score:.2f} over content-free)"))
    return leaks
