"""The learned layer of the leakage guard: how much a suggestion reads like a give-away, as a
linear model trained on the leak corpus judges it.

The rules know the wordings they were written from; a judge on a new subject finds others
("the name right after Durkheim", "geotropism" for gravitropism) and uses the rules' words
innocently ("a correct answer", "the organ" of "pit organs"). Each group of the corpus written
apart from the rules showed both (bench/leak_guard.py). A model that has read every group
weighs many small cues at once, and it was measured the same way the rules were: trained
without a group, then scored on it (bench/leak_model.py).

What it reads, per suggestion against its batch:

* its words and word pairs and triples (TF-IDF, as scikit-learn's ``TfidfVectorizer``
  computes them), after each option's text is replaced by ``OPTKEY`` (the correct option)
  or ``OPTX`` (another one), a phrase answer by ``ANSWERKEY`` (not ``ANSWER``: the
  model reads lower case, and "answer" is a word of any advice), and an option's letter by
  ``LETTERKEY`` or ``LETTERX``: so "OPTKEY is right" and "rule out OPTX" are learned on
  any subject, and nothing of one subject's vocabulary is needed;
* three numbers: the semantic layer's strongest pull towards one option and towards a
  phrase answer, each above what a content-free sentence reaches
  (:mod:`judgeagent.stages.leak_semantic`), and the length.

How it joins the other layers (chosen by leaving each written-apart group out in turn, before
the group that measures it was read): a suggestion the model finds likely a leak
(probability >= :data:`LEAN`) is flagged even when no rule fired, unless it read nothing; one it
finds unlikely (< :data:`DOUBT`), as a whole and in each sentence where the rules or the semantic
layer found a leak, is not flagged for what they found, unless they found the answer itself
stated (its letter, its text, the reference phrase), which is never doubted. In between, the
other layers decide. A judge's whole feedback is decided differently: by the feedback
classifier (:mod:`judgeagent.stages.leak_message`), which weighs this model's reading of the
whole and of each sentence alone with what the other layers found.

The model is plain data (``leak_model.json``: vocabulary, idf, weights), scored here with
numpy; ``bench/leak_model.py`` trains it with scikit-learn and checks that this scoring gives
scikit-learn's probabilities. Its inputs are the fp32 scores of the semantic layer, so its
verdicts are the same on any CPU (:mod:`judgeagent.graph.fixed_precision`).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache, cached_property
from pathlib import Path
from typing import Any

import numpy as np

from judgeagent.data.benchmark import Question
from judgeagent.stages import leak_margins
from judgeagent.stages.leak_finding import LeakFinding
from judgeagent.stages.leak_lists import hide_even_list
from judgeagent.stages.leak_message import FeedbackReading, SentenceReading, load_message_model
from judgeagent.stages.leak_rules import compiled, names_something_else, only_form, option_refs, praise_of_form, sentences, whole_sentences
from judgeagent.stages.leak_semantic import scores

MODEL_FILE = Path(__file__).with_name("leak_model.json")
# At or above: a leak, whatever the other layers found. Chosen by leaving each written-apart group
# of the corpus out in turn (docs/measurements/leak-guard.md, "The learned layer's thresholds").
LEAN = 0.8
# Below: what the other layers found is dropped (unless the answer itself is stated), when the
# whole and every sentence where they found it look clean. Chosen the same way.
DOUBT = 0.4
# A text of at least LONG_TEXT characters in two sentences or more (a judge's whole feedback, four or
# five suggestions) is decided by the feedback classifier (:mod:`judgeagent.stages.leak_message`),
# which reads each sentence alone as well as the whole: one give-away among plain advice weighs
# little in the whole. The model learned from single suggestions and reads those whole: 99.7% of
# the corpus's are shorter than LONG_TEXT.
LONG_TEXT = 400
NUMERIC = ("option_excess", "phrase_excess", "length")
_TOKEN = re.compile(r"(?u)\b\w\w+\b")  # scikit-learn's default token pattern
_MIN_MASKED = 3  # shorter option texts ("A", "no") are words of any advice


def masked_text(suggestions: str, questions: list[Question]) -> str:
    """``suggestions`` with each option's text replaced by OPTKEY (the correct one) or OPTX,
    each phrase answer by ANSWERKEY (longer texts first, so an option inside another is not
    masked apart from it), each option letter by LETTERKEY or LETTERX, and without the
    sentences that only praise the form of earlier answers (leak_rules.praise_of_form) or only
    advise on the answer's form (:func:`only_form`)."""
    subs: list[tuple[str, str]] = []
    for q in questions:
        if q.options:
            subs += [(text, "OPTKEY" if letter == q.answer else "OPTX") for letter, text in q.options.items() if len(text) >= _MIN_MASKED]
        elif len(q.answer) >= _MIN_MASKED:
            subs.append((q.answer, "ANSWERKEY"))
    # Praise of how the target worked tells no answer (the rules pass it), nor does advice on the
    # answer's form: the model reads neither.
    # A list of every option names none: its items are read as "item" and a run of letters as
    # LETTERLIST ("Run the same check on A, B, C and D" read as LETTERX, LETTERX, LETTERKEY, ...
    # looked like a give-away).
    # A sentence that also names an option or the answer says more than that ("your method was
    # right, and I'd lean towards 57 mm over 50 mm"): it is read.
    letters = {letter: any(q.answer == letter for q in questions if q.options) for q in questions for letter in q.options or {}}
    subs.sort(key=lambda s: -len(s[0]))
    kept = [hide_even_list(x, questions) for x in sentences(suggestions)
            if not (praise_of_form(x) or only_form(x)) or _KEYS.search(_masked(x, subs, letters))]
    return _masked(" ".join(kept), subs, letters)


