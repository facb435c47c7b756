"""Disclosure: any verdict on the target's earlier answers or reasoning ("Your reasoning on the
gas question was sound", "Question three: you had it", "all but one hold up", "keep your
answer on the treaty"), unless it is an instruction to check ("Make sure your answer is
correct") or praise of how the target worked. The target re-answers the same questions, so
being told which of its answers were right is being told answers."""

from __future__ import annotations

import re

from judgeagent.stages.leak_finding import LeakFinding
from judgeagent.stages.leak_rules.exemptions import PRAISE_OF_A_STEP, PRAISE_OF_FORM, YOU_WENT_WITH
from judgeagent.stages.leak_rules.judgement import CORRECTNESS, QUOTED, YOUR_ANSWER
from judgeagent.stages.leak_rules.rule import Example, FirstOf, Reading, Rule, finding
from judgeagent.stages.leak_rules.vocabulary import alternation

_VERDICT = r"(?:" + alternation("verdicts") + r")"
_SUBJECT = (
    r"(?:\byou\b|\byour\b|\b(?:answers?|responses?|choices?|picks?|reasoning|guess(?:es)?|attempts?)\b"
    r"|\bquestion\s*(?:\d+|one|two|three|four|five|six)\b|\bq\.?\s*\d\b)"
)
# The same with a verdict of right or wrong only, so that a word of quality on the way ("Your term for
# the solid-to-gas change ... needed fixing") does not hide it.
_DISCLOSURE_RIGHT_WRONG = re.compile(r"(?i)" + _SUBJECT + r".{0,80}?" + CORRECTNESS.pattern.removeprefix("(?i)"))
_HEDGE = re.compile(
    # (not a compound's last part: "the safety-check item")
    r"(?i)(?<!-)\b(?:make\s+sure|ensure|check|checking|verify|confirm|whether|if|until|unless|so\s+that|should|must|try|aim|"
    r"before\s+you|as\s+you|would|could|can)\b"
)
_DISCLOSURE = re.compile(r"(?i)" + _SUBJECT + r".{0,80}?\b" + _VERDICT + r"\b|\b" + _VERDICT + r"\b.{0,40}?" + _SUBJECT)
_MISSED = re.compile(
    # ("Last time you blamed the wrong group of sounds on this question")
    r"(?i)\byou\s+(?:missed|erred\s+on|failed|slipped\s+on|blew|nailed|aced|got|had|answered|handled|solved|chose|picked|blamed|named|identified)\b.{0,60}?"
    r"\b(?:questions?|cases?|vignettes?|items?|q\.?\s*\d|ones?)\b"
)
# "Keep your (final) answer to a single letter", "... to the interior part":
# the reply held to a form or a part of the topic, not an earlier answer kept.
_TO_FORM = (
    r"(?!\s+to\s+(?:a|an|one|two|three|single|just|only|under|within|no\s+more\s+than|at\s+most|\d+|"
    r"the\s+(?:[\w-]+\s+){0,2}?(?:parts?|points?|essentials|basics|letters?|words?|names?|terms?|sentences?|lines?))\b)"
)
_KEEP_CHANGE = re.compile(
    r"(?i)\b(?:keep|stick\s+with|(?:don't|do\s+not)\s+change|change|revise|reconsider|switch|flip|rethink|fix|correct)\s+"
    r"your\s+(?:\w+\s+)?(?:answers?|choices?|responses?)" + _TO_FORM + r"\s+(?:to|for|on|in|about)\b|\bchange\s+the\s+other"
    # ("I'd leave question one exactly as it stands")
    r"|\bleave\s+(?:(?:them|it|those|these|question\s*(?:\d+|one|two|three|four|five)|q\.?\s*\d)\s+)?(?:exactly\s+|just\s+)?"
    r"as\s+(?:they|it)\s+(?:are|is|stands?)\b"
)
_ONLY_RIGHT = re.compile(
    r"(?i)\b(?:only|both|all|none|two|three|one)\s+of\s+your\b|\bonly\s+your\b|\bonly\s+the\s+[\w\s-]{1,40}?answer\b"
    r"|\bthe\s+other\s+(?:two|one|three|answers?)\b|\bthe\s+rest\s+of\s+your\b"
    r"|\bonly\s+the\s+one\s+(?:about|on|for|concerning|with)\b|\bof\s+(?:the|your)\s+(?:two|three|four)\s+answers\b"
)
# Correctness told by a quantifier over the answers, whatever the words: "Everything here is fine
# except the ridge question", "all but one hold up", "two of three stand", "the exception is the
# one about ...", "Two right, one wrong", "your only mistake", "the name you gave is not the right one".
_GOOD_OR_BAD = r"(?:" + alternation("good_or_bad") + r")"
# An answer said to need more work: "needs another look", "could use revisiting".
_NEEDS_WORK_WHAT = (
    r"(?:another|a\s+second|a\s+fresh|revisiting|rethinking|reworking|redoing|fixing|correcting|changing|replacing|"
    r"more\s+work|a\s+(?:rethink|redo|rework))"
)
_NEEDS_WORK = r"(?:needs?|deserves?|requires?|could\s+use)\s+" + _NEEDS_WORK_WHAT
_IMPRESSION = r"(?<!sound\s)(?<!sounds\s)(?<!look\s)(?<!looks\s)(?<!seem\s)(?<!seems\s)(?<!appear\s)(?<!appears\s)"
QUANTIFIED_PATTERNS = [
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
    # "the other two hold up", "the rest can stay as they are"
    re.compile(r"(?i)\bthe\s+(?:others|other\s+(?:two|ones|answers)|rest)\s+(?:(?:all|both)\s+)?(?:hold\s+up|stand|stay|can\s+stay|are\s+fine\s+as)\b"),
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
        # (not an aspect of the working: "Nice work on the general concepts")
        r"(?:on|with)\s+(?:the|your|both|all|two|three)\b(?!\s+(?:general\s+|key\s+|underlying\s+|basic\s+)?"
        r"(?:concepts|basics|fundamentals|theory|background|terminology|vocabulary|presentation|layout|structure)\b)"
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
        # ("Your answer to the chewy-gnocchi question is the one I'd ask you to rethink")
        r"(?i)\byour\s+[\w\s-]{0,30}?\b(?:answer|response|choice|one|estimate)(?:\s+(?:to|on|for|about)\s+[^,;.]{1,40}?)?\s+is\s+the\s+one(?:\s+answer)?\s+"
        r"(?:to|I['’]d|I\s+would|you\s+should)\s+(?:definitely\s+|really\s+)?(?:ask\s+you\s+to\s+)?"
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
        # ("your answer here is already right", "the video-review answer is already where it should be")
        r"(?:(?:is|are|was|were)\s+(?:all\s+|both\s+)?(?:already\s+|still\s+)?(?:" + _GOOD_OR_BAD + r"|where\s+(?:it|they)\s+(?:should|ought\s+to|needs?\s+to)\s+be)"
        r"|(?:doesn['’]t|does\s+not|don['’]t|didn['’]t)\s+(?:fit|hold\s+up|work|match|square|agree|add\s+up|account\s+for|allow\s+for))\b"
        r"(?!\s+(?:there|here|in|at|on|before|after|next|if|when|only|to)\b)"
    ),
    re.compile(
        r"(?i)\bthe\s+(?:(?!(?:is|are|was|were)\b)[\w'’-]+\s+){1,4}?(?:questions?|items?)(?:\s+and\s+the\s+(?:[\w'’-]+\s+){1,3}?(?:questions?|items?))?"
        r"\s+(?:is|are|was|were)\s+(?:all\s+|both\s+)?(?:fine|correct|right|sound|solid|ok(?:ay)?|in\s+order|wrong|off|incorrect)\b"
        r"(?!\s+(?:there|here|in|at|on|before|after|next|if|when|only|to)\b)"
    ),
    re.compile(r"(?i)\bthe\s+(?:remaining|other|last)\s+(?:one|answer|question|item)\s+(?:is|was)\s+(?:off|wrong|incorrect|mistaken|astray|not\s+right)\b"),
    # "Good call on the ratio question — that one's right", "so that one's wrong", "Leave the
    # pawn-drop question as it is", "the only one of the three to redo"
    re.compile(
        r"(?i)\b(?:that|this)\s+one(?:['’]s|\s+is|\s+was)\s+(?:already\s+|still\s+)?(?:right|correct|fine|wrong|off|spot\s+on)\b"
        r"|\bleave\s+the\s+[\w'’-]+(?:\s+[\w'’-]+)?\s+(?:question|item|answer|one)\s+(?:exactly\s+|just\s+)?as\s+it\s+(?:is|stands)\b"
        r"|\bthe\s+only\s+one\s+(?:of\s+the\s+(?:two|three|four)\s+)?to\s+(?:redo|revisit|fix|change|rethink|correct)\b"
    ),
    # "Items one and three are fine as they stand"
    re.compile(
        r"(?i)\b(?:items?|questions?|answers?)\s+(?:one|two|three|[1-3])\s+and\s+(?:one|two|three|[1-3])\s+(?:are|were)\s+(?:both\s+)?"
        r"(?:fine|right|correct|good|solid|sound|wrong|off|incorrect)\b"
    ),
    # "Keep your first answer; the second and third both need another look", "Only the exhibition
    # question needs revisiting"
    # "Keep the middle answer; rethink the first and last"
    re.compile(
        # ("the final answer" is the one the target will give: "keep the final answer itself crisp")
        r"(?i)\b(?:keep|stick\s+with|(?:don't|do\s+not)\s+change)\s+(?:your\s+(?:first|second|third|middle|last|final|other)|"
        r"the\s+(?:first|second|third|middle|last|other))\s+(?:answer|one|response|choice)\b"
        + _TO_FORM
    ),
    # "You'll want to change your earlier answer here", "those answers held"
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
    # Answers named by what they were on, with a verdict: "the ones on distance and scoring were fine".
    re.compile(
        r"(?i)\bthe\s+(?:other\s+)?ones\s+(?:on|about|for)\s+[^.;:]{1,50}?\s+were\s+(?:all\s+|both\s+)?" + _GOOD_OR_BAD + r"\b"
    ),
    # Some answers kept and one to redo, by its place: "keep your answers to the other two and redo the first".
    re.compile(
        r"(?i)\b(?:keep|leave)\s+(?:your|the)\b[^.;]{0,60}?\band\s+(?:redo|rework|fix|change|revisit|rethink|reconsider)\s+"
        r"the\s+(?:first|second|third|last|other|remaining)\b(?!\s+(?!(?:one|answer|question|item)\b)[a-z])"
    ),
]
# One example per pattern of QUANTIFIED_PATTERNS, in its order: what each pattern exists for
# (tests/test_leak_rules.py checks that each matches its own pattern and discloses).
QUANTIFIER_EXAMPLES = (
    'Everything here is fine except the treaty question.',
    'All but one hold up.',
    'Two of your three are right.',
    'With one exception, your answers stand.',
    'Two right, one wrong.',
    'Your only slip was the date.',
    'All three of them are correct.',
    'You got two of three.',
    'The one slip was the gas question.',
    'The date tripped you up.',
    'Good work on two of the three.',
    'The others are fine.',
    'The other two hold up.',
    'All of your answers are correct.',
    'Keep your treaty answer.',
    'Keep your answer on the treaty.',
    'Only one item is wrong.',
    'Keep what you wrote for the gas question.',
    'Well done on the treaty question.',
    'Nothing to fix on the organelle question.',
    'Everything but the date is correct.',
    'Apart from the date, everything holds up.',
    'The only one you need to revisit is the gas question.',
    'Rework the organelle answer.',
    'Your treaty answer is the one to revisit.',
    "I'd revisit your organelle answer.",
    "The only one that doesn't hold is the date.",
    "The treaty you chose isn't the one that ended the war.",
    'That is where you slipped.',
    'The one answer that needs correcting is the date.',
    'The desert and wind answers are correct.',
    'The treaty question and the gas question are fine.',
    'The remaining one is off.',
    "Good call on the ratio question - that one's right.",
    'Items one and three are fine as they stand.',
    'Keep the middle answer.',
    "You'll want to change your earlier answer here.",
    'The second and third both need another look.',
    'Only the treaty question needs revisiting.',
    'You got the rock and the current.',
    'You had the treaty question.',
    'The name you gave is not the right one.',
    'The ones on the treaty and the gas were fine.',
    "I'd keep your answers to the two multiple-choice items and redo the first.",
)
# Quantified statements that are themselves a check to make ("make sure all of them hold up").
# "a check of the dates" and "survive the check" are nouns, not an instruction.
_INSTRUCTION = re.compile(
    r"(?i)\b(?:make\s+sure|ensure|(?<!a\s)(?<!the\s)check(?!\s+of\b)|verify|confirm|whether|if|unless|"
    r"so\s+that(?!\s+(?:is|was|['’]s|one|item|question|answer)\b)|until)\b"
)


