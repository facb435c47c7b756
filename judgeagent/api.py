"""The Python API: ``judgeagent.evaluate`` runs anything the command line can run.

``judgeagent evaluate`` (and ``ablate``, ``contamination``) are thin layers over this call:
they build the EvalConfig from their flags, call :func:`evaluate` and print the result.

    evaluate(target="local", limit=6)                                   # the JudgeAgent interview
    evaluate(target="local", limit=6, ablation=True)                    # its four ablation arms
    evaluate(target="local", protocol="kieval", kieval_turns=3)         # a kin system's protocol
    evaluate(target="local", protocol="contamination", limit=6)         # the contamination probe
    evaluate(target="local", protocol="bank", bank="graphs/medqa-demo") # stored bank items

``judgeagent seeds`` is :func:`write_seeds`: seed questions written from a graph, as a
benchmark folder the calls above read.
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


@dataclass
class SeedsResult:
    """A finished (or stopped) writing of seeds: the benchmark folder, its figures and the run folder."""

    benchmark: Path  # the seed set (generic format); absent when no seed was kept
    metrics: dict  # the run's metrics.json: kept, dropped by filter, spread
    run_dir: Path  # <benchmark>/generation: config, records, journal
    complete: bool = True
    outcome: Any = field(default=None, repr=False)  # engine.RunOutcome, for the CLI

    @property
    def n_written(self) -> int:
        return int(self.metrics.get("n_written") or 0)

    @property
    def exit_code(self) -> int:
        """What ``judgeagent seeds`` exits with: as a run's (docs/reference/exit-codes.md)."""
        from judgeagent.exits import PARTIAL, exit_code

        return exit_code(str(self.metrics.get("status") or PARTIAL))


def write_seeds(config=None, /, *, progress: bool = False, console=None, **settings) -> SeedsResult:
    """Write seed questions from a context graph into a benchmark folder (``judgeagent seeds``).

    ``config`` is a :class:`~judgeagent.protocols.seeds.config.SeedsConfig`, or one is made
    from ``settings`` (``write_seeds(graph="graphs/manuals", n=50, writer="gpt-4o-mini",
    out="data/manuals")``). Rerunning with the same ``out`` resumes the writing. Bad settings
    raise pydantic's ValidationError; bad setup a JudgeAgentError with a one-line message; a
    budget stop BudgetExceeded, once what was kept is written."""
    from judgeagent.engine import run
    from judgeagent.protocols.seeds.config import SeedsConfig

    cfg = config if config is not None else SeedsConfig(**settings)
    if config is not None and settings:
        cfg = SeedsConfig.model_validate(config.model_dump() | settings)
    outcome = run(cfg.eval_config(), progress=progress, console=console)
    return SeedsResult(cfg.out_dir(), outcome.metrics, outcome.folder.path, outcome.complete, outcome)
