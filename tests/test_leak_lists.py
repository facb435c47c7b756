"""The guard's precision on advice written apart from the rules: guard 9's (fresh8 to fresh13:
options listed evenly in the judge's short forms, words the batch is about, praise of a habit,
advice on the answer's form, the learned layer when it reads nothing), guard 10's (fresh14) and
guard 11's (fresh15 to fresh18: the right form, musical notes and legends, lists over each
statement, words the batch uses, the final answer)."""

from __future__ import annotations

import pytest

from judgeagent.data.benchmark import Question
from judgeagent.stages.leak_learned import masked_text, weigh
from judgeagent.stages.leak_lists import hide_even_list
from judgeagent.stages.leak_rules import names_kind_of_answer, only_form, praise_of_form
from judgeagent.stages.leak_rules.examples import BATCHES
from judgeagent.stages.leak_rules.naming import option_refs
from judgeagent.stages.leakage import find_leaks

MILK = Question(
    "m1",
    "What does a homogenizer do to milk?",
    "E",
    {
        "A": "It heats the milk to kill bacteria.",
        "B": "It removes the lactose from the milk.",
        "C": "It evaporates part of the water.",
        "D": "It adds vitamins A and D.",
        "E": "It breaks the fat globules into smaller ones so the cream does not separate.",
    },
)
WAGES = Question(
    "w1",
    "What does a monopsonist employer do compared with a competitive labour market?",
    "A",
    {
        "A": "It pays a lower wage and hires fewer workers.",
        "B": "It pays a higher wage and hires more workers.",
        "C": "It pays the same wage but hires fewer workers.",
        "D": "It pays a lower wage but hires more workers.",
    },
)
FRICTIONAL = Question(
    "w2",
    "Which statement best describes frictional unemployment?",
    "C",
    {
        "A": "Unemployment caused by a mismatch between workers' skills and the skills employers need.",
        "B": "Unemployment that rises and falls with the business cycle.",
        "C": "Short-term unemployment that arises while workers search for and move between jobs.",
        "D": "Unemployment caused by a wage floor set above the market-clearing level.",
        "E": "Joblessness among people who have stopped searching for work altogether.",
    },
)
SHIP = Question("w3", "Which battleship, launched in 1906, gave her name to a whole type of warship?", "Dreadnought")


@pytest.mark.parametrize(
    ("sentence", "hidden"),
    [
        (
            "Read all five statements: heat treatment, lactose removal, evaporating water, adding vitamins, changing fat globule size.",
            "Read all five statements: item, item, item, item, item.",
        ),
        (
            "Five statements, each on a different process: heating, lactose removal, evaporation, vitamins, fat globules.",
            "Five statements, each on a different process: item, item, item, item, item.",
        ),
        # What the sentence says of one item outside the list is still read.
        (
            "Of the five: heating, lactose removal, evaporation, vitamins, fat globule size, only the globules survive.",
            "Of the five: item, item, item, item, item, only the globules survive.",
        ),
        # Not a count of the options (four is not five), not a list of them (years).
        ("Weigh all four: heating, lactose removal, evaporation, vitamins.", None),
        ("In five years, prices, wages, and rents rose.", None),
        # A digit inside a number is no count, and a thousands separator splits no item.
        ("It's one of 5,000, 50,000 or 500,000 litres.", None),
        # nor a digit of a ratio
        ("Between 5:4 and 3:2, weigh heating, lactose removal, evaporation and vitamins.", None),
        (
            "Line up all five: 500, 5,000, 50,000, 500,000 and 6,000 litres.",
            "Line up all five: item, item, item, item and item.",
        ),
        # A list opened without a dash ends at one: the advice after it is no item.
        (
            "The five options are heating, lactose removal, evaporation, vitamins, or fat globules — tie each to the machine, or rule it out.",
            "The five options are heating, item, item, item, or item — tie each to the machine, or rule it out.",
        ),
    ],
)
def test_an_even_list_of_the_options_hides_its_items_and_nothing_else(sentence, hidden):
    assert hide_even_list(sentence, [MILK]) == (hidden or sentence)


