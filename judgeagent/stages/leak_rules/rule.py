"""What a rule of the leakage guard is: a declared entry, with the examples it exists for.

A :class:`Rule` says what it catches, which kind of finding it gives, its matcher, the
:class:`Exemption` entries that make a sentence no leak for it whatever it matches, and its
examples: texts it must catch (``leaks``) and texts it must pass (``clean``), each with where it
came from. ``tests/test_leak_rules.py`` runs every example of every entry, so a change to a
pattern or a word list that breaks what a rule exists for fails there, with the rule's name.

The rules read one sentence at a time (a :class:`Reading`), in the order of
:data:`judgeagent.stages.leak_rules.registry.STEPS`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

from judgeagent.data.benchmark import Question
from judgeagent.stages.leak_finding import LeakFinding
from judgeagent.stages.leak_rules.naming import option_refs
from judgeagent.stages.leak_rules.questions import QuestionRef, question_refs
from judgeagent.stages.leak_rules.refs import OptionRef


@dataclass(frozen=True)
class Example:
    """A text a rule exists for, read against one of the example batches
    (:data:`judgeagent.stages.leak_rules.examples.BATCHES`).

    ``source`` says where it came from: the group of the leak corpus it was read from
    (``fresh20``: its writer wrote it, as a leak or as clean advice), the guard version that
    answered it (``guard 13``), or ``written for the rule`` (a plain case, written with the rule).
    """

    text: str
    source: str
    batch: str = "mc"


@dataclass
class Reading:
    """One sentence of advice against its batch, with what it names (worked out once, for every rule)."""

    sentence: str
    questions: list[Question]
    # what the rules of one kind work out once for all of them (options.py: the options named, judged)
    shared: dict = field(default_factory=dict)

    @cached_property
    def question_refs(self) -> list[QuestionRef]:
        return question_refs(self.sentence, self.questions)

    @cached_property
    def option_refs(self) -> list[OptionRef]:
        return option_refs(self.sentence, self.questions)


@dataclass(frozen=True)
class Exemption:
    """What makes a sentence no leak for the rules that list it, whatever they match."""

    name: str
    what: str
    applies: Callable[[str], bool]
    examples: tuple[Example, ...] = ()  # sentences it exempts


@dataclass(frozen=True)
class Rule:
    """One rule: a matcher over a sentence, its exemptions, and the examples it exists for."""

    code: str  # "disclosure.quantified": the module of its kind, then its name
    kinds: tuple[str, ...]  # the finding kinds it gives ("pointer", "elimination", "disclosure")
    catches: str  # what it catches, in a line
    matcher: Callable[[Reading], list[LeakFinding]]
    exemptions: tuple[Exemption, ...] = ()
    leaks: tuple[Example, ...] = ()
    clean: tuple[Example, ...] = ()

    def findings(self, reading: Reading) -> list[LeakFinding]:
        """The rule's findings in one sentence: none when an exemption applies."""
        if any(e.applies(reading.sentence) for e in self.exemptions):
            return []
        return self.matcher(reading)

    @property
    def rules(self) -> tuple[Rule, ...]:
        return (self,)


@dataclass(frozen=True)
class FirstOf:
    """Rules tried in order; the first that finds something gives the sentence's findings (one
    verdict per sentence: "your answer was wrong, the others are fine" is one disclosure)."""

    name: str
    rules: tuple[Rule, ...] = field(default_factory=tuple)

    def findings(self, reading: Reading) -> list[LeakFinding]:
        for rule in self.rules:
            found = rule.findings(reading)
            if found:
                return found
        return []


def finding(question_id: str | None, kind: str, evidence: str) -> LeakFinding:
    return LeakFinding(question_id, kind, evidence)
