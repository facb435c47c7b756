"""What `--dry-run --batch-api` counts (judgeagent/estimation/batch.py, callplan.unit_chain),
on hand-computed cases: a unit's chain of waves, the run's waves as the longest unit's, the
turnaround measured on earlier jobs or the prior, and the wall time they give. The figures
against real runs are in test_batch_cli.py."""

from __future__ import annotations

import sqlite3

import pytest

from judgeagent.engine.callplan import NONE, ONE, Call, Count, unit_chain
from judgeagent.estimation.batch import TURNAROUND_PRIOR_S, BatchPlan, Range, expected_max_z, read_turnarounds, turnaround, waves
from judgeagent.llm.journal import BatchJob, Journal


def call(role: str, count: Count, **kw) -> Call:
    return Call("stage", role, count, [{"role": "user", "content": "q"}], 10, **kw)


def test_a_units_chain_adds_its_waits_and_only_the_longest_branch():
    calls = [
        call("target", ONE),  # the seed answers
        call("judge", Count.fixed(3)),  # three tries one after another: three waves
        call("judge", Count.fixed(6), waves=Count.fixed(2)),  # six checks, two rounds of them at once
        call("target", Count.fixed(2), waves=NONE),  # the controls, in the re-ask's wave
        call("judge", Count.fixed(4), branch="arm 1"),
        call("judge", Count.fixed(5), branch="arm 2"),  # the arms run at once: the longer one counts
        call("local", Count.fixed(9)),  # a local model's requests are live: no wave
    ]
    chain = unit_chain(calls, lambda role: role != "local")
    assert (chain.mean, chain.lo, chain.hi) == (1 + 3 + 2 + 0 + 5, 11, 11)


def test_the_run_waits_for_its_longest_unit_and_then_its_closing_steps():
    steady, varying = Count.fixed(3), Count(4.0, 1.0, 2.0, 6.0)
    chains = {s: [steady, varying] for s in ("low", "expected", "high")}
    closing = {s: ONE for s in ("low", "expected", "high")}
    z = expected_max_z(2)
    assert z == pytest.approx(0.5894, abs=1e-4)  # Blom: the expected larger of two normal draws
    # expected: 4 + z·1 (the longer of two draws) + 1 closing; low: 3 (the steady unit, since
    # 4 − 2·1 = 2 < 3) + 1; high: 4 + 2·1 = 6 (at most 6) + 1.
    assert waves(chains, closing, 2) == Range(4, round(4 + z + 1), 7)
    assert waves({s: [steady] for s in chains}, closing, 1) == Range(4, 4, 4)


def test_a_high_rate_can_mean_fewer_waves_so_the_range_spans_every_scenario():
    chains = {"low": [Count.fixed(9)], "expected": [Count.fixed(6)], "high": [Count.fixed(4)]}  # a gate that passes more: fewer tries
    closing = {s: NONE for s in chains}
    assert waves(chains, closing, 1) == Range(4, 6, 9)


def test_the_turnaround_is_the_models_own_then_its_endpoints_then_the_prior():
    measured = [("url|a", "url", 100.0), ("url|a", "url", 300.0), ("url|a", "url", 200.0), ("url|b", "url", 5000.0)]
    by_model, source = turnaround(measured, [("url|a", "url")])
    assert by_model == Range(100.0, 200.0, 600.0) and source == "measured on 3 job(s) of earlier runs (same model)"
    by_endpoint, source = turnaround(measured, [("url|c", "url")])
    assert by_endpoint == Range(100.0, 250.0, 10000.0) and source == "measured on 4 job(s) of earlier runs (same endpoint)"
    prior, source = turnaround(measured, [("other|d", "other")])
    assert prior == Range(*TURNAROUND_PRIOR_S) and source.startswith("prior")
    # A wave waits for its slowest job: two models, the slower one's figure.
    both, source = turnaround(measured, [("url|a", "url"), ("other|d", "other")])
    assert both == Range(100.0, 1800.0, 86400.0) and source.startswith("prior")


def test_only_jobs_seen_to_their_end_are_timed(tmp_path):
    journal = Journal(tmp_path / "journal.sqlite")
    rows = [("done", "completed", 1, 0, 120.0), ("expired", "expired", 1, 0, 86400.0), ("cut", "cancelled", 1, 1, 7200.0),
            ("out", "in_progress", 0, 0, None), ("old", "completed", 1, 0, None)]  # fmt: skip
    for token, status, collected, cut, took in rows:
        journal.batch_sent(BatchJob(token, "url|m", "url", wave=1, n_requests=1, created=0.0, job_id=f"batch_{token}", status=status), [])
        journal.batch_job_update(token, collected=bool(collected), deadline_cancelled=bool(cut), turnaround_s=took)
    journal.close()
    assert sorted(read_turnarounds(tmp_path / "journal.sqlite")) == [("url|m", "url", 120.0), ("url|m", "url", 86400.0)]
    # A journal from before the Batch API has no timings at all.
    old = tmp_path / "old.sqlite"
    sqlite3.connect(old).execute("CREATE TABLE responses (key TEXT)").connection.close()
    assert read_turnarounds(old) == []


def test_the_wall_time_is_the_waves_times_a_waves_time():
    plan = BatchPlan(["m"], [], Range(2, 10, 20), Range(60.0, 600.0, 3600.0), "prior", poll_s=15.0)
    # A wave: the job's turnaround and the next poll after it ends (one poll at once, two on
    # average, four at most: polling slows to 4× while nothing changes).
    assert plan.wave_s == Range(75.0, 630.0, 3660.0)
    assert plan.wall_s == Range(150.0, 6300.0, 73200.0)