def test_an_item_in_an_options_own_words_is_hidden_though_a_word_of_it_would_say_something():
    tines = Question(
        "k1",
        "Where does the lowest tine of a thumb piano sit?",
        "C",
        {"A": "At the far left end", "B": "At the far right end", "C": "In the middle, the notes climbing outward",
         "D": "On the second tine in from the right", "E": "Wherever the maker likes"},
    )
    sentence = "The five options describe five layouts: the left end, the right end, the middle, the second tine from the right, and the maker's whim."
    assert hide_even_list(sentence, [tines]) == "The five options describe five layouts: item, item, item, item, and item."
    assert find_leaks(sentence + " Test each against how tine length sets pitch.", [tines]) == []


def test_options_listed_evenly_in_short_forms_are_no_leak_but_a_verdict_beside_them_is():
    even = (
        "Read all five statements: heat treatment, lactose removal, evaporating water, adding vitamins, "
        "changing fat globule size. Then ask which describes what a homogenizer physically does."
    )
    assert find_leaks(even, [MILK]) == []
    picked = "Look at all five: heating, lactose removal, evaporation, vitamins, fat globules, and the last one is right."
    assert "pointer" in {d.kind for d in find_leaks(picked, [MILK])}


def test_words_the_batch_is_about_name_no_statement_option():
    topical = "Use a competitive labour market as your benchmark, where the wage equals the marginal revenue product."
    assert find_leaks(topical, [WAGES, FRICTIONAL]) == []
    # Words of the option that the batch does not use elsewhere still name it.
    named = "The wage floor set above market clearing is the one to rule out."
    assert ("w2", "elimination") in {(d.question_id, d.kind) for d in find_leaks(named, [WAGES, FRICTIONAL])}


@pytest.mark.parametrize(
    ("sentence", "praise"),
    [
        ("Your habit of defining terms before using them was good last round.", True),
        ("The way you laid out your reasoning this time was good.", True),
        ("Your grasp of hive architecture in your earlier reply was good.", True),
        ("You did well previously to notice the difference between training and trellising.", True),
        ("You were right to think about the slope of the supply curve.", True),
        # Verdicts on an answer stay disclosures.
        ("Your instinct on the glacier question was correct.", False),
        ("You were right on the second question.", False),
        ("You got the first one right.", False),
    ],
)
def test_praise_of_a_habit_is_not_a_verdict_on_an_answer(sentence, praise):
    assert praise_of_form(sentence) is praise
    found = {d.kind for d in find_leaks(sentence, [WAGES, FRICTIONAL, SHIP])}
    assert ("disclosure" in found) is not praise


@pytest.mark.parametrize(
    ("sentence", "form"),
    [
        ("A single noun is expected.", True),
        ("A one- or two-word answer is ideal.", True),
        ("Specialised compounds are fine, but the core term is what's being tested.", True),
        ("A short answer with a one-line reason is fine.", True),
        ("Dreadnought is the answer.", False),
    ],
)
def test_advice_on_the_answers_form_asserts_no_answer(sentence, form):
    assert only_form(sentence) is form
    assert (find_leaks(sentence, [WAGES, SHIP]) == []) is form


def test_the_kind_of_answer_with_a_possessive_is_no_pointer():
    assert names_kind_of_answer("The answer is a ship's name.")
    assert find_leaks("The answer is a ship's name.", [SHIP]) == []


def test_the_word_answer_is_not_the_masked_phrase_answer():
    assert masked_text("Carry that clarity into the re-answer. Dreadnought fits.", [SHIP]).split() == [
        "Carry", "that", "clarity", "into", "the", "re-answer.", "ANSWERKEY", "fits."
    ]


def test_the_learned_layer_flags_nothing_it_did_not_read(monkeypatch):
    # Every sentence is praise of form or advice on it: the model reads no term, so even a
    # model sure of a leak (p = 0.99 forced here) has no evidence to flag.
    from judgeagent.stages import leak_learned

    monkeypatch.setattr(leak_learned, "leak_probability", lambda s, q, e: (0.99, masked_text(s, q)))
    assert weigh([], "Your write-up was clear and well reasoned. A single noun is expected.", [SHIP], None) == []
    assert [d.kind for d in weigh([], "It was the first of its type.", [SHIP], None)] == ["learned"]


# --- guard 10, read from fresh14 -------------------------------------------------------------


