"""The shapes of what a run writes: one line of records.jsonl per finished unit, and what every
metrics.json reports beside its protocol's figures.

Read this file to know a run folder without reading the code that writes it. The records are
JSON lines, so these are TypedDicts: the writers build plain dicts (cheap to write, replay and
read back), and the type checker holds them to these shapes.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict


class QuestionRecord(TypedDict):
    """A question as asked (``data.benchmark.Question.to_dict``)."""

    id: str
    question: str
    options: dict[str, str] | None
    answer: str
    difficulty: str | None
    doc_id: str | None
    meta: dict[str, Any]


class AnswerRecord(TypedDict):
    """A graded answer (``stages.grading.Answer.to_dict``). A call that brought no answer is
    never one of these: its unit is left incomplete instead."""

    question_id: str
    reply: str | None  # what the target wrote
    chosen: str | None  # the option letter (MC) or the normalised phrase (QA)
    correct: bool
    graded_by: str  # "letter" | "exact" | "f1" | "yes/no" | "null" | "judge" | "none"
    error: str | None
    em: bool | None
    f1: float | None
    judge_verdict: str | None


class MatchedEntity(TypedDict):
    query: str
    entity: str
    similarity: float


class UnitHead(TypedDict):
    """What every record of seed questions starts with (``interview.record_head``)."""

    batch_id: str
    batch_index: int
    seed: list[QuestionRecord]
    seed_answers: list[AnswerRecord]
    matched_entities: list[MatchedEntity]
    start_entity: str | None


class GenerationAttempt(TypedDict):
    """One try at writing a follow-up: it passed, or why it failed (and, when the quality
    gate judged it, the gate's verdict; when the gate rejected it, the question itself)."""

    ok: NotRequired[bool]
    error: NotRequired[str]
    gate: NotRequired[dict]
    question: NotRequired[QuestionRecord]  # a gate-rejected question, key at its letter (not in runs before the audit)


class RoundRecord(TypedDict):
    """One extension round: the follow-up written from a path window, asked and graded."""

    round: int
    level: str
    path: dict | None  # the KnowledgePath window, as KnowledgePath.to_dict gives it
    skipped: str | None  # why no question was asked
    question: QuestionRecord | None
    answer: AnswerRecord | None
    score_after: NotRequired[float | None]  # the difficulty controller's score after it
    counted_as: NotRequired[str]  # a Hard question one chunk answers counts as Medium
    generation_attempts: NotRequired[list[GenerationAttempt]]
    gate: NotRequired[dict | None]


class ValidationRecord(TypedDict):
    """Feedback after ``after_round`` rounds, and the seeds re-asked with its suggestions."""

    after_round: int
    evaluation: dict | None  # flaws_knowledge, flaws_capability, comprehensive_performance, suggestions
    evaluation_error: str | None
    reasked: bool
    leak: dict | None  # the leakage guard's check (stages.leakage.LeakCheck.to_dict)
    reanswers: list[AnswerRecord]
    controls: dict | None  # plain and placebo re-asks


class InterviewRecord(UnitHead):
    """``--protocol judgeagent``: one batch under one arm (``setting``)."""

    setting: str
    rounds: list[RoundRecord]
    trajectory: list[float]
    final_level: str
    validations: list[ValidationRecord]
    decontamination: NotRequired[list[dict]]


class SeedUnitRecord(TypedDict):
    """``kieval``, ``interviewer``, ``escalate``: one seed question, with the protocol's own
    part under its key (``dialogue``, ``interview``; ``escalate`` spreads its fields)."""

    setting: str
    protocol: str
    batch_id: str
    batch_index: int
    seed: list[QuestionRecord]
    matched_entities: list[MatchedEntity]
    start_entity: str | None


class ProbeRecord(UnitHead):
    """``contamination``: one batch's seeds and one generated question per seed."""

    generated: list[dict]  # seed_id, seed_difficulty, level, path, question, answer, skipped, …


class BankItemRecord(TypedDict):
    """``bank``: one item asked (an adaptive test adds step, information, theta, se)."""

    item_id: str
    level: str | None
    qtype: str
    question: str
    options: dict[str, str] | None
    answer: str
    graph_hash: str | None
    target_answer: AnswerRecord
    correct: bool
    batch_id: NotRequired[str]
    batch_index: NotRequired[int]


Record = InterviewRecord | SeedUnitRecord | ProbeRecord | BankItemRecord


class IncompleteEntry(TypedDict):
    """One line of incomplete.json: the unit a call left without an answer, and why."""

    batch_id: str
    batch_index: int
    model: str
    stage: str
    kind: str  # a FailureKind value, or "unreadable verdict"
    message: str


class IncompleteSummary(TypedDict):
    """metrics.json "incomplete": the units left out of every figure, and a count per reason."""

    n_batches: int
    batch_ids: list[str]
    reasons: dict[str, int]


class Bookkeeping(TypedDict):
    """What every metrics.json reports beside its protocol's figures (the engine adds it)."""

    incomplete: IncompleteSummary
    llm_usage: dict  # this session's requests, tokens, cost; "run_total" over every session
    complete: bool  # every unit finished: nothing stopped the run, no call went unanswered
    timings: dict[str, float]  # seconds per step: preflight_s, plan_s, prime_s, interview_s, …
