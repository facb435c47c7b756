"""The answer stated outright: its letter ("the answer is C"), the correct option's text, or a
phrase answer's reference. These read the whole advice, question by question, before the
other rules (:func:`judgeagent.stages.leakage.find_leaks`); a finding of theirs is never
doubted by the learned layer."""

from __future__ import annotations

import re

from judgeagent.data.benchmark import Question
from judgeagent.stages.answers import normalize_phrase
from judgeagent.stages.leak_finding import LeakFinding
from judgeagent.stages.leak_normalize import fold, spoken_numbers, tokens
from judgeagent.stages.leak_rules.judgement import in_list
from judgeagent.stages.leak_rules.mentions import batch_wording, mentions_phrase, passage_name_named, states_option
from judgeagent.stages.leak_rules.naming import option_refs
from judgeagent.stages.leak_rules.quantities import Quantity, names_quantity, option_quantity, quantities
from judgeagent.stages.leak_rules.questions import ORDINALS, question_refs
from judgeagent.stages.leak_rules.refs import OptionRef
from judgeagent.stages.leak_rules.rule import Example, Reading, Rule, finding
from judgeagent.stages.leak_rules.text import FUNCTION, STOP, identifying, sentences, unlabelled

# An option letter ending a give-away phrase: "(C)", or a bare capital not followed by a
# lower-case word unless that word just goes on the sentence ("C because ..."): "select B
# cells" and "choose A drug" are English, not letters.
_GOES_ON = r"(?:because|since|for|as|in|on|and|or|but|so|here|there|which|this|that|to|is|was|before)\b"
_LETTER_END = r"(?:\((?P<paren>[A-Z])\)|(?P<letter>[A-Z])(?![\w'’-])(?!\s+(?!" + _GOES_ON + r")[a-z]))"
_CORRECT_AFTER = r"(?i:\s+(?:is|was)\s+(?:the\s+)?(?:correct|right|best|true|answer)\b)"
_LETTER_PATTERNS = [
    # "the answer is C", "correct answer: (C)", "the answer to question 2 is option C", "the right
    # choice is option C", "the correct option here is (B)"
    re.compile(
        r"(?i:\b(?:answers?(?:\s+(?:to|for)\s+(?:question\s*)?#?\d+)?|(?:correct|right|best|true)\s+(?:choice|option|pick|letter|selection)(?:\s+here)?)"
        r"\s*(?:is|was|would\s+be|should\s+be|=|:)\s*(?:probably\s+|likely\s+|clearly\s+|definitely\s+)?(?:option\s+|choice\s+|letter\s+)?)" + _LETTER_END
    ),
    # "choose C", "pick option (C)", "go with C", "I ended up on option B", "that puts you on D",
    # "it points to D"
    re.compile(
        r"(?i:\b(?:choose|pick|select|go\s+with|mark|opt\s+for|circle|end(?:ed)?\s+up\s+(?:on|with|at)|land(?:s|ed|ing)?\s+on|settled?\s+on|"
        r"(?:puts?|lands?|leaves?)\s+you\s+(?:on|with|at)|(?:gets?|brings?|takes?|leads?|steers?)\s+you\s+to|"
        # "the densest sits at C"
        r"(?:sits?|lies?)\s+at|"
        # "the sentence on one-off bookings points to option D", "the notice points clearly at D"
        r"point(?:s|ing)?\s+(?:you\s+)?(?:(?:straight|squarely|clearly|firmly|plainly)\s+)?(?:to|towards?|at))\s+"
        r"(?:option\s+|choice\s+|letter\s+)?)"
        + _LETTER_END
    ),
    # "Q1: Use D;", "I'd put C — then ...": "use" or "put" and a letter ending its clause ("use A =
    # A0 ..." is a formula)
    re.compile(r"(?i:\b(?:use|put(?:\s+down)?)\s+(?:option\s+|choice\s+|letter\s+)?)(?:\((?P<paren>[A-Z])\)|(?P<letter>[A-Z]))(?=\s*(?:[;.,!—–]|$))"),
    # "option C is correct", "choice (B) is the right answer"
    re.compile(r"(?i:\b(?:option|choice|letter)\s+)\(?(?P<letter>[A-Z])\)?" + _CORRECT_AFTER),
    # "(C) is right" anywhere; "C is the correct answer" only opening a sentence, since
    # "Vitamin C is the best source" is not about a letter.
    re.compile(r"\((?P<letter>[A-Z])\)" + _CORRECT_AFTER),
    re.compile(r"(?:^|(?<=[.!?:;\n])\s*)(?P<letter>[A-Z])(?i:\s+is\s+(?:the\s+)?(?:correct|right)\b)"),
    # "check your total against D": the working's end checked against one letter
    re.compile(
        r"(?i:\b(?:check|compare|test|confirm)\s+(?:your|the|that)\s+(?:[\w-]+\s+){0,2}?(?:total|answer|result|figure|sum|value|working|number|arithmetic|calculation|maths?)\s+"
        r"against\s+(?:option\s+|choice\s+|letter\s+)?)" + _LETTER_END + r"(?!\s*(?:,|and|or|to)\s*(?:option\s+)?\(?[A-Z]\b)"
    ),
    # "the reading is option B's quantity": what the question asks for, said to be one option's
    re.compile(r"(?i:\b(?:is|are|was)\s+(?:option|choice)\s+)(?P<letter>[A-Z])['’]s\b"),
    # "That leaves E", "which leaves B": the one letter left standing
    re.compile(r"(?i:\b(?:which|that|this)\s+leaves\s+(?:you\s+(?:with\s+)?)?(?:just\s+|only\s+)?(?:option\s+|choice\s+|letter\s+)?)" + _LETTER_END),
    # "Don't go past A on this one": the reading stops at one letter
    re.compile(r"(?i:\b(?:don['’]t|do\s+not|never)\s+(?:go|look|read|get|move)\s+(?:past|beyond)\s+(?:option\s+|choice\s+|letter\s+)?)" + _LETTER_END),
    # "C, once you remember that ...": a letter opening the advice, its reason after the comma;
    # "C - check the sentence that mentions Dana": before a dash (not a range, "A - E")
    re.compile(
        r"^\s*\(?(?P<letter>[A-Z])\)?,\s+(?i:once|because|since|as|given|after|though|although|but|for|which|if|when|assuming|provided)\b"
        r"|^\s*\(?(?P<dashed>[A-Z])\)?\s+[-–—]\s+(?!\(?[A-Z]\)?(?![\w'’]))"
    ),
    # "Short version: it's C", "that's option C.", "it's A; note that ...": the letter ending its clause
    re.compile(
        r"(?i:\b(?:it|that|this)(?:['’]s|\s+is|\s+(?:has\s+to|must|will|should)\s+be)\s+(?:option\s+|choice\s+|letter\s+)?)"
        r"(?:\((?P<paren>[A-Z])\)|(?P<letter>[A-Z]))(?=\s*(?:[;.,!—–]|\s-\s|$))"
    ),
]
_YES_NO_PATTERN = re.compile(r"\banswers?\s*(?:is|was|would\s+be|should\s+be|=|:)\s*[\"'“]?(yes|no)\b", re.I)


