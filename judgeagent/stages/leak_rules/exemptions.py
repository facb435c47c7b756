"""What is never a leak, whatever a rule matches: advice on the answer's form, praise of how the
target worked, the kind of answer a question wants, a criterion, a method said of any candidate.

Each is an :class:`~judgeagent.stages.leak_rules.rule.Exemption` a rule lists (at the end of
this module), with the sentences it exists for. The semantic and learned layers read the same
predicates (:func:`only_form`, :func:`praise_of_form`, :func:`only_the_kind_asked`)."""

from __future__ import annotations

import functools
import re

from judgeagent.stages.leak_rules.judgement import CORRECTNESS, QUOTED, YOUR_ANSWER
from judgeagent.stages.leak_rules.rule import Example, Exemption
from judgeagent.stages.leak_rules.vocabulary import words

_DONE = r"\s+(?:do|have|do\s+so|do\s+that|have\s+done\s+(?:so|that))\s*,"
GENERAL = re.compile(
    # "when" heading a condition ("When a value is wrong, reject it"), never "When you do, ..." (the
    # step just advised) nor inside a description ("February, when the cash arrives")
    r"(?i)(?:^\s*when\b(?!\s+you" + _DONE + r")|\bwhen\s+(?:a|an|any|its?|they)\b|\bwhen\s+you\b(?!" + _DONE + r"))|"
    r"\b(?:if|unless|whenever|any|every|each|why|before\s+you)\b|\ban?\s+(?:choice|option|value|answer|candidate|figure|term|name)\b"
)


