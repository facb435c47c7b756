"""Ctrl-C means stop, now (issue 13): `judgeagent evaluate` as a user runs it, in a subprocess.

The server answers the first batch, then holds the second batch's first request open for 60 s,
as a slow model would. Once that request has arrived (an event, not a sleep) the run gets one
SIGINT. It must exit within 2 s with code 130 and say how to continue; the folder keeps the
first batch, and the rerun finishes the run without asking for that batch again.

The same with the target served by a spawned local server (``local:PATH``): a stand-in for
``llama_cpp.server`` (tests/fixtures/fake_llama/) that holds every request open and, like a
llama.cpp server busy generating, does not stop on SIGTERM. It is started exactly as the
bundled model is (judgeagent/llm/local_server.py), so what is checked is our side: the child
gets no SIGINT from the terminal, and closing the client does not wait on it.
"""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from interview_double import Script, schema_name
from scripted_server import ScriptedServer

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "data" / "medqa-demo"
JUDGEAGENT = [str(Path(sys.executable).parent / "judgeagent")]  # the `judgeagent` command
FAKE_LLAMA = Path(__file__).resolve().parent / "fixtures" / "fake_llama"
PLAN = [(True, True), (True, False), (False, True), (False, False), (False, True), (True, True)]
HOLD_S = 60.0


class HoldingServer(ScriptedServer):
    """The scripted server, holding open for 60 s every request ``hold(body)`` picks;
    ``arrived`` is set when the first of them comes in."""

    def __init__(self, responder, hold):
        super().__init__(responder)
        self.hold = hold
        self.arrived = threading.Event()

    async def _chat(self, request):
        body = await request.json()
        if self.hold(body):
            self.arrived.set()
            await asyncio.sleep(HOLD_S)
        return await super()._chat(request)


def script(seeds) -> Script:
    return Script(seed_plan={q.question.strip(): p for q, p in zip(seeds, PLAN)}, answers={q.question.strip(): q.answer for q in seeds})


def asks_about(body: dict, question: str) -> bool:
    return schema_name(body) == "answer_batch" and question[:60] in json.dumps(body["messages"], ensure_ascii=False)


def evaluate_cmd(target: str, judge: str, graph: Path, out: Path) -> list[str]:
    return [*JUDGEAGENT, "evaluate", "--target", target, "--judge", judge, "--data", str(DATA), "--graph", str(graph),
            "--limit", "6", "--concurrency", "1", "--no-report", "--no-summary", "--leak-check", "rules", "--out", str(out)]


def start(cmd: list[str], env: dict | None = None) -> subprocess.Popen:
    """``cmd`` started the way a script's background job is: with SIGINT ignored, which the
    process inherits. The command must take Ctrl-C all the same."""
    ignoring_sigint = ["sh", "-c", 'trap "" INT; exec "$0" "$@"']
    return subprocess.Popen([*ignoring_sigint, *cmd], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "COLUMNS": "400", **(env or {})})


def wait_for(event: threading.Event, proc: subprocess.Popen, timeout: float = 180.0) -> None:
    """Until ``event`` is set: the held request has arrived. Fails at once if the run ends first."""
    for _ in range(int(timeout / 0.25)):
        if event.wait(0.25):
            return
        if proc.poll() is not None:
            pytest.fail(f"evaluate ended before the request was held (exit {proc.returncode}): {proc.communicate()[1]}")
    proc.kill()
    pytest.fail("the request to hold never came")


def interrupt(proc: subprocess.Popen) -> tuple[int, str]:
    """One SIGINT, as one Ctrl-C sends it; the exit code and stderr, which must come within 2 s."""
    proc.send_signal(signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=2.0)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        pytest.fail("still running 2 s after Ctrl-C")
    return proc.returncode, err


def records(run: Path) -> list[dict]:
    path = run / "records.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