def _masked(text: str, subs: list[tuple[str, str]], letters: dict[str, bool]) -> str:
    text = " " + _LETTER_RUN.sub(" LETTERLIST ", text) + " "
    for original, token in subs:
        # (not \b: an option that begins or ends with a sign, "£12" or "50%", has no word boundary there)
        text = compiled(r"(?i)(?<!\w)" + re.escape(original) + r"(?!\w)").sub(f" {token} ", text)
    # Letters too, which the tokenizer would drop as one-character words: LETTERKEY for a
    # correct option's letter, LETTERX for another's. "A" before a lower-case word is the article.
    return _LETTER.sub(lambda m: _letter_token(m, letters), text)


_KEYS = re.compile(r"\b(?:OPTKEY|OPTX|ANSWERKEY|LETTERKEY|LETTERX)\b")


_LETTER = re.compile(r"(?<![\w'’-])([A-Z])(?![\w'’-])")
# Three letters or more in a row ("A, B, C and D", "A/B/C"), or a range ("A to E", "A–D").
_LETTER_RUN = re.compile(
    r"(?<![\w'’-])\(?[A-H]\)?(?:(?:\s*(?:,|/|&|\band\b|\bor\b|,\s*and\b|,\s*or\b)\s*\(?[A-H]\)?){2,}"
    r"|\s*(?:to|through|thru|[–-])\s*\(?[A-H]\)?)(?![\w'’-])"
)
# "A" before a lower-case word is the article, unless the word goes on a list or a claim ("A and C", "A is").
_ARTICLE = re.compile(r"\s+(?!(?:and|or|nor|but|is|was|are|seems|looks|fits|has|does|can|could|would|should|might|may|because|to)\b)[a-z]")


def _letter_token(m: re.Match, letters: dict[str, bool]) -> str:
    letter = m.group(1)
    if letter not in letters or (letter == "A" and _ARTICLE.match(m.string, m.end())):
        return letter
    if names_something_else(m.string, m.start(), m.end()):  # "the lowest C", "C for cross", "25 °C"
        return letter
    return "LETTERKEY" if letters[letter] else "LETTERX"


def numeric_features(suggestions: str, questions: list[Question], embedder: Any) -> list[float]:
    """The semantic layer's strongest pull above the content-free one, with options and for
    phrase answers (-1 when the batch has none), and the length in units of 300 characters."""
    found = scores(suggestions, questions, embedder)
    option = [s.score - s.content_free for s in found if s.option is not None]
    phrase = [s.score - s.content_free for s in found if s.option is None]
    return [max(option, default=-1.0), max(phrase, default=-1.0), len(suggestions) / 300]


def terms(text: str) -> list[str]:
    """Words, word pairs and triples of ``text``, lower-cased, as scikit-learn forms them."""
    words = _TOKEN.findall(text.lower())
    return [" ".join(words[i : i + n]) for n in (1, 2, 3) for i in range(len(words) - n + 1)]