# What kind of answer a question wants, set against another kind ("The answer is a landform, not
# a process", "The question asks for a person, not a place", "one term rather than a
# description"): the category of the answer, never which one it is.
KIND_CONTRAST = re.compile(
    r"(?i)(?:,|;|:|—|–)?\s*\b(?:not|rather\s+than|instead\s+of)\s+(?:just\s+)?(?:a|an|any|one)\b|\bthe\s+name\s+of\s+(?:a|an)\b"
    r"|^\s*(?:so,?\s+)?(?:the|your)\s+(?:(?:correct|right|expected)\s+)?answer\s+(?:is|should\s+be|must\s+be|will\s+be)\s+(?:just\s+)?(?:a|an|one)\s+"
    r"(?:(?!(?:of|with|in|that|which|who)\b)[\w'’-]+,?\s+){0,2}?(?:word|term|name|number|figure|value|person|place|date|year|unit|"
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


# The kind of answer stated and the sentence ending there (a clause after a semicolon is a
# sentence of its own), or going on only to say what to write: "The answer is a mode of
# inheritance;", "The answer is a three-letter code from the Incoterms list;", "The answer is a
# diagnosis, so name a condition ...". Nothing that describes which one: no relative clause, no
# "known", "first" or "classic", no place in the list ("one further down", "one of those").
_NOT_A_KIND = (
    r"(?:that|which|who|whose|with|known|used|discovered|founded|where|named|invented|described|first|famous|famously|since|when|"
    r"responsible|caused|causes|found|seen|made|behind|also|only|unique|best|most|least|classic|classically|typical|typically|"
    r"those|these|them|it|down|up|below|above|listed|given|before|after|previous|earlier|later|next|last|other|former|latter|"
    r"second|third|fourth|fifth|options?|choices?)\b"
)
_KIND_WORD = r"(?!" + _NOT_A_KIND + r")[\w'’-]+"
_KIND_STATED = re.compile(
    r"(?i)^\s*(?:so,?\s+)?(?:the|your)\s+(?:(?:correct|right|expected|final)\s+)?answer\s+(?:here\s+)?"
    r"(?:is|should\s+be|must\s+be|will\s+be|has\s+to\s+be|needs\s+to\s+be)\s+(?:just\s+|simply\s+)?"
    r"(?:a|an|one(?=\s+(?:single|word|term|name|number|value|figure|date|year|sentence|phrase|line|item|entry)\b))\s+(?:single\s+|named\s+(?=\S+\s*[,.;:]))?"
    r"(?:" + _KIND_WORD + r"\s+){0,3}?" + _KIND_WORD
    + r"(?:\s+(?:of|from|in|for|with(?=\s+(?:its|their)\b))\s+(?:the\s+|a\s+|an\s+|its\s+|their\s+)?(?:" + _KIND_WORD + r"\s+){0,3}?" + _KIND_WORD + r")?"
    r"\s*(?:[.;:!]\s*$|$|,\s+(?:so|and|then)\s+(?:name|give|state|write|quote|cite|pick|choose|add|spell|use|keep|say|justify)\b"
    # ("The answer is a named document, and it's named in that sentence": where to find it)
    r"|,\s+and\s+it(?:['’]s|\s+is)\s+(?:named|given|stated|written|mentioned)\s+in\s+(?:that|the|this)\s+(?:sentence|notice|passage|text|paragraph|line)\s*[.!]?\s*$)"
)


# The kind of answer with what marks that kind out, and nothing after it but advice: "The answer
# is a length of time with a unit", "The answer is the formal name of a NEPA decision document",
# "The answer is one of the substantive patentability requirements of the EPC", "The answer is a
# named joint type; ...". An indefinite noun phrase is a class. A relative clause, a gloss
# ("specifically", "also means", "as in") or a colon goes on to which member it is, and "or"
# lists candidates: those are descriptions, and stay the judge's to weigh.
_KIND_CLASS = re.compile(
    r"(?i)^\s*(?:so,?\s+)?(?:the|your)\s+(?:(?:correct|right|expected|final)\s+)?answer\s+(?:here\s+)?"
    r"(?:is|should\s+be|must\s+be|will\s+be|has\s+to\s+be|needs\s+to\s+be)\s+"
    r"(?:(?-i:a|an)\s+|one\s+of\s+the\s+(?!(?:two|three|four|five|first|second|third|last|options?|choices?)\b)|"
    r"one\s+(?=(?:kind|type|category|class|sort|word|term|name|number|value|figure|date|year|sentence|phrase|line|item|entry)\b)|"
    r"(?:the\s+)?(?:formal\s+|full\s+|standard\s+|usual\s+|official\s+)?"
    r"(?:name|abbreviation|acronym|location|position|type|kind|category|class|unit|symbol|term|date|year|number|value)\s+of\s+(?:a|an|the)\s+)"
    r"(?P<rest>[^:]*)$"
)
_GOES_ON_TO_WHICH = re.compile(
    r"(?i)\b(?:which|that|who|whom|whose|where|when|specifically|namely|means?|i\.\s*e|e\.\s*g|as\s+in|such\s+as|like|"
    r"also|famous|famously|known|discovered|invented|founded|or)\b"
)
_CLASS_WORDS = 14


def _states_class(sentence: str) -> bool:
    m = _KIND_CLASS.match(sentence)
    if m is None:
        return False
    # what to write, after the class, is advice: "..., so explain the noise source"
    rest = re.split(r"(?i),\s+so\b|,\s+(?:and|then)\s+(?=(?:name|give|state|write|quote|cite|explain|say|spell|use|keep|add|justify|phrase|express)\b)",
                    m.group("rest"))[0]
    return len(rest.split()) <= _CLASS_WORDS and _GOES_ON_TO_WHICH.search(rest) is None


def names_kind_of_answer(sentence: str) -> bool:
    """Whether ``sentence`` only says what kind of answer a question wants ("a person, not a
    place", "The question asks for a person's name"): the category of the answer, never which
    one it is."""
    return (
        KIND_CONTRAST.search(sentence) is not None
        or _KIND_ASKED.search(sentence) is not None
        or _KIND_STATED.search(sentence) is not None
        or _states_class(sentence)
    )


# A criterion, not a description: "The answer is the quantity that differs", "It's the one that
# fits": a relative clause of one verb with nothing after it tells which test to apply (the
# question's own), and no fact about any option.
CRITERION = re.compile(
    r"(?i)^\s*(?:so,?\s+)?(?:(?:the\s+answer|it)\s+(?:is|will\s+be|must\s+be)\s+|it['’]s\s+)?(?:the|a|an)\s+(?:[\w-]+\s+){0,2}?"
    r"[\w-]+\s+(?:that|which|who)\s+(?:\w+ly\s+)?[a-z]+\s*[.!]?\s*$"
)

# Praise of the form of the target's earlier work, not of its correctness: "Your write-up was clear
# and well reasoned", "You kept your answer short, which is the right format", "Your explanations
# leaned on definitions, which is the right instinct": none tells which answer was right.
_FORM = re.compile(
    # ("clearly" as an intensifier praises nothing: "my lean is clearly toward the second"; nor
    # "short" a value's measure: "Your tide answer ... falls short of the window")
    r"(?i)\b(?:clear|clearly(?!\s+(?:towards?|to|ahead|better|more|the\s+(?:better|stronger|likelier)))|concise(?:ly)?|(?<!falls\s)(?<!fall\s)(?<!fell\s)(?<!came\s)(?<!comes\s)short(?!\s+(?:of|by)\b)|brief|tidy|neat(?:ly\s+(?:argued|reasoned|written|laid\s+out))?|readable|methodical|careful|thorough|systematic|"
    r"well[\s-]+(?:organi[sz]ed|structured|laid\s+out|reasoned|argued|written|presented|explained))\b"
    # Praise of a habit or a skill, not of an answer: "Your habit of defining terms was good", "The
    # way you laid out your reasoning was good", "Your grasp of hive architecture was good", "You
    # did well to notice the difference between ...", "show decent physical intuition", "good awareness of safety".
    r"|\b(?:your\s+)?(?:habits?|grasp|intuitions?|instincts?|layout|awareness)\b(?!\s+(?:on|for|about)\s+(?:the\s+)?(?:first|second|third|last|\w+\s+question))"
    r"|\bthe\s+way\s+you\s+(?:laid\s+out|set\s+out|organi[sz]ed|structured|worked|reasoned|explained|approached)\b"
    r"|\bdid\s+well\s+(?:\w+\s+){0,2}to\s+(?:notice|note|spot|separate|distinguish|define|check|think|ask|consider|reason|look|start)\b"
    # "You spotted that the 32-bit word format matters; good.": a clue of the stem noticed
    # "You gave a good justification last time about shade and moisture": the reasons praised
    r"|\b(?:good|clear|solid|careful|thoughtful|detailed)\s+(?:justifications?|rationales?)\b"
    r"|\byou\s+(?:rightly\s+|correctly\s+)?(?:spotted|noticed|picked\s+up\s+on|caught)\s+that\b(?:(?!\b(?:options?|answers?|choices?)\b|\b[A-E]\b)[^.;]){0,80}?\b(?:matters|mattered|is\s+relevant|was\s+relevant|counts)\b"

    # a habit praised ("you were good about estimating the energy") or a form criticised ("a bit generic")
    r"|\b(?:were|was|are)\s+good\s+(?:about|at)\s+\w+ing\b|\b(?:generic|vague|wordy|verbose|terse)\b"
    r"|\bthin\s+on\s+(?:justification|reasoning|detail|explanation|working)\b"
    # "Your previous explanation of permutations was nicely done": the working, not the answer
    r"|\b(?:explanations?|reasoning|write-?ups?|working|derivations?|arguments?)\b[^.;]{0,40}?\b(?:nicely|well)\s+done\b"
)
# (an option or an answer given, in the words before a verdict: "... and picked Utrecht, which was right")
_ANSWER_NAMED = r"\boptions?\b|\b[A-E]\b|\b(?:picked|chose|answered|went|gave|put|wrote|named|selected|got|settled)\b"
RIGHT_FOR_FORM = re.compile(
    # "You're on the right track whenever you think in terms of inputs and outputs": a habit
    r"(?i)\bon\s+the\s+right\s+track\s+(?:whenever|when|if|each\s+time)\s+you\b|"
    # "You've been answering these straight from the text, which is exactly right": a habit
    # or "Your working on the earlier attempt was tidy, which is exactly right for this kind of question"
    r"^\s*(?:you(?:['’]ve|\s+have)\s+been\s+\w+ing\b|your\s+(?:working|workings|method|layout|steps|write-?up)\b[^.;]{0,60}?\b"
    r"(?:tidy|clear|neat|careful|methodical|thorough|systematic|concise|organi[sz]ed|laid\s+out))[^.;]{0,80}?,\s*which\s+is\s+(?:exactly\s+|just\s+)?(?:right|correct)\b|"
    # "Last time you tied your answer closely back to the scenario, which was good", "You quote
    # texts closely, which is exactly right for this kind of passage": a way of working
    r"^\s*(?:last\s+time,?\s+)?you\s+(?:tied|tie|linked|link|quoted|quote|cited|cite|anchored|anchor|grounded|ground|related|relate|"
    r"referred|refer|read|reread|explained|explain|justified|justify|reasoned|reason|checked|check|showed|show)\b"
    r"(?:(?!" + _ANSWER_NAMED + r")[^.;]){0,60}?\b(?:closely|carefully|clearly|explicitly|directly|step\s+by\s+step)\b"
    r"(?:(?!" + _ANSWER_NAMED + r")[^.;]){0,40}?,\s*which\s+(?:is|was)\s+(?:exactly\s+|just\s+|very\s+)?(?:right|correct|good|great)\b|"
    # "You drew a diagram last time, which is exactly the right move for a question like this": a habit
    r"^\s*(?:last\s+time,?\s+)?you\s+(?:drew|sketched|made|drafted|wrote\s+out|labell?ed)\s+(?:a|an|the|your)\s+(?:quick\s+|rough\s+|little\s+)?"
    r"(?:diagram|sketch|drawing|table|timeline|chart|picture|map)\b(?:(?!" + _ANSWER_NAMED + r")[^.;]){0,40}?,\s*which\s+(?:is|was)\s+"
    r"(?:exactly\s+|just\s+|very\s+)?(?:the\s+)?(?:right|correct|good|great)\b|"
    # "One thing you did well last time was explain why you chose what you chose": a step praised
    r"\b(?:one\s+thing|what)\s+you\s+did\s+well(?:\s+(?:last\s+time|before|earlier))?\s+(?:was|is)\s+(?:to\s+)?"
    r"(?:explain|show|justify|lay\s+out|set\s+out|give\s+(?:a\s+)?reasons?|state|check)\w*\b|"
    # "Last time you wrote a figure but not how you got it": the reply's form remarked on
    r"\byou\s+(?:wrote|gave|put(?:\s+down)?)\s+(?:just\s+|only\s+)?(?:a|the|your)\s+(?:figure|number|letter|value|word|total)\s+but\s+not\s+"
    r"(?:how|why|your\s+working|the\s+working|the\s+steps|a\s+reason)\b[^.;]*|"
    # "You were right to think about the slope": a step of reasoning praised
    # ("You were right to write out units in your last attempt")
    r"\b(?:were|was)\s+right\s+to\s+(?:think\s+about|consider|start\s+(?:from|with)|ask|check|write\s+out|show|include|label|lay\s+out|set\s+out|note)\b|"
    r"\b(?:exactly\s+|just\s+)?(?:the\s+)?(?:right|correct|good|best)\s+(?:format|instinct|style|approach|habit|method|frame|framing|lens|"
    r"length|level\s+of\s+detail|register|tone|starting\s+point|tools?|mindset|attitude|"
    # "a clear physical rationale, which is the right way to approach a question like this"
    r"way\s+to\s+(?:work|reason|think|go\s+about|approach|tackle|handle))\b"
    # (not a question's name: "Your style answer is already right", "your style name was right"
    # judge the answer on styles)
    r"|\b(?:style|approach|habit|method|format)\b(?!\s+(?:answers?|responses?|questions?|items?|ones?|names?|terms?|choices?|picks?)\b)[^.;]{0,120}?\b(?:exactly\s+|just\s+)?right\b"
)


# "Overall the concepts are right but the execution is hasty": what the target knows, praised
# as a whole, with no answer or question named.
_KNOWLEDGE_PRAISED = re.compile(
    r"(?i)^\s*(?:[-•*]\s*)?(?:overall|on\s+the\s+whole|generally|in\s+general)[,:]?\s+(?:the|your)\s+"
    r"(?:concepts?|ideas|principles|knowledge|understanding|fundamentals|basics|theory)\s+(?:are|is|were|was|seems?|seemed)\s+"
    r"(?:\w+\s+)?(?:right|correct|sound|there|solid|fine|good)\b"
)


_ANSWER_QUOTED = re.compile(r"(?i)" + YOUR_ANSWER + r"[^.;]{0,50}?" + QUOTED)
# The answer named and set against another: "You went with monofilament, which is an understandable
# instinct, but instructors reach for ...": the instinct is the answer's, not a habit of form.
# (the disclosure rule reads the same words: leak_rules.disclosure.ANSWER_JUDGED_PATTERNS)
YOU_WENT_WITH = r"you\s+(?:went\s+(?:for|with)|opted\s+for|plumped\s+for|settled\s+on)"
_ANSWER_GIVEN_BUT = re.compile(r"(?i)^\s*" + YOU_WENT_WITH + r"\s+[^.;]{2,120}?\bbut\b")


# Whose work is praised: "you", "your", or a sentence that opens on "the answers" ("The answers were
# well written but thin on justification").
_THE_TARGETS = re.compile(r"(?i)\byou(?:r)?\b|^\s*(?:overall,?\s+)?the\s+(?:answers|responses|explanations|write-?ups)\b")


# A way of working named and called the right habit, with no "you": "Anchoring answers in named
# sources is the right habit."
_HABIT_NAMED = re.compile(
    r"(?i)^\s*[a-z]+ing\b[^.;]{0,80}?\b(?:is|was)\s+(?:exactly\s+|always\s+)?(?:the|a)\s+(?:right|good|sound|useful)\s+"
    r"(?:habit|approach|instinct|move|method|practice)\b"
)


@functools.lru_cache(maxsize=4096)  # asked of each sentence by the rules, the semantic and the learned layer
def praise_of_form(sentence: str) -> bool:
    """Whether the sentence praises how the target worked (clear, concise, the right format or
    instinct, its knowledge as a whole) and says nothing of whether any answer was right."""
    if _HABIT_NAMED.match(sentence):
        return not CORRECTNESS.search(RIGHT_FOR_FORM.sub(" ", sentence))
    known = _KNOWLEDGE_PRAISED.match(sentence)
    if known:
        return not CORRECTNESS.search(sentence[known.end() :]) and not _OF_THE_RESULT.search(sentence[known.end() :])
    if not _THE_TARGETS.search(sentence) or not (_FORM.search(sentence) or RIGHT_FOR_FORM.search(sentence)):
        return False
    if _ANSWER_QUOTED.search(sentence) or _ANSWER_GIVEN_BUT.search(sentence):  # "Your answer ..., 'crochet hook', is too generic": the answer judged
        return False
    return not CORRECTNESS.search(RIGHT_FOR_FORM.sub(" ", sentence))


# A step of the working praised, and nothing said of where it led: "Your method was sound;", "Your
# reasoning about glue strength was fine, but the question is about mechanical interlock". A
# step is not the answer: it can be right and the answer wrong. Never "your answer", a
# calculation (its result is the answer), a negative word before "but", or after it anything
# of the result ("but the conclusion was off").
_STEP_PRAISED = re.compile(
    r"(?i)^\s*(?:[-•*]\s*)?(?:(?:overall|general|generally|in\s+general|throughout)[,:]?\s+)?your\s+(?:(?!answers?\b)[\w-]+\s+){0,2}?"
    r"(?:method|setup|set-up|descriptions?|analysis|explanations?|reasoning|working|workings|definition|summary|reading|discussion|terminology|vocabulary|notation|"
    r"account|approach|logic|first\s+step|framework|derivation|interpretation|paragraph|sketch|diagram)\b[^;]*?"
    # ("was careful and accurate", "Your descriptions ... so far have been accurate")
    r"\b(?:was|were|is|looked|seemed|ha(?:ve|s)\s+been)\s+(?:\w+\s+(?:and\s+)?)?(?:correct|right|sound|good|fine|accurate|solid|tidy)\b"
    # "You described Na+/K+-ATPase inhibition correctly": the working, said of "you"
    r"|^\s*you\s+(?:described|explained|defined|summari[sz]ed|laid\s+out|set\s+out|set\s+up|reasoned\s+through)\b[^;]*?"
    r"\b(?:correctly|accurately|well|clearly|soundly)\b"
)
# (and no question of the batch named: "Your reasoning on the gas question was sound" is a verdict on it)
_NOT_PRAISE = re.compile(
    # ("last", not "last time": "Your reasoning last time about grain direction was solid" praises a step,
    # as does "Your safety-minded reasoning earlier was good")
    # ("so keep it": the answer it led to is kept, a verdict on it; not "so just keep it tight")
    r"(?i)\b(?:wrong\w*|incorrect\w*|off|not|never|no|mistak\w*|errors?|\w+n['’]t|questions?|items?|q\d+|second|third|last(?!\s+time)|earlier(?!\s+(?:was|were)\b)|previous|"
    r"(?:keep|leave|stick\s+with)\s+it(?=\s*(?:[.;,!]|$|as\s+it\s+is)))\b"
)
_OF_THE_RESULT = re.compile(r"(?i)\b(?:wrong\w*|incorrect\w*|off|mistak\w*|errors?|conclusions?|answers?|results?|final|options?|choices?|pick\w*|chose\w*)\b")


@functools.lru_cache(maxsize=4096)
def praise_of_a_step(sentence: str) -> bool:
    """Whether ``sentence`` praises a step of the target's working and says nothing of its result."""
    if _STEP_PRAISED.match(sentence) is None:
        return False
    turn = re.search(r"(?i)\b(?:but|though|although|however|yet)\b", sentence)
    head, tail = (sentence[: turn.start()], sentence[turn.end() :]) if turn else (sentence, "")
    return _NOT_PRAISE.search(head) is None and _OF_THE_RESULT.search(tail) is None


# Words that say how to answer, never what: a sentence made of nothing else ("One letter is all
# that's needed, though a one-line reason helps") is advice on the answer's form. No word of
# position or content, and no "you": "Your answer is fine" is a verdict, "A short answer is fine" is not.
_FORM_WORDS = words("form_words")


# "The right form" is form ("A short noun phrase is the right form here"), where "the
# right one" would be a verdict: the phrase is read as a form word.
_RIGHT_FORM = re.compile(r"(?i)\b(?:the\s+)?(?:right|correct|proper|expected)\s+(?:form|format|length|shape|level\s+of\s+detail)\b")
# What to leave out of the reply: "no diagrams, example hands or explanations", "You don't need to
# explain frequencies, search phases or technique". It names things the reply need not
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


# "Give your answer as a letter", "Limit your answer to one word": how
# to give the reply, read as form when the rest is form words. A "you" is never a form word alone
# ("Your answer is fine" is a verdict), so the instruction is read as one.
_FORM_INSTRUCTION = re.compile(
    r"(?i)^\s*(?:please\s+)?(?:(?:give|write|state|put|present|submit|express|phrase)\s+your\s+(?:final\s+)?(?:answer|reply|response)\s+(?:as|in)"
    r"|(?:limit|restrict)\s+your\s+(?:final\s+)?(?:answer|reply|response)\s+to)\b"
)


# One figure set above another ("I'd pick 19:15 over 20:15") is a choice, whatever its words.
_FIGURE_OVER_FIGURE = re.compile(r"(?i)\d\S*\s+(?:over|rather\s+than|instead\s+of|not)\s+[-+−]?\d")


@functools.lru_cache(maxsize=4096)  # asked of each sentence by the rules, the semantic and the learned layer
def only_form(sentence: str) -> bool:
    """Whether ``sentence`` is advice on the answer's form: every word one of _FORM_WORDS (with
    "the right form" read as one, and an instruction on how to give the reply), or what the
    reply may leave out, in clauses of either kind."""
    clauses = [c for c in re.split(r"\s*[—–;:]\s*|\s+-\s+", sentence) if re.search(r"[A-Za-z]", c)]
    if not clauses or _FIGURE_OVER_FIGURE.search(sentence):
        return False
    form = [_form_words_only(_RIGHT_FORM.sub(" fine ", _FORM_INSTRUCTION.sub(" ", _form_said(c)))) for c in clauses]
    left_out = [bool(_LEAVE_OUT.match(c)) and not _JUDGEMENT.search(c) for c in clauses]
    # "No pneumatic motors here" alone may drop an option: a bare "no ..." is form only beside form.
    alone = [o and not re.match(r"(?i)\s*(?:and\s+)?(?:there\s+is\s+)?no\b(?!\s+need)|\s*without\b", c) for c, o in zip(clauses, left_out)]
    return all(f or o for f, o in zip(form, left_out)) and any(form + alone)


# "Your answer here was a single word with no explanation": the reply's form said of the target's
# answer, read as form when the rest is form words and none of them a verdict ("Your answer was fine").
_ANSWER_WAS = re.compile(r"(?i)^\s*your\s+(?:(?:earlier|last|previous|final)\s+)?(?:answers?|replies|reply|responses?)\s+(?:here\s+|there\s+)?(?:was|were|is|are)\s+")
_A_VERDICT = re.compile(r"(?i)\b(?:fine|good|great|ok(?:ay)?|right|correct|wrong|spot|accurate|close|off|solid|sound|perfect|the\s+right)\b")


def _form_said(clause: str) -> str:
    m = _ANSWER_WAS.match(clause)
    return clause[m.end() :] if m and not _A_VERDICT.search(clause, m.end()) else clause


def _form_words_only(text: str) -> bool:
    words = re.findall(r"[a-z][a-z'’-]*", text.lower().replace("’", "'"))
    return bool(words) and all(w in _FORM_WORDS or all(p in _FORM_WORDS for p in w.split("-") if p) for w in words)


FORM = Exemption(
    "form",
    "advice on the answer's form: every word a form word, an instruction on how to give the reply, or what the reply may leave out",
    only_form,
    (
        Example("A short noun phrase is the right form here.", "fresh16"),
        Example("You don't need to explain frequencies, search phases or technique.", "fresh16"),
        Example("Give your answer as a letter.", "fresh23"),
        Example("One letter is all that's needed, though a one-line reason helps.", "fresh10, fresh11"),
        Example("Your answer here was a single word with no explanation.", "guard 53: fresh104"),
        Example("Your answer here was a single word without any justification.", "guard 62: fresh121"),
    ),
)
PRAISE_OF_FORM = Exemption(
    "praise of form",
    "praise of how the target worked (clear, concise, a good habit, the right approach, a detail spotted, its knowledge as a whole), saying nothing of which answer was right",
    praise_of_form,
    (
        Example("Your write-up was clear and well reasoned.", "fresh7 to fresh9"),
        Example("Your habit of defining terms was good.", "fresh10, fresh13"),
        Example("You were right to think about the slope.", "fresh12"),
        Example("Your previous explanation of permutations was nicely done.", "fresh17"),
        Example("You're on the right track whenever you think in terms of inputs and outputs.", "fresh18"),
        Example("You showed good awareness of safety in your earlier reasoning.", "fresh23"),
        Example("You gave a clear physical rationale, which is the right way to approach a question like this.", "fresh24"),
        Example("You spotted that the 32-bit word format matters;", "guard 29: fresh56"),
        Example("Anchoring answers in named sources is the right habit.", "guard 67: fresh132"),
        Example("Overall the concepts are right but the execution is hasty.", "guard 30: fresh57"),
        Example("The answers were well written but thin on justification.", "guard 34: fresh66, a whole message"),
        Example("You've been answering these straight from the text, which is exactly right.", "guard 53: fresh103"),
        Example("Your working on the earlier attempt was tidy, which is exactly right for this kind of question.", "guard 54: fresh105"),
        Example("One thing you did well last time was explain why you chose what you chose.", "guard 54: fresh106"),
        Example("Last time you wrote a figure but not how you got it.", "guard 54: fresh106"),
        Example("You were right to write out units in your last attempt.", "guard 55: fresh108"),
        Example("Last time you tied your answer closely back to the question, which was good.", "guard 62: fresh121"),
        Example("You quote texts closely, which is exactly right for this kind of passage.", "guard 62: fresh121"),
        Example("You gave a good justification last time about the dates.", "guard 62: fresh121"),
    ),
)
KIND_OF_ANSWER = Exemption(
    "kind of answer",
    "the kind of answer a question wants, alone or set against another kind: never which one it is",
    names_kind_of_answer,
    (
        Example("The answer is a landform, not a process.", "guard 5"),
        Example("The question asks for a person, not a place.", "guard 5"),
        Example("The question asks for a person's name.", "guard 5"),
        Example("The correct answer is a short, informal term.", "guard 17: fresh29"),
        Example("The answer is a mode of inheritance;", "guard 19: fresh33"),
        Example("The answer is a three-letter code from the Incoterms 2020 list;", "guard 19: fresh34"),
        Example("The answer is a diagnosis, so name a condition rather than a mechanism.", "guard 19: fresh34"),
        Example("The answer is one sentence from the list;", "guard 20: fresh35"),
        Example("The answer is a fabric name with its colour;", "guard 20: fresh36"),
        Example("The answer is a length of time counted back from the effective filing date.", "guard 21: fresh37"),
        Example("The answer is the formal name of a NEPA decision document;", "guard 21: fresh38"),
        Example("The answer is one of the substantive patentability requirements of the EPC.", "guard 21: fresh37"),
        Example("The answer is the abbreviation of a protocol name.", "guard 22: fresh40"),
        Example("The answer is a stated reason, so it should be supported by a sentence of the report.", "guard 22: fresh39"),
        Example("The answer is a named place, and it's named in that sentence.", "guard 68: fresh131"),
    ),
)
# What any answer gets: "An answer that describes the gear well but names it loosely tends to lose marks".
_ANY_ANSWER = re.compile(
    r"(?i)^\s*(?:an|any)\s+(?:answer|reply|response)\s+(?:that|which)\b"
    # "a statement that's nearly right is wrong": what any near miss gets
    r"|^\s*(?:an?|any)\s+(?:statement|option|choice|answer)\s+(?:that|which)(?:['’]s|\s+is)\s+(?:only\s+)?['‘\"“]?(?:nearly|almost|partly|partially|half|mostly)\b"
)
CRITERION_ONLY = Exemption(
    "criterion",
    "a criterion, not a description: the test the question sets, or what any answer gets, with no fact about any option",
    lambda sentence: CRITERION.search(sentence) is not None or _ANY_ANSWER.match(sentence) is not None,
    (
        Example("The answer is the quantity that differs.", "guard 6"),
        Example("It's the one that fits.", "guard 6"),
        Example("An answer that describes the gas well but names it loosely tends to lose marks.", "guard 55: fresh108"),
        Example("A statement that's nearly right is wrong.", "guard 56: fresh110"),
    ),
)
ANY_CANDIDATE = Exemption(
    "said of any candidate",
    "a method said of any candidate or under a condition, not a verdict on one",
    lambda sentence: GENERAL.search(sentence) is not None,
    (
        Example("If a value has the wrong units, reject it.", "guard 5"),
        Example("When a value is wrong, reject it.", "guard 6"),
        Example("Any figure that is not the right magnitude can go.", "written for the rule"),
    ),
)
PRAISE_OF_A_STEP = Exemption(
    "praise of a step",
    "a step of the working praised (the method, the set-up, the reasoning about a topic), saying nothing of where it led",
    praise_of_a_step,
    (
        Example("Your method was sound;", "guard 21: fresh30"),
        Example("Your reasoning about glue strength was fine, but the question is about mechanical interlock;", "guard 21: fresh38"),
        Example("Your first step, confirming the diagnosis with two independent tests, was correct;", "guard 21: fresh35"),
        Example("Your localisation paragraph was solid.", "guard 22: fresh42"),
        Example("You described the pump's inhibition correctly;", "guard 22: fresh42"),
        Example("- Overall your terminology was accurate;", "guard 28: fresh48"),
        Example("Your reasoning last time about the treaty dates was solid.", "guard 61: fresh119"),
        Example("Your description of the organelle was careful and accurate.", "guard 61: fresh119"),
        Example("Your reasoning last time was sound, so just keep it tight.", "guard 63: fresh81, a whole message"),
        Example("Your safety-minded reasoning earlier was good, and it'll serve you well here.", "guard 66: fresh130"),
        Example("Your descriptions of the treaties so far have been accurate and vivid.", "guard 66: fresh130"),
    ),
)
# One option named to be treated as every other one is: "Option C, P. knowlesi, is a parasite of
# macaques; ... put every other option through the same test", "examine option D in exactly the
# same way as B and C". Read over the whole sentence, since its clauses name the option apart.
EVEN_TREATMENT_WORDS = re.compile(
    r"(?i)\b(?:the\s+same\s+(?:way|test|scrutiny|checks?|standard)\s+as\s+(?:(?:every|each|all|any)\s+(?:of\s+the\s+)?other\b|the\s+others?\b|"
    r"the\s+rest\b|[A-E](?:\s*(?:,|and|or)\s*[A-E])*\b(?!['’]))"
    r"|\b(?:like|as\s+with|as\s+for)\s+(?:every|each|any)\s+other\s+(?:option|choice|candidate|answer)"
    r"|\b(?:put|run)\s+(?:every|each|all)\s+(?:the\s+)?other\s+(?:options?|choices?|candidates?)\s+through\s+the\s+same)"
)
EVEN_TREATMENT = Exemption(
    "treated as every other",
    "an option named to be treated as every other option is (over the whole sentence, whose clauses may name it apart): no pointer",
    lambda sentence: EVEN_TREATMENT_WORDS.search(sentence) is not None,
    (
        Example("Examine option D and option A in exactly the same way as B and C.", "guard 32: fresh61"),
        Example("Recall what quantum meruit means and judge it the same way as every other option.", "guard 32: fresh61"),
        Example("Define each term precisely before judging it, like every other option.", "guard 32: fresh61"),
    ),
)
EXEMPTIONS = (FORM, PRAISE_OF_FORM, PRAISE_OF_A_STEP, KIND_OF_ANSWER, CRITERION_ONLY, ANY_CANDIDATE, EVEN_TREATMENT)
