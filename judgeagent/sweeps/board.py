"""leaderboard.json as a model: :mod:`judgeagent.sweeps.leaderboard` builds it, and every other
output (md, csv, tex, html), ``judgeagent validate`` and the Python API read it. A target's
row carries its figures only when its interview has some (a failed target's row names the
failure and nothing else, as the file always had it).
"""

from __future__ import annotations

from pydantic import Field

from judgeagent.metrics.audited import AuditBlock
from judgeagent.metrics.ranking import Agreement, DifficultyCheck, PairTest
from judgeagent.records import JsonModel, omittable


class LevelFigures(JsonModel):
    """Accuracy on one level's shared items (a shared-items run's by_level)."""

    n_items: int = 0
    correct: int = 0
    accuracy: float | None = None


class LevelAccuracy(JsonModel):
    """The target on its own interview's follow-ups of one level."""

    n: int = 0
    correct: int = 0
    accuracy: float | None = None


class TargetRow(JsonModel):
    """One target of the leaderboard, in rank order (failed targets last)."""

    name: str  # its label (``label=MODEL``), or the model's own name
    status: str
    error: str | None = None
    rank: int | None = None
    rank_label: str | None = None
    run_dir: str = ""
    shared_dir: str | None = None
    # A usable target's figures (its interview finished, perhaps with incomplete batches).
    model: str | None = omittable()  # the model behind the name
    shared_status: str | None = omittable()
    shared_error: str | None = omittable()
    acc1: float | None = omittable()
    acc1_ci: tuple[float, float] | None = omittable()
    acc2: float | None = omittable()
    delta_acc: float | None = omittable()
    delta_acc_ci: tuple[float, float] | None = omittable()
    n_seeds: int | None = omittable()
    n_batches: int | None = omittable()
    shared_accuracy: float | None = omittable()
    shared_n: int = omittable(0)
    shared_by_level: dict[str, LevelFigures] = omittable({})
    theta: float | None = omittable()
    theta_se: float | None = omittable()
    score: float | None = omittable()
    rank_interval: tuple[int, int] | None = omittable()
    extension_accuracy: dict[str, LevelAccuracy] = omittable({})


class Validity(JsonModel):
    """The ranking on the generated items against the seeds', and accuracy by level."""

    seed_vs_generated: Agreement | None = None
    difficulty: DifficultyCheck | None = None


class ItemMatrix(JsonModel):
    """targets × shared items, 1/0 (None: not answered), with each item's cluster and level."""

    targets: list[str] = Field(default_factory=list)
    items: list[str] = Field(default_factory=list)
    clusters: list[str] = Field(default_factory=list)
    levels: list[str | None] = Field(default_factory=list)
    correct: list[list[int | None]] = Field(default_factory=list)


class SeedMatrix(JsonModel):
    """targets × seed questions, 1/0 for each first answer, with each question's batch."""

    questions: list[str] = Field(default_factory=list)
    clusters: list[str] = Field(default_factory=list)
    correct: list[list[int | None]] = Field(default_factory=list)


class SharedAnswer(JsonModel):
    reply: str | None = None
    chosen: str | None = None
    correct: bool = False
    error: str | None = None


class Leaderboard(JsonModel):
    """leaderboard.json: every figure of a sweep."""

    version: int = 1
    judge: str = ""
    data: str = ""
    graph: str = ""
    ranked_on: str = ""
    n_shared_items: int = 0
    n_seed_questions: int = 0
    targets: list[TargetRow] = Field(default_factory=list)
    pairwise: list[PairTest] = Field(default_factory=list)
    pairwise_method: str = ""
    correction: str = ""
    validity: Validity = Field(default_factory=Validity)
    matrix: ItemMatrix = Field(default_factory=ItemMatrix)
    seed_matrix: SeedMatrix = Field(default_factory=SeedMatrix)
    n_bootstrap: int = 2000
    seed: int = 0
    answers: dict[str, dict[str, SharedAnswer]] = Field(default_factory=dict)  # target → item id → its answer
    interval_notes: list[str] = omittable([])  # intervals widened to their whole range: too few batches to resample
    audit: AuditBlock | None = omittable()  # `judgeagent audit import`: the shared items' audit, the comparison on the valid ones
