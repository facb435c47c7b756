"""Shared SQLite files switched to WAL mode by several connections at once (judgeagent.wal)."""

from __future__ import annotations

import sqlite3
import threading

import pytest

from judgeagent.wal import use_wal


def race_to_open(path, n: int = 3) -> tuple[list[str], list[str]]:
    """``n`` connections switch one new file to WAL at the same moment: (errors, journal modes)."""
    start, errors, modes = threading.Barrier(n), [], []

    def open_it() -> None:
        db = sqlite3.connect(path, timeout=30.0, isolation_level=None)
        start.wait()
        try:
            use_wal(db)
            db.execute("CREATE TABLE IF NOT EXISTS t (x)")
            modes.append(db.execute("PRAGMA journal_mode").fetchone()[0])
        except sqlite3.Error as e:
            errors.append(str(e))
        finally:
            db.close()

    threads = [threading.Thread(target=open_it) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return errors, modes


def test_connections_racing_to_open_a_new_file_all_get_wal(tmp_path):
    # Without the retry about a quarter of these races ended in "database is locked".
    for trial in range(40):
        assert race_to_open(tmp_path / f"shared-{trial}.sqlite") == ([], ["wal"] * 3)


def test_a_file_that_is_no_database_is_not_retried(tmp_path):
    path = tmp_path / "notes.sqlite"
    path.write_text("not a database, but long enough to have a header " * 10)
    db = sqlite3.connect(path, isolation_level=None)
    with pytest.raises(sqlite3.DatabaseError, match="not a database"):
        use_wal(db, timeout_s=30.0)  # at once: the test would otherwise take the 30 s
    db.close()
