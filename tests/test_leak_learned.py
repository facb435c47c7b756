"""The leakage guard's learned layer: what it reads, that its numpy scoring is scikit-learn's,
that the shipped model is trained on the corpus it says, and how it joins the other layers; and
the feedback classifier that decides a judge's whole feedback."""

from __future__ import annotations

import pytest

from bench.leak_model import NOT_TRAINED_ON
from judgeagent.data.benchmark import Question
from judgeagent.graph.embed_queue import EmbeddingQueue
from judgeagent.stages import leak_learned, leak_message
from judgeagent.stages.leak_learned import DOUBT, LEAN, load_model, masked_text, only_form, terms
from judgeagent.stages.leak_message import FeedbackReading, MessageModel, SentenceReading, features, load_message_model
from judgeagent.stages.leak_rules import praise_of_form
from judgeagent.stages.leakage import find_leaks
from tests.leak_table import GROUPS, load_corpus, load_messages

GAS = Question("q1", "Which gas makes up most of dry air?", "C", {"A": "Oxygen", "B": "Argon", "C": "Nitrogen", "D": "Carbon dioxide"})
NOVEL = Question("q2", "Who wrote the novel Middlemarch?", "George Eliot")
CONTEXT = Question(
    "q3",
    "Which principle explains why an artefact's meaning depends on where it was found?",
    "B",
    {"A": "Typology", "B": "Context", "C": "Seriation", "D": "Stratigraphic dating"},
)


@pytest.mark.parametrize(
    ("text", "masked"),
    [
        ("It's nitrogen, of course.", "It's OPTKEY , of course."),
        ("Compare oxygen and carbon dioxide.", "Compare OPTX and OPTX ."),
        ("A quick way in: (C) fits, A and D do not.", "A quick way in: (LETTERKEY) fits, LETTERX and LETTERX do not."),
        ("A is wrong. Think of George Eliot.", "LETTERX is wrong. Think of ANSWERKEY ."),
        # Sentences that only praise the form of earlier answers are not read.
        ("Your write-up was clear and well reasoned. Recall the composition of air.", "Recall the composition of air."),
        # ... unless they name an option or the answer too: that sentence says more than praise.
        ("Your method was right, and I'd lean towards nitrogen over argon.",
         "Your method was right, and I'd lean towards OPTKEY over OPTX ."),
    ],
)
def test_what_the_model_reads(text, masked):
    assert " ".join(masked_text(text, [GAS, NOVEL]).split()) == masked


@pytest.mark.parametrize(
    ("sentence", "form"),
    [
        ("A short answer is fine: the letter and a line of reasoning.", True),
        ("One letter is all that's needed, though a one-line reason helps.", True),
        ("A named effect is expected here; two words will do.", True),
        ("Your answer is fine.", False),  # a verdict, not advice on form
        ("One letter is all you need: C.", False),
        ("Pick the last one.", False),
    ],
)
def test_advice_on_the_answers_form_is_not_read(sentence, form):
    assert only_form(sentence) is form
    assert (masked_text(sentence, [GAS]).strip() == "") is form


@pytest.mark.parametrize(
    "sentence",
    [
        "Your answers were neatly argued.",
        "Your earlier write-up on controllers was clear and well reasoned.",
        "You kept your previous answer short, which is the right format for this type of item.",
        "Your previous explanations leaned on definitions, which is the right instinct here.",
        "You were methodical last time, and that's the right instinct in aviation.",
        "Your reasoning style — state a principle, then apply it — is exactly right for this kind of question.",
    ],
)
def test_praise_of_form_is_no_disclosure(sentence):
    assert praise_of_form(sentence)
    assert find_leaks(sentence, [GAS, NOVEL]) == []


@pytest.mark.parametrize(
    "sentence",
    [
        "Your answer on the gas question was clear but wrong.",
        "Your answer to the second question was right.",
        "Your clear answer on the air question holds up.",
        "Your answer was well reasoned and correct.",
    ],
)
def test_a_verdict_beside_praise_is_still_a_disclosure(sentence):
    assert not praise_of_form(sentence)
    # ("verdict": an answer called right or wrong in so many words, as the sentence's subject)
    assert {d.kind for d in find_leaks(sentence, [GAS, NOVEL])} in ({"disclosure"}, {"verdict"})


def test_numpy_tfidf_is_scikit_learns():
    from sklearn.feature_extraction.text import TfidfVectorizer

    model = load_model()
    vec = TfidfVectorizer(ngram_range=(1, 3), sublinear_tf=True, vocabulary=model.vocabulary)
    vec.idf_ = model.idf
    corpus = load_corpus()
    texts = [masked_text(s.text, corpus.batches[s.batch]) for s in corpus.suggestions[::7]]
    theirs = vec.transform(texts)
    for i, text in enumerate(texts):
        ours = model.tfidf(text)
        row = theirs.getrow(i)
        assert dict(zip(row.indices.tolist(), row.data.tolist(), strict=True)).keys() == ours.keys()
        assert all(abs(ours[j] - v) < 1e-12 for j, v in zip(row.indices, row.data, strict=True))
    assert terms("LETTERKEY is the one") == ["letterkey", "is", "the", "one", "letterkey is", "is the", "the one", "letterkey is the", "is the one"]


