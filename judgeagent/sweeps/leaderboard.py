"""The sweep's figures, from its folder alone: leaderboard.json is built here and every other
output (md, csv, tex, html) is rendered from it.

Per target: ACC1 and ΔACC with their batch-clustered intervals (the interview's own
metrics.json), accuracy on the shared items, ability θ ± SE from one 2PL calibration over
every target × shared item, and a rank interval from a bootstrap that resamples the interview
batches that wrote the items (``judgeagent.metrics.ranking``). Pairwise: exact McNemar over
the shared items, Holm-corrected. Validity: the ranking on the generated items against the
ranking on the seed questions, and accuracy by level against the seeds.
"""

from __future__ import annotations

from dataclasses import asdict
from typing import TYPE_CHECKING

import numpy as np

from judgeagent.metrics import ranking
from judgeagent.metrics.figures import InterviewFigures
from judgeagent.metrics.ranking import PairTest
from judgeagent.metrics.stats import MIN_UNITS, thin_note
from judgeagent.protocols.bank import BankFigures
from judgeagent.records import BankItemRecord, InterviewRecord
from judgeagent.sweeps.board import ItemMatrix, Leaderboard, LevelAccuracy, LevelFigures, SeedMatrix, SharedAnswer, TargetRow, Validity
from judgeagent.sweeps.folder import SHARED_ITEMS_FILE, SweepFolder, read_model, read_typed
from judgeagent.sweeps.state import SharedItem, SharedItems, TargetState

if TYPE_CHECKING:
    from judgeagent.sweeps.config import SweepConfig

SHARED, SEEDS = "shared items", "seed questions (ACC1)"


def seed_matrix(folder: SweepFolder, states: list[TargetState]) -> tuple[np.ndarray, list[str], list[str]]:
    """targets × seed questions, 1/0 for each first answer (ACC1), NaN where a batch is missing;
    with each question's batch (the bootstrap cluster)."""
    rows: list[dict[str, float]] = []
    columns: dict[str, str] = {}  # question id → batch id, in batch order
    for st in states:
        row: dict[str, float] = {}
        for r in sorted(read_typed(folder.target_dir(st.slug), InterviewRecord), key=lambda r: r.batch_index):
            for q, a in zip(r.seed, r.seed_answers):
                columns.setdefault(q.id, r.batch_id)
                row[q.id] = 1.0 if a.correct else 0.0
        rows.append(row)
    ids = list(columns)
    x = np.array([[row.get(q, np.nan) for q in ids] for row in rows], dtype=float).reshape(len(rows), len(ids))
    return x, ids, [columns[q] for q in ids]


def shared_matrix(folder: SweepFolder, states: list[TargetState], items: list[SharedItem]) -> tuple[np.ndarray, dict[tuple[int, str], BankItemRecord]]:
    """targets × shared items, 1/0, NaN where not answered; and each answer's record."""
    col = {it.item_id: j for j, it in enumerate(items)}
    x = np.full((len(states), len(items)), np.nan)
    answers: dict[tuple[int, str], BankItemRecord] = {}
    for i, st in enumerate(states):
        for r in read_typed(folder.shared_dir(st.slug), BankItemRecord):
            j = col.get(r.item_id)
            if j is not None:
                x[i, j] = 1.0 if r.correct else 0.0
                answers[(i, r.item_id)] = r
    return x, answers


def calibrate(x: np.ndarray) -> tuple[list[float | None], list[float | None]]:
    """θ and SE per row from one 2PL fit over the answered cells (None for a row with none)."""
    from judgeagent.bank import irt

    n = x.shape[0]
    mask = ~np.isnan(x)
    answered_items = mask.any(axis=0)
    rows = mask.any(axis=1)
    if not answered_items.any() or not rows.any():
        return [None] * n, [None] * n
    sub = x[np.ix_(rows, answered_items)]
    fit = irt.calibrate(np.nan_to_num(sub), (~np.isnan(sub)).astype(float))
    theta: list[float | None] = [None] * n
    se: list[float | None] = [None] * n
    for k, i in enumerate(np.flatnonzero(rows)):
        theta[i], se[i] = round(float(fit.theta[k]), 4) + 0.0, round(float(fit.se[k]), 4)  # + 0.0: no "-0.0"
    return theta, se


