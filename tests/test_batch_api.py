"""The Batch API transport (judgeagent/llm/batch/) against the scripted Batch API
(tests/batch_server.py), below the engine: the same replies as live calls, one job per wave,
the documented unkind parts (lines out of order, per-request 500s and 400s, an expired job
with half its lines done, a failed validation, a cancel that lingers, null file ids), the
deadline, resuming after a stop without paying twice, and the barrier that forms waves."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import threading

import pytest
from batch_server import BatchServer, JobScript
from scripted_server import Fault, RefusesOptions

from judgeagent.config import LLMConfig
from judgeagent.llm import FailureKind, LLMClient, ModelSpec
from judgeagent.llm.batch import BatchRejected
from judgeagent.llm.batch.lines import NotRun, chunks, custom_id, input_line, outcome, parse_jsonl
from judgeagent.llm.batch.waves import PENDING, SENT, WaveBarrier
from judgeagent.llm.outcome import Reply

QUICK = JobScript(validating_s=0.01, in_progress_s=0.02, finalizing_s=0.01)


def ask(n: int, start: int = 0) -> list[list[dict]]:
    return [[{"role": "user", "content": f"question {i}"}] for i in range(start, start + n)]


def client(path, **settings) -> LLMClient:
    """A Batch API client polling every 10 ms; ``settings`` are LLMConfig's fields."""
    return LLMClient(path, LLMConfig(batch_api=True, batch_api_poll_s=0.01, **settings), backoff_base=0.01)


async def chat_all(c: LLMClient, spec: ModelSpec, convos: list[list[dict]], **kw) -> list:
    return await asyncio.gather(*[c.chat(spec, m, **kw) for m in convos])


def run(coro):
    return asyncio.run(coro)


# --------------------------------------------------------------------------- the files


def test_a_line_is_the_live_body_and_its_id_names_the_request_the_body_and_the_resend():
    body = {"model": "m", "messages": [{"role": "user", "content": "hi"}], "temperature": 0.0, "max_tokens": 5}
    line = json.loads(input_line(custom_id("k1", body, 0), body))
    assert line == {"custom_id": custom_id("k1", body, 0), "method": "POST", "url": "/v1/chat/completions", "body": body}
    ids = {custom_id("k1", body, 0), custom_id("k2", body, 0), custom_id("k1", body | {"seed": 0}, 0), custom_id("k1", body, 1)}
    assert len(ids) == 4 and all(len(i) <= 64 for i in ids)


def test_output_and_error_lines_read_as_a_live_call_would_have_been():
    convo = [{"role": "user", "content": "q"}]
    ok = {"custom_id": "a", "response": {"status_code": 200, "body": {"choices": [{"message": {"content": "B"}, "finish_reason": "stop"}],
                                                                      "usage": {"prompt_tokens": 3, "completion_tokens": 1}}}, "error": None}  # fmt: skip
    refused = {"custom_id": "b", "response": {"status_code": 400, "body": {"error": {"message": "Unsupported parameter: 'seed'", "param": "seed",
                                                                                     "code": "unsupported_parameter"}}}, "error": None}  # fmt: skip
    broken = {"custom_id": "c", "response": {"status_code": 500, "body": {"error": {"message": "server had an error"}}}, "error": None}
    expired = {"custom_id": "d", "response": None, "error": {"code": "batch_expired", "message": "not run in time"}}
    got = [outcome(x, convo) for x in (ok, refused, broken, expired, None)]
    assert isinstance(got[0], Reply) and (got[0].text, got[0].tokens.prompt_tokens) == ("B", 3)
    assert (got[1].kind, got[1].param) == (FailureKind.REFUSED_PARAMETER, "seed")
    assert got[2].kind is FailureKind.SERVER_ERROR
    assert got[3] == NotRun("expired", "batch_expired: not run in time") and got[4].why == "missing"
    text = "\n".join(json.dumps(x) for x in (ok, broken)) + "\n\nnot json\n"
    assert set(parse_jsonl(text)) == {"a", "c"}


