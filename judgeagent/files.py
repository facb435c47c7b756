"""Files written whole or not at all: a reader (a resumed run, `judgeagent report`, a second
process) never sees half of one, whenever the writer is stopped. And where the user's cache is."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any


def write_bytes_atomic(path: Path, data: bytes) -> Path:
    """``data`` into ``path`` through a temporary file beside it, renamed over it at the end."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    return path


def write_text_atomic(path: Path, text: str) -> Path:
    return write_bytes_atomic(path, text.encode("utf-8"))


def write_json_atomic(path: Path, data: Any) -> Path:
    """``data`` as indented JSON (non-ASCII kept, anything else by ``str``), one trailing newline."""
    return write_text_atomic(path, json.dumps(data, indent=2, ensure_ascii=False, default=str) + "\n")


def cache_root() -> Path:
    """``$JUDGEAGENT_CACHE_DIR``, else ``$XDG_CACHE_HOME/judgeagent``, else ``~/.cache/judgeagent``."""
    env = os.environ.get("JUDGEAGENT_CACHE_DIR")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "judgeagent"
