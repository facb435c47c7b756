"""A sweep's leaderboard with the audit of its shared items: the invalid-item rate, and the
comparison redone on the items audited valid (``judgeagent.metrics.audited``).

``judgeagent audit import`` puts the audit block into leaderboard.json through
:func:`apply_audit`; a rerun of the sweep, which rebuilds the leaderboard from its runs, keeps
the block of the leaderboard it replaces (:func:`keep_audit`), recomputed on the new answers,
so an audit is never silently dropped.
"""

from __future__ import annotations

import numpy as np

from judgeagent.metrics.audited import AuditBlock, LeaderboardOnValid, leaderboard_on_valid
from judgeagent.sweeps.leaderboard import SHARED, calibrate


def apply_audit(board: dict, block: AuditBlock) -> dict:
    """``board`` with ``audit``: the block, its figures on valid items computed from the
    board's own per-item matrix."""
    m = board.get("matrix") or {}
    names, items, clusters = list(m.get("targets") or []), list(m.get("items") or []), list(m.get("clusters") or [])
    notes = [n for n in block.notes if not n.startswith(_CHANGED)]
    if block.population != len(items):
        notes.append(f"{_CHANGED} ({block.population} when it was drawn, {len(items)} now): its rate is of the items it drew from; "
                     "draw a new audit for the new ones")  # fmt: skip
    if board.get("ranked_on") != SHARED:
        labelled = sum(1 for i in items if i in block.verdicts)
        valid = sum(1 for i in items if block.verdicts.get(i) is True)
        on_valid = LeaderboardOnValid(n_items=len(items), n_valid=valid, n_invalid=labelled - valid, n_unlabelled=len(items) - labelled,
                                      note="the ranking rests on the seed questions, which the audit does not cover")  # fmt: skip
    else:
        rows = m.get("correct") or [[] for _ in names]
        x = np.array([[np.nan if v is None else float(v) for v in row] for row in rows], dtype=float).reshape(len(names), len(items))
        ranks_all = {str(r["name"]): r.get("rank") for r in board.get("targets") or [] if r.get("name") in names}
        on_valid = leaderboard_on_valid(x, names, items, clusters, block.verdicts, ranks_all, n_resamples=int(board.get("n_bootstrap") or 2000),
                                        seed=int(board.get("seed") or 0), calibrate=calibrate)  # fmt: skip
    return board | {"audit": block.model_copy(update={"leaderboard": on_valid, "accuracy": None, "notes": notes}).model_dump(mode="json")}


_CHANGED = "the shared items changed since the audit was drawn"


def keep_audit(board: dict, previous: dict | None) -> dict:
    """The new ``board`` with the audit block of the one it replaces, recomputed."""
    if not previous or not isinstance(previous.get("audit"), dict):
        return board
    return apply_audit(board, AuditBlock.model_validate(previous["audit"]))
