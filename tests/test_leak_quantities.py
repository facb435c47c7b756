"""Options that are quantities, named in another form: other units, fractions, ratios, ranges."""

from __future__ import annotations

import pytest

from judgeagent.data.benchmark import Question
from judgeagent.stages.leak_normalize import spoken_numbers
from judgeagent.stages.leak_rules.examples import BATCHES
from judgeagent.stages.leak_rules.naming import option_refs
from judgeagent.stages.leak_rules.quantities import option_quantity, quantities
from judgeagent.stages.leakage import find_leaks

# Questions of our own, one per kind of quantity.
SHARE = Question("s", "A drug with a half-life of 6 h runs at a constant rate. What share of steady state is reached after 18 h?",
                 "B", {"A": "75%", "B": "87.5%", "C": "93.75%", "D": "50%"})
DISTANCE = Question("d", "How far out does the territorial sea reach?", "C",
                    {"A": "3 nautical miles", "B": "6 nautical miles", "C": "12 nautical miles", "D": "24 nautical miles"})
RATIO = Question("r", "Which copper to tin ratio is usual for bell metal?", "B", {"A": "9:1", "B": "7:2", "C": "3:2", "D": "1:1"})
RANGE = Question("g", "What circumference must a match ball have?", "A",
                 {"A": "68–71 cm", "B": "65–67 cm", "C": "72–74 cm", "D": "60–63 cm"})
DECIMAL = Question("p", "What proportion of the sample responded?", "C", {"A": "0.25", "B": "0.5", "C": "0.64", "D": "0.8"})
PITCH = Question("w", "What half-pitch does the scanner print?", "B", {"A": "28 nm", "B": "40 nm", "C": "54 nm", "D": "65 nm"})
CAP = Question("c", "Which market-share cap applies to each party?", "C", {"A": "15%", "B": "25%", "C": "30%", "D": "40%"})
GLUE = Question("h", "In what range is hot hide glue held in the pot?", "C",
                {"A": "35–45 °C", "B": "45–52 °C", "C": "57–63 °C", "D": "75–85 °C"})
DOSE = Question("v", "How much fetal blood does one vial cover?", "B", {"A": "15 mL", "B": "30 mL", "C": "60 mL", "D": "150 mL"})
GRADIENT = Question("a", "Which A-a gradient is closest?", "D", {"A": "12 mmHg", "B": "24 mmHg", "C": "36 mmHg", "D": "48 mmHg"})
ROPE = Question("o", "How fast do the ropes run?", "B", {"A": "1.6 m/s", "B": "3.2 m/s", "C": "6.4 m/s", "D": "0.8 m/s"})
FEE = Question("f", "What does the late fee come to?", "E", {"A": "$330", "B": "$420", "C": "$480", "D": "$525", "E": "$570"})
CLAIM = Question("k", "How much does the insurer pay?", "C", {"A": "£1,000,000", "B": "£1,333,333", "C": "£1,500,000", "D": "£2,000,000"})
SALT = Question("t", "How much salt does one run spread?", "B", {"A": "1.4 t", "B": "2.8 t", "C": "5.6 t", "D": "28 t"})
BATCH = [SHARE, DISTANCE, RATIO, RANGE, DECIMAL, PITCH, CAP, GLUE, DOSE, GRADIENT, ROPE, FEE, CLAIM, SALT]


