"""The Python API: ``judgeagent.evaluate`` runs anything the command line can run.

``judgeagent evaluate`` (and ``ablate``, ``contamination``) are thin layers over this call:
they build the EvalConfig from their flags, call :func:`evaluate` and print the result.

    evaluate(target="local", limit=6)                                   # the JudgeAgent interview
    evaluate(target="local", limit=6, ablation=True)                    # its four ablation arms
    evaluate(target="local", protocol="kieval", kieval_turns=3)         # a kin system's protocol
    evaluate(target="local", protocol="contamination", limit=6)         # the contamination probe
    evaluate(target="local", protocol="bank", bank="graphs/medqa-demo") # stored bank items
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
    outcome: Any = field(default=None, repr=False)  # engine.RunOutcome, for the CLI

    def __getitem__(self, key: str):
        return self.metrics[key]

    @property
    def status(self) -> str:
        """complete | incomplete | nothing_answered, as metrics.json says (judgeagent/exits.py)."""
        from judgeagent.exits import PARTIAL

        return str(self.metrics.get("status") or PARTIAL)

    @property
    def exit_code(self) -> int:
        """What ``judgeagent evaluate`` exits with for this run (docs/reference/exit-codes.md)."""
        from judgeagent.exits import exit_code

        return exit_code(self.status)


def evaluate(config: EvalConfig | None = None, /, *, progress: bool = False, console=None, **settings) -> EvalResult:
    """Run ``config`` (or an EvalConfig made from ``settings``, flat: a protocol's options sit
    beside the shared settings) and write its run folder and reports.

    Bad settings raise pydantic's ValidationError; a setting of another protocol, or bad
    setup (an unknown model, a missing key), a JudgeAgentError with a one-line message."""
    from judgeagent.engine import run
    from judgeagent.report import write_reports

    cfg = config if config is not None else EvalConfig(**settings)
    if config is not None and settings:
        cfg = EvalConfig.model_validate(config.model_dump() | settings)
    outcome = run(cfg, progress=progress, console=console, reporter=write_reports)
    return EvalResult(outcome.protocol, outcome.metrics, outcome.folder.path, outcome.complete, outcome.stopped_reason, outcome.timings, outcome)
