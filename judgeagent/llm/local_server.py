"""The bundled model: a ``python -m llama_cpp.server`` child process on 127.0.0.1.

Local models are reached over the same OpenAI-compatible HTTP path as remote ones (no
in-process shortcut), so what is tested locally is what runs against a provider.

Lifecycle: started on first use, shared by every role of the process (one server per
GGUF file, reference-counted by the clients using it), stopped when the last client
closes, and in any case at interpreter exit. It runs in its own process group so that
stopping kills everything it spawned; a watchdog in the child makes it exit when this
process dies, so even a ``kill -9`` of this process leaves no orphan.
"""

from __future__ import annotations

import asyncio
import atexit
import collections
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from judgeagent.errors import ConfigError

N_CTX = 8192  # SmolLM2's training context; the KV cache for it is ~200 MB
N_THREADS = 2
STARTUP_TIMEOUT_S = 120.0
# Prefix reuse. llama-cpp-python's server (0.3.x) always reuses the KV cache of the prefix
# that the previous prompt shares with the next one, but it has one slot: any other
# request in between (the judge's, another article's) evicts the article. ``--cache``
# keeps the states of recent prompts in RAM, and a new prompt starts from the saved state
# sharing its longest prefix, so an RMC article is read once per interview, not once per
# call. The server has no ``cache_prompt`` / ``n_keep`` option (those are llama.cpp's C++
# server's). ``cache_size`` counts the KV states (~23 kB a token for SmolLM2-135M); each
# entry also keeps n_batch x vocabulary logits (~100 MB) outside that count, so the size is
# kept small: a few articles' states. 0 turns the cache off.
PROMPT_CACHE_BYTES = 256 << 20
# For benchmarks: a verbose server logs "N prefix-match hit" for every prompt, and its log is
# kept in KEEP_LOGS (instead of deleted) when it stops.
VERBOSE = False
KEEP_LOGS: Path | None = None
# SIGTERM → SIGKILL. The server keeps no state worth a graceful stop, and one busy generating
# finishes its reply before it honours SIGTERM: waiting longer would hold up a Ctrl-C.
STOP_GRACE_S = 0.5


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# The child runs llama_cpp.server exactly as `python -m llama_cpp.server ARGS` would, plus a
# watchdog thread: when this process dies (even by SIGKILL) the child is re-parented, and
# it exits instead of lingering as an orphan holding a port and 200 MB.
_BOOTSTRAP = """
import os, runpy, sys, threading, time
parent = os.getppid()
def watch():
    while True:
        time.sleep(0.5)
        if os.getppid() != parent:
            os._exit(0)
threading.Thread(target=watch, daemon=True).start()
sys.argv = ["llama_cpp.server"] + sys.argv[1:]
runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
"""


