"""The rule layer of the leakage guard: give-aways that do not state the answer outright.

The target re-answers the very questions the advice was written for, so it gains from
anything that singles an option out, narrows its options, or says which of its answers were
right. Each rule is a declared entry (:class:`~judgeagent.stages.leak_rules.rule.Rule`): what
it catches, its matcher, its exemptions, and the leak and clean examples it exists for, with
where each came from. Where to look:

========================  ================================================================
``registry.py``           every rule, in the order a sentence is read; ``find_rule_leaks``
``options.py``            options named by letter, place or text, judged or singled out
``pointer.py``            the answer described, the writer's pick, a candidate kept
``elimination.py``        a candidate ruled out or negated
``disclosure.py``         verdicts on the target's earlier answers
``exemptions.py``         what is never a leak: form, praise of form, kind of answer, ...
``judgement.py``          the words that judge an option, and what is no judgement
``naming.py``             what a sentence names (the core: ``letters``, ``positions``,
                          ``numbers``, ``mentions``; ``questions`` for the batch's questions)
``text.py``               sentences, words, stems, how common a word is
``lists/``                the word lists, as data (``vocabulary.py`` reads them)
``examples.py``           the invented batches the examples are read against
========================  ================================================================

Each finding is a :class:`~judgeagent.stages.leak_finding.LeakFinding` whose ``kind`` is the
kind of leak the rule found.
"""

from __future__ import annotations

from judgeagent.stages.leak_rules.exemptions import names_kind_of_answer, only_form, only_the_kind_asked, praise_of_form
from judgeagent.stages.leak_rules.judgement import in_list
from judgeagent.stages.leak_rules.letters import names_something_else
from judgeagent.stages.leak_rules.mentions import mentions_phrase, names_option, states_option
from judgeagent.stages.leak_rules.naming import option_refs
from judgeagent.stages.leak_rules.registry import KINDS as RULES
from judgeagent.stages.leak_rules.registry import find_rule_leaks
from judgeagent.stages.leak_rules.text import compiled, identifying, sentences, whole_sentences

__all__ = [
    "RULES",
    "compiled",
    "find_rule_leaks",
    "identifying",
    "in_list",
    "mentions_phrase",
    "names_kind_of_answer",
    "names_option",
    "names_something_else",
    "only_form",
    "only_the_kind_asked",
    "option_refs",
    "praise_of_form",
    "sentences",
    "whole_sentences",
    "states_option",
]
