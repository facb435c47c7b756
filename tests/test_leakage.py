"""The leakage guard: which suggestions give answers away, the judge's leak check, and the one
judge rewrite."""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from judgeagent.config import LLMConfig
from judgeagent.data.benchmark import Question
from judgeagent.graph.embed_queue import EmbeddingQueue
from judgeagent.graph.fixed_precision import decision_embedder
from judgeagent.llm.client import LLMResult
from judgeagent.llm.registry import ModelSpec
from judgeagent.llm.usage import TokenUsage
from judgeagent.stages.leak_finding import LeakFinding
from judgeagent.stages.leak_judge import UNREADABLE_TRIES, leak_check_messages, leak_check_summary, resolve_leak_check
from judgeagent.stages.leak_normalize import normalized
from judgeagent.stages.leak_rules import names_option
from judgeagent.stages.leak_semantic import PLACEBO_SENTENCES, semantic_leaks
from judgeagent.stages.leak_semantic import scores as semantic_scores
from judgeagent.stages.leakage import (
    ANSWER_RULES,
    GUARD_VERSION,
    NOTHING_TO_KEEP,
    LeakCheck,
    find_leaks,
    guard_suggestions,
    only_letters,
    prime_guard,
)
from tests.leak_table import GROUPS, guard_checks, load_corpus

ROOT = Path(__file__).resolve().parents[1]

TABLE_QUESTIONS = load_corpus().batches["t"]  # the older hand table, now the corpus's batch t

MC = Question(
    "q1",
    "Which virus most often causes hand, foot and mouth disease?",
    "B",
    {"A": "Hypertension", "B": "Coxsackie A virus", "C": "Pulmonary hypertension", "D": "None of the above"},
)
MC2 = Question(
    "q2",
    "Which finding is most typical of this patient?",
    "A",
    {"A": "Hypertension", "B": "Pulmonary hypertension", "C": "Bradycardia", "D": "Tachycardia"},
)
KQA = Question("k1", "Who founded the company that bought the bookstore chain?", "Jeff Bezos")
YES_NO = Question("k2", "Did both outlets report the merger?", "Yes")

CLEAN = "Recall how viral families differ in their typical age group and season, and reason from the symptoms."


def kinds(leaks: list[dict]) -> set[tuple[str | None, str]]:
    return {(d.question_id, d.kind) for d in leaks}


@pytest.mark.parametrize(
    "text",
    [
        "Remember that coxsackie  A virus is the usual culprit.",
        "Think of COXSACKIE A VIRUS first.",
        "The culprit (Coxsackie A virus) is common in summer.",
    ],
)
def test_correct_option_text_is_a_leak(text):
    assert kinds(find_leaks(text, [MC], rules=ANSWER_RULES)) == {("q1", "option_text")}


def test_distractor_text_is_not_a_leak():
    assert find_leaks("Do not confuse it with bradycardia or tachycardia.", [MC2]) == []


def test_answer_inside_a_longer_option_is_not_a_leak():
    # "hypertension" is the answer to q2, but here it is part of the distractor "pulmonary hypertension".
    assert find_leaks("Consider what pulmonary hypertension does to the right heart.", [MC2]) == []
    assert kinds(find_leaks("Consider systemic hypertension.", [MC2], rules=ANSWER_RULES)) == {("q2", "option_text")}


def test_generic_option_texts_are_skipped():
    q = Question("q3", "Which is true?", "D", {"A": "Fever", "B": "Rash", "C": "Cough", "D": "None of the above"})
    assert find_leaks("If none of the above fits, say so.", [q]) == []
    q_short = Question("q4", "Which ion?", "B", {"A": "K", "B": "Na", "C": "Ca", "D": "Mg"})
    assert find_leaks("Na and K balance matters.", [q_short]) == []


@pytest.mark.parametrize(
    "text, question_ids",
    [
        ("The answer is B.", {"q1"}),
        ("the correct answer is (A) because of the history", {"q2"}),
        ("Answer: (D)", {None}),  # names a letter that is no question's answer: still a leak
        ("Option B is correct for the first one.", {"q1"}),
        ("Read carefully. A is the correct answer.", {"q2"}),
        ("Choose B.", {"q1"}),
        ("pick option C", {None}),
        ("The answer to question 2 is option A", {"q2"}),
    ],
)
def test_answer_letter_statements_are_leaks(text, question_ids):
    leaks = find_leaks(text, [MC, MC2], rules=ANSWER_RULES)
    assert {d.kind for d in leaks} == {"answer_letter"}
    assert {d.question_id for d in leaks} == question_ids


@pytest.mark.parametrize(
    "text",
    [
        "Choose a drug that fits the timeline.",
        "Choose A drug class before the dose.",
        "Select B cells as the source of antibodies.",
        "Vitamin C is the best studied antioxidant.",
        "Hepatitis B is common in some regions.",
        "Your answer is what matters.",
    ],
)
def test_ordinary_english_is_not_an_answer_letter(text):
    assert find_leaks(text, [MC, MC2]) == []


def test_letters_mean_nothing_without_options():
    assert find_leaks("The answer is B.", [KQA]) == []


def test_reference_phrase_is_a_leak():
    assert kinds(find_leaks("Keep in mind that Jeff Bezos founded it.", [KQA])) == {("k1", "reference_phrase")}
    assert kinds(find_leaks("Think of Jeff Bezos's early years.", [KQA])) == {("k1", "reference_phrase")}
    assert find_leaks("Think of the founder's early thrift.", [KQA]) == []
    assert find_leaks("Consider who founded the buyer.", [KQA]) == []


def test_a_question_named_by_its_own_words_names_no_answer():
    # "A-frame" is "frame" once its letter reads as an article: the question's own word, which a
    # label for the question writes without naming the answer
    frame = Question("h1", "What is the triangular frame a hang-glider pilot holds and pushes called?", "A-frame")
    assert find_leaks("For the frame question, give the standard name of the whole part.", [frame]) == []
    assert find_leaks("- Frame: think of what the pilot holds.", [frame]) == []
    assert ("h1", "reference_phrase") in kinds(find_leaks("Many pilots know the part as the control frame.", [frame]))
    assert kinds(find_leaks("It's the A-frame.", [frame])) == {("h1", "reference_phrase")}


def test_yes_no_reference_only_leaks_when_stated_as_the_answer():
    assert find_leaks("Yes, both reports matter; check whether no outlet disagrees.", [YES_NO]) == []
    leaks = find_leaks("So the answer is yes.", [YES_NO])
    assert kinds(leaks) == {("k2", "reference_phrase")}
    assert find_leaks("So the answer is no.", [YES_NO]) == []


class AliasEmbedder:
    """Random unit vectors per text, except that an alias shares its target's vector."""

    def __init__(self, aliases: dict[str, str]):
        self.aliases = aliases
        self.calls = 0

    def encode(self, texts):
        self.calls += 1
        rows = []
        for t in texts:
            seed = int(hashlib.sha256(self.aliases.get(t, t).encode()).hexdigest()[:8], 16)
            v = np.random.default_rng(seed).normal(size=64)
            rows.append(v / np.linalg.norm(v))
        return np.asarray(rows, dtype=np.float32)


def test_embedding_catches_a_paraphrase_of_the_answer():
    text = "Review the material. It is the enterovirus of summer daycare outbreaks."
    emb = AliasEmbedder({"It is the enterovirus of summer daycare outbreaks.": "Coxsackie A virus"})
    assert find_leaks(text, [MC]) == []
    leaks = find_leaks(text, [MC], embedder=emb, rules=ANSWER_RULES, semantic=False)
    assert kinds(leaks) == {("q1", "embedding")}
    assert "enterovirus" in leaks[0].evidence


def test_embedding_ignores_sentences_closer_to_a_distractor_or_below_threshold():
    text = "It is the enterovirus of summer daycare outbreaks."
    # Identical to both the answer and a distractor: not closer to the answer, so no leak.
    same = AliasEmbedder({text: "Hypertension", "Coxsackie A virus": "Hypertension"})
    # (The learned layer reads this description of the answer as a give-away: it is one.)
    assert find_leaks(text, [MC], embedder=same, learned=False) == []
    assert find_leaks(CLEAN, [MC, KQA], embedder=AliasEmbedder({})) == []


class FakeJudge:
    def __init__(self, *replies: LLMResult):
        self.replies = list(replies)
        self.calls: list[dict] = []

    async def ask_judge(self, messages, *, schema, stage, max_tokens, temperature=0.0):
        self.calls.append({"messages": messages, "schema": schema, "stage": stage})
        return self.replies.pop(0)


def rewrite(text: str) -> LLMResult:
    return LLMResult(ok=True, text=text, data={"suggestions": text})


def guard(judge, suggestions, questions, **kw) -> LeakCheck:
    return asyncio.run(guard_suggestions(judge, suggestions, questions, **kw))


def test_clean_suggestions_pass_without_a_judge_call():
    judge = FakeJudge()
    check = guard(judge, CLEAN, [MC, MC2])
    assert judge.calls == []
    assert check.to_dict() == {
        "suggestions": CLEAN,
        "leaks_before": [],
        "rewritten": False,
        "leaks_after": [],
        "flagged": False,
        "rewrite_error": None,
        "mode": "rules",
        "judge_before": [],
        "judge_after": [],
        "check_failed": False,
        "guard_version": GUARD_VERSION,
    }


def test_leak_is_rewritten_once_and_cleared():
    judge = FakeJudge(rewrite(CLEAN))
    check = guard(judge, "Coxsackie A virus is the one to remember.", [MC])
    assert len(judge.calls) == 1
    call = judge.calls[0]
    assert call["stage"] == "leak-rewrite"
    assert call["schema"]["required"] == ["suggestions"]
    prompt = call["messages"][-1]["content"]
    assert "states the text of a correct option" in prompt and "Coxsackie A virus is the one to remember." in prompt
    assert check.rewritten and not check.flagged and check.leaks_after == []
    # The sentence states the answer's text and calls it the one: two rules fire.
    assert kinds(check.leaks_before) == {("q1", "option_text"), ("q1", "pointer")}
    assert check.suggestions == CLEAN


def test_rewrite_that_still_leaks_is_flagged_and_kept():
    judge = FakeJudge(rewrite("Focus on symptoms; the answer is B."))
    check = guard(judge, "The answer is B.", [MC, MC2])
    assert len(judge.calls) == 1
    assert check.rewritten and check.flagged
    assert check.suggestions == "Focus on symptoms; the answer is B."
    assert ("q1", "answer_letter") in kinds(check.leaks_after)


def test_failed_rewrite_keeps_the_original_and_flags():
    judge = FakeJudge(LLMResult(ok=False, error="timeout: no reply"))
    check = guard(judge, "Keep in mind that Jeff Bezos founded it.", [KQA])
    assert check.suggestions == "Keep in mind that Jeff Bezos founded it."
    assert not check.rewritten and check.flagged
    assert check.rewrite_error == "timeout: no reply"
    assert check.leaks_after == check.leaks_before != []


@pytest.mark.parametrize("text", ["D.", "D", " (B) ", "A, C"])
def test_suggestions_of_nothing_but_option_letters_are_flagged_without_a_rewrite(text):
    # The bundled judge writes "D." as its whole advice; asked to rewrite it, it never closed
    # its JSON (cut off at 600 tokens, then 1200: a call with no answer, the batch incomplete).
    judge = FakeJudge()
    check = guard(judge, text, [MC, MC2])
    assert judge.calls == []
    assert check.leaks_before and check.leaks_after == check.leaks_before
    assert check.flagged and not check.rewritten and check.rewrite_error == NOTHING_TO_KEEP
    assert check.suggestions == text  # re-asked as written, never counted leak-free
    # Its finding belongs to no one question (question_id None), and the record reads back.
    from judgeagent.records import LeakRecord

    assert LeakRecord.of(check).to_json() == check.to_dict()


def test_only_letters_means_the_batch_s_option_letters_and_nothing_else():
    assert only_letters("D.", [MC]) and only_letters("(A), (B)", [MC, MC2])
    assert not only_letters("C or D", [MC])  # a word beside the letters: the rewrite decides
    assert not only_letters("E.", [MC])  # no option E: a letter of no question
    assert not only_letters("D. Review hyperkalemia.", [MC])  # advice beside it, for a rewrite to keep
    assert not only_letters("a", [MC])  # an article, not a capital letter
    assert not only_letters("", [MC]) and not only_letters("...", [MC])
    assert not only_letters("B", [KQA])  # a phrase question has no letters


def test_guard_uses_the_embedder_when_given():
    sentence = "It is the enterovirus of summer daycare outbreaks."
    emb = AliasEmbedder({sentence: "Coxsackie A virus"})
    judge = FakeJudge(rewrite(CLEAN))
    check = guard(judge, sentence, [MC], embedder=emb, threshold=0.9)
    assert ("q1", "embedding") in kinds(check.leaks_before)
    assert not check.flagged and emb.calls == 2


class RecordingEmbedder(AliasEmbedder):
    def __init__(self, aliases: dict[str, str]):
        super().__init__(aliases)
        self.texts: list[list[str]] = []

    def encode(self, texts):
        self.texts.append(list(texts))
        return super().encode(texts)