def test_a_dash_opens_an_even_list_too():
    sentence = "Consider each of the five proposed purposes in turn — heating, lactose removal, evaporation, vitamins, fat globules — and ask which fits."
    assert hide_even_list(sentence, [MILK]) == "Consider each of the five proposed purposes in turn —  item, item, item, item, item— and ask which fits."
    assert find_leaks(sentence, [MILK]) == []


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        ("What you wrote for the battleship is incorrect.", "disclosure"),
        ("It would flood the turret, so the decorative option is wrong.", "elimination"),
    ],
)
def test_an_answer_given_or_an_option_named_by_what_it_says_is_judged(sentence, kind):
    assert kind in {d.kind for d in find_leaks(sentence, [WAGES, SHIP])}


@pytest.mark.parametrize(
    "sentence",
    [
        "Last time you were good about estimating how much energy was involved.",
        "In your earlier answers you tied wages to productivity, which is exactly the right frame.",
        "Your explanation last time was a bit generic.",
    ],
)
def test_a_habit_praised_or_a_form_criticised_is_no_disclosure(sentence):
    assert praise_of_form(sentence)
    assert "disclosure" not in {d.kind for d in find_leaks(sentence, [WAGES, SHIP])}


# --- guard 11, read from fresh15 and fresh16 (and fresh17, fresh18 after their measurement) ----

ORGAN = Question(
    "o1",
    "How is each key of a mechanical-action organ linked to the valve that lets wind into its pipes?",
    "C",
    {
        "A": "By electrical wiring to a magnet under the valve.",
        "B": "By lead tubes that carry changes of air pressure to small bellows.",
        "C": "By a chain of thin wooden rods, levers and rollers.",
        "D": "By oil-filled lines ending in a piston at the valve.",
    },
)
FORGE = Question(
    "f1",
    "A smith heats a hardened chisel to a moderate temperature and lets it cool to relieve brittleness. What is this step called?",
    "D",
    {"A": "Annealing", "B": "Normalising", "C": "Case hardening", "D": "Tempering"},
)
ROWING = Question("r1", "In an eight, which seat sets the rhythm the crew follows?", "C", {"A": "Bow", "B": "Three seat", "C": "Stroke", "D": "Two seat"})
CATCH = Question("r2", "What is the 'catch' in the rowing stroke?", "Blade entry")


@pytest.mark.parametrize(
    ("sentence", "form"),
    [
        ("A short noun phrase is the right form here.", True),
        ("For a question like this a single word is exactly the right form.", True),
        ("You don't need to explain the chemistry or the history.", True),
        ("The noun form is all that's needed — no diagrams, worked hands or explanations in the answer itself.", True),
        ("One letter, please.", True),
        # A verdict, a letter or a bare "no <something>" is no advice on form.
        ("No need to explain why B is wrong.", False),
        ("No pneumatic bellows here.", False),
        ("The right one is the rods.", False),
        ("The answer is the rods; no explanation needed.", False),
    ],
)
def test_the_right_form_and_what_to_leave_out_are_advice_on_form(sentence, form):
    assert only_form(sentence) is form


def test_a_musical_note_or_a_legend_is_no_option_letter():
    for sentence in ("It refers only to the lowest C; the rest of the rank is scaled from there.",
                     "An open pipe of that length sounds the bottom C.",
                     "Write each stitch in the usual shorthand (C for cross, T for twist)."):
        assert find_leaks(sentence, [ORGAN]) == [], sentence
        assert "LETTERKEY" not in masked_text(sentence, [ORGAN])
    assert "answer_letter" in {d.kind for d in find_leaks("The answer is C.", [ORGAN])}
    assert find_leaks("I would pick C.", [ORGAN]) != []


def test_a_list_over_each_statement_is_even_and_a_run_of_letters_is_read_as_a_list():
    sentence = "For each statement, trace what travels from the key to the valve — a pull, an electric current, a change in air pressure, or a fluid — and what responds to it."
    assert "item, item, item, or item" in hide_even_list(sentence, [ORGAN])
    assert find_leaks(sentence, [ORGAN]) == []
    evenly = "Evaluate all four evenly - wiring, lead tubes, wooden rods, oil lines - and think it through."
    assert "item, item, item, item" in hide_even_list(evenly, [ORGAN]) and find_leaks(evenly, [ORGAN]) == []
    assert masked_text("Run the same check on A, B, C and D; then look at C.", [ORGAN]).split() == [
        "Run", "the", "same", "check", "on", "LETTERLIST", ";", "then", "look", "at", "LETTERKEY."
    ]
    assert masked_text("Options A to D differ.", [ORGAN]).split() == ["Options", "LETTERLIST", "differ."]


