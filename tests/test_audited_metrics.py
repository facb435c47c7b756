"""The figures on items audited valid (judgeagent.metrics.audited), against hand-computed values."""

from __future__ import annotations

import numpy as np
import pytest

from judgeagent.metrics.audited import Answered, accuracy_on_valid, keep_valid, leaderboard_on_valid, rank_changes


def test_accuracy_on_valid_items_beside_all_items():
    answers = [Answered("q1", "easy", True), Answered("q2", "easy", False), Answered("q3", "medium", True),
               Answered("q4", "medium", False), Answered("q5", "hard", False)]  # fmt: skip
    verdicts = {"q1": True, "q2": False, "q3": True, "q5": True, "q9": False}  # q4 unlabelled; q9 not answered here
    acc = accuracy_on_valid(answers, verdicts, "follow-up questions")
    assert (acc.overall.n, acc.overall.correct, acc.overall.accuracy) == (5, 2, 40.0)
    assert (acc.overall_valid.n, acc.overall_valid.correct) == (3, 2) and acc.overall_valid.accuracy == pytest.approx(200 / 3, abs=1e-4)
    assert {lv: (a.n, a.correct, a.accuracy) for lv, a in acc.by_level.items()} == {"easy": (2, 1, 50.0), "medium": (2, 1, 50.0), "hard": (1, 0, 0.0)}
    assert {lv: (a.n, a.correct, a.accuracy) for lv, a in acc.by_level_valid.items()} == {"easy": (1, 1, 100.0), "medium": (1, 1, 100.0), "hard": (1, 0, 0.0)}
    assert (acc.n_items, acc.n_valid, acc.n_invalid, acc.n_unlabelled) == (5, 3, 1, 1)


def test_no_valid_item_gives_no_accuracy():
    acc = accuracy_on_valid([Answered("q1", "easy", True)], {}, "follow-up questions")
    assert acc.overall_valid.n == 0 and acc.overall_valid.accuracy is None and acc.by_level_valid == {} and acc.n_unlabelled == 1


# Three targets, six shared items; i2 and i6 audited invalid, i5 not labelled.
ITEMS = ["i1", "i2", "i3", "i4", "i5", "i6"]
VERDICTS = {"i1": True, "i2": False, "i3": True, "i4": True, "i6": False}
X = np.array([[1, 1, 1, 0, 1, 1],   # A: 5/6 on all; 2/3 on i1, i3, i4
              [1, 0, 1, 1, 0, 0],   # B: 3/6; 3/3
              [0, 1, 0, 1, 1, 1]],  # C: 4/6; 1/3
             dtype=float)  # fmt: skip


def test_the_leaderboard_on_valid_items_and_how_its_ranking_moved():
    seen = []

    def calibrate(x):
        seen.append(x.copy())
        return [1.0, 2.0, 0.0], [0.5, 0.5, 0.5]

    board = leaderboard_on_valid(X, ["A", "B", "C"], ITEMS, ["b1", "b1", "b2", "b2", "b3", "b3"], VERDICTS, {"A": 1, "C": 2, "B": 3},
                                 n_resamples=200, seed=0, calibrate=calibrate)  # fmt: skip
    assert (board.n_items, board.n_valid, board.n_invalid, board.n_unlabelled) == (6, 3, 2, 1)
    assert len(seen) == 1 and seen[0].tolist() == X[:, [0, 2, 3]].tolist()  # only the valid columns
    rows = {r.name: r for r in board.targets}
    assert [r.name for r in board.targets] == ["B", "A", "C"]
    assert rows["B"].accuracy == 100.0 and rows["A"].accuracy == pytest.approx(66.6667, abs=1e-4) and rows["C"].accuracy == pytest.approx(33.3333, abs=1e-4)
    assert [(rows[n].rank, rows[n].rank_all, rows[n].n) for n in "ABC"] == [(2, 1, 3), (1, 3, 3), (3, 2, 3)]
    assert all(r.rank_lo <= r.rank <= r.rank_hi for r in board.targets) and (rows["B"].theta, rows["B"].theta_se) == (2.0, 0.5)
    assert board.ranking_changed is True
    assert board.changes == ["A: 1st on all items, 2nd on valid items", "B: 3rd on all items, 1st on valid items", "C: 2nd on all items, 3rd on valid items"]
    # A vs B on i1, i3, i4: one discordant item (i4, B right): exact McNemar p = 1.
    ab = next(p for p in board.pairwise if (p.a, p.b) == ("A", "B"))
    assert (ab.n_shared, ab.a_only, ab.b_only, ab.p_value) == (3, 0, 1, 1.0)
    assert len(board.pairwise) == 3


def test_an_unchanged_ranking_and_none_to_rank_on():
    same = leaderboard_on_valid(X, ["A", "B", "C"], ITEMS, ["b"] * 6, {i: True for i in ITEMS}, {"A": 1, "C": 2, "B": 3}, n_resamples=100, seed=0)
    assert same.ranking_changed is False and same.changes == [] and [r.name for r in same.targets] == ["A", "C", "B"]
    assert all(r.theta is None for r in same.targets)
    none = leaderboard_on_valid(X, ["A", "B", "C"], ITEMS, ["b"] * 6, {"i2": False}, {"A": 1}, n_resamples=100, seed=0)
    assert none.targets == [] and none.ranking_changed is None and "nothing to rank on" in none.note and none.n_unlabelled == 5


def test_keep_valid_and_rank_changes():
    assert keep_valid(ITEMS, VERDICTS).tolist() == [True, False, True, True, False, False]
    assert rank_changes(["a", "b"], {"a": 1, "b": None}, {"a": 1, "b": 2}) == ["b: unranked on all items, 2nd on valid items"]


