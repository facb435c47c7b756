"""Pointers that need no option named: the answer asserted by a description ("It's the organelle
with its own DNA"), the writer's own pick ("I'd go with the battle fought on the south coast"),
and a candidate said to be the one to keep ("that one is correct"). Advice that guides says
what to weigh, never which answer its writer would give or what the answer is."""

from __future__ import annotations

import functools
import re

from judgeagent.data.benchmark import Question
from judgeagent.stages.leak_finding import LeakFinding
from judgeagent.stages.leak_rules.exemptions import (
    ANY_CANDIDATE,
    CRITERION_ONLY,
    FORM,
    KIND_CONTRAST,
    KIND_OF_ANSWER,
    PRAISE_OF_FORM,
    RIGHT_FOR_FORM,
)
from judgeagent.stages.leak_rules.mentions import batch_wording, mentions_phrase
from judgeagent.stages.leak_rules.questions import PERSON_NOUNS, asked_for, asked_in, asks_for_a_person
from judgeagent.stages.leak_rules.rule import Example, Reading, Rule, finding
from judgeagent.stages.leak_rules.text import fold, identifying

# The writer's own pick: "I'd go with the battle fought on the south coast", "I'd lean towards
# the layer above ours", "If I had to choose, I'd ...", "My pick would be ...". Advice that
# guides says what to weigh; it never says which answer its writer would give, whatever the
# words that then describe it. Not a method ("I'd go with a careful unit check first").
_PICK = re.compile(
    r"\bI(?:['’]d|\s+would|\s+will|['’]ll)\s+(?:(?:probably|still|personally|definitely|certainly|rather|also|tend\s+to|firmly|strongly|slightly|really|now)\s+)?"
    r"(?i:go\s+(?:with|for)|lean\s+(?:(?:firmly|strongly|slightly|heavily)\s+)?(?:towards?|to)|choose|pick|opt\s+for|settle\s+on|back|bet\s+on|put\s+my\s+money\s+on|"
    r"favou?r|plump\s+for|side\s+with|mark|circle|select|put\s+down|write\s+down|prefer|guess|wager|"
    r"be\s+inclined\s+to\s+(?:choose|pick|go)|say\s+(?:it['’]s|it\s+is|the\s+answer|that['’]s|that\s+it))\b"
    r"|\bI['’]m\s+(?i:leaning|inclined)\s+(?i:towards?|to)\b"
    r"|\bI\s+(?:lean|tend)\s+(?i:towards?|to\s+favou?r)\b"
    # ("my lean is clearly toward the second")
    r"|(?i:\bmy\s+(?:own\s+)?(?:pick|choice|bet|money|vote|guess|answer|instinct|gut|hunch|inclination|preference|lean|leaning)(?:['’]s|\s+(?:would\s+be|is|goes|['’]d\s+be|would\s+go|says))\b"
    r"(?:\s+(?:clearly|firmly|strongly|definitely|certainly|probably|slightly)(?=\s+(?:towards?|to)\b))?)"
    # "my own reading leans to ...", "my sense tilts towards ...", "my instinct favours ..."
    r"|(?i:\bmy\s+(?:own\s+)?(?:reading|view|sense|instinct|gut|judge?ment|feeling|inclination)\s+(?:(?:leans|tilts|points|goes)\s+(?:towards?|to)|favou?rs|prefers)\b)"
    r"|(?i:\bif\s+I\s+(?:had\s+to|were\s+to|were\s+you,?\s+I['’]?d)\s+(?:choose|pick|guess|bet|answer)\b)"
    # ("I'd come down on the side of C. bot")
    r"|\bI(?:['’]d|\s+would)\s+(?i:come\s+down\s+(?:firmly\s+|squarely\s+)?(?:on\s+the\s+side\s+of|in\s+favou?r\s+of|for))\b"
    # ("rising is the one I'd choose", "the MOI explanation is the one I'd back")
    r"|\b(?i:is|['’]s)\s+(?i:the\s+one)\s+I['’]d\s+(?:(?:probably|personally|still)\s+)?"
    r"(?i:choose|pick|go\s+(?:with|for)|back|take|circle|mark|trust|bet\s+on|use|put\s+my\s+(?:name|money))\b"
)
_METHOD_AFTER = re.compile(
    r"(?i)^\s*(?:\w+ly\s+|\w+ing\b|(?:a|an|the|this|that|your)\s+(?:[\w-]+\s+){0,2}(?:approach|method|habit|strategy|routine|"
    r"procedure|check|step|rule\s+of\s+thumb|reading|definition|sketch|diagram|timeline|list|calculation|estimate)\b)"
)


# One doing taken over another ("I'd favour skipping square 4 both ways over skipping it only on the
# way up"): two courses weighed, which a method is not; every such sentence in the corpus is a pick.
_DOING_OVER = re.compile(r"(?i)^\s*\w+ing\b[^.;]{1,80}?\b(?:over|rather\s+than|instead\s+of)\b")


# The same pick without "I": "The safer bet is the layer above ours", "Your best choice here is ...".
_VOTE = re.compile(r"(?i)\b(?:deserves?|gets?|earns?|has|have|wins?)\s+(?:your|my)\s+vote\b")
_LEAN = re.compile(
    r"(?i)\b(?:larger|smaller|higher|lower|earlier|later|former|latter|first|second|other|bigger|longer|shorter|one\s+about\s+[^,.;]{1,60}?)"
    r"(?:\s+one)?\s+(?:seems|looks|feels|appears|strikes\s+me\s+as)\s+(?:to\s+me\s+)?(?:(?:much|far|clearly|by\s+far)\s+)?"
    r"(?:more|better|likelier|the\s+(?:better|stronger|safer|more|likelier))\b"
)
_BEST_BET = re.compile(
    r"(?i)^\s*(?:so,?\s+)?(?:the|your)\s+(?:better|best|safer|safest|stronger|strongest|likelier|likeliest|more\s+likely|"
    r"most\s+likely|obvious|natural|sensible)\s+(?:bet|choice|pick|candidate|option|guess|one)\s+(?:here\s+)?(?:is|would\s+be)\b"
)


