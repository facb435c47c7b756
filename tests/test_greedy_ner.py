"""The graph's entity recognizer finds what spaCy's own finds, token for token."""

from __future__ import annotations

import random

import spacy
from spacy.tokens import Doc, Span

from judgeagent.graph.extract import SPACY_MODEL, load_pipeline
from judgeagent.graph.greedy_ner import GreedyNer

# Our own sentences, with the kinds of entity the English model labels: people, places,
# organisations, dates, money, percentages, quantities, ordinals, works and laws.
TEXTS = [
    "Marta Okafor joined the Harbour Authority of Lisbon on 3 March 1998 for $7 million.",
    "About 42 percent of the 1,200 pilots trained in Rotterdam under the Maritime Safety Act.",
    "The second edition of Tidal Engineering sold 9,000 copies in Canada and New Zealand.",
    "Dr. Ivan Petrov met Ana Silva at Kestrel Labs in Toronto last Tuesday at 4 pm.",
    "The river rose 3 metres in two days.\n\nThe Danube Commission met in Vienna on Friday.",
    "Nobody   expected   the   Pacific   Rim   Forum   to   end   early.",
    "Kyoto",
    "",
    "IBM, Siemens and the World Health Organization signed the Geneva Protocol in 1925.",
]


def recognized(ner, docs: list[Doc]) -> list[list[tuple[int, int, str]]]:
    """``ner`` run over copies of ``docs`` as a pipeline runs it; each copy's entities."""
    copies = [Doc(doc.vocab).from_bytes(doc.to_bytes()) for doc in docs]
    return [[(e.start, e.end, e.label_) for e in doc.ents] for doc in ner.pipe(copies, batch_size=8)]


def parsed_up_to_ner(nlp, texts: list[str]) -> list[Doc]:
    with nlp.select_pipes(disable=["ner"]):
        return list(nlp.pipe(texts))


def test_our_sentences_get_spacys_entities(spacys_pipeline):
    docs = parsed_up_to_ner(spacys_pipeline, TEXTS)
    spacys = spacys_pipeline.get_pipe("ner")
    theirs, ours = recognized(spacys, docs), recognized(GreedyNer().take(spacys), docs)
    assert ours == theirs
    # The sentences reach what the rules are for: many labels, multi-token entities, and
    # runs of spaces no entity may start on.
    labels = {label for ents in theirs for _, _, label in ents}
    assert {"PERSON", "GPE", "ORG", "DATE", "MONEY", "PERCENT"} <= labels
    assert any(end - start >= 3 for ents in theirs for start, end, _ in ents)


def test_random_word_sequences_with_sentence_breaks_and_spaces_get_spacys_entities(spacys_pipeline):
    """Many states the sentences above never reach: a sentence starting inside what would be
    an entity, spaces between name words, one-token documents, documents of all lengths."""
    words = ("Marta Okafor Lisbon Harbour Authority of the in on March 1998 $ 7 million 42 percent "
             "Kestrel Labs Toronto New Zealand Tuesday , . and second Vienna Danube Commission Act").split()
    rng = random.Random(7)
    vocab = spacys_pipeline.vocab
    docs = []
    for _ in range(120):
        n = rng.randint(1, 40)
        seq = [rng.choice(words + [" ", "\n\n", "  "] * 2) for _ in range(n)]
        if seq[0] == " ":
            seq[0] = "Vienna"
        starts = [True] + [rng.random() < 0.15 for _ in range(n - 1)]
        docs.append(Doc(vocab, words=seq, sent_starts=starts))
    spacys = spacys_pipeline.get_pipe("ner")
    theirs = recognized(spacys, docs)
    assert recognized(GreedyNer().take(spacys), docs) == theirs
    assert sum(len(ents) for ents in theirs) > 100


def test_the_pipeline_the_graph_loads_gives_spacys_entities(spacys_pipeline):
    ours = load_pipeline(SPACY_MODEL)
    assert isinstance(ours.get_pipe("ner"), GreedyNer)
    # All texts in one batch too: the recognizer sorts a batch by length and splits it.
    theirs = [[(e.start, e.end, e.label_) for e in doc.ents] for doc in spacys_pipeline.pipe(TEXTS)]
    mine = [[(e.start, e.end, e.label_) for e in doc.ents] for doc in ours.pipe(TEXTS)]
    assert mine == theirs
    assert sum(map(len, mine)) > 20


def test_entities_set_before_it_runs_are_kept_as_spacy_keeps_them(spacys_pipeline):
    """A preset entity is one the array loop does not model: spaCy's own loop decides."""
    doc = parsed_up_to_ner(spacys_pipeline, [TEXTS[3]])[0]
    doc.set_ents([Span(doc, 1, 3, label="ORG")])  # "Ivan Petrov", preset as an organisation
    spacys = spacys_pipeline.get_pipe("ner")
    theirs, ours = recognized(spacys, [doc]), recognized(GreedyNer().take(spacys), [doc])
    assert ours == theirs
    assert (1, 3, "ORG") in ours[0]


def test_a_recognizer_trained_here_decodes_the_same(spacys_pipeline):
    """A model the English one is not: other labels, in another order, a few steps trained."""
    from spacy.training import Example

    nlp = spacy.blank("en")
    ner = nlp.add_pipe("ner")
    train = [
        ("Bring the red valve to Pier Seven.", [(10, 19, "PART"), (23, 33, "PLACE")]),
        ("Pier Nine stores the blue pump housing.", [(0, 9, "PLACE"), (21, 38, "PART")]),
        ("The red valve failed at Pier Nine.", [(4, 13, "PART"), (24, 33, "PLACE")]),
    ]
    examples = [Example.from_dict(nlp.make_doc(text), {"entities": ents}) for text, ents in train]
    spacy.util.fix_random_seed(3)
    optimizer = nlp.initialize(lambda: examples)
    for _ in range(15):
        nlp.update(examples, sgd=optimizer)
    texts = ["Take the blue pump housing to Pier Seven.", "The red valve is at Pier Nine and the blue pump at Pier Seven.", "Nothing here."]
    docs = [nlp.make_doc(text) for text in texts]
    theirs, ours = recognized(ner, docs), recognized(GreedyNer().take(ner), docs)
    assert ours == theirs
    assert {label for ents in theirs for _, _, label in ents} == {"PART", "PLACE"}