@pytest.mark.parametrize("text, measure, value, high", [
    ("You reach seven eighths of it.", "fraction", 0.875, None),
    ("roughly 22 kilometres", "length", 22000.0, None),
    ("sixty-four hundredths", "fraction", 0.64, None),
    ("a fifth of the alloy", "fraction", 0.2, None),
    ("three and a half parts copper to one part tin", "ratio", 3.5, None),
    ("between 0.68 and 0.71 metres", "length", 0.68, 0.71),
    ("about 78 per cent copper and 22 per cent tin", "ratio", 78 / 22, None),
    ("1260 degrees", "angle", 3.5, None),
    ("roughly 4 × 10⁻⁸ m", "length", 4e-8, None),
    ("about 4e-8 m", "length", 4e-8, None),
    ("a 0.30 market share", "fraction", 0.3, None),
    ("0.03 to 0.05 by mass fraction", "fraction", 0.03, 0.05),
    ("five hundred and seventy dollars", "money $", 570.0, None),
    ("one and a half million pounds", "money £", 1.5e6, None),  # and a mass, which fits no fee
    ("one and a half million pounds", "mass", 1.5e6 * 0.45359237, None),
    ("it costs $1.5 million", "money $", 1.5e6, None),
    ("2,800 kilograms", "mass", 2800.0, None),
    ("The limit is sixteen twenty-sevenths.", "fraction", 16 / 27, None),
    ("Thirteen-twentieths of it does work.", "fraction", 0.65, None),
    ("seventeen grapes in every twenty", "fraction", 0.85, None),
    ("nine out of ten", "fraction", 0.9, None),
    ("needs 0.85 of its grapes from the area", "fraction", 0.85, None),
    ("1 hour 30 minutes", "time", 5400.0, None),
    ("5 ft, 10 in", "length", 1.778, None),
    ("two days and four hours", "time", 187200.0, None),
    ("an hour and a half", "time", 5400.0, None),
    ("half a metre", "length", 0.5, None),
    ("a single year", "time", 31557600.0, None),
    ("a fortnight", "time", 14 * 86400.0, None),
    ("about 20 Msi", "pressure", 20 * 6894757000.0, None),
    ("roughly 1230 millivolts", "voltage", 1.23, None),
    ("Ninety decibels, A-weighted.", "sound level", 90.0, None),
    ("1.39 × 10^11 Pa", "pressure", 1.39e11, None),
    ("about 0.14 MeV", "energy", 0.14e6 * 1.602176634e-19, None),
    ("the forty-per-cent one", "fraction", 0.4, None),
    ("the half-of-members figure", "fraction", 0.5, None),
    ("Set each tube to about 0.039 A.", "current", 0.039, None),
    ("rent reviews are triennial", "every time", 3 * 31557600.0, None),
    ("once every two years", "every time", 2 * 31557600.0, None),
    ("an alcohol fraction of 0.6 to 0.95", "fraction", 0.6, 0.95),
    ("They still need £50k.", "money £", 50000.0, None),
    ("Budget three tenths of a decibel per splice.", "sound level", 0.3, None),
    ("twelve hundredths of a milligram", "fraction", 0.12, None),  # and a share, as before
    ("About 1337 milliseconds.", "time", 1.337, None),
    ("It sinks at about one metre per second.", "speed", 1.0, None),
    ("About thirteen parts per thousand.", "fraction", 0.013, None),
    ("Combined, that's 8.3 bels.", "sound level", 83.0, None),
    ("Two dozen frames each second.", "count", 24.0, None),
    ("About 0.92 grams per cubic centimetre.", "density", 920.0, None),
    # a pace is the speed it is
    ("Hold 5:00 per km.", "speed", 1000 / 300, None),
    ("That works out at 4.98 minutes per kilometre.", "speed", 1000 / 298.8, None),
    ("Eight minutes a mile.", "speed", 1609.344 / 480, None),
    ("Run 4 min 59 s per km.", "speed", 1000 / 299, None),
    ("It stands 0.918 of an inch high.", "length", 0.918 * 0.0254, None),
])
def test_a_quantity_is_read_as_a_value_in_its_base_unit(text, measure, value, high):
    found = [q for q in quantities(text) if q.measure == measure]
    assert found, text
    q = max(found, key=lambda q: q.end - q.start)
    assert q.value == pytest.approx(value) and (q.high == pytest.approx(high) if high else q.high is None)


@pytest.mark.parametrize("option, measure, value", [
    ("87.5%", "fraction", 0.875), ("12 nautical miles", "length", 22224.0), ("7:2", "ratio", 3.5),
    ("0.64", "fraction", 0.64), ("1.15 m", "length", 1.15), ("3", "count", 3.0), ("about 7 : 2", "ratio", 3.5),
    ("$570", "money $", 570.0), ("£1,500,000", "money £", 1.5e6), ("2.8 t", "mass", 2800.0),
    ("1 hour 30 minutes", "time", 5400.0), ("2 h 15 min", "time", 8100.0),
])
def test_an_option_is_read_whole(option, measure, value):
    q = option_quantity(option)
    assert q is not None and (q.measure, q.value) == (measure, pytest.approx(value))


@pytest.mark.parametrize("option", ["Warfarin", "3 to 5 days of rest", "12 of them", "Type 2"])
def test_an_option_that_is_more_than_a_quantity_is_none(option):
    assert option_quantity(option) is None


