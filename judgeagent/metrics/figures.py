"""The blocks of a JudgeAgent run's metrics.json, as the terminal, the report, ``compare`` and the
sweep read them: one model per block, so a renamed figure is a type error, not a silent dash.

metrics.json is written from plain dicts (:mod:`judgeagent.metrics.summary` and the engine's
bookkeeping) and read back through :class:`InterviewFigures`. Every field has a default: a
run written before a figure existed reads as "not measured", and a key these models do not
know (a later version's) is kept, not refused.
"""

from __future__ import annotations

from pydantic import Field

from judgeagent.records import JsonModel


class PaperFigures(JsonModel):
    """The paper's figures over N seed questions, in percent (None: nothing was measured)."""

    n_questions: int = 0
    acc1: float | None = None
    acc2: float | None = None
    cr: float | None = None
    cte: float | None = None
    delta_acc: float | None = None
    cr_given_wrong: float | None = None
    cte_given_right: float | None = None


def paper_values(m: PaperFigures) -> dict[str, float | None]:
    """The paper's figures by their metrics.json names (what ``compare`` puts in its columns)."""
    return {"acc1": m.acc1, "acc2": m.acc2, "cr": m.cr, "cte": m.cte, "delta_acc": m.delta_acc,
            "cr_given_wrong": m.cr_given_wrong, "cte_given_right": m.cte_given_right}


class RoundFigures(PaperFigures):
    """With --eval-every-round: the figures when the feedback came after ``after_round`` rounds."""

    after_round: int = 0


class LevelAccuracy(JsonModel):
    """The target on the follow-ups of one generated difficulty."""

    n: int = 0
    correct: int = 0
    accuracy: float | None = None


class Extension(JsonModel):
    rounds: int = 0
    asked: int = 0
    skipped: int = 0
    skip_reasons: list[str] = Field(default_factory=list)


class Intervals(JsonModel):
    """95% bootstrap intervals of ACC1, ACC2 and ΔACC, and what was resampled."""

    acc1: tuple[float, float] | None = None
    acc2: tuple[float, float] | None = None
    delta_acc: tuple[float, float] | None = None
    ci_method: str | None = None  # "batch_bootstrap"; older runs resampled questions
    n_batches: int | None = None
    thin: bool = False  # too few batches to resample: each interval is its figure's whole range
    note: str | None = None  # why, in one line

    @property
    def over_batches(self) -> bool:
        return self.ci_method == "batch_bootstrap"

    def of(self, key: str) -> tuple[float, float] | None:
        return {"acc1": self.acc1, "acc2": self.acc2, "delta_acc": self.delta_acc}.get(key)


class DesignEffect(JsonModel):
    delta_acc: float | None = None


class Permutation(JsonModel):
    """The batch sign-flip test of ΔACC against one comparison."""

    p_value: float = 1.0
    n_batches: int = 0
    n_nonzero: int = 0
    method: str = ""
    n_permutations: int = 0


class McNemar(JsonModel):
    """The exact McNemar test against one comparison (questions taken as independent)."""

    p_value: float = 1.0
    b: int = 0
    c: int = 0
    n_discordant: int = 0


class Control(JsonModel):
    acc: float | None = None
    delta_acc: float | None = None
    cr: float | None = None
    cte: float | None = None


class Controls(JsonModel):
    """The plain and placebo re-asks, and how far ACC2 is above each."""

    plain: Control | None = None
    placebo: Control | None = None
    suggestions_minus_plain: float | None = None
    suggestions_minus_placebo: float | None = None

    def named(self, name: str) -> tuple[Control | None, float | None]:
        """(the control, ACC2 minus its accuracy) of "plain" or "placebo"."""
        if name == "plain":
            return self.plain, self.suggestions_minus_plain
        return self.placebo, self.suggestions_minus_placebo


class LeakFree(JsonModel):
    n_batches: int = 0
    n_questions: int = 0
    acc1: float | None = None
    acc2: float | None = None
    delta_acc: float | None = None


class Leakage(JsonModel):
    """How often the suggestions gave answers away, and ACC2 without those batches."""

    batches_checked: int = 0
    batches_leaking: int = 0
    batches_rewritten: int = 0
    batches_flagged: int = 0
    batches_check_failed: int | None = None  # only runs whose guard fails closed
    leak_kinds: dict[str, int] = Field(default_factory=dict)
    leak_free: LeakFree = Field(default_factory=LeakFree)