def option_text_leaks(suggestions: str, q: Question, questions: list[Question] | None = None) -> list[LeakFinding]:
    """The correct option named, by its text or a distinctive word of it (normalised), in a
    sentence that names no other option of the question beside it (words the batch is about
    name no option: mentions._mention_spans); an option that is a quantity, by its value in
    another form ("27 feet" for 8.23 m) that stands beside no other value."""
    correct = (q.options or {}).get(q.answer)
    if not correct:
        return []
    # Digits in the option's own form are numbers.py's (a bare value beside a verdict); a value in
    # another unit or in words was converted by the writer, which advice has no reason to do.
    # (A bare count is no measure: "these three questions" names no option "Three".)
    value = option_quantity(correct)
    quantity = value is not None and value.measure != "count"
    if not (quantity or identifying(correct)):
        return []
    # A one-word option that another question of the batch uses in its own text is that
    # question's word too ("Stroke" beside a question on the rowing stroke): met alone it
    # states no answer, and the rules that need a verdict beside it still read it.
    word = tokens(correct)
    if len(word) == 1 and any(word[0] in tokens(o.question) for o in questions or [] if o is not q):
        return []
    # Nor is a part of it that another question's options write too ("tenpins" of "Tenpin bowling",
    # beside "In a triangle, as in tenpin bowling"): advice on that question uses it. (Not another
    # question's text: a stem often describes the answer, "An ECG shows tall, peaked T waves".)
    elsewhere = {w for o in questions or [] if o is not q for text in (o.options or {}).values() for w in tokens(text)}
    for sentence in sentences(suggestions):
        refs = [r for r in option_refs(sentence, questions or [q]) if r.how == "text" and r.question_id == q.id]
        named = [r for r in refs if r.letter == q.answer and r.whole and not _part_used_elsewhere(fold(sentence)[r.start : r.end], correct, elsewhere)]
        if quantity:  # its value, not its unit's word ("count the months" names no "Six months")
            values = quantities(sentence)
            named = [r for r in named if any(v.start < r.end and r.start < v.end for v in values)]
            listed = len({r.letter for r in refs}) >= 2 or _among_values(sentence, named, values)
        else:
            listed = in_list(sentence, refs)
        if named and not listed and states_option(sentence, q, q.answer):
            return [finding(q.id, "option_text", correct)]
    return []


def _part_used_elsewhere(said: str, option: str, elsewhere: set[str]) -> bool:
    words = set(tokens(said))
    return words < set(tokens(option)) and words <= elsewhere


# What stands between the values of one list: "120 °C or 190 °C", "27, 28 and 29 feet".
_VALUE_GAP = re.compile(r"(?i)\s*(?:,|/|&|\band\b|\bor\b|\bto\b|\bversus\b|\bvs\.?|–|-)?\s*(?:(?:and|or)\s+)?")


def _among_values(sentence: str, named: list[OptionRef], values: list[Quantity]) -> bool:
    """Whether a value named stands in a list of the sentence's ``values``, which singles none out."""
    for ref in named:
        for other in values:
            if other.end <= ref.start and _VALUE_GAP.fullmatch(sentence[other.end : ref.start]):
                return True
            if other.start >= ref.end and _VALUE_GAP.fullmatch(sentence[ref.end : other.start]):
                return True
    return False


