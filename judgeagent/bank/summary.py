"""``judgeagent bank GRAPH_DIR``: what a bank holds, who answered it, what calibration flagged."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

from judgeagent.bank.calibrate import current_graph_hash, load_calibration
from judgeagent.bank.store import Bank


def bank_summary(graph_dir: Path) -> dict:
    bank = Bank.open(graph_dir, create=False)
    items, answers = bank.items(), bank.answers()
    current = current_graph_hash(graph_dir)
    by_type: dict[str, Counter] = {}
    for i in items:
        by_type.setdefault(i.qtype, Counter())[i.level or "unlabeled"] += 1
    older = Counter(i.graph_hash for i in items if current is not None and i.graph_hash != current)
    per_target: dict[str, dict] = {}
    for a in answers:
        t = per_target.setdefault(a.target, {"target": a.target, "name": a.target_name, "answers": 0, "correct": 0, "items": set(), "runs": set()})
        t["answers"] += 1
        t["correct"] += int(a.correct)
        t["items"].add(a.item_id)
        t["runs"].add(a.run)
    targets = [{"target": t["target"], "name": t["name"], "n_answers": t["answers"], "n_items": len(t["items"]), "n_runs": len(t["runs"]),
                "accuracy": round(100 * t["correct"] / t["answers"], 2)} for t in per_target.values()]
    calibration = load_calibration(graph_dir)
    return {
        "bank": str(bank.path),
        "graph_hash": current,
        "n_items": len(items),
        "by_type_and_level": {q: dict(sorted(c.items())) for q, c in sorted(by_type.items())},
        "by_level": dict(sorted(Counter(i.level or "unlabeled" for i in items).items())),
        "from_older_graph": {"n_items": sum(older.values()), "by_graph_hash": dict(older)},
        "n_answers": len(answers),
        "targets": sorted(targets, key=lambda t: t["name"]),
        "calibration": None if calibration is None else {
            "fitted": calibration["fitted"], "n_targets": calibration["n_targets"],
            "flagged": [{"item_id": i["item_id"], "reason": i["flag_reason"]} for i in calibration["items"] if i["flagged"]],
            "level_vs_b": calibration["level_vs_b"],
        },
    }
