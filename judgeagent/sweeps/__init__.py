"""``judgeagent sweep``: several targets, one judge, the same questions, one leaderboard.

    from judgeagent import SweepConfig, sweep
    result = sweep(SweepConfig(targets=["local", "local-gemma"], judge="local", limit=6))
    result.leaderboard.targets[0].name, result.sweep_dir, result.failed

Every target is interviewed by the same judge on the same seed questions and graph (an
ordinary engine run of the judgeagent protocol each), then every target answers the same
shared bank items (an engine run of the bank protocol over the gate-passed follow-ups the
judge wrote during the sweep). The sweep folder:

    SWEEP/sweep.json            the settings (a rerun of the same command finds and resumes it) and each target's status
    SWEEP/targets/<target>/     each target's interview (a run folder)
    SWEEP/shared/<target>/      each target's answers to the shared items (a bank run folder)
    SWEEP/shared_items.json     the shared items, with the interview batch that wrote each
    SWEEP/leaderboard.json|md|csv|tex, SWEEP/report.html

The package is ``sweeps`` so that ``judgeagent.sweep`` can be the function: a submodule of
that name would take the attribute over when imported.
"""

from judgeagent.sweeps.config import SweepConfig, read_sweep_file
from judgeagent.sweeps.runner import SweepResult, sweep
from judgeagent.sweeps.state import TargetState

__all__ = ["SweepConfig", "SweepResult", "TargetState", "read_sweep_file", "sweep"]
