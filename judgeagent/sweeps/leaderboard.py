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

import json
from typing import TYPE_CHECKING, Any

import numpy as np

from judgeagent.metrics import ranking
from judgeagent.sweeps.folder import SHARED_ITEMS_FILE, SweepFolder, read_records

if TYPE_CHECKING:
    from judgeagent.sweeps.config import SweepConfig
    from judgeagent.sweeps.runner import TargetState

SHARED, SEEDS = "shared items", "seed questions (ACC1)"


def _read(path) -> Any:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        return None


def seed_matrix(folder: SweepFolder, states: list[TargetState]) -> tuple[np.ndarray, list[str], list[str]]:
    """targets × seed questions, 1/0 for each first answer (ACC1), NaN where a batch is missing;
    with each question's batch (the bootstrap cluster)."""
    rows: list[dict[str, float]] = []
    columns: dict[str, str] = {}  # question id → batch id, in batch order
    for st in states:
        row: dict[str, float] = {}
        for r in sorted(read_records(folder.target_dir(st.slug)), key=lambda r: r.get("batch_index", 0)):
            for q, a in zip(r.get("seed") or [], r.get("seed_answers") or []):
                qid = str(q.get("id"))
                columns.setdefault(qid, str(r.get("batch_id")))
                row[qid] = 1.0 if a.get("correct") else 0.0
        rows.append(row)
    ids = list(columns)
    x = np.array([[row.get(q, np.nan) for q in ids] for row in rows], dtype=float).reshape(len(rows), len(ids))
    return x, ids, [columns[q] for q in ids]


def shared_matrix(folder: SweepFolder, states: list[TargetState], items: list[dict]) -> tuple[np.ndarray, dict[tuple[int, str], dict]]:
    """targets × shared items, 1/0, NaN where not answered; and each answer's record."""
    col = {it["item_id"]: j for j, it in enumerate(items)}
    x = np.full((len(states), len(items)), np.nan)
    answers: dict[tuple[int, str], dict] = {}
    for i, st in enumerate(states):
        for r in read_records(folder.shared_dir(st.slug)):
            j = col.get(r.get("item_id"))
            if j is not None:
                x[i, j] = 1.0 if r.get("correct") else 0.0
                answers[(i, r["item_id"])] = r
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


def _ci(metrics: dict, key: str) -> list[float] | None:
    v = (metrics.get("ci") or {}).get(key)
    return [round(float(v[0]), 4), round(float(v[1]), 4)] if isinstance(v, (list, tuple)) and len(v) == 2 and None not in v else None


def _order(row: dict) -> tuple[int, float, str]:
    return (row["rank"] if row["rank"] is not None else 10**6, -float(row["score"] or 0.0), str(row["name"]))


def _pct(v: float | None) -> float | None:
    return None if v is None else round(float(v), 4)


