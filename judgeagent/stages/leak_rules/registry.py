"""Every rule of the guard's rule layer, in the order they read a sentence.

:data:`STEPS` is what :func:`find_rule_leaks` runs on each sentence; :data:`RULES` every such
rule entry, with its examples. :data:`TEXT_RULES` read the whole text first, question by question
(the answer stated outright: :mod:`~judgeagent.stages.leak_rules.answer`, run by
:func:`judgeagent.stages.leakage.find_leaks`). ``tests/test_leak_rules.py`` runs every example. To see what a rule is
for, read its entry: what it catches, its exemptions, and the texts it must and must not catch.
"""

from __future__ import annotations

import re

from judgeagent.data.benchmark import Question
from judgeagent.stages.leak_finding import LeakFinding
from judgeagent.stages.leak_rules.answer import ANSWER_RULES
from judgeagent.stages.leak_rules.disclosure import DISCLOSURE
from judgeagent.stages.leak_rules.elimination import CANDIDATE_NEGATED, CANDIDATE_RULED_OUT, COUNTED_SHORTLIST, NAMED_STRUCK_OUT
from judgeagent.stages.leak_rules.exemptions import EVEN_TREATMENT, EVEN_TREATMENT_WORDS
from judgeagent.stages.leak_rules.judgement import judgement
from judgeagent.stages.leak_rules.options import OPTION_RULES
from judgeagent.stages.leak_rules.pointer import ANOTHER_NAME, ANSWER_DESCRIBED, ANSWER_HEAD, CANDIDATE_KEPT, PICK_BEST_BET, PICK_LEAN, PICK_MINE
from judgeagent.stages.leak_rules.rule import FirstOf, Reading, Rule
from judgeagent.stages.leak_rules.text import sentences, unlabelled, whole_sentences

# The finding kinds of the rule layer (the answer stated outright is leakage.ANSWER_RULES').
KINDS = ("elimination", "disclosure", "verdict", "pointer", "pick", "narrowed", "struck_out")

STEPS = (
    DISCLOSURE,  # one disclosure per sentence, the first that finds one
    OPTION_RULES,  # options named, question by question
    CANDIDATE_NEGATED,
    NAMED_STRUCK_OUT,
    COUNTED_SHORTLIST,
    ANSWER_DESCRIBED,
    ANSWER_HEAD,
    ANOTHER_NAME,
    PICK_LEAN,
    PICK_BEST_BET,
    PICK_MINE,
    FirstOf("candidate verdict", (CANDIDATE_RULED_OUT, CANDIDATE_KEPT)),  # ruled out, else kept
)
RULES: tuple[Rule, ...] = tuple(rule for step in STEPS for rule in step.rules)
TEXT_RULES: tuple[Rule, ...] = ANSWER_RULES


def find_rule_leaks(suggestions: str, questions: list[Question]) -> list[LeakFinding]:
    """The ``elimination``, ``disclosure``, ``pointer``, ``pick``, ``narrowed``, ``struck_out`` and ``verdict`` findings in
    ``suggestions``, sentence by sentence, rule by rule (:data:`STEPS`). A pointer is dropped
    where its whole sentence treats the option as every other (:data:`EVEN_TREATMENT`) and its
    clause judges nothing."""
    leaks: list[LeakFinding] = []
    said: list[str] = []
    for whole in whole_sentences(suggestions):
        even = EVEN_TREATMENT.applies(whole)
        for sentence in sentences(whole):
            said.append(sentence)
            # read as written, and without the bullet or label that opens it ("- Your total is
            # wrong", "Q1: Your earlier answer wasn't right"), which the rules that read a
            # sentence from its start would take for its subject
            for text in dict.fromkeys((sentence, unlabelled(sentence))):
                if text.strip():
                    leaks += _findings(Reading(text, questions), even)
    # A short question the writer answers at once ("E. coli? Definitely not - ..."): the verdict is
    # on what the question names, so the two are read as one sentence.
    for asked, answered in zip(said, said[1:], strict=False):
        if asked.rstrip().endswith("?") and len(asked) <= _SHORT_QUESTION and _ANSWERED.match(answered):
            leaks += _findings(Reading(unlabelled(asked) + " " + answered, questions), False)
    return list(dict.fromkeys(leaks))


_SHORT_QUESTION = 80  # characters: a name or a phrase asked about, not a question of method
_ANSWERED = re.compile(
    r"(?i)^\s*(?:no|nope|yes|(?:definitely|certainly|absolutely|clearly)(?:\s+not)?|not\s+(?:a\s+chance|at\s+all|likely)|unlikely|never)\b"
)


def _findings(reading: Reading, even: bool) -> list[LeakFinding]:
    # (a clause that judges the option still points: "Option C is the one; treat it as the others")
    unjudged = even and judgement(EVEN_TREATMENT_WORDS.sub(" ", reading.sentence), reading.option_refs) is None
    return [d for step in STEPS for d in step.findings(reading) if not (unjudged and d.kind == "pointer")]


def rule(code: str) -> Rule:
    """The rule entry named ``code`` ("disclosure.quantified")."""
    return next(r for r in TEXT_RULES + RULES if r.code == code)
