"""Rules for the give-aways that do not state the answer outright: options judged, positions,
and which seed answers were right.

The target re-answers the very questions the suggestions were written for, so it gains from
anything that singles an option out or narrows its options. The rules read meaning, not
templates:

* **An option named** is any mention of it: its letter ("option B", "B and A on Q1"), its
  position ("the final option", "the first two options", "the top choice"), its whole text
  or any of its *distinctive* words ("Versailles" for "Treaty of Versailles", "doxy" for
  "Doxycycline", "CTPA" for "CT pulmonary angiography"), all compared after the one
  normalisation of :mod:`judgeagent.stages.leak_normalize` (case, punctuation, apostrophes,
  plurals, articles). A distinctive word is one of the option's own words that the
  question's stem and its other options do not use and that is not a class noun
  ("disease", "drug"): "Treaty" is in every option of a treaty question, so it names none.
* **A judgement** anywhere in the same sentence about a named option makes it a leak:
  positive ("the drug of choice", "classic", "fits"), negative ("premature", "pointless",
  "a trap", "no role", any negation), comparative ("rather than", "over", "beats",
  "before") or conditional ("would only be reasonable if"). ``elimination`` when the
  judgement is negative, ``pointer`` otherwise.
* **Singling out**: a sentence that asserts something of exactly one option of a question
  ("This is textbook hearsay.", "Start her on cabergoline tablets.") points at it even
  without an evaluative word; a study instruction ("Recall what parvovirus B19 does to the
  cheeks", "Compare heparin and clopidogrel", also offered as help: "It may help to consider
  how ...") does not, unless it judges. An option letter
  or position is a pointer whatever the sentence says, since advice has no reason to name one.
* **The answer asserted by description**: a sentence whose subject is what the question asks
  for (the noun after its "which"/"what") or "the answer", stated to be something ("The right
  drug here is the vitamin K antagonist ...", "It's the organelle with its own DNA", "The
  river that flows into the Atlantic near Belem") is a ``pointer``, whichever option it
  describes: advice says what to study, not what the answer is. A criterion is not such a
  description ("The answer is the quantity that differs": one verb, no fact about any
  option), since it only restates the test the question sets.
* ``disclosure``: any verdict on the target's earlier answers or reasoning ("Your reasoning
  on the thyroid question was sound", "Question three: you had it", "Only the interest rate
  answer was right"), unless it is an instruction to check ("Make sure your answer is
  correct").

Issue 33 (seven subjects besides medicine, written by someone who never read these rules)
added wordings of the same give-aways, each read from the question's own wording and options:

* **Letters anywhere**: a lone option letter is a pointer wherever it stands, also as the last
  step of a worked sequence ("Step 3: that gives C", "ridge D, ozone A"), unless it is a unit
  ("25 °C"), a symbol ("E = hf"), an initial ("E. M. Forster") or part of a name ("Company B").
* **Positions in the list** without the word "option": "the fourth battle listed", "of the five
  elements listed, the last one", "the last of the four boundary types", "listed third",
  "second from the bottom"; never the question's own words ("first ionisation energy"), the
  batch's questions ("the last of the three items"), or an order of work ("from the first to
  the last", "each in turn").
* **Disclosure in any quantifier**: "all but one hold up", "everything is correct except the
  ... item", "two of three stand", "the exception is the one about", "two right, one wrong",
  "your only slip", "the name you gave is not the right one".
* **The writer's pick** ("I'd go with the battle fought on the south coast", "the safer bet is
  ..."), and **verdicts on a candidate** a rule cannot read as an option ("so he isn't the
  answer", "is the wrong term here", "set him aside"), unless said of any candidate or under a
  condition ("if a value has the wrong units, reject it").
* **Options that are numbers** ("3", "128", "4 m/s²") are named by their value, not by the
  stem's own data in a worked step.

The second session of issue 33 read the same give-aways in more wordings, all from the
question's own list and wording, none from a list of answers:

* **A place said to be right** needs no list word ("the fourth one is the match", "The third one
  it is", "that corresponds to C", "in second place"); "the middle one" is a place when the
  options are odd in number; "the five substances ... the fourth one" counts along the options.
  A range of letters ("among A to E") names them all.
* **A verdict on what the target gave**, in any tense: "the dynasty you chose there won't
  survive the check", "the desert and wind answers are correct", "your answer there doesn't
  fit", "the one answer in this batch that needs correcting", "where you slipped", "You got
  the rock and the current", "the others are sound".
* **A candidate ruled out by a pronoun** after it is named ("so it wasn't him", "so he's not
  the author", "it isn't the right curve here", "so don't name it"), or by "It is not" and a
  common noun that ends its clause ("It is not glucagon, which ..."), never a qualifier ("It
  is not obvious").
* **Numbers in words**: "nineteen eighty-nine" names 1989 and "Seven, not nine." the option 7;
  a lone number word elsewhere counts ("the three questions", "differ by exactly one").

Two more groups of that session (fresh4 and fresh5, each read only after it had measured the
guard once) brought options of other shapes, and advice that names them without judging:

* **An option that is a statement** ("Predators migrate away whenever prey are abundant") shares
  its words with any advice on the topic: it is named by two of its words close together, never
  by one; and one everyday word (Zipf >= 5: "different", "know") names no option at all. A
  parenthesis glosses a name ("Type IIx (fast glycolytic) skeletal fibres" is a name).
* **Options that share a word** ("Vitamin A" beside "Vitamin C", read as "vitamin"): that word
  names none of them. A fraction ("3/16") is named by its own text, never by its numerator.
* **A sentence asked of every option** ("note for each option whether ...", "each of the five
  vitamins, C, D, K, B12 and A") or warning against a confusion singles none out, unless it also
  says which is right. A range of letters ("A through E", "A–D", "between A and E") names all.
* **Praise of a skill** ("You seem to remember the terms well", "Your reasoning is solid on
  definitions") tells no answer: said of "you" in the present, only right or wrong discloses.
  Nor does praise of the form of earlier answers ("Your write-up was clear and well reasoned",
  "You kept it short, which is the right format"): :func:`praise_of_form`.
* **Beside a proper name, an answer's lower-case words are class nouns** ("limit" of "Roche
  limit"), and another form of one word of a longer answer ("genetics") is that word's own.

fresh6 and fresh7 (the same way) added: "keep your answer on X", "only one item is wrong", places
picked with a noun ("pick the third date range", "it's the second statement", "that leaves the
fourth"), the writer's lean between two ("the later one feels more consistent"), verdicts through
"that option" ("so that option is ruled out", "that one is correct"), names without their gloss
or "c." ("body-centred cubic" for "body-centred cubic (BCC)"); and letters listed for every option
("Options A, B, C and D each describe ...") are even.

And what is never a leak: a list naming every option side by side ("Go through lithium,
oxygen, nitrogen, fluorine and neon one at a time and justify each"), or some of them when the
sentence asks the same of each ("Review what lithium, sodium and potassium each do"), since a
question put to every member of a list singles none out (unless it condemns them all, which
narrows the options); an option's own words ("Right coronary artery", "No change", "Best
ball"), which are its name, not a verdict on it; a question left open ("ask whether the
contract was breached", "consider when surgery is preferred"), which is what the target is to
decide, not what the writer asserts; a word of an option inside a longer name of another
("Tom" of "Tom Stoppard" beside an option "Tom Buchanan"), which names that other; the kind of answer a
question wants ("a person, not a place", "the answer is a single word"); a warning against
confusing two ideas ("A heap is often confused with a stack"); one word of an option that
another question of the batch is about, or a title's word written in lower case ("the sea");
one everyday word of a phrase answer met without the rest of it ("the ocean is deep there"
beside "Challenger Deep", "the cost of a choice" beside "opportunity cost"), since advice
needs such words in their ordinary sense, and a common word that only resembles the answer
("similar" beside "simile"), which is a word of its own, not a slip.

Each finding is a :class:`~judgeagent.stages.leak_finding.LeakFinding` whose ``kind`` is the rule that fired.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from dataclasses import dataclass

from judgeagent.data.benchmark import Question
from judgeagent.stages.answers import normalize_phrase
from judgeagent.stages.leak_finding import LeakFinding
from judgeagent.stages.leak_normalize import VARIANT_MIN, contains, fold, near_miss, same_word, spoken_numbers, stem, tokens

RULES = ("elimination", "disclosure", "pointer")


@functools.lru_cache(maxsize=4096)
def compiled(source: str) -> re.Pattern:
    """``source`` compiled once. For the patterns built from a question's, an option's or a word's
    text: re's own cache holds 512 patterns, and a batch's built patterns overflowed it, so they
    and the fixed patterns read through ``re.search`` were compiled again and again."""
    return re.compile(source)


# Answer texts too short or too generic to identify anything when mentioned.
_GENERIC_ANSWERS = {
    "yes", "no", "true", "false", "none", "all", "both", "neither", "none of above", "all of above", "none of these",
    "all of these", "cannot be determined", "not enough information", "insufficient information",
}
_MIN_ANSWER_CHARS = 3

# Words that never single out an option on their own: grammar, and the class nouns that
# options share in spirit even when not in letter ("disease", "test", "drug").
_STOP = frozenset(
    tokens(
        "a an the of to in on at for by with from and or nor but not no is are was were be been it its this that these those "
        "as than then so very any all some each every only alone just also other others own same such one two more most less "
        "least into onto over under about after before between during without within against up down out off "
        "disease diseases syndrome syndromes disorder condition test tests scan scans therapy treatment treatments drug drugs "
        "agent agents medication type class principle evidence question answer option choice patient case care use "
        "effect effects cause causes process law laws rule thing things way kind form level factor system acid "
        "it tend tends tended"
    )
)
# Words that name nothing, never a distinctive word of an option ("how" of "fixing how it sits in
# the wind", fresh17). Kept apart from _STOP, which also decides what a statement is.
_FUNCTION = frozenset(
    tokens(
        "how which what who whom whose where when why whether because if there their they them he she his her we you "
        "your our us can could would should will may might must do does did has have had"
    )
)
_MIN_DISTINCTIVE = 3  # letters in a distinctive stem; a shorter word must match as a whole text
_ABBREVIATION_MIN = 4  # "doxy" for "doxycycline": a prefix this long of a word of 7 letters or more
_STATEMENT_WORDS = 4  # an option with this many content words is a statement, not a name

_ORDINALS = {"first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "top": 1}
_LAST = {"last", "final", "bottom"}
_NUMBER_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
# Words after which a capital letter names a thing, not an option.
_NAMING = {
    "vitamin", "vitamins", "hepatitis", "type", "types", "group", "groups", "class", "factor", "grade", "stage",
    "phase", "plan", "protein", "proteins", "complex", "cluster", "zone", "lane", "level", "schedule", "category",
    "immunoglobulin", "ig", "hla", "hemoglobin", "haemoglobin", "influenza", "coxsackie", "serotype", "strain",
    "apolipoprotein", "lipoprotein", "cell", "cells", "wave", "waves", "point", "item", "list", "blood", "rh",
    "fibre", "fiber", "fibres", "fibers", "band", "bands", "channel", "receptor", "receptors", "kinase", "ring",
    "from", "to", "parvovirus", "b",
}
# Words that may follow an option letter when the sentence goes on ("C fits", "B and A on Q1");
# any other lower-case word makes the capital part of a noun phrase ("B cells", "A patient").
_GOES_ON = (
    "is|are|was|were|be|fits?|seems?|looks?|works?|matches|makes|gives|has|have|had|remains|stays|"
    "should|would|could|can|cannot|can't|may|might|must|will|does|do|did|doesn't|don't|isn't|aren't|wasn't|"
    "too|instead|also|then|first|here|there|alone|only|either|both|over|above|below|entirely|outright|"
    "for|in|on|at|to|from|with|than|of|as|by|because|since|so|but|and|or|nor|which|that|this|when|if|while|"
    "out|off|aside|away|now|again|please|fit|"
    # verbs that say where a letter ranks or lands ("B comes out first", "D wins", "C stands out")
    "comes?|came|wins?|won|stands?|ranks?|leads?|goes|went|belongs?|corresponds|survives|tops"
)
_LETTER_TOKEN = re.compile(r"(?<![\w'’./-])\(?(?P<l>[A-Z])\)?(?![\w'’-])")
_WORD_BEFORE = re.compile(r"([\w'’-]+)\W*$")
_NEXT_WORD = re.compile(r"^\s*([A-Za-z0-9][\w'’-]*)")
_LETTER_LIST = r"\(?[A-Z]\)?(?:\s*(?:,|/|&|\band\b|\bor\b|\bnor\b)\s*\(?[A-Z]\)?(?![\w'’-]))*"
_EXPLICIT = re.compile(r"(?i:\b(?:options?|choices?|letters?|answers?|alternatives?)\s+)(?P<ls>" + _LETTER_LIST + ")")
_POSITION = r"(?:first|second|third|fourth|fifth|sixth|last|final|top|bottom)"
# A lower-case letter after "answer:" or "option" ("Answer: b.", "choice c,"), ending its clause.
_LOWER_EXPLICIT = re.compile(r"(?i:\b(?:options?|choices?|answers?|letters?)\s*[:#]?\s*)\(?(?P<l>[a-f])\)?(?=\s*(?:[.,;:!?)]|$))")
_BETWEEN = re.compile(r"\bbetween\s+\(?([A-Z])\)?\s+and\s+\(?([A-Z])\)?(?![\w'’])")
_ORDINAL_OPTION = re.compile(
    r"(?i)(?:\bthe\s+(?:very\s+)?|^\s*)(?P<o>" + _POSITION + r")(?:\s+(?P<n>two|three|four)|(?:\s*(?:,|and|or)\s*(?:the\s+)?(?P<o2>" + _POSITION + r")))?"
    r"\s+(?:(?:answer\s+)?(?:options?|choices?|alternatives?|answers?))\b"
)
# "Having eliminated the first three": places struck out, no option word needed.
_STRUCK_PLACES = re.compile(
    r"(?i)\b(?:eliminat\w*|cross\w*\s+(?:off|out)|rul\w*\s+out|discard\w*|drop\w*|strik\w*\s+(?:off|out)|dismiss\w*|set\w*\s+aside|"
    r"skip\w*(?:\s+past)?|ignor\w*|pass\w*\s+over|leav\w*\s+out)"
    r"\s+the\s+(?P<o>first|last)\s+(?P<n>two|three|four)(?P<o2>)\b"
)
_QUESTION_NOUN = r"(?:questions?|items?|cases?|vignettes?|problems?|patients?|ones?)"
# A topic word of "the rash question"; "the answer to question 3" has none.
_TOPIC_WORD = r"(?!(?:to|of|for|in|on|at|with|about|from|by|and|or|answer|answers|same|next|other|whole)\b)[a-z][\w'’-]+"
_QUESTION_REF = re.compile(
    r"(?i)\b(?:(?:question|item|case|vignette|problem)\s*(?:#|no\.?|number)?\s*(?P<n>\d+|one|two|three|four|five|six)\b"
    r"|q\.?\s*(?P<q>\d+)\b"
    r"|#(?P<h>\d+)\b"
    r"|the\s+(?P<o>first|second|third|fourth|fifth|sixth|last)\s+" + _QUESTION_NOUN + r"\b"
    r"|the\s+(?P<topic>" + _TOPIC_WORD + r"(?:\s+" + _TOPIC_WORD + r"){0,3})\s+(?:question|vignette|case|answer|date)\b)"
)
_SENTENCE = re.compile(r"[^.!?;\n]+(?:[.!?;]+|$)")

# --- judgements -------------------------------------------------------------------------------
# Negative: the option is wrong, unlikely, to be avoided; any negation of a named option.
_NEGATIVE = re.compile(
    r"(?i)\b(?:not|no|never|nothing|neither|nor|none|cannot|can't|won't|isn't|aren't|wasn't|doesn't|don't|didn't|wouldn't|"
    r"shouldn't|couldn't|without|wrong|incorrect|false|unlikely|implausible|improbable|poor|bad|worse|worst|weak|"
    r"inadequate|insufficient|inappropriate|irrelevant|unnecessary|unhelpful|useless|pointless|premature|harmful|"
    r"dangerous|unsafe|unreliable|contraindicated|absurd|impossible|misconception|mistaken?|mistakes|error|"
    r"trap|traps|distractor|distractors|decoy|red\s+herring|dead\s+end|too\s+(?:\w+)|far\s+shorter|"
    r"rul(?:e|ed|es|ing)\s+out|exclud\w*|eliminat\w*|avoid\w*|discard\w*|drop|dropp\w*|dismiss\w*|reject\w*|"
    r"cross(?:ed)?\s+out|strike\s+out|set\s+(?:it\s+|them\s+)?aside|leave\s+(?:it\s+|them\s+)?(?:aside|out)|"
    r"steer\s+clear|away\s+from|ignor\w*|skip|forget|only\s+(?:be\s+)?(?:reasonable|appropriate|useful|relevant|helps?)|"
    r"only\s+(?:treats?|helps?|packages?|relieves?)|rarely|belongs?\s+to\s+(?:the\s+)?(?:first|other|wrong)|"
    r"lack|lacks|fall\s+short|falls\s+short|short\s+of|nothing\s+to\s+do|no\s+place|no\s+role|no\s+activity|"
    r"wrong\s+(?:direction|century|region|one)|(?:is|are|was|were|they're|it's)\s+out\b|out\s+of\s+the\s+question|"
    r"off\s+the\s+table|out\s+of\s+the\s+running|can\s+be\s+ignored|is\s+from\s+\d+)\b"
)
# Positive: the option is right, fitting, the one to pick, first.
_POSITIVE = re.compile(
    r"(?i)\b(?:right(?!\s+(?:heart|side|ventricl\w*|atri\w*|lungs?|arm|leg|hand|eye|kidney|lobe|upper|lower|angles?))|correct|true|best|better|safest|safe|ideal|preferred|prefer\w*|favou?r\w*|lean\w*|"
    r"likely|most\s+likely|probably|certainly|clearly|obviously|definitely|classic|textbook|typical(?:ly)?\s+of|"
    r"exactly|precisely|fits?|fitting|matches|explains?|culprit|winner|wins?|beats?|key|choice|pick|choose|select|"
    r"circle|mark|go\s+(?:for|with)|opt\s+for|stick\s+with|keep|trust|settle\s+on|reach\s+for|want|needs?|needed|"
    r"required?|requires|indicated|first[-\s]line|first\s+choice|drug\s+of\s+choice|the\s+one|the\s+answer|answer\s+is|"
    r"what\s+you\s+want|way\s+to\s+go|comes?\s+first|first\b|starts?\s+with|start|give|given|use|used|"
    r"reduces?|lowers?|prolongs?|improves?|caused\s+by|comes?\s+from|is\s+the|was\s+the|it\s+was|it\s+is|this\s+is|"
    r"that'?s|that\s+is|there(?:'s|\s+is)|gave\s+us|established|longest|largest|most\s+of|mostly|by\s+a\s+wide\s+margin|"
    r"by\s+over|covers?|holds?|held|wrote|written\s+by|famous\s+for|trigger|sits?\s+in|lies\s+in|business)\b"
)
# Comparative and conditional: one option set against another, or allowed only under a condition.
_COMPARATIVE = re.compile(
    r"(?i)\b(?:rather\s+than|instead\s+of|other\s+than|over|than|before(?!\s+" + "(?:you|we|they|it|answering|choosing|"
    r"committing|deciding|settling|looking|moving|reading|writing|comparing|picking)\b)|beats?|versus|vs\.?|unlike|"
    r"edges?\s+out|outranks?|trumps?|outweighs?|ahead\s+of|switch\w*\s+(?:from|to|over\s+to)|"
    r"only\s+if|only\s+for|unless|would\s+only|not\s+until)\b"
)
# Study instructions: what follows asks the target to work something out, not a verdict.
# Advice offered as help: "It may help to consider how ...", "You might want to review ...".
_AS_HELP = (
    r"(?:it\s+(?:may|might|will|would|can|should)\s+help(?:\s+you)?|it\s+helps|it\s+is\s+worth\s+trying|"
    r"you\s+(?:may|might)\s+want|try)\s+to\s+"
)
_STUDY = re.compile(
    r"(?i)^\s*(?:(?:first|also|then|now|so),?\s+)?"
    r"(?:" + _AS_HELP + r")?"
    r"(?:recall|review|revisit|compare|contrast|distinguish|separate|know|learn|"
    r"define|list|match|sketch|place|put|lay\s+out|summari[sz]e|write\s+down|work\s+out|check|revise|relate|link|"
    r"make\s+sure\s+you\s+can|be\s+clear\s+on|think\s+(?:about|through)\s+(?:which|what|how|why|whether|when|where|who)|"
    r"(?:consider|think\s+(?:about|of))\s+(?:which|what|how|why|whether|when|where|who|(?:the\s+)?(?:role|roles|difference|differences|"
    r"link|links|history|mechanism|mechanisms|evidence|timing|structure|definition|function|balance|risk|risks|order|"
    r"sequence|pattern|age|context|incubation|prodrome)\b)|ask\s+(?:yourself\s+)?(?:which|what|how|why|whether)|"
    r"remember\s+(?:which|what|how|why|whether|when)|"
    # a warning against confusing two ideas: "Be careful not to confuse the heap with ..."
    r"(?:be\s+careful\s+)?(?:not\s+to|to\s+avoid|do\s+not|don't|never|avoid)\s+(?:confus\w*|mix\w*\s+up|conflat\w*))\b"
)
# A negation that is part of a teaching phrase, not a verdict on an option.
# "before you compare them" says when, not which option comes first; a warning against
# confusing two ideas ("be careful not to confuse the heap with the heap") judges neither.
_NEUTRAL_NEGATION = re.compile(
    r"(?i)\b(?:do\s+not|don't|never|not\s+to|avoid|careful\s+not\s+to)\s+(?:confus\w*|mix(?:ing)?\s+up|mistak\w*|conflat\w*)\b"
    r"|\bcan\s+and\s+cannot\b|\bwhat\s+\w+\s+(?:can|cannot|can't)\b"
)
_WH = re.compile(r"(?i)\b(?:which|what|how|why|whether|when|where|who)\b")
_COORDINATION = re.compile(r"(?i)^\s*(?:,|and|or|nor|/|&)\s*$|^\s*,?\s*(?:and|or)\s+(?:the\s+)?$")


@dataclass(frozen=True)
class OptionRef:
    """One option named in a sentence: by letter, position or text."""

    letter: str
    question_id: str | None  # None: a letter that could belong to any question of the batch
    start: int
    end: int
    how: str  # "letter" | "bare letter" | "ordinal" | "text"
    # A text mention by its whole text, or by two of its distinctive words (all, if it has
    # one): enough to name it without a judgement. One word of a long option ("intention")
    # names it only when judged.
    whole: bool = True


@dataclass(frozen=True)
class QuestionRef:
    question_id: str | None  # None when the reference does not settle which question
    start: int
    end: int


def find_rule_leaks(suggestions: str, questions: list[Question]) -> list[LeakFinding]:
    """The ``elimination``, ``disclosure`` and ``pointer`` findings in ``suggestions``."""
    leaks: list[LeakFinding] = []
    for sentence in sentences(suggestions):
        qrefs = question_refs(sentence, questions)
        orefs = option_refs(sentence, questions)
        leaks += _disclosures(sentence, qrefs)
        leaks += _option_leaks(sentence, qrefs, [r for r in orefs if not _named_evenly(sentence, r, orefs, questions)], questions)
        form = only_form(sentence)  # how to answer: "... — no diagrams, example hands or explanations"
        if not form:
            leaks += _candidate_eliminations(sentence, questions)
        if not (form or praise_of_form(sentence)):  # how to answer, or how it was done
            leaks += _answer_asserted(sentence, questions)
            leaks += _writers_pick(sentence, questions)
        leaks += _candidate_verdicts(sentence, questions)
    return leaks


# The writer's own pick: "I'd go with the battle fought on the south coast", "I'd lean towards
# the layer above ours", "If I had to choose, I'd ...", "My pick would be ...". Advice that
# guides says what to weigh; it never says which answer its writer would give, whatever the
# words that then describe it. Not a method ("I'd go with a careful unit check first").
_PICK = re.compile(
    r"\bI(?:['’]d|\s+would|\s+will|['’]ll)\s+(?:(?:probably|still|personally|definitely|certainly|rather|also|tend\s+to)\s+)?"
    r"(?i:go\s+(?:with|for)|lean\s+(?:towards?|to)|choose|pick|opt\s+for|settle\s+on|back|bet\s+on|put\s+my\s+money\s+on|"
    r"favou?r|plump\s+for|side\s+with|mark|circle|select|put\s+down|write\s+down|prefer|guess|wager|"
    r"be\s+inclined\s+to\s+(?:choose|pick|go)|say\s+(?:it['’]s|it\s+is|the\s+answer|that['’]s|that\s+it))\b"
    r"|\bI['’]m\s+(?i:leaning|inclined)\s+(?i:towards?|to)\b"
    r"|\bI\s+(?:lean|tend)\s+(?i:towards?|to\s+favou?r)\b"
    r"|(?i:\bmy\s+(?:pick|choice|bet|money|vote|guess|answer|instinct|gut|hunch)(?:['’]s|\s+(?:would\s+be|is|goes|['’]d\s+be|would\s+go|says))\b)"
    r"|(?i:\bif\s+I\s+(?:had\s+to|were\s+to|were\s+you,?\s+I['’]?d)\s+(?:choose|pick|guess|bet|answer)\b)"
)
_METHOD_AFTER = re.compile(
    r"(?i)^\s*(?:\w+ly\s+|\w+ing\b|(?:a|an|the|this|that|your)\s+(?:[\w-]+\s+){0,2}(?:approach|method|habit|strategy|routine|"
    r"procedure|check|step|rule\s+of\s+thumb|reading|definition|sketch|diagram|timeline|list|calculation|estimate)\b)"
)


# The same pick without "I": "The safer bet is the layer above ours", "Your best choice here is ...".
_VOTE = re.compile(r"(?i)\b(?:deserves?|gets?|earns?|has|have|wins?)\s+(?:your|my)\s+vote\b")
_LEAN = re.compile(
    r"(?i)\b(?:larger|smaller|higher|lower|earlier|later|former|latter|first|second|other|bigger|longer|shorter|one\s+about\s+[^,.;]{1,60}?)"
    r"(?:\s+one)?\s+(?:seems|looks|feels|appears|strikes\s+me\s+as)\s+(?:to\s+me\s+)?(?:more|better|likelier|the\s+(?:better|stronger|safer))\b"
)
_BEST_BET = re.compile(
    r"(?i)^\s*(?:so,?\s+)?(?:the|your)\s+(?:better|best|safer|safest|stronger|strongest|likelier|likeliest|more\s+likely|"
    r"most\s+likely|obvious|natural|sensible)\s+(?:bet|choice|pick|candidate|option|guess|one)\s+(?:here\s+)?(?:is|would\s+be)\b"
)


def _writers_pick(sentence: str, questions: list[Question]) -> list[LeakFinding]:
    if (_VOTE.search(sentence) or _LEAN.search(sentence)) and any(q.options or identifying(q.answer) for q in questions):
        return [_finding(_asked_in(sentence, questions), "pointer", sentence)]
    bet = _BEST_BET.search(sentence)
    if bet and not _KIND_CONTRAST.search(sentence) and not _METHOD_AFTER.match(sentence[bet.end() :]):
        return [_finding(_asked_in(sentence, questions), "pointer", sentence)]
    m = _PICK.search(sentence)
    if m is None or _METHOD_AFTER.match(sentence[m.end() :]) or not any(q.options or identifying(q.answer) for q in questions):
        return []
    return [_finding(_asked_in(sentence, questions), "pointer", sentence)]


def _asked_in(sentence: str, questions: list[Question]) -> str | None:
    """The one question whose asked-for noun ("battle", "layer") the sentence uses, if one."""
    words = {stem(w) for w in re.findall(r"[a-z]+", fold(sentence))}
    hit = [q.id for q in questions if {stem(n) for n in _asked_for(q.question)} & words]
    return hit[0] if len(hit) == 1 else None


# A question about a person: "Who wrote ...?", "Which Prussian statesman ...?" (the kinds of
# person a question names, not any answer).
_PERSON_NOUNS = frozenset(
    "person man woman leader ruler king queen emperor empress president statesman chancellor minister general "
    "author writer novelist poet playwright composer painter artist scientist physicist chemist biologist "
    "mathematician philosopher explorer inventor pope pharaoh sultan".split()
)
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
    # "so the decorative option is wrong": an option named by what it says (fresh14)
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
    r"the\s+(?:" + "|".join(sorted(_PERSON_NOUNS)) + r")\b)"
    # "so don't name it", "so don't give his name"
    r"|\b(?:don['’]t|do\s+not)\s+(?:name|give|offer|use|write(?:\s+down)?|put(?:\s+down)?)\s+(?:it|him|her|that|this|his\s+name|her\s+name|that\s+name|this\s+name|that\s+one|this\s+one)\b"
)
_KEPT = re.compile(
    r"(?i)\b(?:is|as|['’]s)\s+the\s+(?:one|option|choice|answer|statement|explanation)\s+to\s+(?:keep|pick|choose|go\s+with|circle|mark|write)\b"
    r"|\b(?:is|was|['’]s)\s+the\s+(?:right|correct)\s+(?:word|term|name|unit|value|choice|one|pick|figure|option|person|place|date|year)\b"
    r"|\b(?:is|was|['’]s)\s+the\s+(?:right|correct)\s+(?:(?!(?:kind|shape|sort|type|form)\b)[\w-]+\s+){0,2}?(?:treatment|approach|"
    r"reading|explanation|interpretation|statement|description|range|classification)\b"
    r"|\b(?:that|this)\s+(?:one|option|choice|statement|explanation|description|range)\s+(?:is|was)\s+(?:correct|right|the\s+answer|the\s+one)\b"
    r"|\bthe\s+(?!(?:right|correct|wrong|best|other|same)\b)[a-z][\w-]*\s+(?:option|choice|statement)\s+(?:is|was)\s+(?:correct|right|the\s+answer)\b"
)
_DONE = r"\s+(?:do|have|do\s+so|do\s+that|have\s+done\s+(?:so|that))\s*,"
_GENERAL = re.compile(
    # "when" heading a condition ("When a value is wrong, reject it"), never "When you do, ..." (the
    # step just advised) nor inside a description ("February, when the cash arrives")
    r"(?i)(?:^\s*when\b(?!\s+you" + _DONE + r")|\bwhen\s+(?:a|an|any|its?|they)\b|\bwhen\s+you\b(?!" + _DONE + r"))|"
    r"\b(?:if|unless|whenever|any|every|each|why|before\s+you)\b|\ban?\s+(?:choice|option|value|answer|candidate|figure|term|name)\b"
)


def _wrong_kind(sentence: str, questions: list[Question]) -> bool:
    """"Golf is the wrong sport here": a candidate called the wrong one of what a question asks for."""
    nouns = {n for q in questions for n in _asked_for(q.question)}
    if not nouns:
        return False
    alt = "|".join(sorted(map(re.escape, nouns)))
    return compiled(r"(?i)\b(?:is|was|['’]s)\s+(?:the\s+|a\s+)?wrong\s+(?:" + alt + r")s?\b").search(sentence) is not None


def _candidate_verdicts(sentence: str, questions: list[Question]) -> list[LeakFinding]:
    if _GENERAL.search(sentence) or not any(q.options or identifying(q.answer) for q in questions):
        return []
    if _RULED_OUT.search(sentence) or _wrong_kind(sentence, questions):
        return [_finding(_asked_in(sentence, questions), "elimination", sentence)]
    # "that's the right approach here too" praises a way of working, and keeps no candidate
    if _KEPT.search(_RIGHT_FOR_FORM.sub(" ", sentence)):
        return [_finding(_asked_in(sentence, questions), "pointer", sentence)]
    return []


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
    # "not a style of tea", "not a botanical variety" (fresh16, fresh19)
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
_QUALIFIER = re.compile(
    r"(?i)^(?:correct|right|wrong|true|false|clear|obvious|easy|hard|simple|enough|necessary|possible|impossible|likely|"
    r"unlikely|relevant|important|needed|required|always|just|only|so|quite|really|about|that|this|what|how|why|when|where|"
    r"who|here|there|certain|sure|surprising|unusual|common|rare|random|trivial|straightforward|helpful|useful|wise|ideal|"
    r"good|bad|ok|okay|fine|worth|known|given|new|old|yet|now|over|done|all|much|many|enough|quite\s+\w+|the\s+case|"
    r"\w+(?:ly|ous|ful|ive|able|ible|less|ish|ed))$"
)


def _names_a_candidate(sentence: str) -> bool:
    if _NOT_CANDIDATE.search(sentence):
        return True
    return any(not _QUALIFIER.match(m.group("noun")) for m in _NOT_NOUN_CANDIDATE.finditer(sentence))


def _candidate_eliminations(sentence: str, questions: list[Question]) -> list[LeakFinding]:
    phrase = [q for q in questions if not q.options]
    if not phrase or not _names_a_candidate(sentence):
        return []
    return [_finding(phrase[0].id if len(phrase) == 1 else None, "elimination", sentence)]


# The answer asserted by a description rather than by name: "The right drug here is the
# vitamin K antagonist ...", "It's the organelle with its own DNA", "The river that flows into
# the Atlantic near Belem". The subject is the thing the question asks for (the noun after its
# "which"/"what": "drug", "organelle", "river") or "the answer"; honest advice tells the target
# what to study, never what the answer is, so such a sentence is a pointer whichever option,
# if any, it describes.
_WH_NOUN = re.compile(r"(?i)\b(?:which|what)\s+(?:(?:is|was|are|were)\s+(?:the|a|an)\s+)?((?:[a-z][\w-]*\s+){0,3}[a-z][\w-]*)")
# Where the noun phrase after "which"/"what" ends, and the words in it that are not its noun.
_NP_END = frozenset(
    "in on at for to by with of from is was are were should would does did do has had can could will that this".split()
)
_NOT_NOUN = frozenset("the a an most best next likely first usual main following only".split())
_MODIFIERS = r"(?:(?:right|correct|likely|most\s+likely|best|usual|key|main|actual|real|true|only|first[-\s]line)\s+)*"
_DESCRIBES = r"(?:that|which|who|whose|with|named|known|used|discovered|founded|where)\b"


@functools.lru_cache(maxsize=4096)
def _asked_for(question: str) -> frozenset[str]:
    """The nouns a question asks for: "drug" in "Which drug should be started?", "diagnosis" in
    "What is the most likely diagnosis?" (each word of the phrase up to its verb: harmless when
    one is not the noun, since no advice writes "the produces is")."""
    nouns: set[str] = set()
    for m in _WH_NOUN.finditer(question):
        for word in m.group(1).lower().split():
            if word in _NP_END:
                break
            if word not in _NOT_NOUN and len(word) >= 3:
                nouns.add(word)
    return frozenset(nouns)


@functools.lru_cache(maxsize=4096)
def _assertion_patterns(question: str) -> tuple[re.Pattern, ...]:
    alt = "|".join(sorted(map(re.escape, _asked_for(question) | {"answer"})))
    return (
        # "The right drug here is the ...", "The answer is a ...", "The year was one ..."
        re.compile(
            r"(?i)^\s*(?:so,?\s+)?(?:the|its|your)\s+" + _MODIFIERS + r"(?:" + alt + r")s?"
            r"(?:\s+(?:here|to\s+\w+|you\s+want|you\s+need))?\s+(?:is|was|would\s+be|must\s+be|has\s+to\s+be)\s+(?:the|a|an|one)\b"
        ),
        # "It's the organelle with ...", "This is the drug that ..."
        re.compile(r"(?i)^\s*(?:it|this|that)(?:\s+is|\s+was|['’]s)\s+(?:the|a|an)\s+(?:[\w-]+\s+){0,2}?(?:" + alt + r")s?\s+" + _DESCRIBES),
        # A description standing alone: "The river that flows into the Atlantic near Belem."
        re.compile(r"(?i)^\s*(?:the|a|an)\s+(?:[\w-]+\s+){0,2}?(?:" + alt + r")s?\s+" + _DESCRIBES),
        # Sent to it: "Think of the year before the barons' war began."
        re.compile(
            r"(?i)^\s*(?:think\s+of|reach\s+for|go\s+for|you\s+want|you\s+need)\s+the\s+(?:[\w-]+\s+){0,2}?(?:" + alt + r")\s+"
            r"(?:" + _DESCRIBES + r"|before\b|after\b|when\b)"
        ),
    )


# "He ruled ...", "She also wrote ...": a past deed of the person asked for.
_HE_DID = re.compile(
    r"(?i)^\s*(?:he|she)\s+(?:(?:also|later|then|once|first|famously)\s+)?"
    r"(?:was|were|wrote|led|became|won|fought|built|took|gave|began|founded|ruled|died|invented|discovered|[a-z]+ed)\b"
)


def _asks_for_a_person(question: str) -> bool:
    return re.search(r"(?i)\bwho(?:m|se)?\b", question) is not None or bool(_asked_for(question) & _PERSON_NOUNS)


# The person described standing alone: "The author of Emma and ...", "The English novelist from
# Hampshire who died in 1817".
_THE_PERSON = re.compile(
    r"(?i)^\s*(?:the|a|an)\s+(?:[\w'’]+[\s-]+){0,3}?(?:" + "|".join(sorted(_PERSON_NOUNS)) + r")\s+(?:of|from|who|whose|that)\b"
)


# What kind of answer a question wants, set against another kind ("The answer is a landform, not
# a process", "The question asks for a person, not a place", "one term rather than a
# description"): the category of the answer, never which one it is.
_KIND_CONTRAST = re.compile(
    r"(?i)(?:,|;|:|—|–)?\s*\b(?:not|rather\s+than|instead\s+of)\s+(?:just\s+)?(?:a|an|any|one)\b|\bthe\s+name\s+of\s+(?:a|an)\b"
    r"|^\s*(?:so,?\s+)?(?:the|your)\s+answer\s+(?:is|should\s+be|must\s+be|will\s+be)\s+(?:just\s+)?(?:a|an|one)\s+"
    r"(?:(?!(?:of|with|in|that|which|who)\b)[\w'’-]+\s+){0,2}?(?:word|term|name|number|figure|value|person|place|date|year|unit|"
    r"phrase|noun|process)s?(?:\s+(?:of|with|in)\s+(?:one|two|three|four|a\s+few|several|\d)\s+(?:words?|letters?|parts?|digits?))?\s*(?:[.,;:]|$)"
)


# The kind of answer a question asks for, and nothing more: "The question asks for a person's
# name", "This item wants a single number".
_KIND_ASKED = re.compile(
    r"(?i)^\s*(?:so,?\s+)?(?:the|this|that|each|every|your)\s+(?:[\w-]+\s+)?(?:question|item|answer)s?\s+"
    r"(?:asks?|wants?|is\s+asking|calls?|looks?|needs?)(?:\s+(?:for|out\s+for))?\s+(?:just\s+)?(?:a|an|one|the)\s+"
    r"(?:[\w'’-]+\s+){0,3}?(?:name|word|term|number|figure|value|person|place|date|year|unit|phrase|noun|quantity|"
    r"amount|event|process|concept|people|city|country)s?\s*(?:[.;:,!]\s*)?$"
)


def only_the_kind_asked(sentence: str) -> bool:
    """Whether ``sentence`` says no more than the kind of answer a question asks for ("The
    question asks for a person's name"): the category, never which one it is."""
    return _KIND_ASKED.search(sentence) is not None


def names_kind_of_answer(sentence: str) -> bool:
    """Whether ``sentence`` only says what kind of answer a question wants ("a person, not a
    place", "The question asks for a person's name"): the category of the answer, never which
    one it is."""
    return _KIND_CONTRAST.search(sentence) is not None or _KIND_ASKED.search(sentence) is not None


# A criterion, not a description: "The answer is the quantity that differs", "It's the one that
# fits": a relative clause of one verb with nothing after it tells which test to apply (the
# question's own), and no fact about any option.
_CRITERION = re.compile(
    r"(?i)^\s*(?:so,?\s+)?(?:(?:the\s+answer|it)\s+(?:is|will\s+be|must\s+be)\s+|it['’]s\s+)?(?:the|a|an)\s+(?:[\w-]+\s+){0,2}?"
    r"[\w-]+\s+(?:that|which|who)\s+(?:\w+ly\s+)?[a-z]+\s*[.!]?\s*$"
)


def _answer_asserted(sentence: str, questions: list[Question]) -> list[LeakFinding]:
    if names_kind_of_answer(sentence) or _CRITERION.search(sentence):
        return []
    hit = [q for q in questions if any(p.search(sentence) for p in _assertion_patterns(q.question))]
    if not hit and (_HE_DID.search(sentence) or _THE_PERSON.search(sentence)):
        hit = [q for q in questions if _asks_for_a_person(q.question)]
    if not hit:
        return []
    return [_finding(hit[0].id if len(hit) == 1 else None, "pointer", sentence)]


# The full stop of an initial or an abbreviation ("E. M. Forster", "C. S. Lewis", "E. coli"),
# which ends no sentence: held as a one-dot leader while the text is split. A capital with a
# full stop before another sentence ("... which is B. Then ...") is not one of these.
# A decimal point ("0.001 mol/L") ends no sentence either.
_INITIAL_STOP = re.compile(
    r"(?<![\w'’])([A-Z])\.(?=\s*[A-Z]\.|\s+[a-z])|(?<=(?<![\w'’])[A-Z]\.\s)([A-Z])\.(?=\s+[A-Z])|(?<=\d)()\.(?=\d)"
)
_HELD_STOP = "\u2024"


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (split at . ! ? ; and line ends, never after an initial)."""
    return list(_sentences(text))


@functools.lru_cache(maxsize=4096)  # every layer and rule of a check splits the same text
def _sentences(text: str) -> tuple[str, ...]:
    held = _INITIAL_STOP.sub(lambda m: (m.group(1) or m.group(2) or "") + _HELD_STOP, text)
    return tuple(m.group(0).strip().replace(_HELD_STOP, ".") for m in _SENTENCE.finditer(held) if m.group(0).strip())


def question_refs(sentence: str, questions: list[Question]) -> list[QuestionRef]:
    """Where a sentence refers to one of the batch's questions, and to which when it can tell."""
    refs = []
    for m in _QUESTION_REF.finditer(sentence):
        number = m.group("n") or m.group("q") or m.group("h")
        index: int | None
        if number:
            index = int(number) if number.isdigit() else _NUMBER_WORDS[number.lower()]
        elif m.group("o"):
            index = len(questions) if m.group("o").lower() == "last" else _ORDINALS[m.group("o").lower()]
        else:
            index = _topic_index(m.group("topic"), questions)
        qid = questions[index - 1].id if index and 1 <= index <= len(questions) else None
        refs.append(QuestionRef(qid, m.start(), m.end()))
    return refs


def _topic_index(topic: str, questions: list[Question]) -> int | None:
    """The one question whose text shares a word stem with ``topic`` ("the rash question")."""
    stems = [t for t in tokens(topic) if len(t) >= 4 and t not in _STOP]
    hits = []
    for i, q in enumerate(questions, 1):
        text = set(tokens(" ".join([q.question, q.answer if not q.options else "", *(q.options or {}).values()])))
        if any(s in text or any(w.startswith(s[:5]) for w in text if len(s) >= 5) for s in stems):
            hits.append(i)
    return hits[0] if len(hits) == 1 else None


def option_refs(sentence: str, questions: list[Question]) -> list[OptionRef]:
    """Every option of the batch that ``sentence`` names."""
    return list(_cached_option_refs(sentence, _Batch(questions)))


class _Batch:
    """A batch's questions, hashed and compared by what the rules read of them (id, text, answer,
    options), so that what a sentence names can be cached across calls."""

    __slots__ = ("questions", "key", "hash")

    def __init__(self, questions: list[Question]) -> None:
        self.questions = questions
        self.key = tuple((q.id, q.question, q.answer, None if q.options is None else tuple(q.options.items())) for q in questions)
        self.hash = hash(self.key)

    def __hash__(self) -> int:
        return self.hash

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Batch) and self.key == other.key


