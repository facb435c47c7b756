"""The guard against a slower suite (tests/regrowth.py): a test over the limit and not listed
fails the session, names itself and says what to do; a listed one passes."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

TESTS = textwrap.dedent(
    """
    import time

    def test_quick():
        pass

    def test_sleepy():
        time.sleep(1.0)
    """
)


@pytest.mark.slow
def test_a_test_over_the_limit_fails_the_session_unless_it_is_listed(pytester, monkeypatch):
    monkeypatch.setenv("JUDGEAGENT_TEST_LIMIT_S", "0.2")  # 5 times under the sleep: holds up to a load of 10
    monkeypatch.setenv("PYTHONPATH", str(ROOT))  # the plugin is tests.regrowth
    pytester.makepyfile(test_guarded=TESTS)
    result = pytester.runpytest_subprocess("-p", "tests.regrowth", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    result.assert_outcomes(passed=2)
    out = result.stdout.str()
    assert "not in SLOW_TESTS" in out and "test_guarded.py::test_sleepy" in out
    assert "test_guarded.py::test_quick" not in out.split("not in SLOW_TESTS", 1)[1]
    # Over the tier too, and not marked slow: named for make test-fast.
    assert "not marked slow" in out

    monkeypatch.setenv("JUDGEAGENT_TEST_LIMIT_S", "30")
    result = pytester.runpytest_subprocess("-p", "tests.regrowth", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK
    assert "not in SLOW_TESTS" not in result.stdout.str()