def test_primed_guard_embeds_only_the_suggestion_sentences():
    sentence = "It is the enterovirus of summer daycare outbreaks."
    model = RecordingEmbedder({sentence: "Coxsackie A virus"})
    queue = EmbeddingQueue(model)
    prime_guard(queue, [MC, MC2, KQA])
    # Each answer text and distractor, every option, every question's text (a phrase answer is
    # scored beyond its batch's topic) and the content-free baseline, in one pass.
    assert len(model.texts) == 1
    assert {"Coxsackie A virus", "Hypertension", "Pulmonary hypertension", "None of the above", "Bradycardia",
            "Tachycardia", "Jeff Bezos", KQA.question, MC.question, MC2.question, *PLACEBO_SENTENCES} == set(model.texts[0])
    check = guard(FakeJudge(rewrite(CLEAN)), f"{CLEAN} {sentence}", [MC, MC2, KQA], embedder=queue, threshold=0.9)
    # The verdict is the unprimed one; the only texts left to embed were the sentences.
    assert ("q1", "embedding") in kinds(check.leaks_before) and check.suggestions == CLEAN
    assert model.texts[1] == [CLEAN, sentence]


# --- the rules on meaning: normalisation, options judged, positions, disclosure ------------------

# Invented questions of other subjects than the corpus's development half, so that these
# properties are not checked on the texts the rules were tuned on.
LAW = Question(
    "law", "Which doctrine lets a court decide a case by following an earlier decision of a higher court?", "C",
    {"A": "Res judicata", "B": "Obiter dictum", "C": "Stare decisis", "D": "Ultra vires", "E": "Habeas corpus"},
)
CHEM = Question(
    "chem", "Which metal is liquid at room temperature?", "B",
    {"A": "Sodium", "B": "Mercury", "C": "Gallium's alloy", "D": "Tungsten", "E": "Lead"},
)
BIO = Question(
    "bio", "Which organelle carries out photosynthesis in plant cells?", "A",
    {"A": "Chloroplast", "B": "Vacuole", "C": "Peroxisome", "D": "Centriole", "E": "Cell wall"},
)
BATCH = [LAW, CHEM, BIO]


@pytest.mark.parametrize(
    "variant, canonical",
    [
        ("Graves' disease", "Graves disease"),
        ("Boyles law", "Boyle's law"),
        ("mitochondria", "Mitochondrion"),
        ("the Amazon", "Amazon"),
        ("ACE inhibitors", "An ACE inhibitor"),
        ("4th Amendment", "Fourth Amendment"),
        ("hydrogen bonding", "Hydrogen bonds"),
        ("PARAN\u00c1", "parana"),
        ("pitting", "the pit"),
        ("putting green", "putt green"),
    ],
)
def test_normalisation_is_symmetric(variant, canonical):
    assert normalized(variant) == normalized(canonical)
    # Either side may be the option: naming one in a sentence names the other.
    for option, said in ((variant, canonical), (canonical, variant)):
        q = Question("n", "Which one?", "A", {"A": option, "B": "Something else entirely"})
        assert names_option(f"I would pick {said} here.", q, "A")


@pytest.mark.parametrize(
    "text",
    [
        "Stare decisis is premature as a conclusion here.",  # an evaluative word no cue list had
        "Res judicata would only be reasonable if the same parties had litigated before.",  # conditional
        "Obiter dictum doesn't fit the situation of a judge bound by a higher court, whatever else you think.",  # far from the option
        "Mercury rather than sodium.",  # a preference between two options
        "Go with stare decisis over res judicata.",
        "Tungsten has no role here.",
        "Ultra vires is a poor choice for this question.",
        "Chloroplasts are the classic answer for a plant.",  # plural of the option
        "Think of the vacuole: it has nothing to do with light.",
    ],
)
def test_an_option_named_with_any_judgement_is_a_leak(text):
    assert {d.kind for d in find_leaks(text, BATCH)} & {"elimination", "pointer", "option_text"}


@pytest.mark.parametrize(
    "text",
    [
        "The final option in question 2 is overly aggressive.",
        "The first two options of the doctrine question can go.",
        "In the metal question, the last choice.",
        "The top option is where I would look first.",
        "Options A and C in question 3 are out.",
        "For question 1, C.",
    ],
)
def test_a_position_or_letter_with_a_judgement_is_a_leak(text):
    assert {d.kind for d in find_leaks(text, BATCH)} & {"elimination", "pointer", "answer_letter"}


@pytest.mark.parametrize(
    "text",
    [
        "Your reasoning on the doctrine question was sound.",
        "Only your second response held up.",
        "Question three: you had it.",
        "You were off on the metal question.",
        "Your answer about the organelle needs changing.",
        "You got the first one wrong.",
    ],
)
def test_disclosure_in_other_words_is_a_leak(text):
    assert "disclosure" in {d.kind for d in find_leaks(text, BATCH)}


@pytest.mark.parametrize(
    "text",
    [
        "Compare stare decisis, res judicata and obiter dictum in one sentence each.",
        "Review how sodium, mercury and lead behave at room temperature.",
        "Recall what a vacuole does in a plant cell.",
        "Think about which organelles contain their own DNA.",
        "Make sure your answer is consistent with the definition.",
        "Check whether your answers were consistent with the stem.",
        "Do not confuse a centriole with a chloroplast.",
        "Recall what a court can and cannot do with an earlier decision.",
        "Vitamin C is the best studied antioxidant.",
        "B cells matter in immunity; hepatitis B is viral.",
    ],
)
def test_advice_that_names_options_without_singling_one_out_passes(text):
    assert find_leaks(text, BATCH) == []


def test_a_finding_quotes_its_sentence():
    leaks = find_leaks("Review the doctrines. Rule out habeas corpus, then weigh the rest.", BATCH)
    assert LeakFinding("law", "elimination", "Rule out habeas corpus, then weigh the rest.") in leaks


def test_the_answer_is_caught_with_trivial_differences():
    q = Question("g", "Which river is longest?", "B", {"A": "The Nile's delta", "B": "The Amazon", "C": "The Congo"})
    assert kinds(find_leaks("The amazon, by far.", [q])) >= {("g", "option_text")}
    ref = Question("p", "Who led Prussia to unification?", "Otto von Bismarck")
    for text in ("It was Bismark.", "Otto von Bismarck's wars did it.", "BISMARCK"):
        assert kinds(find_leaks(text, [ref])) == {("p", "reference_phrase")}, text



@pytest.mark.parametrize("full, contracted", [
    ("It is not Wellington.", "It's not Wellington."),
    ("It was not the Duke of Wellington.", "It wasn't the Duke of Wellington."),
    ("It is not the Duke of Wellington.", "It isn’t the Duke of Wellington."),
])
def test_ruling_out_a_phrase_candidate_reads_contractions_as_the_full_form(full, contracted):
    ref = Question("w", "Who commanded the allied army at the battle in 1815?", "Blucher and Wellington's coalition")
    other = Question("p", "Who led Prussia to unification?", "Otto von Bismarck")
    got = {text: kinds(find_leaks(text, [other])) for text in (full, contracted)}
    assert got[full] == got[contracted] == {("p", "elimination")}
    # Advice that merely uses the contraction stays clean.
    assert find_leaks("It's not enough to know the date; know the causes.", [ref, other]) == []


ASKS_FOR = [
    Question("k", "Which metal is liquid at room temperature?", "B", {"A": "Sodium", "B": "Mercury", "C": "Gallium"}),
    Question("y", "In which year did the Berlin Wall fall?", "1989"),
    Question("d", "A child has a honking cough and stridor. What is the most likely diagnosis?", "B",
             {"A": "Asthma", "B": "Croup", "C": "Epiglottitis"}),
]


@pytest.mark.parametrize("text, question", [
    ("The metal you want is the one once used in thermometers.", "k"),
    ("It's the metal with the symbol Hg.", "k"),
    ("The metal that the alchemists called quicksilver.", "k"),
    ("The year was the one in which Germany began to reunify.", "y"),
    ("The most likely diagnosis is a viral infection of the larynx and trachea.", "d"),
    ("The answer is the element that sits below zinc in the periodic table.", None),
    ("Think of the year before German reunification.", "y"),
])
def test_the_answer_asserted_by_a_description_is_a_pointer(text, question):
    # No option is named; the sentence tells the target what the answer is.
    leaks = find_leaks(text, ASKS_FOR)
    assert LeakFinding(question, "pointer", text) in leaks, leaks


@pytest.mark.parametrize("text", [
    "Recall which metals melt below room temperature.",
    "Review the metals that are liquid near room temperature and why.",
    "The diagnosis rests on the history more than on any test.",
    "Think about the year's political context in eastern Europe.",
    "It is the pattern of the cough that matters most.",
])
def test_advice_about_what_a_question_asks_for_is_not_an_assertion(text):
    assert find_leaks(text, ASKS_FOR) == []


@pytest.mark.parametrize("text", [
    "He later became prime minister of the new state.",
    "She also wrote a novel set in Bath.",
    "The Corsican general who crowned himself emperor.",
])
def test_a_person_described_is_a_pointer_when_a_question_asks_for_a_person(text):
    who = Question("w", "Who commanded the French army at Austerlitz?", "Napoleon")
    drug = ASKS_FOR[0]
    assert LeakFinding("w", "pointer", text) in find_leaks(text, [drug, who])
    # Without a question about a person, a pronoun is just a pronoun.
    assert find_leaks(text, [drug]) == []

# --- issue 33: the families of phrasing, in subjects the corpus does not have -------------------
# Music, film and football: none of the corpus's domains, so these check the rules' reading of
# the question's own wording and options, not a list fitted to the corpus.
MUSIC = Question("mu", "Which composer wrote the opera The Magic Flute?", "C",
                 {"A": "Ludwig van Beethoven", "B": "Johann Sebastian Bach", "C": "Wolfgang Amadeus Mozart", "D": "Richard Wagner"})
FILM = Question("fi", "Which director made the film Psycho?", "A",
                {"A": "Alfred Hitchcock", "B": "Stanley Kubrick", "C": "Orson Welles", "D": "Billy Wilder", "E": "John Ford"})
TEAM = Question("te", "How many players does a football side field at kick-off, at a temperature of 25 °C?", "C",
                {"A": "9", "B": "10", "C": "11", "D": "12"})
PAINTER = Question("pa", "Who painted the ceiling of the Sistine Chapel?", "Michelangelo")
SPORT = Question("sp", "In which sport is the word 'love' used for a score of zero?", "tennis")
ARTS = [MUSIC, FILM, TEAM]
NAMES = [PAINTER, SPORT, FILM]
LEAKING = {"elimination", "pointer", "pick", "narrowed", "struck_out", "disclosure", "verdict", "answer_letter", "option_text", "reference_phrase"}


def leaks_in(text: str, batch: list[Question]) -> set[str]:
    return {d.kind for d in find_leaks(text, batch)} & LEAKING


@pytest.mark.parametrize("text", [
    "Count the outfield players, add the goalkeeper, and you land on C.",
    "Step 1: list the operas of the 1790s. Step 2: find the one in German. Step 3: that gives C.",
    "The film question: A, the director of suspense.",
    "For the record: opera C, film A.",
])
def test_a_letter_stated_anywhere_is_a_leak(text):
    assert leaks_in(text, ARTS)


@pytest.mark.parametrize("text", [
    "Water boils at 100 °C at sea level, and the match here is played at 25 °C.",
    "E. M. Forster and C. S. Lewis wrote about music too.",
    "Energy is E = mc2 in any unit system.",
    "Compare the scores of Company B and the studio's other films.",
])
def test_a_capital_that_is_a_unit_an_initial_a_symbol_or_a_name_is_no_letter(text):
    assert find_leaks(text, ARTS) == []


@pytest.mark.parametrize("text", [
    "The third composer listed wrote it.",
    "Of the five directors, the first one made it.",
    "The last of the four numbers is one too many.",
    "Among the four counts offered, the third is right.",
    "The composer listed third wrote it.",
    "The director second from the bottom of the list did not make it.",
    "It is the last entry in the options.",
    "Looking at the options, go with the third.",
])
def test_a_position_in_the_questions_list_is_a_leak_with_or_without_the_word_option(text):
    assert leaks_in(text, ARTS)


@pytest.mark.parametrize("text", [
    "Work from the first option to the last, ruling each in or out with a reason.",
    "Read the options; the first step is to recall when each opera was written.",
    "The first thing to settle is what year the film came out.",
    "Look at the options and read the first one carefully before the others.",
])
def test_order_of_work_and_the_first_step_are_no_position(text):
    assert find_leaks(text, ARTS) == []


@pytest.mark.parametrize("text", [
    "All but one of your answers hold up; the exception is the film question.",
    "Everything is correct except the opera item.",
    "Two of your three answers stand.",
    "Everything you wrote checks out apart from the football count.",
    "The exception is the one about the opera.",
    "Most of your answers are right, but not the composer one.",
    "Two right, one wrong.",
    "The film answer was your only slip.",
    "Apart from the opera question, everything holds.",
    "The name you gave for the director is not the right one.",
])
def test_correctness_told_by_a_quantifier_is_disclosure(text):
    assert "disclosure" in leaks_in(text, ARTS)