@pytest.mark.parametrize("sentence, question, letter", [
    ("You reach seven eighths of steady state.", "s", "B"),
    ("Converted to land units, it's roughly 22 kilometres.", "d", "C"),
    ("It's three and a half parts copper to one part tin.", "r", "B"),
    ("Bell metal is about 78 per cent copper and 22 per cent tin.", "r", "B"),
    ("Between 0.68 and 0.71 metres.", "g", "A"),
    ("Roughly 27 to 28 inches round.", "g", "A"),
    ("Think of it as sixty-four hundredths.", "p", "C"),
    ("It comes to 64 percent.", "p", "C"),
    ("Your half-pitch should come to roughly 4 × 10⁻⁸ m.", "w", "B"),
    ("That is forty nanometres.", "w", "B"),
    ("It's a 0.30 market share for each party.", "c", "C"),
    ("Keep it at about 140 °F.", "h", "C"),  # a temperature on another scale, inside one range
    ("Aim for about 333 kelvin.", "h", "C"),
    ("It covers thirty millilitres.", "v", "B"),
    ("That is 0.03 litres.", "v", "B"),
    ("In SI units it is about 6.4 kPa.", "a", "D"),
    ("Roughly 192 m/min.", "o", "B"),
    ("That is 320 cm/s.", "o", "B"),
    ("It comes to five hundred and seventy dollars.", "f", "E"),
    ("They recover one and a half million pounds.", "k", "C"),
    ("The run takes 2,800 kg of salt.", "t", "B"),
])
def test_a_quantity_in_another_form_names_the_one_option_it_fits(sentence, question, letter):
    named = {(r.question_id, r.letter) for r in option_refs(sentence, BATCH)}
    assert (question, letter) in named
    assert not {(q, x) for q, x in named if q == question and x != letter}  # "three" is not the option 3:2


@pytest.mark.parametrize("sentence", [
    "Use 2.54 cm to the inch when you convert.",
    "Half-lives add up: after 18 h three of them have passed.",  # the stem's own data
    "A quarter of your answers lacked units.",  # no option is a quarter
    "Compare 9:1 with 3:2 before you choose.",
    "A p-value of 0.30 says nothing about the share cap.",  # a decimal, not said to be a share
    "The wavelength is 1.93 × 10⁻⁷ m.",  # the stem's kind of datum, no option fits
    "Glue kept at 53 °C is between the ranges and fits none.",
])
def test_a_quantity_that_fits_no_single_option_names_none_by_value(sentence):
    from judgeagent.stages.leak_rules.quantities import quantity_refs

    assert quantity_refs(sentence, BATCH) == []


def test_the_guard_catches_an_option_named_in_another_form():
    for sentence, qid in [("You reach seven eighths of steady state.", "s"),
                          ("Converted to land units, it's roughly 22 kilometres.", "d"),
                          ("Bell metal is about 78 per cent copper and 22 per cent tin.", "r")]:
        assert qid in {f.question_id for f in find_leaks(sentence, BATCH)}, sentence
    assert find_leaks("Compare 9:1 with 3:2 before you choose.", BATCH) == []


def test_a_measured_option_stated_in_another_form_is_the_answer_stated():
    # A value converted by the writer and stated, with no other value beside it: the option's text.
    for sentence, qid in [("The fee should come to five hundred and seventy dollars, so recount the days and check each tier.", "f"),
                          ("At that rate the run works out at 2,800 kilograms, and the lorry carries it easily.", "t")]:
        assert ("option_text", qid) in {(f.kind, f.question_id) for f in find_leaks(sentence, BATCH)}, sentence
    # Beside other values it names none of them alone; its unit's word alone names no value.
    for sentence in ["Recount: is it 480 dollars or five hundred and seventy dollars?",
                     "Count the tonnes spread per kilometre and the lanes, then multiply."]:
        assert "option_text" not in {f.kind for f in find_leaks(sentence, BATCH)}, sentence


# A phrase answer that is a measured quantity written in two units.
MEETING = Question("m", "The meeting opened at 7.35 pm and closed at 9.05 pm. How long did it last?", "1 hour 30 minutes")