# A criterion said of any option, not of the target's answers: "An option that matches only one of
# the two isn't good enough", "an option with one right detail and one wrong one is still wrong".
_ANY_OPTION = re.compile(r"(?i)^\s*(?:an?|any)\s+(?:option|choice|answer|statement|candidate)\s+(?:that|which|with)\b")


# Praise discloses when what it praises is an answer of the batch ("Well done on the treaty
# question", "Nicely argued on the first one"), not a field or a skill ("Nice work on the biology
# last round", "Good work on the acoustics overall"): the target re-answers questions, not fields.
_PRAISE = re.compile(r"(?i)^(?:well|nicely|nice(?:ly)?|good|great)\b[^.;]*?\b(?:on|with)\s+")
_AN_ANSWER_PRAISED = re.compile(
    r"(?i)(?:the|your|both|all|two|three)\s+(?:(?!(?:last|earlier|so|overall|in|of|for|but|and)\b)[\w'’-]+\s+){0,3}?"
    r"(?:questions?|items?|ones?|answers?|responses?|calculations?|problems?|sums?|cases?|vignettes?|picks?|choices?)\b"
    r"|(?:the|your)\s+(?:first|second|third|fourth|fifth|last|other|remaining|final|middle)\b|(?:both|all|one|two|three)\b"
)