@pytest.mark.parametrize(
    ("sentence", "disclosure"),
    [
        ("Puppets of that theatre were worked by a single operator until the larger ones came in.", False),
        ("Good reasoning throughout, especially your use of small worked examples.", False),
        ("You did well last time to reason about the mechanism rather than the name.", False),
        ("You're on the right track whenever you think in terms of inputs and outputs.", False),
        ("Your approach last time - reasoning from what each step of the process is trying to achieve - is the right one.", False),
        ("Your answer on the seat question worked.", True),
    ],
)
def test_a_passive_a_worked_example_or_a_habit_is_no_disclosure(sentence, disclosure):
    assert ("disclosure" in {d.kind for d in find_leaks(sentence, [ROWING, CATCH])}) is disclosure


def test_the_final_answer_is_the_targets_not_the_last_option():
    assert find_leaks("Keep that, but keep the final answer itself crisp.", [ORGAN]) == []
    assert find_leaks("The final option is right.", [ORGAN]) != []


def test_words_the_batch_uses_name_no_option():
    # "temperatures" is the batch's word, not a form of "Tempering"; "tempering" itself still is.
    assert find_leaks("Iron is very reactive at those temperatures.", [FORGE]) == []
    assert "option_text" in {d.kind for d in find_leaks("Think of tempering.", [FORGE])}
    # "how" names nothing, though it is a word only option D of this question has.
    bridle = Question("k1", "On a kite, what is the bridle?", "D", {
        "A": "The main spar down the centre", "B": "The streamer at the bottom", "C": "The hem of the sail",
        "D": "The set of lines fixing how it sits in the wind"})
    assert find_leaks("I can explain how moving the towing point changes the way a kite flies.", [bridle]) == []
    # A one-word option that another question of the batch speaks of states no answer alone...
    assert "option_text" not in {d.kind for d in find_leaks("Draw the stroke cycle as a loop with four points.", [ROWING, CATCH])}
    # ...but judged, it is still read.
    assert find_leaks("Stroke is the right one for the first question.", [ROWING, CATCH]) != []


@pytest.mark.parametrize(
    "sentence",
    [
        "Your previous explanation of permutations was nicely done; the factorial reasoning is exactly the right tool here.",
        "Good persistence last round: you reasoned from first principles rather than guessing, and that's the right approach here too.",
    ],
)
def test_praise_of_the_working_is_not_read_as_a_verdict(sentence):
    assert find_leaks(sentence, [ROWING, CATCH]) == []


# --- guard 13, read from fresh19 and fresh20 -------------------------------------------------

BRAKE = Question(
    "b1",
    "A rider says the cable-operated rear brake feels gritty and slow to return. What is the likeliest cause?",
    "E",
    {
        "A": "The brake pads have been contaminated with oil.",
        "B": "The rotor is slightly warped.",
        "C": "The caliper bolts have been over-tightened.",
        "D": "The wheel bearings are worn.",
        "E": "The inner wire housing is frayed near the handlebar end.",
    },
)
TOOL = Question("b2", "What is the name of the workshop tool that pushes a rivet out of a chain link?", "chain tool")


def test_two_everyday_words_of_a_statement_neither_state_nor_name_it():
    # "housing" and "end" are two words of option E, one of them everyday: no option is named
    assert find_leaks("That depends on the housing and on which end of the lever you mean.", [BRAKE]) == []
    # its own words, or most of its distinctive ones, still state it
    assert "option_text" in {d.kind for d in find_leaks("Remember: the inner wire housing is frayed near the handlebar end.", [BRAKE])}


def test_the_kind_of_answer_not_wanted_is_no_candidate_ruled_out():
    assert find_leaks("Not a brand name, not a shop nickname, and not a translation.", [TOOL]) == []
    assert find_leaks("Not a style of spanner, and not a botanical variety either.", [TOOL]) == []
    assert {d.kind for d in find_leaks("It is not a spoke key.", [TOOL])} == {"elimination"}


def test_the_options_one_at_a_time_is_no_position():
    assert find_leaks("Go through the five options one at a time and ask what each changes.", [BRAKE]) == []
    assert find_leaks("Option one is right.", [BRAKE]) != []


# --- guard 14, read from fresh23 and fresh24 -------------------------------------------------