def test_the_shipped_model_is_trained_on_the_corpus_it_names():
    from bench.leak_guard import SEALED

    model = load_model()
    assert set(model.trained_on) == set(GROUPS) - SEALED - NOT_TRAINED_ON
    assert len(model.idf) == len(model.vocabulary) and len(model.weights) == len(model.vocabulary) + len(leak_learned.NUMERIC)


@pytest.fixture(scope="module")
def minilm():
    from judgeagent.graph.embed import shared_embedder

    return EmbeddingQueue(shared_embedder())


def test_it_flags_a_letter_no_rule_reads_as_a_verdict(minilm):
    text = "B captures the central idea better than any of the other options."
    assert find_leaks(text, [CONTEXT], embedder=minilm, learned=False) == []
    p, _ = leak_learned.leak_probability(text, [CONTEXT], minilm)
    assert p >= LEAN
    (leak,) = find_leaks(text, [CONTEXT], embedder=minilm)
    assert leak.kind == "learned" and f"p = {p:.2f}" in leak.evidence


def test_advice_stays_clean(minilm):
    for text in ("Recall the composition of dry air by volume.", "Compare oxygen, argon, nitrogen and carbon dioxide by their share of air."):
        p, _ = leak_learned.leak_probability(text, [GAS, NOVEL], minilm)
        assert p < LEAN and find_leaks(text, [GAS, NOVEL], embedder=minilm) == []


def test_doubted_findings_are_dropped_but_never_a_stated_answer(minilm, monkeypatch):
    monkeypatch.setattr(leak_learned, "leak_probability", lambda *a: (DOUBT / 2, ""))
    monkeypatch.setattr(leak_learned, "sentence_probability", lambda *a: DOUBT / 2)
    # An elimination the model doubts, as a whole and sentence by sentence, is dropped ...
    assert find_leaks("Argon is far too rare to be the main gas.", [GAS], embedder=minilm, learned=False)
    assert find_leaks("Argon is far too rare to be the main gas.", [GAS], embedder=minilm) == []
    # ... but not an option struck out in so many words, nor an answer called right or wrong so ...
    assert "struck_out" in {d.kind for d in find_leaks("Rule out argon first.", [GAS], embedder=minilm)}
    assert "verdict" in {d.kind for d in find_leaks("Your answer to the air question was wrong.", [GAS], embedder=minilm)}
    # ... but never a letter or the option's text stated as the answer, which a plain sentence
    # beside it can make the model doubt.
    assert "answer_letter" in {d.kind for d in find_leaks("The answer is C.", [GAS], embedder=minilm)}
    text = "Recall the mechanism before choosing. Remember: Nitrogen."
    assert "option_text" in {d.kind for d in find_leaks(text, [GAS], embedder=minilm)}
    # Nor the writer's own pick, nor the answer narrowed to a few options named: as plain.
    assert "pick" in {d.kind for d in find_leaks("I'd go with the gas that plants cannot fix alone.", [GAS], embedder=minilm)}
    assert "narrowed" in {d.kind for d in find_leaks("Your shortlist should really be just argon and nitrogen.", [GAS], embedder=minilm)}
    monkeypatch.undo()
    assert leak_learned.leak_probability(text, [GAS], minilm)[0] < DOUBT <= leak_learned.sentence_probability(text, [GAS], minilm)
    # ... and kept when one sentence read alone does not look clean.
    monkeypatch.setattr(leak_learned, "leak_probability", lambda *a: (DOUBT / 2, ""))
    monkeypatch.setattr(leak_learned, "sentence_probability", lambda *a: DOUBT * 2)
    assert {d.kind for d in find_leaks("Argon is far too rare to be the main gas.", [GAS], embedder=minilm)} - {"semantic"} == {"elimination"}
    monkeypatch.setattr(leak_learned, "leak_probability", lambda *a: ((DOUBT + LEAN) / 2, ""))
    assert {d.kind for d in find_leaks("Argon is far too rare to be the main gas.", [GAS], embedder=minilm)} - {"semantic"} == {"elimination"}


# A judge's whole feedback: plain advice on each question, and a closing line.
_ADVICE = (
    "On the archaeology question, think about what an artefact loses when it is moved from where it lay. "
    "For the air question, recall how dry air is measured by volume, and compare the gases by their share. "
    "For the novel, recall the pen names of Victorian writers and why some of them chose one. "
    "Overall, keep your final lines short and state one answer each time, after your reasoning."
)
_LEAK = "On the archaeology question, B captures the central idea better than any of the other options, so keep to it."


