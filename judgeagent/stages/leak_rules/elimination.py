"""Eliminations that need no option named: a candidate ruled out by a pronoun or a verdict ("so he
isn't the answer", "is the wrong term here", "set him aside"), and, for a question without
options, a candidate negated ("Not Moltke.", "It is not glucagon, which raises blood sugar").
Options named with a negative judgement are in :mod:`~judgeagent.stages.leak_rules.options`."""

from __future__ import annotations

import re

from judgeagent.data.benchmark import Question
from judgeagent.stages.leak_finding import LeakFinding
from judgeagent.stages.leak_rules.exemptions import ANY_CANDIDATE, FORM, GENERAL
from judgeagent.stages.leak_rules.mentions import batch_wording, mentions_phrase
from judgeagent.stages.leak_rules.pointer import answerable
from judgeagent.stages.leak_rules.questions import PERSON_NOUNS, asked_for, asked_in
from judgeagent.stages.leak_rules.rule import Example, Reading, Rule, finding
from judgeagent.stages.leak_rules.text import compiled, identifying
from judgeagent.stages.leak_rules.vocabulary import alternation

# A verdict on a candidate as the answer, whatever names it (a phrase answer's rival, a value, a
# name the rules cannot read as an option): "so it isn't the answer", "is the wrong word here",
# "he can't be the one who ...", "set him aside", "don't put him down", "so that one is out",
# "that value can go", "reject it", "don't be tempted by it", "that is the one to keep".
# Said of "any figure" or under a condition ("if a value has the wrong units, reject it") it is
# a method, not a verdict.
_RULED_OUT = re.compile(
    r"(?i)\b(?:is|was|are|were|['’]s|['’]re)(?:\s+(?:definitely|certainly|clearly|probably|surely|simply|just))?(?:\s+not|n['’]t)\s+"
    r"(?:the\s+answer|what\s+the\s+question\s+(?:means|wants|asks|is\s+after|is\s+asking))\b"
    r"|\b(?:is|was|are|['’]s)(?:\s+not|n['’]t)\s+the\s+(?:word|term|name|answer|person|place|date|year|figure|value|one)\s+"
    r"(?:the\s+question|you)\s+(?:means|wants|asks\s+for|is\s+after|is\s+asking\s+for|need|want|are\s+after)\b"
    r"|\b(?:is|was|['’]s)\s+the\s+wrong\s+(?:word|term|name|answer|unit|value|choice|one|pick|figure|option|person|place|date|year)\b"
    r"|\b(?:is|was|['’]s)\s+the\s+wrong\s+[a-z]+(?:\s+(?:here|for\s+this|this\s+time))?\s*(?:[.;,!]|$)"
    r"|\bcan(?:['’]t|not)\s+be\s+(?:the\s+(?:one|answer|person|man|woman|place|term)|right|correct|it)\b"
    r"|\b(?:set|put|leave|cross|strike)\s+(?:him|her|it|them|that|this)(?:\s+one)?\s+(?:aside|out|off)\b"
    r"|\b(?:don['’]t|do\s+not)\s+(?:put|write|pick|choose|go\s+with|be\s+tempted\s+by)\s+(?:him|her|it|them|that|this)\b"
    r"|\b(?:so|then|and)\s+(?:that|this|it|he|she)\s+(?:one\s+|value\s+|option\s+|figure\s+|number\s+)?(?:is|['’]s)\s+out\b"
    r"|\b(?:that|this)\s+(?:one|value|option|figure|number|answer|choice)\s+(?:can|should|must)\s+go\b"
    r"|\b(?:reject|discard|discount|drop|eliminate|exclude|dismiss)\s+(?:it|him|her|that(?:\s+one)?|this(?:\s+one)?)\b"
    r"|\brul(?:e|ing)\s+(?:him|her|it|them|that\s+one|this\s+one)\s+out\b"
    r"|\b(?:that|this)\s+(?:statement|option|choice|answer|reading|interpretation|explanation|claim)\s+(?:is|was)\s+"
    r"(?:wrong|incorrect|false|a\s+trap|mistaken|out|ruled\s+out|excluded|eliminated|a\s+distractor)\b"
    # "so the decorative option is wrong": an option named by what it says
    r"|\bthe\s+(?!(?:right|correct|wrong|best|other|same|first|second|third|fourth|fifth|last|only)\b)[a-z][\w-]*\s+"
    r"(?:option|choice|statement)\s+(?:is|was)\s+(?:wrong|incorrect|false|out|ruled\s+out|a\s+trap|a\s+distractor)\b"
    r"|\b(?:so|then)\s+(?:it|he|she|that|this)\s+(?:would\s+be|is|['’]s)\s+(?:wrong|incorrect|not\s+(?:right|correct|it))\b"
    r"|\b(?:isn['’]t|is\s+not|wasn['’]t)\s+(?:who|what)\s+(?:you\s+want|the\s+question\s+(?:wants|is\s+after|means))\b"
    r"|\b(?:so|then|and)\s+(?:it|he|she|that|this)\s+(?:doesn['’]t|does\s+not|cannot|can['’]t|won['’]t)\s+(?:fit|qualify|work|apply)\b"
    # "so it wasn't him", "he's not the author", "it is not the one described", "it isn't the
    # right curve here", "so it can't be this one", "he can't be the author of the Principia"
    r"|\b(?:it|he|she|that|this)(?:\s+one)?(?:\s+(?:is|was)(?:\s+(?:probably|likely|clearly|certainly|surely|simply|just|really|definitely))?"
    r"(?:\s+not|n['’]t)|['’]s\s+(?:probably\s+|clearly\s+|certainly\s+|just\s+|really\s+)?not|\s+can(?:['’]t|not)\s+be)\s+"
    r"(?:him|her|them|this\s+one|that\s+one|the\s+one\b(?!\s+(?:thing|way|place|time|step|point|reason|factor)\b)|the\s+(?:right|correct)\s+[a-z]+|"
    r"the\s+(?:" + "|".join(sorted(PERSON_NOUNS)) + r")\b)"
    # "so don't name it", "so don't give his name"
    r"|\b(?:don['’]t|do\s+not)\s+(?:name|give|offer|use|write(?:\s+down)?|put(?:\s+down)?)\s+(?:it|him|her|that|this|his\s+name|her\s+name|that\s+name|this\s+name|that\s+one|this\s+one)\b"
)