def reference_leaks(suggestions: str, q: Question, questions: list[Question] | None = None) -> list[LeakFinding]:
    ref = normalize_phrase(q.answer)
    if ref in ("yes", "no"):
        m = next((m for m in _YES_NO_PATTERN.finditer(suggestions) if m.group(1).lower() == ref), None)
        return [finding(q.id, "reference_phrase", m.group(0))] if m else []
    if not identifying(q.answer):
        return []
    if ref.isdigit() and any(n.value == int(ref) and (n.words > 1 or n.value >= 10) for n in spoken_numbers(suggestions)):
        return [finding(q.id, "reference_phrase", q.answer)]
    wording = batch_wording(q, questions or [q])
    others = [o for o in questions or [] if o is not q]
    if any(mentions_phrase(unlisted, q.answer, wording) or names_quantity(unlisted, q.answer, questions or [q])
           or passage_name_named(unlisted, q.answer, q.question)
           for unlisted in (_without_other_options(_without_option_lists(_without_own_label(sentence, q), others), q.answer, others)
                            for sentence in sentences(suggestions))):
        return [finding(q.id, "reference_phrase", q.answer)]
    return []


# The answer's place stated as its letter would be: "it's the second entry that contains both",
# "go with the fourth option", "the answer is the last one", "you end up on the middle option".
_PLACE_STATED = re.compile(
    r"(?i)\b(?:it['’]s|it\s+is|that['’]s|that\s+is|the\s+answer\s+is|go\s+with|pick|choose"
    r"|end\s+(?:up\s+)?(?:on|with|at)|land(?:s|ed|ing)?\s+on|lands?\s+you\s+on|leads?\s+you\s+to"
    # "The one that holds is the third statement"
    r"|the\s+one\s+(?:that|which)\s+(?:[\w'’-]+\s+){1,3}?(?:is|was))\s+the\s+"
    r"(?P<o>first|second|third|fourth|fifth|last|final|middle)\s+(?:one|option|choice|entry|answer|statement|item)\b"
)

# Or of a thing the question asks for: "the guideline is the third range listed", "it's the first
# item on the list that the rule demands".
_PLACE_LISTED = re.compile(
    r"(?i)\b(?:is|are|was|['’]s)\s+the\s+(?P<o>first|second|third|fourth|fifth|last|final|middle)\s+(?:[\w-]+\s+)?"
    r"(?:listed|on\s+the\s+list|in\s+the\s+list)\b"
)

# The same said of where the answer sits in the list: "the right one sits dead in the middle of
# the list", "the answer is at the bottom of the options".
_PLACE_IN_LIST = re.compile(
    r"(?i)\b(?:the\s+(?:right|correct|best)\s+(?:one|answer|option|choice|value|figure)|the\s+answer)\s+"
    r"(?:sits|is|lies|comes|falls|appears)\s+(?:(?:dead|right|exactly|smack|squarely|plumb)\s+)?(?:in|at)\s+the\s+(?:very\s+)?"
    r"(?P<o>middle|top|bottom|start|end|beginning)\s+of\s+the\s+(?:list|options|choices|range|order|(?:four|five|six)\b)"
)
# Or said to fit what the text says: "The reason given in the notice matches the first statement",
# "the vignette lines up with the second option"; not asked ("see whether it matches the first").
_PLACE_MATCHED = re.compile(
    r"(?i)\b(?:matches|fits|agrees\s+with|corresponds\s+to|lines\s+up\s+with|points\s+(?:you\s+)?to)\s+the\s+"
    r"(?P<o>first|second|third|fourth|fifth|last|final|middle)\s+(?:one|option|choice|entry|answer|statement|item)\b"
)
# Or said to be the one: "the second statement is the one that explains the call", "The opening
# statement is the one I'd stand behind", "the last option on the list is the one you want".
_PLACE_IS_THE_ONE = re.compile(
    r"(?i)\bthe\s+(?P<o>first|second|third|fourth|fifth|last|final|middle|opening|top|bottom)\s+(?:[\w-]+\s+)?"
    r"(?:one|option|choice|entry|answer|statement|item|value|figure|term|name|number|temperature|date|time)\s+"
    r"(?:(?:on|in)\s+the\s+list\s+|listed\s+)?is\s+the\s+one\b"
)
# Or sent to: "Look again at the middle option of the five", "Take another look at the second
# option", "look closely at the fourth tool on the list"; none of the corpus's clean advice does so.
_PLACE_LOOKED_AT = re.compile(
    r"(?i)\b(?:(?:look|focus|concentrate)(?:\s+(?:again|closely|hard|carefully|twice))?|take\s+(?:another|a\s+(?:second|closer|fresh))\s+look)\s+"
    r"(?:at|on)\s+the\s+(?P<o>first|second|third|fourth|fifth|last|final|middle|opening|top|bottom)\s+(?:[\w-]+\s+)?"
    r"(?:one|option|choice|entry|answer|statement|item|tool|value|figure|term|name|number)\b"
)
# Or said to win, or the right one said to sit at a place: "the second statement comes out on top",
# "line the four durations up from shortest to longest, the right window sits third".
_PLACE_WINS = re.compile(
    r"(?i)\bthe\s+(?P<o>first|second|third|fourth|fifth|last|final|middle|opening|top|bottom)\s+(?:[\w-]+\s+)?"
    r"(?:one|option|choice|entry|answer|statement|item|value|figure|reason|explanation|claim)\s+"
    r"(?:comes\s+out\s+(?:on\s+top|ahead|best|in\s+front)|wins(?:\s+out)?|holds\s+up\s+best|stands\s+up\s+best)\b"
    r"|\bthe\s+(?:right|correct|best)\s+(?:[\w-]+\s+)?(?:one|answer|option|choice|value|figure|range|window|time|date|amount|entry)\s+"
    r"(?:sits|comes|lands|falls|ranks|is)\s+(?:(?:dead|right|exactly|squarely)\s+)?(?P<p>first|second|third|fourth|fifth|last)\b"
    # (a place said of the answer, not of a step: not "the right time comes first thing")
    r"(?!\s+(?!and\b)[a-z]+)"
)
# (not asked or doubted: "see whether it matches the first", "Don't assume the first option is the one")
_ASKED_BEFORE = re.compile(r"(?i)\b(?:whether|if|which|what|does|do|did|until|unless|assume|assuming|suppose|expect|not|never)\b|n['’]t\b")
_DOUBTED_BEFORE = re.compile(r"(?i)\b(?:whether|which|what|does|do|did|assume|assuming|suppose|expect|not|never)\b|n['’]t\b")
_PLACE_WORDS = {"opening": "first", "top": "first", "start": "first", "beginning": "first", "bottom": "last", "end": "last", "middle": "middle"}