def test_a_wave_is_split_at_the_providers_limits(monkeypatch):
    import judgeagent.llm.batch.lines as lines

    monkeypatch.setattr(lines, "MAX_LINES", 3)
    assert chunks(["x"] * 7) == [[0, 1, 2], [3, 4, 5], [6]]
    monkeypatch.setattr(lines, "MAX_BYTES", 10)
    assert chunks(["aaaa", "bbbb", "cccc"]) == [[0, 1], [2]]


# --------------------------------------------------------------------------- one wave, same replies


def test_requests_asked_at_once_go_in_one_job_and_come_back_matched_out_of_order(tmp_path):
    async def main():
        with BatchServer(default=QUICK) as srv:
            spec = ModelSpec("m", srv.base_url, "scripted-model")
            async with client(tmp_path / "j.sqlite") as c:
                got = await chat_all(c, spec, ask(6))
                summary = c.batch_summary()
                usage = c.usage.summary()["total"]
            job = srv.jobs[0]
            written = [json.loads(x)["custom_id"] for x in srv.files[job.output_file_id]["bytes"].decode().splitlines()]
            return got, summary, usage, srv.custom_ids, written, len(srv.requests), job.error_file_id

    got, summary, usage, ids, written, live, error_file = run(main())
    assert [r.text for r in got] == [f"echo: question {i}" for i in range(6)]  # each reply to its own request
    assert written != ids[0] and sorted(written) == sorted(ids[0])  # the output came back in another order
    assert len(ids) == 1 and live == 0 and error_file is None  # one job; nothing live; no error file (null)
    assert all(r.via == "batch" for r in got)
    assert (usage["batch_requests"], usage["live_requests"]) == (6, 0)
    assert (summary["waves"], summary["jobs"], summary["answered"]) == (1, 1, 6)


def test_a_rerun_replays_from_the_journal_and_sends_no_job(tmp_path):
    async def main():
        with BatchServer(default=QUICK) as srv:
            spec = ModelSpec("m", srv.base_url, "scripted-model")
            async with client(tmp_path / "j.sqlite") as c:
                await chat_all(c, spec, ask(3))
            async with client(tmp_path / "j.sqlite") as c:
                again = await chat_all(c, spec, ask(3))
            return again, len(srv.jobs), srv.uploads

    again, jobs, uploads = run(main())
    assert [r.cached for r in again] == [True] * 3 and (jobs, uploads) == (1, 1)
    rows = sqlite3.connect(tmp_path / "j.sqlite").execute("SELECT via, COUNT(*) FROM responses GROUP BY via").fetchall()
    assert rows == [("batch", 3)]


# --------------------------------------------------------------------------- failures are not answers


def test_a_500_in_the_error_file_is_asked_again_in_the_next_wave(tmp_path):
    async def main():
        script = JobScript(validating_s=0.01, in_progress_s=0.02, finalizing_s=0.01, line_faults={0: Fault.status(500), 1: Fault.status(500)})
        with BatchServer(default=QUICK) as srv:
            srv.script_jobs(script)
            spec = ModelSpec("m", srv.base_url, "scripted-model")
            async with client(tmp_path / "j.sqlite") as c:
                got = await chat_all(c, spec, ask(2))
                usage = c.usage.summary()["total"]
            return got, srv.custom_ids, srv.jobs[0].output_file_id, usage

    got, ids, first_output, usage = run(main())
    assert [r.text for r in got] == ["echo: question 0", "echo: question 1"] and all(r.ok for r in got)
    assert first_output is None  # every line failed: the first job had no output file
    assert len(ids) == 2 and all(i.endswith("-0") for i in ids[0]) and all(i.endswith("-1") for i in ids[1])
    assert (usage["batch_requests"], usage["retries"]) == (4, 2)