def _wrong_kind(sentence: str, questions: list[Question]) -> bool:
    """"Golf is the wrong sport here": a candidate called the wrong one of what a question asks for."""
    nouns = {n for q in questions for n in asked_for(q.question)}
    if not nouns:
        return False
    alt = "|".join(sorted(map(re.escape, nouns)))
    return compiled(r"(?i)\b(?:is|was|['’]s)\s+(?:the\s+|a\s+)?wrong\s+(?:" + alt + r")s?\b").search(sentence) is not None


# "Not Moltke", "It is not the proton", "it is not the answer": a candidate answer to a
# question without options ruled out, with the contractions read as the full forms ("It's
# not", "It wasn't"). The thing negated must be a name or a noun phrase,
# so "It is not correct to rely on one symptom" is advice.
_NOT_CANDIDATE = re.compile(
    r"^\s*(?i:(?:it|this|that|the\s+answer|the\s+author|the\s+year)(?:\s+(?:is|was)\s+not|['’]s\s+not|\s+(?:is|was)n['’]t)"
    r"|(?:but\s+)?not)\s+"
    # "It is not the same", "It's not a matter of recall": what is said of the question, not a candidate
    r"(?:(?:the|a|an)\s+(?!(?:same|case|point|issue|matter|question|trick|problem|way|only|whole|end|time|kind|sort|type|reason|"
    r"idea|goal|aim|detail|fact|rule|test|puzzle|guess|memory|recall)\b)"
    # the kind of answer not wanted: "not a brand name, not a club nickname, not a translation",
    # "not a style of tea", "not a botanical variety"
    r"(?!(?:[\w'’-]+\s+){0,2}(?:names?|nicknames?|terms?|words?|translations?|descriptions?|labels?|phrases?|styles?|varieties|variety|"
    r"categor(?:y|ies)|class(?:es)?|famil(?:y|ies)|synonyms?|spellings?|abbreviations?|paraphrases?|definitions?)\b)"
    r"[A-Za-z][\w'’-]*|[A-Z][\w'’-]*|[a-z][\w'’-]*\s+[A-Z0-9]\b)"
    r"|(?i:\bis\s+not\s+the\s+answer\b)"
)