KILN = Question(
    "k1",
    "Why does a glaze crawl away from the pot during firing?",
    "C",
    {
        "A": "The kiln was fired too slowly.",
        "B": "The clay body held too much iron.",
        "C": "The glaze was applied over dust or grease.",
        "D": "The pot was left to dry in direct sunlight.",
    },
)
STILT = Question("k2", "What is the small three-pointed support that keeps a glazed pot off the kiln shelf called?", "stilt")


def test_the_reply_held_to_a_form_or_a_part_is_no_answer_kept():
    assert find_leaks("Keep your final answer to a single letter.", [KILN, STILT]) == []
    assert find_leaks("Keep your answer to the firing part; leave the clay out of it.", [KILN, STILT]) == []
    assert only_form("Give your answer as a letter.") and only_form("Limit your answer to one word.")
    # a question's answer kept is still a disclosure, and "give your answer to question two" no form
    assert {d.kind for d in find_leaks("Keep your answer to question two.", [KILN, STILT])} == {"disclosure"}
    assert {d.kind for d in find_leaks("Keep the middle answer; rethink the other two.", [KILN, STILT])} == {"disclosure"}
    assert not only_form("Give your answer to question two.")


def test_a_way_of_working_praised_and_a_criterion_for_any_option_disclose_nothing():
    assert praise_of_form("Your previous answer came with a clear rationale, which is the right way to approach a question like this.")
    assert praise_of_form("You showed good awareness of kiln safety in your earlier reasoning, and that's the right mindset.")
    assert find_leaks("An option that explains only one of the two defects isn't good enough.", [KILN]) == []
    # said of the target's answers, the same quantifier discloses
    assert {d.kind for d in find_leaks("Only one of your two answers is right.", [KILN, STILT])} == {"disclosure"}
    assert {d.kind for d in find_leaks("You'll want to change your earlier answer here.", [KILN])} == {"disclosure"}


def test_a_phrase_answers_word_in_a_list_of_every_option_of_another_question_names_nothing():
    craft = BATCHES["craft"]
    assert find_leaks("Say what the reed, the heddle, the shuttle and the treadle each do.", craft) == []
    # one short, the list leaves the last; and the word alone still names the answer
    assert "reference_phrase" in {d.kind for d in find_leaks("Say what the reed, heddle and treadle each do.", craft)}
    assert "reference_phrase" in {d.kind for d in find_leaks("For the pedals, think of the treadle.", craft)}


def test_a_run_of_questions_one_per_option_after_asking_of_every_option_names_none():
    asked = "Read every option against what a homogenizer is for. "
    run = "Does it heat the milk? Does it take out the lactose? Does it evaporate water? Does it break up the fat globules?"
    assert find_leaks(asked + run, [MILK]) == []
    # without the sentence that asks of every option, the questions single options out
    assert "pointer" in {d.kind for d in find_leaks(run, [MILK])}
    # a question that calls one option right is no item, and a verdict after the run is still read
    hinted = asked + "Does it heat the milk? Is breaking up the fat globules obviously right? Does it evaporate water? Does it add vitamins?"
    assert "pointer" in {d.kind for d in find_leaks(hinted, [MILK])}
    assert find_leaks(asked + run + " The last one is right.", [MILK]) != []


def test_an_option_listed_evenly_names_no_other_questions_answer_written_in_it():
    craft = BATCHES["craft"]  # c1's options are Reed, Heddle, Shuttle and Treadle; c2's answer is "treadling"
    listed = "Weigh all four options - the reed, the heddle, the shuttle, the treadle - against what carries the weft across."
    assert find_leaks(listed, craft) == []
    # a shortlist of a question without options still names its answer
    assert "reference_phrase" in {d.kind for d in find_leaks("Say what the reed, heddle and treadle each do.", craft)}


STAGE = Question("t1", "Where on a theatre stage do actors perform an aside?", "downstage")
LIGHTS = Question("t2", "What does the lighting abbreviation 'FOH' stand for?", "A",
                  {"A": "Front of house", "B": "Floor overhead", "C": "Follow-on headlight", "D": "Performance output hub"})


