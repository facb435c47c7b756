"""The sweep folder: sweep.json, one run folder per target, the shared-items runs, the
leaderboard files. Its layout is in :mod:`judgeagent.sweeps` (and /tmp/team/sweep-folder.md).

A sweep's identity is its settings (:meth:`SweepConfig.identity`): rerunning the same command
finds the folder that holds them (whatever day it was started) and resumes it.
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Any, TypeVar

from pydantic import ValidationError

from judgeagent.config import RUNS_DIR
from judgeagent.errors import ConfigError, JudgeAgentError
from judgeagent.files import write_json_atomic, write_text_atomic
from judgeagent.records import JsonModel
from judgeagent.sweeps.config import SweepConfig
from judgeagent.sweeps.state import SweepFile

SWEEP_FILE = "sweep.json"
SHARED_ITEMS_FILE = "shared_items.json"
LEADERBOARD = "leaderboard"  # .json, .md, .csv, .tex
REPORT = "report.html"
VERSION = 1


def slug(text: str) -> str:
    import re

    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-").lower()[:40] or "x"


def target_slugs(targets: list[str]) -> dict[str, str]:
    """Each target's folder name; two names that give the same one are told apart by a number."""
    out: dict[str, str] = {}
    for t in targets:
        base, n = slug(t), 2
        s = base
        while s in out.values():
            s, n = f"{base}-{n}", n + 1
        out[t] = s
    return out


class SweepFolder:
    def __init__(self, path: Path):
        self.path = Path(path)

    sweep_path = property(lambda self: self.path / SWEEP_FILE)

    def target_dir(self, slug_: str) -> Path:
        return self.path / "targets" / slug_

    def shared_dir(self, slug_: str) -> Path:
        return self.path / "shared" / slug_

    @classmethod
    def for_config(cls, cfg: SweepConfig) -> SweepFolder:
        """``cfg.out`` (refused when it holds another sweep); else the runs/*-sweep-<data>
        folder holding the same settings, else a new runs/<date>-sweep-<data>[-N]."""
        identity = cfg.identity()
        if cfg.out is not None:
            folder = cls(cfg.out)
            if folder.sweep_path.exists() and folder.read().get("identity") != identity:
                raise ConfigError(f"{folder.path} holds a sweep with other settings; pass another --out, or the same settings to resume it")
            return folder
        name = slug(Path(cfg.data).resolve().name)
        for existing in sorted(RUNS_DIR.glob(f"*-sweep-{name}*/{SWEEP_FILE}")):
            folder = cls(existing.parent)
            try:
                if folder.read().get("identity") == identity:
                    return folder
            except JudgeAgentError:
                continue
        base = f"{_dt.date.today().isoformat()}-sweep-{name}"
        for n in range(1, 1000):
            folder = cls(RUNS_DIR / (base if n == 1 else f"{base}-{n}"))
            if not folder.path.exists():
                return folder
        raise JudgeAgentError(f"too many sweeps named {base} in {RUNS_DIR}; pass --out")

    def read(self) -> dict[str, Any]:
        try:
            data = json.loads(self.sweep_path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as e:
            raise JudgeAgentError(f"{self.sweep_path}: cannot read the sweep ({e})") from None
        if not isinstance(data, dict):
            raise JudgeAgentError(f"{self.sweep_path}: not a sweep (no JSON object)")
        return data

    def write_json(self, name: str, data: Any) -> Path:
        self.path.mkdir(parents=True, exist_ok=True)
        return write_json_atomic(self.path / name, data)

    def write_text(self, name: str, text: str) -> Path:
        self.path.mkdir(parents=True, exist_ok=True)
        return write_text_atomic(self.path / name, text)

    def read_json(self, name: str) -> Any:
        path = self.path / name
        if not path.exists():
            return None
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as e:
            raise JudgeAgentError(f"{path}: cannot read ({e})") from None

    def write_sweep(self, cfg: SweepConfig, targets: list[dict[str, Any]], *, n_shared: int | None, complete: bool,
                    status: str | None = None) -> Path:
        before = SweepFile.model_validate(self.read()) if self.sweep_path.exists() else SweepFile()
        now = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
        return self.write_json(SWEEP_FILE, {
            "version": VERSION,
            "config": cfg.model_dump(mode="json") | {"data": str(Path(cfg.data).resolve()), "graph": str(cfg.graph_dir().resolve())},
            "identity": cfg.identity(),
            "created": before.created or now,
            "updated": now,
            "targets": targets,
            "n_shared_items": n_shared,
            "complete": complete,
            "status": status or ("complete" if complete else "incomplete"),  # the exit code's word (judgeagent/exits.py)
        })  # fmt: skip


M = TypeVar("M", bound=JsonModel)


def read_model(path: Path, model: type[M]) -> M | None:
    """A JSON file of a run or the sweep through its model; None when it is missing or unreadable."""
    try:
        return model.model_validate_json(path.read_text(encoding="utf-8"))
    except (OSError, ValidationError):
        return None


def read_typed(run_dir: Path, model: type[M]) -> list[M]:
    """A run folder's records through its protocol's record model (a torn line is skipped)."""
    return [model.from_json(r) for r in read_records(run_dir)]


def read_records(run_dir: Path) -> list[dict[str, Any]]:
    path = run_dir / "records.jsonl"
    if not path.exists():
        return []
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        try:
            out.append(json.loads(line))
        except json.JSONDecodeError:
            continue  # a torn last line: its unit is redone
    return out