def _discloses(pattern: re.Pattern[str], sentence: str) -> bool:
    m = pattern.search(sentence)
    if m is None:
        return False
    praise = _PRAISE.match(m.group(0))
    return praise is None or _AN_ANSWER_PRAISED.match(sentence, m.start() + praise.end()) is not None


def _quantified_disclosure(sentence: str) -> bool:
    """Whether the sentence tells how many or which of the target's answers were right, by a
    quantifier ("all but one", "everything ... except", "two of three hold up") rather than by naming one."""
    return any(_discloses(p, sentence) for p in QUANTIFIED_PATTERNS) and not (_INSTRUCTION.search(sentence) or _ANY_OPTION.match(sentence))


def _past(text: str) -> bool:
    # "What you wrote for the leg straps is incorrect": an answer given, judged
    return re.search(
        r"(?i)\b(?:was|were|had|got|did|held|stood|worked|failed|answered|wrote|gave|said|chose|picked|named|selected|offered)\b|\bneeds?\b", text
    ) is not None


def _asked_question(reading: Reading) -> str | None:
    return next((r.question_id for r in reading.question_refs if r.question_id), None)


def _verdict_on_answers(reading: Reading) -> list[LeakFinding]:
    sentence, qrefs = reading.sentence, reading.question_refs
    for pattern in (_DISCLOSURE, _DISCLOSURE_RIGHT_WRONG, _MISSED):
        for m in pattern.finditer(sentence):
            if pattern is _MISSED and m.group(0).lower().split()[1] in ("answered", "handled", "solved", "had", "chose", "picked", "blamed", "named", "identified"):
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
                if not (re.match(r"(?i)^\s*you", sentence) and CORRECTNESS.search(m.group(0))):
                    continue
            return [finding(_asked_question(reading), "disclosure", sentence)]
    return []


def _quantified(reading: Reading) -> list[LeakFinding]:
    return [finding(_asked_question(reading), "disclosure", reading.sentence)] if _quantified_disclosure(reading.sentence) else []


