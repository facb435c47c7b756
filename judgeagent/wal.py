"""Opening an SQLite file that several processes share (run journals, the answer cache, the
question bank, the build's chunk cache) in WAL mode.

Two connections that find a new file in rollback mode at the same moment both hold a read
lock and both need the write lock to switch it to WAL. SQLite refuses one of them at once
("database is locked"), without waiting out the busy timeout, because waiting could
deadlock. That refusal is only a race, so the switch is tried again until the timeout.
"""

from __future__ import annotations

import sqlite3
import time

RETRY_S = 0.02


def use_wal(db: sqlite3.Connection, timeout_s: float = 30.0) -> None:
    """``PRAGMA journal_mode=WAL``, retried while another connection holds the file's lock."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            db.execute("PRAGMA journal_mode=WAL")
            return
        except sqlite3.OperationalError as e:
            if "locked" not in str(e) and "busy" not in str(e) or time.monotonic() >= deadline:
                raise
            time.sleep(RETRY_S)
