"""The shapes of what a run writes: one line of records.jsonl per finished unit, and what every
metrics.json reports beside its protocol's figures.

Read this file to know a run folder without reading the code that writes it. Every shape is a
pydantic model that both sides use: a writer builds one, the engine writes it
(:meth:`JsonModel.to_json`) and reads it back (``model_validate``), and every reader (the
metrics, the report, ``compare``, the sweep, the estimate) gets the model, not a dict. A
renamed field is then a type error, not a silent ``None``.

Two rules keep every run folder ever written readable, and the lines on disk the shape they
always had:
- a field that older runs lack has a default, and an unknown key is kept (``extra="allow"``),
  so a record read and written again loses nothing;
- a field that only some records carry (a round's ``counted_as``, a leak check's
  ``check_failed``, an adaptive bank step's ``theta``) is declared with :func:`omittable`: it
  is written only when the writer set it (or the line it was read from had it), so it stays
  absent from the others, as it was. Every other field is always written.

A protocol's own record model (KIEval's dialogue, the interviewer's attempts, the probe's
generated questions) lives in its protocol's module and subclasses :class:`UnitRecord`.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any, Self, TypeAlias, TypedDict, TypeVar
from typing import Protocol as TypingProtocol

from pydantic import BaseModel, ConfigDict, Field, JsonValue, TypeAdapter

Json: TypeAlias = dict[str, JsonValue]  # a JSON object at the edges (a file, a prompt's stand-in)


OMIT_UNSET = "omit_unset"


def omittable(default: Any = None) -> Any:
    """A field written only when it was set (see the module docstring)."""
    return Field(default=default, json_schema_extra={OMIT_UNSET: True})


class JsonModel(BaseModel):
    """Base of every shape written to a run folder: unknown keys kept, written as read."""

    model_config = ConfigDict(extra="allow")

    def model_post_init(self, context: Any, /) -> None:
        # Every field but the omittable ones counts as set, so ``exclude_unset`` writes it.
        self.__pydantic_fields_set__.update(_always_written(type(self)))

    def to_json(self) -> Json:
        """The JSON object this shape is written as (an omittable field only when it was set)."""
        return self.model_dump(mode="json", exclude_unset=True)

    @classmethod
    def from_json(cls, data: Mapping[str, object]) -> Self:
        return cls.model_validate(data)

    def fields(self) -> dict[str, Any]:
        """The declared fields only, as Python values: keyword arguments for the dataclass the
        record was made from (``Question(**record.fields())``)."""
        return {name: getattr(self, name) for name in type(self).model_fields}


@cache
def _always_written(cls: type[JsonModel]) -> frozenset[str]:
    return frozenset(name for name, f in cls.model_fields.items() if not (isinstance(f.json_schema_extra, dict) and f.json_schema_extra.get(OMIT_UNSET)))


class _Dumps(TypingProtocol):
    def to_dict(self) -> Mapping[str, object]: ...


T = TypeVar("T")


def read_figures(cls: type[T], data: object) -> T:
    """A block of metrics.json as the figures dataclass (or model) that wrote it; keys the
    class does not know (a later version's) are ignored."""
    return TypeAdapter(cls).validate_python(data)


# ----------------------------------------------------------------------------- shared parts
class QuestionRecord(JsonModel):
    """A question as asked (``data.benchmark.Question.to_dict``)."""

    id: str
    question: str
    answer: str
    options: dict[str, str] | None = None
    difficulty: str | None = None
    doc_id: str | None = None
    meta: dict[str, JsonValue] = Field(default_factory=dict)

    @classmethod
    def of(cls, question: _Dumps) -> QuestionRecord:
        """The record of a ``Question`` (its every field set: the line keeps its shape)."""
        return cls.model_validate(question.to_dict())

    @property
    def answer_text(self) -> str:
        """The answer as words: the correct option's text for MC, the phrase for KQA."""
        return self.options.get(self.answer, self.answer) if self.options else self.answer


class AnswerRecord(JsonModel):
    """A graded answer (``stages.grading.Answer.to_dict``). A call that brought no answer is
    never one of these: its unit is left incomplete instead."""

    question_id: str
    correct: bool
    reply: str | None = None  # what the target wrote
    chosen: str | None = None  # the option letter (MC) or the normalised phrase (QA)
    graded_by: str = "none"  # "letter" | "exact" | "f1" | "yes/no" | "null" | "judge" | "none"
    error: str | None = None
    em: bool | None = None
    f1: float | None = None
    judge_verdict: str | None = None

    @classmethod
    def of(cls, answer: _Dumps) -> AnswerRecord:
        return cls.model_validate(answer.to_dict())


def flags(answers: list[AnswerRecord]) -> list[bool]:
    """Right or wrong, answer by answer."""
    return [a.correct for a in answers]


class MatchedEntity(JsonModel):
    """A name extracted from the seeds, and the graph entity it was matched to."""

    query: str
    entity: str
    similarity: float


class PathStepRecord(JsonModel):
    """One (entity, chunk) pair of a knowledge path, with the chunk's text, and what connects
    its entity to the previous step's (``graph.sampler.PathStep``: recorded for the audit;
    the first step, and the steps of paths written before, have none)."""

    entity: str = ""
    chunk_id: str = ""
    text: str = ""
    via: str | None = omittable()  # "chunk" | "jump" | "random"
    via_chunk: str | None = omittable()  # via "chunk": the previous step's chunk, which holds both entities
    edge: str | None = omittable()  # the graph's edge between the two entities: "strong" | "weak" | None
    edge_weight: int | None = omittable()


class PathRecord(JsonModel):
    """A knowledge path (or a round's window of one), as ``KnowledgePath.to_dict`` writes it."""

    start: str | None = None
    steps: list[PathStepRecord] = Field(default_factory=list)

    @property
    def texts(self) -> list[str]:
        return [s.text for s in self.steps]

    @property
    def entities(self) -> list[str]:
        return [s.entity for s in self.steps]


class GateCheckRecord(JsonModel):
    passed: bool | None = None  # None: not run
    reason: str = ""


class GateRecord(JsonModel):
    """The quality gate's verdict on one generated question (``GateVerdict.to_dict``)."""

    passed: bool = False
    single_hop: bool = False
    checks: dict[str, GateCheckRecord] = Field(default_factory=dict)


class GenerationAttempt(JsonModel):
    """One try at writing a follow-up: it passed, or why it failed (and, when the quality gate
    judged it, the gate's verdict)."""

    ok: bool = omittable(False)
    error: str | None = omittable()
    gate: GateRecord | None = omittable()
    question: QuestionRecord | None = omittable()  # a gate-rejected question, key at its letter (not in runs before the audit)

    @property
    def reached_gate(self) -> bool:
        """The gate's judge was asked about it (its answerable check ran)."""
        check = self.gate.checks.get("answerable") if self.gate is not None else None
        return check is not None and check.passed is not None


class LeakFindingRecord(JsonModel):
    """One way a piece of advice gave an answer away, as written
    (:meth:`judgeagent.stages.leak_finding.LeakFinding.to_dict`)."""

    question_id: str | None = ""  # None: no one question's (a letter stated that is no correct one, "D.")
    kind: str = ""
    evidence: str = ""


class LeakRecord(JsonModel):
    """The leakage guard's check of one piece of advice (``stages.leakage.LeakCheck.to_dict``)."""

    suggestions: str = ""  # the text the target is re-asked with
    leaks_before: list[LeakFindingRecord] = Field(default_factory=list)
    rewritten: bool = False
    leaks_after: list[LeakFindingRecord] = Field(default_factory=list)
    flagged: bool = False
    rewrite_error: str | None = None
    mode: str = "rules"  # "rules" | "judge" | "off"
    judge_before: list[Json] = Field(default_factory=list)  # the judge's verdicts (stages.leak_judge.JudgeVerdict)
    judge_after: list[Json] = Field(default_factory=list)
    check_failed: bool = omittable(False)  # only checks by the guard that fails closed carry it
    guard_version: int | None = omittable()

    @classmethod
    def of(cls, check: _Dumps) -> LeakRecord:
        return cls.model_validate(check.to_dict())


class Evaluation(JsonModel):
    """The judge's four-field evaluation of a batch (docs/concepts/method.md §4)."""

    flaws_knowledge: str = ""
    flaws_capability: str = ""
    comprehensive_performance: str = ""
    suggestions: str = ""


class Controls(JsonModel):
    """The two control re-asks beside the one with suggestions: none, and a placebo."""

    plain: list[AnswerRecord] = Field(default_factory=list)
    placebo: list[AnswerRecord] = Field(default_factory=list)
    placebo_text: str = ""

    def answers(self, name: str) -> list[AnswerRecord]:
        return self.plain if name == "plain" else self.placebo


class FollowUpRecord(JsonModel):
    """A follow-up written from a path window, asked and graded (or why none was): an
    interview's round, an escalation's rung, a contamination probe's question."""

    level: str = ""
    path: PathRecord | None = None  # the KnowledgePath window
    skipped: str | None = None  # why no question was asked
    question: QuestionRecord | None = None
    answer: AnswerRecord | None = None
    # How it was written and the gate's verdict: absent when there was no path to write from.
    generation_attempts: list[GenerationAttempt] | None = omittable()
    gate: GateRecord | None = omittable()
    counted_as: str | None = omittable()  # an interview's: a Hard question one chunk answers counts as Medium

    @property
    def reported_level(self) -> str:
        """The level the follow-up is reported at (``counted_as`` when the gate demoted it)."""
        return self.counted_as or self.level

    @property
    def banked(self) -> bool:
        """Asked, answered and passed by the gate: a question-bank item."""
        return self.question is not None and self.answer is not None and self.gate is not None and self.gate.passed


class RoundRecord(FollowUpRecord):
    """One extension round of an interview (or rung of an escalation)."""

    round: int = 0
    score_after: float | None = omittable()  # the difficulty controller's score after it (an interview's)


class ValidationRecord(JsonModel):
    """Feedback after ``after_round`` rounds, and the seeds re-asked with its suggestions."""

    after_round: int = 0
    evaluation: Evaluation | None = None
    evaluation_error: str | None = None
    reasked: bool = False
    leak: LeakRecord | None = None
    reanswers: list[AnswerRecord] = Field(default_factory=list)
    controls: Controls | None = None

    @property
    def suggestions(self) -> str | None:
        """The suggestions as re-asked (the guarded text) when they were, else as written."""
        if self.leak is not None:
            return self.leak.suggestions
        return (self.evaluation.suggestions if self.evaluation is not None else None) or None


class RewriteRecord(JsonModel):
    """A decontaminated seed: the original, the rewrite and whether it passed its checks."""

    mode: str
    ok: bool
    error: str | None = None
    original: QuestionRecord
    question: QuestionRecord


# ----------------------------------------------------------------------------- records
class UnitRecord(JsonModel):
    """What the engine reads of every record: the unit it finished, and where it sorts."""

    batch_id: str = ""
    batch_index: int = 0

    @property
    def unit_id(self) -> str:
        """The id of the unit this record finishes (what a rerun skips)."""
        return self.batch_id


class SeedsRecord(UnitRecord):
    """A record of seed questions: the seeds and their graph match."""

    seed: list[QuestionRecord] = Field(default_factory=list)
    matched_entities: list[MatchedEntity] = Field(default_factory=list)
    start_entity: str | None = None

    @property
    def entities(self) -> set[str]:
        """The graph entities the unit touches: its seeds' matches and its path's start."""
        return {m.entity for m in self.matched_entities} | ({self.start_entity} if self.start_entity else set())


class GradedSeedsRecord(SeedsRecord):
    """... and the target's first answers to them."""

    seed_answers: list[AnswerRecord] = Field(default_factory=list)


class InterviewRecord(GradedSeedsRecord):
    """``--protocol judgeagent``: one batch under one arm (``setting``)."""

    setting: str = "full"
    rounds: list[RoundRecord] = Field(default_factory=list)
    trajectory: list[float] = Field(default_factory=list)
    final_level: str = "medium"
    validations: list[ValidationRecord] = Field(default_factory=list)
    decontamination: list[RewriteRecord] | None = omittable()  # with --decontaminate

    @property
    def last(self) -> ValidationRecord:
        """The last validation: the figures' ACC2 comes from it."""
        return self.validations[-1] if self.validations else ValidationRecord()

    @property
    def asked(self) -> list[RoundRecord]:
        """The rounds whose follow-up was asked and answered."""
        return [rd for rd in self.rounds if rd.question is not None and rd.answer is not None]


class SeedUnitRecord(SeedsRecord):
    """``kieval``, ``interviewer``, ``escalate``: one seed question, with the protocol's own part
    (each protocol's subclass adds it)."""

    setting: str = "full"
    protocol: str = ""


class AbilityRecord(JsonModel):
    """An adaptive bank test's end, carried by its last step."""

    theta: float | None = None
    se: float | None = None
    stop_reason: str | None = None


class BankItemRecord(UnitRecord):
    """``bank``: one item asked (an adaptive test adds step, information, theta, se)."""

    item_id: str
    level: str | None = None
    qtype: str = ""
    question: str = ""
    options: dict[str, str] | None = None
    answer: str = ""
    graph_hash: str | None = None
    target_answer: AnswerRecord
    correct: bool
    # An adaptive test's step: its number, the item's information and the ability after it;
    # its last step also carries the test's end.
    step: int | None = omittable()
    information: float | None = omittable()
    theta: float | None = omittable()
    se: float | None = omittable()
    final: AbilityRecord | None = omittable()

    @property
    def unit_id(self) -> str:
        return self.item_id


# ----------------------------------------------------------------------------- bookkeeping
class IncompleteEntry(JsonModel):
    """One line of incomplete.json: the unit a call left without an answer, and why."""

    batch_id: str
    batch_index: int
    model: str
    stage: str
    kind: str  # a FailureKind value, or "unreadable verdict"
    message: str

    @property
    def reason(self) -> str:
        return f"{self.kind} ({self.model}, {self.stage})"


class IncompleteSummary(TypedDict):
    """metrics.json "incomplete": the units left out of every figure, and a count per reason."""

    n_batches: int
    batch_ids: list[str]
    reasons: dict[str, int]


class Bookkeeping(TypedDict):
    """What every metrics.json reports beside its protocol's figures (the engine adds it)."""

    incomplete: IncompleteSummary
    llm_usage: dict[str, object]  # this session's requests, tokens, cost; "run_total" over every session
    complete: bool  # every unit finished: nothing stopped the run, no call went unanswered
    status: str  # complete | incomplete | nothing_answered: what the exit code says (judgeagent/exits.py)
    timings: dict[str, float]  # seconds per step: preflight_s, plan_s, prime_s, interview_s, …