def _alone(sentence: str, batch: list[Question], minilm) -> float:
    return load_model().probability(masked_text(sentence, batch), leak_learned.numeric_features(sentence, batch, minilm))


def test_one_long_sentence_that_leans_flags_a_whole_feedback(minilm):
    batch = [CONTEXT, GAS, NOVEL]
    text = f"Some feedback on the batch. {_LEAK} {_ADVICE.split('. ', 1)[1]}"
    assert len(text) >= leak_learned.LONG_TEXT
    # The whole reads clean, and no other layer finds anything: the sentence read alone leans.
    assert leak_learned.leak_probability(text, batch, minilm)[0] < DOUBT
    assert find_leaks(text, batch, embedder=minilm, learned=False) == []
    assert _alone(_LEAK, batch, minilm) >= LEAN
    # The feedback classifier flags the whole, and names that sentence as its evidence.
    (found,) = find_leaks(text, batch, embedder=minilm)
    assert found.kind == "learned" and found.evidence.startswith(_LEAK)
    shown = float(found.evidence.split("p = ")[1][:4])
    assert shown >= load_message_model().threshold


def test_what_the_feedback_classifier_weighs():
    reading = FeedbackReading(0.1, (
        SentenceReading("Feedback on the batch.", 0.9, 4, frozenset()),
        SentenceReading("Rule out argon before anything else, since it is a minor part of air.", 0.3, 14, frozenset({"elimination"})),
        SentenceReading("For the novel, think about the pen names of Victorian writers and why.", 0.85, 13, frozenset()),
    ), frozenset({"elimination", "semantic"}))
    names = ("whole", "top_sentence", "second_sentence", "fired_max", "fired_min", "fired_count",
             "found:elimination", "found:pointer", "long_sentence_leans", "long_sentence_half", "fired_sentence_leans",
             "fired_sentence_clean")
    assert features(reading, names) == [0.1, 0.9, 0.85, 0.3, 0.3, 1.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0]
    assert reading.leaning_sentence().p == 0.9
    # A finding across sentences: none fires alone, so no sentence that fired is read.
    across = FeedbackReading(0.5, reading.sentences[:1], frozenset({"pointer"}))
    assert features(across, ("found:pointer", "fired_count", "fired_max", "fired_sentence_clean")) == [1.0, 0.0, 0.0, 0.0]


def test_an_answer_stated_in_a_feedback_is_never_put_to_the_classifier(minilm, monkeypatch):
    batch = [CONTEXT, GAS, NOVEL]
    never = MessageModel(("whole",), (0.0,), 0.0, 1.01, ())  # a classifier that flags nothing
    monkeypatch.setattr(leak_learned, "load_message_model", lambda: never)
    stated = f"{_ADVICE} For the air question, the answer is C, and you had it."
    assert "answer_letter" in {d.kind for d in find_leaks(stated, batch, embedder=minilm)}
    eliminated = f"{_ADVICE} For the air question, argon is far too rare to be the main gas."
    assert find_leaks(eliminated, batch, embedder=minilm, learned=False)
    assert find_leaks(eliminated, batch, embedder=minilm) == []


def test_the_shipped_feedback_classifier_is_trained_on_the_messages_it_names():
    from bench.leak_guard import SEALED

    model = load_message_model()
    assert set(model.trained_on) == {m.group for m in load_messages()} - SEALED - NOT_TRAINED_ON
    assert len(model.weights) == len(model.names) and 0 < model.threshold < 1


def test_a_single_suggestion_is_read_whole(minilm):
    # Shorter than a feedback, it is read whole, as the model learned from single suggestions:
    # this advice's second sentence would lean read alone.
    batch = [CONTEXT, GAS, NOVEL]
    second = "The right option is the one that fits every part of the question, not the one with the most technical words."
    text = f"Don't be drawn to options that only sound learned. {second}"
    assert len(text) < leak_learned.LONG_TEXT
    assert leak_learned.leak_probability(text, batch, minilm)[0] < LEAN <= _alone(second, batch, minilm)
    assert find_leaks(text, batch, embedder=minilm) == []


def test_a_short_opening_line_never_flags_a_feedback_alone(minilm):
    batch = [CONTEXT, GAS, NOVEL]
    # A message's usual opening reads clean alone: the model learned from clean messages' sentences ...
    assert _alone("Three points.", batch, minilm) < DOUBT
    # ... but it still leans on many a short text ("Go with C." is the typical short leak) ...
    opening = "Have another go."
    assert _alone(opening, batch, minilm) >= LEAN
    # ... but a short sentence leaning weighs little with the feedback classifier.
    assert len(opening.split()) < leak_message.LONG_SENTENCE
    assert find_leaks(f"{opening} {_ADVICE}", batch, embedder=minilm) == []