# The same with a common noun: "It is not glucagon, which raises blood sugar", "It's not air
# resistance and it's not tension". The noun must end its clause, so "It is not enough to ..."
# and "It's not about the date" stay advice, and it must not be a word that judges or qualifies
# ("It is not obvious.", "It's not wrong, just incomplete.").
_NOT_NOUN_CANDIDATE = re.compile(
    r"(?i:(?:^|[,;:]\s*|\b(?:and|but|so)\s+)(?:it|this|that)(?:\s+(?:is|was)\s+not|['’]s\s+not|\s+(?:is|was)n['’]t))\s+"
    r"(?P<noun>(?!(?:the|a|an)\b)[a-z][\w'’-]*(?:\s+[a-z][\w'’-]*)?)"
    r"(?=\s*(?:[,;:.!?—–)]|$)|\s+(?:which|that|who|and|but|nor|or|since|because|as|either|either)\b)"
)
_QUALIFIER = re.compile(r"(?i)^(?:" + alternation("qualifiers") + r")$")


def _names_a_candidate(sentence: str) -> bool:
    if _NOT_CANDIDATE.search(sentence):
        return True
    return any(not _QUALIFIER.match(m.group("noun")) for m in _NOT_NOUN_CANDIDATE.finditer(sentence))


def _ruled_out(reading: Reading) -> list[LeakFinding]:
    sentence, questions = reading.sentence, reading.questions
    if answerable(questions) and (_RULED_OUT.search(sentence) or _wrong_kind(sentence, questions)):
        return [finding(asked_in(sentence, questions), "elimination", sentence)]
    return []


def _negated(reading: Reading) -> list[LeakFinding]:
    phrase = [q for q in reading.questions if not q.options]
    if not phrase or not _names_a_candidate(reading.sentence):
        return []
    return [finding(phrase[0].id if len(phrase) == 1 else None, "elimination", reading.sentence)]


# An option named by its text or letter and struck out in so many words: "PDO can be ruled out",
# "Waterline length can be dismissed straight away", "rule out Utrecht", "the single-objection
# option can go". As plain as its letter stated: a list of five with one struck out is a list of
# four, and the learned layer never doubts it (leak_learned.UNDOUBTED). Not under a condition or a
# negation ("don't rule anything out before ...", "if a value has the wrong units, reject it"),
# and never "every option" or a method ("eliminate by definition").
_STRUCK_OUT = re.compile(
    r"(?i)\b(?:can|could|should|may|must)\s+(?:safely\s+|probably\s+|also\s+|quickly\s+|immediately\s+)?"
    r"(?:be\s+(?:ruled\s+out|dismissed|eliminated|discarded|crossed\s+(?:off|out)|struck\s+(?:off|out)|set\s+aside|dropped|rejected|excluded)"
    # ("The E-score can go - it's about ...")
    r"|go(?=\s*(?:[,;.:!—–]|\s-\s|$)))\b"
    # ("note that 147 g can't be right, since ...")
    r"|\bcan(?:['’]t|not)\s+be\s+(?:right|correct|the\s+answer)\b"
    # "the closed-fist statement is definitely out"
    r"|\b(?:statement|idea|option|claim|one|reading|explanation|choice|suggestion)\s+(?:is|['’]s)\s+"
    r"(?:(?:definitely|clearly|certainly|obviously|surely|simply)\s+)?out(?=\s*(?:[,;.:!—–]|\s-\s|$))"
)
_STRIKE = re.compile(
    r"(?i)\b(?:rule|cross|strike)\s+(?:out|off)\s+|\b(?:eliminate|dismiss|discard|reject)\s+|\b(?:set|put)\s+aside\s+"
    # ("You can drop 'no let' straight away"; not a noun, "the gravity drop")
    r"|(?:^\s*|[,;:]\s*|\b(?:can|could|should|must|may|to|just|simply|now|then)\s+)drop\s+"
)
# Or named first and then set aside: "Salmonella doesn't fit the clues, so set it aside".
_SET_IT_ASIDE = re.compile(r"(?i)\b(?:set|put)\s+(?:it|that(?:\s+(?:one|option|statement))?|this(?:\s+(?:one|option|statement))?)\s+aside\b")
_SET = re.compile(r"(?i)\b(?:set|put)\s+")
_ASIDE = re.compile(r"(?i)\s+aside\b")
_IF = re.compile(r"(?i)\b(?:if|unless|whether|before|until)\b")
_CONDITION = re.compile(r"(?i)\b(?:don['’]t|do\s+not|never|before|until|unless|if|whether|not|any|every)\b")