def test_a_parameter_refused_in_the_error_file_is_learnt_once_for_the_model(tmp_path):
    async def main():
        with BatchServer(default=QUICK, provider=RefusesOptions("param", refused=("seed",))) as srv:
            spec = ModelSpec("m", srv.base_url, "scripted-model")
            async with client(tmp_path / "j.sqlite") as c:
                got = await chat_all(c, spec, ask(3))
                later = await chat_all(c, spec, ask(2, start=3))
            return got + later, [[line["body"] for line in job.lines] for job in srv.jobs]

    got, bodies = run(main())
    assert all(r.ok for r in got)
    assert [len(b) for b in bodies] == [3, 3, 2]  # refused in the first wave, sent again without it, then never again
    assert all("seed" in b for b in bodies[0]) and not any("seed" in b for job in bodies[1:] for b in job)


def test_an_expired_job_keeps_the_lines_it_ran_and_the_rest_are_asked_again(tmp_path):
    async def main():
        with BatchServer(default=QUICK) as srv:
            srv.script_jobs(JobScript(validating_s=0.01, in_progress_s=0.04, expire_at=0.5))
            spec = ModelSpec("m", srv.base_url, "scripted-model")
            async with client(tmp_path / "j.sqlite") as c:
                got = await chat_all(c, spec, ask(4))
                summary = c.batch_summary()
            first = srv.jobs[0]
            view = (first.ended, len(first.done))
            errors = [json.loads(x)["error"]["code"] for x in srv.files[first.error_file_id]["bytes"].decode().splitlines()]
            return got, srv.custom_ids, view, errors, summary, srv.lines_run

    got, ids, (status, ran), errors, summary, lines_run = run(main())
    assert [r.text for r in got] == [f"echo: question {i}" for i in range(4)]
    assert (status, ran, errors) == ("expired", 2, ["batch_expired", "batch_expired"])
    assert len(ids[1]) == 2 and not set(ids[1]) & set(ids[0])  # only the two that never ran, under new ids
    assert lines_run == 4  # no request answered twice
    assert [j["status"] for j in summary["job_list"]] == ["expired", "completed"] and summary["not_run"] == 2


def test_a_job_that_fails_validation_is_one_line_naming_the_line_and_parameter(tmp_path):
    async def main():
        with BatchServer(default=QUICK) as srv:
            spec = ModelSpec("m", srv.base_url, "scripted-model")
            async with client(tmp_path / "j.sqlite") as c:
                kept = await c.chat(spec, ask(1)[0])  # answered before: kept
                srv.script_jobs(JobScript(validating_s=0.01, reject_param="seed"))
                with pytest.raises(BatchRejected) as err:
                    await chat_all(c, spec, ask(2, start=1))
            return kept, str(err.value), srv.lines_run

    kept, message, lines_run = run(main())
    assert kept.ok and lines_run == 1
    assert message.startswith("model 'm': the Batch API of http://127.0.0.1:") and "\n" not in message
    assert "line 1 (a misc request): param body.seed, invalid_value: 'seed' is not supported with this model in batch" in message
    assert "nothing in it was run or billed, answers so far are saved" in message
    assert len(sqlite3.connect(tmp_path / "j.sqlite").execute("SELECT key FROM responses").fetchall()) == 1


def test_a_job_refused_for_the_providers_enqueued_token_limit_is_waited_out_and_sent_again(tmp_path):
    async def main():
        with BatchServer(default=QUICK) as srv:
            srv.script_jobs(JobScript(validating_s=0.01, token_limit=True))
            spec = ModelSpec("m", srv.base_url, "scripted-model")
            async with client(tmp_path / "j.sqlite") as c:
                got = await chat_all(c, spec, ask(3))
                summary, usage = c.batch_summary(), c.usage.summary()["total"]
            return got, srv.custom_ids, [j.ended for j in srv.jobs], summary, usage, srv.lines_run

    got, ids, ends, summary, usage, lines_run = run(main())
    assert [r.text for r in got] == [f"echo: question {i}" for i in range(3)]
    assert ends == ["failed", "completed"] and lines_run == 3  # nothing ran in the refused job
    assert [len(x) for x in ids] == [3, 3] and not set(ids[0]) & set(ids[1])  # asked again, as new lines
    assert usage["retries"] == 3 and summary["not_run"] == 3


