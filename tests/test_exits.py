"""Exit codes mean something (judgeagent/exits.py), and the users' table says the same."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from judgeagent import exits
from judgeagent.errors import BudgetExceeded, CallFailed, ConfigError, RunInterrupted

TABLE = Path(__file__).resolve().parents[1] / "docs" / "reference" / "exit-codes.md"


@pytest.mark.parametrize(("n_units", "n_finished", "complete", "status"), [
    (2, 2, True, "complete"),
    (2, 1, False, "incomplete"),
    (2, 0, False, "nothing_answered"),
    (0, 0, True, "complete"),  # nothing to do is done
    (2, 2, False, "incomplete"),  # every unit in, but the run was cut short (a budget stop)
])  # fmt: skip
def test_a_runs_status(n_units, n_finished, complete, status):
    assert exits.run_status(n_units, n_finished, complete) == status


def test_the_status_of_several_runs_and_its_code():
    assert exits.combined(["complete", "complete"]) == "complete"
    assert exits.combined(["complete", "nothing_answered"]) == "incomplete"
    assert exits.combined(["nothing_answered", "nothing_answered"]) == "nothing_answered"
    assert [exits.exit_code(s) for s in ("complete", "incomplete", "nothing_answered", None)] == [0, 3, 4, 3]


def test_errors_keep_their_codes():
    assert [e.exit_code for e in (ConfigError("x"), BudgetExceeded("x"), CallFailed("m", "s", "k", "x"))] == [2, 2, 2]
    assert RunInterrupted("x").exit_code == exits.INTERRUPTED == 130


def test_the_documented_table_lists_every_code_with_its_status():
    rows = re.findall(r"^\| *(\d+) *\| *`?([a-z_]*)`? *\|", TABLE.read_text(encoding="utf-8"), flags=re.M)
    documented = {int(code): status for code, status in rows}
    assert documented == {
        exits.OK: "complete", exits.CRASH: "", exits.USER_ERROR: "", exits.INCOMPLETE: "incomplete",
        exits.NOTHING_ANSWERED: "nothing_answered", exits.INTERRUPTED: "",
    }  # fmt: skip
    assert {s: exits.exit_code(s) for s in documented.values() if s} == {"complete": 0, "incomplete": 3, "nothing_answered": 4}
    assert "issue" not in TABLE.read_text(encoding="utf-8").lower()


def test_the_python_api_says_the_same_as_the_exit_code():
    from judgeagent.api import EvalResult

    got = [(r.status, r.exit_code) for r in (EvalResult("p", {"status": s}, Path(".")) for s in ("complete", "incomplete", "nothing_answered"))]
    assert got == [("complete", 0), ("incomplete", 3), ("nothing_answered", 4)]
    assert (EvalResult("p", {}, Path(".")).status, EvalResult("p", {}, Path(".")).exit_code) == ("incomplete", 3)  # an older run: not claimed complete