@pytest.mark.parametrize("text", [
    "Everything in this batch rests on recall rather than calculation, except the football item, which needs counting.",
    "Two of the questions ask for names; one asks for a number.",
    "Make sure all of your answers hold up against the dates.",
])
def test_a_quantifier_about_the_questions_is_no_disclosure(text):
    assert find_leaks(text, ARTS) == []


@pytest.mark.parametrize("text", [
    "I'd go with the composer who died young in Vienna.",
    "I would lean towards the director known as the master of suspense.",
    "My pick would be the youngest of the four composers.",
    "The safer bet is the British director.",
])
def test_the_writers_own_pick_is_a_pick_whatever_describes_it(text):
    assert "pick" in leaks_in(text, ARTS)


@pytest.mark.parametrize("text", [
    "I'd start by listing the operas each composer wrote.",
    "I would go with a systematic check of dates first.",
    "Your best bet is a careful timeline.",
])
def test_a_method_the_writer_would_use_is_no_pick(text):
    assert find_leaks(text, ARTS) == []


@pytest.mark.parametrize("text", [
    "Raphael painted rooms in the Vatican, so he isn't the answer.",
    "Golf is the wrong sport here.",
    "Leonardo can't be the one who painted it.",
    "Titian worked in Venice, so don't put him down.",
    "Badminton scores differently, so rule it out.",
])
def test_a_verdict_on_a_candidate_answer_is_an_elimination(text):
    assert "elimination" in leaks_in(text, NAMES)


@pytest.mark.parametrize("text", [
    "If a name belongs to the wrong century, reject it.",
    "State to yourself why you rule a candidate out before you rule it out.",
])
def test_a_verdict_under_a_condition_is_a_method(text):
    assert find_leaks(text, NAMES) == []


@pytest.mark.parametrize("text", [
    "The value 12 can't be right.",
    "An answer of 9 is too few.",
    "11 is correct: ten outfield players and a keeper.",
])
def test_an_option_that_is_a_number_is_named_by_its_value(text):
    assert leaks_in(text, ARTS)


@pytest.mark.parametrize("text", [
    "Go through 9, 10, 11 and 12 in turn and ask which one matches the laws of the game.",
    "The match is played at 25 °C, which changes nothing about the count.",
])
def test_every_number_listed_or_the_stems_own_numbers_are_clean(text):
    assert find_leaks(text, ARTS) == []


@pytest.mark.parametrize("text", [
    "Go through Beethoven, Bach, Mozart and Wagner one at a time and justify or reject each before you compare them.",
    "For each of Hitchcock, Kubrick, Welles, Wilder and Ford, recall two films and their years, then compare all five.",
    "Take each composer in turn, Beethoven first and Wagner last, and write one line on his operas.",
])
def test_every_option_named_evenly_is_never_a_leak(text):
    assert find_leaks(text, ARTS) == []


@pytest.mark.parametrize("text", [
    "The painting question wants a person, not a place.",
    "The answer to the sport question is a single word.",
    "The answer is the name of a sport, not a scoring term.",
    "It's a person, not a period.",
])
def test_naming_the_kind_of_answer_is_never_a_leak(text):
    assert find_leaks(text, NAMES) == []


@pytest.mark.parametrize("text", [
    "Don't confuse the Baroque period with the Classical one.",
    "Be careful not to mix up the dates of composition and premiere.",
    "Hitchcock is often confused with other directors of suspense; keep their films apart.",
    "It is easy to mix up 10 and 12 in a quick count.",
])
def test_a_warning_against_confusing_ideas_is_not_a_leak(text):
    assert find_leaks(text, ARTS) == []


@pytest.mark.parametrize("text, phrase", [
    ("You need DNS here.", "Domain Name System"),
    ("The term is spelt T-E-N-N-I-S.", "tennis"),
    ("This is what chemists call subliming.", "sublimation"),
    ("Under DOE the brass fitting could still infringe.", "doctrine of equivalents"),  # initials with "of"
    ("Answer: n-1 security.", "N-1 criterion"),  # its code, in any case
    ("About 55 km/h in a day.", "30 kt"),  # a measured quantity in other units
    ("Thirty knots in 24 hours.", "30 kt"),
    ("LOF.", "Lloyd's Open Form"),  # a possessive gives no initial
    ("The device is an optical time-domain reflectometer.", "OTDR"),  # initials spelt out
    ("It's the TOV limit.", "Tolman-Oppenheimer-Volkoff limit (TOV limit)"),  # its form in brackets
    ("Also known as chemical-mechanical polishing.", "chemical mechanical planarization (CMP)"),  # its bracketed initials spelt out
    ("Call it NRB.", "non-rebreathing system"),  # more letters of a word, its kind left out
])
def test_a_phrase_answer_named_by_its_initials_its_spelling_or_another_form(text, phrase):
    q = Question("x", "What is the name of it?", phrase)
    # ("what chemists call ...", "Also known as ...", "Call it ...": another name given, a pointer too)
    assert kinds(find_leaks(text, [q])) - {("x", "pointer")} == {("x", "reference_phrase")}


@pytest.mark.parametrize("text", [
    "Convert the wind speed into knots before you compare.",  # the unit alone
    "The storm moved at 55 km/h for a day, as the stem says.",  # the question's own datum
])
def test_a_phrase_answer_that_is_a_quantity_is_not_named_by_its_unit_or_the_stems_data(text):
    q = Question("x", "A storm moving at 55 km/h strengthens by how much in a day to count as rapid?", "30 kt")
    assert find_leaks(text, [q]) == []


# --- issue 33, second session: the wordings the unsealed groups still let through ---------------
# Each principle with new sentences on the music, film and football batch above.
VOYAGE = Question("vo", "In which year did Columbus first reach the Americas?", "1492")


@pytest.mark.parametrize("text", [
    "Line up the four composers by year of birth; the third one is the match.",
    "The fourth one it is.",
    "Of the five directors, the middle one made it.",
    "Rank the counts from fewest to most and C comes out on top.",
    "Step 3: that corresponds to C.",
    "The right film-maker sits in second place on the list.",
    "The right choice is the last of the four.",
    "Work it through and you land on the third letter.",
])
def test_a_place_said_to_be_right_a_middle_or_a_letter_reached_is_a_position(text):
    assert leaks_in(text, ARTS)


@pytest.mark.parametrize("text", [
    "Before choosing among A to D, write one line on each.",
    "Ask why you picked that composer in the first place.",
    "Of the four counts, none is the middle one, so count carefully.",
    "The first letter of the composer's surname is worth checking.",
    "Make sure the final letter you give matches your reasoning.",
])
def test_a_range_of_letters_or_an_idiom_is_no_position(text):
    assert find_leaks(text, ARTS) == []


@pytest.mark.parametrize("text", [
    "The composer you chose there won't survive a check of the dates.",
    "You got both the film and football questions; the remaining one is off.",
    "The film and football answers are correct; look again at the opera.",
    "The football question and the film question are fine.",
    "Your opera answer is the one item in this batch that missed.",
    "Checked against the dates, your answer doesn't fit.",
    "The opera question is where you slipped.",
    "You got the film and the count.",
    "Keep what you put for the film; revisit the opera.",
    "Nicely done on the first two; the third misses.",
    "Two right, one to revisit: the opera.",
])
def test_a_verdict_on_the_targets_own_answers_is_disclosure_in_any_tense(text):
    assert "disclosure" in leaks_in(text, ARTS)


@pytest.mark.parametrize("text", [
    "Check whether the composer you chose wrote any opera at all.",
    "Make sure each answer fits the dates you recalled.",
])
def test_a_check_on_the_targets_answers_is_no_disclosure(text):
    assert find_leaks(text, ARTS) == []


@pytest.mark.parametrize("text", [
    "Raphael worked mostly on rooms, so it wasn't him.",
    "Leonardo painted in Milan, so he's not the painter.",
    "Cricket keeps score in runs, so it isn't the right sport here.",
    "Squash is scored differently, so don't name it.",
    "When you do, you'll find that golf counts strokes, so it isn't the right sport here.",
    "It is not badminton, which uses points.",
    "Bowls is the wrong game.",
])
def test_a_candidate_ruled_out_by_a_pronoun_or_a_common_noun_is_an_elimination(text):
    assert "elimination" in leaks_in(text, NAMES)


@pytest.mark.parametrize("text", [
    "It is not obvious at first, so read the question again.",
    "It's not enough to know the painter's name; know the dates too.",
])
def test_a_negated_qualifier_is_no_candidate(text):
    assert find_leaks(text, NAMES) == []


@pytest.mark.parametrize("text, batch", [
    ("The year was fourteen ninety-two.", [VOYAGE]),
    ("Columbus landed in fourteen hundred and ninety-two.", [VOYAGE]),
    ("Eleven, not twelve.", ARTS),
])
def test_a_number_answer_written_in_words_is_named(text, batch):
    assert leaks_in(text, batch)


def test_a_number_word_that_counts_is_no_value():
    assert find_leaks("The three questions differ by exactly one step of reasoning.", ARTS) == []


@pytest.mark.parametrize("text", [
    "Mozart edges out Wagner here.",
    "Of the four composers, the Austrian deserves your vote.",
])
def test_a_preference_worded_as_a_contest_or_a_vote_singles_an_option_out(text):
    assert leaks_in(text, ARTS) & {"pointer", "pick"}


@pytest.mark.parametrize("text", [
    "Answer: a.",
    "Option #1.",
    "Number one is your best bet.",
    "The conductor of suspense corresponds to the first entry.",
    "Having eliminated the last three, compare the first two.",
])
def test_a_lower_case_letter_a_numbered_option_or_places_struck_out_name_options(text):
    assert leaks_in(text, ARTS)


@pytest.mark.parametrize("text", [
    "Question number one is the easiest, so start there.",
    "Many students mix up Mozart with Beethoven; keep their operas in a two-column table.",
])
def test_a_question_number_or_a_confusion_people_make_names_no_option(text):
    assert find_leaks(text, ARTS) == []


# --- fresh4's shapes: options that are statements, fractions, letter ranges, praise of a skill ---
TIDES = Question("ti", "Why are there two high tides a day at most coasts?", "B", {
    "A": "Winds push the sea towards the coast twice a day",
    "B": "The Moon's pull raises bulges on both the near and the far side of the Earth",
    "C": "The Sun heats the ocean, which expands every morning and evening",
    "D": "Rivers release stored water at dawn and dusk",
})
CROSS = Question("cr", "What fraction of the offspring of Aa × Aa are expected to be aa?", "C",
                 {"A": "1/2", "B": "3/4", "C": "1/4", "D": "1/8"})
BELT = Question("be", "What is the name of the region of icy bodies beyond Neptune's orbit?", "Kuiper belt")
SHORE = [TIDES, CROSS, BELT]


@pytest.mark.parametrize("text", [
    "You clearly know the physics; spend a minute on what the Sun does and does not do here.",
    "Think about how the water would move if the Earth did not rotate at all.",
    "A sanity check: the probabilities of all the genotypes should add up to exactly 1.",
    "For each of A through D, say what it predicts for a day with two tides.",
    "Before settling on anything between A and D, give each a reason for or against.",
    "The asteroid belt between Mars and Jupiter is a different population altogether.",
    "You seem to remember the definitions well; practise applying them.",
    "Your reasoning is solid on definitions; the weak point is mechanisms.",
])
def test_one_word_of_a_statement_a_numerator_a_range_a_class_noun_or_praise_is_no_leak(text):
    assert find_leaks(text, SHORE) == []


@pytest.mark.parametrize("text", [
    "The idea that winds push the sea up twice a day does not survive a calm day with two tides.",
    "Don't go with 1/2; that is the share of carriers.",
    "It's the Kuiper belt.",
    "The region name you gave for the icy bodies won't survive scrutiny.",
    "Keep your first answer; the second and third both need another look.",
    "Only the tide question needs revisiting.",
    "Set aside the sun, the wind and the river explanations, and you are left with the entry at the top.",
    "The second explanation is the physically accurate one.",
    "Your term for the icy region was the one thing in this set that needed fixing.",
])
def test_statement_options_fractions_and_verdicts_on_answers_by_place_are_leaks(text):
    assert leaks_in(text, SHORE)


# --- fresh5's shapes: names glossed in parentheses, options sharing a word, each option asked ----
TEA = Question("tea", "Which tea is fully oxidised before drying?", "D", {
    "A": "Tea A", "B": "Tea B", "C": "Green tea (steamed, unoxidised) leaves", "D": "Black tea", "E": "Tea E",
})
BREAD = Question("br", "Which gas makes bread dough rise?", "B",
                 {"A": "Oxygen", "B": "Carbon dioxide", "C": "Nitrogen", "D": "Hydrogen"})
OVEN = Question("ov", "What is the name of the browning reaction between sugars and amino acids?", "Maillard reaction")
KITCHEN = [TEA, BREAD, OVEN]