def test_a_finished_job_keeps_its_time_at_the_provider_by_the_providers_clock(tmp_path):
    async def main():
        with BatchServer(default=QUICK) as srv:
            srv.script_jobs(JobScript(validating_s=0.0, in_progress_s=1.2, finalizing_s=0.0, shuffle=False))
            spec = ModelSpec("m", srv.base_url, "scripted-model")
            async with client(tmp_path / "j.sqlite") as c:
                await chat_all(c, spec, ask(2))
            return srv.jobs[0]

    job = run(main())
    (turnaround,) = sqlite3.connect(tmp_path / "j.sqlite").execute("SELECT turnaround_s FROM batch_jobs").fetchone()
    # The batch object's created_at and completed_at are whole seconds, as OpenAI's are.
    assert turnaround == pytest.approx(job.ended_by - job.created, abs=1.0) and 0 <= turnaround <= 3


def test_an_endpoint_without_a_batch_api_is_one_line(tmp_path):
    async def main():
        with BatchServer(default=QUICK) as srv:
            spec = ModelSpec("m", srv.base_url.replace("/v1", "/v0"), "scripted-model")  # no /files there: 404
            async with client(tmp_path / "j.sqlite") as c:
                with pytest.raises(BatchRejected) as err:
                    await c.chat(spec, ask(1)[0])
            return str(err.value)

    message = run(main())
    assert "the Batch API of http://127.0.0.1:" in message and "HTTP 404" in message and "run without --batch-api" in message


# --------------------------------------------------------------------------- the deadline


def test_past_the_deadline_the_job_is_cancelled_what_finished_is_kept_and_the_rest_goes_live(tmp_path):
    never, cancelled = threading.Event(), threading.Event()

    async def main():
        with BatchServer(default=QUICK) as srv:
            srv.script_jobs(JobScript(validating_s=0.0, in_progress_s=0.01, hold=never, hold_at=0.5, cancel_hold=cancelled))
            spec = ModelSpec("m", srv.base_url, "scripted-model", price_in_per_1k=1.0, price_out_per_1k=1.0, batch_discount=0.5)
            async with client(tmp_path / "j.sqlite", batch_api_deadline="0.05s") as c:
                calls = asyncio.gather(*[c.chat(spec, m) for m in ask(4)])
                while not (srv.jobs and srv.jobs[0].cancel_at is not None):
                    await asyncio.to_thread(srv.polled.wait, 5)
                    srv.polled.clear()
                await asyncio.to_thread(srv.polled.wait, 5)  # polled again while it lingers in cancelling
                live_while_cancelling = len(srv.requests)
                cancelled.set()
                got = await calls
                usage, summary = c.usage.summary()["total"], c.batch_summary()
            return got, live_while_cancelling, srv.jobs[0], srv.arrivals, usage, summary

    got, early, job, arrivals, usage, summary = run(main())
    assert [r.text for r in got] == [f"echo: question {i}" for i in range(4)]
    assert early == 0 and job.ended == "cancelled" and len(job.done) == 2
    assert all(t > job.ended_at for t in arrivals)  # nothing sent live before the job said it was cancelled
    assert [r.via for r in got].count("live") == 2 and len(arrivals) == 2
    assert (usage["batch_requests"], usage["live_requests"]) == (2, 2)
    assert usage["batch_cost_usd"] == pytest.approx(0.5 * usage["cost_usd"] / (0.5 + 1.0), rel=0.01)  # same tokens, half price
    assert (summary["sent_live_after_deadline"], summary["deadline_cancelled_jobs"]) == (2, 1)


