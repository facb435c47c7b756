"""Read a run folder into one plain object. Nothing here calls a model or loads the graph:
the records already carry every path chunk's text."""

from __future__ import annotations

import datetime as _dt
import json
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from pydantic import Field, JsonValue

from judgeagent.config import DifficultyConfig
from judgeagent.engine.registry import registered
from judgeagent.engine.services import FinishedRun
from judgeagent.errors import JudgeAgentError
from judgeagent.metrics.figures import Ablation, InterviewFigures
from judgeagent.records import InterviewRecord, Json, JsonModel, SeedUnitRecord, UnitRecord, omittable


class SavedModel(JsonModel):
    """A model as config.json records it (written back as it was read: the audit keeps it)."""

    name: str | None = omittable()
    model: str | None = omittable()
    sampled: bool = omittable(False)
    reasoning: bool = omittable(False)

    @property
    def label(self) -> str | None:
        """What the model is called: its name, else the served model."""
        return self.name or self.model or None


class BenchmarkInfo(JsonModel):
    name: str | None = None
    format: str | None = None
    question_type: str | None = None
    n_questions: int | None = None


class GraphInfo(JsonModel):
    dir: str | None = None
    manifest_hash: str | None = None


class Arm(JsonModel):
    """One arm of the run (an ablation keeps four): which modules it switched off."""

    name: str = "full"
    no_graph: bool = False
    fixed_difficulty: str | None = None
    no_extension: bool = False


class Settings(JsonModel):
    """The run's identity (config.json "settings"): what the report names of it. A run made by
    the engine keeps its protocol's options under "options"; older runs kept them flat."""

    target: str | None = None
    judge: str | None = None
    data: str | None = None
    seed: int | None = None
    options: dict[str, JsonValue] = Field(default_factory=dict)
    settings: list[Arm] = Field(default_factory=list)
    ablation: bool = False  # a run before the engine: the command line's --ablation

    @property
    def main_arm(self) -> str:
        """The arm a run's figures are of: the first it kept (an ablation's full interview)."""
        return self.settings[0].name if self.settings else "full"

    @cached_property
    def interview(self) -> InterviewSettings:
        """The interview's options, wherever the run kept them."""
        flat = {k: v for k, v in (self.model_extra or {}).items() if k in InterviewSettings.model_fields}
        return InterviewSettings.model_validate(flat | {k: v for k, v in self.options.items() if k in InterviewSettings.model_fields})


class InterviewSettings(JsonModel):
    """The JudgeAgent interview's options the report shows (None: the run did not record it)."""

    batch_size: int | None = None
    rounds: int | None = None
    hops: int | None = None
    limit: int | None = None
    eval_every_round: bool = False
    reask_correct: bool = False
    no_graph: bool = False
    fixed_difficulty: str | None = None
    no_extension: bool = False
    difficulty: DifficultyConfig = Field(default_factory=DifficultyConfig)


class SavedEval(JsonModel):
    """The EvalConfig a run replays with (config.json "eval_config")."""

    options: dict[str, JsonValue] = Field(default_factory=dict)


class RunConfig(JsonModel):
    """config.json, as the report and the audit read it."""

    settings: Settings = Field(default_factory=Settings)
    protocol: str | None = None
    benchmark: BenchmarkInfo | None = None
    graph: GraphInfo | None = None
    models: dict[str, SavedModel] = Field(default_factory=dict)
    eval_config: SavedEval | None = None
    seed: int | None = None
    created: str | None = None
    date: str | None = None
    started: str | None = None

    @property
    def options(self) -> dict[str, JsonValue]:
        """The protocol's options, wherever the run kept them."""
        return (self.eval_config.options if self.eval_config else {}) or self.settings.options

    @property
    def question_type(self) -> str:
        return (self.benchmark.question_type if self.benchmark else None) or "kmc"


@dataclass
class Run(FinishedRun[UnitRecord]):
    """A finished run folder: its config and metrics as JSON (for its protocol's sections) and
    typed, and the report's setting's records through its protocol's record model."""

    summary: Json | None = None  # summary.json, when evaluate wrote one
    ablation: Ablation | None = None  # ablation.json, for an ``ablate`` run
    setting: str = "full"
    date: str = ""
    protocol: str = "judgeagent"

    # ---- the facts every section needs, with defaults for older or partial runs
    @cached_property
    def saved(self) -> RunConfig:
        return RunConfig.from_json(self.config)

    @cached_property
    def figures(self) -> InterviewFigures:
        """metrics.json as a JudgeAgent run's figures (the report's own document reads them)."""
        return InterviewFigures.from_json(self.metrics)

    @property
    def interviews(self) -> list[InterviewRecord]:
        """The records of a JudgeAgent run (none for another protocol's)."""
        return [r for r in self.records if isinstance(r, InterviewRecord)]

    @property
    def settings(self) -> Settings:
        return self.saved.settings

    @property
    def target(self) -> str:
        return _model_name(self.saved, "target") or str(self.settings.target or "?")

    @property
    def judge(self) -> str:
        return _model_name(self.saved, "judge") or str(self.settings.judge or "?")

    @property
    def data_name(self) -> str:
        bench = self.saved.benchmark
        return str((bench.name if bench else None) or Path(str(self.settings.data or "?")).name)

    @property
    def thresholds(self) -> tuple[float, float]:
        d = self.settings.interview.difficulty
        return d.t1, d.t2

    @property
    def audit_dropped(self) -> bool:
        """The run has an audit folder (the default one) but its metrics.json no audit block:
        a rerun that changed the records dropped it."""
        return "audit" not in self.metrics and (self.path / "audit" / "design.json").exists()

    @property
    def modules(self) -> Arm:
        """The module switches of the reported setting: an ablation run keeps one entry per
        setting in settings.settings, while the top-level flags are the command line's."""
        for arm in self.settings.settings:
            if arm.name == self.setting:
                return arm
        s = self.settings.interview
        return Arm(name=self.setting, no_graph=s.no_graph, fixed_difficulty=s.fixed_difficulty, no_extension=s.no_extension)