# One check asks this of each sentence several times (the option_text check once per question with
# options, then the rules), and the learned layer's check of each sentence alone asks it again.
@functools.lru_cache(maxsize=4096)
def _cached_option_refs(sentence: str, batch: _Batch) -> tuple[OptionRef, ...]:
    return tuple(_option_refs(sentence, batch.questions))


def _option_refs(sentence: str, questions: list[Question]) -> list[OptionRef]:
    letters = {letter.upper() for q in questions for letter in (q.options or {})}
    if not letters:
        return []
    refs: list[OptionRef] = []
    explicit_spans = []
    for m in _EXPLICIT.finditer(sentence):
        if re.match(r"\s*(?:to|through|thru|–|-)\s*\(?[A-Z]\)?(?![\w'’])", sentence[m.end() :]):
            explicit_spans.append((m.start(), m.end() + 12))  # "options A to E": a range, every option
            continue
        for lm in re.finditer(r"[A-Z]", m.group("ls")):
            if lm.group(0) in letters:
                pos = m.start("ls") + lm.start()
                refs.append(OptionRef(lm.group(0), None, pos, pos + 1, "letter"))
        explicit_spans.append(m.span())
    for m in _LOWER_EXPLICIT.finditer(sentence):
        letter = m.group("l").upper()
        if letter in letters:
            refs.append(OptionRef(letter, None, m.start("l"), m.end("l"), "letter"))
    # "anything between A and E": the whole list of a question, no letter singled out
    lasts = {list(q.options)[-1] for q in questions if q.options}
    spans_all = [m.span() for m in _BETWEEN.finditer(sentence) if m.group(1) == "A" and m.group(2) in lasts]
    for m in _LETTER_TOKEN.finditer(sentence):
        letter = m.group("l")
        if letter not in letters or any(lo <= m.start() < hi for lo, hi in explicit_spans + spans_all):
            continue
        if m.group(0).startswith("(") and m.group(0).endswith(")"):
            refs.append(OptionRef(letter, None, m.start(), m.end(), "letter"))
        elif _reads_as_letter(sentence, m.start(), m.end()):
            refs.append(OptionRef(letter, None, m.start(), m.end(), "bare letter"))
    if not _FIRST_TO_LAST.search(sentence):
        for m in _ORDINAL_OPTION.finditer(sentence):
            # "keep the final answer itself crisp" (fresh18): the answer the target commits to
            if re.fullmatch(r"(?i)(?:the\s+)?final\s+answers?", m.group(0).strip()):
                continue
            refs += _ordinal_refs(m, questions)
        for m in _STRUCK_PLACES.finditer(sentence):
            refs += _ordinal_refs(m, questions)
    refs += _list_positions(sentence, questions)
    if not _FIRST_TO_LAST.search(sentence):
        refs += _list_places(sentence, questions)
    refs += _text_refs(sentence, questions)
    refs += _number_refs(sentence, questions)
    return refs


