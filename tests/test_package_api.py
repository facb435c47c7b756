"""The package-level Python API: ``judgeagent.estimate`` and ``judgeagent.sweep`` are plain
functions, whatever was imported before, and no module replaces its own class to be callable."""

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent

CHECK = """
import sys, types
import judgeagent
{first}
import judgeagent.estimation, judgeagent.sweeps, judgeagent.sweeps.runner
assert judgeagent.estimate is judgeagent.estimation.estimate, judgeagent.estimate
assert judgeagent.sweep is judgeagent.sweeps.runner.sweep, judgeagent.sweep
assert judgeagent.SweepConfig is judgeagent.sweeps.config.SweepConfig
assert type(sys.modules["judgeagent.sweeps"]) is types.ModuleType
assert type(sys.modules["judgeagent.estimation"]) is types.ModuleType
print("ok")
"""


@pytest.mark.slow
def test_estimate_and_sweep_are_the_functions_whichever_module_came_first():
    # Each order in a fresh interpreter: the attribute is bound once, on first use.
    for first in ("", "judgeagent.sweep; judgeagent.estimate", "from judgeagent.sweeps import sweep", "from judgeagent.estimation import estimate"):
        res = subprocess.run([sys.executable, "-c", CHECK.format(first=first)], capture_output=True, text=True, check=False, cwd=ROOT)
        assert res.stdout.strip() == "ok", (first, res.stderr)


def test_no_module_of_estimate_or_sweep_replaces_its_class():
    for path in sorted([*(ROOT / "judgeagent" / "estimation").glob("*.py"), *(ROOT / "judgeagent" / "sweeps").glob("*.py")]):
        assert "__class__ =" not in path.read_text(encoding="utf-8"), path