class LocalServer:
    """One llama.cpp server process serving one GGUF file."""

    def __init__(
        self,
        gguf: Path,
        *,
        n_ctx: int = N_CTX,
        n_threads: int = N_THREADS,
        startup_timeout_s: float = STARTUP_TIMEOUT_S,
        prompt_cache_bytes: int | None = None,
        verbose: bool | None = None,
    ):
        self.gguf = Path(gguf)
        self.alias = self.gguf.stem
        self.n_ctx = n_ctx
        self.n_threads = n_threads
        self.prompt_cache_bytes = PROMPT_CACHE_BYTES if prompt_cache_bytes is None else prompt_cache_bytes
        self.verbose = VERBOSE if verbose is None else verbose
        self.startup_timeout_s = startup_timeout_s
        self.proc: subprocess.Popen | None = None
        self.port: int | None = None
        self.startup_s: float | None = None
        self._log: Path | None = None
        self._start_lock = threading.Lock()  # two roles asking at once start one process

    @property
    def base_url(self) -> str:
        if self.port is None:
            raise RuntimeError("local server not started")
        return f"http://127.0.0.1:{self.port}/v1"

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    def command(self, port: int) -> list[str]:
        return [
            sys.executable, "-c", _BOOTSTRAP,
            "--model", str(self.gguf),
            "--model_alias", self.alias,
            "--host", "127.0.0.1",
            "--port", str(port),
            "--n_ctx", str(self.n_ctx),
            "--n_threads", str(self.n_threads),
            "--n_threads_batch", str(self.n_threads),
            # Prompt evaluation dominates local cost (~150 tokens/s on 2 cores); flash
            # attention makes it ~1.3x faster on CPU (measured, 1000-token prompt).
            "--flash_attn", "True",
            *self.cache_flags(),
            *self.chat_format_flags(),
            "--verbose", str(self.verbose),
        ]  # fmt: skip

    def chat_format_flags(self) -> list[str]:
        """A chat format for a GGUF that carries no chat template of its own (registry.CHAT_FORMATS)."""
        from judgeagent.llm.registry import CHAT_FORMATS

        fmt = CHAT_FORMATS.get(self.gguf.name)
        return ["--chat_format", fmt] if fmt else []

    def cache_flags(self) -> list[str]:
        """The server's prompt-state cache (see PROMPT_CACHE_BYTES); none when it is off."""
        if self.prompt_cache_bytes <= 0:
            return []
        return ["--cache", "True", "--cache_type", "ram", "--cache_size", str(self.prompt_cache_bytes)]

    def start(self) -> str:
        """Start and wait until /v1/models answers; returns the base URL. Blocking."""
        with self._start_lock:
            if self.running:
                return self.base_url
            return self._start()

    def _start(self) -> str:
        check_gguf(self.gguf)
        t0 = time.monotonic()
        last_error = ""
        for _ in range(3):  # a picked port can be taken before the server binds it
            port = _free_port()
            fd, log = tempfile.mkstemp(prefix="judgeagent-llama-", suffix=".log")
            self._log = Path(log)
            # The server needs no provider keys: do not hand them to another process.
            env = {k: v for k, v in os.environ.items() if not k.upper().endswith(("API_KEY", "_TOKEN"))}
            env.setdefault("PYTHONUNBUFFERED", "1")
            with os.fdopen(fd, "wb") as logf:
                self.proc = subprocess.Popen(
                    self.command(port),
                    stdin=subprocess.DEVNULL,
                    stdout=logf,
                    stderr=subprocess.STDOUT,
                    start_new_session=True,  # own process group: killpg reaches its children
                    env=env,
                )
            self.port = port
            _register(self)
            ok, last_error = self._wait_ready(t0)
            if ok:
                self.startup_s = time.monotonic() - t0
                return self.base_url
            self.stop()
            if "address already in use" not in last_error.lower():
                break
        raise ConfigError(f"bundled model server for {self.gguf.name} failed to start: {last_error}")

    def _wait_ready(self, t0: float) -> tuple[bool, str]:
        url = f"http://127.0.0.1:{self.port}/v1/models"
        with httpx.Client(timeout=2.0, trust_env=False) as http:
            while time.monotonic() - t0 < self.startup_timeout_s:
                rc = self.proc.poll() if self.proc is not None else -1
                if rc is not None:
                    return False, f"exited with code {rc}: {self.last_log_lines()}"
                try:
                    if http.get(url).status_code == 200:
                        return True, ""
                except httpx.HTTPError:
                    pass
                time.sleep(0.1)
        return False, f"no answer on port {self.port} after {self.startup_timeout_s:.0f} s: {self.last_log_lines()}"

    def last_log_lines(self, n: int = 5) -> str:
        """The server's last output lines, joined on one line (for one-line error messages)."""
        if self._log is None or not self._log.exists():
            return "(no output)"
        try:
            with open(self._log, "rb") as f:
                f.seek(0, os.SEEK_END)
                f.seek(max(0, f.tell() - 16384))
                lines = f.read().decode("utf-8", "replace").splitlines()
        except OSError:
            return "(no output)"
        tail = collections.deque((ln.strip() for ln in lines if ln.strip()), maxlen=n)
        return " | ".join(tail) or "(no output)"

    def died(self) -> str | None:
        """If the server has exited since start: a one-line reason, else None."""
        if self.proc is not None and self.proc.poll() is not None:
            return f"bundled model server exited with code {self.proc.returncode}: {self.last_log_lines()}"
        return None

    def stop(self) -> None:
        """Terminate the whole process group; SIGKILL if it does not exit within STOP_GRACE_S."""
        proc, self.proc = self.proc, None
        if proc is not None:
            if proc.poll() is None:
                try:
                    os.killpg(proc.pid, signal.SIGTERM)
                except (ProcessLookupError, PermissionError):
                    pass
                try:
                    proc.wait(timeout=STOP_GRACE_S)
                except subprocess.TimeoutExpired:
                    try:
                        os.killpg(proc.pid, signal.SIGKILL)
                    except (ProcessLookupError, PermissionError):
                        pass
                    proc.wait(timeout=5)
            else:
                # The leader is gone; make sure nothing it spawned survives.
                try:
                    os.killpg(proc.pid, signal.SIGKILL)
                except (ProcessLookupError, PermissionError):
                    pass
        _unregister(self)
        if self._log is not None:
            try:
                if KEEP_LOGS is not None:
                    self._log.replace(Path(KEEP_LOGS) / self._log.name)
                else:
                    self._log.unlink()
            except OSError:
                pass
            self._log = None