def test_a_cancel_refused_because_the_job_is_finalizing_is_no_error_the_job_is_collected(tmp_path):
    # The job is in_progress at the client's last poll and finalizing when its cancel arrives:
    # the provider answers 400 as OpenAI does. Every line ran, so every answer comes from the
    # job, at batch price; nothing is sent live, and the job is not counted as cancelled.
    running, finalizing = threading.Event(), threading.Event()

    async def main():
        with BatchServer(default=QUICK) as srv:
            # The hold alone keeps it in progress: with a scripted running time too, a cancel that came
            # within that time of the job's creation (a fast client, a slow machine) found it running still.
            srv.script_jobs(JobScript(validating_s=0.0, in_progress_s=0.0, hold=running, finalizing_hold=finalizing))
            srv.before_cancel = lambda job: running.set()  # it moves on as the cancel is on its way
            spec = ModelSpec("m", srv.base_url, "scripted-model")
            async with client(tmp_path / "j.sqlite", batch_api_deadline="0.05s") as c:
                calls = asyncio.gather(*[c.chat(spec, m) for m in ask(3)])
                await asyncio.to_thread(srv.cancel_refused.wait, 5)
                finalizing.set()
                got = await calls
                usage, summary = c.usage.summary()["total"], c.batch_summary()
            return got, srv.jobs[0], len(srv.requests), usage, summary, srv.cancel_refused.is_set()

    got, job, live, usage, summary, refused = run(main())
    assert refused and (job.ended, job.cancel_at, len(job.done)) == ("completed", None, 3)
    assert [r.text for r in got] == [f"echo: question {i}" for i in range(3)]
    assert [r.via for r in got] == ["batch"] * 3 and live == 0
    assert (usage["batch_requests"], usage["live_requests"]) == (3, 0)
    assert (summary["answered"], summary["sent_live_after_deadline"], summary["deadline_cancelled_jobs"]) == (3, 0, 0)
    assert [j["status"] for j in summary["job_list"]] == ["completed"]


def test_a_cancel_refused_while_the_job_could_still_be_cancelled_stops_with_one_line(tmp_path):
    # A 400 to a cancel of a job still in_progress is not the race above: the endpoint's Batch
    # API does not work as documented, and the run stops as for any refused Batch API call.
    never = threading.Event()

    async def main():
        with BatchServer(default=QUICK) as srv:
            srv.script_jobs(JobScript(validating_s=0.0, in_progress_s=0.01, hold=never, no_cancel=True))
            spec = ModelSpec("m", srv.base_url, "scripted-model")
            async with client(tmp_path / "j.sqlite", batch_api_deadline="0.05s") as c:
                with pytest.raises(BatchRejected) as err:
                    await chat_all(c, spec, ask(2))
            never.set()
            return str(err.value)

    message = run(main())
    assert "cannot be used (cancelling job batch_" in message and "HTTP 400" in message


# --------------------------------------------------------------------------- stopping and resuming


def test_a_stopped_client_resumes_the_job_it_sent_and_never_sends_those_requests_again(tmp_path):
    hold = threading.Event()

    async def first(srv, spec):
        async with client(tmp_path / "j.sqlite") as c:
            calls = asyncio.ensure_future(chat_all(c, spec, ask(3)))
            await asyncio.to_thread(srv.polled.wait, 10)
            calls.cancel()  # as Ctrl-C does: the job stays in flight at the provider
            with pytest.raises(asyncio.CancelledError):
                await calls

    async def second(srv, spec):
        async with client(tmp_path / "j.sqlite") as c:
            hold.set()
            return await chat_all(c, spec, ask(4))

    async def main():
        with BatchServer(default=QUICK) as srv:
            srv.script_jobs(JobScript(validating_s=0.0, hold=hold))
            spec = ModelSpec("m", srv.base_url, "scripted-model")
            await first(srv, spec)
            journaled = sqlite3.connect(tmp_path / "j.sqlite").execute("SELECT job_id, status FROM batch_jobs").fetchall()
            got = await second(srv, spec)
            return got, journaled, srv.custom_ids, srv.jobs[0].id, srv.lines_run

    got, journaled, ids, first_job, lines_run = run(main())
    assert journaled == [(first_job, "in_progress")]  # written down before anything waited on it
    assert [r.text for r in got] == [f"echo: question {i}" for i in range(4)]
    assert [len(x) for x in ids] == [3, 1] and lines_run == 4  # the new job holds only the new request


