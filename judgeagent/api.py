"""The Python API: ``judgeagent.evaluate`` runs any protocol from a notebook or a script.

``judgeagent evaluate`` is a thin layer over the same call: it builds the EvalConfig from
its flags, calls :func:`evaluate` and prints the result.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from judgeagent.config import EvalConfig


@dataclass
class EvalResult:
    """A finished (or budget-stopped) run: its protocol, metrics and folder."""

    protocol: str
    metrics: dict  # metrics.json
    run_dir: Path
    complete: bool = True
    stopped_reason: str | None = None
    timings: dict = field(default_factory=dict)
    outcome: Any = field(default=None, repr=False)  # run.RunOutcome, for the CLI

    def __getitem__(self, key: str):
        return self.metrics[key]


def evaluate(config: EvalConfig | None = None, /, *, progress: bool = False, **settings) -> EvalResult:
    """Run ``config`` (or an EvalConfig made from ``settings``: ``evaluate(target="local",
    protocol="kieval", limit=3)``) and write its run folder. Bad settings raise pydantic's
    ValidationError; bad setup (an unknown model, a missing key) a JudgeAgentError."""
    from judgeagent.protocols import get_protocol

    cfg = config if config is not None else EvalConfig(**settings)
    if config is not None and settings:
        cfg = EvalConfig.model_validate(config.model_dump() | settings)
    outcome = get_protocol(cfg.protocol).execute(cfg, progress=progress)
    return EvalResult(cfg.protocol, outcome.metrics["full"], outcome.folder.path, outcome.complete, outcome.stopped_reason, outcome.timings, outcome)