@pytest.mark.parametrize("sentence", ["It ran for ninety minutes.", "It lasted 90 minutes.", "An hour and a half.",
                                      "It lasted 1.5 hours.", "I'd say 1 h 30 min rather than 1 h 70 min."])
def test_a_compound_quantity_answer_named_in_another_form_is_stated(sentence):
    assert ("reference_phrase", "m") in {(f.kind, f.question_id) for f in find_leaks(sentence, [MEETING])}, sentence


@pytest.mark.parametrize("sentence", ["Be careful subtracting clock times: an hour has 60 minutes, not 100.",
                                      "Read the times as hours and minutes, not decimals.",
                                      "Give the answer in hours and minutes."])
def test_the_unit_words_of_a_quantity_answer_name_nothing(sentence):
    assert find_leaks(sentence, [MEETING]) == []


# Options that write the same long unit after each number, a voltage, a sound level, a stiffness.
FLOW = Question("q", "Buses run every 3 minutes and carry up to 90 people. What is the hourly capacity one way?", "B",
                {"A": "5,400 people per hour per direction", "B": "1,800 people per hour per direction",
                 "C": "270 people per hour per direction", "D": "900 people per hour per direction"})
CELL = Question("e", "What is the open-circuit voltage of the cell?", "C", {"A": "0.85 V", "B": "1.10 V", "C": "1.50 V", "D": "2.00 V"})
NOISE = Question("n", "Which action level applies to the workshop?", "A", {"A": "85 dBA", "B": "80 dBA", "C": "90 dBA"})
STIFF = Question("y", "Which modulus does the laminate reach?", "D", {"A": "12 GPa", "B": "70 GPa", "C": "230 GPa", "D": "150 GPa"})
UNITS = [FLOW, CELL, NOISE, STIFF]


@pytest.mark.parametrize("sentence, question, letter", [
    ("Roughly 1.8 thousand people per hour per direction.", "q", "B"),
    ("Eighteen hundred an hour, one way.", "q", "B"),
    ("It's 1,800 or 270; recheck the buses per hour.", "q", "B"),
    ("The cell sits at about 1500 millivolts.", "e", "C"),
    ("Eighty-five decibels, A-weighted.", "n", "A"),
    ("Keep it under 85 dB(A).", "n", "A"),
    ("About 22 Msi.", "y", "D"),
    ("Your working should land near 1.5 × 10^11 Pa.", "y", "D"),
])
def test_a_value_names_an_option_whatever_unit_or_shared_words_follow_it(sentence, question, letter):
    named = {(r.question_id, r.letter) for r in option_refs(sentence, UNITS)}
    assert (question, letter) in named, sentence
    assert not {(q, x) for q, x in named if q == question and x != letter and "or" not in sentence}


def test_an_options_thousands_separator_is_no_decimal_point():
    # "1,800" is eighteen hundred: "1.8" is no option, and neither is the "800" of "1,800"
    assert option_refs("Is it 1.8 or 800?", [FLOW]) == []
    assert {r.letter for r in option_refs("Weigh 5,400 against 1,800, 270 and 900.", [FLOW])} == {"A", "B", "C", "D"}


# A phrase answer that is a decimal, and options that are places in a row.
INDEX = Question("i", "The ankle pressure is 96 mmHg and the arm pressure 160 mmHg. What is the index, to two decimal places?", "0.60")
SPACE = Question("z", "Between which toes does the nerve swell most often?", "D",
                 {"A": "First", "B": "Second", "C": "Fourth", "D": "Third"})


@pytest.mark.parametrize("sentence", ["The index here is 0.6.", "The ankle pressure is three-fifths of the arm pressure.",
                                      "It comes to 0.60."])
def test_a_decimal_answer_is_named_by_its_value_in_any_form(sentence):
    assert ("reference_phrase", "i") in {(f.kind, f.question_id) for f in find_leaks(sentence, [INDEX])}, sentence


@pytest.mark.parametrize("sentence", ["Divide 96 by 160 and round to two places.",
                                      "A normal index runs from about 0.9 to 1.3.",
                                      "1) Write a one-line reason for each option.",
                                      "4) Your tone was confident but the working was sparse."])
def test_a_number_that_counts_numbers_a_list_or_is_part_of_a_decimal_names_no_place(sentence):
    assert [r for r in option_refs(sentence, [SPACE, INDEX]) if r.question_id == "z"] == [], sentence