def _place_index(place: str, count: int) -> int:
    """Where ``place`` is in a list of ``count`` options (-1: nowhere; an even list has no middle)."""
    if place in ("last", "final"):
        return count - 1
    if place == "middle":
        return count // 2 if count % 2 else -1
    return ORDINALS[place] - 1


def letter_leaks(suggestions: str, questions: list[Question]) -> list[LeakFinding]:
    mc = [q for q in questions if q.options]
    letters = {letter.upper() for q in mc for letter in q.options or {}}
    leaks: list[LeakFinding] = []
    for pattern in _LETTER_PATTERNS:
        for m in pattern.finditer(suggestions):
            letter = m.groupdict().get("paren") or m.groupdict().get("dashed") or m.group("letter")
            if letter not in letters:
                continue
            named: list[str | None] = [q.id for q in mc if q.answer.upper() == letter] or [None]
            leaks.extend(finding(qid, "answer_letter", m.group(0).strip()) for qid in named)
    said = [*_PLACE_MATCHED.finditer(suggestions), *_PLACE_IS_THE_ONE.finditer(suggestions), *_PLACE_LOOKED_AT.finditer(suggestions)]
    matched = [m for m in said if not _ASKED_BEFORE.search(_clause_before(suggestions, m.start()))]
    # ("If you line them up ..., the right one sits third": a condition met, not a question)
    matched += [m for m in _PLACE_WINS.finditer(suggestions) if not _DOUBTED_BEFORE.search(_clause_before(suggestions, m.start()))]
    for m in [*_PLACE_STATED.finditer(suggestions), *_PLACE_IN_LIST.finditer(suggestions), *_PLACE_LISTED.finditer(suggestions), *matched]:
        word = (m.groupdict().get("o") or m.groupdict().get("p") or "").lower()
        place = _PLACE_WORDS.get(word, word)
        for q in mc:
            order = list(q.options or {})
            index = _place_index(place, len(order))
            if 0 <= index < len(order):
                leaks.append(finding(q.id if order[index].upper() == q.answer.upper() else None, "answer_letter", m.group(0).strip()))
    return list(dict.fromkeys(leaks))


def _clause_before(text: str, end: int) -> str:
    """The text before ``end`` back to the start of its clause."""
    return re.split(r"[.;:!?\n]", text[:end])[-1]


def _letters(reading: Reading) -> list[LeakFinding]:
    return letter_leaks(reading.sentence, reading.questions)


def _option_texts(reading: Reading) -> list[LeakFinding]:
    return [f for q in reading.questions if q.options for f in option_text_leaks(reading.sentence, q, reading.questions)]


def _references(reading: Reading) -> list[LeakFinding]:
    return [f for q in reading.questions if not q.options for f in reference_leaks(reading.sentence, q, reading.questions)]