class GateCheck(JsonModel):
    run: int = 0
    passed: int = 0
    pass_rate: float | None = None


class Gate(JsonModel):
    """The quality gate's checks over every generated question tried."""

    checks: dict[str, GateCheck] = Field(default_factory=dict)
    evaluations: int = 0
    questions_passed: int = 0
    questions_skipped: int = 0
    single_hop: int = 0


class Decontamination(JsonModel):
    mode: str = ""
    rewritten: int = 0
    kept_original: int = 0


class Incomplete(JsonModel):
    """The units left out of every figure, and a count per reason."""

    n_batches: int = 0
    batch_ids: list[str] = Field(default_factory=list)
    reasons: dict[str, int] = Field(default_factory=dict)


class UsageFigures(JsonModel):
    """Requests, tokens, cost and latency of one stage, one model or the whole session."""

    requests: int = 0
    cached: int = 0
    http_requests: int = 0
    prompt_tokens: int = 0
    cached_share: float | None = None
    completion_tokens: int = 0
    cost_usd: float = 0.0
    latency_p50_s: float | None = None
    latency_p95_s: float | None = None


class Usage(JsonModel):
    """llm_usage: this session's requests by stage and model, and in all."""

    total: UsageFigures | None = None
    stages: dict[str, UsageFigures] = Field(default_factory=dict)
    models: dict[str, UsageFigures] = Field(default_factory=dict)


class RunFigures(JsonModel):
    """What every metrics.json reports beside its protocol's figures (the engine's bookkeeping)."""

    protocol: str | None = None
    complete: bool | None = None
    status: str | None = None  # complete | incomplete | nothing_answered (judgeagent/exits.py); None in older runs
    incomplete: Incomplete = Field(default_factory=Incomplete)
    llm_usage: Usage = Field(default_factory=Usage)
    timings: dict[str, float] = Field(default_factory=dict)


class ReaskFigures(JsonModel):
    """Appendix E.2, --reask-extended: the follow-ups' figures with the seeds' beside them."""

    followups: PaperFigures = Field(default_factory=PaperFigures)
    seeds: PaperFigures = Field(default_factory=PaperFigures)
    batches_flagged: int = 0
    incomplete_batches: list[str] = Field(default_factory=list)


class PlaceboFigures(JsonModel):
    acc: float | None = None
    delta_acc: float | None = None
    ci_delta_acc: tuple[float, float] | None = None


class Difference(JsonModel):
    delta: float | None = None
    ci: tuple[float, float] | None = None


class TransferFigures(PaperFigures):
    """Appendix E.2, --transfer: held-out ACC1 → ACC2 with a source batch's suggestions, and a placebo's."""

    error: str | None = None
    n_batches: int = 0
    source: list[str] = Field(default_factory=list)
    held_out: list[str] = Field(default_factory=list)
    ci_delta_acc: tuple[float, float] | None = None
    note: str | None = None  # why ci_delta_acc is the whole range, when it rests on too few batches
    placebo: PlaceboFigures = Field(default_factory=PlaceboFigures)
    suggestions_minus_placebo: Difference = Field(default_factory=Difference)


class InterviewFigures(RunFigures, PaperFigures):
    """A JudgeAgent run's metrics.json (one arm's, for an ablation)."""

    n_batches: int = 0
    by_difficulty: dict[str, PaperFigures] = Field(default_factory=dict)
    by_round: list[RoundFigures] = Field(default_factory=list)
    extension_accuracy: dict[str, LevelAccuracy] = Field(default_factory=dict)
    extension: Extension = Field(default_factory=Extension)
    trajectories: dict[str, list[float]] = Field(default_factory=dict)
    evaluation_failures: int = 0
    answer_errors: int = 0
    ci: Intervals | None = None
    ci_naive: Intervals | None = None
    design_effect: DesignEffect | None = None
    permutation: dict[str, Permutation] = Field(default_factory=dict)
    mcnemar: dict[str, McNemar] = Field(default_factory=dict)
    controls: Controls = Field(default_factory=Controls)
    leakage: Leakage = Field(default_factory=Leakage)
    gate: Gate = Field(default_factory=Gate)
    decontamination: Decontamination | None = None
    ablation: str | None = None  # "see ablation.json"
    reask_extended: ReaskFigures | None = None
    transfer: TransferFigures | None = None


class Ablation(JsonModel):
    """ablation.json: each arm's metrics."""

    settings: list[str] = Field(default_factory=list)
    metrics: dict[str, InterviewFigures] = Field(default_factory=dict)
