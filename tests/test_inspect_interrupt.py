"""Ctrl-C and resume as Inspect users expect them: `inspect eval judgeagent/interview` in a
subprocess, interrupted while the second batch's first request is held open (an event, not a
sleep), stops at once and leaves a cancelled log holding the finished batch;
`inspect eval-retry` of that log asks only the unfinished batch and ends with the run's figures
over both."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from test_interrupt import HoldingServer, asks_about, script, wait_for  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data" / "medqa-demo"
INSPECT = [sys.executable, "-m", "inspect_ai"]  # the `inspect` command, run by this interpreter
MODEL = "openai-api/scripted/scripted-model"
# Inspect cancels the sample and writes its log before it exits: 3 s on an idle machine.
STOP_S = 20.0


def inspect_env(base_url: str) -> dict[str, str]:
    return {**os.environ, "SCRIPTED_BASE_URL": base_url, "SCRIPTED_API_KEY": "not-needed", "COLUMNS": "200"}


@pytest.mark.slow
def test_ctrl_c_leaves_a_cancelled_log_that_eval_retry_finishes(tmp_path, demo_graph, demo_seeds):
    from inspect_ai.log import read_eval_log

    logs = tmp_path / "logs"
    second_batch = demo_seeds[3].question.strip()
    with HoldingServer(script(demo_seeds), hold=lambda body: asks_about(body, second_batch)) as srv:
        cmd = [*INSPECT, "eval", "judgeagent/interview", "--model", MODEL, "--model-role", f"judge={MODEL}",
               "-T", f"data={DATA}", "-T", f"graph={demo_graph}", "-T", "limit=6", "-T", "rounds=1", "-T", "controls=false",
               "-T", "leak_check=rules", "-T", "bootstrap=200", "--max-samples", "1", "--log-dir", str(logs), "--display", "plain"]
        # As from a terminal: Ctrl-C's default action. A pytest-xdist worker ignores SIGINT, and a
        # Python started with it ignored never turns it into KeyboardInterrupt.
        proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=inspect_env(srv.base_url),
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
        wait_for(srv.arrived, proc)
        proc.send_signal(signal.SIGINT)
        try:
            _, err = proc.communicate(timeout=STOP_S)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            pytest.fail(f"inspect eval still running {STOP_S:.0f} s after Ctrl-C")
        srv.hold = lambda body: False  # the endpoint answers again
        asked_before = len(srv.requests)

        (path,) = logs.glob("*.eval")
        cancelled = read_eval_log(str(path))
        assert cancelled.status == "cancelled", (cancelled.status, err)
        # The batch asked when Ctrl-C came is in the log as cancelled, not graded.
        finished = {s.id: (s.error is None, s.scores is not None and bool(s.scores)) for s in cancelled.samples or []}
        assert finished == {"b0000": (True, True), "b0001": (False, False)}, [(s.id, s.error) for s in cancelled.samples or []]

        retry = subprocess.run([*INSPECT, "eval-retry", str(path), "--log-dir", str(logs), "--display", "plain"], cwd=tmp_path,
                               capture_output=True, text=True, env=inspect_env(srv.base_url), timeout=300)
        rerun = srv.requests[asked_before:]
    assert retry.returncode == 0, retry.stderr
    (done,) = [read_eval_log(str(p)) for p in logs.glob("*.eval") if p != path]
    assert done.status == "success" and sorted(s.id for s in done.samples) == ["b0000", "b0001"]
    # The finished batch is not asked again: the retry starts with the second batch's grading.
    assert asks_about(rerun[0], second_batch)
    assert not any(asks_about(b, demo_seeds[0].question.strip()) for b in rerun)
    (score,) = done.results.scores
    m = {k: v.value for k, v in score.metrics.items()}
    assert (m["acc1"], m["acc2"], m["n_questions"]) == (pytest.approx(50.0, abs=1e-3), pytest.approx(400 / 6, abs=1e-3), 6.0)