def test_a_leaderboard_takes_the_audit_and_says_when_it_no_longer_fits():
    from judgeagent.metrics.audited import AuditBlock
    from judgeagent.sweeps.audited import apply_audit, keep_audit
    from judgeagent.sweeps.board import Leaderboard

    board = Leaderboard.from_json({
        "ranked_on": "shared items", "n_bootstrap": 100, "seed": 0,
        "matrix": {"targets": ["A", "B", "C"], "items": ITEMS, "clusters": ["b1", "b1", "b2", "b2", "b3", "b3"], "correct": X.astype(int).tolist()},
        "targets": [{"name": "A", "status": "ok", "rank": 1}, {"name": "C", "status": "ok", "rank": 2}, {"name": "B", "status": "ok", "rank": 3}],
    })  # fmt: skip
    block = AuditBlock(audit_id="A1", audit_dir="audit", updated="", basis="people", population=6, n_sample=6, n_labelled=5, verdicts=VERDICTS)
    out = apply_audit(board, block)
    assert out.model_copy(update={"audit": None}) == board.model_copy(update={"audit": None})
    assert out.audit is not None and (on_valid := out.audit.leaderboard) is not None
    assert [t.name for t in on_valid.targets] == ["B", "A", "C"] and on_valid.ranking_changed is True and out.audit.notes == []
    # The sweep has more shared items than the audit drew from (a rerun added some): said so, once however often it is applied.
    first = apply_audit(board, block.model_copy(update={"population": 5}))
    grown = keep_audit(board, first)  # a rerun re-applies the block it finds
    assert grown.audit is not None and grown.audit.notes == [
        "the shared items changed since the audit was drawn (5 when it was drawn, 6 now): its rate is of the items "
        "it drew from; draw a new audit for the new ones"]  # fmt: skip
    seeds_board = apply_audit(board.model_copy(update={"ranked_on": "seed questions (ACC1)"}), block)
    seeds = seeds_board.audit.leaderboard if seeds_board.audit is not None else None
    assert seeds is not None and seeds.targets == [] and "rests on the seed questions" in seeds.note and (seeds.n_valid, seeds.n_invalid) == (3, 2)


def test_one_valid_item_claims_no_rank_the_data_cannot_give():
    # Only i1 audited valid: one batch, which resamples to itself. A alone got it right, yet
    # A vs B on it has p = 1; the rank interval must not say "1st" for sure either.
    board = leaderboard_on_valid(X, ["A", "B", "C"], ITEMS, ["b1", "b1", "b2", "b2", "b3", "b3"], {"i1": True, "i2": False},
                                 {"A": 1, "C": 2, "B": 3}, n_resamples=200, seed=0)  # fmt: skip
    rows = {r.name: r for r in board.targets}
    assert [(rows[n].rank, rows[n].rank_lo, rows[n].rank_hi, rows[n].rank_label) for n in "ABC"] == [
        (1, 1, 3, "1st–3rd"), (1, 1, 3, "1st–3rd"), (3, 1, 3, "1st–3rd")]  # fmt: skip
    assert board.interval_note == "interval shown as the whole range: it rests on 1 batch, fewer than the 3 a resampling interval needs"


def test_the_sweep_report_marks_invalid_items_and_ranks_on_all_items_as_the_main_table_does():
    from judgeagent.metrics.audited import AuditBlock
    from judgeagent.sweeps.audited import apply_audit
    from judgeagent.sweeps.board import Leaderboard
    from judgeagent.sweeps.outputs import INVALID_MARK, per_item_blocks, valid_note, valid_rows
    from judgeagent.sweeps.state import SharedItem

    answers = {name: {i: {"reply": "A", "chosen": "A", "correct": bool(X[t, j])} for j, i in enumerate(ITEMS)} for t, name in enumerate("ABC")}
    board = Leaderboard.from_json({
        "ranked_on": "shared items", "n_bootstrap": 100, "seed": 0, "answers": answers,
        "matrix": {"targets": ["A", "B", "C"], "items": ITEMS, "clusters": ["b1", "b1", "b2", "b2", "b3", "b3"], "correct": X.astype(int).tolist()},
        "targets": [{"name": "A", "status": "ok", "rank": 1, "rank_label": "1st–2nd"}, {"name": "C", "status": "ok", "rank": 2, "rank_label": "1st–3rd"},
                    {"name": "B", "status": "ok", "rank": 3, "rank_label": "2nd–3rd"}],
    })  # fmt: skip
    block = AuditBlock(audit_id="A1", audit_dir="audit", updated="", basis="people", population=6, n_sample=6, n_labelled=2,
                       verdicts={"i1": True, "i2": False})  # fmt: skip
    out = apply_audit(board, block)
    # The "rank on all items" column: the range the main table shows, not the point rank.
    assert {row[1]: row[4] for row in valid_rows(out)} == {"A": "1st–2nd", "B": "2nd–3rd", "C": "1st–3rd"}
    assert "Rank intervals: interval shown as the whole range: it rests on 1 batch" in (valid_note(out) or "")
    items = [SharedItem(item_id=i, question=f"question {i}", answer="A") for i in ITEMS]
    blocks = per_item_blocks(out, items)
    assert blocks[0].text == f"1 of the 6 shared items were audited invalid: they are marked {INVALID_MARK} below, and left out of the comparison on valid items."
    questions = [row[0] for b in blocks if hasattr(b, "table") for row in b.table.rows]
    marked = {q for q in questions if q.startswith(INVALID_MARK)}
    assert marked == {f"{INVALID_MARK} question i2"}
    assert sum(q.endswith("question i2") for q in questions) == 3  # i2 is listed for each of the three pairs, marked each time
