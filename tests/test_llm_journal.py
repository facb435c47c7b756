"""The journal survives kill -9; keys never reach any written file."""

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from scripted_server import Fault, ScriptedServer

from judgeagent.config import LLMConfig
from judgeagent.llm import LLMClient, load_registry

RUNNER = textwrap.dedent(
    """
    import asyncio, sys
    from pathlib import Path
    from judgeagent.llm import LLMClient, ModelSpec

    base_url, journal, n = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])

    async def main():
        spec = ModelSpec("scripted", base_url, "m", concurrency=2)
        async with LLMClient(journal, backoff_base=0.01) as c:
            rs = await asyncio.gather(*(c.chat(spec, [{"role": "user", "content": f"q{i}"}]) for i in range(n)))
        assert all(r.ok for r in rs)
        print(sum(r.cached for r in rs))

    asyncio.run(main())
    """
)

N = 20


def _rows(path: Path) -> int:
    db = sqlite3.connect(str(path))
    try:
        return db.execute("SELECT COUNT(*) FROM responses").fetchone()[0]
    finally:
        db.close()


def test_journal_survives_kill_9_and_resume_sends_only_missing(tmp_path):
    script = tmp_path / "runner.py"
    script.write_text(RUNNER)
    journal = tmp_path / "run" / "journal.sqlite"
    with ScriptedServer(lambda b: "answer to " + b["messages"][-1]["content"], delay=0.1) as srv:
        proc = subprocess.Popen([sys.executable, str(script), srv.base_url, str(journal), str(N)])
        deadline = time.monotonic() + 60
        while len(srv.requests) < 8:
            assert time.monotonic() < deadline and proc.poll() is None, "runner did not get going"
            time.sleep(0.01)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait()
        done = _rows(journal)
        sent_first = len(srv.requests)
        assert 0 < done < N

        out = subprocess.run(
            [sys.executable, str(script), srv.base_url, str(journal), str(N)],
            capture_output=True,
            text=True,
            check=True,
        )
        resent = len(srv.requests) - sent_first
        assert resent == N - done  # only what had not been answered
        assert int(out.stdout.strip()) == done  # the rest were replayed
        assert _rows(journal) == N
        asked = [b["messages"][-1]["content"] for b in srv.requests[sent_first:]]
        assert len(set(asked)) == len(asked)


FAKE_KEY = "sk-test-FAKEKEY1234567890abcdefXYZ"


def test_fake_key_never_appears_in_any_written_file(tmp_path, monkeypatch):
    monkeypatch.setenv("JA_TEST_KEY", FAKE_KEY)
    with ScriptedServer(lambda b: json.dumps({"answer": "A"})) as srv:
        models = tmp_path / "judgeagent.toml"
        models.write_text(f'[models.keyed]\nbase_url = "{srv.base_url}"\nmodel = "m"\napi_key_env = "JA_TEST_KEY"\n')
        spec = load_registry(models).resolve("keyed")
        run_dir = tmp_path / "run"
        # A server that echoes the Authorization header back in its errors, on every kind of failure.
        srv.push_faults(
            Fault.status(401, echo_auth=True),
            Fault.status(500, echo_auth=True),
            Fault.status(500, echo_auth=True),
            Fault.status(429, echo_auth=True, retry_after=0),
        )
        schema = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}

        async def go():
            async with LLMClient(run_dir / "journal.sqlite", LLMConfig(cache=tmp_path / "cache.sqlite"), backoff_base=0.01) as c:
                results = [await c.chat(spec, [{"role": "user", "content": f"q{i}"}], schema=schema) for i in range(4)]
                await c.preflight(spec)
                return results, c.usage.summary()

        results, summary = asyncio.run(go())
        assert not results[0].ok and "HTTP 401" in results[0].error
        assert FAKE_KEY not in results[0].error and "Bearer ***" in results[0].error
        assert all(r.ok for r in results[1:])
        # The key did go out, in the header only.
        assert srv.headers[0]["authorization"] == f"Bearer {FAKE_KEY}"
        assert FAKE_KEY not in json.dumps([b for b in srv.requests])
        (run_dir / "results.json").write_text(json.dumps([r.to_dict() for r in results]))
        (run_dir / "usage.json").write_text(json.dumps(summary))
        (run_dir / "spec.json").write_text(json.dumps(spec.to_public_dict()))

    needle = b"FAKEKEY"
    written = [p for p in tmp_path.rglob("*") if p.is_file() and p.name != "judgeagent.toml"]
    assert any(p.name.startswith("journal.sqlite") for p in written)
    for p in written:
        assert needle not in p.read_bytes(), f"key found in {p}"


@pytest.mark.slow
def test_concurrent_writers_share_one_file(tmp_path):
    script = tmp_path / "runner.py"
    script.write_text(RUNNER)
    journal = tmp_path / "shared.sqlite"
    with ScriptedServer(lambda b: "answer", delay=0.02) as srv:
        procs = [
            subprocess.Popen([sys.executable, str(script), srv.base_url, str(journal), str(N)], stdout=subprocess.PIPE)
            for _ in range(3)
        ]
        for p in procs:
            assert p.wait(timeout=120) == 0
        assert _rows(journal) == N
        assert len(srv.requests) >= N