def _ci(metrics: InterviewFigures, key: str) -> tuple[float, float] | None:
    v = metrics.ci.of(key) if metrics.ci else None
    return (round(float(v[0]), 4), round(float(v[1]), 4)) if v is not None else None


def _order(row: TargetRow) -> tuple[int, float, str]:
    return (row.rank if row.rank is not None else 10**6, -float(row.score or 0.0), row.name)


def _pct(v: float | None) -> float | None:
    return None if v is None else round(float(v), 4)


def build_leaderboard(folder: SweepFolder, cfg: SweepConfig, states: list[TargetState]) -> Leaderboard:
    items = (read_model(folder.path / SHARED_ITEMS_FILE, SharedItems) or SharedItems()).items
    usable = [s for s in states if s.usable]
    seeds, seed_ids, seed_clusters = seed_matrix(folder, usable)
    shared, answers = shared_matrix(folder, usable, items)
    clusters = [it.cluster for it in items]
    names = [s.name for s in usable]
    answered_shared = bool((~np.isnan(shared)).any()) if shared.size else False
    # The comparison rests on the shared items; with none answered, on the seeds every target was asked.
    basis, basis_x, basis_clusters = (SHARED, shared, clusters) if answered_shared else (SEEDS, seeds, seed_clusters)
    ranks = ranking.rank_intervals(basis_x, names, basis_clusters, n_resamples=cfg.bootstrap, seed=cfg.seed) if names and basis_x.size else []
    if ranks:  # every table, pair and matrix row in leaderboard order from here on
        order = sorted(range(len(names)), key=lambda i: (ranks[i].rank, -(ranks[i].score or 0.0), names[i]))
        usable, ranks, names = [usable[i] for i in order], [ranks[i] for i in order], [names[i] for i in order]
        seeds, shared = seeds[order], shared[order]
        answers = {(order.index(i), iid): rec for (i, iid), rec in answers.items()}
        basis_x = shared if basis == SHARED else seeds
    pairs = ranking.pairwise_tests(basis_x, names, None, seed=cfg.seed) if len(names) > 1 and basis_x.size else []
    theta, se = calibrate(shared) if answered_shared else ([None] * len(usable), [None] * len(usable))
    rows = [target_row(folder, cfg, st, shared[i] if shared.size else np.empty(0), ranks[i] if ranks else None, theta[i], se[i])
            for i, st in enumerate(usable)]  # fmt: skip
    rows.sort(key=_order)
    rows += [TargetRow(name=st.name, status=st.status, error=f"failed: {st.error}" if st.error else st.status, run_dir=st.run_dir,
                       shared_dir=st.shared_dir) for st in states if not st.usable]  # fmt: skip
    return Leaderboard(
        judge=cfg.judge, data=str(cfg.data), graph=str(cfg.graph_dir()), ranked_on=basis, n_shared_items=len(items), n_seed_questions=len(seed_ids),
        targets=rows, pairwise=[PairTest(**p.to_dict()) for p in pairs], pairwise_method=ranking.PAIRWISE_METHOD, correction=ranking.CORRECTION,
        validity=validity(cfg, items, shared, seeds, seed_clusters, len(names) > 1),
        matrix=ItemMatrix(targets=names, items=[it.item_id for it in items], clusters=clusters, levels=[it.level for it in items],
                          correct=_cells(shared, len(names))),
        seed_matrix=SeedMatrix(questions=seed_ids, clusters=seed_clusters, correct=_cells(seeds, len(names))),
        n_bootstrap=cfg.bootstrap, seed=cfg.seed, answers=_answers(names, answers),
        interval_notes=interval_notes(folder, usable, ranks, basis_clusters),
    )  # fmt: skip