def test_another_form_of_a_word_the_batch_uses_names_no_option():
    # "performers" is a form of the first question's "perform", not a mention of "Performance output hub"
    assert find_leaks("Think of the word performers use among themselves; the second question is about lighting.", [STAGE, LIGHTS]) == []
    # the option's own word still names it
    assert "pointer" in {d.kind for d in find_leaks("For the lighting question, think of the performance option.", [STAGE, LIGHTS])}


# Guards 64 and 65: forms read from fresh125 to fresh128 whose behaviour the rule entries' examples
# do not show alone.
SQUASH = Question(
    "sq1",
    "Priya's shot would have won the rally, and Tomasz made every effort to clear. What does the referee award?",
    "D",
    {
        "A": "A let: the rally is replayed.",
        "B": "No let: Tomasz wins the rally.",
        "C": "A stroke to Tomasz, since he made every effort to clear.",
        "D": "A stroke to Priya: her shot would have been a winner.",
    },
)
KVASS = Question(
    "kv1",
    "A short-fermented, chilled bread drink typically has what alcohol content?",
    "A",
    {"A": "Under 1.5% alcohol by volume (ABV)", "B": "About 5% ABV", "C": "About 12% ABV", "D": "About 40% ABV"},
)
TYRE = Question(
    "ty1",
    "Why does a wheelwright heat an iron tyre before fitting it?",
    "A",
    {
        "A": "The hot tyre expands to slip over the wheel and shrinks tight as it cools.",
        "B": "Heating softens the iron so that it can be hammered into the curve.",
        "C": "The heat chars the outer wood so that the rim resists rot.",
        "D": "The heat fuses the iron to the wood, so that no nails are needed.",
    },
)


def _kinds(text: str, questions: list[Question]) -> set[tuple[str | None, str]]:
    return {(d.question_id, d.kind) for d in find_leaks(text, questions)}


@pytest.mark.parametrize(
    ("sentence", "stated"),
    [
        ("Short version: it's C, and you can stop second-guessing it.", True),
        ("C - check the sentence that mentions the treaty.", True),
        ("A - D all name treaties; date each.", False),
        ("It's A-level material, so take it slowly.", False),
    ],
)
def test_a_letter_ending_its_clause_or_opening_before_a_dash_is_stated(sentence, stated):
    assert any(kind == "answer_letter" for _, kind in _kinds(sentence, BATCHES["mc"])) == stated


def test_an_options_own_words_in_quotes_name_it_though_each_word_is_in_another():
    assert ("sq1", "struck_out") in _kinds("You can set aside 'a stroke to Tomasz' - effort never earns the rally.", [SQUASH])
    assert _kinds("Weigh each outcome against the two findings the referee makes.", [SQUASH]) == set()


def test_a_short_question_answered_at_once_is_read_with_its_answer():
    gas = [q for q in BATCHES["mc"] if "Argon" in (q.options or {}).values()][0]
    assert any(qid == gas.id for qid, _ in _kinds("Argon? Definitely not - it is far too rare.", BATCHES["mc"]))
    assert any(qid == gas.id for qid, _ in _kinds("Argon? No. It is far too rare.", BATCHES["mc"]))


def test_praise_of_drawing_a_diagram_is_praise_of_a_habit():
    assert praise_of_form("You drew a diagram last time, which is exactly the right move for a question like this.")
    assert not praise_of_form("You picked Utrecht last time, which was right.")


def test_initials_every_option_writes_name_none_of_them():
    assert _kinds("Think in ABV, not proof.", [KVASS]) == set()
    assert ("kv1", "option_text") in _kinds("Under 1.5 percent alcohol by volume is the figure.", [KVASS])


def test_a_clause_names_its_option_though_its_little_words_are_in_others():
    assert ("ty1", "struck_out") in _kinds("The idea that heat fuses iron to wood can be dropped; weigh the rest.", [TYRE])


TAX = Question("tx1", "Which kind of tax takes a larger share of a larger income?", "B", {"A": "Flat", "B": "Progressive", "C": "Regressive"})
CRANE = Question("cr1", "Which attachment lifts a shipping container by its corner fittings?", "A",
                 {"A": "Spreader", "B": "Headblock", "C": "Trolley", "D": "Grab", "E": "Hook beam"})
CLOSING = Question("cl1", "According to the notice, when does the hall now close on weekdays?", "B",
                   {"A": "6:00 pm", "B": "7:00 pm", "C": "8:00 pm", "D": "9:00 pm"})