def test_a_job_created_but_never_written_down_is_found_by_its_token(tmp_path):
    hold = threading.Event()

    async def main():
        with BatchServer(default=QUICK) as srv:
            srv.script_jobs(JobScript(validating_s=0.0, hold=hold))
            spec = ModelSpec("m", srv.base_url, "scripted-model")
            async with client(tmp_path / "j.sqlite") as c:
                calls = asyncio.ensure_future(chat_all(c, spec, ask(2)))
                await asyncio.to_thread(srv.polled.wait, 10)
                calls.cancel()
                await asyncio.gather(calls, return_exceptions=True)
            # As if the process had died between creating the job and writing its id down.
            db = sqlite3.connect(tmp_path / "j.sqlite")
            db.execute("UPDATE batch_jobs SET job_id = NULL, status = 'preparing'")
            db.commit()
            db.close()
            async with client(tmp_path / "j.sqlite") as c:
                hold.set()
                got = await chat_all(c, spec, ask(2))
            return got, len(srv.jobs), srv.jobs[0].metadata

    got, jobs, metadata = run(main())
    assert all(r.ok for r in got) and jobs == 1
    assert set(metadata) == {"judgeagent_job", "judgeagent_wave"}


# --------------------------------------------------------------------------- costs and notes


def test_batch_answers_cost_the_batch_price_in_the_whole_runs_total(tmp_path):
    async def main():
        with BatchServer(default=QUICK) as srv:
            spec = ModelSpec("m", srv.base_url, "scripted-model", price_in_per_1k=2.0, price_out_per_1k=8.0, batch_discount=0.5)
            async with client(tmp_path / "j.sqlite") as c:
                got = await chat_all(c, spec, ask(2))
                return got, c.run_total([spec]), c.usage.summary()["total"]

    got, total, usage = run(main())
    tokens = sum(r.usage.prompt_tokens for r in got) / 1000 * 1.0 + sum(r.usage.completion_tokens for r in got) / 1000 * 4.0
    assert total["total"]["cost_usd"] == pytest.approx(tokens) == pytest.approx(usage["batch_cost_usd"])
    assert total["total"]["batch_answers"] == 2


def test_a_local_model_ignores_the_batch_api_and_says_so_once(tmp_path):
    from judgeagent.llm.registry import load_registry

    local = load_registry(None).resolve("local")
    c = client(tmp_path / "j.sqlite")
    c._batch_setup(local)
    c._batch_setup(local)
    assert not c.batched(local) and not c.batching
    assert c.batch_summary() == {"notes": ["model 'local' runs here (bundled llama.cpp server): the Batch API does not apply, "
                                           "its requests are sent one by one"]}  # fmt: skip


# --------------------------------------------------------------------------- the barrier


class Waits:
    """Requests parked in a barrier, for the barrier's own tests."""

    def __init__(self):
        self.pending = 0
        self.sent: list[int] = []

    def send(self):
        self.sent.append(self.pending)
        self.pending = 0


def test_a_wave_goes_out_once_every_running_unit_waits_on_the_batch_api():
    async def main():
        w = Waits()
        barrier = WaveBarrier(asyncio.get_running_loop(), lambda: w.pending > 0, w.send)
        busy, release = asyncio.Event(), asyncio.Event()

        async def parks():
            w.pending += 1
            with barrier.parked(lambda: PENDING):
                await release.wait()

        async def unit_a():
            with barrier.unit("a"):
                await parks()

        async def unit_b():  # asks two things at once; one of them is busy first (an embedding, a live call)
            with barrier.unit("b"):
                async def slow():
                    await busy.wait()
                    await parks()

                await asyncio.gather(parks(), slow())

        tasks = [asyncio.ensure_future(unit_a()), asyncio.ensure_future(unit_b())]
        for _ in range(10):
            await asyncio.sleep(0)
        before = list(w.sent)
        busy.set()
        for _ in range(10):
            await asyncio.sleep(0)
        after = list(w.sent)
        release.set()
        await asyncio.gather(*tasks)
        barrier.close()
        return before, after

    before, after = run(main())
    assert before == [] and after == [3]  # not while b's second task was busy; then all three in one wave