def interval_notes(folder: SweepFolder, usable: list[TargetState], ranks: list[ranking.RankInterval], clusters: list[str]) -> list[str]:
    """One line per kind of interval shown as its whole range because it rests on too few batches."""
    notes = []
    if any(r.thin for r in ranks):
        notes.append(f"Rank intervals: {thin_note(len(set(clusters)))}; every rank is shown as possible.")
    thin_runs = []
    for st in usable:
        m = read_model(folder.target_dir(st.slug) / "metrics.json", InterviewFigures)
        if m is not None and m.ci is not None and m.ci.thin:
            thin_runs.append(f"{st.name} ({m.ci.n_batches if m.ci.n_batches is not None else '?'})")
    if thin_runs:
        notes.append(f"ACC1 and ΔACC intervals shown as the whole range for {', '.join(thin_runs)}: fewer than {MIN_UNITS} batches to resample.")
    return notes


def target_row(folder: SweepFolder, cfg: SweepConfig, st: TargetState, shared: np.ndarray, rank: ranking.RankInterval | None,
               theta: float | None, se: float | None) -> TargetRow:
    """A usable target's row: its interview's figures, its shared-item accuracy, θ and rank."""
    m = read_model(folder.target_dir(st.slug) / "metrics.json", InterviewFigures) or InterviewFigures()
    sm = (read_model(folder.shared_dir(st.slug) / "metrics.json", BankFigures) if st.shared_dir else None) or BankFigures()
    n_shared = int((~np.isnan(shared)).sum()) if shared.size else 0
    return TargetRow(
        name=st.name, model=cfg.model(st.name), status=st.status, error=st.error, shared_status=st.shared_status, shared_error=st.shared_error,
        acc1=_pct(m.acc1), acc1_ci=_ci(m, "acc1"), acc2=_pct(m.acc2), delta_acc=_pct(m.delta_acc), delta_acc_ci=_ci(m, "delta_acc"),
        n_seeds=m.n_questions, n_batches=m.n_batches,
        shared_accuracy=_pct(100.0 * float(np.nansum(shared)) / n_shared) if n_shared else None, shared_n=n_shared,
        shared_by_level={level: LevelFigures.model_validate(asdict(x)) for level, x in sm.by_level.items()},
        theta=theta, theta_se=se, score=None if rank is None else rank.score, rank=None if rank is None else rank.rank,
        rank_interval=None if rank is None else (rank.rank_lo, rank.rank_hi), rank_label=None if rank is None else rank.label(),
        extension_accuracy={level: LevelAccuracy(n=x.n, correct=x.correct, accuracy=x.accuracy) for level, x in m.extension_accuracy.items()},
        run_dir=st.run_dir, shared_dir=st.shared_dir,
    )  # fmt: skip


def validity(cfg: SweepConfig, items: list[SharedItem], shared: np.ndarray, seeds: np.ndarray, seed_clusters: list[str], several: bool) -> Validity:
    """The ranking on the generated items against the seeds', and accuracy by level against the seeds."""
    clusters = [it.cluster for it in items]
    answered = bool(shared.size) and bool((~np.isnan(shared)).any())
    if not answered or not seeds.size:
        return Validity()
    kw = {"n_resamples": cfg.bootstrap, "seed": cfg.seed}
    agreement = ranking.rank_agreement(shared, clusters, seeds, reference_clusters=seed_clusters, **kw).to_dict() if several else None
    difficulty = ranking.difficulty_check(shared, [it.reported_level for it in items], seeds, clusters=clusters, seed_clusters=seed_clusters, **kw)
    return Validity.model_validate({"seed_vs_generated": agreement, "difficulty": difficulty.to_dict()})


def _cells(x: np.ndarray, n_rows: int) -> list[list[int | None]]:
    return [[None if np.isnan(v) else int(v) for v in row] for row in x.tolist()] if x.size else [[] for _ in range(n_rows)]


def _answers(names: list[str], answers: dict[tuple[int, str], BankItemRecord]) -> dict[str, dict[str, SharedAnswer]]:
    """Each target's reply to each shared item it answered (the HTML report's side-by-side)."""
    out: dict[str, dict[str, SharedAnswer]] = {n: {} for n in names}
    for (i, iid), rec in answers.items():
        ta = rec.target_answer
        out[names[i]][iid] = SharedAnswer(reply=ta.reply, chosen=ta.chosen, correct=rec.correct, error=ta.error)
    return out