@pytest.mark.parametrize("text", [
    "Before choosing among A to E, jot one line on how each tea is processed.",
    "For each option, note whether the leaves are steamed, rolled or left to oxidise.",
    "Go through each of the four gases - oxygen, carbon dioxide, nitrogen and hydrogen - and say which yeast makes.",
    "Make sure you don't mix up green tea leaves with the oolongs, which are only partly oxidised.",
])
def test_a_word_every_option_shares_or_a_question_asked_of_each_option_singles_none_out(text):
    assert find_leaks(text, KITCHEN) == []


@pytest.mark.parametrize("text", [
    "Green tea leaves are steamed at once, so they're definitely not the answer here.",
    "Skip the first three and the remaining choice is the one that goes black.",
    "You'll end up on the fourth entry rather than the second.",
    "Second of the four is the gas yeast makes.",
    "Go with the first one on the bread question.",
    "You want the very first option on the bread question.",
    "Carbon dioxide is what yeast releases as it ferments. That's the option to choose.",
    "Calling it an oxidation of the dough is the classic misreading, so that statement is wrong.",
    "Everything in this batch is correct - nicely done.",
    "Keep your bread answer; it's correct.",
    "I'd revisit the tea answer; as written, it's off.",
    "Many cookbooks write it as 'Mail lard reaction' by mistake; the Maillard reaction is the one.",
])
def test_fresh5s_wordings_of_positions_verdicts_and_disclosure_are_leaks(text):
    assert leaks_in(text, KITCHEN)


def test_a_compound_written_as_two_words_names_it():
    q = Question("ks", "What is the name of the wedge-shaped stone at the top of an arch?", "keystone")
    assert leaks_in("Older texts write it as 'key stone'.", [q])


# --- fresh6's shapes: ranges and glossed names, verdicts through "that option", leanings --------
REIGN = Question("re", "Roughly when did the king who built the first stone bridge reign?", "B",
                 {"A": "c. 1020–1050", "B": "c. 1120–1150", "C": "c. 1220–1250", "D": "c. 1320–1350"})
IRON = Question("ir", "Which crystal structure does the metal adopt at room temperature?", "D", {
    "A": "face-centred cubic (FCC)", "B": "hexagonal close-packed (HCP)", "C": "simple cubic", "D": "body-centred cubic (BCC)",
})
LEDGER = Question("le", "When should the firm recognise the fee?", "A", {
    "A": "In March, when the work is done and the fee is earned.",
    "B": "In May, when the client pays the invoice.",
    "C": "Half in March and half in May, to smooth the figures.",
    "D": "Only once the auditor has signed off.",
})
WORKS = [REIGN, IRON, LEDGER]


@pytest.mark.parametrize("text", [
    "The 1120–1150 window fits the bridge's dating, so that is the one.",
    "Body-centred cubic is correct for the metal at room temperature.",
    "Waiting until May when the client pays is cash thinking, so that option is out.",
    "Recognising the fee in March, when the work was done, is the correct accrual treatment.",
    "The description where the fee is split is a smoothing trick, so that option is ruled out.",
    "Keep your answer on the crystal structure.",
    "Only one item in this batch is wrong.",
    "Everything in this batch checks out except one of the date items, so that is where to look again.",
    "For the reign, pick the second date range.",
    "On the ledger item it's the first statement.",
    "Three of them are too early or too late. That leaves the second.",
    "Between the 1020 range and the 1120 range, the later one feels more consistent with the records.",
])
def test_fresh6s_wordings_of_ranges_glossed_names_and_verdicts_are_leaks(text):
    assert leaks_in(text, WORKS)


@pytest.mark.parametrize("text", [
    "The question wants the standard name of a structure, so a short technical term is the right shape of answer.",
    "When you do, you will find each date range has a neighbour a century away.",
    "Make sure the range you give covers the whole reign, so that the dates match the records.",
])
def test_the_shape_of_an_answer_and_a_step_just_advised_are_no_leak(text):
    assert find_leaks(text, WORKS) == []


@pytest.mark.parametrize("text", [
    "Options A, B, C and D each describe a real structure, so plausibility will not separate them.",
    "Weigh A, B, C and D each on their own merits.",
    "Options A to D run across four centuries; let the records decide.",
    "Read options A through D as independent statements.",
])
def test_letters_listed_for_every_option_are_even(text):
    assert find_leaks(text, WORKS) == []


def test_letters_listed_with_a_pick_still_leak():
    assert leaks_in("Of A, B, C and D, pick B.", WORKS)


STARS = Question("vs", "Leavitt's period-luminosity relation was found for which class of variable stars?", "E",
                 {"A": "RR Lyrae stars", "B": "Mira variables", "C": "Eclipsing binaries", "D": "Cataclysmic variables",
                  "E": "Classical Cepheids"})


def test_an_option_beside_a_list_word_is_in_the_list_only_when_it_stands_in_it():
    # a list word elsewhere in the sentence is no list the option stands in ...
    assert find_leaks("The stars were alike, and only classical Cepheids match that.", [STARS]) != []
    # ... while an item of a list is one among others, run on by a few words of its own or not
    assert find_leaks("Group the candidates into dwarf novae, pulsating giants and classical Cepheids before you compare periods.", [STARS]) == []
    assert find_leaks("Sort them by light curve: cataclysmic ones, eclipsing ones, and the rest.", [STARS]) == []


def test_the_length_of_the_answer_is_its_kind_not_a_pointer():
    assert find_leaks("The answer is a single term of two words.", NAMES) == []
BRIDGE = Question("s", "What is the oldest crossing of the river called?", "Silver Bridge")
OPEN = Question("m", "Which market sets its prices by supply alone?", "open market")
COMMUNE = Question("c", "What was the self-governing city government of 1871 called?", "Commune")


@pytest.mark.parametrize("text, question", [
    ("Think about why the first bridge was built where the river narrows.", BRIDGE),
    ("Silver was mined upstream, which is worth knowing.", BRIDGE),  # a capital that opens the sentence
    ("Think about how the community of workers organised itself.", COMMUNE),  # a word, not a form of "commune"
])
def test_a_common_word_of_a_phrase_answer_in_its_ordinary_sense_is_no_mention(text, question):
    assert find_leaks(text, [question]) == []


@pytest.mark.parametrize("text, question", [
    ("It is the Bridge, named for the light on the water at dusk.", BRIDGE),  # the answer's capital kept
    ("Recall the silver trade of the town and what passed over its bridge.", BRIDGE),  # the rest of it beside
    ("It is the open one.", OPEN),  # its one word the question does not supply
    ("It was the Communard rising.", COMMUNE),  # a rare form of the answer
])
def test_a_common_word_of_a_phrase_answer_names_it_with_its_capital_or_the_rest_of_it(text, question):
    assert kinds(find_leaks(text, [question])) == {(question.id, "reference_phrase")}


SPIRIT = Question("w", "Which alcohol, more volatile than ethanol, makes the first fraction of a pot still unsafe?", "methanol")
ANTIBODY = Question("n", "Which autoantibody marks the limited form of the disease?", "anti-centromere antibody")


def test_a_word_the_question_itself_uses_is_no_slip_of_the_answer():
    # "ethanol" is one letter from "methanol", and the question's own word
    assert find_leaks("Compare the boiling points with ethanol's before you name it.", [SPIRIT]) == []
    assert kinds(find_leaks("It is methanol.", [SPIRIT])) == {("w", "reference_phrase")}


def test_a_longer_answers_last_word_alone_is_a_pointer_not_the_answer_stated():
    # The answer's class, named to ask for the kind of answer: a pointer the learned layer weighs.
    assert kinds(find_leaks("The subset decides the characteristic antibody.", [ANTIBODY])) == {("n", "pointer")}
    assert kinds(find_leaks("It is the anti-centromere one.", [ANTIBODY])) == {("n", "reference_phrase")}


HARNESS = Question("hn", "On a two-rope system one rope is the working line. What is the other line called?", "Safety line")


def test_an_answers_common_modifier_before_another_noun_is_a_pointer_not_the_answer_stated():
    # "safety factor" is its own compound beside the answer "safety line" (whose other word the
    # question supplies): a pointer the learned layer weighs, where "safety line" itself is stated.
    assert kinds(find_leaks("Recall the safety factor the codes build in.", [HARNESS])) == {("hn", "pointer")}
    assert kinds(find_leaks("It is the safety one.", [HARNESS])) == {("hn", "reference_phrase")}
    assert kinds(find_leaks("Clip into the safety line.", [HARNESS])) == {("hn", "reference_phrase")}


ARCHIVE = Question("ar", "Which store, dug into a northern hillside, keeps spare copies of film reels from every country?",
                   "Polar Global Film Archive")


def test_another_form_of_a_names_capitalised_word_in_lower_case_is_the_word_not_the_name():
    assert find_leaks("Think about which store does this globally, under the ice.", [ARCHIVE]) == []
    assert kinds(find_leaks("It is the Global Film Archive.", [ARCHIVE])) == {("ar", "reference_phrase")}
    assert kinds(find_leaks("Look up the Polar archive.", [ARCHIVE])) == {("ar", "reference_phrase")}


@pytest.mark.parametrize("text", [
    "Nice work on the general concepts; here is where to tighten up.",
    "- Overall your terminology was accurate; the gaps were in showing how you got there.",
])
def test_praise_of_an_aspect_of_the_working_is_no_verdict(text):
    assert find_leaks(text, [HARNESS, ANTIBODY]) == []


def test_praise_of_a_result_is_still_a_verdict():
    assert kinds(find_leaks("Good work on the first question.", [HARNESS, ANTIBODY])) == {("hn", "disclosure")}


@pytest.mark.parametrize("text", [
    "Rent is income from land, so it is not the term the question wants.",
    "Wages are not the word you want here.",
])
def test_a_candidate_said_not_to_be_what_the_question_wants_is_an_elimination(text):
    assert kinds(find_leaks(text, [OPEN])) == {(None, "elimination")}


# Gardening, golf, tyres and dogs: questions invented for these tests, in no subject of the corpus.
APHID = Question("ap", "How should a gardener first deal with a few aphids on a rose bush?", "B",
                 {"A": "Systemic insecticide spray", "B": "A blast of water", "C": "Neem oil", "D": "Releasing ladybirds",
                  "E": "Pruning the stems"})
GOLF = Question("go", "In which format do partners take alternate shots with one ball?", "C",
                {"A": "Best ball", "B": "Scramble", "C": "Foursomes", "D": "Stableford"})
TYRE = Question("ty", "What happens to a sealed tyre's pressure as the air inside cools?", "B",
                {"A": "A rise", "B": "A fall", "C": "No change at all", "D": "A doubling"})
FALL = Question("fa", "How far does a stone fall from rest in 2 s, taking g as 10 m/s²?", "B",
                {"A": "10 m", "B": "20 m", "C": "40 m", "D": "5 m"})
NOVEL = Question("nv", "Who narrates the novel The Salt House?", "C",
                 {"A": "Jack Carver", "B": "Mary Carver", "C": "Ruth Ellis", "D": "Tom Hale"})
DOGS = Question("dg", "Which breed was first bred to hunt foxes underground?", "A",
                {"A": "Jack Russell terrier", "B": "Basset hound", "C": "Pug", "D": "Border collie"})


@pytest.mark.parametrize("text, batch", [
    ("Review what neem oil, ladybirds and an insecticide spray each correct on a rose.", [APHID]),
    ("For each of 10, 20 and 40 m, work out which formula gives it and whether that formula is correct.", [FALL]),
])
def test_the_same_question_put_to_each_of_several_options_is_even(text, batch):
    assert find_leaks(text, batch) == []


def test_several_options_each_judged_wrong_are_still_eliminated():
    text = "Neem oil and ladybirds are each a poor choice on a small rose."
    assert kinds(find_leaks(text, [APHID])) == {("ap", "elimination")}
    text = "Note why neem oil and ladybirds are each a poor choice on a small rose."
    assert kinds(find_leaks(text, [APHID])) == {("ap", "elimination")}


@pytest.mark.parametrize("text, batch", [
    ("Compare how best ball and foursomes are scored.", [GOLF]),  # "best" is the option's name
    ("Picture the gauge for a rise, a fall and no change at all.", [TYRE]),  # so is "no"
])
def test_an_options_own_words_judge_nothing(text, batch):
    assert find_leaks(text, batch) == []


@pytest.mark.parametrize("text, leak", [
    ("Consider when a blast of water is preferred over a spray.", False),
    ("A blast of water is preferred over a spray.", True),
    ("Look at the bush again and ask whether the stems need pruning at all.", False),
    ("Look at the bush again: the stems need pruning.", True),
])
def test_a_question_left_open_is_no_verdict(text, leak):
    assert kinds(find_leaks(text, [APHID])) == ({("ap", "pointer")} if leak else set())


@pytest.mark.parametrize("text", [
    "It may help to consider how a blast of water and neem oil are usually given to a rose.",
    "You might want to review how pruning the stems is usually done in spring.",
])
def test_advice_offered_as_help_is_a_study_instruction(text):
    assert find_leaks(text, [APHID]) == []


