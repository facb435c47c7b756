"""The bundled llama.cpp server, for real: JSON-schema answers, lifecycle, no orphans."""

import asyncio
import json
import re
import signal
import subprocess
import sys
import textwrap
import time

import psutil
import pytest
from typer.testing import CliRunner

from judgeagent.cli.app import app
from judgeagent.errors import ConfigError
from judgeagent.llm import LLMClient, load_registry

SCHEMA = {
    "type": "object",
    "properties": {"city": {"type": "string"}, "country": {"type": "string"}},
    "required": ["city", "country"],
}


def _gone(pid: int, within: float) -> bool:
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        time.sleep(0.1)
    return False


@pytest.mark.slow
def test_bundled_model_answers_a_json_schema_question(tmp_path):
    spec = load_registry().resolve("local")

    async def go():
        async with LLMClient(tmp_path / "journal.sqlite") as c:
            await c.preflight(spec)
            server = c.pool.servers()[0]
            pid = server.proc.pid
            r = await c.chat(
                spec, [{"role": "user", "content": "What is the capital of France?"}], schema=SCHEMA, max_tokens=64
            )
            again = await c.chat(
                spec, [{"role": "user", "content": "What is the capital of France?"}], schema=SCHEMA, max_tokens=64
            )
            return r, again, pid, c.usage.summary()

    r, again, pid, summary = asyncio.run(go())
    assert r.ok, r.error
    assert isinstance(r.data, dict) and isinstance(r.data["city"], str) and isinstance(r.data["country"], str)
    assert r.usage.completion_tokens > 0
    assert again.cached and again.data == r.data
    assert summary["models"]["local"]["http_requests"] >= 1
    assert _gone(pid, 10), "local server still running after the client closed"


@pytest.mark.slow
def test_cli_models_check_local():
    r = CliRunner().invoke(app, ["models", "--check", "--only", "local"])
    assert r.exit_code == 0, r.output
    assert "local: OK" in r.output and "tokens/s" in r.output


HOLDER = textwrap.dedent(
    """
    import asyncio
    import signal
    from judgeagent.llm import LLMClient, load_registry

    # A child inherits an ignored SIGINT from its parent; in the full suite the holder did,
    # and then never got the Ctrl-C this test sends. A user's terminal gives the default.
    signal.signal(signal.SIGINT, signal.default_int_handler)

    async def main():
        spec = load_registry().resolve("local")
        async with LLMClient(None) as c:
            await c.preflight(spec)
            print(c.pool.servers()[0].proc.pid, flush=True)
            await asyncio.sleep(120)

    asyncio.run(main())
    """
)


@pytest.mark.slow
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_no_orphan_server_when_the_run_is_killed(tmp_path, sig):
    script = tmp_path / "holder.py"
    script.write_text(HOLDER)
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True)
    try:
        pid = int(proc.stdout.readline())
        assert psutil.pid_exists(pid)
        proc.send_signal(sig)
        # What is checked is that no server survives, not how fast: on a busy machine the
        # holder's shutdown (server SIGTERM, then SIGKILL after 5 s) once took over 20 s.
        proc.wait(timeout=90)
        assert _gone(pid, 10), f"llama.cpp server {pid} left running after {sig.name}"
    finally:
        if proc.poll() is None:
            proc.kill()


def test_a_file_that_is_no_gguf_is_refused_by_the_preflight_that_starts_nothing(tmp_path):
    bad = tmp_path / "notes.gguf"
    bad.write_bytes(b"this is not a gguf file")
    spec = load_registry().resolve(f"local:{bad}")

    async def go(start):
        async with LLMClient(None) as c:
            try:
                await c.preflight(spec, start=start)
            finally:
                assert c.pool.servers() == []

    for start in (False, True):
        with pytest.raises(ConfigError, match=rf"^local model file {re.escape(str(bad))} is not a GGUF file"):
            asyncio.run(go(start))


def test_broken_gguf_gives_one_line_error_with_server_output(tmp_path):
    bad = tmp_path / "broken.gguf"
    bad.write_bytes(b"GGUF and then nothing a server can load")
    spec = load_registry().resolve(f"local:{bad}")

    async def go():
        async with LLMClient(None) as c:
            await c.preflight(spec, start=False)  # what a file's first bytes can tell passes
            await c.preflight(spec)

    with pytest.raises(ConfigError) as e:
        asyncio.run(go())
    msg = str(e.value)
    assert msg.startswith("bundled model server for broken.gguf failed to start: exited with code")
    assert "\n" not in msg
    assert len(msg) < 2000
    json.dumps(msg)