def build_leaderboard(folder: SweepFolder, cfg: SweepConfig, states: list[TargetState]) -> dict:
    items: list[dict] = (folder.read_json(SHARED_ITEMS_FILE) or {}).get("items") or []
    usable = [s for s in states if s.usable]
    seeds, seed_ids, seed_clusters = seed_matrix(folder, usable)
    shared, answers = shared_matrix(folder, usable, items)
    clusters = [it["cluster"] for it in items]
    names = [s.name for s in usable]
    answered_shared = bool((~np.isnan(shared)).any()) if shared.size else False
    # The comparison rests on the shared items; with none answered, on the seeds every target was asked.
    basis, basis_x, basis_clusters = (SHARED, shared, clusters) if answered_shared else (SEEDS, seeds, seed_clusters)
    kw = {"n_resamples": cfg.bootstrap, "seed": cfg.seed}
    ranks = ranking.rank_intervals(basis_x, names, basis_clusters, **kw) if names and basis_x.size else []
    if ranks:  # every table, pair and matrix row in leaderboard order from here on
        order = sorted(range(len(names)), key=lambda i: (ranks[i].rank, -(ranks[i].score or 0.0), names[i]))
        usable, ranks, names = [usable[i] for i in order], [ranks[i] for i in order], [names[i] for i in order]
        seeds, shared = seeds[order], shared[order]
        answers = {(order.index(i), iid): rec for (i, iid), rec in answers.items()}
        basis_x = shared if basis == SHARED else seeds
    pairs = ranking.pairwise_tests(basis_x, names, None, seed=cfg.seed) if len(names) > 1 and basis_x.size else []
    theta, se = calibrate(shared) if answered_shared else ([None] * len(usable), [None] * len(usable))

    rows = []
    for i, st in enumerate(usable):
        m = _read(folder.target_dir(st.slug) / "metrics.json") or {}
        sm = (_read(folder.shared_dir(st.slug) / "metrics.json") or {}) if st.shared_dir else {}
        n_shared = int((~np.isnan(shared[i])).sum()) if shared.size else 0
        r = ranks[i] if ranks else None
        rows.append({
            "name": st.name, "model": cfg.model(st.name), "status": st.status, "error": st.error,
            "shared_status": st.shared_status, "shared_error": st.shared_error,
            "acc1": _pct(m.get("acc1")), "acc1_ci": _ci(m, "acc1"), "acc2": _pct(m.get("acc2")),
            "delta_acc": _pct(m.get("delta_acc")), "delta_acc_ci": _ci(m, "delta_acc"),
            "n_seeds": m.get("n_questions"), "n_batches": m.get("n_batches"),
            "shared_accuracy": _pct(100.0 * float(np.nansum(shared[i])) / n_shared) if n_shared else None, "shared_n": n_shared,
            "shared_by_level": sm.get("by_level") or {},
            "theta": theta[i], "theta_se": se[i],
            "score": None if r is None else r.score,
            "rank": None if r is None else r.rank, "rank_interval": None if r is None else [r.rank_lo, r.rank_hi],
            "rank_label": None if r is None else r.label(),
            "extension_accuracy": m.get("extension_accuracy") or {},
            "run_dir": st.run_dir, "shared_dir": st.shared_dir,
        })  # fmt: skip
    rows.sort(key=_order)
    for st in states:
        if not st.usable:
            rows.append({"name": st.name, "status": st.status, "error": f"failed: {st.error}" if st.error else st.status, "rank": None,
                         "rank_label": None, "run_dir": st.run_dir, "shared_dir": st.shared_dir})  # fmt: skip
    validity = {
        "seed_vs_generated": ranking.rank_agreement(shared, clusters, seeds, reference_clusters=seed_clusters, **kw).to_dict()
        if answered_shared and len(names) > 1 and seeds.size else None,
        "difficulty": ranking.difficulty_check(shared, [str(it.get("counted_as") or it.get("level") or "") for it in items], seeds,
                                               clusters=clusters, seed_clusters=seed_clusters, **kw).to_dict()
        if answered_shared and seeds.size else None,
    }  # fmt: skip
    return {
        "version": 1,
        "judge": cfg.judge, "data": str(cfg.data), "graph": str(cfg.graph_dir()),
        "ranked_on": basis, "n_shared_items": len(items), "n_seed_questions": len(seed_ids),
        "targets": rows,
        "pairwise": [p.to_dict() for p in pairs],
        "pairwise_method": ranking.PAIRWISE_METHOD, "correction": ranking.CORRECTION,
        "validity": validity,
        "matrix": {"targets": names, "items": [it["item_id"] for it in items], "clusters": clusters,
                   "levels": [it.get("level") for it in items],
                   "correct": [[None if np.isnan(v) else int(v) for v in row] for row in shared.tolist()] if shared.size else [[] for _ in names]},
        "seed_matrix": {"questions": seed_ids, "clusters": seed_clusters,
                        "correct": [[None if np.isnan(v) else int(v) for v in row] for row in seeds.tolist()] if seeds.size else [[] for _ in names]},
        "n_bootstrap": cfg.bootstrap, "seed": cfg.seed,
        "answers": _answers(names, answers),
    }  # fmt: skip


def _answers(names: list[str], answers: dict[tuple[int, str], dict]) -> dict[str, dict[str, dict]]:
    """Each target's reply to each shared item it answered (the HTML report's side-by-side)."""
    out: dict[str, dict[str, dict]] = {n: {} for n in names}
    for (i, iid), rec in answers.items():
        ta = rec.get("target_answer") or {}
        out[names[i]][iid] = {"reply": ta.get("reply"), "chosen": ta.get("chosen"), "correct": bool(rec.get("correct")), "error": ta.get("error")}
    return out