def _keep_or_change(reading: Reading) -> list[LeakFinding]:
    if _KEEP_CHANGE.search(reading.sentence) and (reading.question_refs or "other" in reading.sentence.lower()):
        return [finding(_asked_question(reading), "disclosure", reading.sentence)]
    return []


def _question_then_verdict(reading: Reading) -> list[LeakFinding]:
    for ref in reading.question_refs:
        after = reading.sentence[ref.end :]
        if re.match(r"(?i)^\s*(?:[:=\-–—]\s*(?:you\s+)?|(?:was|were|is)\s+(?:answered\s+|got\s+|handled\s+)?)" + _VERDICT + r"\b", after):
            return [finding(ref.question_id, "disclosure", reading.sentence)]
    return []


VERDICT_ON_ANSWERS = Rule(
    "disclosure.verdict_on_answers",
    ("disclosure",),
    "a verdict of right or wrong on what the target answered or how it reasoned, in any tense",
    _verdict_on_answers,
    (PRAISE_OF_FORM, PRAISE_OF_A_STEP),
    leaks=(
        Example("Your answer on the treaty question was wrong.", "written for the rule"),
        Example("You missed the organelle question.", "guard 2"),
        Example("What you wrote for the leg straps is incorrect.", "fresh14"),
        Example("You got the gas-check item wrong.", "guard 43: fresh84"),
        Example("Last time you blamed the wrong gas on this question.", "guard 54: fresh106"),
        Example("Your reasoning on the gas question was sound.", "guard 2"),
        Example("You read the question closely and picked Utrecht, which was right.", "written for the rule"),
        Example("Your explanation for the treaty was correct, so keep it.", "guard 63: fresh118, disclosure"),
        Example("On the treaty, your style name was right, so leave it.", "guard 64: fresh118, a whole message"),
    ),
    clean=(
        Example("Make sure your answer is correct.", "guard 2"),
        Example("You seem to remember the terms well.", "guard 6"),
        Example("Your reasoning is solid on definitions.", "guard 6"),
        Example("The bellows were worked by a single operator.", "fresh16"),
    ),
)
QUANTIFIED = Rule(
    "disclosure.quantified",
    ("disclosure",),
    "how many or which of the target's answers were right, told by a quantifier or by naming what it gave",
    _quantified,
    (PRAISE_OF_FORM,),
    leaks=(
        Example("All but one hold up.", "guard 5"),
        Example("Everything here is fine except the treaty question.", "guard 5"),
        Example("Nicely argued on the first question.", "guard 50: fresh33, a whole message"),
        Example("Two right, one wrong.", "guard 5"),
        Example("Your only slip was the date.", "guard 5"),
        Example("Only one item is wrong.", "guard 7"),
        Example("Keep the middle answer; rethink the first and last.", "fresh23"),
        Example("You'll want to change your earlier answer here.", "fresh24"),
        Example("Those answers held.", "fresh24"),
        Example("The dynasty you chose there won't survive the check.", "guard 6"),
        Example("Revisit the gas question; the organelle answer is already where it should be.", "guard 52: fresh101, disclosure"),
        Example("Organelle: your answer here is already right, so there's no need to revisit it.", "guard 52: fresh101, a whole message"),
        Example("Your style answer is already right, so leave it and spend your effort on the other two.", "guard 62: fresh121, a whole message"),
        Example("Items one and three are fine as they stand.", "guard 62: fresh120, disclosure"),
        Example("Only the treaty question needs redoing; your other two answers hold.", "guard 62: fresh121, disclosure"),
        Example("Your answer to the gas question is the one I'd ask you to rethink; the other two hold up.", "guard 62: fresh119, disclosure"),
        Example("Your treaty answer didn't account for the war's last year.", "guard 62: fresh121, disclosure"),
    ),
    clean=(
        Example("Make sure all of them hold up.", "guard 5"),
        Example("Nice work on the biology last round.", "guard 50: fresh81, a whole message"),
        Example("Good work on the acoustics overall.", "guard 50: fresh27, a whole message"),
        Example("An option that matches only one of the two isn't good enough.", "fresh24"),
        Example("An option with one right detail and one wrong one is still wrong.", "guard 34: fresh66, a whole message"),
        Example("Keep your answer to a single letter.", "fresh23"),
        Example("Keep your final answer to the interior part.", "fresh24"),
        Example("Nice work on the general concepts; here is where to tighten up.", "guard 28: fresh40"),
    ),
)
KEEP_OR_CHANGE = Rule(
    "disclosure.keep_or_change",
    ("disclosure",),
    'an earlier answer to keep or to change, on a question named or beside "the other"',
    _keep_or_change,
    (PRAISE_OF_FORM,),
    leaks=(
        Example("Change your answer on question 2.", "written for the rule"),
        Example("Leave them as they are for question one and change the other.", "written for the rule"),
        Example("I'd leave question one exactly as it stands; the other two are where your reasoning slipped.", "guard 52: fresh101, disclosure"),
    ),
    clean=(
        Example("Change your answer only if the dates do not fit.", "written for the rule"),
        Example("Keep your answer to a single letter for question 2.", "fresh23"),
    ),
)
QUESTION_THEN_VERDICT = Rule(
    "disclosure.question_then_verdict",
    ("disclosure",),
    'a question of the batch named, then a verdict ("Question three: you had it", "question 2 was wrong")',
    _question_then_verdict,
    (PRAISE_OF_FORM,),
    leaks=(
        Example("Question three: you had it.", "guard 2"),
        Example("Question 2 was answered correctly.", "written for the rule"),
    ),
    clean=(Example("Question 2 asks about a treaty.", "written for the rule"),),
)
# The target's own answer quoted, then set against what was asked: "You wrote 'transom'. That's the
# cross-piece, not ...", "You put 'hygiene', but the notice ...", "Your phrase answer, 'collection
# efficiency', isn't the term ...". Quoting an earlier answer alone is how a verdict begins ("You
# answered 'rovering'."); quoted with something more, it takes a word against it.
_QUOTED_ANSWER = re.compile(
    r"(?i)\byou\s+(?:wrote|put(?:\s+down)?|answered(?:\s+with)?|gave|said|chose|picked|named|offered|went\s+with|settled\s+on)\s*[:,]?\s*"
    + QUOTED
    # ("Your answer to the needle question, 'crochet hook', is too generic")
    + r"|" + YOUR_ANSWER + r"(?:\s+(?:to|for|on)\s+(?:the\s+)?(?:[\w-]+\s+){0,3}?(?:question|item|one))?"
    r"\s*(?:of\s+|,\s*|:\s*|—\s*|\(\s*)?" + QUOTED
)
_AGAINST = re.compile(
    r"(?i)\b(?:not|but|rather\s+than|instead|opposite|wrong|incorrect|mistaken|close|off|different|narrower|broader|too\s+\w+)\b|n['’]t\b"
)
# An answer of the target's judged by its value or kept: "Your spacing answer was far too generous",
# "Your adrenaline volume was out by a factor of ten", "Your answer to the terrier-coat question
# isn't it", "Kite size: you nailed it", "I wouldn't touch it", "You gave the old rehearsal night
# rather than the new one", "Your rebar answer doesn't explain ..., so rethink it".
_TOO = (
    r"too\s+(?:high|low|large|small|big|generous|wide|narrow|early|late|much|little|many|few|tight|loose|fast|slow|heavy|light|"
    r"hot|cold|steep|shallow)"
)
ANSWER_JUDGED_PATTERNS = (
    re.compile(
        r"(?i)\byour\s+(?:[\w-]+\s+){0,3}?(?:answer|response|figure|estimate|value|volume|result|total|calculation|number|reading|date|"
        # ("Your temperature answer ran too hot")
        r"spacing|dose|rate)\s+(?:was|is|came\s+(?:out|in)|ran|landed|ended\s+up|looks?|seems?)\s+(?:(?:far|much|way|a\s+(?:bit|little|touch)|slightly|rather|somewhat)\s+)?"
        r"(?:" + _TOO + r"|(?:out|off|over|under|short)\s+by|an?\s+(?:over|under)estimate)\b"
    ),
    re.compile(r"(?i)\byour\s+(?:[\w-]+\s+){0,4}?(?:answer|response|choice|pick)\b[^.;]{0,40}?\b(?:isn['’]t|is\s+not|wasn['’]t|was\s+not)\s+it\b(?!\s+\w)"),
    # "I'd only revise the answer about the chilled-plate check; the rest holds." (one answer of
    # several singled out to change: the others are right)
    re.compile(
        r"(?i)\bI(?:['’]d|\s+would)\s+(?:only\s+(?:revise|change|redo|rethink|fix|revisit|correct)\s+(?:the|your)|"
        r"(?:revise|change|redo|rethink|fix|revisit|correct)\s+only\s+(?:the|your|one))\s+(?:[\w-]+\s+){0,3}?(?:answer|response|one)\b"
    ),
    # "which is why your answer is out of date rather than careless"
    re.compile(r"(?i)\byour\s+(?:[\w-]+\s+){0,3}?(?:answer|response|term|name|figure)\s+(?:is|was)\s+(?:now\s+|simply\s+|just\s+)?(?:out\s+of\s+date|outdated|obsolete|superseded)\b"),
    re.compile(r"(?i)(?:^|[:;,.—–]\s*)you(?:['’]ve)?\s+(?:nailed|aced)\s+(?:it|that|this)\b|\bI\s+wouldn['’]t\s+(?:touch|change|alter|revise)\s+(?:it|that|this|a\s+thing)\b"),
    # "Your tally matched mine exactly, well done; no change needed there."
    re.compile(
        r"(?i)\byour\s+(?:[\w-]+\s+){0,2}?(?:answer|tally|total|figure|count|sum|result|calculation|estimate|value|number)\s+"
        r"(?:(?:exactly\s+)?(?:matched|matches|agrees?\s+with|agreed\s+with)\s+mine|is\s+what\s+I\s+(?:got|get|have))\b"
        r"|\bno\s+change\s+(?:is\s+)?needed\s+(?:there|here)\b"
    ),
    re.compile(
        r"(?i)\byou\s+(?:gave|picked|chose|put|wrote|named|went\s+with|used|described|quoted)\s+the\s+(?:[\w'’-]+\s+){1,5}?"
        r"(?:rather\s+than|instead\s+of)\s+the\b"
    ),
    re.compile(
        r"(?i)\byour\s+(?:[\w-]+\s+){0,3}(?:answer|response|choice|figure|estimate)\b[^.;]{0,120}?,?\s+so\s+"
        r"(?:rethink|redo|revisit|reconsider|rework|change|fix)\s+it\b"
        r"|\b(?:your|that|this)\s+(?:[\w-]+\s+){0,2}?(?:answer|one)(?:\s+(?:to|on|for|about)(?:\s+[\w'’-]+){1,4}?)?\s+needs\s+" + _NEEDS_WORK_WHAT + r"\b"
        # "You went for the committee meeting, but the notice puts it to the members", "You went
        # with monofilament, which is an understandable instinct, but ..."
        r"|^\s*(?:(?:so|and|but|last\s+time),?\s+)?" + YOU_WENT_WITH + r"\s+[^,;.]{2,60}?,"
        r"(?:\s*which\s+[^,;.]{2,60},)?\s*but\b"
        # "You answered 9:00, but bags have to be in by 08:40"; not the answers' form or kind ("You
        # wrote clear answers, but ...", "You answered with a place name, but ...", "You gave a mass
        # of about two solar masses, but the question asks for the limit's name")
        r"|^\s*you\s+(?:answered|put(?:\s+down)?|wrote|gave|said|chose|picked|blamed|had|named|suggested|guessed)\s+(?!with\b|an?\b|\w+ly\b)"
        r"(?![^,;.]*\b(?:answers|explanations|reasoning|working|steps)\b)[^,;.]{2,40}?,\s*but\b"
        # "Your walk-in answer listed electrical items. That's the opposite of what the notice says":
        # what the sentence before gave, set against the text
        r"|^\s*(?:that|this|it)(?:['’]s|\s+is|\s+was)\s+(?:the\s+)?(?:exact\s+|very\s+)?(?:opposite|reverse)\s+of\s+what\b"
        # "Your stability answer put the CG behind the CP. That's the part to rethink": the answer just told, to change
        r"|^\s*(?:that|this)(?:['’]s|\s+is)\s+the\s+(?:part|bit|one|answer)\s+(?:to|I['’]d|you\s+should|you\s+need\s+to)\s+"
        r"(?:revisit|rethink|reconsider|redo|rework|fix|change|correct)\b"
    ),
    # "Your phrase answer named a tie-breaker format from a different sport", "Your answer to the
    # partials question was the one mistake in this batch"
    re.compile(
        r"(?i)\byour\s+(?:[\w-]+\s+){0,2}?answer\s+(?:named|described|gave|picked|chose|was|is)\b[^.;]{0,80}?\b(?:from|for|in|of)\s+"
        r"(?:a\s+different|the\s+wrong|another)\s+(?:sport|thing|operation|term|idea|concept|process|stage|part|paragraph|section|question|field)\b"
        r"|\byour\s+(?:[\w-]+\s+){0,4}?(?:answer|response)\b[^.;]{0,40}?\b(?:was|is)\s+the\s+(?:one|only|single)\s+(?:mistake|error|slip|miss|wrong\s+answer)\b"
        # "For the last question you described the plastic stage, which comes after the one being
        # asked about": the answer placed beside the one asked for
        r"|\byou\s+(?:described|gave|named|picked|chose|went\s+(?:for|with)|identified|answered\s+with)\s+(?:the|a|an)\s+[^,;.]{2,50}?,\s*"
        r"which\s+(?:comes|came|happens|happened|is|was)\s+(?:after|before|later\s+than|earlier\s+than)\s+the\s+one\b"
        # "You kept the full-batch amount by mistake", "the source you picked by mistake": a slip of
        # the answer's, told (not "be careful not to name those by mistake")
        r"|\byou\s+(?:\w+\s+)?(?:kept|used|picked|chose|gave|wrote|put|took|named|counted|doubled|halved|added|left|swapped|confused|"
        r"mixed\s+up|applied|included|dropped|multiplied|divided)\b[^.;]{0,60}?\bby\s+(?:mistake|accident)\b"
        # "Of your three dumpling answers, the wet-fingertip one is the shaky one"
        r"|\b(?:is|was|['’]s)\s+the\s+(?:shaky|weak|weakest|wobbly|doubtful|questionable|problem|suspect)\s+one\b"
    ),
)
_IF = re.compile(r"(?i)\b(?:if|whether|when|unless|in\s+case)\b")
_FOR_WHICH = re.compile(r"(?i)^\s*(?:for|on|in)\s+(?:the\s+|your\s+)?[\w\s'’-]{1,50}?(?=\s*[.!]?\s*$)")