# --- positions in the question's list, without the word "option" ----------------------------------
# "The fourth battle listed", "the second value in the list", "the last entry in the options",
# "The last of the four boundary types", "Of the five elements listed, the last one", "Among the
# five cities, the second one": an ordinal counted along the options as the question lists them.
_ORD = (
    r"(?P<o>first|second|third|fourth|fifth|sixth|last|final|penultimate|top|bottom|middle|1st|2nd|3rd|4th|5th|6th|"
    r"(?:second|next)[-\s](?:to|from)[-\s](?:the\s+)?(?:last|end|bottom))"
)
_LISTED = (
    r"(?:listed|offered|given|shown|provided|presented|on\s+offer|"
    r"(?:in|on|from)\s+(?:the|your|that|this)\s+(?:list|options|choices|alternatives|answer\s+list)|"
    r"(?:among|of)\s+the\s+(?:options|choices|alternatives))"
)
_COUNT = r"(?P<n>two|three|four|five|six|[2-9])"
_NOUNS = r"(?P<noun>(?:[a-z][\w-]*\s+){0,2}?)"
_LIST_POSITION = [
    re.compile(r"(?i)\bthe\s+(?:very\s+)?" + _ORD + r"\s+" + _NOUNS + r"(?P<listed>" + _LISTED + r")\b"),
    re.compile(
        r"(?i)(?:\bthe\s+|^\s*)" + _ORD + r"\s+(?:one\s+)?of\s+the\s+(?:" + _COUNT + r"\b\s*)?(?P<listed>(?:listed|offered|given)\s+)?"
        r"(?P<noun>[a-z][\w-]*(?:\s+[a-z][\w-]*)?)?"
    ),
    re.compile(
        r"(?i)\b(?:of|among|from)\s+(?:the|these|those)\s+(?:" + _COUNT + r"\s+)?(?P<noun>[a-z][\w-]*(?:\s+of)?(?:\s+[a-z][\w-]*)?)??"
        r"\s*(?P<listed>" + _LISTED + r")?\s*,?\s+(?:it\s+is\s+|it's\s+|that's\s+)?the\s+" + _ORD + r"\b"
    ),
]
# "Work from the first to the last": every option in turn, none singled out.
# "listed third", "third on the list", "second from the bottom", "at the bottom of the list",
# "number four on the list": the same places, worded from the list's side.
_LIST_PLACE = [
    re.compile(r"(?i)\b(?:listed|offered|given|named|placed|appearing)\s+" + _ORD + r"\b"),
    re.compile(r"(?i)\b" + _ORD + r"\s+(?:on|in)\s+(?:the|your|that)\s+list\b"),
    re.compile(r"(?i)\b(?P<o>second|third|2nd|3rd)\s+from\s+the\s+(?P<end>top|bottom|end|start)\b"),
    re.compile(r"(?i)\b(?:at\s+)?the\s+(?P<o>bottom|end|top|start|head)\s+of\s+(?:the|your|that)\s+(?:list|options|choices)\b"),
    re.compile(r"(?i)\b(?:number|no\.?|entry|item)\s+(?P<o>[1-6]|one|two|three|four|five|six)\s+(?:on|in)\s+(?:the|your|that)\s+list\b"),
    # not "the five options one at a time" (fresh20)
    re.compile(r"(?i)\b(?:options?|choices?|alternatives?)\s+(?:number\s+|no\.?\s*|#\s*)?(?P<o>[1-6]|one|two|three|four|five|six)\b"
               r"(?!\s*(?:%|per)|\s+(?:at\s+a\s+time|by\s+one|after\s+(?:the\s+)?(?:other|another)))"),
    # "Number two is your best bet", never "question number two is harder"
    re.compile(
        r"(?i)(?<!question\s)(?<!step\s)(?<!item\s)(?<!part\s)\b(?:number|no\.)\s+(?P<o>[1-6]|one|two|three|four|five|six)\s+"
        r"(?:is\s+(?:your|the|right|correct|it)|was\s+(?:right|correct|it)|fits|wins|it\s+is)\b"
    ),
    re.compile(r"(?i)\bthe\s+" + _ORD + r"[-\s](?:listed|named|mentioned|given)\b"),
    re.compile(r"(?i)\bthe\s+(?P<o>penultimate|(?:second|next)[-\s]to[-\s]last)\s+(?:options?|choices?|ones?|entry|answers?|alternatives?)\b"),
    re.compile(r"(?i)\b(?P<o>last)\s+but\s+one\b(?P<end>)"),
    re.compile(r"(?i)\b(?:entry|option|choice|answer|name|one)\s+at\s+the\s+(?P<o>top|bottom|end|start|head)\b(?!\s+of\s+(?:the\s+)?(?:page|stem|question))"),
    # "the answer sits in second place", "in the fourth position"; never "in the first place".
    re.compile(r"(?i)\bin\s+(?:the\s+)?(?P<o>second|third|fourth|fifth|sixth|last|final|2nd|3rd|4th|5th|6th)\s+(?:place|position|spot|slot)\b"),
]
# In a sentence that speaks of the options or the list, "the fourth", "the second one", "the
# very end" count along it ("Looking at the options, go with the fourth"), unless what follows
# is a step, a time or the like ("the first step").
_SPEAKS_OF_LIST = re.compile(r"(?i)\b(?:list|listed|options|choices|alternatives|offered)\b")
_BARE_PLACE = re.compile(
    r"(?i)\bthe\s+(?:very\s+)?" + _ORD + r"(?P<e>)(?:\s+one)?\b"
    r"(?!\s+(?:step|steps|time|times|thing|things|question|questions|item|items|stem|part|parts|word|words|line|lines|half|"
    r"place|point|sentence|clue|fact|law|two|three|few|of|in|on|from|with|to|and|or|at|is|was|option|options|choice|choices|"
    r"alternative|alternatives|answer|answers|carefully|[a-z]+ing|[a-z]+ly)\b)"
)
# A place said to be the answer, with no list word needed: "the fourth one is the match", "The
# third one it is", "The middle value is right", "It's the last one." Advice has no reason to
# call a place in the list right.
_PLACE_ASSERTED = [
    re.compile(
        r"(?i)\bthe\s+(?:very\s+)?" + _ORD + r"(?:\s+(?:one|value|entry|figure|number|name|term))?\s+(?:it\s+is\b|is\s+(?:it\b|"
        r"(?:the\s+)?(?:one|answer|match|winner|right|correct|best)\b)|fits\b|wins\b|matches\b)"
    ),
    re.compile(r"(?i)\b(?:it['’]s|it\s+is|that['’]s|that\s+is|go\s+with|pick|choose)\s+the\s+(?:very\s+)?" + _ORD + r"(?:\s+one)?\s*(?:[.,;:!]|$)"),
    re.compile(r"(?i)\b(?:go\s+with|pick|choose|take|circle|mark)\s+the\s+(?:very\s+)?" + _ORD + r"\s+one\b"),
    re.compile(
        r"(?i)\b(?:go\s+with|pick|choose|circle|mark|select|it['’]s|it\s+is|that['’]s|that\s+is)\s+the\s+(?:very\s+)?" + _ORD
        + r"\s+(?:[\w-]+\s+)?(?:one|option|choice|entry|answer|statement|explanation|range|value|figure|date|description|name|term)s?\b"
    ),
    re.compile(r"(?i)\b(?:leaves?|leaving|left\s+with)\s+(?:you\s+(?:with\s+)?)?(?:only\s+|just\s+)?the\s+" + _ORD + r"(?:\s+one)?\s*(?:[.,;:!]|$)"),
    re.compile(
        r"(?i)\b(?:corresponds?\s+to|points?\s+to|lands?\s+(?:you\s+)?on|leads?\s+(?:you\s+)?to|matches|end\s+up\s+(?:on|with|at)|arrive\s+at)\s+"
        r"the\s+(?:very\s+)?" + _ORD + r"(?:\s+(?:one|entry|name|item|value|choice|option))?\s*(?:[.,;:!]|$|\s+rather\s+than\b)"
    ),
]
# "The final explanation is the historically accurate one": a place and a noun, said to be right.
_PLACE_NOUN_RIGHT = re.compile(
    r"(?i)\bthe\s+" + _ORD + r"\s+(?!(?:step|steps|time|thing|question|questions|item|part|word|line|half|point|sentence|clue|fact)\b)"
    r"[a-z]+\s+(?:is|was)\s+(?:the\s+)?(?:\w+ly\s+)?(?:right|correct|accurate|true|valid|best)\s+(?:one|answer|option|choice)\b"
)
# "Line up the five substances ... the fourth one": the options counted, then a place among them.
_COUNTED = re.compile(r"(?i)\b(?:the|these|those|all)\s+" + _COUNT + r"\s+[a-z]")
_PLACE_ONE = re.compile(r"(?i)\bthe\s+(?:very\s+)?" + _ORD + r"\s+one\b(?!['’]s)")
# Every option in its turn ("read the first one before the others", "each of them"): none singled out.
_ALL_IN_TURN = re.compile(r"(?i)\b(?:the\s+others|the\s+rest|each|every|all|both|in\s+turn|one\s+at\s+a\s+time|one\s+by\s+one)\b")
_PLACE_WORDS = {"end": "last", "start": "first", "head": "first", "one": "first", "two": "second", "three": "third",
                "four": "fourth", "five": "fifth", "six": "sixth"}