# These read the whole text (a Reading of it all), not one sentence.
ANSWER_LETTER = Rule(
    "answer.letter",
    ("answer_letter",),
    "an option letter stated as the answer (\"the answer is C\", \"option C is correct\", \"the right choice is C\", \"go with B\", \"I ended up on option B\", \"that puts you on D\", \"brings you to B\", \"points to option D\", \"put C\", \"C, once you remember ...\", \"check your total against D\"), or its place so (\"it's the second entry\", \"you end up on the middle option\", \"the one that holds is the third statement\", \"the reason given matches the first statement\", \"the opening statement is the one I'd stand behind\", \"look again at the middle option\"), correct or not",
    _letters,
    leaks=(
        Example("The answer is C.", "guard 1"),
        Example("Pick option (B) here.", "guard 1"),
        Example("Option A is correct for the last one.", "guard 1"),
        Example("The answer to question 2 is option C.", "guard 1"),
        Example("The statute question turns on one subsection, and the right choice is option C;", "guard 28: fresh30"),
        Example("Q1: Use D; the other values belong to different thresholds.", "guard 34: fresh65"),
        Example("I worked it through from run-off and ended up on option B, but do check that reasoning.", "guard 40: fresh79"),
        Example("Reason from how often a stem is gripped; that puts you on D.", "guard 42: fresh83, a whole message"),
        Example("Divide by the ball length; if you don't end up at C, recheck the units.", "guard 65: fresh112, a whole message"),
        Example("On the treaty, the settlement is the third entry listed, so check that your reasoning supports it.", "guard 65: fresh105, a whole message"),
        Example("If I were you I'd stop agonising and put C — then make sure you can say why.", "guard 42: fresh83, position"),
        Example("Kneeling plus a single blade brings you to B; say why each clue matters.", "guard 44: fresh87, a whole message"),
        Example("For the treaty, the sentence on its signing points to option B.", "guard 58: fresh113, a whole message"),
        Example("C, once you remember that the grades run through letters.", "guard 44: fresh88, position"),
        Example("Convert the goals, add the points, and check your total against D.", "guard 45: fresh90, position"),
        Example("Read the four with the date in mind: it's the second entry that was signed in two towns.", "guard 46: fresh92, position"),
        Example("Count the membranes and you end up on the middle option of the five.", "guard 47: fresh93, a whole message"),
        Example("Lay the five out in order: the right one sits dead in the middle of the list.", "guard 54: fresh106, position"),
        Example("Read the stem again; the answer sits at the very top of the list.", "guard 57: fresh111, a whole message"),
        Example("Read each as a line of a rulebook; the one that holds is the third statement.", "guard 48: fresh96, a whole message"),
        Example("The reason given for the war's end matches the second option.", "guard 58: fresh113, position"),
        Example("Q1: the opening statement is the one I'd stand behind.", "guard 58: fresh89, a whole message"),
        Example("Date the four and you should end on the second option.", "guard 58: fresh104, a whole message"),
        Example("A careful count of the signatories should land you on the second option.", "guard 59: fresh115, a whole message"),
        Example("Look closely at the second name on the list and think about where it was signed.", "guard 59: fresh116, position"),
        Example("Take another look at the second option.", "guard 59: fresh108, position"),
        Example("Check your arithmetic against option D before you commit.", "guard 60: fresh118, position"),
        Example("Don't go past B on this one.", "guard 60: fresh118, position"),
        Example("Sort them by size; the largest sits at C.", "guard 61: fresh119, position"),
        Example("What the question wants is option C's organelle.", "guard 61: fresh120, a whole message"),
        Example("Go down the list and cross off each; that leaves B.", "guard 63: fresh120, position"),
        Example("Short version: it's C, and the date of signing shows why.", "guard 64: fresh118, position"),
        Example("C - check the sentence that mentions the treaty.", "guard 64: fresh125, position"),
        Example("Read each aloud and ask which a sailor would stand behind. Done that way, the first statement comes out on top.",
                "guard 68: fresh134, position", "values"),
        Example("If you line the four values up from smallest to largest, the right one sits fourth - check your working lands there.",
                "guard 68: fresh133, position", "values"),
    ),
    clean=(
        Example("Vitamin C is the best source of nothing here.", "guard 1"),
        Example("Which leaves a question for you: what ended the war?", "written for the rule"),
        Example("Select B cells from the list of cell types you know.", "guard 1"),
        Example("Choose A drug class before you choose a dose.", "guard 1"),
        Example("Use A = A0 × (1/2)^(t/T) and show each step.", "guard 34: fresh35"),
        Example("Whichever you end up on, say why in one line.", "written for the rule"),
        Example("A, B and C all name treaties; date each.", "written for the rule"),
        Example("A - D all name treaties; date each.", "written for the rule"),
        Example("Check your answer against A and B before you settle.", "written for the rule"),
        Example("Each date points to a different treaty; place them in order.", "written for the rule"),
        Example("Check whether the date in the stem matches the second option or the third.", "written for the rule"),
        Example("Don't assume the first option is the one to pick just because it comes first.", "written for the rule"),
        Example("Don't just look at the first option; read all four.", "written for the rule"),
        Example("Don't assume the right one sits first.", "guard 68: written for the rule", "values"),
    ),
)
OPTION_TEXT = Rule(
    "answer.option_text",
    ("option_text",),
    "the correct option's text, enough of its distinctive words, or its initials (little words too: \"ICOM\" for \"International Council of Museums\"; "
    "in capitals, more letters of a word, or a number word's digit: \"SSB\" for \"Single sideband\", \"1C2R\" for \"First cousin twice removed\"; "
    "two letters for an option of two words; the short form it gives itself in brackets: \"DQ\" for \"Disqualification (DQ)\"), a range among ranges written without its unit (\"4.5–5.5\" for \"pH 4.5–5.5\"), "
    "in a sentence that lists no other option beside it",
    _option_texts,
    leaks=(
        Example("Remember that the Peace of Westphalia is the usual culprit.", "guard 1"),
        Example("Think of MITOCHONDRION first.", "guard 1"),
        Example("The settlement (Peace of Westphalia) came after thirty years.", "guard 1"),
        Example("The answer to the ban question is tenpin bowling.", "guard 66: written for the rule", "pins"),
        Example("Here it's the BOE that sets them.", "guard 36: fresh70", "forms"),
        Example("At an even pace that is 12 km/h.", "guard 38: fresh72", "craft"),
        Example("On the soil question it's 4.5–5.5.", "guard 41: fresh81, listed", "codes"),
        Example("For the relation, write 1C2R.", "guard 41: fresh82, preference", "codes"),
        Example("Count roughly 21 around the rim.", "guard 51: fresh99, a whole message", "values"),
    ),
    clean=(
        Example("Compare Utrecht, the Peace of Westphalia and Versailles by their dates.", "guard 2"),
        Example("Relations are often written in short, such as 2C or 1C1R; spell yours out.", "written for the rule", "codes"),
        Example("Recall how the Treaty of Versailles ended a different war.", "guard 1"),
        Example("Compare the BOE and the ECB by what each one may set.", "written for the rule", "forms"),
        Example("Keep ninepins and tenpins apart in your head.", "guard 66: fresh127", "pins"),
        Example("Write the fraction as 30/400 first and simplify it before converting.", "guard 68: fresh133", "shares"),
    ),
)
# Between two items of a list: a comma, a semicolon or a slash, perhaps "and" or "or", and an article.
_ITEM_GAP = re.compile(r"(?i)\s*(?:[,;/]\s*)?(?:(?:and|or)\s+)?(?:(?:the|an?)\s+)?")


