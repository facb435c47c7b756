"""The run folder: everything a run writes, and how a rerun finds and resumes it.

runs/<date>-<target>-<data>/
  config.json     every setting, graph manifest hash, models, versions, seed
  records.jsonl   one line per finished batch (and setting, for ablations)
  journal.sqlite  the LLM request journal: a rerun replays finished requests
  metrics.json    the figures

A run's identity is its settings (``settings_json``): a rerun whose settings match an
existing folder's resumes it instead of starting a new one.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import os
import re
import threading
import time
from collections.abc import Mapping
from dataclasses import asdict, is_dataclass
from pathlib import Path
from typing import Any

from judgeagent.config import RUNS_DIR, EvalConfig
from judgeagent.errors import JudgeAgentError
from judgeagent.files import write_json_atomic
from judgeagent.records import Json


def settings_json(cfg: EvalConfig, settings: tuple[object, ...] = ()) -> Json:
    """What must match for a rerun to resume a run folder (paths to the outputs excluded).

    ``settings`` are the run's arms, when its protocol has several (``interview.Setting``)."""
    d = cfg.to_json()
    for k in ("out", "resume", "rebuild_graph"):
        d.pop(k, None)
    llm = d.get("llm")
    d["llm"] = {k: v for k, v in llm.items() if k in ("max_attempts",)} if isinstance(llm, dict) else {}
    if settings:
        d["settings"] = [asdict(s) for s in settings if is_dataclass(s) and not isinstance(s, type)]
    return d


def data_name(cfg: EvalConfig) -> str:
    """The benchmark folder's name: part of run folder names and of what a run reports."""
    return Path(cfg.data).resolve().name


def slug(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9.]+", "-", text).strip("-").lower()[:40] or "x"


class RunFolder:
    def __init__(self, path: Path):
        self.path = Path(path)
        self._lock = threading.Lock()
        self._synced = 0.0  # monotonic time of the last fsync of records.jsonl

    config_path = property(lambda self: self.path / "config.json")
    records_path = property(lambda self: self.path / "records.jsonl")
    metrics_path = property(lambda self: self.path / "metrics.json")
    journal_path = property(lambda self: self.path / "journal.sqlite")

    @classmethod
    def for_settings(cls, settings: Json, *, target: str, data: str, out: Path | None, kind: str = "") -> RunFolder:
        """``out`` if given; otherwise the first runs/<date>-<target>-<data>[-N] folder that is new
        or holds a run with the same settings, so that rerunning a command resumes it."""
        if out is not None:
            return cls(out)
        base = f"{_dt.date.today().isoformat()}-{slug(target)}-{slug(Path(data).name)}{kind}"
        for n in range(1, 1000):
            folder = cls(RUNS_DIR / (base if n == 1 else f"{base}-{n}"))
            if not folder.config_path.exists() or folder.read_config().get("settings") == settings:
                return folder
        raise JudgeAgentError(f"too many runs named {base} in {RUNS_DIR}; pass --out")

    def read_config(self) -> dict[str, Any]:
        try:
            config = json.loads(self.config_path.read_text())
        except (OSError, json.JSONDecodeError) as e:
            raise JudgeAgentError(f"{self.config_path}: cannot read run config ({e})") from None
        if not isinstance(config, dict):
            raise JudgeAgentError(f"{self.config_path}: not a run config (no JSON object)")
        return config

    def write_json(self, name: str, data: Mapping[str, object]) -> Path:
        self.path.mkdir(parents=True, exist_ok=True)
        return write_json_atomic(self.path / name, data)

    def records_digest(self) -> str | None:
        """sha256 of records.jsonl as it is (None when there is none): what an audit's figures
        were computed from."""
        try:
            return hashlib.sha256(self.records_path.read_bytes()).hexdigest()
        except FileNotFoundError:
            return None

    def kept_audit(self) -> dict[str, Any] | None:
        """The audit block of the metrics.json being replaced, when its figures were computed
        from the records as they still are (a replay, or a rerun that asked nothing new).
        Otherwise it is dropped: the run changed, so `judgeagent audit import` must carry it again."""
        try:
            old = json.loads(self.metrics_path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        block = old.get("audit") if isinstance(old, dict) else None
        if isinstance(block, dict) and block.get("records_sha256") and block["records_sha256"] == self.records_digest():
            return block
        return None

    def append_record(self, record: Mapping[str, Any]) -> None:
        """Append one line, written through at once: a killed process loses no record.

        It reaches the disk itself (fsync) at most once a second. The journal, which holds
        every answer a record is made from, is no more durable than that on power loss
        (SQLite WAL with synchronous=NORMAL), and a lost record is rebuilt from it without a
        request; an fsync per record cost a replay from the journal 10% of its time.
        """
        line = json.dumps(record, ensure_ascii=False, default=str)
        with self._lock:
            self.path.mkdir(parents=True, exist_ok=True)
            with open(self.records_path, "a", encoding="utf-8") as f:
                f.write(line + "\n")
                f.flush()
                if time.monotonic() - self._synced >= 1.0:
                    os.fsync(f.fileno())
                    self._synced = time.monotonic()

    def read_records(self) -> list[dict[str, Any]]:
        """Finished records; a torn last line from a killed run is ignored (it will be redone)."""
        if not self.records_path.exists():
            return []
        out, torn = [], False
        for line in self.records_path.read_text(encoding="utf-8").splitlines():
            try:
                out.append(json.loads(line))
            except json.JSONDecodeError:
                torn = True
        if torn:  # drop the torn line now, or the next append would be glued onto it
            with self._lock:
                tmp = self.records_path.with_suffix(".jsonl.tmp")
                tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in out), encoding="utf-8")
                os.replace(tmp, self.records_path)
        return out