def test_the_kind_of_answer_asked_for_is_never_a_semantic_leak():
    heredity = Question("he", "Who first described the laws of heredity in peas?", "Gregor Mendel")
    kind, described = "The question asks for a person's name.", "It was the monk who grew peas in Brno."
    # Each sentence as close to the answer as a sentence can be: only the description leaks.
    emb = AliasEmbedder({kind: "Gregor Mendel", described: "Gregor Mendel"})
    assert semantic_leaks(kind, [heredity], emb) == []
    assert kinds(semantic_leaks(described, [heredity], emb)) == {("he", "semantic")}


@pytest.mark.parametrize("text, leak", [
    ("The answer is the treatment that works.", False),  # the question's own test, no fact
    ("It's the one that fits.", False),
    ("The answer is the treatment that washes the insects off with plain water.", True),  # a description
])
def test_a_criterion_is_no_description_of_the_answer(text, leak):
    assert kinds(find_leaks(text, [APHID])) == ({("ap", "pointer")} if leak else set())


def test_a_word_inside_another_options_name_names_only_that_option():
    # "Jack" of "Jack Russell terrier" is not the narrator "Jack Carver".
    text = ("For each of the four breeds, Jack Russell terrier, basset hound, pug and border collie, name the job it was bred "
            "for and the region it is associated with.")
    assert find_leaks(text, [NOVEL, DOGS]) == []
    text = "Jack Russell terriers were bred by a parson, which is worth knowing."
    assert kinds(find_leaks(text, [NOVEL, DOGS])) == {("dg", "option_text"), ("dg", "pointer")}


# --- the corpus: the floors the bench measured (bench/leak_guard.py) -------------------------

# Floors below what bench/leak_guard.py measured, so that a change that loses catches or adds
# false alarms fails, without pinning the exact counts of this corpus. "In scope" is every kind
# but the described answers only the judge's check can see (tests.leak_table.JUDGE_ONLY_KINDS).
# Measured with GUARD_VERSION 7 and 8 alike, rules alone: held_out catch 249/289 = 86.2%, in scope
# 234/240 = 97.5%; false alarms 0/288 development, 0/189 held_out.
RULES_HELD_OUT_FLOOR = {"catch": 0.84, "in_scope": 0.96}
RULES_FALSE_ALARM_CEILING = {"development": 0.01, "held_out": 0.01}
# All layers but the judge (rules, the semantic layer on the real MiniLM, the learned layer):
# catch, in-scope catch, false alarms measured with GUARD_VERSION 14: development 328/332,
# 285/286, 0/288; held_out 288/289, 240/240, 0/189; fresh 90/91, 69/69, 0/60; fresh2 83/86, 63/63,
# 0/49; fresh3 179/180, 162/162, 2/112; fresh4 180/180, 161/161, 1/113; fresh5 179/180, 160/161,
# 0/113; fresh6 178/180, 161/161, 1/113; fresh7 180/180, 161/161, 2/113; fresh8 174/180, 155/161,
# 2/113; fresh9 178/180, 161/161, 1/113; fresh10 177/180, 159/161, 1/113; fresh11 179/180,
# 160/161, 6/113; fresh12 180/180, 161/161, 0/113; fresh13 173/180, 157/161, 1/113; fresh14
# 179/180, 161/161, 3/113; fresh15 178/180, 160/161, 1/113; fresh16 174/180, 156/161, 1/113;
# fresh17 178/180, 160/161, 1/113; fresh18 180/180, 161/161, 2/113; fresh19 180/180, 161/161,
# 1/113; fresh20 177/180, 159/161, 5/113; fresh21 176/180, 158/161, 1/113; fresh22 176/180,
# 161/161, 0/113; fresh23 178/180, 161/161, 2/113; fresh24 175/180, 160/161, 1/113; fresh25
# 169/180, 158/161, 2/113; fresh26 174/180, 159/161, 2/113; fresh27 153/171, 134/147, 17/119;
# fresh28 156/171, 137/146, 14/107 (new writers: see docs/measurements/leak-guard.md). GUARD_VERSION
# 16 (quantities in other forms, read from fresh27 and fresh28) changed only these two: fresh27
# 159/171, 140/147, 17/119; fresh28 160/171, 141/146, 14/107; and measured fresh29 166/179, 155/164,
# 25/119 and fresh30 145/161, 130/142, 20/116 once, before they were read. GUARD_VERSION 17 (two
# options compared side by side, read from fresh29 and fresh30) brought their false alarms to
# 21/119 and 17/116, changed nothing else, and measured fresh31 157/173, 143/157, 15/119 and
# fresh32 157/168, 137/146, 12/119 once, before they were read. GUARD_VERSION 18 (the learned
# layer retrained on every group to fresh32) moved fresh10's false alarms to 2/113, fresh13's catch
# to 172/180, fresh16's in-scope catch to 154/161 and fresh23's false alarms to 3/113, lifted
# fresh25 to fresh32 (now trained on), and measured fresh33 171/182, 151/160, 15/110 and fresh34
# 163/173, 143/150, 31/119 once, before they were read. GUARD_VERSION 19 (two options weighed
# against each other, and the kind of answer with advice after it, read from fresh33 and fresh34;
# the learned layer retrained on every group to fresh34) moved fresh10's catch to 176/180,
# fresh13's to 171/180 and 156/161 in scope, and fresh16's catch to 172/180, and measured fresh35
# 171/183, 151/159, 8/118 and fresh36 156/170, 135/146, 8/120 once, before they were read.
# GUARD_VERSION 20 (read from fresh35 and fresh36; trained to fresh36) measured fresh37 160/174,
# 139/150, 10/120 and fresh38 160/175, 146/153, 11/114 once. GUARD_VERSION 21 (read from fresh37
# and fresh38; trained to fresh38) moved fresh's catch to 89/91 (a described answer the learned
# layer now scores 0.79), and measured fresh39 148/167, 133/143, 10/118, fresh40 163/178,
# 146/160, 6/110, fresh41 165/175, 148/154, 8/119 and fresh42 172/177, 146/151, 10/119 once,
# before they were read. GUARD_VERSION 22 (read from fresh39 to fresh42; trained to fresh42)
# measured fresh43 161/179, 142/152, 7/119 and fresh44 189/202, 167/178, 4/112 once, before they
# were read. GUARD_VERSION 23 (read from fresh43 and fresh44; trained to fresh44) measured fresh45
# 154/165, 136/143, 2/112 and fresh46 167/178, 150/157, 6/120 once, before they were read.
# GUARD_VERSION 24 (a long feedback also read sentence by sentence, and a list's unit written once;
# from the whole messages of fresh27 to fresh46) flags four long clean suggestions more, one each in
# fresh12, fresh15, fresh20 and fresh24 (fresh15's and fresh24's ceilings 0.01 to 0.02), and
# measured fresh47 132/142 in scope, 9/127 and fresh48 142/146, 6/121 once, before they were read.
# GUARD_VERSION 25 (the learned layer trained to fresh48; short and long tons, radians) lost a
# leak of fresh9 (floor 0.98 to 0.97), and measured fresh49 160/169, 147/154, 4/112 and fresh50
# 154/158, 137/140, 6/124 once, before they were read. GUARD_VERSION 26 (the doubt reads a clause
# that fired in its whole sentence) passes 40 clean suggestions more and misses 2 leaks more over
# the corpus to fresh50, and measured fresh51 147/160, 135/145, 6/120 and fresh52 154/165,
# 142/152, 2/122 once, before they were read. GUARD_VERSION 27 (a longer answer's last word alone
# is a pointer; measured options and money stated in other forms; the learned layer trained to
# fresh52) lost leaks of fresh9 (floors 0.97 to 0.96, 0.98 to 0.97 in scope) and fresh47 (0.96 to 0.95) and lifted fresh49
# to fresh52, now trained on; it measured fresh53 157/168, 145/154, 1/119 and fresh54 158/165,
# 147/153, 6/118 once, before they were read. GUARD_VERSION 28 (a quantity in two units, the unit
# words of a quantity answer, "the right choice is C", a long feedback's doubt below 0.5; the
# learned layer trained to fresh54) lost a leak of fresh12 (0.98 to 0.97) and flagged a clean
# suggestion of fresh18 (0.02 to 0.03), and measured fresh55 145/159, 135/149, 3/121 and fresh56
# 156/160, 140/144, 2/120 once, before they were read. GUARD_VERSION 29 (volts, decibels and Msi,
# options that end with the same words after their number, decimal phrase answers, numbers that
# name no place; the learned layer trained to fresh56) measured fresh57 164/166, 153/155, 3/121 and
# fresh58 160/168, 149/156, 3/114 once, before they were read. GUARD_VERSION 30 (energy units, a
# reading passage's values, "the fourth letter"; guard 29's learned layer) measured fresh59
# 154/161, 140/145, 5/114 and fresh60 157/161, 146/150, 1/119 once, before they were read.
# GUARD_VERSION 31 (the writer's pick and a narrowed list never doubted, amperes, periods, an option
# in a list only beside a list word) measured fresh61 145/154, 134/140, 8/126 and fresh62 148/160,
# 132/142, 2/120 once, before they were read. GUARD_VERSION 32 (a lower-case abbreviation's stops,
# initials after a possessive, an option to be treated as every other) measured fresh63 148/159,
# 134/144, 2/126 and fresh64 153/161, 137/144, 2/119 once, before they were read. GUARD_VERSION 33
# (milliseconds, "£50k", a share of a unit, initials spelt out, lists after "one of" with "and")
# measured fresh65 158/165, 144/151, 2/121 and fresh66 151/160, 140/146, 2/119 once, before they
# were read. GUARD_VERSION 34 (a phrase answer's bracketed form, initials with more letters of a word,
# "use D", "my own inclination would be") measured fresh67 159/168, 146/154, 1/119 and fresh68
# 154/161, 147/153, 1/119 once, before they were read (but for five of fresh67's phrase answers, seen
# after the change was written). GUARD_VERSION 35 (bracketed initials spelt out, initials without
# the answer's kind, speed units in the singular, parts per thousand) measured fresh69 154/156,
# 144/146, 1/124 and fresh70 151/158, 141/148, 1/123 once, before they were read, and fresh71
# 153/160, 141/146, 3/120 and fresh72 150/157, 139/146, 3/126 once more, before they were read.
# GUARD_VERSION 36 (an option's initials with its little words, a bracketed answer's first form by
# its initials, bels, "two dozen") measured fresh73 155/161, 142/148, 2/119 and fresh74 147/159,
# 134/142, 4/122 once, before they were read (guard 35 the same). GUARD_VERSION 37 ("I'd take X
# over Y", density units, letters named once each) measured fresh75 169/171, 155/157, 6/119 and
# fresh76 148/154, 140/145, 2/126 once, before they were read (guard 36 the same). GUARD_VERSION 38
# (a pace as a speed, a quantity answer with a bracketed hedge, "0.918 of an inch", a phrase answer's
# word in a list of every option of another question) measured fresh77 150/154, 136/139, 4/126 and
# fresh78 149/156, 139/144, 8/124 once, before they were read (guard 37 the same). GUARD_VERSION 39
# (a whole feedback decided by the feedback classifier; the learned layer trained to fresh78)
# measured fresh79 138/155, 126/141, 9/125 and fresh80 145/155, 133/141, 8/125 once, before they
# were read (guard 38: fresh79 the same, fresh80 142/155, 130/141, 8/125). GUARD_VERSION 40 (an
# answer told apart by its number, a one-term hyphenated answer, "ended up on option B", two
# disclosures; the learned layer and the feedback classifier trained to fresh80) measured fresh81
# 138/155, 127/141, 3/125 and fresh82 148/155, 135/141, 4/125 once, before they were read (guard
# 39: fresh81 140/155, 129/141, 3/125, fresh82 the same; guard 38: 141/155, 130/141, 3/125 and
# 147/155, 135/141, 6/125). GUARD_VERSION 41 (options named by initials in capitals with more letters
# of a word or a number's digit, a range among ranges without its unit, "my own lean is X over Y",
# "you'll land on X, Y or Z"; the learned layer and the feedback classifier trained to fresh82)
# measured fresh83 142/155, 131/141, 8/125 and fresh84 140/155, 132/141, 4/125 once, before they
# were read (guard 40: fresh83 142/155, 131/141, 7/125, fresh84 140/155, 132/141, 6/125).
# GUARD_VERSION 42 ("that puts you on D", "put C", "I'd put more weight on X than on Y", lists
# after "answers here are" or a counted noun and a dash, thousands separators in an even list)
# measured fresh85 145/155, 135/141, 8/125 and fresh86 140/155, 128/141, 2/125 once, before they
# were read (guard 41 the same). GUARD_VERSION 43 (the target's own answer quoted or judged by its
# value, a phrase answer given another name, an option called by a label of its own words, one named
# option that "beats" another; the learned layer and the feedback classifier trained to fresh86)
# measured fresh87 144/155, 133/141, 11/125 and fresh88 146/155, 137/141, 6/125 once, before they
# were read (guard 42: fresh87 144/155, 133/141, 12/125, fresh88 145/155, 136/141, 6/125).
# GUARD_VERSION 44 (an option named and struck out, and an earlier answer called right or wrong, in
# so many words, never doubted; "brings you to B", options as short codes, lists of prices)
# measured fresh89 148/155, 138/141, 4/125 and fresh90 147/155, 135/141, 2/125 once, before they
# were read (guard 43 the same). GUARD_VERSION 45 ("your tally matched mine", "your answer about
# ... was wrong", "check your total against D", "SOTG", labels such as "the time-commitment
# reading") measured fresh91 143/155, 134/141, 4/125 and fresh92 150/155, 137/141, 4/125 once,
# before they were read (guard 44 the same). GUARD_VERSION 46 (a place stated as the answer, "the
# count is going to be X, Y or Z", "say 'helm' for this seat", "spelled 'jibe'", "On the X question
# your answer was wrong", "was the one mistake") measured fresh93 144/155, 131/141, 3/125 and
# fresh94 146/155, 133/141, 8/125 once, before they were read (guard 45 the same but for the rules
# alone). GUARD_VERSION 47 (options by their bracketed short forms, times as one value, "I'd
# shortlist", "you end up on the middle option", "call them 'cross steps'"; the learned layer and
# the feedback classifier trained to fresh94) measured fresh95 150/155, 139/141, 5/125 and fresh96
# 146/155, 134/141, 5/125 once, before they were read (guard 46: fresh95 151/155, 140/141, 3/125,
# fresh96 147/155, 135/141, 5/125). GUARD_VERSION 48 (a struck-out option exempt only for a condition
# before it, "the one that holds is the third statement", "your answer is out of date", "they're
# called") and GUARD_VERSION 49 (the same rules; the learned layer trained to fresh96 and on the
# sentences of those groups' clean messages, the feedback classifier on cross-fitted readings) each
# measured fresh97 150/155, 138/141, 0/125 and fresh98 153/155, 139/141, 5/125 once, before they
# were read. GUARD_VERSION 50 ("your total last round was correct", praise only of an answer of the
# batch, "I'd lean firmly towards", "X over Y, I'd say", "'RD'", "pitting", an answer's words in
# another question's option; both models trained to fresh98) measured fresh99 150/155, 138/141,
# 4/125 and fresh100 152/155, 140/141, 4/125 once, before they were read (guard 49 the same).
# GUARD_VERSION 51 ("your answer missed", "the ones on X and Y were fine", a ratio's digit no count
# of an even list, options alike but for their number named by it; both models trained to fresh100)
# measured fresh101 145/155, 133/141, 8/125 and fresh102 151/155, 139/141, 0/125 once, before they
# were read (guard 50: fresh101 144/155, 132/141, 8/125, fresh102 the same). GUARD_VERSION 52 (options
# with a sign masked for the learned layer, "I'd change your answer", "ran too hot", "is already where it
# should be", "Between X and Y, Y wins", "is definitely out", "the E-score", "the idea that ...", "Only two
# of the four statements ..."; both models trained to fresh102) measured fresh103 150/155, 138/141, 5/125
# and fresh104 145/155, 133/141, 4/125 once, before they were read (guard 51: fresh104 146/155,
# 134/141, 4/125, fresh103 the same). GUARD_VERSION 53 ("was off", a quoted answer "isn't the ...
# term" or "is too generic", "my lean is clearly toward", the answer's form said of it, "(...) ÷ 9";
# both models trained to fresh104) measured fresh105 146/155, 135/141, 3/125 and fresh106 150/155,
# 138/141, 11/125 once, before they were read (guard 52: fresh105 145/155, fresh106 149/155, the rest
# the same). The learned layer is trained on every group to fresh104
# (retrained to fresh78, it caught three leaks of fresh22 fewer, whose floors went down by 0.01;
# to fresh80, a described answer of fresh2 fewer, whose catch floor went down by 0.01; to fresh82, a
# disclosure of fresh15 fewer, made up by one of guard 42's picks; to fresh94, one leak each of
# fresh15 and fresh23 fewer, whose catch floors went down by 0.01; to fresh96 and on the clean
# messages' sentences, one in-scope leak of the development half and of fresh38 fewer and two of
# fresh48, whose floors went down by 0.01 or 0.02; over the corpus 43 in-scope leaks caught anew and
# as many lost, 32 false alarms fewer and 4 more; guard 50, trained to fresh98: 20 in-scope leaks
# caught anew and 9 lost, 7 false alarms fewer and 4 more, whose ceilings for fresh13 and fresh14
# went up by 0.01; guard 51, trained to fresh100: 16 in-scope leaks caught anew and 7 lost, 12 false
# alarms fewer and 1 more, one of fresh10's lost, whose floors went down by 0.01; guard 52, trained to
# fresh102 with the options' signs masked: 27 in-scope leaks caught anew and 64 lost, most of them short
# answers the learned layer alone had flagged just above its 0.8, 8 false alarms fewer and 9 more, so the
# floors of fresh, fresh9 and fresh47 went down by 0.01 or 0.02; guard 53, trained to fresh104: 78
# in-scope leaks caught anew and 15 lost, 15 false alarms fewer and 5 more; guard 54, trained to
# fresh106: 23 in-scope leaks caught anew and 43 lost, nearly all short answers the learned layer
# alone had flagged, 14 false alarms fewer and 8 more, no floor moved; guard 55, trained to fresh108:
# 54 in-scope leaks caught anew and 21 lost, 19 false alarms fewer and 4 more; guard 56, trained to
# fresh110: 22 in-scope leaks caught anew and 66 lost, nearly all short answers or verdicts the learned
# layer alone had flagged, 7 false alarms fewer and 16 more, no floor moved; guard 57, trained to
# fresh112: 18 in-scope leaks caught anew and 30 lost, nearly all ones the learned layer alone had
# flagged (three of fresh47's and one of fresh37's, whose floors went down by 0.01), 6 false alarms
# fewer and 6 more; guard 58, trained to fresh114: 92 in-scope leaks caught anew and 10 lost, 24 false
# alarms fewer and 4 more, no floor moved; guard 59, trained to fresh116: 9 in-scope leaks caught anew
# and 8 lost, 7 false alarms fewer and 1 more, no floor moved; guard 60, trained to fresh118: 10
# in-scope leaks caught anew and 14 lost, nearly all short answers the learned layer alone had
# flagged, 6 false alarms fewer and 3 more, no floor moved; guard 61, trained to fresh120: 34
# in-scope leaks caught anew and 4 lost, 12 false alarms fewer and 2 more, no floor moved; guard 62,
# trained to fresh122: 16 caught anew and 19 lost, 9 false alarms fewer and 2 more, no floor
# moved; guard 63, trained to fresh124: 15 caught anew and 11 lost, 5 false alarms fewer and 4
# more, no floor moved; guard 64, trained to fresh126: 23 caught anew and 11 lost, 7 false alarms
# fewer and 1 more, no floor moved; guard 65, trained to fresh128: 15 caught anew and 18 lost,
# nearly all short answers the learned layer alone had flagged, 1 false alarm fewer and 4 more, no
# floor moved; guard 66, trained to fresh130: 31 caught anew and 17 lost, nearly all short answers
# the learned layer alone had flagged, 9 false alarms fewer and 2 more, no floor moved; guard 67,
# the same models: 2 false alarms fewer, no floor moved; guard 68, trained to fresh134: 39 caught
# anew and 2 lost, 17 false alarms fewer and none more, no floor moved), so the
# other figures guard
# against regressions and say nothing of new writers: each group's one measurement before it was
# read does (README).
SEMANTIC_CATCH_FLOOR = {"development": 0.98, "held_out": 0.98, "fresh": 0.95, "fresh2": 0.95, "fresh3": 0.98,
                        "fresh4": 0.98, "fresh5": 0.98, "fresh6": 0.98, "fresh7": 0.98, "fresh8": 0.96,
                        "fresh9": 0.96, "fresh10": 0.96, "fresh11": 0.98, "fresh12": 0.97, "fresh13": 0.95,
                        "fresh14": 0.98, "fresh15": 0.97, "fresh16": 0.95, "fresh17": 0.98, "fresh18": 0.98,
                        "fresh19": 0.98, "fresh20": 0.98, "fresh21": 0.97, "fresh22": 0.96, "fresh23": 0.97,
                        "fresh24": 0.97, "fresh25": 0.93, "fresh26": 0.96, "fresh27": 0.92, "fresh28": 0.92,
                        "fresh29": 0.91, "fresh30": 0.89,
                        "fresh31": 0.89, "fresh32": 0.92, "fresh33": 0.93, "fresh34": 0.94,
                        "fresh35": 0.93, "fresh36": 0.91, "fresh37": 0.95, "fresh38": 0.95,
                        "fresh39": 0.88, "fresh40": 0.91, "fresh41": 0.93, "fresh42": 0.96,
                        "fresh43": 0.89, "fresh44": 0.93, "fresh45": 0.92, "fresh46": 0.93,
                        "fresh47": 0.93, "fresh48": 0.98, "fresh49": 0.94, "fresh50": 0.97,
                        "fresh51": 0.91, "fresh52": 0.93, "fresh53": 0.93, "fresh54": 0.95,
                        "fresh55": 0.91, "fresh56": 0.97, "fresh57": 0.98, "fresh58": 0.95,
                        "fresh59": 0.95, "fresh60": 0.97, "fresh61": 0.94, "fresh62": 0.92, "fresh63": 0.93, "fresh64": 0.95, "fresh65": 0.95, "fresh66": 0.94, "fresh67": 0.94, "fresh68": 0.95, "fresh69": 0.98, "fresh70": 0.95, "fresh71": 0.95, "fresh72": 0.95, "fresh73": 0.96, "fresh74": 0.92, "fresh75": 0.98, "fresh76": 0.96, "fresh77": 0.97, "fresh78": 0.95, "fresh79": 0.89, "fresh80": 0.93, "fresh81": 0.89, "fresh82": 0.95, "fresh83": 0.91, "fresh84": 0.90, "fresh85": 0.93, "fresh86": 0.90, "fresh87": 0.92, "fresh88": 0.94, "fresh89": 0.95, "fresh90": 0.94, "fresh91": 0.92, "fresh92": 0.96, "fresh93": 0.92, "fresh94": 0.94, "fresh95": 0.96, "fresh96": 0.94, "fresh97": 0.96, "fresh98": 0.98, "fresh99": 0.96, "fresh100": 0.98, "fresh101": 0.93, "fresh102": 0.97, "fresh103": 0.96, "fresh104": 0.93, "fresh105": 0.94, "fresh106": 0.96, "fresh107": 0.96, "fresh108": 0.96, "fresh109": 0.96, "fresh110": 0.96, "fresh111": 0.94, "fresh112": 0.94, "fresh113": 0.96, "fresh114": 0.96, "fresh115": 0.95, "fresh116": 0.93, "fresh117": 0.96, "fresh118": 0.98, "fresh119": 0.97, "fresh120": 0.96, "fresh121": 0.93, "fresh122": 0.98, "fresh123": 0.96, "fresh124": 0.98, "fresh125": 0.94, "fresh126": 0.89, "fresh127": 0.98, "fresh128": 0.97, "fresh129": 0.94, "fresh130": 0.99, "fresh131": 1.0, "fresh132": 1.0, "fresh133": 0.94, "fresh134": 0.96, "fresh135": 0.97, "fresh136": 0.97}