def _list_places(sentence: str, questions: list[Question]) -> list[OptionRef]:
    """Options named by a place worded from the list's side ("listed third", "second from the bottom")."""
    refs = []
    if _SPEAKS_OF_LIST.search(sentence) and not _ALL_IN_TURN.search(sentence):
        for m in _BARE_PLACE.finditer(sentence):
            o = _PLACE_WORDS.get((m.group("e") or "").lower(), (m.group("o") or m.group("e") or "").lower())
            o = {"bottom": "last", "top": "first"}.get(o, o)
            refs += _positions(o, None, m.start(), m.end(), questions)
    for pattern in (*_PLACE_ASSERTED, _PLACE_NOUN_RIGHT):
        for m in pattern.finditer(sentence):
            refs += _positions(_place_word(m.group("o")), None, m.start(), m.end(), questions)
    counted = _COUNTED.search(sentence)
    if counted and not _ALL_IN_TURN.search(sentence):
        for m in _PLACE_ONE.finditer(sentence):
            refs += _positions(_place_word(m.group("o")), counted.group("n"), m.start(), m.end(), questions)
    for pattern in _LIST_PLACE:
        for m in pattern.finditer(sentence):
            o = m.group("o").lower()
            o = _PLACE_WORDS.get(o, o)
            if o.isdigit():
                o = f"{o}th"
            end = (m.groupdict().get("end") or "").lower()
            if m.groupdict().get("end") == "" and o == "last":  # "last but one"
                o = "second to last"
            elif end in ("bottom", "end"):
                o = "second to last" if o.startswith(("second", "2")) else "third to last"
            refs += _positions(o, None, m.start(), m.end(), questions)
    return refs


def _place_word(word: str) -> str:
    o = word.lower()
    return {"bottom": "last", "top": "first"}.get(o, o)


_FIRST_TO_LAST = re.compile(
    r"(?i)\b(?:from|between|with|at)\s+the\s+(?:first|top)\b.{0,60}?\b(?:to|and|through)\s+the\s+(?:last|final|bottom)\b"
)
# Nouns of the batch's questions themselves ("the last of the three items"): not the options.
_QUESTION_NOUNS = frozenset("question questions item items case cases problem problems stem stems vignette vignettes".split())


def _list_positions(sentence: str, questions: list[Question]) -> list[OptionRef]:
    """Options named by their place in the question's list, with or without the word "option"."""
    if _FIRST_TO_LAST.search(sentence):
        return []
    refs = []
    for pattern in _LIST_POSITION:
        for m in pattern.finditer(sentence):
            noun = (m.group("noun") or "").split()
            listed = bool(m.group("listed"))
            count = m.groupdict().get("n")
            if any(w.lower() in _QUESTION_NOUNS for w in noun) and not listed:
                continue  # "the last of the three items": the batch's questions, not an option
            if not (listed or count or _asked_noun(noun, questions)):
                continue  # "the last of them": nothing says it counts along the options
            if _questions_own_phrase(m.group("o"), noun, questions):
                continue
            refs += _positions(m.group("o"), count, m.start(), m.end(), questions)
    return refs


def _asked_noun(noun: list[str], questions: list[Question]) -> bool:
    """Whether ``noun`` is what a question asks for ("Of the temperatures, ..." when one asks "At
    what temperature ..."): the options are such things."""
    asked = {stem(n) for q in questions for n in _asked_for(q.question)}
    return any(stem(w.lower()) in asked for w in noun)


def _questions_own_phrase(ordinal: str, noun: list[str], questions: list[Question]) -> bool:
    """Whether "first ionisation ..." is the wording of a question ("the highest first
    ionisation energy"), not a place in a list."""
    if not noun:
        return False
    phrase = f"{ordinal} {noun[0]}".lower()
    return any(phrase in " ".join(q.question.lower().split()) for q in questions)


def _positions(ordinal: str, count: str | None, start: int, end: int, questions: list[Question]) -> list[OptionRef]:
    """The option letters at ``ordinal`` in each question with options (with ``count`` of them, if given)."""
    o = re.sub(r"[-\s]+", " ", ordinal.lower())
    n = _NUMBER_WORDS.get(count.lower(), 0) if count and not count.isdigit() else int(count or 0)
    refs = []
    for q in questions:
        letters = list(q.options or {})
        if not letters or (n and len(letters) != n and any(len(x.options or {}) == n for x in questions)):
            continue
        if o in _LAST:
            index = len(letters) - 1
        elif o == "middle":  # only an odd number of options has one
            index = len(letters) // 2 if len(letters) % 2 else -1
        elif o.startswith(("second", "next", "penultimate")) and ("last" in o or "end" in o or "bottom" in o or o == "penultimate"):
            index = len(letters) - 2
        elif o == "third to last":
            index = len(letters) - 3
        else:
            index = _ORDINALS.get(o, int(o[0]) if o[0].isdigit() else 0) - 1
        if 0 <= index < len(letters):
            refs.append(OptionRef(letters[index], None, start, end, "ordinal"))
    return refs


# --- options that are numbers --------------------------------------------------------------------
# "1", "3", "7", "11" (a pH), "32" ... "256" (bits), "4 m/s²": too short for the text match, so
# an option that is a number (with or without a unit) is named by that number written in digits.
_NUMERIC_OPTION = re.compile(r"^\s*(?P<n>[-+−]?\d+(?:[.,]\d+)?)\s*(?P<unit>[^\d\s].{0,12})?$")
_NUMBER = re.compile(r"(?<![\w.,/^⁻−-])(?P<n>\d+(?:\.\d+)?)(?![\w]|[.,]\d)")
# A number that counts steps, questions or list items ("Step 2", "(3)", "question 1") is not a value.
_COUNTING = re.compile(r"(?i)(?:\b(?:step|steps|question|questions|q|item|items|part|no|number|point|stage)\s*|#|\()$")


def _numeric_options(q: Question) -> dict[str, tuple[str, bool]]:
    """Letter → (the number, whether its option has a % sign) for the options that are numbers."""
    out = {}
    for letter, text in (q.options or {}).items():
        m = _NUMERIC_OPTION.match(text)
        if m and not re.match(r"\s*/\s*\d", m.group("unit") or ""):  # "3/16" is a fraction, not a 3
            out[letter] = (m.group("n").replace(",", ".").replace("−", "-").lstrip("+"), "%" in (m.group("unit") or ""))
    return out


# "the value 20", "an option of 20", "20 is ...": a number put forward as a candidate answer.
_AS_CANDIDATE_BEFORE = re.compile(r"(?i)\b(?:value|answer|option|choice|figure|result|reading|number)\s+(?:of\s+)?$")
_AS_CANDIDATE_AFTER = re.compile(r"(?i)^\s*(?:[^\w\s]{1,3}\s*)?(?:is|was|would|could|can|must|comes|fits|matches|looks)\b")


def _stem_number(m: re.Match, sentence: str, questions: list[Question]) -> bool:
    """Whether a number is one of the data the batch's questions give ("falls by 20%" and "20 m/s
    in 5 s"), used in a worked step rather than put forward as a candidate answer."""
    n = float(m.group("n"))
    in_stems = any(float(x) == n for q in questions for x in re.findall(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.]\d)", q.question))
    if not in_stems:
        return False
    before, after = sentence[: m.start()], sentence[m.end() :]
    in_a_list = re.search(r"(?i)(?:,|\band|\bor)\s*$", before) or re.match(r"(?i)\s*(?:,|and\b|or\b)", after)
    return not (in_a_list or _AS_CANDIDATE_BEFORE.search(before) or _AS_CANDIDATE_AFTER.match(after))


def _number_refs(sentence: str, questions: list[Question]) -> list[OptionRef]:
    """Options that are numbers, named by their number in digits: not a count of steps or items,
    not a percentage when the option is none (a stem's "falls by 20%" beside an option "20")."""
    refs = []
    for q in questions:
        # A fraction ("3/16") by its own text, never by its numerator.
        for letter, text in (q.options or {}).items():
            frac = re.fullmatch(r"\s*(\d+)\s*/\s*(\d+)\s*", text)
            if frac:
                for m in compiled(r"(?<![\d/.])" + frac.group(1) + r"\s*/\s*" + frac.group(2) + r"(?![\d/])").finditer(sentence):
                    refs.append(OptionRef(letter, q.id, m.start(), m.end(), "text"))
        numbers = _numeric_options(q)
        if len(numbers) < 2:  # numbers are values only where the options are values
            continue
        for m in _NUMBER.finditer(sentence):
            if _COUNTING.search(sentence[: m.start()]) or re.match(r"\s*[).:](?!\d)", sentence[m.end() :]) and m.start() < 4:
                continue
            percent = re.match(r"\s*(?:%|per\s*cent|percent)", sentence[m.end() :]) is not None
            if _stem_number(m, sentence, questions):
                continue
            for letter, (number, has_percent) in numbers.items():
                if float(m.group("n")) == float(number) and percent <= has_percent:
                    refs.append(OptionRef(letter, q.id, m.start(), m.end(), "text"))
        # Spelt out, put forward as a candidate ("Seven, not nine.", "it's eleven"); a lone number
        # word elsewhere is a count or a step ("the three answers", "differ by exactly one").
        for n in spoken_numbers(sentence):
            if n.words == 1 and not (n.value > 1 and _spoken_candidate(sentence, n.start, n.end)):
                continue
            for letter, (number, has_percent) in numbers.items():
                if n.value == float(number) and not has_percent:
                    refs.append(OptionRef(letter, q.id, n.start, n.end, "text"))
    return refs


def _spoken_candidate(sentence: str, start: int, end: int) -> bool:
    before, after = sentence[:start], sentence[end:]
    contrast = re.match(r"(?i)\s*,?\s*(?:not|rather\s+than|over|instead\s+of)\b", after) is not None
    asserted = re.search(r"(?i)\b(?:it['’]s|it\s+is|answer\s+is|go\s+with|pick|choose)\s+$", before) is not None
    return contrast or asserted or (not before.strip() and re.match(r"\s*[,.!]", after) is not None)


def _reads_as_letter(sentence: str, start: int, end: int) -> bool:
    """Whether a lone capital reads as an option letter rather than part of a name or an article."""
    before = _WORD_BEFORE.search(sentence[:start])
    if before and before.group(1).lower() in _NAMING and sentence[before.end(1) : start].strip() in ("", "-"):
        # "to" names a letter only as the end of a range ("from A to K", "among A to E"); "that
        # corresponds to C" and "it points to D" name an option.
        if before.group(1).lower() != "to" or re.search(r"(?<![\w'’])\(?[A-Z]\)?\s*(?:up\s+)?to\s*$", sentence[:start]):
            return False
    if re.search(r"[A-Z][-–]$", sentence[:start]) or sentence[end : end + 1] in ("-", "–"):  # "A-T", "G-C": base pairs; "A–D"
        return False
    if re.match(r"\s*(?:to|through|thru|–)\s*\(?[A-Z]\)?(?![\w'’])", sentence[end:]):  # "A to E": a range, every option
        return False
    if re.search(r"(?<![\w'’])\(?[A-Z]\)?\s*(?:to|through|thru)\s*$", sentence[:start]):  # its end: "A through E"
        return False
    if names_something_else(sentence, start, end):
        return False
    nxt = _NEXT_WORD.match(sentence[end:])
    if nxt is None:
        return True
    word = nxt.group(1)
    if word[0].isupper() and len(word) == 1:  # "B and A", "A, B"
        return True
    return word[0].islower() and re.fullmatch(_GOES_ON, word) is not None


# A capital that is a unit ("25 °C", "a current of 2 A"), a symbol in a formula ("E = hf"), an
# initial ("E. M. Forster", "C. S. Lewis") or an abbreviation ("E. coli"), or part of a proper
# name ("Company B", "Appendix C"), names no option.
_UNIT_BEFORE = re.compile(r"(?:\d\s*|°\s*)$")
_FORMULA = re.compile(r"^\s*[=<>+*/^×·≈]|[=<>+*/^×·≈]\s*$")
_INITIAL_AFTER = re.compile(r"^\.\s*(?:[A-Z]\.|[a-z])")
_INITIAL_BEFORE = re.compile(r"(?<![\w'’])[A-Z]\.\s*$")
_NAME_BEFORE = re.compile(r"(?<=[a-z,;:]\s)[A-Z][a-z]+\s+$")