def _conditional(before: str) -> bool:
    return _CONDITION.search(before) is not None or GENERAL.search(before) is not None


def _struck_out(reading: Reading) -> list[LeakFinding]:
    sentence = reading.sentence
    named = [r for r in reading.option_refs if r.whole and r.how in ("text", "letter") and r.question_id]
    if not named or len({(r.question_id, r.letter) for r in named}) > 2:
        return []
    # (a condition or a method for any option comes before the verdict: "If an option has the wrong
    # date, it can be ruled out"; what follows it is its reason, "... so weigh each one")
    passive = _STRUCK_OUT.search(sentence)
    aside = _SET_IT_ASIDE.search(sentence)
    # (its reason comes first and may deny: "the height of flight is not what judges care about, so set that option aside")
    if aside and not _IF.search(sentence[: aside.start()]) and any(r.end <= aside.start() for r in named):
        return [finding(named[0].question_id, "struck_out", sentence)]
    if passive and not _conditional(sentence[: passive.start()]) and any(r.end <= passive.start() for r in named):
        return [finding(named[0].question_id, "struck_out", sentence)]
    for m in _STRIKE.finditer(sentence):
        # the option right after the verb: "rule out Utrecht", "eliminate option B"
        if not _conditional(sentence[: m.start()]) and any(m.end() <= r.start <= m.end() + 12 for r in named):
            return [finding(named[0].question_id, "struck_out", sentence)]
    for m in _SET.finditer(sentence):
        # the option between the verb and "aside": "You can set plus seven aside"
        if not _conditional(sentence[: m.start()]) and any(m.end() <= r.start <= m.end() + 12 and _ASIDE.match(sentence, r.end) for r in named):
            return [finding(named[0].question_id, "struck_out", sentence)]
    return []


NAMED_STRUCK_OUT = Rule(
    "elimination.named_struck_out",
    ("struck_out",),
    "an option named by its text or letter and struck out in so many words (\"PDO can be ruled out\", \"Waterline length can be "
    "dismissed\", \"rule out Utrecht\", \"the single-objection option can go\"), not under a condition or a negation",
    _struck_out,
    (),
    leaks=(
        Example("Utrecht can be ruled out, since it came much later.", "guard 44: fresh87, a whole message"),
        Example("For the treaty question, Utrecht can be dropped - it came later - so weigh each remaining one.", "guard 48: fresh95, a whole message"),
        Example("The Congress of Vienna can be dismissed straight away.", "guard 44: fresh88, a whole message"),
        Example("Rule out Utrecht first; it is too late.", "written for the rule"),
        Example("On the same question, you can set aside 'the Congress of Vienna' - it ended another war.", "guard 64: fresh126, a whole message"),
        Example("You can drop 'the Congress of Vienna' straight away.", "guard 64: fresh126, text_judgement"),
        Example("For the treaty, the Congress of Vienna is not what the dates point to, so set that option aside.", "guard 65: fresh105, a whole message"),
        Example("You can set plus five aside: it scores the zones in front of the area.", "guard 66: fresh129, text_judgement", "figures"),
        Example("The rotation statement can go; weigh the rest against how the land heats.", "guard 43: fresh83, a whole message", "values"),
        Example("The tide reading can go.", "guard 45: fresh90, text_judgement", "values"),
        Example("On the gas question, the argon option is definitely out; weigh the rest against what plants fix.", "guard 52: fresh102, a whole message"),
        Example("The E-score can go - it measures how well, not how hard.", "guard 52: fresh102, text_judgement", "scores"),
        Example("The idea that the tide pushes air ashore can be dropped; weigh the rest.", "guard 52: fresh102, a whole message", "values"),
        Example("For the treaty, the option about the congress can go - it ended another war.", "guard 66: fresh79, a whole message"),
        Example("Work it through, and note that 2,000 m can't be right, since the spread is only eight degrees.", "guard 66: fresh80, a whole message", "figures"),
    ),
    clean=(
        Example("Don't rule out Utrecht before you have dated it.", "written for the rule"),
        Example("Eliminate by definition rather than by feel.", "guard 44: fresh37, a whole message"),
        Example("If an option has the wrong date, it can be ruled out.", "written for the rule"),
    ),
)
# All options but two or three set aside by count: "Only two of the four statements are really
# plausible", "Only two of the statements have any footing in the letter - the ... and the ...".
# (That one option is right is any question's; "only two" of four or five is a shortlist.)
_COUNTED_SHORTLIST = re.compile(
    r"(?i)\bonly\s+(?P<n>two|three|2|3)\s+(?:of\s+(?:the\s+|these\s+)?(?:(?:four|five|six|4|5|6)\s+)?)?"
    r"(?:statements|options|choices|answers|candidates|explanations|readings|reasons|claims)\s+"
    r"(?:(?:really|actually|genuinely|even|truly)\s+)?(?:are|have|hold|make|fit|stand|survive|deserve|merit|remain|seem|look|carry|find)\b"
    r"[^.;]{0,40}?\b(?:plausible|possible|viable|credible|realistic|footing|support|sense|water|up|contenders?|serious|running|"
    r"consideration|supported|grounded|backed|defensible|standing)\b"
)
_COUNT = {"two": 2, "2": 2, "three": 3, "3": 3}