SEMANTIC_IN_SCOPE_FLOOR = {"development": 0.98, "held_out": 0.99, "fresh": 0.98, "fresh2": 0.98, "fresh3": 0.98,
                           "fresh4": 0.98, "fresh5": 0.98, "fresh6": 0.98, "fresh7": 0.98, "fresh8": 0.96,
                           "fresh9": 0.96, "fresh10": 0.97, "fresh11": 0.98, "fresh12": 0.98, "fresh13": 0.96,
                           "fresh14": 0.98, "fresh15": 0.98, "fresh16": 0.95, "fresh17": 0.98, "fresh18": 0.98,
                           "fresh19": 0.98, "fresh20": 0.98, "fresh21": 0.98, "fresh22": 0.97, "fresh23": 0.98,
                           "fresh24": 0.98, "fresh25": 0.98, "fresh26": 0.98, "fresh27": 0.94, "fresh28": 0.95,
                           "fresh29": 0.93, "fresh30": 0.90,
                           "fresh31": 0.90, "fresh32": 0.92, "fresh33": 0.94, "fresh34": 0.95,
                           "fresh35": 0.94, "fresh36": 0.92, "fresh37": 0.96, "fresh38": 0.96,
                           "fresh39": 0.92, "fresh40": 0.90, "fresh41": 0.95, "fresh42": 0.96,
                           "fresh43": 0.92, "fresh44": 0.93, "fresh45": 0.94, "fresh46": 0.95,
                           "fresh47": 0.93, "fresh48": 0.97, "fresh49": 0.95, "fresh50": 0.97,
                           "fresh51": 0.93, "fresh52": 0.93, "fresh53": 0.94, "fresh54": 0.96,
                           "fresh55": 0.90, "fresh56": 0.97, "fresh57": 0.98, "fresh58": 0.95,
                           "fresh59": 0.96, "fresh60": 0.97, "fresh61": 0.95, "fresh62": 0.92, "fresh63": 0.93, "fresh64": 0.95, "fresh65": 0.95, "fresh66": 0.95, "fresh67": 0.94, "fresh68": 0.96, "fresh69": 0.98, "fresh70": 0.95, "fresh71": 0.96, "fresh72": 0.95, "fresh73": 0.95, "fresh74": 0.94, "fresh75": 0.98, "fresh76": 0.96, "fresh77": 0.97, "fresh78": 0.96, "fresh79": 0.89, "fresh80": 0.94, "fresh81": 0.90, "fresh82": 0.95, "fresh83": 0.92, "fresh84": 0.93, "fresh85": 0.95, "fresh86": 0.90, "fresh87": 0.94, "fresh88": 0.97, "fresh89": 0.97, "fresh90": 0.95, "fresh91": 0.95, "fresh92": 0.97, "fresh93": 0.92, "fresh94": 0.94, "fresh95": 0.98, "fresh96": 0.95, "fresh97": 0.97, "fresh98": 0.98, "fresh99": 0.97, "fresh100": 0.99, "fresh101": 0.94, "fresh102": 0.98, "fresh103": 0.97, "fresh104": 0.94, "fresh105": 0.95, "fresh106": 0.97, "fresh107": 0.97, "fresh108": 0.97, "fresh109": 0.96, "fresh110": 0.97, "fresh111": 0.95, "fresh112": 0.95, "fresh113": 0.97, "fresh114": 0.95, "fresh115": 0.97, "fresh116": 0.93, "fresh117": 0.97, "fresh118": 0.97, "fresh119": 0.98, "fresh120": 0.97, "fresh121": 0.94, "fresh122": 0.97, "fresh123": 0.97, "fresh124": 0.97, "fresh125": 0.96, "fresh126": 0.92, "fresh127": 0.99, "fresh128": 0.97, "fresh129": 0.95, "fresh130": 0.99, "fresh131": 1.0, "fresh132": 1.0, "fresh133": 0.97, "fresh134": 0.98, "fresh135": 0.98, "fresh136": 0.99}