def test_no_wave_goes_out_while_a_unit_waits_on_a_job_already_sent():
    async def main():
        w = Waits()
        barrier = WaveBarrier(asyncio.get_running_loop(), lambda: w.pending > 0, w.send)
        done = asyncio.Event()
        kinds = {"a": SENT, "b": PENDING}

        async def unit(name):
            with barrier.unit(name):
                if name == "b":
                    w.pending += 1
                with barrier.parked(lambda: kinds[name]):
                    await done.wait()

        tasks = [asyncio.ensure_future(unit("a")), asyncio.ensure_future(unit("b"))]
        for _ in range(10):
            await asyncio.sleep(0)
        before = list(w.sent)
        kinds["a"] = PENDING  # a's job came back and a asked its next request
        w.pending += 1
        barrier.poke()
        for _ in range(10):
            await asyncio.sleep(0)
        after = list(w.sent)
        done.set()
        await asyncio.gather(*tasks)
        barrier.close()
        return before, after

    before, after = run(main())
    assert before == [] and after == [2]


def test_requests_from_outside_any_unit_go_out_when_no_unit_is_busy():
    async def main():
        w = Waits()
        barrier = WaveBarrier(asyncio.get_running_loop(), lambda: w.pending > 0, w.send)
        release = asyncio.Event()

        async def loose():
            w.pending += 1
            with barrier.parked(lambda: PENDING):
                await release.wait()

        tasks = [asyncio.ensure_future(loose()) for _ in range(3)]
        for _ in range(10):
            await asyncio.sleep(0)
        sent = list(w.sent)
        release.set()
        await asyncio.gather(*tasks)
        barrier.close()
        return sent

    assert run(main()) == [3]



def test_a_long_wait_shows_one_line_per_job_in_flight_and_nothing_per_poll():
    import io

    from rich.console import Console
    from rich.progress import Progress, TextColumn

    from judgeagent.llm.batch.display import RichLines

    progress = Progress(TextColumn("{task.description}"), console=Console(file=io.StringIO()))
    lines = RichLines(progress)
    lines.job("t1", 3, "gpt-4.1", None, "preparing", 0, 4)
    lines.job("t2", 3, "qwen3", "batch_b", "validating", 0, 2)
    for done in range(4):  # every poll updates the same line
        lines.job("t1", 3, "gpt-4.1", "batch_a", "in_progress", done, 4)
    assert [t.description for t in progress.tasks] == ["Batch API · wave 3 · 2 jobs in flight", "  wave 3 · gpt-4.1 · batch_a · in_progress",
                                                       "  wave 3 · qwen3 · batch_b · validating"]  # fmt: skip
    assert progress.tasks[1].completed == 3 and progress.tasks[1].total == 4
    assert (progress.tasks[0].completed, progress.tasks[0].total) == (3, 6)  # the wave's requests done, of all in flight
    lines.job_done("t1")
    assert [t.description for t in progress.tasks] == ["Batch API · wave 3 · 1 job in flight", "  wave 3 · qwen3 · batch_b · validating"]
    lines.job_done("t2")
    assert progress.tasks == []


# --------------------------------------------------------------------------- expired jobs: --batch-api-expired


def expired_run(tmp_path, policy: str, *scripts: JobScript, n: int = 4, **settings):
    async def main():
        with BatchServer(default=QUICK) as srv:
            srv.script_jobs(*scripts)
            spec = ModelSpec("m", srv.base_url, "scripted-model")
            async with client(tmp_path / "j.sqlite", batch_api_expired=policy, **settings) as c:
                got = await chat_all(c, spec, ask(n))
                summary = c.batch_summary()
            return got, summary, [j.ended for j in srv.jobs], srv.custom_ids, len(srv.requests), srv.lines_run

    return run(main())


HALF = JobScript(validating_s=0.01, in_progress_s=0.04, expire_at=0.5)  # ends with half its lines run, the rest batch_expired
NONE_RUN = JobScript(validating_s=0.01, in_progress_s=0.04, expire_at=0.0)  # expires with nothing run