# A candidate said to be the one to keep: "that is the one to keep", "is the right term", "that one is correct".
_KEPT = re.compile(
    r"(?i)\b(?:is|as|['’]s)\s+the\s+(?:one|option|choice|answer|statement|explanation)\s+to\s+(?:keep|pick|choose|go\s+with|circle|mark|write)\b"
    r"|\b(?:is|was|['’]s)\s+the\s+(?:right|correct)\s+(?:word|term|name|unit|value|choice|one|pick|figure|option|person|place|date|year)\b"
    r"|\b(?:is|was|['’]s)\s+the\s+(?:right|correct)\s+(?:(?!(?:kind|shape|sort|type|form)\b)[\w-]+\s+){0,2}?(?:treatment|approach|"
    r"reading|explanation|interpretation|statement|description|range|classification)\b"
    r"|\b(?:that|this)\s+(?:one|option|choice|statement|explanation|description|range)\s+(?:is|was)\s+(?:correct|right|the\s+answer|the\s+one)\b"
    r"|\bthe\s+(?!(?:right|correct|wrong|best|other|same)\b)[a-z][\w-]*\s+(?:option|choice|statement)\s+(?:is|was)\s+(?:correct|right|the\s+answer)\b"
)
_MODIFIERS = r"(?:(?:right|correct|likely|most\s+likely|best|usual|key|main|actual|real|true|only|first[-\s]line)\s+)*"
_DESCRIBES = r"(?:that|which|who|whose|with|named|known|used|discovered|founded|where)\b"