@pytest.mark.slow
def test_ctrl_c_during_a_held_request_exits_at_once_and_the_rerun_resumes(tmp_path, demo_graph, demo_seeds):
    run = tmp_path / "run"
    second_batch = demo_seeds[3].question.strip()
    with HoldingServer(script(demo_seeds), hold=lambda body: asks_about(body, second_batch)) as srv:
        model = f"{srv.base_url}@scripted"
        cmd = evaluate_cmd(model, model, demo_graph, run)
        proc = start(cmd)
        wait_for(srv.arrived, proc)
        code, err = interrupt(proc)
        srv.hold = lambda body: False  # the endpoint answers again
        first = len(srv.requests)

        assert code == 130, err
        assert " ".join(err.split()) == (
            f"error: interrupted: requests in flight cancelled, 1 records kept in {run}; "
            f"to continue: judgeagent evaluate --config {run / 'config.json'} (or rerun the same command)"
        )
        assert [r["batch_id"] for r in records(run)] == ["b0000"]
        assert not (run / "metrics.json").exists()

        again = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, env={**os.environ, "COLUMNS": "400"}, timeout=300)
        rerun = srv.requests[first:]
    assert again.returncode == 0, again.stderr
    assert [r["batch_id"] for r in records(run)] == ["b0000", "b0001"]
    # The finished batch is not asked again: the rerun starts with the second batch's grading.
    assert asks_about(rerun[0], second_batch)
    assert not any(asks_about(b, demo_seeds[0].question.strip()) for b in rerun)
    m = json.loads((run / "metrics.json").read_text())
    assert (m["complete"], m["n_batches"], m["incomplete"]["n_batches"]) == (True, 2, 0)


# The real llama_cpp package (the bundled model's package imports it), except that
# llama_cpp.server is the stand-in beside this file.
FAKE_PACKAGE = '''import os, sys
_here = os.path.dirname(os.path.abspath(__file__))
_real = next(d for d in (os.path.join(p, "llama_cpp") for p in sys.path if p)
             if os.path.isfile(os.path.join(d, "__init__.py")) and os.path.abspath(d) != _here)
__path__ = [_here, _real]
_init = os.path.join(_real, "__init__.py")
exec(compile(open(_init).read(), _init, "exec"))
'''

FAKE_SERVER = '''"""A stand-in for `python -m llama_cpp.server` (tests/test_interrupt.py): serves /v1/models,
holds every chat request open after telling the test (through the FIFO named in
FAKE_LLAMA_ARRIVED), and ignores SIGTERM and SIGINT, as a llama.cpp server busy generating does."""
import argparse, os, signal, time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

parser = argparse.ArgumentParser()
parser.add_argument("--port", type=int)
parser.add_argument("--model_alias", default="fake")
args, _ = parser.parse_known_args()
signal.signal(signal.SIGTERM, signal.SIG_IGN)
signal.signal(signal.SIGINT, signal.SIG_IGN)


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *a):
        pass

    def do_GET(self):
        body = b'{"object": "list", "data": [{"id": "%s", "object": "model"}]}' % args.model_alias.encode()
        self.send_response(200)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        self.rfile.read(int(self.headers.get("content-length", 0)))
        with open(os.environ["FAKE_LLAMA_ARRIVED"], "w") as fifo:
            fifo.write("arrived")
        time.sleep(60)


ThreadingHTTPServer(("127.0.0.1", args.port), Handler).serve_forever()
'''


@pytest.mark.slow
def test_ctrl_c_with_a_spawned_local_server_holding_a_request(tmp_path, demo_graph, demo_seeds):
    fake = tmp_path / "fake" / "llama_cpp"
    (fake / "server").mkdir(parents=True)
    (fake / "__init__.py").write_text(FAKE_PACKAGE)
    (fake / "server" / "__init__.py").write_text("")
    (fake / "server" / "__main__.py").write_text(FAKE_SERVER)
    gguf = tmp_path / "fake-model.gguf"
    gguf.write_bytes(b"GGUF")
    arrived = tmp_path / "arrived"
    run = tmp_path / "run"
    with ScriptedServer(script(demo_seeds)) as judge:
        cmd = evaluate_cmd(f"local:{gguf}", f"{judge.base_url}@scripted", demo_graph, run)
        env = {"PYTHONPATH": os.pathsep.join([str(tmp_path / "fake"), os.environ.get("PYTHONPATH", "")]), "FAKE_LLAMA_ARRIVED": str(arrived)}
        got_request = fifo_event(arrived)
        proc = start(cmd, env)
        wait_for(got_request, proc)
        code, err = interrupt(proc)
    assert code == 130, err
    assert "error: interrupted: requests in flight cancelled, 0 records kept in" in " ".join(err.split())
    assert no_process_serves(gguf)


def fifo_event(path: Path) -> threading.Event:
    """An event set when a process (here the server, a grandchild of the test) writes to the
    FIFO at ``path``: the only channel it has back to the test."""
    os.mkfifo(path)
    event = threading.Event()

    def read() -> None:
        with open(path) as f:  # blocks until the writer opens it
            f.read()
        event.set()

    threading.Thread(target=read, daemon=True).start()
    return event


def no_process_serves(gguf: Path) -> bool:
    """No process left with the fake model in its command line: the server was stopped."""
    out = subprocess.run(["pgrep", "-f", str(gguf)], capture_output=True, text=True)
    return out.stdout.strip() == ""