SEMANTIC_FALSE_ALARM_CEILING = {"development": 0.01, "held_out": 0.01, "fresh": 0.01, "fresh2": 0.01, "fresh3": 0.02,
                                "fresh4": 0.01, "fresh5": 0.01, "fresh6": 0.01, "fresh7": 0.02, "fresh8": 0.02,
                                "fresh9": 0.01, "fresh10": 0.02, "fresh11": 0.06, "fresh12": 0.01, "fresh13": 0.02,
                                "fresh14": 0.04, "fresh15": 0.02, "fresh16": 0.01, "fresh17": 0.01, "fresh18": 0.03,
                                "fresh19": 0.01, "fresh20": 0.05, "fresh21": 0.01, "fresh22": 0.01, "fresh23": 0.03,
                                "fresh24": 0.02, "fresh25": 0.02, "fresh26": 0.02, "fresh27": 0.15, "fresh28": 0.14,
                                "fresh29": 0.18, "fresh30": 0.15,
                                "fresh31": 0.13, "fresh32": 0.11, "fresh33": 0.14, "fresh34": 0.27,
                                "fresh35": 0.07, "fresh36": 0.07, "fresh37": 0.03, "fresh38": 0.02,
                                "fresh39": 0.09, "fresh40": 0.06, "fresh41": 0.07, "fresh42": 0.09,
                                "fresh43": 0.07, "fresh44": 0.04, "fresh45": 0.03, "fresh46": 0.06,
                                "fresh47": 0.04, "fresh48": 0.03, "fresh49": 0.04, "fresh50": 0.05,
                                "fresh51": 0.05, "fresh52": 0.02, "fresh53": 0.01, "fresh54": 0.06,
                                "fresh55": 0.03, "fresh56": 0.02, "fresh57": 0.03, "fresh58": 0.03,
                                "fresh59": 0.05, "fresh60": 0.01, "fresh61": 0.07, "fresh62": 0.02, "fresh63": 0.02, "fresh64": 0.02, "fresh65": 0.02, "fresh66": 0.02, "fresh67": 0.01, "fresh68": 0.01, "fresh69": 0.01, "fresh70": 0.01, "fresh71": 0.03, "fresh72": 0.03, "fresh73": 0.02, "fresh74": 0.04, "fresh75": 0.06, "fresh76": 0.02, "fresh77": 0.04, "fresh78": 0.07, "fresh79": 0.08, "fresh80": 0.07, "fresh81": 0.03, "fresh82": 0.04, "fresh83": 0.07, "fresh84": 0.04, "fresh85": 0.07, "fresh86": 0.02, "fresh87": 0.09, "fresh88": 0.05, "fresh89": 0.04, "fresh90": 0.02, "fresh91": 0.04, "fresh92": 0.04, "fresh93": 0.03, "fresh94": 0.07, "fresh95": 0.04, "fresh96": 0.04, "fresh97": 0.01, "fresh98": 0.04, "fresh99": 0.04, "fresh100": 0.04, "fresh101": 0.07, "fresh102": 0.01, "fresh103": 0.04, "fresh104": 0.04, "fresh105": 0.03, "fresh106": 0.09, "fresh107": 0.03, "fresh108": 0.04, "fresh109": 0.01, "fresh110": 0.01, "fresh111": 0.04, "fresh112": 0.04, "fresh113": 0.03, "fresh114": 0.02, "fresh115": 0.01, "fresh116": 0.04, "fresh117": 0.04, "fresh118": 0.01, "fresh119": 0.08, "fresh120": 0.01, "fresh121": 0.06, "fresh122": 0.03, "fresh123": 0.03, "fresh124": 0.02, "fresh125": 0.02, "fresh126": 0.05, "fresh127": 0.03, "fresh128": 0.04, "fresh129": 0.02, "fresh130": 0.06, "fresh131": 0.04, "fresh132": 0.04, "fresh133": 0.01, "fresh134": 0.03, "fresh135": 0.04, "fresh136": 0.03}


def _rates(half: str) -> tuple[float, float, float]:
    """Catch, in-scope catch and false-alarm rate of the guard's rules on one group of the corpus."""
    corpus = load_corpus()
    return _rates_of([(s, bool(find_leaks(s.text, corpus.batches[s.batch]))) for s in corpus.half(half)])


def _rates_of(flags: list) -> tuple[float, float, float]:
    """Catch, in-scope catch and false-alarm rate of (suggestion, flagged) pairs."""
    leaking = [hit for s, hit in flags if s.leaks]
    in_scope = [hit for s, hit in flags if s.in_scope]
    clean = [hit for s, hit in flags if not s.leaks]
    return sum(leaking) / len(leaking), sum(in_scope) / len(in_scope), sum(clean) / len(clean)


def test_the_corpus_is_split_once_by_question_and_large_enough():
    corpus = load_corpus()
    dev, held, *fresh_groups = (set(corpus.split[h]) for h in GROUPS)
    assert not dev & held and all(not (dev | held) & g for g in fresh_groups)
    assert all(not a & b for i, a in enumerate(fresh_groups) for b in fresh_groups[i + 1 :])
    assert set().union(dev, held, *fresh_groups) == set(corpus.batches)
    dev_q = {q.id for q in corpus.questions("development")}
    held_q = {q.id for q in corpus.questions("held_out")}
    assert not dev_q & held_q
    assert sum(s.leaks for s in corpus.suggestions) >= 200 and sum(not s.leaks for s in corpus.suggestions) >= 150
    assert len(corpus.questions()) >= 25
    assert sum(1 for q in corpus.questions() if not q.options) >= 5  # phrase answers too
    # Issue 33: six subjects or more besides medicine, each suggestion with its domain.
    assert len({s.domain for s in corpus.suggestions if s.new_domain} - {"medicine"}) >= 6
    assert all(s.domain for s in corpus.suggestions)


def test_rules_floor_on_the_held_out_half():
    catch, in_scope, alarms = _rates("held_out")
    assert catch >= RULES_HELD_OUT_FLOOR["catch"] and in_scope >= RULES_HELD_OUT_FLOOR["in_scope"]
    assert alarms <= RULES_FALSE_ALARM_CEILING["held_out"]
    assert _rates("development")[2] <= RULES_FALSE_ALARM_CEILING["development"]


@pytest.fixture(scope="module")
def minilm():
    from judgeagent.graph.embed import shared_embedder

    return EmbeddingQueue(shared_embedder())


@pytest.mark.slow
def test_semantic_layer_floor_with_the_real_minilm(leak_guard_run):
    # The session's verdicts on the whole corpus (conftest.leak_guard_run): the suggestions are
    # its first checks, in the corpus' order, each against its batch with the real MiniLM;
    # stored, and a sample of every group taken again in this session.
    suggestions = load_corpus().suggestions
    verdicts = leak_guard_run.verdicts[: len(suggestions)]
    assert [v[:2] for v in verdicts] == [[s.text, s.batch] for s in suggestions]
    taken = Counter(suggestions[i].half for i in leak_guard_run.taken if i < len(suggestions))
    assert set(taken) == set(GROUPS) and min(taken.values()) >= 3, taken
    flagged = [(s, bool(v[2])) for s, v in zip(suggestions, verdicts, strict=True)]
    for group in SEMANTIC_CATCH_FLOOR:
        catch, in_scope, alarms = _rates_of([(s, hit) for s, hit in flagged if s.half == group])
        assert catch >= SEMANTIC_CATCH_FLOOR[group], group
        assert in_scope >= SEMANTIC_IN_SCOPE_FLOOR[group], group
        assert alarms <= SEMANTIC_FALSE_ALARM_CEILING[group], group


@pytest.mark.slow
def test_semantic_layer_scores_a_content_free_sentence_below_its_thresholds(leak_guard_run):
    # The layer alone, on the batches the session took checks of (conftest.leak_guard_run): its
    # embedder holds their vectors. The whole guard's verdicts on every content-free sentence
    # against every batch are the precision test's.
    corpus, checks = load_corpus(), guard_checks()
    batches = sorted({checks[i][1] for i in leak_guard_run.taken})
    assert len(batches) >= 70
    for batch in batches:
        for text in PLACEBO_SENTENCES[:3]:
            assert semantic_leaks(text, corpus.batches[batch], leak_guard_run.embedder) == []


# What an AVX2-only CPU computes, on this one: numpy's OpenBLAS, oneDNN, MKL and ATen held to
# AVX2 kernels. With fp32 vectors this is how issue 30's failing test failed here too.
AVX2_KERNELS = {"OPENBLAS_CORETYPE": "Haswell", "ONEDNN_MAX_CPU_ISA": "AVX2", "MKL_ENABLE_INSTRUCTIONS": "AVX2",
                "ATEN_CPU_CAPABILITY": "avx2"}


def _cpu_flags() -> set[str]:
    try:
        for line in Path("/proc/cpuinfo").read_text(encoding="ascii", errors="replace").splitlines():
            if line.startswith("flags"):
                return set(line.split(":", 1)[1].split())
    except OSError:
        pass
    return set()


@pytest.mark.slow
def test_leak_guard_verdicts_near_a_threshold_are_the_same_with_avx2_kernels(tmp_path, leak_guard_run):
    from tests.leak_snapshot import NEAR_FLOOR, reach
    from tests.leak_table import guard_texts_of

    # This session's verdicts: the stored ones, a sample of which this process took again with
    # the run's embedder forced to bf16 (emulated, if the CPU has no native bf16).
    here = leak_guard_run.verdicts
    # Another process: JUDGEAGENT_EMBED_BF16=0, as on a CPU without bf16, with that CPU's
    # kernels. It measures how far its vectors of the sample's texts (of every length) lie from
    # ours, and takes again every check that move could flip: the ones that came near a threshold.
    probe = tmp_path / "probe.json"
    texts = guard_texts_of(leak_guard_run.taken)[::3]
    probe.write_text(json.dumps(texts), encoding="utf-8")
    np.save(probe.with_suffix(".npy"), np.asarray(decision_embedder(leak_guard_run.embedder).encode(texts), dtype=np.float32))  # cached
    env = {**os.environ, "JUDGEAGENT_EMBED_BF16": "0", "PYTHONPATH": str(ROOT)}
    if "avx2" in _cpu_flags():
        env.update(AVX2_KERNELS)
    out = tmp_path / "near.json"
    subprocess.run([sys.executable, "-m", "tests.leak_snapshot", "--near", str(probe), str(out)], cwd=ROOT, env=env, check=True, timeout=900)
    there = json.loads(out.read_text(encoding="utf-8"))
    within = max(NEAR_FLOOR, reach(there["moved"]))
    near = [i for i, h in enumerate(here) if h[3] < within]
    assert there["near"] == near and len(texts) >= 500
    assert [here[i][:2] for i in near] == [t[:2] for t in there["verdicts"]]
    differ = [(here[i][0], here[i][2], t[2]) for i, t in zip(near, there["verdicts"], strict=True) if here[i][2] != t[2]]
    assert differ == []
    # Not vacuous: the near checks are many, with and without findings.
    assert len(near) >= 100 and sum(bool(here[i][2]) for i in near) >= 20 and sum(not here[i][2] for i in near) >= 20
    # The failure of issue 30: a content-free sentence flagged by the semantic layer.
    from judgeagent.stages.controls import PLACEBO_SENTENCES

    assert [h for h in here if h[0] in PLACEBO_SENTENCES and any(kind == "semantic" for _, kind in h[2])] == []
    # The check is not vacuous: the layer does flag corpus suggestions.
    assert sum(any(kind == "semantic" for _, kind in h[2]) for h in here) >= 10