@dataclass
class AblationRun:
    path: Path
    config: Json
    settings: list[str]
    metrics: dict[str, InterviewFigures] = field(default_factory=dict)


def _model_name(config: RunConfig, role: str) -> str | None:
    m = config.models.get(role)
    return m.label if m else None


def _read_json(path: Path, what: str) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise JudgeAgentError(f"{path}: no {what} here; is {path.parent} a finished run folder?") from None
    except (OSError, json.JSONDecodeError) as e:
        raise JudgeAgentError(f"{path}: cannot read {what} ({e})") from None
    if not isinstance(data, dict):
        raise JudgeAgentError(f"{path}: {what} is not a JSON object")
    return data


def read_records(path: Path) -> list[Json]:
    """records.jsonl, skipping a torn last line (a killed run); other bad lines are errors."""
    if not path.exists():
        return []
    lines = path.read_text(encoding="utf-8").splitlines()
    out = []
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError as e:
            if i == len(lines):
                break
            raise JudgeAgentError(f"{path}:{i}: not a JSON record ({e.msg})") from None
    return out


def typed_records(folder: Path, protocol: str) -> list[UnitRecord]:
    """records.jsonl through its protocol's record model (the engine's base model for a
    protocol this version does not know)."""
    cls = registered().get(protocol)  # a seed set's writing too (protocol seeds)
    model = cls.records if cls is not None else UnitRecord
    return [model.from_json(r) for r in read_records(folder / "records.jsonl")]


def _run_date(folder: Path, config: Json) -> str:
    """When the run was made: config.json's own date if it has one, else the folder name's
    YYYY-MM-DD prefix, else config.json's modification date."""
    saved = RunConfig.from_json(config)
    for when in (saved.created, saved.date, saved.started):
        if when:
            return when
    m = re.match(r"(\d{4}-\d{2}-\d{2})", folder.name)
    if m:
        return m.group(1)
    try:
        return _dt.date.fromtimestamp((folder / "config.json").stat().st_mtime).isoformat()
    except OSError:
        return ""


def run_protocol(config: Json, metrics: Json) -> str:
    """The protocol that made a run (runs before the engine named none: the interview)."""
    for source in (config, metrics):
        name = source.get("protocol")
        if isinstance(name, str) and name:
            return name
    return "judgeagent"


def record_setting(record: UnitRecord) -> str:
    """The arm a record belongs to (only the JudgeAgent interview has several)."""
    return record.setting if isinstance(record, (InterviewRecord, SeedUnitRecord)) else "full"


def load_run(run_dir: Path | str, setting: str | None = None) -> Run:
    """The run in ``run_dir``. For an ablation run, ``setting`` picks one (default: the first)."""
    folder = Path(run_dir)
    if not folder.is_dir():
        raise JudgeAgentError(f"{folder}: no such run folder")
    config = _read_json(folder / "config.json", "config.json")
    metrics = _read_json(folder / "metrics.json", "metrics.json")
    raw_ablation = _read_json(folder / "ablation.json", "ablation.json") if (folder / "ablation.json").exists() else None
    ablation = Ablation.from_json(raw_ablation) if raw_ablation is not None else None
    protocol = run_protocol(config, metrics)
    records = typed_records(folder, protocol)
    names = list(dict.fromkeys(record_setting(r) for r in records))
    chosen = setting or (ablation.settings[0] if ablation and ablation.settings else (names[0] if names else "full"))
    if raw_ablation is not None and setting:
        metrics = _arm_metrics(raw_ablation, setting, folder)
    records = sorted((r for r in records if record_setting(r) == chosen), key=lambda r: r.batch_index)
    summary = _read_json(folder / "summary.json", "summary.json") if (folder / "summary.json").exists() else None
    return Run(folder, config, metrics, records, summary, ablation, chosen, _run_date(folder, config), protocol)


def _arm_metrics(ablation: Json, setting: str, folder: Path) -> Json:
    """One arm's metrics from ablation.json, as written (the report's figures for that arm)."""
    arms = ablation.get("metrics")
    chosen = arms.get(setting) if isinstance(arms, dict) else None
    if not isinstance(chosen, dict):
        names = Ablation.from_json(ablation).settings
        raise JudgeAgentError(f"{folder}: no setting {setting!r} (settings: {', '.join(names)})")
    return chosen


def load_ablation(run_dir: Path | str) -> AblationRun:
    folder = Path(run_dir)
    if not folder.is_dir():
        raise JudgeAgentError(f"{folder}: no such run folder")
    if not (folder / "ablation.json").exists():
        raise JudgeAgentError(f"{folder}: no ablation.json; make the run with `judgeagent ablate`")
    config = _read_json(folder / "config.json", "config.json")
    abl = Ablation.from_json(_read_json(folder / "ablation.json", "ablation.json"))
    return AblationRun(folder, config, abl.settings or list(abl.metrics), abl.metrics)
