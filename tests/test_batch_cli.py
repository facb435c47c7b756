"""`--batch-api` end to end, through the command line, against the scripted Batch API
(tests/batch_server.py) with the interview doubles as target and judge: the same figures
as the same run without it, every request in a batch job; killed with SIGKILL while it
polls and run again, it finishes with the job count of an uninterrupted run; a job refused
at validation is one line and exit 2; a sweep's waves hold every target's requests."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from batch_server import BatchServer, JobScript
from interview_double import OrderFreeScript, Script
from test_interrupt import interrupt
from typer.testing import CliRunner

from judgeagent.cli.app import app

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data" / "medqa-demo"
JUDGEAGENT = str(Path(sys.executable).parent / "judgeagent")
PLAN = [(True, True), (True, False), (False, True), (False, False), (False, True), (True, True)]
QUICK = JobScript(validating_s=0.01, in_progress_s=0.02, finalizing_s=0.01)
VOLATILE = ("llm_usage", "timings")


def script(seeds) -> Script:
    return Script(seed_plan={q.question.strip(): p for q, p in zip(seeds, PLAN)}, answers={q.question.strip(): q.answer for q in seeds})


def evaluate_args(model: str, graph: Path, out: Path, *extra: str) -> list[str]:
    return ["evaluate", "--target", model, "--judge", model, "--data", str(DATA), "--graph", str(graph), "--limit", "6", "--out", str(out),
            "--no-report", *extra]  # fmt: skip


def figures(run: Path) -> dict:
    m = json.loads((run / "metrics.json").read_text())
    return {k: v for k, v in m.items() if k not in VOLATILE}


@pytest.mark.slow
def test_the_same_run_gives_the_same_figures_with_every_request_in_batch_jobs(tmp_path, demo_graph, demo_seeds):
    with BatchServer(script(demo_seeds), default=QUICK) as srv:
        model = f"{srv.base_url}@scripted"
        live = CliRunner().invoke(app, evaluate_args(model, demo_graph, tmp_path / "live"))
        live_requests = len(srv.requests)
        srv.reset()
        srv.responder = script(demo_seeds)
        batched = CliRunner().invoke(app, evaluate_args(model, demo_graph, tmp_path / "batch", "--batch-api", "--batch-api-poll-s", "0.01"))
        jobs, chat_requests = srv.custom_ids, len(srv.requests)
    assert live.exit_code == 0, live.output
    assert batched.exit_code == 0, batched.output
    assert figures(tmp_path / "batch") == figures(tmp_path / "live")
    m = json.loads((tmp_path / "batch" / "metrics.json").read_text())
    usage, batch = m["llm_usage"]["total"], m["llm_usage"]["batch_api"]
    assert chat_requests == 0 and usage["live_requests"] == 0  # target and judge: every request in a batch job
    assert usage["batch_requests"] == sum(len(j) for j in jobs) == live_requests
    assert batch["jobs"] == len(jobs) == batch["waves"]  # one model (target and judge share the endpoint): one job per wave
    assert max(len(j) for j in jobs) > 1  # a wave holds both seed batches' requests
    assert f"Batch API: {batch['waves']} waves, {len(jobs)} jobs; {usage['batch_requests']} requests in batch jobs" in batched.output


@pytest.mark.slow
def test_killed_while_it_polls_the_same_command_resumes_its_jobs_and_sends_nothing_twice(tmp_path, demo_graph, demo_seeds):
    flags = ["--batch-api", "--batch-api-poll-s", "0.02", "--no-summary", "--leak-check", "rules"]
    with BatchServer(script(demo_seeds), default=QUICK) as srv:
        reference = CliRunner().invoke(app, evaluate_args(f"{srv.base_url}@scripted", demo_graph, tmp_path / "reference", *flags))
        assert reference.exit_code == 0, reference.output
        uninterrupted = len(srv.jobs)
    hold = threading.Event()
    run = tmp_path / "run"
    with BatchServer(script(demo_seeds), default=QUICK) as srv:
        srv.script_jobs(QUICK, JobScript(validating_s=0.0, hold=hold))  # the second wave's job stays in progress
        cmd = [JUDGEAGENT, *evaluate_args(f"{srv.base_url}@scripted", demo_graph, run, *flags)]
        proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        try:
            while len(srv.jobs) < 2 or not srv.polled.is_set():
                srv.polled.clear()
                if not srv.polled.wait(0.5) and proc.poll() is not None:
                    pytest.fail(f"evaluate ended before its second job was polled: {proc.communicate()[1]}")
            proc.send_signal(signal.SIGKILL)
        finally:
            proc.kill()
            proc.wait()
        in_flight = [row for row in _jobs(run) if row[1] == "in_progress"]
        hold.set()
        again = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=600)
        jobs = srv.custom_ids
    assert len(in_flight) == 1  # written down before the process waited on it
    assert again.returncode == 0, again.stderr
    # Its output is a pipe, not a terminal: plain lines, which say the job was picked up, not sent again.
    (held,) = [row[0] for row in in_flight]
    assert f"[batch] picking up job {held} (wave " in again.stdout and "nothing in it is sent again" in again.stdout
    assert len(jobs) == uninterrupted  # no job sent twice, none extra
    every = [cid for job in jobs for cid in job]
    assert len(every) == len(set(every))  # no request in two jobs
    assert figures(run) == figures(tmp_path / "reference")


def test_jobs_that_always_expire_end_the_run_nothing_answered_and_a_log_shows_every_wave(tmp_path, demo_graph, demo_seeds):
    # One seed batch; every job expires with nothing run, as the held-out emulator's did. With
    # one resubmission allowed, two jobs go out, then the unit is left out, reason expired.
    expires = JobScript(validating_s=0.01, in_progress_s=0.02, expire_at=0.0)
    with BatchServer(script(demo_seeds), default=expires) as srv:
        model = f"{srv.base_url}@scripted"
        res = CliRunner().invoke(app, evaluate_args(model, demo_graph, tmp_path / "run", "--limit", "3", "--batch-api", "--batch-api-poll-s",
                                                    "0.01", "--batch-api-expired-retries", "1", "--no-summary", "--leak-check", "rules"))  # fmt: skip
        jobs, live = srv.custom_ids, len(srv.requests)
    assert res.exit_code == 4, res.output  # nothing answered (judgeagent/exits.py)
    assert [len(j) for j in jobs] == [1, 1] and live == 0
    m = json.loads((tmp_path / "run" / "metrics.json").read_text())
    assert (m["status"], m["incomplete"]["reasons"]) == ("nothing_answered", {f"expired ({model}, grading)": 1})
    assert m["llm_usage"]["batch_api"]["expired"] == {"policy": "retry", "max_resubmissions": 1, "lines": 2, "resubmitted": 1, "sent_live": 0,
                                                      "left_incomplete": 1}  # fmt: skip
    out = " ".join(res.output.split())
    # CliRunner's output is no terminal: the waves and jobs are plain lines.
    assert "[batch] wave 1: sending its requests as Batch API jobs (1 so far, 1 requests)" in out
    assert re.search(r"\[batch\] wave 2: job batch_\w+ \(.+@scripted\) expired: 0 of 1 requests done", out), out
    assert ("2 request(s) came back expired (--batch-api-expired retry): 1 resubmitted at batch price (each try can take another 24 h window), "
            "1 left incomplete (reason expired)") in out
    assert "nothing answered: every batch left out of the figures" in out and "(exit code 4)" in out


def test_the_dry_run_says_what_each_choice_for_expired_jobs_costs(tmp_path, demo_graph, demo_seeds):
    with BatchServer(judge_double(demo_seeds), default=QUICK) as srv:
        models = priced(tmp_path, srv)
        res = CliRunner().invoke(app, evaluate_args("scripted", demo_graph, tmp_path / "run", "--models", str(models), "--batch-api",
                                                    "--batch-api-expired", "live", "--dry-run"))  # fmt: skip
        sent = (len(srv.requests), len(srv.jobs))
    assert res.exit_code == 0, res.output
    assert sent == (0, 0)
    lines = [line.strip() for line in res.output.splitlines()]
    start = lines.index("if a job expires (24.0 h window; --batch-api-expired live):")
    retry, live, stop = lines[start + 1 : start + 4]
    assert retry == "retry: sent again in a new job at batch prices, up to 2 more time(s): no extra cost, up to 2.0 days more wait (24.0 h a try)"
    assert re.fullmatch(r"\* live: sent one by one at once, at live prices: up to \$[\d.]+ more if every request expired, no wait past the window", live)
    assert stop == "stop: left incomplete (exit code 3): nothing more spent or waited; rerun the command to send them again"


def _jobs(run: Path) -> list[tuple]:
    import sqlite3

    db = sqlite3.connect(run / "journal.sqlite")
    try:
        return db.execute("SELECT job_id, status FROM batch_jobs ORDER BY created").fetchall()
    finally:
        db.close()


def test_a_job_refused_at_validation_stops_the_run_with_one_line_and_keeps_what_was_answered(tmp_path, demo_graph, demo_seeds):
    with BatchServer(script(demo_seeds), default=QUICK) as srv:
        srv.script_jobs(QUICK, JobScript(validating_s=0.01, reject_param="response_format"))
        res = CliRunner().invoke(app, evaluate_args(f"{srv.base_url}@scripted", demo_graph, tmp_path / "run", "--batch-api",
                                                    "--batch-api-poll-s", "0.01"))  # fmt: skip
        first = srv.custom_ids[0]
    assert res.exit_code == 2
    last = res.output.strip().splitlines()[-1]
    assert re.match(r"error: model '.*@scripted': the Batch API of http://127\.0\.0\.1:\d+/v1 refused job batch_\w+ \(line 1 \(a \w+ request\): "
                    r"param body\.response_format, invalid_value: .*\); nothing in it was run or billed", last), res.output  # fmt: skip
    assert _answers(tmp_path / "run") == len(first)  # the first wave's answers are kept


def _answers(run: Path) -> int:
    import sqlite3

    db = sqlite3.connect(run / "journal.sqlite")
    try:
        return db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
    finally:
        db.close()


# --------------------------------------------------------------------------- sweep


@pytest.mark.slow
def test_a_sweep_gives_the_same_leaderboard_and_its_waves_hold_every_targets_requests(tmp_path, demo_graph, demo_seeds):
    plans = {"strong": ("111111", "111111", True), "weak": ("100000", "100001", False)}

    def target(name: str) -> Script:
        before, after, right = plans[name]
        plan = {q.question.strip(): (b == "1", a == "1") for q, b, a in zip(demo_seeds, before, after)}
        return Script(seed_plan=plan, answers={q.question.strip(): q.answer for q in demo_seeds}, followups_right=right)

    def sweep(tag: str, *flags: str) -> tuple[dict, dict, str, int]:
        import shutil

        graph = tmp_path / tag / "graphs" / "medqa-demo"
        shutil.copytree(demo_graph, graph)
        with BatchServer(OrderFreeScript(), default=QUICK) as j, BatchServer(target("strong"), default=QUICK) as s, \
                BatchServer(target("weak"), default=QUICK) as w:  # fmt: skip
            servers = {"judge": j, "strong": s, "weak": w}
            models = tmp_path / tag / "judgeagent.toml"
            models.write_text("".join(f'[models.{k}]\nbase_url = "{v.base_url}"\nmodel = "{k}"\n' for k, v in servers.items()))
            args = ["sweep", "--targets", "strong,weak", "--judge", "judge", "--data", str(DATA), "--graph", str(graph), "--limit", "6",
                    "--bootstrap", "200", "--models", str(models), "--out", str(tmp_path / tag / "sweep"), "--no-report", *flags]  # fmt: skip
            dry = CliRunner().invoke(app, [*args, "--dry-run"])
            assert dry.exit_code == 0 and not any(v.requests or v.jobs for v in servers.values()), dry.output  # the estimate sends nothing
            res = CliRunner().invoke(app, args)
            assert res.exit_code == 0, res.output
            seen = {k: (len(v.requests), [[line["body"]["model"] for line in job.lines] for job in v.jobs]) for k, v in servers.items()}
            waves = len({job.metadata["judgeagent_wave"] for v in servers.values() for job in v.jobs})  # the sweep's, every model's jobs
        board = json.loads((tmp_path / tag / "sweep" / "leaderboard.json").read_text())
        return json.loads(json.dumps(board).replace(str(tmp_path / tag), "X")), seen, dry.output, waves

    live, _, _, _ = sweep("live")
    batched, seen, dry, waves = sweep("batch", "--batch-api", "--batch-api-poll-s", "0.01")
    assert batched == live
    assert all(requests == 0 for requests, _ in seen.values())  # every model asked through its Batch API only
    assert max(len(job) for job in seen["judge"][1]) >= 4  # one wave: both targets' two seed batches, in one judge job
    # --dry-run --batch-api: the targets' interviews share their waves, then one for the shared items.
    expected, low, high = dry_run_waves(dry)
    assert low <= waves <= high, (waves, dry)
    assert "at batch prices, against" in dry and "turnaround per job:" in dry


@pytest.mark.slow
def test_ctrl_c_while_a_job_runs_stops_at_once_and_the_rerun_collects_that_job(tmp_path, demo_graph, demo_seeds):
    hold = threading.Event()
    run = tmp_path / "run"
    with BatchServer(script(demo_seeds), default=QUICK) as srv:
        srv.script_jobs(JobScript(validating_s=0.0, hold=hold))
        cmd = [JUDGEAGENT, *evaluate_args(f"{srv.base_url}@scripted", demo_graph, run, "--batch-api", "--batch-api-poll-s", "0.02",
                                          "--no-summary", "--leak-check", "rules")]  # fmt: skip
        proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        while not srv.polled.wait(0.5):
            if proc.poll() is not None:
                pytest.fail(f"evaluate ended before its job was polled: {proc.communicate()[1]}")
        code, err = interrupt(proc)
        hold.set()
        again = subprocess.run(cmd, cwd=tmp_path, capture_output=True, text=True, timeout=600)
        first_job = srv.custom_ids[0]
        later = srv.custom_ids[1:]
    assert code == 130, err
    assert "to continue" in err
    assert again.returncode == 0, again.stderr
    assert not set(first_job) & {cid for job in later for cid in job}  # its requests were collected, not sent again


# --------------------------------------------------------------------------- every protocol, and --dry-run


def judge_double(seeds) -> OrderFreeScript:
    """The target and judge double, naming each generated question after its prompt (live
    calls and a job's lines reach it in different orders)."""
    return OrderFreeScript(seed_plan={q.question.strip(): p for q, p in zip(seeds, PLAN)}, answers={q.question.strip(): q.answer for q in seeds})


def priced(tmp_path: Path, srv: BatchServer) -> Path:
    """A registry naming the scripted server's model, at live prices with half off in a batch job."""
    path = tmp_path / "judgeagent.toml"
    path.write_text(f'[models.scripted]\nbase_url = "{srv.base_url}"\nmodel = "scripted"\nprice_in_per_1k = 0.002\nprice_out_per_1k = 0.008\n'
                    "batch_discount = 0.5\n")  # fmt: skip
    return path


WAVES = re.compile(r"^waves: (\d+) \((\d+)–(\d+)\)", re.M)


def dry_run_waves(output: str) -> tuple[int, int, int]:
    """(expected, low, high) from a --dry-run --batch-api's waves line."""
    m = WAVES.search(output)
    assert m, output
    return int(m.group(1)), int(m.group(2)), int(m.group(3))


def ablation_figures(run: Path) -> dict:
    arms = json.loads((run / "ablation.json").read_text())["metrics"]
    return {arm: {k: v for k, v in m.items() if k not in VOLATILE} for arm, m in arms.items()}


@pytest.mark.parametrize("protocol", ["kieval", "interviewer", "escalate", "contamination", "ablate"])
@pytest.mark.slow
def test_every_protocol_gives_the_same_figures_in_batch_jobs_in_as_many_waves_as_its_dry_run_said(tmp_path, demo_graph, demo_seeds, protocol):
    command = [protocol] if protocol in ("ablate", "contamination") else ["evaluate", "--protocol", protocol]  # their own commands
    with BatchServer(judge_double(demo_seeds), default=QUICK) as srv:
        models = priced(tmp_path, srv)

        def run(out: str, *extra: str):
            return CliRunner().invoke(app, [*command, *evaluate_args("scripted", demo_graph, tmp_path / out, "--models", str(models), *extra)[1:]])

        dry = run("batch", "--batch-api", "--dry-run")
        sent_by_dry_run = (len(srv.requests), len(srv.jobs))
        live = run("live")
        srv.reset()
        batched = run("batch", "--batch-api", "--batch-api-poll-s", "0.01")
        chat_requests = len(srv.requests)
    assert dry.exit_code == 0, dry.output
    assert live.exit_code == 0, live.output
    assert batched.exit_code == 0, batched.output
    assert sent_by_dry_run == (0, 0)
    same = ablation_figures if protocol == "ablate" else figures
    assert same(tmp_path / "batch") == same(tmp_path / "live")
    usage = json.loads((tmp_path / "batch" / "metrics.json").read_text())["llm_usage"]
    assert chat_requests == 0 and usage["total"]["live_requests"] == 0 and usage["total"]["batch_requests"] > 0
    expected, low, high = dry_run_waves(dry.output)
    assert low <= usage["batch_api"]["waves"] <= high, (usage["batch_api"]["waves"], dry.output)


@pytest.mark.slow
def test_the_dry_run_prints_waves_both_costs_and_the_wall_time_measured_on_earlier_jobs(tmp_path, demo_graph, demo_seeds):
    with BatchServer(judge_double(demo_seeds), default=QUICK) as srv:
        models = priced(tmp_path, srv)

        def run(out: str, *extra: str):
            return CliRunner().invoke(app, evaluate_args("scripted", demo_graph, tmp_path / "runs" / out, "--models", str(models),
                                                         "--batch-api", "--batch-api-poll-s", "0.01", *extra))  # fmt: skip

        before = run("a", "--dry-run")
        sent_by_dry_run = (len(srv.requests), len(srv.jobs))
        done = run("a")
        jobs = len(srv.jobs)
        after = run("b", "--seed", "1", "--dry-run")  # another run: it learns from run a's jobs
    assert before.exit_code == 0 and done.exit_code == 0 and after.exit_code == 0, before.output + done.output + after.output
    assert sent_by_dry_run == (0, 0) and len(srv.jobs) == jobs
    out = " ".join(before.output.split())
    # Batch prices are half the live ones here, request for request.
    cost = re.search(r"cost: \$([\d.]+) \(\$([\d.]+)–\$([\d.]+)\) at batch prices, against \$([\d.]+) \(\$([\d.]+)–\$([\d.]+)\) live", out)
    assert cost, out
    at_batch, live = [float(x) for x in cost.groups()[:3]], [float(x) for x in cost.groups()[3:]]
    assert all(b == pytest.approx(v / 2, abs=1e-4) for b, v in zip(at_batch, live))
    assert "at batch prices" in before.output.splitlines()[2]  # a column of the table, beside the live cost
    assert "Batch API: scripted through batch jobs" in out
    assert "turnaround per job: 30 min (60 s–24.0 h), prior" in out
    expected, low, high = dry_run_waves(before.output)
    waves = json.loads((tmp_path / "runs" / "a" / "metrics.json").read_text())["llm_usage"]["batch_api"]["waves"]
    assert low <= waves <= high
    assert re.search(r"wall time: .+ \(.+–.+\) = waves × \(turnaround \+ a poll\)", out)
    assert f"Batch API: {waves} waves, {jobs} jobs" in " ".join(done.output.split())  # the run's summary says how many waves it took
    # The second estimate times its waves by what run a's jobs took at the provider.
    assert re.search(rf"turnaround per job: \d+ s \(\d+ s–\d+ s\), measured on {jobs} job\(s\) of earlier runs \(same model\)",
                     " ".join(after.output.split())), after.output  # fmt: skip


@pytest.mark.slow
def test_past_the_deadline_a_job_is_cancelled_and_the_summary_says_which_way_each_request_went_and_its_cost(tmp_path, demo_graph, demo_seeds):
    never = threading.Event()
    with BatchServer(judge_double(demo_seeds), default=QUICK) as srv:
        models = priced(tmp_path, srv)
        args = evaluate_args("scripted", demo_graph, tmp_path / "live", "--models", str(models), "--no-summary", "--leak-check", "rules")
        live = CliRunner().invoke(app, args)
        srv.reset()
        # The second wave's job runs half its lines, then stays in progress until the deadline cancels it.
        srv.script_jobs(QUICK, JobScript(validating_s=0.0, in_progress_s=0.01, hold=never, hold_at=0.5))
        batched = CliRunner().invoke(app, [*evaluate_args("scripted", demo_graph, tmp_path / "batch", *args[args.index("--models"):]),
                                           "--batch-api", "--batch-api-poll-s", "0.01", "--batch-api-deadline", "1s"])  # fmt: skip
        held = srv.jobs[1]
        sent_live = len(srv.requests)
    assert live.exit_code == 0, live.output
    assert batched.exit_code == 0, batched.output
    assert figures(tmp_path / "batch") == figures(tmp_path / "live")
    assert held.ended == "cancelled" and 0 < len(held.done) < len(held.lines)  # what it ran before the cancel is kept
    usage = json.loads((tmp_path / "batch" / "metrics.json").read_text())["llm_usage"]
    total, batch = usage["total"], usage["batch_api"]
    assert sent_live == len(held.lines) - len(held.done)  # only the lines the cancel kept from running went live
    assert (batch["deadline_cancelled_jobs"], batch["sent_live_after_deadline"]) == (1, sent_live)
    assert total["live_requests"] == sent_live and total["batch_requests"] == sum(len(j.lines) for j in srv.jobs) - sent_live
    assert total["batch_cost_usd"] > 0 and total["live_cost_usd"] > 0
    line = " ".join(batched.output.split())
    assert (f"{total['batch_requests']} requests in batch jobs (${total['batch_cost_usd']:.4f}), {sent_live} one by one "
            f"(${total['live_cost_usd']:.4f}); 1 job(s) cancelled at the deadline, {sent_live} of their requests then sent one by one") in line


def test_batch_api_true_in_the_registry_batches_that_model_without_the_flag(tmp_path, demo_graph, demo_seeds):
    with BatchServer(judge_double(demo_seeds), default=QUICK) as srv:
        models = tmp_path / "judgeagent.toml"
        models.write_text(f'[models.scripted]\nbase_url = "{srv.base_url}"\nmodel = "scripted"\nbatch_api = true\n')
        res = CliRunner().invoke(app, evaluate_args("scripted", demo_graph, tmp_path / "run", "--models", str(models), "--rounds", "0",
                                                    "--no-summary", "--leak-check", "rules", "--batch-api-poll-s", "0.01"))  # fmt: skip
        chat_requests, jobs = len(srv.requests), len(srv.jobs)
    assert res.exit_code == 0, res.output
    assert chat_requests == 0 and jobs > 0
    assert f"Batch API: {jobs} waves, {jobs} jobs" in " ".join(res.output.split())