def _answer_judged(reading: Reading) -> list[LeakFinding]:
    sentence = reading.sentence
    m = _QUOTED_ANSWER.search(sentence)
    if m is not None and not _IF.search(sentence[: m.start()]):
        # (what follows may only say which question: "You wrote 'freestyle' for the third question.")
        rest = _FOR_WHICH.sub("", sentence[m.end() :])
        if not rest.strip(" .!") or _AGAINST.search(rest):
            return [finding(_asked_question(reading), "disclosure", sentence)]
    if any(p.search(sentence) for p in ANSWER_JUDGED_PATTERNS) and not _IF.search(sentence):
        return [finding(_asked_question(reading), "disclosure", sentence)]
    return []


ANSWER_JUDGED = Rule(
    "disclosure.answer_judged",
    ("disclosure",),
    "the target's own answer quoted and set against what was asked, or judged by its value: \"You wrote 'transom'.\", "
    "\"Your answer of 'expansion joints' isn't what's asked\", \"Your spacing answer was far too generous\", \"your answer is out of date\", \"you nailed it\"",
    _answer_judged,
    (PRAISE_OF_FORM,),
    leaks=(
        Example("You wrote 'Treaty of Utrecht'.", "guard 43: fresh86"),
        Example("You put 'Oxygen', but the question asks about most of the air.", "guard 43: fresh86"),
        Example("You wrote 'Oxygen' for the third question. That's a different gas altogether.", "guard 62: fresh121, disclosure"),
        Example("Your phrase answer, 'crust', isn't the layer the question is after.", "guard 43: fresh83", "phrase"),
        Example("Your sunlight answer was far too generous.", "guard 43: fresh83", "phrase"),
        Example("Your sunlight answer ran too high; rethink it.", "guard 52: fresh101, disclosure", "phrase"),
        Example("Your answer to the layer question, 'crust', is too shallow - the stem wants the layer below it.", "guard 53: fresh104, disclosure", "phrase"),
        Example("'Jane Austin' was common once, which is why your answer is out of date rather than careless.", "guard 48: fresh95, disclosure", "phrase"),
        Example("Your answer to the organelle question isn't it.", "guard 43: fresh85"),
        Example("Treaty: you nailed it. Keep it.", "guard 43: fresh85"),
        Example("You gave the later treaty rather than the earlier one; read that sentence again.", "guard 43: fresh83"),
        Example("Your date matched mine exactly, well done; no change needed there.", "guard 45: fresh89, disclosure"),
        Example("Your phrase answer named a layer from a different field; have another go.", "guard 46: fresh91, disclosure", "phrase"),
        Example("Your answer to the gas question was the one mistake in this batch.", "guard 46: fresh92, disclosure"),
        Example("On the venue, your answer named where they used to meet rather than where they are moving, so that one needs changing.", "guard 46: fresh91, a whole message"),
        Example("Your answer on the treaty's name needs replacing with the proper term.", "guard 57: fresh112, disclosure"),
        Example("You went for the congress, but the question asks about the treaty signed in two towns.", "guard 57: fresh112, disclosure"),
        Example("You went with Utrecht, which is an understandable instinct, but the war ended decades earlier.", "guard 61: fresh119, disclosure"),
        Example("You answered 1714, but the treaty was signed a year earlier.", "guard 62: fresh122, disclosure"),
        Example("You blamed the congress, but the war was ended by a treaty.", "guard 62: fresh119, disclosure"),
        Example("Your treaty answer needs a rethink; it doesn't follow from the dates.", "guard 62: fresh122, disclosure"),
        Example("Your answer named the congress. That's the opposite of what the question says - it wants a treaty.", "guard 62: fresh121, disclosure"),
        Example("I'd only revise the answer about the treaty; the rest holds.", "guard 55: fresh107, disclosure"),
        Example("For the treaty question you described the congress, which comes after the one being asked about.", "guard 64: fresh125, disclosure"),
        Example("You kept the full-batch amount by mistake; halving two teaspoons gives one.", "guard 64: fresh125, disclosure"),
        Example("Of your three treaty answers, the Utrecht one is the shaky one.", "guard 64: fresh126, disclosure"),
        Example("Your sunlight answer of six minutes falls short of the figure the textbooks give, so that one needs redoing.",
                "guard 68: fresh133, disclosure", "phrase"),
        Example("Your organelle answer put the DNA in the ribosome. That's the part to rethink - picture where the cell keeps spare genes.",
                "guard 68: fresh133, disclosure"),
    ),
    clean=(
        Example("You answered 'Oxygen', which is a related idea; explain how the two gases differ.", "guard 43: fresh37"),
        Example("If you wrote 'Oxygen', check the proportions again.", "written for the rule"),
        Example("Your answer was too long; one name is enough.", "written for the rule", "phrase"),
        Example("You wrote clear answers, but each needed one more step.", "guard 62: fresh73, a whole message"),
        Example("You answered with a place name, but the question asks for a treaty.", "guard 62: fresh35"),
        Example("The question asks for the top layer's name - don't hand in the bottom one's name by mistake.", "guard 64: fresh82"),
        Example("The inch is what you'd get if you doubled twice by accident.", "guard 64: fresh104"),
    ),
)
# An earlier answer called right or wrong in so many words, as the sentence's own subject: "On the
# cell-count item, your earlier answer was the correct one, so keep it", "Your answer to the
# treaty question is wrong." As plain as the answer stated, so the learned layer never doubts it
# (leak_learned.UNDOUBTED); not a part of it praised ("your answer was the right idea"), not
# "in your answer", not a reason asked for ("say why your choice is right").
_PLAIN_VERDICT = re.compile(
    # ("Q2 - Your razor answer was off")
    r"(?i)(?:^|[,;:—–]\s*|\s-\s+|\b(?:and|but|so)\s+|\b(?:on|for|in)\s+the\s+(?:[\w'’-]+\s+){0,3}?(?:question|item|one)\s+)"
    r"your\s+(?:(?:earlier|previous|first|original|initial|last|[\w-]+)\s+){0,2}?"
    r"(?:answer|response|choice|pick|number|tally|total|figure|count|estimate|calculation|arithmetic|result|value)"
    # ("your answer about what must be completed first was wrong", "your tally from last time was wrong")
    r"(?:\s+(?:to|for|on|about|regarding|from|in)\s+[^,;.:!?]{1,60}?)?"
    # ("Your bowling total last round was correct")
    r"(?:\s+(?:last\s+(?:time|round|go|attempt|pass)|earlier|before|previously|the\s+first\s+time))?"
    # ("Q3: Your answer here was wrong")
    r"(?:\s+(?:here|there|this\s+time|on\s+(?:this|that)(?:\s+one)?))?\s+"
    # ("Your board-material answer missed; ...", "Your glass answer wasn't right", "Your second answer misses:")
    # ("Your wick arithmetic was already right", "Your string count didn't hold up")
    r"(?:(?:was|is)\s+(?:already\s+)?(?:the\s+)?(?:correct|right|wrong|incorrect)|(?:was|is)\s+off|miss(?:ed|es)|slipped|went\s+(?:wrong|astray)"
    r"|did(?:n['’]t|\s+not)\s+hold\s+up"
    r"|(?:was|is)(?:n['’]t|\s+not)\s+(?:quite\s+)?(?:right|correct))"
    # ("Your North West answer missed last time.")
    r"(?=\s*(?:(?:last\s+(?:time|round|go|attempt)|earlier|before|previously)\s*)?(?:one\b|answer\b|[,.;:!—–]|$|(?:so|but|and)\b))"
)