@dataclass(frozen=True)
class LeakModel:
    vocabulary: dict[str, int]
    idf: np.ndarray
    weights: np.ndarray  # per term, then per NUMERIC feature
    intercept: float
    trained_on: tuple[str, ...]

    def tfidf(self, text: str) -> dict[int, float]:
        """The text's L2-normalised TF-IDF row (sublinear term frequencies), as index -> value."""
        counts = Counter(self.vocabulary[t] for t in terms(text) if t in self.vocabulary)
        row = {j: (1 + math.log(c)) * float(self.idf[j]) for j, c in counts.items()}
        norm = math.sqrt(sum(v * v for v in row.values()))
        return {j: v / norm for j, v in row.items()} if norm else {}

    def probability(self, text: str, numeric: list[float]) -> float:
        row = self.tfidf(text)
        n = len(self.vocabulary)
        z = self.intercept + sum(v * float(self.weights[j]) for j, v in row.items())
        z += float(np.dot(self.weights[n:], numeric))
        return 1 / (1 + math.exp(-z))

    @cached_property
    def term_of(self) -> dict[int, str]:
        """Index -> term: the vocabulary read backwards once, not searched through per call."""
        return {j: t for t, j in self.vocabulary.items()}

    def cues(self, text: str, k: int = 3) -> list[str]:
        """The terms of ``text`` that push it most towards a leak."""
        row = self.tfidf(text)
        words = self.term_of
        pushes = sorted(((v * float(self.weights[j]), words[j]) for j, v in row.items()), reverse=True)
        return [_unmask(t) for push, t in pushes[:k] if push > 0]


_SHOWN = {"optkey": "<the correct option>", "optx": "<another option>", "answerkey": "<the answer>",
          "letterkey": "<the correct letter>", "letterx": "<another letter>"}


def _unmask(term: str) -> str:
    return " ".join(_SHOWN.get(w, w) for w in term.split())


@cache
def load_model(path: Path = MODEL_FILE) -> LeakModel:
    return model_from_data(json.loads(path.read_text(encoding="utf-8")))


def model_from_data(data: dict) -> LeakModel:
    """The model a ``leak_model.json`` holds, from its parsed data (``bench/leak_model.py`` writes it)."""
    vocabulary = {t: i for i, t in enumerate(data["vocabulary"])}
    return LeakModel(
        vocabulary,
        np.asarray(data["idf"], dtype=np.float64),
        np.asarray(data["weights"], dtype=np.float64),
        float(data["intercept"]),
        tuple(data["trained_on"]),
    )


def leak_probability(suggestions: str, questions: list[Question], embedder: Any, model: LeakModel | None = None) -> tuple[float, str]:
    """The model's probability that ``suggestions`` leak an answer of ``questions``, and the
    masked text it read (``model``: another than the shipped one, as its training compares)."""
    text = masked_text(suggestions, questions)
    p = (model or load_model()).probability(text, numeric_features(suggestions, questions, embedder))
    leak_margins.note(p, (DOUBT, LEAN))
    return p, text


def sentence_probability(suggestions: str, questions: list[Question], embedder: Any) -> float:
    """The highest probability the model gives one sentence of ``suggestions`` read alone, with
    its clauses after a semicolon (:func:`whole_sentences`), for the doubt (noted for the margins
    against :data:`DOUBT`)."""
    model = load_model()
    p = max((model.probability(masked_text(x, questions), numeric_features(x, questions, embedder)) for x in whole_sentences(suggestions)), default=0.0)
    leak_margins.note(p, DOUBT)
    return p


# What is stated outright is never doubted: the letter, the option's text, the reference phrase;
# and as plainly, the writer's own pick ("my money would be on 15 kN rather than 12 kN") and an
# answer narrowed to a few options named ("the real contest is between chondrites and irons").
# Read within a whole feedback, five such findings of fresh48 to fresh60 were doubted away, and
# neither kind fires on a clean suggestion or message of the corpus to fresh60.
# (Doubting an option's text lost no catch of any group left out in turn and removed two false
# alarms of one, but "Recall the mechanism before choosing. Remember: <the correct option>."
# scores 0.02 as a whole: one plain sentence of advice outweighs a short give-away beside it.)
# As plain are an option named and struck out in so many words ("PDO can be ruled out") and an
# earlier answer called right or wrong in so many words ("your earlier answer was the correct
# one"): read as a mere elimination or disclosure they were doubted away in whole messages of
# fresh87 and fresh88, and neither fires on a clean suggestion or message of the corpus to fresh88.
UNDOUBTED = frozenset({"answer_letter", "option_text", "reference_phrase", "pick", "narrowed", "struck_out", "verdict"})