# Or a shortlist of three in the writer's own words, which need not be the options' ("It comes down
# to skipping both ways, skipping only on the way up, or landing in 4"; "I'd narrow the field to
# REVI, WTSP and SOSP"); every such sentence in the corpus narrows the options.
# (after "comes down to" or "it'll be" only as alternatives, with "or": "It comes down to reading the
# stem, the units and the options" is a method)
_SHORTLIST_OF_THREE = re.compile(
    r"(?i)(?:\bshortlist(?:ed)?|\b(?:real|realistic|serious|only)\s+(?:candidates|contenders)\s+(?:here\s+)?(?:are|remain)"
    r"|\bnarrow\w*\s+(?:it\s+|the\s+field\s+|things\s+)?(?:down\s+)?to)\s+"
    r"(?P<list>[^.;:!?,]{2,60},\s+[^.;:!?]{2,60}?,?\s+(?:or|and)\s+[^.;:!?,]{2,60})"
    r"|(?i:\bcomes?\s+down\s+to|\bit['’]ll\s+be|\bit\s+will\s+be|\bkeep\s+it\s+to|\bstick\s+to)\s+(?P<alternatives>[^.;:!?,]{2,60},\s+[^.;:!?]{2,60}?,?\s+or\s+[^.;:!?,]{2,60})"
    # ("It's one of three: a monthly draw, an auction, or allocation by the committee")
    r"|(?i:\b(?:it['’]s|it\s+is|the\s+answer\s+is)\s+one\s+of\s+(?:two|three|these|the\s+following)\s*[:—–-]?)\s+"
    r"(?P<among>(?:[^.;:!?,]{2,60},\s+)?[^.;:!?]{2,60}?,?\s+or\s+[^.;:!?,]{2,60})"
)


def _counted_shortlist(reading: Reading) -> list[LeakFinding]:
    m = _COUNTED_SHORTLIST.search(reading.sentence)
    if m is not None:
        count = _COUNT[m.group("n").lower()]
    elif (listed := _SHORTLIST_OF_THREE.search(reading.sentence)) is not None:
        items = listed.group("list") or listed.group("alternatives") or listed.group("among")
        if re.search(r"(?i)\bnot\b|n['’]t\b", items):  # a contrast, not a list: "Stick to the formula the stem gives, not Karvonen or Tanaka"
            return []
        count = items.count(",") + (1 if re.search(r",\s+(?:or|and)\s+[^,]*$", items) else 2)
        # a question without options has no count: the list holds its answer or not
        phrase = [
            q for q in reading.questions
            if not q.options and identifying(q.answer) and mentions_phrase(items, q.answer, batch_wording(q, reading.questions))
        ]
        if phrase:
            return [finding(phrase[0].id, "narrowed", reading.sentence)]
    else:
        return []
    if not any(len(q.options or {}) > count for q in reading.questions):
        return []
    return [finding(asked_in(reading.sentence, reading.questions), "narrowed", reading.sentence)]