def test_a_place_written_as_a_place_still_names_its_option():
    assert {r.letter for r in option_refs("It is the third space, not the 2nd.", [SPACE])} == {"D", "B"}


PHOTOPEAK = Question("pk", "At what energy is the camera's window centred for the tracer's main photon? Give it with its unit.", "159 keV")


def test_the_unit_words_of_an_energy_answer_name_nothing_and_its_value_names_it():
    assert find_leaks("Keep keV and MeV apart in your working.", [PHOTOPEAK]) == []
    assert ("reference_phrase", "pk") in {(f.kind, f.question_id) for f in find_leaks("About 0.159 MeV.", [PHOTOPEAK])}


# A reading passage: what it says is what its question asks for, not data to work with.
NOTICE = Question("nt", "Passage: 'Members who renew before March keep their locker; the locker deposit is refunded within "
                  "21 days of a written request, and lost keys are replaced for a fee set each year by the committee.' "
                  "How soon must the club refund a locker deposit?", "21 days")
SUM = Question("sm", "A hall hire costs £80 and a cancellation 10 days ahead refunds half. How much is refunded?", "£40")


def test_a_value_of_a_reading_passage_names_its_answer_while_a_stems_data_names_none():
    assert ("reference_phrase", "nt") in {(f.kind, f.question_id) for f in find_leaks("Three weeks.", [NOTICE])}
    assert find_leaks("Start from the £80 fee and the 10 days before the event.", [SUM]) == []


TUBE = Question("tb", "What idle plate current per tube should you set?", "B", {"A": "19 mA", "B": "39 mA", "C": "56 mA", "D": "78 mA"})
REVIEW = Question("rv", "How often may the rent be reviewed?", "C",
                  {"A": "Every 12 months", "B": "Every 2 years", "C": "Every 3 years", "D": "Every 5 years"})
ECLIPSE = Question("ec", "Algol's primary eclipses recur with a period of about:", "A",
                   {"A": "2.87 days", "B": "11.2 days", "C": "27.7 days", "D": "332 days"})


def test_a_period_is_named_by_a_period_and_a_span_by_either():
    assert ("option_text", "tb") in {(f.kind, f.question_id) for f in find_leaks("Set each tube to about 0.039 A.", [TUBE])}
    assert ("option_text", "rv") in {(f.kind, f.question_id) for f in find_leaks("Reviews under the Act are triennial.", [REVIEW])}
    # a span of two years is no period of two years ...
    assert find_leaks("The rules for fixed terms of more than two years differ.", [REVIEW]) == []
    # ... but where no option recurs, a period names the span it lasts
    assert ("option_text", "ec") in {(f.kind, f.question_id) for f in find_leaks("Algol fades roughly every 69 hours.", [ECLIPSE])}


def test_a_letter_that_reads_a_code_is_no_place_in_the_list():
    assert find_leaks("Decode the system: the first letter gives the heater voltage.", [TUBE]) == []
    assert find_leaks("Count down and you land on the fourth letter.", [TUBE]) != []


def test_a_pace_and_a_speed_name_the_same_option_and_a_clock_time_is_no_pace():
    assert {r.letter for r in option_refs("At an even pace that is 12 km/h.", BATCHES["craft"])} == {"B"}
    assert {r.letter for r in option_refs("210 minutes over 42 km is 5 minutes per kilometre.", BATCHES["craft"])} == {"B"}
    assert not [q for q in quantities("Start at 4:30 pm and run each lap.") if q.measure == "speed"]


def test_a_quantity_answer_given_with_a_hedge_in_brackets_is_named_in_another_unit():
    kinds = {d.kind for d in find_leaks("It boils at roughly 212 °F.", BATCHES["craft"])}
    assert "reference_phrase" in kinds
    assert find_leaks("Give the temperature in °C, not °F, and say which pressure it assumes.", BATCHES["craft"]) == []


def test_and_lists_two_spoken_numbers_unless_it_follows_a_hundred_or_a_thousand():
    assert [n.value for n in spoken_numbers("between thirty and fifty per second")] == [30, 50]
    assert [n.value for n in spoken_numbers("four hundred and forty-three")] == [443]
    assert [n.value for n in spoken_numbers("two thousand and five")] == [2005]
    assert [n.value for n in spoken_numbers("nineteen eighty-nine")] == [1989]
