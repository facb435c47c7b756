"""``judgeagent bank GRAPH_DIR``: what a bank holds, who answered it, what calibration flagged."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel

from judgeagent.bank.calibrate import LevelVsB, current_graph_hash, read_calibration
from judgeagent.bank.store import Bank


class OlderItems(BaseModel):
    n_items: int
    by_graph_hash: dict[str | None, int]  # an item written before hashes were kept has None


class TargetAnswers(BaseModel):
    target: str
    name: str
    n_answers: int
    n_items: int
    n_runs: int
    accuracy: float  # % right over every answer it gave


class Flagged(BaseModel):
    item_id: str
    reason: str | None


class CalibrationSummary(BaseModel):
    fitted: str
    n_targets: int
    flagged: list[Flagged]
    level_vs_b: LevelVsB


class BankSummary(BaseModel):
    """``model_dump`` is ``judgeagent bank --json``, field for field in this order."""

    bank: str
    graph_hash: str | None
    n_items: int
    by_type_and_level: dict[str, dict[str, int]]
    by_level: dict[str, int]
    from_older_graph: OlderItems
    n_answers: int
    targets: list[TargetAnswers]
    calibration: CalibrationSummary | None


@dataclass
class _Tally:
    answers: int = 0
    correct: int = 0
    items: set[str] = field(default_factory=set)
    runs: set[str] = field(default_factory=set)


def bank_summary(graph_dir: Path) -> BankSummary:
    bank = Bank.open(graph_dir, create=False)
    items, answers = bank.items(), bank.answers()
    current = current_graph_hash(graph_dir)
    by_type: dict[str, Counter] = {}
    for i in items:
        by_type.setdefault(i.qtype, Counter())[i.level or "unlabeled"] += 1
    older = Counter(i.graph_hash for i in items if current is not None and i.graph_hash != current)
    tallies: dict[str, _Tally] = {}
    names: dict[str, str] = {}
    for a in answers:
        t = tallies.setdefault(a.target, _Tally())
        names.setdefault(a.target, a.target_name)  # the name it was first asked under
        t.answers += 1
        t.correct += int(a.correct)
        t.items.add(a.item_id)
        t.runs.add(a.run)
    targets = [TargetAnswers(target=k, name=names[k], n_answers=t.answers, n_items=len(t.items), n_runs=len(t.runs),
                             accuracy=round(100 * t.correct / t.answers, 2)) for k, t in tallies.items()]
    calibration = read_calibration(graph_dir)
    return BankSummary(
        bank=str(bank.path),
        graph_hash=current,
        n_items=len(items),
        by_type_and_level={q: dict(sorted(c.items())) for q, c in sorted(by_type.items())},
        by_level=dict(sorted(Counter(i.level or "unlabeled" for i in items).items())),
        from_older_graph=OlderItems(n_items=sum(older.values()), by_graph_hash=dict(older)),
        n_answers=len(answers),
        targets=sorted(targets, key=lambda t: t.name),
        calibration=None if calibration is None else CalibrationSummary(
            fitted=calibration.fitted, n_targets=calibration.n_targets,
            flagged=[Flagged(item_id=i.item_id, reason=i.flag_reason) for i in calibration.items if i.flagged],
            level_vs_b=calibration.level_vs_b,
        ),
    )