COUNTED_SHORTLIST = Rule(
    "elimination.counted_shortlist",
    ("narrowed",),
    "all the options but two or three set aside by count (\"Only two of the four statements are really plausible\"), or a shortlist of three "
    "in any words (\"It comes down to X, Y or Z\", \"I'd narrow the field to X, Y and Z\"), fewer than a question has",
    _counted_shortlist,
    (),
    leaks=(
        Example("Only two of the four statements are really plausible: the one about the land and the one about the tide.", "guard 52: fresh101, listed", "values"),
        Example("Only two of the statements have any footing in the science - the land one and the tide one. The answer is one of those.", "guard 52: fresh101, listed", "values"),
        Example("It comes down to heating by day, cooling at night, or the pull of the tide.", "guard 64: fresh126, listed", "values"),
        Example("I'd narrow the field to LB, NS and TP, then test each against the clue.", "guard 64: fresh125, listed", "values"),
        Example("Keep it to LB, NS or TP.", "guard 65: fresh128, listed", "values"),
        Example("It's one of three: a stalemate, a draw, or a resignation.", "guard 66: fresh128, listed", "spoken"),
    ),
    clean=(
        Example("Only one of the statements is true, so weigh each against how land and sea heat.", "written for the rule", "values"),
        Example("Only two of the statements mention the tide; that alone decides nothing.", "written for the rule", "values"),
        Example("It comes down to reading the stem, the units and the options in that order.", "written for the rule", "values"),
        Example("It's one of three: a win, a loss, or a resignation.", "written for the rule", "spoken"),
        Example("Stick to the formula the stem gives, not the long form or the short one.", "guard 67: fresh132, a whole message", "values"),
    ),
)
CANDIDATE_RULED_OUT = Rule(
    "elimination.candidate_ruled_out",
    ("elimination",),
    "a candidate ruled out, whatever names it: a pronoun, \"that option\", a value, or the wrong one of what the question asks for",
    _ruled_out,
    (ANY_CANDIDATE,),
    leaks=(
        Example("So he isn't the answer.", "guard 5", "phrase"),
        Example("So that option is ruled out.", "guard 7: fresh6, fresh7"),
        Example("So the decorative option is wrong.", "fresh14"),
        Example("Argon is the wrong gas here.", "guard 5"),
        Example("So it wasn't him.", "guard 6", "phrase"),
        Example("Set him aside.", "guard 5", "phrase"),
    ),
    clean=(
        Example("If a value has the wrong units, reject it.", "guard 5"),
        Example("It is not the only way to date a treaty, but it is the quickest.", "written for the rule"),
        Example("He is not the one thing to remember here.", "guard 6", "phrase"),
    ),
)
CANDIDATE_NEGATED = Rule(
    "elimination.candidate_negated",
    ("elimination",),
    "for a question without options, a candidate answer negated (\"Not Moltke.\", \"It is not glucagon, which ...\")",
    _negated,
    (FORM,),
    leaks=(
        Example("Not Dickens.", "guard 3", "phrase"),
        Example("It is not the crust.", "guard 3", "phrase"),
        Example("It is not glucagon, which raises blood sugar.", "guard 6", "phrase"),
        Example("It's not air resistance and it's not tension.", "guard 6", "phrase"),
    ),
    clean=(
        Example("It is not obvious.", "guard 6", "phrase"),
        Example("It's not about the date.", "guard 6", "phrase"),
        Example("It is not enough to recall the date.", "guard 6", "phrase"),
        Example("The answer is not a brand name, not a club nickname.", "fresh16", "phrase"),
        Example("It is not a style of tea.", "fresh19", "phrase"),
        Example("It is not correct to rely on one clue.", "guard 3", "phrase"),
    ),
)