def test_retry_sends_expired_requests_again_at_batch_price_up_to_its_cap_then_calls_them_expired(tmp_path):
    got, summary, ends, ids, live, _ = expired_run(tmp_path, "retry", NONE_RUN, NONE_RUN, NONE_RUN, n=2, batch_api_expired_retries=2)
    assert ends == ["expired", "expired", "expired"] and [len(j) for j in ids] == [2, 2, 2] and live == 0  # 1 + 2 resubmissions
    assert [r.ok for r in got] == [False, False]
    assert {r.failure.kind for r in got} == {FailureKind.EXPIRED}  # "expired", not "timeout"
    assert got[0].error.endswith("(expired 3 time(s), 2 resubmission(s) allowed by --batch-api-expired-retries)")
    assert summary["expired"] == {"policy": "retry", "max_resubmissions": 2, "lines": 6, "resubmitted": 4, "sent_live": 0, "left_incomplete": 2}


def test_retry_by_default_keeps_what_ran_and_sends_the_rest_in_the_next_job(tmp_path):
    got, summary, ends, ids, live, lines_run = expired_run(tmp_path, "retry", HALF)
    assert [r.text for r in got] == [f"echo: question {i}" for i in range(4)] and [r.via for r in got] == ["batch"] * 4
    assert ends == ["expired", "completed"] and [len(j) for j in ids] == [4, 2] and (live, lines_run) == (0, 4)
    assert summary["expired"] == {"policy": "retry", "max_resubmissions": 2, "lines": 2, "resubmitted": 2, "sent_live": 0, "left_incomplete": 0}


def test_live_sends_expired_requests_one_by_one_at_once(tmp_path):
    got, summary, ends, ids, live, _ = expired_run(tmp_path, "live", HALF)
    assert [r.text for r in got] == [f"echo: question {i}" for i in range(4)]
    assert sorted(r.via for r in got) == ["batch", "batch", "live", "live"]
    assert ends == ["expired"] and live == 2  # no second job: the two that expired went live
    assert (summary["expired"]["lines"], summary["expired"]["sent_live"], summary["expired"]["resubmitted"]) == (2, 2, 0)


def test_stop_leaves_expired_requests_unanswered_with_the_reason_expired(tmp_path):
    got, summary, ends, ids, live, _ = expired_run(tmp_path, "stop", HALF)
    assert ends == ["expired"] and live == 0 and len(ids) == 1
    assert sorted(r.ok for r in got) == [False, False, True, True]
    failed = [r for r in got if not r.ok]
    assert {r.failure.kind for r in failed} == {FailureKind.EXPIRED} and all(r.incomplete for r in failed)
    assert all("--batch-api-expired stop: left incomplete" in r.error for r in failed)
    assert (summary["expired"]["lines"], summary["expired"]["left_incomplete"]) == (2, 2)


# --------------------------------------------------------------------------- progress in a log


def test_a_log_gets_a_plain_line_per_wave_and_per_job_and_one_at_a_steady_interval():
    from judgeagent.llm.batch.display import PlainLines

    said, now = [], [0.0]
    lines = PlainLines(said.append, every=60.0, clock=lambda: now[0])
    lines.job("t1", 1, "gpt-4.1", None, "preparing", 0, 4)
    lines.job("t1", 1, "gpt-4.1", "batch_a", "validating", 0, 4)
    for done in range(3):  # polls that change something print nothing of themselves
        now[0] += 19.0
        lines.job("t1", 1, "gpt-4.1", "batch_a", "in_progress", done, 4)
        lines.tick()
    assert said == ["[batch] wave 1: sending its requests as Batch API jobs (1 so far, 4 requests)",
                    "[batch] wave 1: job batch_a (gpt-4.1, 4 requests) validating"]  # fmt: skip
    now[0] += 4.0  # 61 s since the last line
    lines.tick()
    lines.tick()  # at most one a minute
    assert said[2:] == ["[batch] waiting on 1 job(s) of wave 1 (in_progress): 2 of 4 requests done, 61 s since sent"]
    now[0] += 119.0
    lines.job("t1", 1, "gpt-4.1", "batch_a", "completed", 4, 4)
    lines.job_done("t1")
    lines.tick()  # nothing in flight: nothing to say
    assert said[3:] == ["[batch] wave 1: job batch_a (gpt-4.1) completed: 4 of 4 requests done, after 3 min"]