# The same as the writer's own call on a question named: "On the label question I'd change your answer".
_WOULD_CHANGE = re.compile(
    r"\bI(?:['’]d|\s+would)\s+(?i:(?:definitely|certainly|really)\s+)?(?i:change|switch|keep|leave)\s+"
    r"(?i:your\s+(?:(?:earlier|previous|first|original)\s+)?(?:answer|choice|pick))(?:\s+(?i:here|there|as\s+it\s+(?:is|stands)|alone))?"
    r"(?=\s*(?:[,.;:!—–]|$))"
)


# The target's own answer quoted and called not the one asked for: "Your answer 'undertow' for the
# channel question isn't the lifesaving term".
_QUOTED_NOT_IT = re.compile(
    r"(?i)" + YOUR_ANSWER + r"\s*(?:of\s+)?" + QUOTED
    + r"(?:\s+(?:for|to|on)\s+[^,;.:]{1,40}?)?\s+(?:isn['’]t|is\s+not|wasn['’]t|was\s+not)\s+(?:the|a|an|right|correct|quite)\b"
)


def _plain_verdict(reading: Reading) -> list[LeakFinding]:
    m = _PLAIN_VERDICT.search(reading.sentence) or _QUOTED_NOT_IT.search(reading.sentence)
    if m is None and reading.question_refs:
        m = _WOULD_CHANGE.search(reading.sentence)
    if m is None or _IF.search(reading.sentence[: m.start()]) or re.search(r"(?i)\bwhy\b", reading.sentence[: m.start()]):
        return []
    return [finding(_asked_question(reading), "verdict", reading.sentence)]


