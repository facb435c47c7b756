"""From a run's records to metrics.json (pure: records in, dict out)."""

from __future__ import annotations

from judgeagent.metrics.scores import accuracy_by_level, metrics_by_label, paper_metrics


def _flags(answers: list[dict]) -> list[bool]:
    return [bool(a["correct"]) for a in answers]


def compute_metrics(records: list[dict], *, eval_every_round: bool = False) -> dict:
    records = sorted(records, key=lambda r: r["batch_index"])
    before, after, labels = [], [], []
    for r in records:
        before += _flags(r["seed_answers"])
        after += _flags(r["validations"][-1]["reanswers"])
        labels += [q.get("difficulty") for q in r["seed"]]
    out = paper_metrics(before, after).to_dict()
    out["n_batches"] = len(records)
    out["by_difficulty"] = metrics_by_label(labels, before, after) if any(labels) else {}
    if eval_every_round and records:
        points = min(len(r["validations"]) for r in records)
        out["by_round"] = [
            {"after_round": k, **paper_metrics(before, [f for r in records for f in _flags(r["validations"][k]["reanswers"])]).to_dict()}
            for k in range(points)
        ]
    asked = [rd for r in records for rd in r["rounds"] if rd.get("answer")]
    out["extension_accuracy"] = accuracy_by_level((rd["level"], rd["answer"]["correct"]) for rd in asked)
    n_rounds = sum(len(r["rounds"]) for r in records)
    out["extension"] = {
        "rounds": n_rounds,
        "asked": len(asked),
        "skipped": n_rounds - len(asked),
        "skip_reasons": sorted({rd["skipped"] for r in records for rd in r["rounds"] if rd.get("skipped")}),
    }
    out["trajectories"] = {r["batch_id"]: r["trajectory"] for r in records}
    out["evaluation_failures"] = sum(1 for r in records if r["validations"][-1]["evaluation"] is None)
    out["answer_errors"] = sum(1 for r in records for a in r["seed_answers"] if a.get("error"))
    return out
