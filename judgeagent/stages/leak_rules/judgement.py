"""Judgements of a named option: negative ("a trap", "rule it out", any negation), positive ("the
drug of choice", "fits"), comparative ("rather than") or conditional ("only if"); and what is
no judgement: an option's own words ("No change"), a question left open ("ask whether ..."),
a study instruction ("Recall what ..."), a warning against confusing two ideas, and a list that
names every option side by side. The judgement words are data (``lists/negative.txt``,
``positive.txt``, ``comparative.txt``, ``weak_judgements.txt``)."""

from __future__ import annotations

import re

from judgeagent.data.benchmark import Question
from judgeagent.stages.leak_normalize import fold, stem, tokens
from judgeagent.stages.leak_rules.refs import OptionRef
from judgeagent.stages.leak_rules.text import compiled, word_spans
from judgeagent.stages.leak_rules.vocabulary import alternation

# Negative: the option is wrong, unlikely, to be avoided; any negation of a named option.
_NEGATIVE = re.compile(r"(?i)\b(?:" + alternation("negative") + r")\b")
# Positive: the option is right, fitting, the one to pick, first.
_POSITIVE = re.compile(r"(?i)\b(?:" + alternation("positive") + r")\b")
# Comparative and conditional: one option set against another, or allowed only under a condition.
_COMPARATIVE = re.compile(r"(?i)\b(?:" + alternation("comparative") + r")\b")
# A verdict of right or wrong on an earlier answer.
CORRECTNESS = re.compile(r"(?i)\b(?:" + alternation("correctness") + r")\b")
# The target's own earlier answer, and a quoted text: "Your phrase answer", "your choice", then
# "'crochet hook'". Read by the verdicts on a quoted answer and by the exemption for praise of form,
# which never applies where an answer is quoted.
YOUR_ANSWER = r"\byour\s+(?:[\w-]+\s+){0,3}?(?:answer|response|choice|term|pick|guess|reply)\b"
QUOTED = r"['‘\"“][^'’\"”]{1,60}['’\"”]"
# Study instructions: what follows asks the target to work something out, not a verdict.
# Advice offered as help: "It may help to consider how ...", "You might want to review ...".
AS_HELP = (
    r"(?:it\s+(?:may|might|will|would|can|should)\s+help(?:\s+you)?|it\s+helps|it\s+is\s+worth\s+trying|"
    r"you\s+(?:may|might)\s+want|try)\s+to\s+"
)
_STUDY = re.compile(
    r"(?i)^\s*(?:(?:first|also|then|now|so),?\s+)?"
    r"(?:" + AS_HELP + r")?"
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


_IN_TURN = re.compile(r"(?i)\b(?:in\s+turn|one\s+at\s+a\s+time|one\s+by\s+one|each\s+in\s+turn)\b")
_ORDER_WORDS = re.compile(r"(?i)\b(?:first|last|then|next|start|starts)\b")


def judgement(sentence: str, refs: list[OptionRef]) -> str | None:
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
CONFUSION_WARNING = re.compile(
    r"(?i)\b(?:is|are|gets?|get)\s+(?:often\s+|commonly\s+|easily\s+|sometimes\s+|frequently\s+)?(?:confused|mixed\s+up|conflated)\s+with\b"
    r"|\b(?:it\s+is|it['’]s)\s+(?:easy|common|tempting)\s+to\s+(?:confuse|mix\s+up|conflate)\b"
    r"|\b(?:a\s+)?common\s+(?:slip|mistake|error|trap|confusion)\s+is\s+(?:to\s+)?(?:confus\w*|mix\w*\s+up|conflat\w*)\b"
    r"|\b(?:don['’]t|do\s+not|never|not\s+to|avoid)\s+(?:confus\w*|mix(?:ing)?\s+up|conflat\w*)\b"
    r"|\b(?:students|people|candidates|learners|readers|many|some|you|we)\s+(?:often\s+|commonly\s+|easily\s+|sometimes\s+|frequently\s+|"
    r"tend\s+to\s+|may\s+|might\s+)?(?:confuse|mix\s+up|conflate)\b"
    # "Keep 'hold short', 'line up and wait' and 'cleared to cross' clearly separate in your head"
    r"|^\s*keep\b[^.;]{0,120}?\b(?:clearly\s+|firmly\s+)?(?:separate|apart|distinct)\s+in\s+your\s+(?:head|mind)\b"
    # "Keep apart the idea of a stitch and the idea of a ground"
    r"|^\s*keep\s+(?:clearly\s+|firmly\s+)?apart\b"
)


def study(sentence: str) -> bool:
    """A study instruction, or a warning against confusing two ideas: it asks the target to
    work something out, and judges no option."""
    return _STUDY.search(sentence) is not None or CONFUSION_WARNING.search(sentence) is not None


def in_list(sentence: str, refs: list[OptionRef]) -> bool:
    """Two or more options of one question named side by side ("A, B and C"), or one named in a
    sentence that holds a list of three or more things ("adrenaline, antihistamines and
    corticosteroids"): where the answer stated outright is never doubted, a list anywhere in the
    sentence is enough to pass it."""
    if len({r.letter for r in refs}) >= 2:
        return True
    return sentence.count(",") >= 1 and re.search(r"(?i),\s+(?:and|or)\b|\b(?:and|or)\b", sentence) is not None


def in_the_list(sentence: str, refs: list[OptionRef]) -> bool:
    """:func:`in_list`, with the one option named standing in the list itself, a list word beside
    it: "The stars were alike, and only classical Cepheids match that" holds a list word, but
    names the option alone."""
    if len({r.letter for r in refs}) >= 2:
        return True
    if not in_list(sentence, refs):
        return False
    text = fold(sentence)
    return any(_BEFORE_ITEM.search(text[: r.start]) or _AFTER_ITEM.match(text, r.end) for r in refs)


# An item may run a few words beyond the mention ("load control" for "Loadsheet"), none of them
# a word that makes a claim ("..., and only classical Cepheids match").
_ITEM_WORD = r"(?!(?:only|just|not|no|never|also|even|clearly|really|is|are|was|were|be|that|which|it|this|so|then)\b)[\w'’-]+"
_BEFORE_ITEM = re.compile(r"(?i)(?:,|\band|\bor|/|&)\s*(?:" + _ITEM_WORD + r"\s+){0,3}$")
_AFTER_ITEM = re.compile(r"(?i)(?:[\w'’-]*)(?:\s+" + _ITEM_WORD + r"){0,3}\s*(?:,|\band\b|\bor\b|/|&)")


# What may stand between two options of one list: "lithium, oxygen and neon", "the joule, the
# watt or the newton", "32, 48, 64, 128 and 256".
# (after an item, the noun the list calls each by: "the 6.5–7.0 band, the 7.5–8.3 band and ...")
_LIST_GAP = re.compile(
    r"(?i)^\s*(?:(?:band|range|value|figure|one|option|setting|level|dose|ratio|reading|claim|statement|explanation|account|idea|interpretation|version|choice)s?\s*)?"
    r"(?:,|/|&|\band\b|\bor\b|\bthen\b|,\s*(?:and|or|then)\b)?\s*(?:(?:the|an?)\s+)?[£$€¥]?\s*$"
)


def named_evenly(sentence: str, ref: OptionRef, refs: list[OptionRef], questions: list[Question]) -> bool:
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
    own = listed(sentence, [r for r in refs if r.question_id == q.id], q)
    if own is None or not any(r.letter == ref.letter and r.start <= ref.start and ref.end <= r.end for r in own):
        return False
    if {r.letter for r in own} == set(q.options) and len(own) == len(q.options):
        return True
    # ("Narrow it to Cu, Zn and Ag, and think about what each does": the shortlist is the leak)
    if NARROWED_TO.search(re.sub(r"\S+$", "", fold(sentence)[: own[0].start])):
        return False
    return (
        len(own) >= 2
        and _EACH.search(sentence) is not None
        and (study(sentence) or _WH.search(sentence) is not None or re.search(r"(?i)\bfor\s+each\b", sentence) is not None)
        and judgement(_without_options(sentence, own, questions), own) != "negative"
    )


# The choice said to lie between a few options, with "and" as well: "you're choosing between 120 °C
# and 190 °C", "the real contest is between chondrites and irons", "it comes down to 6 and 8", a
# shortlist of them. Not
# a comparison asked for ("weigh 64 against 128", "compare 64 and 128"), which narrows nothing.
NARROWED_TO = re.compile(
    r"(?i)(?:\b(?:choos(?:e|ing)|choice\s+is|contest\s+is|(?:it|answer)\s*(?:['’]s|is))\s+between"
    r"|\bcomes?\s+down\s+to|\b(?:narrow|whittle)(?:s|d|ed|ing)?\s+(?:(?:it|this|things|them|your\s+(?:thinking|list|choice|search))\s+)?(?:down\s+)?to"
    # "Narrow it to the three biotoxin syndromes — PSP, ASP or DSP"
    # ("Narrow it to three: portable amplifier, ...")
    r"(?:\s+(?:the\s+)?(?:two|three|four|2|3|4)(?:\s+(?:[\w-]+\s+){0,2}?[\w-]+)?\s*[—–:,-])?"
    # "your shortlist should really be just TOFC and RoLa", "confine yourself to two ranges, 0–5 °C and 20–25 °C"
    r"|\bshortlist\s*(?::|(?:should\s+(?:really\s+)?be|is)(?:\s+(?:just|only))?)"
    # "I'd shortlist DQ, DNF and the YC warning"
    r"|\bshortlist(?:s|ed|ing)?"
    # "the realistic candidates are the school hall and the move to Tuesday"
    r"|\b(?:realistic|real|only|remaining|serious|two|three)\s+(?:candidates|contenders)\s+(?:here\s+)?(?:are|remain)"
    # "The contenders are the RCT, ...", "I'd focus on three statements - ...", "The plausible range is ..."
    r"|^\s*(?:the\s+)?contenders\s+are"
    r"|\bfocus\s+on\s+(?:the\s+)?(?:two|three|four|2|3|4)\s+(?:[\w-]+\s+){0,2}?[\w-]+\s*[—–:,-]"
    r"|\b(?:plausible|likely|sensible|realistic)\s+(?:range|set)\s+(?:is|are)"
    # "the plausible answers are 20%, 25% and 33%": fewer than all, so the rest are out
    r"|\b(?:plausible|likely|sensible|credible|realistic)\s+(?:answers|options|choices|values|candidates)\s+(?:here\s+)?(?:are|remain)"
    r"|\bconfine\s+yourself\s+to(?:\s+(?:two|three|2|3)\s+[\w-]+\s*[,:]?)?"
    # "you'll find the answer among the middle three ranges, 90-105, 115-137 and 140-160"
    r"|\bthe\s+answer\s+(?:is\s+|lies\s+|sits\s+)?(?:among|within)\s+(?:the\s+)?(?:[\w-]+\s+){0,3}?(?:ranges|values|options|ones|figures|choices|bands)\s*[,:—–-])"
    r"\s+(?:the\s+)?$"
)


# A question put to every member of a list: "each", "every one", "in turn", "one at a time".
_EACH = re.compile(r"(?i)\b(?:each|every\s+one|in\s+turn|one\s+at\s+a\s+time|one\s+by\s+one)\b")


def listed(sentence: str, refs: list[OptionRef], q: Question) -> list[OptionRef] | None:
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
        pair = (q.options or {})[a.letter] + " " + (q.options or {})[b.letter]
        # (an option's own punctuation too: the rest of a range named by its first number, "3–6")
        allowed = set(tokens(pair)) | set(re.findall(r"[^\w\s,;]", pair))
        gap = " ".join(w for w in re.findall(r"[a-z0-9]+|[,;]|[^a-z0-9\s,;]+", text[a.end : b.start]) if stem(w) not in allowed) + " "
        if not _LIST_GAP.match(re.sub(r"\s+", " ", gap)):
            return None
    return own


def _without_options(sentence: str, refs: list[OptionRef], questions: list[Question]) -> str:
    """``sentence`` without the words that name options by their text (see :func:`option_words`)."""
    return strip_phrases(sentence, option_words(sentence, refs, questions))


def option_words(sentence: str, refs: list[OptionRef], questions: list[Question]) -> list[list[str]]:
    """The folded words of each mention of an option by its text: an option's own words ("Right
    coronary artery", "No change in the market") are what it is called, not a judgement of it.
    A mention reaches over the option's words beside it ("no" before "change")."""
    options: dict[tuple[str | None, str], str] = {(q.id, letter): text for q in questions for letter, text in (q.options or {}).items()}
    words = word_spans(sentence)
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


def strip_phrases(text: str, phrases: list[list[str]]) -> str:
    for phrase in phrases:
        text = compiled(r"(?i)(?<![\w'’])" + r"\W+".join(map(re.escape, phrase)) + r"(?![\w'’])").sub(" ", text)
    return text


# A question left open: "ask whether ...", "consider when ...". What its clause says of an option
# is what the target is to decide, not a verdict.
OPEN_CLAUSE = re.compile(
    r"(?i)\bwhether\b[^,;:]*"
    r"|\b(?:consider|review|recall|remember|ask(?:\s+yourself)?|know|learn|note|check|decide|think\s+about|work\s+out|revise)"
    r"\s+(?:when|whether|if)\b[^,;:]*"
)


def without_open_questions(sentence: str) -> str:
    """``sentence`` without its open questions (see :data:`OPEN_CLAUSE`)."""
    return OPEN_CLAUSE.sub(" ", sentence)

# In a study instruction ("Recall what a negative D-dimer can and cannot exclude") these
# words belong to the question the target is asked to answer, not to a verdict.
_WEAK = re.compile(r"(?i)\b(?:" + alternation("weak_judgements") + r")\b")


def only_weak(sentence: str) -> bool:
    """Whether every judgement word of a study instruction is one that questions use too."""
    text = _NEUTRAL_NEGATION.sub(" ", sentence)
    text = _WEAK.sub(" ", text)
    return not (_NEGATIVE.search(text) or _POSITIVE.search(text) or _COMPARATIVE.search(text))
