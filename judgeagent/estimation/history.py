"""What earlier runs measured: the estimate's evidence beside its priors.

Every run folder under runs/ (and beside ``--out``, and the run folder itself when it is
resumed) with a journal.sqlite and config.json is read, newest first:

- its journal: completion tokens and seconds per request, by model and stage, and our token
  count of a sample of its prompts against what the model reported (the tokenizer ratio);
- its metrics.json: the client's re-asks per request sent;
- its records, through the record model of the protocol that wrote them (config.json
  names it): that protocol's :meth:`~judgeagent.engine.protocol.Protocol.observe` says which
  rates of its plans they show. A rate is learnt only from runs whose roles it depends on
  were played by the same models as in this run (a weak judge's gate pass rate says nothing
  of a strong one's).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import Field, ValidationError

from judgeagent.config import RUNS_DIR, EvalConfig
from judgeagent.engine.callplan import Rate, Rates
from judgeagent.engine.registry import registered
from judgeagent.errors import JudgeAgentError
from judgeagent.estimation.batch import read_turnarounds
from judgeagent.estimation.tokens import count_prompts
from judgeagent.records import JsonModel

if TYPE_CHECKING:
    from judgeagent.llm.registry import ModelRegistry, ModelSpec

HISTORY_FOLDERS = 30  # the most recent earlier run folders read for measured rates
SAMPLED_PROMPTS = 40  # journal prompts per model recounted for the tokenizer ratio
MAX_RECORDS = 5000  # records read per folder


@dataclass
class Measured:
    """What earlier runs showed of one model (by identity)."""

    completion: dict[str, list[int]] = field(default_factory=dict)  # stage → completion tokens per reply
    latency: dict[str, list[float]] = field(default_factory=dict)  # stage → seconds per reply
    prompt_pairs: list[tuple[int, int]] = field(default_factory=list)  # (reported prompt tokens, our count)
    calls: int = 0
    reasks: int = 0
    runs: set[str] = field(default_factory=set)

    def ratio(self) -> float | None:
        ours = sum(o for _, o in self.prompt_pairs)
        return sum(r for r, _ in self.prompt_pairs) / ours if ours and len(self.prompt_pairs) >= 3 else None


@dataclass
class History:
    models: dict[str, Measured] = field(default_factory=dict)  # identity → measured
    counts: dict[Rate, list[int]] = field(default_factory=dict)  # rate → [events, of how many]
    folders: list[str] = field(default_factory=list)
    turnarounds: list[tuple[str, str, float]] = field(default_factory=list)  # (identity, endpoint, seconds) of finished batch jobs

    def add(self, rate: Rate, events: int, of: int) -> None:
        c = self.counts.setdefault(rate, [0, 0])
        c[0] += events
        c[1] += of


class SavedModel(JsonModel):
    name: str = ""


class SavedConfig(JsonModel):
    """What the history reads of an earlier run's config.json."""

    protocol: str = "judgeagent"
    models: dict[str, SavedModel] = Field(default_factory=dict)


class ModelUsage(JsonModel):
    requests: int = 0
    cached: int = 0
    reasks: int = 0


class SavedUsage(JsonModel):
    models: dict[str, ModelUsage] = Field(default_factory=dict)


class SavedMetrics(JsonModel):
    """What the history reads of an earlier run's metrics.json: the client's usage per model."""

    llm_usage: SavedUsage = Field(default_factory=SavedUsage)


def folders(cfg: EvalConfig, own: Path) -> list[Path]:
    """Earlier run folders to learn from: the run's own (when resumed), the other folders under
    runs/ and beside --out, newest first."""
    roots = [RUNS_DIR]
    if cfg.out is not None:
        roots.append(Path(cfg.out).parent)
    if cfg.resume is not None:
        roots.append(Path(cfg.resume).parent)
    found: dict[Path, float] = {}
    if (own / "journal.sqlite").exists():
        found[own.resolve()] = float("inf")
    for root in roots:
        if not root.is_dir():
            continue
        # Run folders, and the runs inside a sweep folder (SWEEP/targets/<t>/, SWEEP/shared/<t>/).
        for j in (*root.glob("*/journal.sqlite"), *root.glob("*/*/*/journal.sqlite")):
            if (j.parent / "config.json").exists():
                found.setdefault(j.parent.resolve(), j.stat().st_mtime)
    return sorted(found, key=lambda p: -found[p])[:HISTORY_FOLDERS]


