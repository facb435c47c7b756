"""The suite's guard against regrowth: a test that takes longer than LIMIT_S must be listed in
SLOW_TESTS with the reason it needs that long, or the session fails.

``make test`` is one of the README's two commands and every change waits for it, so its time is
kept in view: the session ends with its slowest tests (``--durations`` in the Makefile), and
here each test's setup, call and teardown are summed and compared with the limit: the limit
of a test that has the machine to itself. Two pytest workers (``make test``), or a machine busier
than its cores, stretch every test, so the limit is multiplied by the number of workers, or by
the one-minute load average over the core count (read as each test ends) when that is larger.

A test over TIER_S that is not marked ``slow`` is named at the end too (not a failure): the
inner loop, ``make test-fast``, runs everything not marked slow.

The files of SLOW_TESTS are collected first, in the order they are listed there. pytest-xdist
hands out whole files in collection order (``make test`` turns off its reordering by test
count), so the longest files start at once rather than finishing last on one worker.
"""

from __future__ import annotations

import os

import pytest

LIMIT_S = float(os.environ.get("JUDGEAGENT_TEST_LIMIT_S", "60"))  # the variable is for the guard's own test
TIER_S = LIMIT_S / 6  # 10 s

# Test id (or the id of every case of a parametrised test) -> why it takes longer than LIMIT_S.
SLOW_TESTS = {
    "tests/test_protocols_e2e.py::test_evaluate_with_the_bundled_model":
        "the JudgeAgent protocol end to end with the bundled model: six seeds, every stage, then the replay",
    "tests/test_protocols_e2e.py::test_appendix_e2_with_the_bundled_model":
        "replays the demo interview's requests from the shared cache when that test ran first; minutes alone",
    "tests/test_protocols_e2e.py::test_escalate_with_the_bundled_model":
        "escalate end to end with the bundled model: each rung writes, gates and asks a question",
    "tests/test_protocols_e2e.py::test_kieval_with_the_bundled_model":
        "KIEval end to end with the bundled model: five-turn dialogues with an evaluator",
    "tests/test_protocols_e2e.py::test_interviewer_with_the_bundled_model":
        "LLM-as-an-Interviewer end to end with the bundled model: feedback and follow-ups per seed",
    "tests/test_leakage.py::test_leak_guard_verdicts_near_a_threshold_are_the_same_with_avx2_kernels":
        "reruns the ~2,400 corpus checks near a threshold (~9,000 texts through MiniLM) in a process on AVX2 kernels",
}

_spent: dict[str, float] = {}  # test id -> seconds of its setup, call and teardown
_load: dict[str, float] = {}  # test id -> the one-minute load average as it ended
_slow: set[str] = set()  # the tests marked slow


def _allowed(nodeid: str) -> bool:
    return nodeid in SLOW_TESTS or nodeid.split("[", 1)[0] in SLOW_TESTS


_workers = 1  # pytest-xdist's workers, each a test at a time on the same cores


def pytest_configure(config: pytest.Config) -> None:
    global _workers
    n = config.getoption("numprocesses", None) if config.pluginmanager.hasplugin("xdist") else None
    _workers = n if isinstance(n, int) and n > 1 else 1


def _limit(seconds: float, nodeid: str) -> float:
    return seconds * max(float(_workers), _load.get(nodeid, 0.0) / (os.cpu_count() or 1))


def _file(nodeid: str) -> str:
    return nodeid.split("::", 1)[0]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    first = {f: i for i, f in enumerate(dict.fromkeys(_file(n) for n in SLOW_TESTS))}
    items.sort(key=lambda item: first.get(_file(item.nodeid), len(first)))  # stable: the rest keep their order


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    _spent[report.nodeid] = _spent.get(report.nodeid, 0.0) + report.duration
    if "slow" in report.keywords:
        _slow.add(report.nodeid)
    if report.when == "teardown":
        _load[report.nodeid] = os.getloadavg()[0]


def over_limit() -> list[tuple[str, float, float]]:
    """(test, seconds, its limit) of every unlisted test over its limit, slowest first."""
    over = [(n, spent, _limit(LIMIT_S, n)) for n, spent in _spent.items() if not _allowed(n)]
    return sorted([t for t in over if t[1] > t[2]], key=lambda t: -t[1])


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if over_limit() and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def pytest_terminal_summary(terminalreporter) -> None:
    unmarked = [(n, spent) for n, spent in _spent.items() if n not in _slow and spent > _limit(TIER_S, n)]
    if unmarked:
        terminalreporter.write_sep("-", f"over {TIER_S:g} s and not marked slow: make test-fast runs them")
        for nodeid, spent in sorted(unmarked, key=lambda t: -t[1]):
            terminalreporter.write_line(f"{spent:7.1f}s {nodeid}")
    if over := over_limit():
        terminalreporter.write_sep("=", f"over {LIMIT_S:g} s and not in SLOW_TESTS (tests/regrowth.py)", red=True)
        for nodeid, spent, limit in over:
            terminalreporter.write_line(f"{spent:7.1f}s (limit {limit:.3g} s at this load) {nodeid}")
        terminalreporter.write_line("Make the test cheaper, or list it in SLOW_TESTS with why it needs the time.")