# A question named by words of its own text: "For the frame question, ...", "- Frame: think of ...".
_QUESTION_LABEL = re.compile(
    r"(?i)\bthe\s+(?P<topic>[\w'’-]+(?:\s+[\w'’-]+){0,2}?)\s+(?:question|item|problem)\b"
    r"|^\s*(?:[-•*]\s*)?(?P<label>[\w'’-]+(?:\s+[\w'’-]+){0,2}?)\s*:"
)


def _without_own_label(sentence: str, q: Question) -> str:
    """``sentence`` without a label that names the question by words of its own text ("the frame
    question" where it asks for "the triangular frame" whose answer is "A-frame"): it names the
    question, not the answer, even where the answer's only distinctive word is one of them."""
    own = set(tokens(q.question))

    def blank(m: re.Match) -> str:
        words = tokens(m.group("topic") or m.group("label") or "")
        return " " * len(m.group(0)) if words and all(w in own for w in words) else m.group(0)

    return _QUESTION_LABEL.sub(blank, sentence)


def _without_option_lists(sentence: str, others: list[Question]) -> str:
    """``sentence`` without each list of all of another question's options in their own words
    ("define deckle, couch, felt, post and vat" beside the phrase answer "couching"): the batch
    shows the target those words already, as that question's options, and a list of every one
    of them singles none out. A list one short is kept: it leaves the last."""
    low = sentence.casefold()
    cuts: list[tuple[int, int]] = []
    for o in others:
        texts = [t.strip().casefold() for t in (o.options or {}).values() if t.strip()]
        if len(texts) < 3:
            continue
        found = sorted((m.start(), m.end()) for t in texts if (m := re.search(r"(?<!\w)" + re.escape(t) + r"(?!\w)", low)))
        if len(found) == len(texts) and all(_ITEM_GAP.fullmatch(low[a[1] : b[0]]) for a, b in zip(found, found[1:])):
            cuts.append((found[0][0], found[-1][1]))
    return _cut(sentence, cuts)


def _cut(sentence: str, spans: list[tuple[int, int]]) -> str:
    for start, end in sorted(set(spans), reverse=True):
        sentence = sentence[:start] + sentence[end:]
    return sentence


def _without_other_options(sentence: str, answer: str, others: list[Question]) -> str:
    """``sentence`` without the answer's words where they stand in another question's option,
    written with a word of that option beside them ("the pilot chute pouch" for the option "It
    holds the pilot chute in its pouch", beside the phrase answer "pilot chute"): they name that
    option, which the batch shows the target already."""
    low = fold(sentence)
    if len(low) != len(sentence):  # folding moved the offsets: leave the sentence whole
        return sentence
    said = re.compile(r"(?<!\w)" + re.escape(fold(answer)) + r"(?!\w)")
    cuts: list[tuple[int, int]] = []
    for o in others:
        for text in (o.options or {}).values():
            if not said.search(fold(text)):
                continue
            beside = set(tokens(text)) - set(tokens(answer)) - STOP - FUNCTION
            for m in said.finditer(low):
                near = tokens(low[max(0, m.start() - 30) : m.start()])[-2:] + tokens(low[m.end() : m.end() + 30])[:2]
                if beside.intersection(near):
                    cuts.append(m.span())
    return _cut(sentence, cuts)


# The answer in a script other than the Latin ("In Japanese it's written 撥", "Think of 김장 and
# write that in Latin letters"): to read it is to know the answer, and nothing else is written so
# in advice on an English batch. Not Greek, which science writes in Latin text (Δ, μ, λ).
_OTHER_SCRIPT = re.compile(
    "[\u0400-\u04ff\u0590-\u05ff\u0600-\u06ff\u0900-\u097f\u0e00-\u0e7f\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]+"
)
# A name in quotes said to be the one wanted: "menus translate them as 'Russian pierogi', which is
# the name being asked for", "you'll see it written 'tjap', and that old spelling is the word they
# want". (Without the quotes, "that is the name you're after" may end a description.)
_QUOTED_NAME = r"['‘\"“](?P<name>[^'’\"”]{1,40})['’\"”]"
_NAME_WANTED = re.compile(
    _QUOTED_NAME + r"[^.;!?]{0,80}?\b(?:that|which|this|it)(?:\s+[\w-]+){0,2}?(?:['’]s|\s+is)\s+(?:exactly\s+|precisely\s+|just\s+)?"
    r"(?:the|your)\s+(?:word|term|name|item|answer|thing|one)\s+(?:(?:they|you|the\s+question|the\s+grader)\s*"
    r"(?:want|need|are\s+after|is\s+after|['’]re\s+after|['’]re\s+looking|are\s+looking|is\s+looking)|being\s+asked\s+for|asked\s+for)",
    re.IGNORECASE,
)


