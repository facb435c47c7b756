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
from judgeagent.sweeps.board import Leaderboard
from judgeagent.sweeps.leaderboard import SHARED, calibrate


def apply_audit(board: Leaderboard, block: AuditBlock) -> Leaderboard:
    """``board`` with ``audit``: the block, its figures on valid items computed from the
    board's own per-item matrix."""
    m = board.matrix
    names, items, clusters = m.targets, m.items, m.clusters
    notes = [n for n in block.notes if not n.startswith(_CHANGED)]
    if block.population != len(items):
        notes.append(f"{_CHANGED} ({block.population} when it was drawn, {len(items)} now): its rate is of the items it drew from; "
                     "draw a new audit for the new ones")  # fmt: skip
    if board.ranked_on != SHARED:
        labelled = sum(1 for i in items if i in block.verdicts)
        valid = sum(1 for i in items if block.verdicts.get(i) is True)
        on_valid = LeaderboardOnValid(n_items=len(items), n_valid=valid, n_invalid=labelled - valid, n_unlabelled=len(items) - labelled,
                                      note="the ranking rests on the seed questions, which the audit does not cover")  # fmt: skip
    else:
        rows = m.correct or [[] for _ in names]
        x = np.array([[np.nan if v is None else float(v) for v in row] for row in rows], dtype=float).reshape(len(names), len(items))
        ranks_all = {r.name: r.rank for r in board.targets if r.name in names}
        on_valid = leaderboard_on_valid(x, names, items, clusters, block.verdicts, ranks_all, n_resamples=board.n_bootstrap, seed=board.seed,
                                        calibrate=calibrate)  # fmt: skip
    audit = block.model_copy(update={"leaderboard": on_valid, "accuracy": None, "notes": notes})
    return board.model_copy(update={"audit": audit})


_CHANGED = "the shared items changed since the audit was drawn"


def keep_audit(board: Leaderboard, previous: Leaderboard | None) -> Leaderboard:
    """The new ``board`` with the audit block of the one it replaces, recomputed."""
    if previous is None or previous.audit is None:
        return board
    return apply_audit(board, previous.audit)