def weigh(
    leaks: list[LeakFinding], suggestions: str, questions: list[Question], embedder: Any,
    fires: Callable[[str], set[str]] | None = None,
) -> list[LeakFinding]:
    """The other layers' findings, weighed by the model (see the module): a ``learned``
    finding added when it is confident and none was found, doubted ones dropped.

    ``fires`` gives the kinds of finding the other layers make in one sentence read alone.
    Doubt is read where the findings are: the whole and each sentence that fires must look
    clean (guard 12; one sentence of plain advice beside a give-away makes the whole look
    clean). When no sentence fires alone (a finding across sentences), or ``fires`` is not
    given, every sentence must look clean. A whole feedback (:func:`is_feedback`) is decided by
    the feedback classifier instead, unless the answer is stated outright."""
    p, text = leak_probability(suggestions, questions, embedder)
    # With the answer stated outright the text leaks whatever the model reads, and every finding
    # stays as evidence (the paraphrase check's beside the option's text, say).
    stated = any(d.kind in UNDOUBTED for d in leaks)
    if is_feedback(suggestions) and not stated:
        return _weigh_feedback(leaks, read_feedback(suggestions, questions, embedder, leaks, fires, p), questions)
    if leaks:
        doubted = p < DOUBT and not stated
        return [] if doubted and _doubted(suggestions, questions, embedder, fires) else leaks
    # Nothing read (every sentence praise of form or advice on it): the model has no evidence.
    if p >= LEAN:
        return [_finding(suggestions, text, p, "reads as a give-away")] if terms(text) else []
    return []


def is_feedback(suggestions: str) -> bool:
    """Whether ``suggestions`` are a whole feedback (:data:`LONG_TEXT`), not one suggestion."""
    return len(suggestions) >= LONG_TEXT and len(whole_sentences(suggestions)) >= 2


def read_feedback(
    suggestions: str, questions: list[Question], embedder: Any, leaks: list[LeakFinding],
    fires: Callable[[str], set[str]] | None, p: float, model: LeakModel | None = None,
) -> FeedbackReading:
    """What the feedback classifier weighs: the whole's probability ``p`` and findings
    ``leaks``, and each sentence read alone by the model (the shipped one unless ``model``) and
    by the other layers (``fires``)."""
    model = model or load_model()
    readings = []
    for x in whole_sentences(suggestions):
        masked = masked_text(x, questions)
        px = model.probability(masked, numeric_features(x, questions, embedder)) if terms(masked) else 0.0
        readings.append(SentenceReading(x, px, len(_TOKEN.findall(x)), frozenset(fires(x) if fires else ())))
    return FeedbackReading(p, tuple(readings), frozenset(d.kind for d in leaks), _by_place(leaks, questions))


def _by_place(leaks: list[LeakFinding], questions: list[Question]) -> bool:
    """Whether a pointer found names one option alone, by letter or place ("that points to the
    first option"; not "options A and B are opposites")."""
    for d in leaks:
        if d.kind == "pointer":
            refs = option_refs(d.evidence, questions)
            if len({r.letter for r in refs if r.how in ("letter", "ordinal")}) == 1 and all(r.how in ("letter", "ordinal") for r in refs):
                return True
    return False


def _weigh_feedback(leaks: list[LeakFinding], reading: FeedbackReading, questions: list[Question]) -> list[LeakFinding]:
    model = load_message_model()
    q = model.probability(reading)
    leak_margins.note(q, model.threshold)
    if q < model.threshold:
        return []
    if leaks:
        return leaks
    sentence = reading.leaning_sentence()
    return [_finding(sentence.text, masked_text(sentence.text, questions), q, "the whole feedback reads as a give-away, this sentence most")]


def _finding(evidence: str, masked: str, p: float, reading: str) -> LeakFinding:
    cues = ", ".join(f"“{c}”" for c in load_model().cues(masked)) or "its wording as a whole"
    return LeakFinding(None, "learned", f"{evidence.strip()[:160]} ({reading}, p = {p:.2f}: {cues})")


def _doubted(suggestions: str, questions: list[Question], embedder: Any, fires: Callable[[str], set[str]] | None) -> bool:
    whole = whole_sentences(suggestions)
    fired = [x for x in sentences(suggestions) if fires(x)] if fires is not None else []
    if not fired:
        return sentence_probability(suggestions, questions, embedder) < DOUBT
    # Each clause that fired is read in its whole sentence: "Options A and B are opposites;" alone
    # is short, and the model reads any short text as a give-away.
    read = dict.fromkeys(next((w for w in whole if x in w), x) for x in fired)
    return all(sentence_probability(w, questions, embedder) < DOUBT for w in read)