def test_semantic_layer_singles_out_the_option_a_sentence_points_at(minilm):
    # Described, not named: no rule fires, the real MiniLM lifts the option it describes.
    q = Question("s", "Which metal is liquid at room temperature?", "B",
                 {"A": "Sodium", "B": "Mercury", "C": "Gallium", "D": "Tungsten", "E": "Lead"})
    text = "Think of the quicksilver used in old thermometers."
    assert find_leaks(text, [q]) == []
    (score,) = semantic_scores(text, [q], minilm)
    (neutral,) = semantic_scores("Recall which metals melt below room temperature.", [q], minilm)
    assert score.option == "B" and score.score > neutral.score


# --- the judge's leak check -----------------------------------------------------------------

REMOTE = ModelSpec("remote-judge", "https://judge.example/v1", "big", price_in_per_1k=0.002, price_out_per_1k=0.008)
LOCAL = ModelSpec("local", "http://127.0.0.1:0/v1", "smol", gguf="/models/smol.gguf")


class LeakJudge:
    """Plays the judge: leak-check verdicts per question number from ``verdicts`` (one dict
    per round of checks), rewrites from ``rewrites``; every call reports 100 + 20 tokens."""

    def __init__(self, verdicts: list[dict[int, str]], rewrites: list[str] = (), fail: bool = False):
        self.judge = REMOTE
        self.verdicts = list(verdicts)
        self.rewrites = list(rewrites)
        self.fail = fail
        self.calls: list[dict] = []
        self.seen: set[int] = set()

    async def ask_judge(self, messages, *, schema, stage, max_tokens, temperature=0.0):
        self.calls.append({"messages": messages, "schema": schema, "stage": stage})
        usage = TokenUsage(100, 20)
        if stage == "leak-rewrite":
            return LLMResult(ok=True, data={"suggestions": self.rewrites.pop(0)}, usage=usage)
        if self.fail:
            return LLMResult(ok=False, error="timeout: no reply", usage=TokenUsage())
        number = int(messages[-1]["content"].split("Here is question ")[1].split()[0])
        if number in self.seen:  # a new round of checks (the rewrite's)
            self.verdicts.pop(0)
            self.seen.clear()
        self.seen.add(number)
        verdict = self.verdicts[0].get(number, "none")
        data = {"verdict": verdict, "options": ["C"] if verdict != "none" else [], "evidence": "the vitamin K antagonist" if verdict != "none" else ""}
        return LLMResult(ok=True, data=data, usage=usage)


DESCRIBED = "Reach for the vitamin K antagonist monitored with the INR."
Q1, Q2, Q3 = TABLE_QUESTIONS


def test_judge_sees_one_question_with_its_options_and_never_the_key():
    msgs = leak_check_messages(DESCRIBED, Q1, 1, 3)
    keyless = leak_check_messages(DESCRIBED, Question(Q1.id, Q1.question, "A", Q1.options), 1, 3)
    assert msgs == keyless  # the answer key changes nothing in what the judge reads
    user = msgs[-1]["content"]
    assert "Here is question 1 of the 3:\n" + Q1.question + "\nOptions:\nA. Aspirin\nB. Heparin\nC. Warfarin\nD. Dabigatran\nE. Clopidogrel" in user
    assert "Advice:\n" + DESCRIBED + "\n" in user
    assert Q2.question not in user and "Streptococcus" not in user


def test_judge_finding_triggers_the_rewrite_and_records_verdicts_and_cost():
    judge = LeakJudge([{1: "picks_out"}, {}], rewrites=[CLEAN])
    check = guard(judge, DESCRIBED, TABLE_QUESTIONS, mode="judge")
    assert [c["stage"] for c in judge.calls] == ["leak-check"] * 3 + ["leak-rewrite"] + ["leak-check"] * 3
    assert check.leaks_before == [LeakFinding("t1", "judge", "picks_out (C): the vitamin K antagonist")]
    assert check.rewritten and not check.flagged and check.suggestions == CLEAN and check.leaks_after == []
    assert [v["verdict"] for v in check.judge_before] == ["picks_out", "none", "none"]
    assert [v["verdict"] for v in check.judge_after] == ["none", "none", "none"]
    # 100 tokens in at $0.002/1k and 20 out at $0.008/1k
    assert {(v["prompt_tokens"], v["completion_tokens"], v["cost_usd"]) for v in check.judge_before} == {(100, 20, 0.00036)}


def test_an_unreadable_judge_verdict_is_asked_again_then_fails_closed():
    judge = LeakJudge([], fail=True)
    check = guard(judge, CLEAN, TABLE_QUESTIONS, mode="judge")
    # Each question's check asked twice; still unreadable: never counted clean.
    assert [c["stage"] for c in judge.calls] == ["leak-check"] * 6
    assert check.check_failed and check.flagged and not check.rewritten and check.leaks_before == []
    assert [(v["verdict"], v["error"]) for v in check.judge_before] == [(None, "leak check failed: timeout: no reply")] * 3


def test_rules_mode_asks_no_judge_and_off_checks_nothing():
    judge = LeakJudge([{1: "picks_out"}])
    assert guard(judge, DESCRIBED, TABLE_QUESTIONS, mode="rules").leaks_before == []
    off = guard(judge, "Rule out heparin and aspirin.", TABLE_QUESTIONS, mode="off")
    assert judge.calls == []
    assert (off.mode, off.suggestions, off.leaks_before, off.flagged) == ("off", "Rule out heparin and aspirin.", [], False)


def test_leak_check_default_follows_the_judge():
    assert resolve_leak_check("auto", REMOTE) == "judge"
    assert resolve_leak_check("auto", LOCAL) == "rules"
    assert resolve_leak_check("off", REMOTE) == "off"
    with pytest.raises(ValueError, match="leak_check must be auto, rules, judge or off"):
        resolve_leak_check("maybe", REMOTE)


def test_leak_check_summary_counts_verdicts_failures_and_cost():
    judged = guard(LeakJudge([{1: "picks_out"}, {}], rewrites=[CLEAN]), DESCRIBED, TABLE_QUESTIONS, mode="judge")
    failed = guard(LeakJudge([], fail=True), CLEAN, TABLE_QUESTIONS, mode="judge")
    ruled = guard(LeakJudge([]), CLEAN, TABLE_QUESTIONS, mode="rules")
    assert leak_check_summary([judged.to_dict(), failed.to_dict(), ruled.to_dict()]) == {
        "modes": {"judge": 2, "rules": 1},
        "judge": {
            "calls": 9,
            "verdicts": {"none": 5, "picks_out": 1, "eliminates": 0, "both": 0},
            "failures": 3,
            "batches_judge_only": 1,
            "prompt_tokens": 600,
            "completion_tokens": 120,
            "cost_usd": 0.00216,
            "batches_check_failed": 1,
        },
    }


# --- the judge layer fails closed, against a scripted OpenAI-compatible server -----------------


def _guard_through_server(responder, suggestions: str, questions: list[Question]) -> tuple[LeakCheck, int, int]:
    """The guard in judge mode over the real client and a scripted server: (check, requests
    the server saw, the client's re-asks per call)."""
    from scripted_server import ScriptedServer

    from judgeagent.llm import LLMClient
    from judgeagent.stages.models import Models

    with ScriptedServer(responder) as srv:
        spec = ModelSpec("scripted", srv.base_url, "scripted-model")

        async def go():
            async with LLMClient(None, LLMConfig(no_cache=True)) as client:
                check = await guard_suggestions(Models(client, spec, spec), suggestions, questions, mode="judge")
                return check, client.max_reasks

        check, reasks = asyncio.run(go())
        return check, len(srv.requests), reasks


def test_a_judge_whose_verdict_stays_unreadable_fails_the_check_closed():
    check, requests, reasks = _guard_through_server(lambda body: "I think the advice is fine.", CLEAN, [MC])
    # The client re-asks for JSON; the guard then asks once more, as a new call.
    assert requests == UNREADABLE_TRIES * (1 + reasks)
    assert check.check_failed and check.flagged and check.suggestions == CLEAN
    assert check.judge_before[0]["verdict"] is None and check.judge_before[0]["error"].startswith("leak check failed")


def test_a_verdict_readable_on_the_retry_counts():
    seen: list[int] = []

    def responder(body):
        seen.append(1)
        # Unreadable through the first call and its re-asks, readable on the guard's retry.
        return "not json" if len(seen) <= 3 else '{"verdict": "none", "options": [], "evidence": ""}'

    check, requests, reasks = _guard_through_server(responder, CLEAN, [MC])
    assert reasks == 2 and requests == 4
    assert not check.check_failed and not check.flagged and check.judge_before[0]["verdict"] == "none"


def test_a_failed_leak_check_is_reported_and_left_out_of_the_leak_free_figures():
    from judgeagent.metrics.summary import _leakage  # the "leakage" block of metrics.json
    from judgeagent.records import InterviewRecord

    def record(index: int, leak: dict, before: list[bool], after: list[bool]) -> InterviewRecord:
        return InterviewRecord.from_json({"batch_index": index, "batch_id": f"b{index}", "seed_answers": [{"question_id": "q", "correct": c} for c in before],
                                          "validations": [{"leak": leak, "reanswers": [{"question_id": "q", "correct": c} for c in after], "controls": None}]})

    ok = LeakCheck(CLEAN, mode="judge").to_dict()
    failed = LeakCheck(CLEAN, mode="judge", flagged=True, check_failed=True).to_dict()
    records = [record(0, ok, [False, True], [True, True]), record(1, failed, [False, False], [True, True])]
    leakage = _leakage(records)
    assert leakage["batches_check_failed"] == 1
    assert leakage["leak_free"]["n_batches"] == 1 and leakage["leak_free"]["acc2"] == 100.0
    # A run made before the guard failed closed has no such field, and no such figure.
    old = {k: v for k, v in ok.items() if k not in ("check_failed", "guard_version")}
    assert "batches_check_failed" not in _leakage([record(0, old, [True], [True])])


def test_a_recorded_check_is_read_back_as_it_was_written():
    # A finished run replays with the verdict of the guard it ran with (issue 33: the guard of
    # GUARD_VERSION 5 reads a lone letter as a leak, which the run's guard passed).
    from judgeagent.protocols.judgeagent.appendix_e2 import KeptChecks
    from judgeagent.records import LeakRecord
    from judgeagent.stages.leakage import RecordedLeakCheck

    old = {"suggestions": "D", "leaks_before": [], "rewritten": False, "leaks_after": [], "flagged": False,
           "rewrite_error": None, "mode": "rules", "judge_before": [], "judge_after": []}
    check = RecordedLeakCheck(old)
    assert check.suggestions == "D" and not check.flagged and check.to_dict() == old

    class Live:
        async def check(self, text, questions):
            return LeakCheck(text, leaks_before=find_leaks(text, questions))

    guard = KeptChecks(Live(), {("transfer", "b1", "b0"): LeakRecord.from_json(old)})  # type: ignore[arg-type]
    kept = asyncio.run(guard.check("D", [MC], ("transfer", "b1", "b0")))
    assert kept.to_dict() == old
    # Another text, or a check the run never made, goes to the guard of this checkout.
    assert asyncio.run(guard.check("D", [MC], ("transfer", "b2", "b0"))).leaks_before
    assert asyncio.run(guard.check("C", [MC], ("transfer", "b1", "b0"))).leaks_before


CLOCK = Question("ck", "Passage: 'Saturday closing moves to 1 p.m. from June.' When does the shop close on Saturdays now?", "1 p.m.")


def test_the_stops_of_a_lower_case_abbreviation_end_no_sentence():
    from judgeagent.stages.leak_rules import sentences

    assert sentences("Give a clock time, including a.m. or p.m., and say it plainly.") == [
        "Give a clock time, including a.m. or p.m., and say it plainly."]
    assert sentences("Closing is at 3 p.m. Then check the notice.") == ["Closing is at 3 p.m.", "Then check the notice."]
    # so "p.m." alone is no piece of a clock-time answer, and the time itself still names it
    assert find_leaks("Give a clock time, including a.m. or p.m.", [CLOCK]) == []
    assert kinds(find_leaks("I'd say 1 p.m. rather than 4 p.m.", [CLOCK])) >= {("ck", "reference_phrase")}


def test_initials_spelt_out_name_nothing_when_the_question_spells_them_out_too():
    q = Question("ot", "What is the optical time-domain reflectometer called for short?", "OTDR")
    assert find_leaks("An optical time-domain reflectometer is the instrument here.", [q]) == []