PLAIN_VERDICT = Rule(
    "disclosure.plain_verdict",
    ("verdict",),
    "an earlier answer called right or wrong in so many words, as the sentence's subject (\"your earlier answer was the correct "
    "one, so keep it\", \"Your answer to the treaty question is wrong\")",
    _plain_verdict,
    (PRAISE_OF_FORM,),
    leaks=(
        Example("On the organelle item, your earlier answer was the correct one, so keep it.", "guard 44: fresh87, a whole message"),
        Example("Your answer to the treaty question is wrong.", "written for the rule"),
        Example("Your date arithmetic was already right, so don't rework it.", "guard 65: fresh109, a whole message"),
        Example("Your treaty count didn't hold up, so start there.", "guard 65: fresh110, a whole message"),
        Example("Your tally from last time was wrong, so redo it.", "guard 45: fresh89, a whole message"),
        Example("Your answer about which gas dominates was wrong; you picked a trace gas.", "guard 45: fresh90, disclosure"),
        Example("On the statements question your answer was wrong, so revisit it.", "guard 46: fresh92, a whole message"),
        Example("Your bowling total last round was correct, so only check the arithmetic.", "guard 50: fresh98, disclosure"),
        Example("Q3: Your answer here was wrong; reread the stem and name the treaty.", "guard 59: fresh116, a whole message"),
        Example("Your treaty answer wasn't right; date the four again.", "guard 59: fresh114, disclosure"),
        Example("Your organelle answer missed; rethink it.", "guard 51: fresh99, disclosure"),
        Example("Your treaty answer missed last time.", "guard 54: fresh106, disclosure"),
        Example("Your second answer misses: you described a later treaty, not the one in the stem.", "guard 66: fresh129, disclosure"),
        Example("On the treaty question I'd change your answer; the date in the stem rules out what you picked.", "guard 52: fresh101, disclosure"),
        Example("Q2 - Your organelle answer was off; reread the stem.", "guard 53: fresh104, a whole message"),
        Example("Your answer 'Utrecht' for the treaty question isn't the one that ended the war.", "guard 53: fresh104, disclosure"),
    ),
    clean=(
        Example("Your answer was the right idea but paraphrased loosely; quote the passage.", "guard 44: fresh29"),
        Example("Say why the other options are wrong, not only why your choice is right.", "guard 44: fresh36"),
        Example("On the treaty question I'd change your answer to a single letter.", "written for the rule"),
        Example("Mentioning the dates in your answer was correct context, but name the treaty.", "guard 44: fresh41"),
    ),
)
# One verdict per sentence: the first of these that finds one.
DISCLOSURE = FirstOf("disclosure", (PLAIN_VERDICT, VERDICT_ON_ANSWERS, QUANTIFIED, KEEP_OR_CHANGE, QUESTION_THEN_VERDICT, ANSWER_JUDGED))