# A musical note: "the lowest C", "middle C", "an F sharp", "the key of G" (fresh16's organ pipes).
_NOTE_BEFORE = re.compile(r"(?i)\b(?:lowest|highest|bottom|middle|low|high|tenor|treble|bass|note|key\s+of)\s+$")
# A letter of a legend: "in the usual shorthand (C for cross, T for twist)" (fresh18).
_LEGEND = re.compile(r"(?i)^\s+(?:for|stands\s+for)\s+(?!(?:the|a|an|this|that|these|those|question|item|q\d|number|both|all|each|one|it|them)\b)[a-z]+\s*[,;)]")
_NOTE_AFTER = re.compile(r"(?i)^(?:[♯♭#]|\s+(?:sharp|flat|major|minor|natural)\b)")


def names_something_else(sentence: str, start: int, end: int) -> bool:
    """Whether the lone capital at ``start`` is a unit, a symbol, an initial, a musical note or
    part of a name."""
    before, after = sentence[:start], sentence[end:]
    if _UNIT_BEFORE.search(before) or _FORMULA.search(before) or _FORMULA.search(after):
        return True
    if _NOTE_BEFORE.search(before) or _NOTE_AFTER.match(after) or _LEGEND.match(after):
        return True
    if _INITIAL_AFTER.match(after) or _INITIAL_BEFORE.search(before):
        return True
    return _NAME_BEFORE.search(before) is not None


def _ordinal_refs(m: re.Match, questions: list[Question]) -> list[OptionRef]:
    refs = []
    positions = [m.group("o").lower()] + ([m.group("o2").lower()] if m.group("o2") else [])
    count = _NUMBER_WORDS.get((m.group("n") or "").lower(), 1)
    for q in questions:
        letters = list(q.options or {})
        if not letters:
            continue
        for position in positions:
            if position in _LAST:
                picked = letters[len(letters) - count :]
            else:
                first = _ORDINALS[position] - 1
                picked = letters[first : first + count]
            refs += [OptionRef(letter, None, m.start(), m.end(), "ordinal") for letter in picked]
    return refs


@dataclass(frozen=True)
class _OptionForm:
    """How an option can be named: its whole text, its distinctive stems, its acronyms."""

    letter: str
    whole: tuple[str, ...]
    squashed: str
    distinctive: frozenset[str]
    acronyms: frozenset[str]
    longer: tuple[tuple[str, ...], ...]  # other options of the question that contain this one's text
    statement: bool  # a sentence ("Rivers release stored water at dawn"), not a name
    generic: bool  # its words are in every other option ("Vitamin A" beside "Vitamin C": "vitamin")
    unglossed: tuple[str, ...]  # its words without a parenthesis ("body-centred cubic (BCC)")
    # The distinctive stems long enough to be met in another form or with a slip (near_miss,
    # same_word): set apart once, so each word of a sentence is compared with these alone.
    variable: frozenset[str] = frozenset()
    # The distinctive stems long enough to be abbreviated (_ABBREVIATION_MIN letters and 4 more).
    abbreviable: frozenset[str] = frozenset()


@functools.lru_cache(maxsize=16_384)
def _forms(question: str, options: tuple[tuple[str, str], ...]) -> tuple[_OptionForm, ...]:
    stem_words = set(tokens(question))
    per_option = {letter: tokens(text) for letter, text in options}
    forms = []
    for letter, text in options:
        own = per_option[letter]
        others = {w for other, ws in per_option.items() if other != letter for w in ws}
        distinctive = frozenset(
            w for w in own
            if len(w) >= _MIN_DISTINCTIVE and not w.isdigit() and w not in _STOP and w not in _FUNCTION and w not in others and w not in stem_words
        )
        longer = tuple(ws for other, ws in per_option.items() if other != letter and len(ws) > len(own) and contains(ws, own))
        # (a parenthesis glosses a name: "Type IIx (fast glycolytic) skeletal fibres" is a name)
        bare_words = tokens(re.sub(r"^\s*(?:c\.|ca\.|circa|approx\.?|about|around|roughly)\s*", "", re.sub(r"\([^)]*\)", " ", text)))
        statement = sum(len(w) >= 3 and w not in _STOP for w in bare_words) >= _STATEMENT_WORDS
        # A statement has no initials: "at dawn and dusk" is not "ADD".
        acronyms = frozenset() if statement else _acronyms(text)
        generic = len(options) > 2 and all(set(own) <= set(ws) for other, ws in per_option.items() if other != letter)
        variable = frozenset(d for d in distinctive if len(d) >= VARIANT_MIN)
        abbreviable = frozenset(d for d in distinctive if len(d) >= _ABBREVIATION_MIN + 4)
        forms.append(
            _OptionForm(letter, own, "".join(own), distinctive, acronyms, longer, statement, generic, bare_words, variable, abbreviable)
        )
    return tuple(forms)


def _acronyms(text: str) -> frozenset[str]:
    """Initials of runs of two or more words ("CT pulmonary angiography" → "ctpa", "pa";
    "grievous bodily harm" → "gbh"); an upper-case word gives all its letters."""
    words = [w for w in re.findall(r"[A-Za-z]+", text) if w.lower() not in ("a", "an", "the", "of", "to", "or", "and", "for")]
    parts = [w.lower() if w.isupper() and len(w) <= 4 else w[0].lower() for w in words]
    out = set()
    for i in range(len(parts)):
        for j in range(i + 2, len(parts) + 1):
            acronym = "".join(parts[i:j])
            if len(acronym) >= 3:
                out.add(acronym)
    return frozenset(out)


def _word_spans(sentence: str) -> list[tuple[str, str, int, int]]:
    """(folded word, stem, start, end) of each word of the sentence, articles kept out."""
    folded = fold(sentence)
    out = []
    for m in re.finditer(r"[a-z0-9]+", folded):
        w = m.group(0)
        if w in ("a", "an", "the"):
            continue
        out.append((w, stem(w), m.start(), m.end()))
    return out


def _text_refs(sentence: str, questions: list[Question]) -> list[OptionRef]:
    """Options named by their text or by a distinctive word of it, after normalisation."""
    words = _word_spans(sentence)
    stems = tuple(s for _, s, _, _ in words)
    joins = _joined_stems(stems)
    found = []
    for q in questions:
        if not q.options:
            continue
        topic = _topic_words(q, questions)
        for form in _forms(q.question, tuple(q.options.items())):
            if not identifying(q.options[form.letter]):
                continue
            spans, whole = _mention_spans(form, words, stems, joins, topic)
            if not whole:
                spans = [sp for sp in spans if not _common_use(sentence, sp, q.options[form.letter], questions, q)]
            if spans:
                found.append((q, form.letter, spans, whole))
    # One stretch of words names one thing: a word inside a longer mention of another option
    # ("Tom" of "Tom Stoppard", beside an option "Tom Buchanan") is that option's, not its own.
    longer = [(lo, hi, q.id, letter) for q, letter, spans, whole in found if whole for lo, hi in spans]
    refs = []
    for q, letter, spans, whole in found:
        spans = [
            (lo, hi) for lo, hi in spans
            if not any(a <= lo and hi <= b and b - a > hi - lo and (qid, ltr) != (q.id, letter) for a, b, qid, ltr in longer)
        ]
        if spans:
            lo, hi = spans[0]
            refs.append(OptionRef(letter, q.id, lo, hi, "text", whole))
    return refs


def _common_use(sentence: str, span: tuple[int, int], option: str, questions: list[Question], own: Question) -> bool:
    """Whether one word of an option, met alone, is the sentence's own ordinary word rather than
    a mention of the option: a word another question of the batch is about ("market" when a
    question asks about a market, beside an option "Open market operations"), or a title's or
    name's capitalised word written in lower case ("the sea" beside "The Old Man and the Sea")."""
    word = fold(sentence)[span[0] : span[1]]
    w = stem(word)
    if any(w in tokens(q.question) for q in questions if q is not own):
        return True
    titled = {stem(t.casefold()) for t in re.findall(r"(?<=\s)[A-Z][a-z]+", option)}
    if w not in titled:
        return False
    said = [m.group(0) for m in compiled(r"(?i)(?<![\w'’])" + re.escape(word) + r"\w*").finditer(sentence)]
    return bool(said) and all(x[0].islower() for x in said)


def _topic_words(q: Question, questions: list[Question]) -> frozenset[str]:
    """The stems the batch uses to say what it is about: every question's text and the other
    questions' options. Advice on the topic uses them whatever the answer."""
    texts = [o.question for o in questions] + [t for o in questions if o is not q for t in (o.options or {}).values()]
    return _stems_of(tuple(texts))


@functools.lru_cache(maxsize=4096)  # asked for every sentence of a check: the batch's texts are the same each time
def _stems_of(texts: tuple[str, ...]) -> frozenset[str]:
    return frozenset(w for t in texts for w in tokens(t))


def _joined_stems(stems: tuple[str, ...]) -> dict[str, tuple[int, int]]:
    """Each run of two to four stems of a sentence written together ("photo" "synthes" as
    "photosynthes"), with the first (start, end) word indexes that give it: worked out once per
    sentence rather than once per option."""
    joins: dict[str, tuple[int, int]] = {}
    for i in range(len(stems)):
        joined = stems[i]
        for j in range(i + 1, min(i + 4, len(stems))):
            joined += stems[j]
            joins.setdefault(joined, (i, j))
    return joins


def _mention_spans(
    form: _OptionForm,
    words: list[tuple[str, str, int, int]],
    stems: tuple[str, ...],
    joins: dict[str, tuple[int, int]],
    topic: frozenset[str] = frozenset(),
) -> tuple[list[tuple[int, int]], bool]:
    """Where the sentence names the option, and whether by enough of it to name it alone.

    Words of an option that is a statement name it only when one of them is not a word the
    batch is about (``topic``): "wage" and "market" in advice on a labour-economics batch are
    its subject, not the option "Unemployment caused by a wage floor set above the
    market-clearing level" (read from fresh10 to fresh13)."""
    n = len(form.whole)
    covered = {i for ws in form.longer for j in contains(stems, ws) for i in range(j, j + len(ws))}
    spans = [(words[i][2], words[i + n - 1][3]) for i in contains(stems, form.whole) if i not in covered]
    if not spans and len(form.unglossed) >= 2 and form.unglossed != form.whole:  # named without its gloss
        m = len(form.unglossed)
        spans = [(words[i][2], words[i + m - 1][3]) for i in contains(stems, form.unglossed) if i not in covered]
    if spans and not form.generic:
        return spans, True
    spans = []
    # The whole text written without its spaces ("photo-synthesis", "Qin Shihuang").
    if len(form.squashed) >= 6:
        joined = joins.get(form.squashed)  # (_joined_stems)
        if joined:
            i, j = joined
            return [(words[i][2], words[j][3])], True
    hit: set[str] = set()
    topical: set[str] = set()  # the hits the batch's own words make ("preparation" for "prepared", fresh17)
    everyday: set[str] = set()  # the hits made by everyday words ("end" of "ends up", "air", "water")
    acronym = False
    rare = False
    where: list[tuple[int, str]] = []  # (word index, distinctive word) of each hit
    for i, (w, s, lo, hi) in enumerate(words):
        if i in covered:
            continue
        # Another form of an option's word is no mention of it when the batch itself uses that form:
        # "temperatures" beside "Tempering" in a batch that asks about a critical temperature (fresh18).
        # (Only stems of VARIANT_MIN letters or more can be another form or a slip of one another;
        # a shorter one names a distinctive word only by being it. The order of ``matched`` does
        # not matter: it is read as a set below.)
        if len(s) >= VARIANT_MIN and s not in topic:
            matched = [d for d in form.variable if s == d or near_miss(s, d) or same_word(s, d)]
        else:
            matched = [s] if s in form.distinctive else []
        if not matched and form.abbreviable and _ABBREVIATION_MIN <= len(w) <= 6:
            matched = [d for d in form.abbreviable if len(d) >= len(w) + 4 and d.startswith(w)]
        if matched:
            spans.append((lo, hi))
            hit.update(matched)
            topical.update(d for d in matched if d in topic or s in topic)
            where += [(i, d) for d in matched]
            everyday_word = zipf(w) >= _EVERYDAY_ZIPF
            rare = rare or not everyday_word
            if everyday_word:
                everyday.update(matched)
        elif len(w) >= 3 and w in form.acronyms:
            spans.append((lo, hi))
            acronym = True
    whole = acronym or len(hit) >= min(2, len(form.distinctive))
    # A statement with one distinctive word is not named by that word alone when it is an everyday
    # one ("hands" beside "Declarer leads first, from their own hand", fresh16).
    if whole and form.statement and not acronym and len(hit) < 2 and not rare:
        whole = False
    if whole and form.statement and not acronym and not hit - topical:
        whole = False
    # Two words of a statement name it only if neither is an everyday word (unless they are all of
    # its distinctive words that are not): "cable" and "ends up" beside "The cable housing is frayed
    # at the lever end", "water" and "column" beside "... through the water column" (fresh20).
    if whole and form.statement and not acronym and len(hit - everyday) < 2 and hit - everyday != form.distinctive - everyday:
        whole = False
    # An option that is a statement ("Predators migrate away whenever prey are abundant") shares
    # its words with any advice on the topic ("know", "luminosity", "sound"): one of them alone
    # is no mention of it, two are. Of a shorter option, one everyday word ("different" of
    # "Differences in air pressure") is no mention either.
    statement = form.statement
    if not whole and (statement or not rare):
        return [], False
    if whole and statement and not acronym and not _close(where):
        return [], False  # its words scattered over a long sentence ("roughly ... hydrogen")
    return spans, whole