def read_history(cfg: EvalConfig, own: Path, roles: Mapping[str, ModelSpec]) -> History:
    """Measured rates from earlier runs' journals and records: tokens and times of this run's
    models; rates from runs whose roles were played by the same models (``roles``: this run's
    role → model)."""
    from judgeagent.llm import load_registry

    h = History()
    registry = load_registry(cfg.llm.models_file)
    identities = {spec.identity for spec in roles.values()}
    for folder in folders(cfg, own):
        try:
            config = SavedConfig.model_validate_json((folder / "config.json").read_text(encoding="utf-8"))
            read_journal(folder, h, identities)
            h.turnarounds += read_turnarounds(folder / "journal.sqlite")
            read_records(folder, h, config, same_roles(config, {r: s.identity for r, s in roles.items()}, registry))
            read_usage(folder, h, config, registry)
        except (OSError, sqlite3.Error, json.JSONDecodeError, ValidationError, JudgeAgentError, KeyError, TypeError, ValueError):
            continue  # an unreadable folder teaches nothing; the estimate still stands on priors
        h.folders.append(str(folder))
    return h


def read_journal(folder: Path, h: History, identities: set[str]) -> None:
    db = sqlite3.connect(f"file:{folder / 'journal.sqlite'}?mode=ro", uri=True, timeout=2.0)
    try:
        rows = db.execute("SELECT identity, stage, prompt_tokens, completion_tokens, latency_s FROM responses").fetchall()
        for identity, stage, _p, completion, latency in rows:
            m = h.models.setdefault(identity, Measured())
            m.completion.setdefault(stage, []).append(int(completion))
            m.latency.setdefault(stage, []).append(float(latency))
            m.runs.add(str(folder))
        for identity in identities:
            sample = db.execute(
                "SELECT request, prompt_tokens FROM responses WHERE identity = ? ORDER BY key LIMIT ?", (identity, SAMPLED_PROMPTS)
            ).fetchall()
            msgs = [json.loads(r)["messages"] for r, _ in sample]
            if msgs:
                ours = count_prompts(msgs)
                h.models.setdefault(identity, Measured()).prompt_pairs += [(int(p), o) for (_, p), o in zip(sample, ours) if p > 0]
    finally:
        db.close()


def read_usage(folder: Path, h: History, config: SavedConfig, registry: ModelRegistry) -> None:
    """The client's re-asks per request sent, from metrics.json (names → identities via config.json)."""
    path = folder / "metrics.json"
    usage = SavedMetrics.model_validate_json(path.read_text(encoding="utf-8")).llm_usage if path.exists() else SavedUsage()
    known = {m.name for m in config.models.values()}
    for name, u in usage.models.items():
        if name not in known:
            continue
        try:
            identity = registry.resolve(name).identity
        except JudgeAgentError:  # a model this machine does not know (another judgeagent.toml): nothing learnt from its usage
            continue
        sent = u.requests - u.cached
        if sent > 0:
            m = h.models.setdefault(identity, Measured())
            m.calls += sent
            m.reasks += u.reasks


def same_roles(config: SavedConfig, roles: Mapping[str, str], registry: ModelRegistry) -> frozenset[str]:
    """The roles an earlier run's models played as this run's do (by identity)."""
    same = set()
    for role, identity in roles.items():
        saved = config.models.get(role)
        if saved is None:
            continue
        try:
            if registry.resolve(saved.name).identity == identity:
                same.add(role)
        except JudgeAgentError:  # a model this machine does not know
            continue
    return frozenset(same)


def read_records(folder: Path, h: History, config: SavedConfig, same: frozenset[str]) -> None:
    """The rates the earlier run's records show, as its own protocol reads them."""
    path = folder / "records.jsonl"
    cls = registered().get(config.protocol)
    if cls is None or not path.exists():
        return
    records = []
    for line in path.read_text(encoding="utf-8").splitlines()[:MAX_RECORDS]:
        try:
            records.append(cls.records.model_validate_json(line))
        except ValidationError:  # a torn or foreign line
            continue
    for seen in cls().observe(records):
        if seen.rate.roles <= same and seen.of > 0:
            h.add(seen.rate, seen.events, seen.of)


def rates_from(h: History, rates: Iterable[Rate]) -> Rates:
    """The rates a protocol's plans use: priors, replaced by what earlier runs measured."""
    out = Rates.priors(rates)
    runs = len(h.folders)
    for rate, (events, of) in h.counts.items():
        if rate in out.values and of > 0:
            out.measured(rate, events / of, of, f"measured: {events}/{of} in earlier runs of the same models (of {runs} read)")
    return out