# A quoted name told to be written: "Write 'ponty', or however your studio spells it".
# (not "Write 'not given' if the passage does not say": a form for a case)
_WRITE_THIS = re.compile(r"(?i)^\s*(?:just\s+|simply\s+)?(?:write|put(?:\s+down)?)\s+" + _QUOTED_NAME + r"(?!\s*,?\s*(?:if|when|unless|only\s+if)\b)")


def another_form_leaks(suggestions: str, questions: list[Question]) -> list[LeakFinding]:
    """A phrase answer written in another script, or a quoted name said to be the one wanted,
    sentence by sentence (the first such sentence)."""
    phrase = [q for q in questions if not q.options and identifying(q.answer)]
    if not phrase:
        return []
    # what the batch itself writes, in any script, names no answer
    shown = " ".join(q.question + " " + " ".join((q.options or {}).values()) for q in questions).casefold()
    for sentence in sentences(suggestions):
        given = [m.group(0) for m in _OTHER_SCRIPT.finditer(sentence)] + [m.group("name") for m in _NAME_WANTED.finditer(sentence)]
        given += [m.group("name") for m in [_WRITE_THIS.match(unlabelled(sentence))] if m]
        if any(g.casefold() not in shown for g in given):
            named = {r.question_id for r in question_refs(sentence, questions)}
            asked = [q for q in phrase if q.id in named] or phrase
            return [finding(asked[0].id if len(asked) == 1 else None, "reference_phrase", sentence.strip())]
    return []


def _another_form(reading: Reading) -> list[LeakFinding]:
    return another_form_leaks(reading.sentence, reading.questions)