VISA = Question("vi1", "How long after vaccination does the certificate become valid?", "A",
                {"A": "10 days", "B": "20 days", "C": "30 days", "D": "1 year"})
YEARS = Question("yr1", "How often is a coppice stool traditionally cut?", "D",
                 {"A": "Every 1–2 years", "B": "Every 3–4 years", "C": "Every 25–30 years", "D": "Every 7–10 years"})


def test_a_common_word_option_before_a_noun_is_the_adjective_unless_the_question_asks_for_that_noun():
    figures = BATCHES["figures"]
    assert _kinds("It's a good way of seeing the traps a question-setter has laid.", figures) == set()
    assert ("tx1", "option_text") in _kinds("That's a progressive tax.", [TAX])
    named = {r.letter for r in option_refs("Weigh each: a grab and a hook beam exist for good reasons.", [CRANE])}
    assert named == {"D", "E"}


@pytest.mark.parametrize(
    ("sentence", "named"),
    [
        ("Closing is 19:00.", True),  # the 24-hour clock
        ("The notice says weekdays now close at 7 pm; check it.", True),
        ("Closing is 21:00 now.", False),  # the answer is 7 pm; 21:00 is option D
    ],
)
def test_a_time_after_noon_is_named_on_either_clock(sentence, named):
    assert (("cl1", "option_text") in _kinds(sentence, [CLOSING])) == named
    assert {r.letter for r in option_refs("Closing is 20:00, not 19:00.", [CLOSING])} == {"B", "C"}


def test_a_number_joined_to_a_unit_names_its_option_but_not_one_joined_to_a_name():
    assert ("vi1", "option_text") in _kinds("Only the 10-day option matches the validity rule.", [VISA])
    assert _kinds("There is a special case in the rules for the 10-off area of the triangle.", BATCHES["figures"]) == set()


def test_a_sign_word_makes_a_value_only_where_the_options_are_signed():
    assert _kinds("Keep it brief: the letter, plus one sentence saying why.", [YEARS]) == set()
    assert ("x3", "struck_out") in _kinds("You can set plus five aside.", BATCHES["figures"])


def test_a_run_of_a_statements_everyday_words_names_it_only_as_an_item_of_a_list():
    design = BATCHES["designs"]
    assert ("d1", "narrowed") in _kinds("The contenders are the randomised trial, the single-blind demonstration and the field survey.", design)
    assert _kinds("Ask how a survey in the field would deal with the tester's cues.", design) == set()


def test_a_passages_answer_is_named_by_a_name_of_its_own_but_a_short_stems_is_not():
    assert ("t1", "reference_phrase") in _kinds("Walkers gather at the Tannery this year.", BATCHES["notice"])
    short = Question("sh1", "Where do walkers now meet: the Old Tannery or the green?", "the Old Tannery")
    assert _kinds("Walkers gather at the Tannery this year.", [short]) == set()


def test_a_whole_number_and_a_vulgar_fraction_are_one_value():
    dye = [q for q in BATCHES["figures"] if q.id == "x6"]
    assert {r.letter for r in option_refs("It's 4½ teaspoons.", dye)} == {"C"}
    assert {r.letter for r in option_refs("It's 4 teaspoons.", dye)} == {"B"}
    assert _kinds("Multiply 2 by 2½ cups; the stem gives both.", dye) == set()


def test_an_abbreviations_full_stop_inside_an_option_ends_no_sentence():
    microbes = Question("mb1", "Which microbe ferments steamed soybeans into natto?", "A",
                        {"A": "Bacillus subtilis var. natto", "B": "Aspergillus oryzae", "C": "Lactobacillus plantarum", "D": "Rhizopus oligosporus"})
    listed = ("Each option is a real food microbe: Bacillus subtilis var. natto, Aspergillus oryzae, Lactobacillus plantarum "
              "and Rhizopus oligosporus. For each one, name a food it's used for.")
    assert _kinds(listed, [microbes]) == set()
    assert ("mb1", "option_text") in _kinds("It's Bacillus subtilis var. natto.", [microbes])


def test_two_of_the_stems_figures_over_each_other_are_a_step_but_their_value_alone_is_not():
    shares = BATCHES["shares"]
    assert _kinds("Write the fraction as 30/400 first and simplify it before converting.", shares) == set()
    assert {r.letter for r in option_refs("It comes to three fortieths.", shares)} == {"B"}
