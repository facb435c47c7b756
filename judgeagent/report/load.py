"""Read a run folder into one plain object. Nothing here calls a model or loads the graph:
the records already carry every path chunk's text."""

from __future__ import annotations

import datetime as _dt
import json
import re
from dataclasses import dataclass, field
from pathlib import Path

from judgeagent.errors import JudgeAgentError


@dataclass
class Run:
    path: Path
    config: dict
    metrics: dict  # metrics.json (the first setting's, for an ablation run)
    records: list[dict]  # the report's setting only, sorted by batch
    summary: dict | None = None  # summary.json, when evaluate wrote one
    ablation: dict | None = None  # ablation.json, for an ``ablate`` run
    setting: str = "full"
    date: str = ""

    # ---- the facts every section needs, with defaults for older or partial runs
    @property
    def settings(self) -> dict:
        return self.config.get("settings") or {}

    @property
    def target(self) -> str:
        return _model_name(self.config, "target") or str(self.settings.get("target", "?"))

    @property
    def judge(self) -> str:
        return _model_name(self.config, "judge") or str(self.settings.get("judge", "?"))

    @property
    def data_name(self) -> str:
        bench = self.config.get("benchmark") or {}
        return str(bench.get("name") or Path(str(self.settings.get("data", "?"))).name)

    @property
    def thresholds(self) -> tuple[float, float]:
        d = self.settings.get("difficulty") or {}
        return float(d.get("t1", 0.5)), float(d.get("t2", 1.0))

    @property
    def audit_dropped(self) -> bool:
        """The run has an audit folder (the default one) but its metrics.json no audit block:
        a rerun that changed the records dropped it."""
        return "audit" not in self.metrics and (self.path / "audit" / "design.json").exists()

    @property
    def modules(self) -> dict:
        """The module switches of the reported setting: an ablation run keeps one entry per
        setting in settings.settings, while the top-level flags are the command line's."""
        for entry in self.settings.get("settings") or []:
            if isinstance(entry, dict) and entry.get("name") == self.setting:
                return entry
        return {k: self.settings.get(k) for k in ("no_graph", "fixed_difficulty", "no_extension")}


@dataclass
class AblationRun:
    path: Path
    config: dict
    settings: list[str]
    metrics: dict[str, dict] = field(default_factory=dict)


def _model_name(config: dict, role: str) -> str | None:
    m = (config.get("models") or {}).get(role) or {}
    return m.get("name") or m.get("model")


def _read_json(path: Path, what: str) -> dict:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise JudgeAgentError(f"{path}: no {what} here; is {path.parent} a finished run folder?") from None
    except (OSError, json.JSONDecodeError) as e:
        raise JudgeAgentError(f"{path}: cannot read {what} ({e})") from None
    if not isinstance(data, dict):
        raise JudgeAgentError(f"{path}: {what} is not a JSON object")
    return data


def read_records(path: Path) -> list[dict]:
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


def _run_date(folder: Path, config: dict) -> str:
    """When the run was made: config.json's own date if it has one, else the folder name's
    YYYY-MM-DD prefix, else config.json's modification date."""
    for key in ("created", "date", "started"):
        if config.get(key):
            return str(config[key])
    m = re.match(r"(\d{4}-\d{2}-\d{2})", folder.name)
    if m:
        return m.group(1)
    try:
        return _dt.date.fromtimestamp((folder / "config.json").stat().st_mtime).isoformat()
    except OSError:
        return ""


def load_run(run_dir: Path | str, setting: str | None = None) -> Run:
    """The run in ``run_dir``. For an ablation run, ``setting`` picks one (default: the first)."""
    folder = Path(run_dir)
    if not folder.is_dir():
        raise JudgeAgentError(f"{folder}: no such run folder")
    config = _read_json(folder / "config.json", "config.json")
    metrics = _read_json(folder / "metrics.json", "metrics.json")
    ablation = _read_json(folder / "ablation.json", "ablation.json") if (folder / "ablation.json").exists() else None
    records = read_records(folder / "records.jsonl")
    names = list(dict.fromkeys(r.get("setting", "full") for r in records))
    chosen = setting or (ablation["settings"][0] if ablation and ablation.get("settings") else (names[0] if names else "full"))
    if ablation and setting:
        if setting not in ablation.get("metrics", {}):
            raise JudgeAgentError(f"{folder}: no setting {setting!r} (settings: {', '.join(ablation.get('settings', []))})")
        metrics = ablation["metrics"][setting]
    records = sorted((r for r in records if r.get("setting", "full") == chosen), key=lambda r: r.get("batch_index", 0))
    summary = None
    if (folder / "summary.json").exists():
        summary = _read_json(folder / "summary.json", "summary.json")
    return Run(folder, config, metrics, records, summary, ablation, chosen, _run_date(folder, config))


def load_ablation(run_dir: Path | str) -> AblationRun:
    folder = Path(run_dir)
    if not folder.is_dir():
        raise JudgeAgentError(f"{folder}: no such run folder")
    if not (folder / "ablation.json").exists():
        raise JudgeAgentError(f"{folder}: no ablation.json; make the run with `judgeagent ablate`")
    config = _read_json(folder / "config.json", "config.json")
    abl = _read_json(folder / "ablation.json", "ablation.json")
    metrics = abl.get("metrics") or {}
    return AblationRun(folder, config, list(abl.get("settings") or metrics), metrics)