# --------------------------------------------------------------------------- process-wide pool

_lock = threading.RLock()  # re-entrant: the SIGTERM handler may run while it is held
_running: set[LocalServer] = set()
_pool: dict[str, tuple[LocalServer, int]] = {}  # gguf path -> (server, users)
_hooks_installed = False
# The process that started the servers. A process forked from it (spaCy's extraction
# workers) inherits the set above and the SIGTERM handler below, and must touch neither:
# the servers are its parent's.
_owner_pid = os.getpid()


def _register(server: LocalServer) -> None:
    global _hooks_installed, _owner_pid
    with _lock:
        _owner_pid = os.getpid()
        _running.add(server)
        if not _hooks_installed:
            _hooks_installed = True
            atexit.register(stop_all)
    install_exit_hooks()


def _unregister(server: LocalServer) -> None:
    with _lock:
        _running.discard(server)


def install_exit_hooks() -> None:
    """Make SIGTERM run the normal exit path (finally blocks, atexit) instead of dying at once.

    Only when nobody else handles SIGTERM and only from the main thread (a Python rule);
    the client calls this from its event-loop thread before starting a server in a worker.
    """
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return

    def _on_sigterm(signum, frame):
        if os.getpid() != _owner_pid:  # a forked child: end as SIGTERM ends it by default
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        stop_all()
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, _on_sigterm)


def stop_all() -> None:
    if os.getpid() != _owner_pid:
        return
    with _lock:
        servers = list(_running)
        _pool.clear()
    for s in servers:
        s.stop()


def acquire(gguf: Path) -> LocalServer:
    """The (started) shared server for ``gguf``; call ``release`` when done. Blocking."""
    key = str(Path(gguf).resolve())
    with _lock:
        entry = _pool.get(key)
        server = entry[0] if entry else LocalServer(Path(key))
        _pool[key] = (server, (entry[1] if entry else 0) + 1)
    try:
        server.start()  # no-op when already running
    except BaseException:
        release(server)
        raise
    return server


def release(server: LocalServer) -> None:
    key = str(server.gguf.resolve())
    with _lock:
        entry = _pool.get(key)
        if entry is None:
            stop = True
        else:
            users = entry[1] - 1
            stop = users <= 0
            if stop:
                _pool.pop(key, None)
            else:
                _pool[key] = (entry[0], users)
    if stop:
        server.stop()


# Every GGUF file starts with these four bytes (the format's magic number).
GGUF_MAGIC = b"GGUF"


def check_gguf(gguf: Path | None) -> None:
    """Raise a one-line ConfigError unless ``gguf`` is a GGUF file a server could load: the
    checks of a start that need no server (a file cut short still fails only at its start)."""
    from judgeagent.llm.registry import ensure_gguf

    if gguf is None:
        raise ConfigError("a local model needs a GGUF file (gguf = \"path\" in judgeagent.toml)")
    ensure_gguf(gguf)  # local-gemma's file is joined from its extra's chunks on first use
    if not gguf.is_file():
        raise ConfigError(f"local model file not found: {gguf}")
    with gguf.open("rb") as f:
        if f.read(len(GGUF_MAGIC)) != GGUF_MAGIC:
            raise ConfigError(f"local model file {gguf} is not a GGUF file (it does not start with {GGUF_MAGIC.decode()})")


class LocalServerPool:
    """One client's view of the bundled servers: one per GGUF file, started on first use,
    restarted (on a new port) if it died, released when the client closes."""

    def __init__(self) -> None:
        self._servers: dict[str, LocalServer] = {}
        self._lock: asyncio.Lock | None = None  # made in the loop that first needs it

    async def get(self, gguf: Path | None) -> LocalServer:
        if gguf is None:
            raise ConfigError("a local model needs a GGUF file (gguf = \"path\" in judgeagent.toml)")
        path = str(Path(gguf).resolve())
        server = self._servers.get(path)
        if server is not None and server.running:
            return server
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            server = self._servers.get(path)
            install_exit_hooks()  # from the loop thread: signal handlers need it
            if server is None:
                server = await asyncio.to_thread(acquire, Path(path))
                self._servers[path] = server
            elif not server.running:  # it died: start it again (new port)
                await asyncio.to_thread(server.start)
        return server

    def servers(self) -> list[LocalServer]:
        return list(self._servers.values())

    def died(self) -> str | None:
        """Why a server of this pool died, if one did (for the message of a failed call)."""
        return next((why for why in (s.died() for s in self._servers.values()) if why), None)

    def close(self) -> None:
        servers, self._servers = list(self._servers.values()), {}
        for s in servers:
            release(s)