def states_option(sentence: str, q: Question, letter: str) -> bool:
    """Whether ``sentence`` states option ``letter``'s text, not two words of a statement: its
    whole text, or at least half of its distinctive words. "That one comes from lung
    over-expansion" shares two words with "Air trapped in the lungs expands ... and can
    over-expand and tear lung tissue" and states none of it (fresh20): a verdict beside it is
    still read by the rules, as a finding the learned layer may doubt."""
    form = next(f for f in _forms(q.question, tuple((q.options or {}).items())) if f.letter == letter)
    if not form.statement:
        return True
    stems = tuple(s for _, s, _, _ in _word_spans(sentence))
    if contains(stems, form.whole) or (len(form.unglossed) >= 2 and contains(stems, form.unglossed)):
        return True
    hits = {d for d in form.distinctive if any(s == d or near_miss(s, d) or same_word(s, d) for s in stems)}
    return len(hits) >= max(2, (len(form.distinctive) + 1) // 2)


def _close(where: list[tuple[int, str]], window: int = 8) -> bool:
    """Whether two different words of an option stand within ``window`` words of each other."""
    return any(d1 != d2 and abs(i1 - i2) <= window for i1, d1 in where for i2, d2 in where)


@functools.lru_cache(maxsize=65_536)  # asked of every option of the batch for every sentence
def identifying(text: str) -> bool:
    """Whether an answer or option text is specific enough that its mention gives it away."""
    norm = normalize_phrase(text)
    return len(norm.replace(" ", "")) >= _MIN_ANSWER_CHARS and norm not in _GENERIC_ANSWERS


@functools.lru_cache(maxsize=16_384)  # re's own cache holds 512: a large run names thousands of options
def mention(text: str) -> re.Pattern:
    """Case-folded whole-word occurrences of ``text``, with any white space between its words."""
    words = [re.escape(w) for w in text.casefold().split()]
    return re.compile(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)")


def names_option(sentence: str, question: Question, letter: str) -> bool:
    """Whether ``sentence`` names option ``letter`` of ``question`` by its text (normalised)."""
    return any(r.letter == letter for r in _text_refs(sentence, [question]))


def mentions_phrase(sentence: str, phrase: str, question_text: str = "") -> bool:
    """Whether ``sentence`` names the phrase answer ``phrase``: its normalised text, the text
    without spaces, a one-letter slip in a long word, or one of its distinctive words (one
    that the question itself does not use), another form of such a word ("subliming" for
    "sublimation"), its initials ("DNS" for "Domain Name System") or its letters spelt out
    ("S-U-B-L-I-M-A-T-I-O-N").

    A distinctive word that is also a common English word ("deep" of "Challenger Deep", "cost"
    of "opportunity cost") names the answer alone only when it is the answer's one distinctive
    word (the question's own wording supplies the rest: "median" when it asks which nerve) or
    when it keeps the answer's capital in mid-sentence ("the Deep"); otherwise it needs
    another of the answer's words in the sentence, since advice uses such words in their
    ordinary sense ("the ocean is deep there", "the cost of a choice"). A slip or another form
    must not be a common word in its own right: "similar" is a word, not a slip of "simile"."""
    sentence = _SPELLED.sub(lambda m: re.sub(r"[-.]", "", m.group(0)), sentence)
    words = _word_spans(sentence)
    stems = tuple(s for _, s, _, _ in words)
    whole = tokens(phrase)
    if not whole:
        return False
    if contains(stems, whole) or _initials_named(sentence, phrase, question_text):
        return True
    squashed = "".join(whole)
    joined = ["".join(stems[i : i + k]) for k in range(1, 5) for i in range(len(stems) - k + 1)]
    if len(squashed) >= 6 and squashed in joined:
        return True
    # The same on the words as written, since a compound and its parts stem apart ("keystone" and
    # "key stone" give "keyst" and "key ston").
    raw = re.sub(r"[^a-z0-9]", "", fold(phrase))
    folded = [w for w, _, _, _ in words]
    if len(raw) >= 6 and raw in {"".join(folded[i : i + k]) for k in range(2, 5) for i in range(len(folded) - k + 1)}:
        return True
    asked = set(tokens(question_text))
    distinctive = {w for w in whole if len(w) >= 3 and not w.isdigit() and w not in _STOP and w not in asked}
    capitals = {stem(fold(w)) for w in re.findall(r"[^\W\d_]+", phrase) if w[0].isupper()}
    cased = _cased_words(sentence, len(words))
    hit: set[str] = set()
    for i, (w, s, _, _) in enumerate(words):
        for d in distinctive:
            variant = s != d and (
                near_miss(s, d) or same_word(s, d) or (len(d) >= 5 and len(s) > len(d) and s.startswith(d))
            )
            if s != d and not variant:
                continue
            if variant and common_word(w):
                continue  # a word of its own, not a slip or a form of the answer's
            # Beside a proper name, the answer's lower-case words are class nouns ("limit" of
            # "Roche limit", "discontinuity" of "Mohorovičić discontinuity"); and another form
            # of one word of a longer answer ("genetics" of "genetic drift") is that word's own.
            alone = not (capitals and d not in capitals) and not (variant and len(distinctive) > 1 and d not in capitals)
            if alone and (not common_word(w) or len(distinctive) == 1 or (d in capitals and i > 0 and cased[i][:1].isupper())):
                return True
            hit.add(d)
    return len(hit) >= 2


# A word at least this frequent in general English (wordfreq's Zipf scale, log10 of uses per
# billion words: "deep" 5.1, "cost" 5.2, "time" 6.3) is everyday English; "median" 4.1,
# "Newton" 3.9 and "Westphalia" 2.6 name something.
_COMMON_ZIPF = 4.5
# One word of an option this frequent is the sentence's own ("different" 5.5, "know" 6.3), not a
# mention of the option; "surgery" (4.6) and "English" (5.2, a whole option) still name theirs.
_EVERYDAY_ZIPF = 5.0


@functools.lru_cache(maxsize=65_536)
def common_word(word: str) -> bool:
    """Whether a folded word is a common word of general English (see :data:`_COMMON_ZIPF`)."""
    return zipf(word) >= _COMMON_ZIPF


@functools.lru_cache(maxsize=65_536)
def zipf(word: str) -> float:
    """How common a folded word is in general English (wordfreq's Zipf scale)."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en")


def _cased_words(sentence: str, n: int) -> list[str]:
    """The words of ``sentence`` as written (accents and apostrophes dropped, case kept), one per
    word of :func:`_word_spans`; all lower case when the two do not line up."""
    text = unicodedata.normalize("NFKD", sentence)
    text = re.sub(r"['’‘`´]", "", "".join(ch for ch in text if not unicodedata.combining(ch)))
    out = [w for w in re.findall(r"[A-Za-z0-9]+", text) if w.lower() not in ("a", "an", "the")]
    return out if len(out) == n else [""] * n


# Letters spelt out one by one: "S-U-B-L-I-M-A-T-I-O-N", "D.N.S".
_SPELLED = re.compile(r"(?<![\w-])(?:[A-Za-z][-.]){2,}[A-Za-z](?![\w-])")


def _initials_named(sentence: str, phrase: str, question_text: str) -> bool:
    """Whether the sentence writes a phrase answer of three words or more by its initials, in
    capitals ("DNS" for "Domain Name System"), when the question does not itself use them."""
    words = [w for w in re.findall(r"[A-Za-z]+", phrase) if w.lower() not in ("a", "an", "the", "of", "and", "for", "to", "or")]
    if len(words) < 3:
        return False
    initials = "".join(w[0] for w in words).upper()
    said = compiled(r"(?<![\w-])" + initials + r"s?(?![\w-])").search(sentence) is not None
    return said and compiled(r"(?<![\w-])" + initials + r"(?![\w-])").search(question_text) is None


_IN_TURN = re.compile(r"(?i)\b(?:in\s+turn|one\s+at\s+a\s+time|one\s+by\s+one|each\s+in\s+turn)\b")
_ORDER_WORDS = re.compile(r"(?i)\b(?:first|last|then|next|start|starts)\b")


def _judgement(sentence: str, refs: list[OptionRef]) -> str | None:
    """"negative", "positive" or None: the strongest judgement the sentence makes."""
    text = _NEUTRAL_NEGATION.sub(" ", sentence)
    if _IN_TURN.search(text):  # "each in turn, lithium first and neon last": the order of work
        text = _ORDER_WORDS.sub(" ", text)
    if _NEGATIVE.search(text):
        return "negative"
    if _COMPARATIVE.search(text) or _POSITIVE.search(text):
        return "positive"
    return None


# A warning that two ideas are easily confused ("A heap is often confused with a stack", "It is
# easy to mix up the 48-bit address with ..."): it names both to keep them apart, and judges neither.
_CONFUSION_WARNING = re.compile(
    r"(?i)\b(?:is|are|gets?|get)\s+(?:often\s+|commonly\s+|easily\s+|sometimes\s+|frequently\s+)?(?:confused|mixed\s+up|conflated)\s+with\b"
    r"|\b(?:it\s+is|it['’]s)\s+(?:easy|common|tempting)\s+to\s+(?:confuse|mix\s+up|conflate)\b"
    r"|\b(?:a\s+)?common\s+(?:slip|mistake|error|trap|confusion)\s+is\s+(?:to\s+)?(?:confus\w*|mix\w*\s+up|conflat\w*)\b"
    r"|\b(?:don['’]t|do\s+not|never|not\s+to|avoid)\s+(?:confus\w*|mix(?:ing)?\s+up|conflat\w*)\b"
    r"|\b(?:students|people|candidates|learners|readers|many|some|you|we)\s+(?:often\s+|commonly\s+|easily\s+|sometimes\s+|frequently\s+|"
    r"tend\s+to\s+|may\s+|might\s+)?(?:confuse|mix\s+up|conflate)\b"
)


def _study(sentence: str) -> bool:
    """A study instruction, or a warning against confusing two ideas: it asks the target to
    work something out, and judges no option."""
    return _STUDY.search(sentence) is not None or _CONFUSION_WARNING.search(sentence) is not None


def in_list(sentence: str, refs: list[OptionRef]) -> bool:
    """Two or more options of one question named side by side ("A, B and C"), or one named in a
    list of three or more things ("adrenaline, antihistamines and corticosteroids")."""
    if len({r.letter for r in refs}) >= 2:
        return True
    return sentence.count(",") >= 1 and re.search(r"(?i),\s+(?:and|or)\b|\b(?:and|or)\b", sentence) is not None


# What may stand between two options of one list: "lithium, oxygen and neon", "the joule, the
# watt or the newton", "32, 48, 64, 128 and 256".
_LIST_GAP = re.compile(r"(?i)^\s*(?:,|/|&|\band\b|\bor\b|\bthen\b|,\s*(?:and|or|then)\b)?\s*(?:(?:the|an?)\s+)?$")


def _named_evenly(sentence: str, ref: OptionRef, refs: list[OptionRef], questions: list[Question]) -> bool:
    """Whether ``ref`` is one of a list that names every option of its question side by side
    ("Go through lithium, oxygen, nitrogen, fluorine and neon one at a time"): such a list singles
    none out, whatever the sentence then asks of each. Another mention of one of them elsewhere
    in the sentence ("..., and neon beats them all") breaks the evenness.

    A list of some of the options is even too when the sentence asks the same of each of them
    ("Review what lithium, sodium and potassium each do", "For each of 2, 4 and 8 m, work out
    ..."): a question put to every member judges none, unless it judges them all negatively
    ("note why oxygen and neon are each wrong"), which narrows the options."""
    q = next((q for q in questions if q.id == ref.question_id), None)
    if q is None or not q.options or ref.how != "text":
        return False
    own = _listed(sentence, [r for r in refs if r.question_id == q.id], q)
    if own is None or not any(r.letter == ref.letter and r.start <= ref.start and ref.end <= r.end for r in own):
        return False
    if {r.letter for r in own} == set(q.options) and len(own) == len(q.options):
        return True
    return (
        len(own) >= 2
        and _EACH.search(sentence) is not None
        and (_study(sentence) or _WH.search(sentence) is not None or re.search(r"(?i)\bfor\s+each\b", sentence) is not None)
        and _judgement(_without_options(sentence, own, questions), own) != "negative"
    )


# A question put to every member of a list: "each", "every one", "in turn", "one at a time".
_EACH = re.compile(r"(?i)\b(?:each|every\s+one|in\s+turn|one\s+at\s+a\s+time|one\s+by\s+one)\b")


def _listed(sentence: str, refs: list[OptionRef], q: Question) -> list[OptionRef] | None:
    """The mentions of ``q``'s options in ``sentence`` when they stand side by side in one list,
    in order (a number named by its text and by its value counts once), else None. Between two
    of them stand only list words, articles, and words of the two options themselves ("a rise,
    a fall and no change" names "No change in the market" by "change")."""
    own = sorted({(r.start, r.end): r for r in refs}.values(), key=lambda r: (r.start, -r.end))
    own = [r for r in own if not any(o is not r and o.start <= r.start and r.end <= o.end for o in own)]
    if len({r.letter for r in own}) != len(own):
        return None
    text = fold(sentence)
    for a, b in zip(own, own[1:], strict=False):
        allowed = set(tokens((q.options or {})[a.letter])) | set(tokens((q.options or {})[b.letter]))
        gap = " ".join(w for w in re.findall(r"[a-z0-9]+|[^a-z0-9\s]+", text[a.end : b.start]) if stem(w) not in allowed) + " "
        if not _LIST_GAP.match(re.sub(r"\s+", " ", gap)):
            return None
    return own


def _without_options(sentence: str, refs: list[OptionRef], questions: list[Question]) -> str:
    """``sentence`` without the words that name options by their text (see :func:`_option_words`)."""
    return _strip(sentence, _option_words(sentence, refs, questions))


def _option_words(sentence: str, refs: list[OptionRef], questions: list[Question]) -> list[list[str]]:
    """The folded words of each mention of an option by its text: an option's own words ("Right
    coronary artery", "No change in the market") are what it is called, not a judgement of it.
    A mention reaches over the option's words beside it ("no" before "change")."""
    options: dict[tuple[str | None, str], str] = {(q.id, letter): text for q in questions for letter, text in (q.options or {}).items()}
    words = _word_spans(sentence)
    folded = fold(sentence)
    phrases = []
    for r in refs:
        text = options.get((r.question_id, r.letter))
        if r.how != "text" or text is None:
            continue
        own = set(tokens(text))
        inside = [i for i, (_, _, lo, hi) in enumerate(words) if lo >= r.start and hi <= r.end]
        if not inside:
            continue
        i, j = inside[0], inside[-1]
        while i > 0 and words[i - 1][1] in own:
            i -= 1
        while j + 1 < len(words) and words[j + 1][1] in own:
            j += 1
        phrases.append(re.findall(r"[a-z0-9]+", folded[words[i][2] : words[j][3]]))
    return phrases


def _strip(text: str, phrases: list[list[str]]) -> str:
    for phrase in phrases:
        text = compiled(r"(?i)(?<![\w'’])" + r"\W+".join(map(re.escape, phrase)) + r"(?![\w'’])").sub(" ", text)
    return text


# A question left open: "ask whether ...", "consider when ...". What its clause says of an option
# is what the target is to decide, not a verdict.
_OPEN_CLAUSE = re.compile(
    r"(?i)\bwhether\b[^,;:]*"
    r"|\b(?:consider|review|recall|remember|ask(?:\s+yourself)?|know|learn|note|check|decide|think\s+about|work\s+out|revise)"
    r"\s+(?:when|whether|if)\b[^,;:]*"
)


def _open(sentence: str) -> str:
    """``sentence`` without its open questions (see :data:`_OPEN_CLAUSE`)."""
    return _OPEN_CLAUSE.sub(" ", sentence)


def _option_leaks(sentence: str, qrefs: list[QuestionRef], orefs: list[OptionRef], questions: list[Question]) -> list[LeakFinding]:
    """Options named with a judgement, a position or letter, or singled out by an assertion.
    An option's own words judge nothing, and neither does a question left open ("ask whether
    the contract was breached"): both are read out of the sentence before it is judged."""
    if not orefs:
        return []
    leaks = []
    named_question = next((r.question_id for r in qrefs if r.question_id), None)
    phrases = _option_words(sentence, orefs, questions)
    plain = re.sub(r"(?i)^\s*" + _AS_HELP, " ", _open(_strip(sentence, phrases)))  # the offer judges nothing
    judged = _judgement(plain, orefs)
    study = _study(sentence)
    open_spans = [m.span() for m in _OPEN_CLAUSE.finditer(fold(sentence))]
    by_question: dict[str | None, list[OptionRef]] = {}
    for ref in orefs:
        by_question.setdefault(ref.question_id, []).append(ref)
    for qid, refs in by_question.items():
        where = qid or named_question
        positional = [r for r in refs if r.how in ("letter", "ordinal")]
        bare = [r for r in refs if r.how == "bare letter"]
        texts = [r for r in refs if r.how == "text"]
        # asked of every option, or a warning against confusing two: none singled out
        each = (_EACH_OPTION.search(sentence) or _CONFUSION_WARNING.search(sentence)) is not None and not _PICKED.search(plain)
        picked = _PICKED.search(plain) is not None
        named = {r.letter for r in positional if r.how == "letter"}
        letters = {r.letter for r in bare}
        if positional:
            # unless "Options A, B, C, D and E each describe ...": every option named evenly
            if not (len(named) >= 3 and len(named) == len(positional) and not picked):
                leaks.append(_finding(where, "elimination" if judged == "negative" else "pointer", sentence))
        elif bare:
            # a letter stated anywhere: honest advice has no reason to name one (unless it lists
            # several as the options to go through: "each of the five vitamins, C, D, K, B12 and A")
            if not (len(letters) >= 2 and (each or (len(letters) >= 3 and not picked))):
                leaks.append(_finding(where, "elimination" if judged == "negative" else "pointer", sentence))
        elif texts and not each:
            # One word of a longer option ("light" of "Visible light") is judged only by the words
            # around it: in a long sentence a judgement elsewhere is about something else.
            asserted = [r for r in texts if not any(a <= r.start and r.end <= b for a, b in open_spans)]
            if any(r.whole for r in texts):
                near = judged
            else:
                near = _judgement(_strip(_around(sentence, asserted), phrases), asserted) if asserted else None
            strong = near and not (study and _only_weak(plain))
            single = len({r.letter for r in texts}) == 1
            if strong:
                leaks.append(_finding(where, "elimination" if judged == "negative" else "pointer", sentence))
            elif single and asserted and not study and not in_list(sentence, texts) and any(r.whole for r in asserted):
                # (one rare word of an option, with no judgement near it, is the topic's word:
                # "cable" of "The cable housing is frayed", "water" of "... the water column", fresh20)
                leaks.append(_finding(where, "pointer", sentence))
            elif single and asserted and qrefs and not in_list(sentence, texts):
                leaks.append(_finding(where, "pointer", sentence))
    return leaks


_NEAR_WORDS = 6
# A sentence that asks the same of every option ("note for each option whether ...", "Compute each
# of the five measures in the options (... the weighted mean)") singles none out, whichever it names
# on the way, unless it also says which is right.
_EACH_OPTION = re.compile(
    r"(?i)\b(?:for|of|to|on|with|through)\s+(?:each|every)\s+(?:option|choice|candidate|alternative|answer|one)\b"
    r"|\beach\s+of\s+the\s+(?:(?:two|three|four|five|six)\s+)?(?:[\w-]+\s+)?(?:options|choices|candidates|alternatives|answers)\b"
    r"|\beach\s+of\s+the\s+(?:two|three|four|five|six)\b|\b(?:every|each)\s+(?:option|choice|candidate|alternative)\b"
)
_PICKED = re.compile(r"(?i)\b(?:right|wrong|correct|incorrect|the\s+answer|the\s+one\b|pick|choose|go\s+with)")


def _around(sentence: str, refs: list[OptionRef]) -> str:
    """The words of ``sentence`` within a few of the mentions ``refs`` (folded offsets)."""
    text = fold(sentence)
    lo, hi = min(r.start for r in refs), max(r.end for r in refs)
    before = re.findall(r"\S+", text[:lo])[-_NEAR_WORDS:]
    after = re.findall(r"\S+", text[hi:])[:_NEAR_WORDS]
    return " ".join([*before, text[lo:hi], *after])


# In a study instruction ("Recall what a negative D-dimer can and cannot exclude") these
# words belong to the question the target is asked to answer, not to a verdict.
_WEAK = re.compile(
    r"(?i)\b(?:not|no|never|cannot|can't|without|exclud\w*|likely|use|used|give|given|start|needs?|needed|required?|requires|"
    r"first|keep|holds?|held|reduces?|lowers?|improves?|caused\s+by|comes?\s+from|is\s+the|was\s+the|it\s+is|this\s+is|that\s+is|"
    r"over|than|before|versus|unlike|mostly|most\s+of|typical(?:ly)?\s+of|explains?|matches|fits?|key|choice|select|mark|"
    r"covers?|established|trigger|choose|pick|there\s+is|there['’]s)\b"
)


def _only_weak(sentence: str) -> bool:
    """Whether every judgement word of a study instruction is one that questions use too."""
    text = _NEUTRAL_NEGATION.sub(" ", sentence)
    text = _WEAK.sub(" ", text)
    return not (_NEGATIVE.search(text) or _POSITIVE.search(text) or _COMPARATIVE.search(text))


# --- disclosure ---------------------------------------------------------------------------------
_VERDICT = (
    r"(?:wrong(?:ly)?|incorrect(?:ly)?|right(?:ly)?|correct(?:ly)?|mistaken|a\s+mistake|an\s+error|off|fine|good|well|badly|poorly|accurate|"
    r"inaccurate|spot\s+on|sound|solid|flawed|false|true|held\s+up|holds\s+up|stood\s+up|needs?\s+(?:changing|to\s+change|"
    r"fixing|revising|rethinking|revisiting|reworking|a\s+second\s+look|another\s+look)|needed\s+(?:changing|fixing|revising|rethinking|"
    r"revisiting|reworking|a\s+second\s+look|another\s+look)|"
    r"(?:doesn['’]t|does\s+not|didn['’]t|did\s+not|won['’]t|will\s+not)\s+(?:fit|hold(?:\s+up)?|work|stand(?:\s+up)?|survive|add\s+up)|"
    r"had\s+it|got\s+it|nailed\s+it|missed\s+it|on\s+target|off\s+target|did\s+well|"
    # "were worked by a single operator" (fresh16) is a passive, not a verdict
    r"did\s+badly|worked(?!\s+(?:by|as|with|through|on|in|examples?|solutions?|problems?|exercises?)\b)|failed|was\s+a\s+miss|a\s+hit|hold|stand|stands|checks?\s+out|went\s+(?:astray|wrong|off)|astray)"
)
_SUBJECT = (
    r"(?:\byou\b|\byour\b|\b(?:answers?|responses?|choices?|picks?|reasoning|guess(?:es)?|attempts?)\b"
    r"|\bquestion\s*(?:\d+|one|two|three|four|five|six)\b|\bq\.?\s*\d\b)"
)
_CORRECTNESS = re.compile(
    r"(?i)\b(?:wrong(?:ly)?|incorrect(?:ly)?|right(?:ly)?|correct(?:ly)?|mistaken|a\s+mistake|an\s+error|off|fine|accurate|inaccurate|"
    r"spot\s+on|false|true|held\s+up|holds?(?:\s+up)?|stands?(?:\s+up)?|stood\s+up|had\s+it|got\s+it|nailed\s+it|missed\s+it|on\s+target|"
    r"need(?:s|ed)?\s+(?:changing|fixing|correcting|revising|rethinking|revisiting|reworking|another|a\s+second|"
    r"to\s+(?:change|be\s+(?:fixed|changed|corrected)))|"
    r"off\s+target|astray|(?:doesn['’]t|does\s+not|didn['’]t|did\s+not|won['’]t|will\s+not)\s+(?:fit|hold|work|stand|survive|match|add\s+up)|"
    r"checks?\s+out)\b"
)
# The same with a verdict of right or wrong only, so that a word of quality on the way ("Your term for
# the solid-to-gas change ... needed fixing") does not hide it.
_DISCLOSURE_RIGHT_WRONG = re.compile(r"(?i)" + _SUBJECT + r".{0,80}?" + _CORRECTNESS.pattern.removeprefix("(?i)"))
_HEDGE = re.compile(
    r"(?i)\b(?:make\s+sure|ensure|check|checking|verify|confirm|whether|if|until|unless|so\s+that|should|must|try|aim|"
    r"before\s+you|as\s+you|would|could|can)\b"
)
_DISCLOSURE = re.compile(r"(?i)" + _SUBJECT + r".{0,80}?\b" + _VERDICT + r"\b|\b" + _VERDICT + r"\b.{0,40}?" + _SUBJECT)
_MISSED = re.compile(
    r"(?i)\byou\s+(?:missed|erred\s+on|failed|slipped\s+on|blew|nailed|aced|got|had|answered|handled|solved|chose|picked)\b.{0,60}?"
    r"\b(?:questions?|cases?|vignettes?|items?|q\.?\s*\d|ones?)\b"
)
# "Keep your (final) answer to a single letter", "... to the interior part" (fresh23, fresh24):
# the reply held to a form or a part of the topic, not an earlier answer kept.
_TO_FORM = (
    r"(?!\s+to\s+(?:a|an|one|two|three|single|just|only|under|within|no\s+more\s+than|at\s+most|\d+|"
    r"the\s+(?:[\w-]+\s+){0,2}?(?:parts?|points?|essentials|basics|letters?|words?|names?|terms?|sentences?|lines?))\b)"
)
_KEEP_CHANGE = re.compile(
    r"(?i)\b(?:keep|stick\s+with|(?:don't|do\s+not)\s+change|change|revise|reconsider|switch|flip|rethink|fix|correct)\s+"
    r"your\s+(?:\w+\s+)?(?:answers?|choices?|responses?)" + _TO_FORM + r"\s+(?:to|for|on|in|about)\b|\bchange\s+the\s+other"
    r"|\bleave\s+(?:(?:them|it|those|these)\s+)?as\s+(?:they|it)\s+(?:are|is|stands?)\b"
)
_ONLY_RIGHT = re.compile(
    r"(?i)\b(?:only|both|all|none|two|three|one)\s+of\s+your\b|\bonly\s+your\b|\bonly\s+the\s+[\w\s-]{1,40}?answer\b"
    r"|\bthe\s+other\s+(?:two|one|three|answers?)\b|\bthe\s+rest\s+of\s+your\b"
    r"|\bonly\s+the\s+one\s+(?:about|on|for|concerning|with)\b|\bof\s+(?:the|your)\s+(?:two|three|four)\s+answers\b"
)
# Correctness told by a quantifier over the answers, whatever the words: "Everything here is fine
# except the ridge question", "all but one hold up", "two of three stand", "the exception is the
# one about ...", "Two right, one wrong", "your only mistake", "the name you gave is not the right one".
_GOOD_OR_BAD = (
    r"(?:correct|right|fine|sound|solid|good|decent|accurate|ok(?:ay)?|wrong|incorrect|mistaken|off|astray|in\s+good\s+shape|on\s+track|"
    r"spot\s+on|good\s+to\s+go|"
    r"checks?\s+out|check\s+out|holds?(?:\s+up)?|hold\s+up|stands?(?:\s+up)?|works?|in\s+order)"
)
# An answer said to need more work: "needs another look", "could use revisiting".
_NEEDS_WORK = (
    r"(?:needs?|deserves?|requires?|could\s+use)\s+(?:another|a\s+second|a\s+fresh|revisiting|rethinking|reworking|fixing|correcting|"
    r"changing|more\s+work)"
)
_IMPRESSION = r"(?<!sound\s)(?<!sounds\s)(?<!look\s)(?<!looks\s)(?<!seem\s)(?<!seems\s)(?<!appear\s)(?<!appears\s)"
_QUANTIFIED = [
    re.compile(
        r"(?i)\b(?:everything|all|each|both|most|the\s+rest|the\s+others|every\s+\w+)\b[^.;:]{0,60}?" + _IMPRESSION
        + r"\b" + _GOOD_OR_BAD + r"\b[^.;:]{0,50}?\b(?:except|apart\s+from|save\s+for|other\s+than|bar|but\s+(?:for\s+|not\s+)?(?:the|your|one))\b"
    ),
    re.compile(r"(?i)\ball\s+(?:but|except)\s+(?:one|two)\b[^.;]{0,60}?\b" + _GOOD_OR_BAD + r"\b"),
    re.compile(
        r"(?i)\b(?:one|two|three|four|\d)\s+(?:out\s+)?of\s+(?:your\s+|the\s+|these\s+)?(?:one|two|three|four|\d)\b"
        r"[^.;]{0,30}?" + _IMPRESSION + r"\b" + _GOOD_OR_BAD + r"\b"
    ),
    re.compile(
        r"(?i)\b(?:with|but\s+for|bar)\s+(?:one|a\s+single|only\s+one)\s+exception\b|"
        r"\bthe\s+(?:one\s+|only\s+)?exception\s+(?:is|was)\s+(?:the\s+one\b|your\b|question\b|"
        r"the\s+[\w\s-]{0,30}?\b(?:question|item|one|answer|calculation|problem|case)\b)"
    ),
    re.compile(
        r"(?i)\b(?:one|two|three|all|both|none)\s+(?:right|correct)\b[^.;]{0,12}?\b(?:one|two|three|none)\s+(?:wrong|incorrect|off|"
        r"missed|astray|to\s+(?:revisit|fix|change|rethink|redo|correct|look\s+at))\b"
        r"|\b(?:one|two|three|all|both|none)\s+(?:wrong|incorrect)\b[^.;]{0,12}?\b(?:one|two|three|none)\s+(?:right|correct)\b"
    ),
    re.compile(r"(?i)\byour\s+only\s+(?:mistake|error|slip|miss|misstep|wrong\s+answer|problem)\b"),
    re.compile(
        r"(?i)\b(?:all|both|none|neither)\s+(?:of\s+)?(?:your\s+)?(?:three|two|answers|ones|of\s+them)\b[^.;]{0,20}?"
        r"\b(?:are|were|is|was)\s+(?:right|correct|fine|wrong|incorrect|sound)\b"
    ),
    re.compile(r"(?i)\byou\s+(?:have|had|got|scored|earned)\s+(?:two|one|three|all|both|none)\s+(?:of|out\s+of)\b"),
    re.compile(r"(?i)\bthe\s+(?:one|only)\s+(?:slip|mistake|error|miss|problem|misstep|wrong\s+answer)\s+(?:was|is|came)\b"),
    re.compile(r"(?i)\b(?:tripped\s+you\s+up|caught\s+you\s+out|where\s+(?:you|things)\s+went\s+(?:wrong|astray|off))\b"),
    re.compile(r"(?i)\b(?:good|well\s+done|fine|right|solid|sound)(?:\s+\w+)?\s+on\s+(?:two|all|both|one|three)\s+(?:of|out\s+of)\b"),
    re.compile(r"(?i)\bthe\s+(?:others|other\s+(?:two|ones|answers)|rest)\s+(?:are|were|look|seem)\s+(?:all\s+)?" + _GOOD_OR_BAD + r"\b"),
    re.compile(
        r"(?i)\b(?:everything|all\s+(?:of\s+)?(?:your\s+)?(?:answers|three|of\s+them|of\s+it))\b[^.;:]{0,30}?\b(?:is|are|was|were)\s+(?:all\s+)?"
        r"(?:correct|right|fine|spot\s+on|accurate)\b"
    ),
    re.compile(r"(?i)\b(?:keep|stick\s+with)\s+your\s+(?:[\w'’-]+\s+){1,3}?(?:answer|response|choice)\b(?!\s+(?:short|brief|simple|concise|clear|tidy|focused|to\b))"),
    re.compile(
        r"(?i)\b(?:keep|stick\s+with|(?:don't|do\s+not)\s+change)\s+your\s+(?:answer|response|choice|date|pick|term|name|value|figure)"
        + _TO_FORM + r"\s+(?:on|for|about|to)\b"
    ),
    re.compile(r"(?i)\bonly\s+(?:one|a\s+single)\s+(?:item|question|answer|one|response)\b[^.;]{0,30}?\b(?:is|was)\s+(?:wrong|off|incorrect|mistaken|astray)\b"),
    re.compile(r"(?i)\b(?:keep|stick\s+with|(?:don't|do\s+not)\s+change)\s+what\s+you\s+(?:put|wrote|gave|chose|had|picked|said)\s+(?:for|on|in|about)\b"),
    re.compile(
        r"(?i)\b(?:(?:well|nicely|nice(?:ly)?|good|great)\s+(?:done|job|work|reasoned|argued|answered|spotted)|nice\s+work|good\s+going)\s+"
        r"(?:on|with)\s+(?:the|your|both|all|two|three)\b"
        r"|\bthe\s+(?:first|second|third|last|other|remaining)\s+(?:one\s+)?(?:misses|missed|slipped|fails|failed|falls\s+short|fell\s+short)\b"
    ),
    re.compile(r"(?i)\bnothing\s+to\s+(?:fix|change|correct|revisit|redo)\s+(?:on|in|for|about)\b"),
    re.compile(r"(?i)\b(?:everything|all)\s+(?:but|except|apart\s+from|save)\b[^.;]{0,50}?\b(?:is|are|was|were)\s+" + _GOOD_OR_BAD + r"\b"),
    re.compile(
        r"(?i)\b(?:apart\s+from|except\s+for|other\s+than|aside\s+from|besides|but\s+for)\b[^.;]{0,50}?,\s*"
        r"(?:everything|all|the\s+rest|your\s+answers|the\s+others)\b[^.;]{0,30}?\b" + _GOOD_OR_BAD + r"\b"
    ),
    re.compile(
        r"(?i)\bthe\s+only\s+one\s+you\s+(?:need|have|ought)\s+to\s+(?:revisit|change|fix|rethink|correct|redo|reconsider)\b"
        r"|\b(?:answers?|ones?)\b[^.;]{0,40}?\b(?:can|should|may)\s+stay\b"
        r"|\bleave\s+(?:your\s+)?[\w\s-]{0,30}?\b(?:answers?|ones?)\s+alone\b"
    ),
    re.compile(
        r"(?i)^\s*(?:but\s+|so\s+|then\s+)?(?:rework|redo|fix|revise|rethink|reconsider|correct|change)\s+(?:the|your)\s+"
        r"(?:(?!before\b|after\b|you\b|if\b|when\b|then\b)[\w-]+\s+){0,3}?(?:one|answer)\b(?!\s+(?:to|for|format|sheet))"
    ),
    re.compile(
        r"(?i)\byour\s+[\w\s-]{0,30}?\b(?:answer|response|choice|one)\s+is\s+the\s+one\s+to\s+"
        r"(?:revisit|rethink|reconsider|fix|change|correct|look\s+at\s+again|redo|re-?examine)\b"
    ),
    re.compile(
        r"\bI(?:['’]d|\s+would)\s+(?i:revisit|rethink|reconsider|re-?examine|double-check|look\s+again\s+at|change|redo)\s+"
        r"(?i:your\s+[\w\s-]{0,30}?\b(?:answer|response|choice)|the\s+[\w\s-]{0,30}?\b(?:one|answer))\b"
    ),
    re.compile(
        r"(?i)\bthe\s+only\s+one\s+(?:that|which|where)\s+(?:doesn['’]t|does\s+not|isn['’]t|is\s+not|didn['’]t|wasn['’]t|"
        r"you\s+(?:got|missed|had)|needs?)\b"
    ),
    # What the target gave, with any verdict: "the dynasty you chose there won't survive the check",
    # "the boundary you gave between the crust and the mantle is not the right one".
    re.compile(
        r"(?i)\bthe\s+(?:[a-z][\w-]*\s+){1,3}?you\s+(?:gave|chose|picked|wrote|put(?:\s+down)?|named|selected|entered|went\s+with|"
        r"settled\s+on|proposed|suggested|identified|offered|came\s+up\s+with)\b(?:\s+(?!(?:is|was|are|were)\b)[\w'’-]+){0,8}?\s+"
        r"(?:isn['’]t|wasn['’]t|won['’]t|will\s+not|doesn['’]t|does\s+not|didn['’]t|can['’]t|cannot|fails?|falls?\s+short|"
        r"needs?\s+(?:another|a\s+second|changing|fixing|correcting|revisiting|rethinking|to\s+(?:change|go|be\s+(?:fixed|changed)))|"
        r"(?:is|was|are|were)\s+(?:not|wrong|right|correct|incorrect|off|fine|spot\s+on|mistaken|a\s+mistake|an\s+error|accurate|"
        r"inaccurate|the\s+(?:right|wrong|correct)|(?:a\s+)?(?:[\w-]+\s+){0,2}?too\s+[a-z]+))\b"
    ),
    re.compile(r"(?i)\bwhere\s+you\s+(?:slipped|erred|stumbled|tripped(?:\s+up)?|fell\s+down|lost\s+(?:marks|points|the\s+mark))\b"),
    # The one answer singled out as wrong: "the one answer in this batch that needs correcting",
    # "your catalyst answer is the one item in this batch that missed".
    re.compile(
        r"(?i)\bthe\s+(?:one|only|single)\s+(?:answer|item|question|response|one|thing)\b(?:\s+[\w'’-]+){0,4}?\s+(?:that|which|where)\s+"
        r"(?:needs?\s+(?:correcting|fixing|changing|another|a\s+second|revisiting|rethinking|work|to\s+(?:change|be\s+fixed))|missed|"
        r"went\s+(?:wrong|astray|off)|slipped|fell\s+short|failed|(?:is|was)\s+(?:wrong|off|incorrect|mistaken|not\s+right)|"
        r"(?:didn['’]t|doesn['’]t|does\s+not|did\s+not)\s+(?:hold|fit|work|stand)|you\s+(?:got\s+wrong|missed|need\s+to\s+(?:fix|change|revisit|correct|redo)))"
    ),
    # Named answers with a verdict: "The desert and wind answers are correct", "the mole and isomer
    # answers are fine", "The isomer question and the constant question are fine", "your answer
    # there doesn't fit", "the remaining one is off".
    re.compile(
        r"(?i)\b(?:your|the|that|this)\s+(?:(?!(?:is|are|was|were)\b)[\w'’-]+\s+){0,4}?(?:answers?|responses?|picks?)\s+(?:there\s+|here\s+)?"
        r"(?:(?:is|are|was|were)\s+(?:all\s+|both\s+)?" + _GOOD_OR_BAD + r"|(?:doesn['’]t|does\s+not|don['’]t|didn['’]t)\s+(?:fit|hold\s+up|work|match|square|agree|add\s+up))\b"
        r"(?!\s+(?:there|here|in|at|on|before|after|next|if|when|only|to)\b)"
    ),
    re.compile(
        r"(?i)\bthe\s+(?:(?!(?:is|are|was|were)\b)[\w'’-]+\s+){1,4}?(?:questions?|items?)(?:\s+and\s+the\s+(?:[\w'’-]+\s+){1,3}?(?:questions?|items?))?"
        r"\s+(?:is|are|was|were)\s+(?:all\s+|both\s+)?(?:fine|correct|right|sound|solid|ok(?:ay)?|in\s+order|wrong|off|incorrect)\b"
        r"(?!\s+(?:there|here|in|at|on|before|after|next|if|when|only|to)\b)"
    ),
    re.compile(r"(?i)\bthe\s+(?:remaining|other|last)\s+(?:one|answer|question|item)\s+(?:is|was)\s+(?:off|wrong|incorrect|mistaken|astray|not\s+right)\b"),
    # "Keep your first answer; the second and third both need another look", "Only the exhibition
    # question needs revisiting"
    # "Keep the middle answer; rethink the first and last" (fresh23)
    re.compile(
        # ("the final answer" is the one the target will give: "keep the final answer itself crisp")
        r"(?i)\b(?:keep|stick\s+with|(?:don't|do\s+not)\s+change)\s+(?:your\s+(?:first|second|third|middle|last|final|other)|"
        r"the\s+(?:first|second|third|middle|last|other))\s+(?:answer|one|response|choice)\b"
        + _TO_FORM
    ),
    # "You'll want to change your earlier answer here", "those answers held" (fresh24)
    re.compile(
        r"(?i)\b(?:want|need|have|ought)\s+to\s+(?:change|revise|rethink|reconsider|fix|correct|redo)\s+your\s+"
        r"(?:(?:earlier|previous|original|initial|first)\s+)?(?:answer|response|choice)\b"
        r"|\b(?:those|these|both|your)\s+(?:two\s+|three\s+)?answers\s+(?:held|stood)\b(?!\s+(?:on|for|in|at|to|by|with)\b)"
    ),
    re.compile(
        r"(?i)\bthe\s+(?:first|second|third|last|other|remaining)(?:\s+(?:and|or)\s+(?:the\s+)?(?:first|second|third|last))?\s+"
        r"(?:(?:ones?|answers?|questions?|items?)\s+)?(?:both\s+|all\s+)?" + _NEEDS_WORK + r"\b"
    ),
    re.compile(
        r"(?i)\bonly\s+(?:the|your)\s+(?:[\w'’-]+\s+){0,3}?(?:question|item|answer|one|response)\s+(?:" + _NEEDS_WORK + r"|needs?\s+to\s+be)\b"
    ),
    # "You got the rock and the current.": said of the target, what it got.
    re.compile(r"(?i)^\s*(?:(?:so|and|but|well),?\s+)?you\s+(?:got|nailed|aced)\s+(?:the|both|all|two|three)\b"),
    re.compile(r"(?i)^\s*(?:(?:so|and|but|well),?\s+)?you\s+had\s+the\s+(?:[\w'’-]+\s+){0,3}?(?:question|item|one)\b"),
    re.compile(
        r"(?i)\b(?:name|answer|value|term|date|year|option|letter|figure|choice|one|person|place)\s+you\s+"
        r"(?:gave|chose|picked|wrote|put(?:\s+down)?|named|selected|entered)(?:\s+(?:for|to|on|in)\s+(?:the\s+)?[\w-]+(?:\s+[\w-]+)?)?"
        r"\s+(?:is|was|isn['’]t|wasn['’]t)\b"
        r"|\byou\s+(?:named|gave|chose|picked|wrote|put(?:\s+down)?)\s+(?:someone|something|somewhere|some\s+\w+)\s+else\b"
    ),
]
# Quantified statements that are themselves a check to make ("make sure all of them hold up").
# "a check of the dates" and "survive the check" are nouns, not an instruction.
_INSTRUCTION = re.compile(
    r"(?i)\b(?:make\s+sure|ensure|(?<!a\s)(?<!the\s)check(?!\s+of\b)|verify|confirm|whether|if|unless|"
    r"so\s+that(?!\s+(?:is|was|['’]s|one|item|question|answer)\b)|until)\b"
)


# A criterion said of any option, not of the target's answers: "An option that matches only one of
# the two isn't good enough" (fresh24).
_ANY_OPTION = re.compile(r"(?i)^\s*(?:an?|any)\s+(?:option|choice|answer|statement|candidate)\s+(?:that|which)\b")


def _quantified_disclosure(sentence: str) -> bool:
    """Whether the sentence tells how many or which of the target's answers were right, by a
    quantifier ("all but one", "everything ... except", "two of three hold up") rather than by naming one."""
    return any(p.search(sentence) for p in _QUANTIFIED) and not (_INSTRUCTION.search(sentence) or _ANY_OPTION.match(sentence))


# Praise of the form of the target's earlier work, not of its correctness: "Your write-up was clear
# and well reasoned", "You kept your answer short, which is the right format", "Your explanations
# leaned on definitions, which is the right instinct". Writers of three groups apart (fresh7 to
# fresh9) all wrote such lines as clean advice; none tells which answer was right.
_FORM = re.compile(
    r"(?i)\b(?:clear(?:ly)?|concise(?:ly)?|short|brief|tidy|neat(?:ly\s+(?:argued|reasoned|written|laid\s+out))?|readable|methodical|careful|thorough|systematic|"
    r"well[\s-]+(?:organi[sz]ed|structured|laid\s+out|reasoned|argued|written|presented|explained))\b"
    # Praise of a habit or a skill, not of an answer: "Your habit of defining terms was good", "The
    # way you laid out your reasoning was good", "Your grasp of hive architecture was good", "You
    # did well to notice the difference between ...", "show decent physical intuition" (fresh10, fresh13).
    # "You showed good awareness of safety in your earlier reasoning" (fresh23)
    r"|\b(?:your\s+)?(?:habits?|grasp|intuitions?|instincts?|layout|awareness)\b(?!\s+(?:on|for|about)\s+(?:the\s+)?(?:first|second|third|last|\w+\s+question))"
    r"|\bthe\s+way\s+you\s+(?:laid\s+out|set\s+out|organi[sz]ed|structured|worked|reasoned|explained|approached)\b"
    r"|\bdid\s+well\s+(?:\w+\s+){0,2}to\s+(?:notice|note|spot|separate|distinguish|define|check|think|ask|consider|reason|look|start)\b"

    # a habit praised ("you were good about estimating the energy") or a form criticised ("a bit generic")
    r"|\b(?:were|was|are)\s+good\s+(?:about|at)\s+\w+ing\b|\b(?:generic|vague|wordy|verbose|terse)\b"
    # "Your previous explanation of permutations was nicely done" (fresh17): the working, not the answer
    r"|\b(?:explanations?|reasoning|write-?ups?|working|derivations?|arguments?)\b[^.;]{0,40}?\b(?:nicely|well)\s+done\b"
)
_RIGHT_FOR_FORM = re.compile(
    # "You're on the right track whenever you think in terms of inputs and outputs" (fresh18): a habit
    r"(?i)\bon\s+the\s+right\s+track\s+(?:whenever|when|if|each\s+time)\s+you\b|"
    # "You were right to think about the slope": a step of reasoning praised (fresh12)
    r"\b(?:were|was)\s+right\s+to\s+(?:think\s+about|consider|start\s+(?:from|with)|ask|check)\b|"
    r"\b(?:exactly\s+|just\s+)?(?:the\s+)?(?:right|correct|good|best)\s+(?:format|instinct|style|approach|habit|method|frame|framing|lens|"
    r"length|level\s+of\s+detail|register|tone|starting\s+point|tools?|mindset|attitude|"
    # "a clear physical rationale, which is the right way to approach a question like this" (fresh24)
    r"way\s+to\s+(?:work|reason|think|go\s+about|approach|tackle|handle))\b"
    r"|\b(?:style|approach|habit|method|format)\b[^.;]{0,120}?\b(?:exactly\s+|just\s+)?right\b"
)


@functools.lru_cache(maxsize=4096)  # asked of each sentence by the rules, the semantic and the learned layer
def praise_of_form(sentence: str) -> bool:
    """Whether the sentence praises how the target worked (clear, concise, the right format or
    instinct) and says nothing of whether any answer was right."""
    if not re.search(r"(?i)\byou(?:r)?\b", sentence) or not (_FORM.search(sentence) or _RIGHT_FOR_FORM.search(sentence)):
        return False
    return not _CORRECTNESS.search(_RIGHT_FOR_FORM.sub(" ", sentence))


# Words that say how to answer, never what: a sentence made of nothing else ("One letter is all
# that's needed, though a one-line reason helps", "A named effect is expected here; two words will
# do") is advice on the answer's form. Short ones of this kind read to the model like the short
# give-aways of the corpus (fresh10 and fresh11). No word of position or content is here, and no
# "you": "Your answer is fine" is a verdict, "A short answer is fine" is not.
_FORM_WORDS = frozenset(
    """a an the this that these those it it's its is are be will would do does doing don't no not
    any all only just one two three single few so and or but though here there now of to
    in for with by as on at can could doesn't i i'd i'll we
    answer answers answering reply response pick choice term terms word words letter letters name named
    phrase number figure value line lines sentence sentences reason reasons reasoning explanation
    explanations elaboration paragraph justification
    short shorter brief concise precise exact specific technical accurate simple plain clear
    enough fine best better ok okay good needed need needs expected wanted required looking asked
    all's what's that's is what hedge hedging between options option extra credit earn earns
    introduce errors error grader marker item question recall definitional matters matter much more
    than over overthink precision helps help effect process concept
    quick quickly noun nouns singular plural ideal ideally form formal spelling compound compounds core
    tested testing being whole specialised specialized like exactly itself english language nothing please
    some people hyphen hyphens hyphenate hyphenated hyphenation spell spelled spelt spellings""".split()
)


# "The right form" is form ("A short noun phrase is the right form here", fresh16), where "the
# right one" would be a verdict: the phrase is read as a form word.
_RIGHT_FORM = re.compile(r"(?i)\b(?:the\s+)?(?:right|correct|proper|expected)\s+(?:form|format|length|shape|level\s+of\s+detail)\b")
# What to leave out of the reply: "no diagrams, example hands or explanations", "You don't need to
# explain frequencies, search phases or technique" (fresh16). It names things the reply need not
# hold, never a verdict, so it is form whatever it names, unless it holds a word of judgement or a
# capital letter alone (an option's letter).
_LEAVE_OUT = re.compile(
    r"(?i)^\s*(?:(?:and\s+)?(?:there\s+is\s+)?no\b(?!\s+(?:need\s+to\s+)?(?:doubt|question)\b)(?!\s+need\s+to\s+(?:reconsider|rethink|revisit|change))|without\b|"
    r"(?:you\s+)?(?:don't|do\s+not|needn't|need\s+not|no\s+need\s+to)\s+(?:need\s+to\s+)?"
    r"(?:explain|describe|justify|show|list|include|add|give|write|spell\s+out|go\s+into|walk\s+through|restate)\b)"
)
_JUDGEMENT = re.compile(
    r"(?i)\b(?:right|wrong|correct|incorrect|true|false|rule[sd]?|ruling|eliminat\w*|drop|keep|best|better|likel\w*|"
    r"favou?r\w*|prefer\w*|instead|except|mistake\w*|error)\b|(?<![\w'’-])[A-E](?![\w'’-])"
)


# "Give your answer as a letter" (fresh23), "Limit your answer to one word": how
# to give the reply, read as form when the rest is form words. A "you" is never a form word alone
# ("Your answer is fine" is a verdict), so the instruction is read as one.
_FORM_INSTRUCTION = re.compile(
    r"(?i)^\s*(?:please\s+)?(?:(?:give|write|state|put|present|submit|express|phrase)\s+your\s+(?:final\s+)?(?:answer|reply|response)\s+(?:as|in)"
    r"|(?:limit|restrict)\s+your\s+(?:final\s+)?(?:answer|reply|response)\s+to)\b"
)


@functools.lru_cache(maxsize=4096)  # asked of each sentence by the rules, the semantic and the learned layer
def only_form(sentence: str) -> bool:
    """Whether ``sentence`` is advice on the answer's form: every word one of _FORM_WORDS (with
    "the right form" read as one, and an instruction on how to give the reply), or what the
    reply may leave out, in clauses of either kind."""
    clauses = [c for c in re.split(r"\s*[—–;:]\s*|\s+-\s+", sentence) if re.search(r"[A-Za-z]", c)]
    if not clauses:
        return False
    form = [_form_words_only(_RIGHT_FORM.sub(" fine ", _FORM_INSTRUCTION.sub(" ", c))) for c in clauses]
    left_out = [bool(_LEAVE_OUT.match(c)) and not _JUDGEMENT.search(c) for c in clauses]
    # "No pneumatic motors here" alone may drop an option: a bare "no ..." is form only beside form.
    alone = [o and not re.match(r"(?i)\s*(?:and\s+)?(?:there\s+is\s+)?no\b(?!\s+need)|\s*without\b", c) for c, o in zip(clauses, left_out)]
    return all(f or o for f, o in zip(form, left_out)) and any(form + alone)


def _form_words_only(text: str) -> bool:
    words = re.findall(r"[a-z][a-z'’-]*", text.lower().replace("’", "'"))
    return bool(words) and all(w in _FORM_WORDS or all(p in _FORM_WORDS for p in w.split("-") if p) for w in words)


def _disclosures(sentence: str, qrefs: list[QuestionRef]) -> list[LeakFinding]:
    """Whether the target's seed answers were right or wrong, in any wording."""
    if praise_of_form(sentence):
        return []
    qid = next((r.question_id for r in qrefs if r.question_id), None)
    for pattern in (_DISCLOSURE, _DISCLOSURE_RIGHT_WRONG, _MISSED):
        for m in pattern.finditer(sentence):
            if pattern is _MISSED and m.group(0).lower().split()[1] in ("answered", "handled", "solved", "had", "chose", "picked"):
                if not re.search(r"(?i)\b(?:right|wrong|correct(?:ly)?|incorrect(?:ly)?|well|badly)\b", sentence):
                    continue
            if _HEDGE.search(sentence[: m.start() + 1]) or _HEDGE.search(m.group(0)):
                continue
            # "the most common wrong answer" is a noun phrase, not a verdict on a question of the batch
            outside = [r for r in qrefs if not r.start <= m.start() < r.end]
            if pattern is not _MISSED and not (outside or _past(m.group(0)) or _ONLY_RIGHT.search(sentence)):
                # Said of "you" in the present, only a verdict of right or wrong discloses: "You
                # seem to remember the terms well" and "Your reasoning is solid on definitions"
                # judge a skill, not an answer.
                if not (re.match(r"(?i)^\s*you", sentence) and _CORRECTNESS.search(m.group(0))):
                    continue
            return [_finding(qid, "disclosure", sentence)]
    if _quantified_disclosure(sentence):
        return [_finding(qid, "disclosure", sentence)]
    if _KEEP_CHANGE.search(sentence) and (qrefs or "other" in sentence.lower()):
        return [_finding(qid, "disclosure", sentence)]
    for ref in qrefs:
        after = sentence[ref.end :]
        if re.match(r"(?i)^\s*(?:[:=\-–—]\s*(?:you\s+)?|(?:was|were|is)\s+(?:answered\s+|got\s+|handled\s+)?)" + _VERDICT + r"\b", after):
            return [_finding(ref.question_id, "disclosure", sentence)]
    return []


def _past(text: str) -> bool:
    # "What you wrote for the leg straps is incorrect" (fresh14): an answer given, judged
    return re.search(
        r"(?i)\b(?:was|were|had|got|did|held|stood|worked|failed|answered|wrote|gave|said|chose|picked|named|selected|offered)\b|\bneeds?\b", text
    ) is not None


def _finding(question_id: str | None, kind: str, evidence: str) -> LeakFinding:
    return LeakFinding(question_id, kind, evidence)