ANOTHER_FORM = Rule(
    "answer.another_form",
    ("reference_phrase",),
    "a phrase answer in another script (\"In Japanese it's written 撥\"), a name in quotes told to be written (\"Write 'ponty'\"), or said to be the one wanted (\"menus translate "
    "them as 'Russian pierogi', which is the name being asked for\"); never what the batch itself writes",
    _another_form,
    leaks=(
        Example("In Japanese the place is written 深淵; give its usual English name.", "guard 58: fresh114, answer_variant", "phrase"),
        Example("If you can read 地球温暖化, you already have the answer; give it in English.", "guard 58: fresh113, answer_variant", "phrase"),
        Example("Old atlases print it as 'the Challenger Hole', which is the name being asked for.", "guard 58: fresh114, answer_variant", "phrase"),
        Example("You'll see 'globle warming' in old almanacs, and that old spelling is the term they want.", "guard 58: fresh114, answer_variant", "phrase"),
        Example("Write 'the Challenger', or however your atlas spells it.", "guard 59: fresh115, answer_variant", "phrase"),
    ),
    clean=(
        Example("Romanised Japanese is fine; you don't need the characters.", "guard 58: fresh114", "phrase"),
        Example("Write Δ for the change in temperature if it helps.", "written for the rule", "phrase"),
        Example("The answer is a name of its own; that is the name you're after.", "guard 58: fresh16", "phrase"),
        Example("Call it 'hot weather' and you'll miss; give the term the question wants.", "written for the rule", "phrase"),
        Example("Write 'not given' if the passage does not say.", "written for the rule", "phrase"),
    ),
)
REFERENCE_PHRASE = Rule(
    "answer.reference_phrase",
    ("reference_phrase",),
    "a phrase answer named: its text, without spaces, a slip, another form, its initials (\"HCM\" too, for \"hypertrophic cardiomyopathy\"; two in quotes, \"'RD'\"; a count as its digit, \"F2L\"), the words a one-word answer contracts (\"kara okesutora\"), "
    "or spelt out; a compound written as one word (\"sidelap\") or a long word in hyphenated parts (\"cross-overs\"), initials before a hyphen (\"PAT-tested\") or with an article inside (\"SOTG\"), a pair of numbers joined "
    "another way (\"10-20\" for \"10/20 rule\"), the one place an answer names (\"7th\" or \"VII\" for \"seventh position\"); either form of an answer given with a second in brackets, and the initials of the first; a quantity in any unit, "
    "one of a list that writes its unit once (\"6, 8 or 10 minutes\"), a value in two units (\"ninety minutes\" for \"1 hour 30 minutes\", whose "
    "unit words alone name nothing), a pace as a speed; a longer answer's last word only beside another of its words; "
    "an answer's common word only with its number (\"Table 6\"); a one-term hyphenated answer's first word only with the rest; "
    "never a word of a list of every option of another question, nor the answer's words with a word of another question's option beside them "
    "(\"the pilot chute pouch\"), which the batch shows already",
    _references,
    leaks=(
        Example("It was Jane Austen.", "guard 1", "phrase"),
        Example("Think of nineteen eighty-nine.", "guard 6", "phrase"),
        Example("The layer is the M-A-N-T-L-E.", "guard 5", "phrase"),
        Example("Think of the Challenger Deep.", "guard 1", "phrase"),
        Example("It's 6, 8 or 10 minutes; work it out from the distance.", "guard 24: fresh37, fresh45, fresh46", "phrase"),
        Example("A match runs for ninety minutes before stoppages.", "guard 28: fresh54", "phrase"),
        Example("The answer is usually abbreviated HCM.", "guard 34: fresh65", "forms"),
        Example("This stage is F2L - write out what the letters stand for.", "guard 62: fresh121, answer_variant", "shortened"),
        Example("The word comes from 'kara okesutora', an empty orchestra; give the usual short form.", "guard 62: fresh122, answer_variant", "shortened"),
        Example("Case notes shorten it to 'hc', so you have seen it before.", "guard 57: fresh112, answer_variant", "forms"),
        Example("The standard term is seasonal performance factor.", "guard 34: fresh66", "forms"),
        Example("Report it as the SPF.", "guard 34: fresh66", "forms"),
        Example("Also known as seasonal performance figure.", "guard 35: fresh67", "forms"),
        Example("It's the CMA that makes it an offence.", "guard 36: fresh72", "forms"),
        Example("It boils at roughly 212 °F.", "guard 38: fresh74", "craft"),
        Example("It leaves from platform four, at the far end.", "written for the rule", "terms"),
        Example("On the way out you may meet a silt-out.", "written for the rule", "terms"),
        Example("Think about the sidelap between neighbouring slates.", "guard 43: fresh84, answer_variant", "trades"),
        Example("Each kettle is now PAT-tested before it goes home.", "guard 43: fresh84, answer_variant", "trades"),
        Example("Every guard has to pass the 10-20 drills first.", "guard 43: fresh86, answer_variant", "trades"),
        Example("Players pencil '7th' above the note.", "guard 43: fresh86, answer_variant", "trades"),
        Example("You may see a Roman numeral VII above a low note.", "guard 43: fresh86, answer_variant", "trades"),
        Example("The corner stalls now go out in a weekly draw.", "guard 66: fresh128, listed", "spoken"),
        Example("Walkers gather at the Tannery this year.", "guard 66: fresh129, answer_variant", "notice"),
        Example("Players love acronyms and shorten it to SOTG.", "guard 45: fresh89, answer_variant", "trades"),
        Example("The strides you're describing are 'cross-overs'; give their name in full.", "guard 47: fresh93, answer_variant", "rulings"),
        Example("The small chute you throw first is the pilot chute.", "written for the rule", "gear"),
        Example("Roofers mark it 'SL' on the drawings, so give its full name.", "guard 50: fresh95, answer_variant", "trades"),
        Example("Plumbers write it LWCO on the wiring diagram.", "guard 55: fresh107, a whole message", "trades"),
        Example("In the end both players drew, so name that outcome.", "guard 60: fresh116, answer_variant", "spoken"),
        Example("Most visitors just say tourist info.", "guard 60: fresh117, a whole message", "spoken"),
        Example("Ask at the touristinfo desk.", "guard 60: fresh117, answer_variant", "spoken"),
        Example("If a recipe tells you to 'mash' the potatoes, name the tool behind that verb.", "guard 61: fresh119, a whole message", "spoken"),
    ),
    clean=(
        Example("Find the sentence that says where walkers meet, and quote it.", "written for the rule", "notice"),
        Example("Recall which novelists wrote about Bath.", "guard 1", "phrase"),
        Example("Mash nothing yet: first say what the tool does to a boiled potato.", "written for the rule", "spoken"),
        Example("Name the stage in full words; if you know it only by its initials, write out what each stands for.", "written for the rule", "shortened"),
        Example("Give the Japanese word in its usual short form, not the English phrase for it.", "written for the rule", "shortened"),
        Example("Let the legs cross over before the block, then plant.", "written for the rule", "rulings"),
        Example("The ocean is deep there, far from any coast.", "guard 5", "phrase"),
        Example("The wall stood for twenty-eight years.", "guard 6", "phrase"),
        Example("Sections 6, 8 and 10 of your notes cover it; give the time in minutes.", "written for the rule", "phrase"),
        Example("Ask which warming the question describes, and how it is measured.", "guard 27: fresh39, fresh50", "phrase"),
        Example("Read the clock as hours and minutes, not as decimals.", "guard 28: fresh54", "phrase"),
        Example("Ask whether an HCG test result would change anything here.", "written for the rule", "forms"),
        Example("Say what the reed, heddle, shuttle and treadle each do before you answer.", "guard 38: fresh75", "craft"),
        Example("The platforms are numbered; give the number with the word.", "guard 40: fresh79", "terms"),
        Example("Exits can take longer than entries, for example because of silt or current.", "guard 40: fresh77", "terms"),
        Example("Count the positions from first to seventh before you choose.", "written for the rule", "trades"),
        Example("On the slider, weigh every option, including the one about the pilot chute pouch.", "guard 50: fresh71, a whole message", "gear"),
        Example("Time yourself: spot within 10 seconds, reach within 20.", "written for the rule", "trades"),
    ),
)
ANSWER_RULES = (ANSWER_LETTER, OPTION_TEXT, REFERENCE_PHRASE, ANOTHER_FORM)