@functools.lru_cache(maxsize=4096)
def _assertion_patterns(question: str) -> tuple[re.Pattern, ...]:
    alt = "|".join(sorted(map(re.escape, asked_for(question) | {"answer"})))
    return (
        # "The right drug here is the ...", "The answer is a ...", "The year was one ..."
        re.compile(
            r"(?i)^\s*(?:so,?\s+)?(?:the|its|your)\s+" + _MODIFIERS + r"(?:" + alt + r")s?"
            r"(?:\s+(?:here|to\s+\w+|you\s+want|you\s+need))?\s+(?:is|was|would\s+be|must\s+be|has\s+to\s+be)\s+(?:the|a|an|one)\b"
        ),
        # "It's the organelle with ...", "This is the drug that ..."
        re.compile(r"(?i)^\s*(?:it|this|that)(?:\s+is|\s+was|['’]s)\s+(?:the|a|an)\s+(?:[\w-]+\s+){0,2}?(?:" + alt + r")s?\s+" + _DESCRIBES),
        # A description standing alone: "The river that flows into the Atlantic near Belem."
        # (not "The first compares reducer with paint": one of two things named before, doing something)
        re.compile(r"(?i)^\s*(?:the|a|an)\s+(?!(?:first|second|third|last|former|latter|other)\s+[a-z]+s\s)(?:[\w-]+\s+){0,2}?(?:" + alt + r")s?\s+" + _DESCRIBES),
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

# The person described standing alone: "The author of Emma and ...", "The English novelist from
# Hampshire who died in 1817".
_THE_PERSON = re.compile(
    r"(?i)^\s*(?:the|a|an)\s+(?:[\w'’]+[\s-]+){0,3}?(?:" + "|".join(sorted(PERSON_NOUNS)) + r")\s+(?:of|from|who|whose|that)\b"
)


def answerable(questions: list[Question]) -> bool:
    """Whether some question of the batch has options or an identifying answer: a pick or a
    verdict on a candidate has something to point at."""
    return any(q.options or identifying(q.answer) for q in questions)


def _pointer(reading: Reading) -> list[LeakFinding]:
    return [finding(asked_in(reading.sentence, reading.questions), "pointer", reading.sentence)]


def _pick(reading: Reading) -> list[LeakFinding]:
    # Its own kind: the writer saying which answer they would give is as plain as the answer
    # stated, so the learned layer never doubts it (leak_learned.UNDOUBTED).
    return [finding(asked_in(reading.sentence, reading.questions), "pick", reading.sentence)]


def _mine(reading: Reading) -> list[LeakFinding]:
    m = _PICK.search(reading.sentence)
    if m is not None and not _METHOD_AFTER.match(reading.sentence[m.end() :]) and answerable(reading.questions):
        return _pick(reading)
    if (_TAKE_OVER.search(reading.sentence) or (_OVER.search(reading.sentence) and _IN_MY_VIEW.search(reading.sentence))) \
            and _names_a_candidate(reading):
        return _pick(reading)
    if m is not None and _METHOD_AFTER.match(reading.sentence[m.end() :]) and _OVER.search(reading.sentence, m.end()) \
            and (any(r.start >= m.end() for r in reading.option_refs) or _DOING_OVER.match(reading.sentence[m.end() :])):
        return _pick(reading)  # "I'd go with replacing the Roll-Up rather than adding Roll-Overs": an option, not a method
    if _BETWEEN_PICK.search(reading.sentence) and answerable(reading.questions):
        return _pick(reading)
    beats = _BEATS.search(reading.sentence)
    if (beats is not None and _one_beats_another(reading, beats)) or _bare_preference(reading):
        return _pick(reading)
    if (_BETWEEN_WINS.search(reading.sentence) or _PERSUADED.search(reading.sentence) or _EVERY_TIME.search(reading.sentence)) \
            and _names_a_candidate(reading):
        return _pick(reading)
    return []


# One named option set above another: "The electrical-bookings statement beats the all-items one",
# "The Thursday-evening statement looks better supported to me than the towel one".
_BEATS = re.compile(
    # (not a rate: "beats per minute")
    r"(?i)\b(?:beats(?!\s+(?:per|a|an|each)\b)|outranks|trumps|edges\s+out|wins\s+out\s+over|"
    r"(?:looks|seems|is|reads|sounds|strikes\s+me\s+as)\s+(?:\w+\s+)?(?:better|stronger|likelier|more\s+(?:convincing|plausible|likely|"
    r"persuasive|defensible|solid))(?:\s+(?:supported|grounded|founded))?(?:\s+to\s+me)?\s+than)\b"
)


# "Between recorking the neck and checking the alignment, alignment wins": of two candidates named,
# one declared the winner.
_BETWEEN_WINS = re.compile(
    r"(?i)^\s*(?:of|between)\s+[^,;.]{3,120},\s*(?:(?:the|your)\s+)?(?:[\w'’-]+\s+){0,4}?"
    r"(?:wins(?:\s+out)?|comes\s+out\s+(?:ahead|on\s+top)|edges\s+it|takes\s+it|has\s+it|gets\s+the\s+nod)\b"
)


# "Between soap acting as glue and scales catching, I'm much more persuaded by the scales"
_PERSUADED = re.compile(
    r"(?i)\bI(?:['’]m|\s+am)\s+(?:(?:much|far|a\s+lot|rather|somewhat|a\s+good\s+deal)\s+)?more\s+(?:persuaded|convinced|swayed)\s+by\b"
)


def _one_beats_another(reading: Reading, beats: re.Match) -> bool:
    """Whether an option is named before the comparison: what it is set above may be named in
    words no option has ("the all-items one")."""
    return any(r.end <= beats.start() and r.question_id for r in reading.option_refs)


# Two options of one question and nothing else opening the sentence, one set over the other: "OLL
# rather than PLL - orientation is about which way stickers face", "MRI over CT."
_BARE_OVER = re.compile(r"^\s*(?:rather\s+than|over|ahead\s+of)\s*$")
_CLAUSE_END = re.compile(r"^\s*(?:[-–—:;,.!]|$)")


def _bare_preference(reading: Reading) -> bool:
    text = fold(reading.sentence)
    refs = sorted((r for r in reading.option_refs if r.how == "text" and r.whole and r.question_id), key=lambda r: r.start)
    return any(
        not text[: a.start].strip() and a.question_id == b.question_id and a.letter != b.letter
        and _BARE_OVER.match(text[a.end : b.start]) is not None and _CLAUSE_END.match(text[b.end :]) is not None
        for a, b in zip(refs, refs[1:], strict=False)
    )


# "I'd take Nitrosomonas ahead of Nitrobacter": a pick when what is taken or passed over is one
# of the batch's candidates ("I'd take the ratio rather than the difference" is a method).
_TAKE_OVER = re.compile(
    r"\bI(?:['’]d|\s+would)\s+(?:(?:probably|still|personally|definitely|certainly)\s+)?"
    # ("I'd pick 19:15 over 20:15")
    r"(?i:take|lean|trust|pick|choose|put\s+(?:more|most|my)\s+(?:weight|faith|trust|money)\s+on)\b"
    r"(?=[^.;!?]{1,60}?\b(?i:over|ahead\s+of|rather\s+than|instead\s+of|in\s+preference\s+to|than)\b)"
    # "I'd rank RH above CO2", "I'd put the tooth at Stage 3 rather than Stage 2"
    r"|\bI(?:['’]d|\s+would)\s+(?:(?:probably|still|personally|definitely|certainly)\s+)?(?i:rank|rate|place|put)\b"
    r"(?=[^.;!?]{1,60}?\b(?i:above|ahead\s+of|rather\s+than|over|instead\s+of)\b)"
)
# "Between listening to the wood and watching the smoke, I'd trust the smoke", "Between a timer
# and watching them float, go with watching them float": of two named, one taken. Whatever words
# name the two (neither need be an option's), a choice set up between two and settled is the
# writer's pick; no clean suggestion or message of the corpus to fresh114 is written so.
# The one of the two said to be taken, not a question of which ("..., which fits better?")
_THE_ONE_TAKEN = r"(?!\s*(?i:which|what|whichever|whether)\b)[^,;.]{1,80}?"
_BETWEEN_PICK = re.compile(
    # ("If it's between ...", "If you're torn between ...", "If I were choosing between ...", "Given a choice between ...")
    r"^\s*(?:Q\d+\s*[:.)]\s*)?(?i:(?:if\s+(?:it['’]s|you['’]re\s+(?:torn|choosing|deciding)|I\s+(?:were|was)\s+(?:choosing|deciding|picking))\s+"
    r"|given\s+a\s+choice\s+)?(?:of|between))\s+[^,;.]{1,120}?\s+(?i:and|or)\s+[^,;.]{1,120},\s*"
    r"(?:I(?:['’]d|\s+would)\s+(?:(?:probably|still|personally|definitely|certainly|firmly|strongly|hard)\s+)?(?i:take|trust|favou?r|"
    r"lean(?:\s+(?:firmly|strongly|hard|heavily))?\s+(?:to|towards?)|"
    # told, not said of oneself, only as a choice ("Of dates and names, take the dates" is a method)
    # ("If you're torn between WHIP and ERA, lean ERA")
    r"back|go\s+(?:with|for)|pick|choose|plump\s+for|opt\s+for)|(?i:back|go\s+(?:with|for)|pick|choose|plump\s+for|opt\s+for|lean(?:\s+(?:towards?|to))?)"
    # ("..., I lean firmly toward Tomas")
    r"|I\s+(?:(?:firmly|strongly|heavily|definitely|clearly)\s+)?(?i:lean(?:\s+(?:firmly|strongly|hard|heavily))?\s+(?:to|towards?)|favou?r)"
    # ("Between bending the knees and adding wrist spin, bending the knees is my pick")
    r"|" + _THE_ONE_TAKEN + r"\s+(?i:is|gets)\s+my\s+(?i:pick|choice|vote|preference)"
    # ("Between weights on the warp and the weaver leaning back, the leaning is much more plausible")
    r"|" + _THE_ONE_TAKEN + r"\s+(?i:is|seems|looks|sounds|feels)\s+"
    r"(?i:(?:much|far|a\s+lot|clearly|obviously|easily|considerably)\s+)?(?i:the\s+)?"
    r"(?i:more\s+(?:plausible|likely|convincing|probable|believable|sensible)|likelier|better\s+(?:bet|fit|explanation|candidate)"
    # ("the float is far easier to defend")
    r"|easier\s+to\s+(?:defend|justify|support|believe))"
    # ("the prawns fit far better")
    r"|" + _THE_ONE_TAKEN + r"\s+(?i:fits?|works?)\s+(?i:(?:much|far|a\s+lot|clearly)\s+)?better)\b"
    # (not "..., take a moment to compare them": a step of method; nor "..., go with what throwers
    # actually say": a kind of answer)
    r"(?!\s+(?i:a\s+(?:moment|minute|second|look|step|break|breath)|time|care|note|stock|what|whatever|whichever)\b)"
)
# The same said as the writer's view: "CW over AM, in my book", "for my money, BOD ahead of COD".
_OVER = re.compile(r"(?i)\b(?:over|ahead\s+of|rather\s+than|in\s+preference\s+to)\b")
# ("Short serve over out serve, I'd say")
_IN_MY_VIEW = re.compile(
    r"(?i)\b(?:in\s+my\s+(?:book|view|opinion|estimation)|for\s+my\s+money|to\s+my\s+mind)\b|,\s*I['’]d\s+say\s*(?:[;.:!—–]|$)"
    # ("Steam over CO2, every time", "LAB rather than AAB for me", "Seven over five, for me")
    r"|^[^,;.]{1,60}\bover\b[^,;.]{1,60},\s*every\s+time\b"
    r"|^[^,;.:]{1,60}\b(?:over|rather\s+than)\b[^,;.:]{1,60}?,?\s+for\s+me\b"
)
# "I'd go rabbit glue every time": a candidate taken whenever the choice comes up
_EVERY_TIME = re.compile(r"(?i)\bI(?:['’]d|\s+would)\s+(?:go|pick|choose|take)\s+[^,;.]{1,60}?\s+every\s+time\b")


def _names_a_candidate(reading: Reading) -> bool:
    return bool(reading.option_refs) or any(
        not q.options and mentions_phrase(reading.sentence, q.answer, q.question) for q in reading.questions
    )


def _best_bet(reading: Reading) -> list[LeakFinding]:
    bet = _BEST_BET.search(reading.sentence)
    if bet and not KIND_CONTRAST.search(reading.sentence) and not _METHOD_AFTER.match(reading.sentence[bet.end() :]):
        return _pick(reading)
    return []


def _vote_or_lean(reading: Reading) -> list[LeakFinding]:
    if (_VOTE.search(reading.sentence) or _LEAN.search(reading.sentence)) and answerable(reading.questions):
        return _pick(reading)
    return []


def _described(reading: Reading) -> list[LeakFinding]:
    sentence, questions = reading.sentence, reading.questions
    hit = [q for q in questions if any(p.search(sentence) for p in _assertion_patterns(q.question))]
    if not hit and (_HE_DID.search(sentence) or _THE_PERSON.search(sentence)):
        hit = [q for q in questions if asks_for_a_person(q.question)]
    if not hit:
        return []
    return [finding(hit[0].id if len(hit) == 1 else None, "pointer", sentence)]


def _kept(reading: Reading) -> list[LeakFinding]:
    # "that's the right approach here too" praises a way of working, and keeps no candidate
    kept = _KEPT.search(RIGHT_FOR_FORM.sub(" ", reading.sentence))
    # ("find which reading is the correct one": what to work out, not which it is)
    if answerable(reading.questions) and kept and not _WHICH_BEFORE.search(reading.sentence[: kept.start()]):
        return _pointer(reading)
    yours = _YOURS_AFTER.search(reading.sentence)
    if yours is not None:
        # the one option named before it is the one kept ("work out the total - that's your answer" names none)
        before = {(r.question_id, r.letter) for r in reading.option_refs if r.end <= yours.start()}
        if len(before) == 1:
            return _pointer(reading)
    return []


_WHICH_BEFORE = re.compile(
    r"(?i)\b(?:find|decide|work\s+out|figure\s+out|check|ask|see|determine|judge|establish|tell|choose)\s+(?:\w+\s+)?"
    r"(?:which|whichever|what|whether)\b[^,;:.—–]{0,50}$"
)
# "Check E against the bin sentence - that's your answer"
_YOURS_AFTER = re.compile(r"(?i)(?:\s[-–—]|,\s*and)\s*(?:that|this)(?:['’]s|\s+is|\s+will\s+be|\s+would\s+be)\s+(?:your|the)\s+answer\b")


ANSWER_DESCRIBED = Rule(
    "pointer.answer_described",
    ("pointer",),
    "the answer asserted by a description: a sentence whose subject is what the question asks for, or \"the answer\", said to be something",
    _described,
    (FORM, PRAISE_OF_FORM, KIND_OF_ANSWER, CRITERION_ONLY),
    leaks=(
        Example("It's the organelle with its own DNA.", "guard 3"),
        Example("The right treaty here is the one signed in two towns.", "guard 3"),
        Example("The gas that plants fix with the help of bacteria.", "guard 3"),
        Example("The English novelist from Hampshire who died in 1817.", "guard 3", "phrase"),
        Example("She also wrote Persuasion.", "guard 3", "phrase"),
    ),
    clean=(
        Example("The answer is the quantity that differs.", "guard 6"),
        Example("The answer is a single word.", "guard 5"),
        Example("Recall which organelle divides on its own.", "guard 3"),
        Example("The first compares gas with water; the second compares gas with the whole air.", "guard 68: fresh134"),
    ),
)


def _head_named(reading: Reading) -> list[LeakFinding]:
    sentence, questions = reading.sentence, reading.questions
    found = []
    for q in questions:
        if q.options or not identifying(q.answer):
            continue
        wording = batch_wording(q, questions)
        if mentions_phrase(sentence, q.answer, wording, head_alone=True) and not mentions_phrase(sentence, q.answer, wording):
            found.append(finding(q.id, "pointer", sentence))
    return found


# The last word of a longer phrase answer, alone, is a pointer the learned layer weighs, not the
# answer stated (which is never doubted): it is as often the answer's class, named to ask for the
# kind of answer ("the characteristic antibody depends on the subset", "urban smogs are classified
# by their chemistry"), as another name of the answer ("textbooks call it a conditioned reinforcer").
ANSWER_HEAD = Rule(
    "pointer.answer_head",
    ("pointer",),
    "a longer phrase answer's last word alone, another form of it or a slip (\"planetary warming\" for \"global warming\"); its one "
    "distinctive word, a common one, before another word than the answer's (\"the safety factor\" for \"safety line\")",
    _head_named,
    (FORM, KIND_OF_ANSWER),
    leaks=(
        Example("Textbooks often call it planetary warming.", "guard 27: fresh20, answer_variant", "phrase"),
        Example("It is the warming that greenhouse gases drive.", "guard 27: fresh39, described", "phrase"),
        Example("It's the safety rope.", "guard 28: written for the rule, answer_variant", "phrase"),
    ),
    clean=(
        Example("Give the two-word name, not a description of the warming.", "guard 27: fresh39", "phrase"),
        Example("Recall how greenhouse gases trap heat near the ground.", "written for the rule", "phrase"),
        Example("Recall the peak forces in a fall and what the codes allow.", "guard 28: fresh53", "phrase"),
    ),
)
# The answer given another name as the thing's own: "they call it a runner", "some texts spell it
# culch", "you might see it printed as 10:20", "you may know it by its eponym, Jacobson's organ".
# A name said to be the thing's, however informal, is an answer the target can write or expand.
# Not the stem's name ("the stem calls it ..."), not one asked for ("what do they call it?",
# "whether a kite-maker would call it ..."), not a form ("spell it out", "written as two words").
_QUOTED = r"['‘\"“][^'’\"”]{1,40}['’\"”]"
_NOT_A_NAME = (
    r"(?!(?:when|if|in|on|at|that|this|what|how|for|by|to|a|an|the|and|or|but|because|something|anything|whatever|"
    # ("Spell it the way a handler's manual would": how to write it, not a name)
    r"one|two|three|single|it|out|full|words?|letters?|all|both|each|either|up|back|way|correctly|carefully|exactly|properly)\b)"
)
# where a thing is sold under a name: "sold in English shops as ..."
_WHERE_SOLD = r"(?:\s+(?:in|at|on|by)\s+(?:[\w-]+\s+){0,2}?[\w-]+)?"
# (not "calls the dances with the person ...": a noun of its own, then the name)
_LITTLE_WORD = r"(?:with|and|or|to|for|of|in|on|at|by|from|into|as)\b"
_ANOTHER_NAME = re.compile(
    r"(?i)(?<!\bthe\s)(?<!\bstem\s)(?<!\bquestion\s)(?<!\bpassage\s)(?<!\bnotice\s)(?<!\bletter\s)(?<!\btext\s)"
    # ("Makers often call the carved lattice a rosette")
    r"\b(?:call(?:s|ed)?\s+(?:it|them|the\s+(?:(?!" + _LITTLE_WORD + r")[\w-]+\s+){0,2}?(?!" + _LITTLE_WORD + r")[\w-]+(?=\s+(?:an?|the)\s))|(?:it['’]s|it\s+is|these\s+are|they\s+are|they['’]re)\s+(?:\w+\s+){0,2}?(?:called|termed|nicknamed)|what\s+(?:[\w-]+\s+){1,4}?call|spells?\s+it|spel(?:led|t)\s+as|printed\s+as|(?:it(?:['’]s|\s+is)\s+(?:\w+\s+)?|see\s+it\s+)written\s+as|"
    r"know\s+it\s+(?:as|by)|(?:also|commonly|widely|usually|often|sometimes|locally|popularly)\s+known\s+as|also\s+called|nicknamed|"
    r"goes\s+by|see\s+it\s+(?:printed|called|labelled)(?:\s+as)?|(?:sold|marketed|listed|labelled|advertised|billed)" + _WHERE_SOLD + r"\s+as(?=\s+(?:an?\s+|the\s+)?['‘\"“])"
    # ("little bottles labelled 'lye water'", "MSR markets its version as the 'Televator'", "Some write it 'micelium'")
    # (not "you're looking for the one marked 'stated'": a mark of the target's own)
    r"|(?<!\bone\s)(?<!\bones\s)(?<!\beach\s)(?:labelled|labeled|marked)(?=\s+['‘\"“])"
    r"|(?:sells?|markets?)\s+(?:it|them|its\s+(?:own\s+)?version|their\s+(?:own\s+)?versions?)\s+as(?=\s+(?:an?\s+|the\s+)?['‘\"“])"
    r"|\bwrites?\s+it(?=\s+['‘\"“])"
    # ("potters call this stage 'reduction'", "riggers call this a Z-lay rope", "in Australia they get called 'rousies'",
    # "what clubs usually write as 'reach'")
    r"|\bcall(?:s|ed)?\s+(?:this|that|these|those)(?:\s+(?!" + _LITTLE_WORD + r")[\w-]+){0,2}?(?=\s+(?:an?\s+|the\s+)?['‘\"“])"
    # ("Canvas workers often call this fitting an eyelet")
    r"|\bcall(?:s|ed)?\s+(?:this|that|these|those)(?:\s+(?!" + _LITTLE_WORD + r")[\w-]+)?(?=\s+(?:an?|the)\s)"
    # ("lots of pyrographers just call this dotwork - so give ...": people's name for it, a bare word before a break)
    r"|(?<=s\s|y\s)(?:(?:just|simply|also|often|usually|sometimes)\s+)?call\s+(?:this|that|it)(?=\s+[^\W\d_]+(?:-[^\W\d_]+)?\s*(?:[,;:]|\s[-—–]\s|[.!](?:\s|$)|$))"
    r"|(?<!\bboth\s)\bgets?\s+called(?=\s+(?:an?\s+|the\s+)?['‘\"“])|\bwhat\s+(?:[\w-]+\s+){1,4}?(?:write|spell|record)s?\s+as(?=\s+['‘\"“])"
    # ("Older books spell the word 'tjap'", "you'll see it written 'tjap'", "menus translate them as 'Russian pierogi'")
    r"|\bspells?\s+(?:the|this|that)\s+(?:word|term|name)(?=\s+['‘\"“])|\b(?:see|find)\s+it\s+written(?=\s+['‘\"“])"
    # ("in an English-language restaurant you'd find it on the menu as potstickers")
    r"|\b(?:find|see|spot|meet)\s+(?:it|them)\s+(?:on|in)\s+(?:the|a|an|most|many)\s+(?!(?:stem|question|passage|notice|text|letter|email|options?|list)\b)(?:[\w-]+\s+){0,2}?(?:as|called)(?=\s)"
    r"|\b(?:translates?\s+(?:it|them)|translated)\s+as(?=\s+(?:an?\s+|the\s+)?['‘\"“])"
    # unquoted, of the thing itself ("sold in English shops as a pin frog"), not of another ("Borax is sold ... as a booster")
    r"|(?:(?<=\bit\sis\s)|(?<!\bis\s)(?<!\bare\s))(?:sold|marketed|advertised)" + _WHERE_SOLD + r"\s+as(?=\s+an?\s+[\w-]+(?:\s+[\w-]+)?\s*(?:[,;.]|or\b))|know\s+it\s+by\s+(?:the|its|a)\s+(?:nick)?name\b[^.;?]{0,60}?[:—–])(?:(?<=[:—–])|\b)\s*"
    r"(?:(?:a|an|the|simply|just|its\s+[\w-]+,?)\s+)?"
    r"(?:" + _QUOTED + r"|" + _NOT_A_NAME + r"[\w:./-]*\w)"
)
# (not "it's what old catalogues sold as a 'ferrotype'": a name given, not asked for)
_ASKED = re.compile(
    # (not "If you've ever browsed the noodle aisle": a scene set, not a name asked for)
    r"(?i)\bwhether\b|\bif\b(?!\s+you(?:['’]ve|\s+have)?\s+ever\b|\s+it\s+helps\s+to\b)|\b(?:what|which|how)\b(?!\s+(?:[\w-]+\s+){1,3}?(?:sold|marketed|listed|labelled|advertised|billed)\s+as\b)"
)
# (not "nobody would call it a gravel bike", "Don't call it a root": a name denied, of an analogy or a slip;
# nor "recall what collectors call the other", "Ask yourself what a French speaker would call ...": the name asked for)
_DENIED = re.compile(
    r"(?i)\b(?:nobody|no\s+one|never|not|don['’]t|doesn['’]t|wouldn['’]t|won['’]t|shouldn['’]t)\s+(?:\w+\s+){0,2}?$"
    r"|\b(?:recall|remember|work\s+out|decide|ask(?:\s+yourself)?|wonder)\s+$"
)
# A form of the answer allowed: "Just writing 'Weds' would be fine", "Spelling it \"come-by\" is fine".
# ... or as a short form of it: "the 'kick' there is short for exactly the section", "'The early-payment
# reduction' or the letter's exact wording would both do".
_FORM_ALLOWED = re.compile(
    r"(?i)\b(?:spelling\s+it|writing|putting(?:\s+down)?|giving|answering(?:\s+with)?|calling\s+it)\s+" + _QUOTED
    + r"\s+(?:would\s+be|is|will\s+be|['’]s)\s+(?:perfectly\s+|quite\s+|also\s+|just\s+)?(?:fine|acceptable|accepted|enough|ok(?:ay)?)\b"
    r"|" + _QUOTED + r"\s+(?:there\s+|here\s+)?(?:is|['’]s)\s+(?:just\s+|simply\s+)?short\s+for\b"
    r"|^\s*" + _QUOTED + r"(?:\s+or\s+[^.;]{1,60}?)?\s+(?:would|will)\s+(?:both\s+|either\s+)?do\b"
    # "Crew lists sometimes say 'helm' for this seat", "in American usage it is spelled 'jibe'"
    r"|\b(?:say|says|write|writes|use|uses)\s+" + _QUOTED + r"\s+for\s+(?:this|that|it|the\s+same)\b"
    r"|\b(?:spelled|spelt)\s+(?:as\s+)?" + _QUOTED
)


def _another_name(reading: Reading) -> list[LeakFinding]:
    sentence = reading.sentence
    m = _ANOTHER_NAME.search(sentence) or _FORM_ALLOWED.search(sentence)
    if m is None or sentence.rstrip().endswith("?") or any(a.start() < m.start() for a in _ASKED.finditer(sentence)):
        return []
    if _DENIED.search(sentence[: m.start()]):
        return []
    phrase = [q for q in reading.questions if not q.options]
    # (a question named by words no question's text writes, "the silence-recording question", is any of them)
    named = {r.question_id for r in reading.question_refs if r.question_id is not None}
    return [finding(q.id, "pointer", sentence) for q in phrase if not named or q.id in named]


ANOTHER_NAME = Rule(
    "pointer.another_name",
    ("pointer",),
    "a phrase answer given another name as the thing's own: \"they call it a runner\", \"some texts spell it culch\", "
    "\"you might see it printed as 10:20\", \"you may know it by its eponym, ...\", \"older books spell the word 'tjap'\", \"menus translate them as '...'\"; a quoted form of it allowed (\"Just writing 'Weds' would be fine\")",
    _another_name,
    leaks=(
        Example("Some older texts spell it Challenger Dip, which might jog your memory.", "guard 43: fresh84, answer_variant", "phrase"),
        Example("On some sites they call it a runner.", "guard 43: fresh86, answer_variant", "phrase"),
        Example("Surveyors often call this layer a mantle; name it the way the question expects.", "guard 65: fresh105, a whole message", "phrase"),
        Example("If you've ever read old climate reports, you'll have seen charts labelled 'planetary warming'.", "guard 56: fresh108, answer_variant", "phrase"),
        Example("One maker markets its version as the 'Hot Blanket'; give the general term.", "guard 57: fresh111, answer_variant", "phrase"),
        Example("Some old almanacs write it 'globle warming'; whatever the spelling, that's the term.", "guard 57: fresh111, answer_variant", "phrase"),
        Example("If it helps to come at it sideways: German papers call it a 'Klimaerwärmung'.", "guard 57: fresh111, answer_variant", "phrase"),
        Example("Older books spell the word 'globle warming', which may jog your memory.", "guard 58: fresh114, a whole message", "phrase"),
        Example("In old almanacs you'll see it written 'globle warming'.", "guard 58: fresh114, answer_variant", "phrase"),
        Example("French papers often translate it as 'réchauffement planétaire'; give the English term.", "guard 58: fresh114, answer_variant", "phrase"),
        Example("Old sailors call this place 'the Dip'; give its usual name.", "guard 58: fresh109, a whole message", "phrase"),
        Example("A diver would simply call this the Challenger Hole.", "guard 58: fresh99, answer_variant", "phrase"),
        Example("In Australia they get called 'the big holes'; give the usual name.", "guard 58: fresh89, a whole message", "phrase"),
        Example("The name you're after is what atlases usually write as 'Challenger Dip'.", "guard 58: fresh98, a whole message", "phrase"),
        Example("You might see it printed as 1:30 on a fixture list.", "guard 43: fresh86, answer_variant", "phrase"),
        Example("Everyone calls it 'the big warm-up'; give the full term.", "guard 43: fresh36, answer_variant", "phrase"),
        Example("In some guides it's simply called \"the Deep\"; give the full name.", "guard 43: fresh81, a whole message", "phrase"),
        Example("The place you're describing is what divers call Challenger Dip.", "guard 43: fresh82, a whole message", "phrase"),
        Example("Just writing 'Austen' would be fine.", "guard 43: fresh83, answer_variant", "phrase"),
        Example("The 'Deep' there is short for exactly the place you need to name.", "guard 44: fresh87, answer_variant", "phrase"),
        Example("'The Challenger' or the chart's exact name would both do.", "guard 44: fresh88, answer_variant", "phrase"),
        Example("It's what old charts sold as a 'Challenger Hole'; give its common name.", "guard 45: fresh90, a whole message", "phrase"),
        Example("Literally 'the deep', and sold in English shops as a sea pit, so give its usual name.", "guard 47: fresh93, a whole message", "phrase"),
        Example("Old charts sometimes say 'the Hole' for this place - same spot.", "guard 46: fresh91, answer_variant", "phrase"),
        Example("In American usage it is usually spelled 'Challenger Dip'.", "guard 46: fresh92, answer_variant", "phrase"),
        Example("Some divers just call them 'deep holes'. What's the more usual name?", "guard 47: fresh93, answer_variant", "phrase"),
        Example("In some atlases these are usually called ocean pits, and that's the place meant.", "guard 48: fresh95, answer_variant", "phrase"),
        Example("Some atlases call the trench a deep hole; give the usual name.", "guard 55: fresh107, a whole message", "phrase"),
        Example("On the deepest-point question, remember that lots of divers just call this Hollowdeep - so give the standard name.",
                "guard 68: fresh133, a whole message", "phrase"),
        Example("The warming question is about what climate science people also call heating-up, so give the usual term for it.",
                "guard 68: fresh131, a whole message", "phrase"),
        Example("In an old sailor's almanac you'd find it on the chart as the Hollowdeep; give the usual name.", "guard 68: fresh126, a whole message", "phrase"),
    ),
    clean=(
        Example("Then recall what textbooks call it.", "guard 43: fresh7", "phrase"),
        Example("One face is the crust, so recall what geologists call the other, and spell it as the textbooks do.", "guard 65: fresh128, a whole message", "phrase"),
        Example("Borax is sold in supermarkets as a laundry booster; recall what it is chemically.", "guard 47: fresh18", "phrase"),
        Example("The answer is a single name; spell it out in full.", "guard 43: development", "phrase"),
        Example("The answer is usually written as two words.", "guard 43: fresh41", "phrase"),
        Example("Ask whether a diver would ever call it 'the safety line'.", "guard 43: fresh17", "phrase"),
        Example("The question is asking what that deepest point is called.", "guard 43: fresh22", "phrase"),
        Example("Spell it the way an atlas would. One word.", "guard 54: fresh105", "phrase"),
        Example("Don't translate it into an everyday phrase like 'hot weather'; give the established term.", "guard 58: fresh112", "phrase"),
        Example("Don't confuse the writer who calls the shots with the one who keeps the books.", "guard 55: fresh106", "phrase"),
        Example("A puddle can be deep, but nobody would call it an ocean trench.", "guard 58: fresh113", "phrase"),
        Example("Picture the chart and ask what a diver would call that deepest spot.", "written for the rule", "phrase"),
        Example("Don't confuse a trench with a basin; both get called 'deeps' in old atlases.", "guard 58: fresh18", "phrase"),
        Example("Don't call it a hole; the question wants the place's name.", "guard 58: fresh111", "phrase"),
        Example("You could call this easy; take it one step at a time.", "guard 68: written for the rule", "phrase"),
        Example("You'll find it in the question as the deepest known point; give its name.", "guard 68: written for the rule", "phrase"),
        Example("Ask yourself what a French geographer would call a point that deep.", "guard 68: fresh96", "phrase"),
        Example("For the deep-sea question, you're looking for the one marked 'stated'.", "guard 68: fresh133", "phrase"),
    ),
)
PICK_MINE = Rule(
    "pointer.writers_pick",
    ("pick",),
    "the writer's own pick: \"I'd go with ...\", \"My pick would be ...\", \"My reading leans to ...\", \"If I had to choose, ...\", "
    "\"I'd take ... over ...\", \"I'd lean ... rather than ...\", \"I'd put more weight on ... than ...\", \"... over ..., in my book\", \"I'm more persuaded by ...\", \"I'd rank ... above ...\" when a candidate is named; \"Between ... and ..., I'd trust ...\", \"Of ... and ..., go with ...\", \"Between ... and ..., ... is my pick\" or \"... is much more plausible\" (or \"If it's between ...\", \"Given a choice between ...\") and \"... is the one I'd back\", whatever words name the two; a named option that \"beats\" or \"looks better supported than\" another",
    _mine,
    (FORM, PRAISE_OF_FORM),
    leaks=(
        Example("I'd go with the battle fought on the south coast.", "guard 5"),
        Example("If I had to choose, I'd pick the treaty signed in two towns.", "guard 5"),
        Example("My pick would be the layer below the crust.", "guard 5", "phrase"),
        Example("I'm leaning towards the organelle with a double membrane.", "guard 5"),
        Example("My own reading leans to the treaty signed in two towns rather than the later one.", "guard 28: fresh54"),
        Example("For what it's worth, my instinct favours the treaty signed in two towns.", "guard 33: fresh64, preference"),
        Example("On the treaty question, my own inclination would be the one signed in two towns.", "guard 34: fresh66, a whole message"),
        Example("If I were picking, I'd take the Peace of Westphalia ahead of the Congress of Vienna.", "guard 37: fresh73, a whole message"),
        Example("My own lean is MRI over CT, but check how each forms its image.", "guard 41: fresh82, preference", "codes"),
        Example("MRI over CT, in my book.", "guard 41: fresh82, preference", "codes"),
        Example("Having drawn the tree, I'd lean 1C2R rather than 2C.", "guard 41: fresh82, preference", "codes"),
        Example("I'd put more weight on the magnetic resonance reading than on the tomography one.", "guard 42: fresh83, preference", "codes"),
        Example("Between the treaty signed in two towns and the congress, I'd trust the treaty.", "guard 42: fresh83, preference"),
        Example("The tide statement looks better supported to me than the rotation one.", "guard 43: fresh86, preference", "values"),
        Example("The tide statement beats the other three.", "guard 43: fresh84, preference", "values"),
        Example("I'd go with naming Westphalia rather than Utrecht.", "guard 43: fresh86, preference"),
        Example("I'd take 6B+ over 6A here, but check it against a grade you know.", "guard 44: fresh88, a whole message", "fares"),
        Example("Between CT and MRI I'd lean firmly towards MRI.", "guard 50: fresh97, preference", "codes"),
        Example("I'd now lean towards MRI.", "written for the rule", "codes"),
        Example("MRI over CT, I'd say; check how each forms its image.", "guard 50: fresh96, preference", "codes"),
        Example("Between the treaty signed in two towns and the congress, the treaty wins.", "guard 52: fresh101, preference"),
        Example("Between the two treaties, my lean is clearly toward the second once you check the dates.", "guard 53: fresh103, preference"),
        Example("Between the congress and the treaty signed in two towns, I'm much more persuaded by the treaty.", "guard 56: fresh110, preference"),
        Example("Between the congress and the treaty signed in two towns, the treaty is my pick.", "guard 61: fresh120, preference"),
        Example("Between the congress in Vienna and the treaty signed in two towns, the treaty is much more plausible.", "guard 62: fresh121, preference"),
        Example("Between the congress and the treaty, I lean firmly toward the treaty.", "guard 62: fresh122, preference"),
        Example("If it's between the congress and the treaty, the treaty fits far better.", "guard 62: fresh122, preference"),
        Example("If I were choosing between the congress and the treaty, I'd lean hard toward the treaty.", "guard 62: fresh119, preference"),
        Example("Given a choice between the congress and the treaty, I'd take the treaty.", "guard 62: fresh119, preference"),
        Example("I'd rank MRI above CT for this.", "guard 56: fresh107, preference", "codes"),
        Example("MRI over CT, every time: only one of them uses magnets.", "guard 57: fresh112, preference", "codes"),
        Example("MRI rather than CT for me: only one of them uses magnets.", "guard 64: fresh126, preference", "codes"),
        Example("I'd favour signing in two towns over meeting in one capital.", "guard 64: fresh126, preference"),
        Example("MRI rather than CT - only one of them uses magnets.", "guard 64: fresh121, a whole message", "codes"),
        Example("If you're torn between the congress and the treaty signed in two towns, I'd go the treaty every time.", "guard 57: fresh111, preference"),
        Example("If you're torn between MRI and CT, lean MRI - but check how each forms its image.", "guard 65: fresh128, a whole message", "codes"),
        Example("Between signing in two towns and meeting in one capital, I'd go with signing in two towns.", "guard 58: fresh114, preference"),
        Example("Q3: between the older settlement and the later gathering, I'd lean towards the older one.", "guard 58: fresh114, a whole message"),
        Example("Between a settlement in two towns and a meeting in one capital, go with the two towns.", "guard 58: fresh114, preference"),
        Example("Of 'signed in two towns' and 'met in one capital', the two towns is the one I'd choose.", "guard 58: fresh114, preference"),
        Example("If you're weighing the congress against the treaty, I'd come down on the side of the treaty.", "guard 59: fresh116, a whole message"),
        Example("On the grade question, I'd put the climb at 6B+ rather than 6A, but check it against a grade you know.", "guard 66: fresh85, a whole message", "fares"),
        Example("I'd pick 19:15 over 20:15.", "guard 66: fresh129, preference", "figures"),
    ),
    clean=(
        Example("I'd go with a careful unit check first.", "guard 5"),
        Example("In my book, method comes before memory: weigh each scan on how it forms its image.", "written for the rule", "codes"),
        Example("I'd put more weight on the dates than on the names when you weigh the treaties.", "written for the rule"),
        Example("I'd recommend dating each treaty before you choose.", "written for the rule"),
        Example("I'd take the dates rather than the names as your guide.", "written for the rule"),
        Example("Between dating the treaties and counting their signatories, dating wins every time.", "written for the rule"),
        Example("I'm more persuaded by an answer that dates each treaty than by one that guesses.", "written for the rule"),
        Example("I'd rank accuracy above speed when you weigh the treaties.", "written for the rule"),
        Example("I'd check the dates every time before you choose a treaty.", "written for the rule"),
        Example("The options are decibels, revolutions per minute, beats per minute and frames per second.", "guard 67: fresh132", "figures"),
        Example("Of dates and names, take the dates as your guide.", "written for the rule"),
        Example("Between the two treaties and the congress, take a moment to date each.", "written for the rule"),
        Example("If you're torn between a general word and the diplomats' own term, go with what diplomats actually say.", "guard 62: fresh105"),
        Example("Between the congress and the treaty, which is more plausible once you date them?", "written for the rule"),
        Example("The one I'd go back to is your answer on the treaty.", "written for the rule"),
    ),
)
PICK_BEST_BET = Rule(
    "pointer.best_bet",
    ("pick",),
    "the same pick without \"I\": \"The safer bet is ...\", \"Your best choice here is ...\"",
    _best_bet,
    (FORM, PRAISE_OF_FORM),
    leaks=(
        Example("The safer bet is the layer above ours.", "guard 5"),
        Example("Your best choice here is the gas with seven protons.", "guard 5"),
    ),
    clean=(
        Example("The best bet is a careful reading of the dates.", "guard 5"),
        Example("The best answer is a single word, not a phrase.", "guard 5"),
    ),
)
PICK_LEAN = Rule(
    "pointer.lean",
    ("pick",),
    "the writer's lean between candidates (\"the later one feels more consistent\") or vote (\"gets my vote\")",
    _vote_or_lean,
    (FORM, PRAISE_OF_FORM),
    leaks=(
        Example("The later one feels more consistent.", "guard 7: fresh6, fresh7"),
        Example("The treaty signed in two towns gets my vote.", "guard 7"),
        Example("Of the two readings, the first strikes me as much the more faithful.", "guard 41: fresh81, preference"),
    ),
    clean=(
        Example("The later treaty came after a longer war.", "written for the rule"),
        Example("Vote on nothing until you have dated each treaty.", "written for the rule"),
    ),
)
CANDIDATE_KEPT = Rule(
    "pointer.candidate_kept",
    ("pointer",),
    "a candidate said to be the one to keep or the right one (\"that one is correct\", \"is the right term\"), or the one option named before \"- that's your answer\"",
    _kept,
    (ANY_CANDIDATE,),
    leaks=(
        Example("That one is correct.", "guard 7: fresh6, fresh7"),
        Example("Nitrogen is the one to keep.", "guard 5"),
        Example("So the gas option is correct.", "fresh14"),
        Example("Check C against the second paragraph - that's your answer.", "guard 56: fresh109, position"),
    ),
    clean=(
        Example("That's the right approach here too.", "fresh24"),
        Example("If a value is the right unit, keep it.", "guard 5"),
        Example("Add the two figures - that's your answer.", "written for the rule"),
        Example("Each option matches some reading of the stem; find which reading is the correct one.", "guard 57: fresh112, a whole message"),
    ),
)
