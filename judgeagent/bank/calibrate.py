"""``judgeagent calibrate``: fit the 2PL model to every answer in a bank.

Writes ``graphs/<name>.calibration.json`` (and a readable ``.calibration.md``) beside the
bank: per target θ and its SE, per item a and b and whether its key looks wrong, and the
Spearman correlation between the level the judge wrote an item at and its fitted b.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np
from pydantic import BaseModel, ValidationError

from judgeagent.bank import irt
from judgeagent.bank.store import Bank, BankAnswer, BankItem, calibration_path
from judgeagent.errors import JudgeAgentError
from judgeagent.files import write_json_atomic

LEVEL_RANK = {"easy": 0, "medium": 1, "hard": 2}
ESTIMATOR = ("2PL, marginal MAP by EM over a 41-node grid for theta ~ N(0, 1); priors log a ~ N(mu, 0.3^2) with mu the items' mean, "
             "d = -a*b ~ N(0, 2^2); theta EAP, SE = posterior SD")


@dataclass
class AnswerMatrix:
    """The latest answer of each target to each item: targets × items, with a mask."""

    targets: list[str]
    names: dict[str, str]  # identity → the name it was last asked under
    items: list[BankItem]
    x: np.ndarray
    mask: np.ndarray


def answer_matrix(items: list[BankItem], answers: list[BankAnswer]) -> AnswerMatrix:
    """Items nobody answered are left out; a target that answered an item twice counts its latest answer."""
    answered = {a.item_id for a in answers}
    items = [i for i in items if i.item_id in answered]
    col = {i.item_id: j for j, i in enumerate(items)}
    targets = sorted({a.target for a in answers})
    row = {t: k for k, t in enumerate(targets)}
    x, mask = np.zeros((len(targets), len(items))), np.zeros((len(targets), len(items)))
    names: dict[str, str] = {}
    for a in answers:  # in write order, so the latest wins
        if a.item_id in col:
            x[row[a.target], col[a.item_id]] = float(a.correct)
            mask[row[a.target], col[a.item_id]] = 1.0
            names[a.target] = a.target_name
    return AnswerMatrix(targets, names, items, x, mask)


class CalibratedItem(BaseModel):
    item_id: str
    level: str | None
    qtype: str
    a: float
    b: float
    item_rest: float | None  # correlation of the item with the rest score; None when undefined
    flagged: bool  # its key looks wrong: excluded from `evaluate --bank`
    flag_reason: str | None
    n_answers: int
    p_correct: float


class CalibratedTarget(BaseModel):
    target: str  # the identity answers are kept under
    name: str  # the name it was last asked under
    theta: float
    se: float
    n_answered: int
    accuracy: float  # share right, 0..1


class LevelVsB(BaseModel):
    """Does "Hard" mean hard? (:func:`level_vs_difficulty`)"""

    spearman: float | None
    n_items: int
    mean_b_by_level: dict[str, float | None]


class Calibration(BaseModel):
    """calibration.json: ``model_dump()`` is the file, field for field in this order."""

    fitted: str
    model: str
    estimator: str
    converged: bool
    graph_hash: str | None
    n_targets: int
    n_items: int
    n_answers: int
    targets: list[CalibratedTarget]
    items: list[CalibratedItem]
    flagged: list[str]
    level_vs_b: LevelVsB


def calibrate_bank(graph_dir: Path) -> Calibration:
    """Fit the bank's answers and write calibration.json (and .md); returns what it wrote."""
    bank = Bank.open(graph_dir, create=False)
    m = answer_matrix(bank.items(), bank.answers())
    if not m.items:
        raise JudgeAgentError(f"{bank.path}: no answers to calibrate on yet (run `judgeagent evaluate` or `evaluate --bank` first)")
    cal = irt.calibrate(m.x, m.mask)
    result = calibration_of(m, cal, current_graph_hash(graph_dir))
    write_calibration(graph_dir, result)
    return result


def calibration_of(m: AnswerMatrix, cal: irt.Calibration, graph_hash: str | None) -> Calibration:
    n_answers = m.mask.sum(0)
    p_right = np.where(n_answers > 0, (m.x * m.mask).sum(0) / np.maximum(n_answers, 1), np.nan)
    items = []
    for j, item in enumerate(m.items):
        ir = cal.item_rest[j]
        reason = None
        if cal.flagged[j]:
            reason = "negative item-rest correlation" if np.isfinite(ir) and ir < 0 else "a <= 0"
        items.append(CalibratedItem(
            item_id=item.item_id, level=item.level, qtype=item.qtype,
            a=round(float(cal.a[j]), 4), b=round(float(cal.b[j]), 4),
            item_rest=None if not np.isfinite(ir) else round(float(ir), 4),
            flagged=bool(cal.flagged[j]), flag_reason=reason,
            n_answers=int(n_answers[j]), p_correct=round(float(p_right[j]), 4),
        ))
    targets = [
        CalibratedTarget(target=t, name=m.names.get(t, t), theta=round(float(cal.theta[k]), 4), se=round(float(cal.se[k]), 4),
                         n_answered=int(m.mask[k].sum()), accuracy=round(float((m.x[k] * m.mask[k]).sum() / max(m.mask[k].sum(), 1)), 4))
        for k, t in enumerate(m.targets)
    ]
    return Calibration(
        fitted=datetime.now(UTC).isoformat(timespec="seconds"),
        model="2PL",
        estimator=ESTIMATOR,
        converged=bool(cal.converged),
        graph_hash=graph_hash,
        n_targets=len(m.targets), n_items=len(m.items), n_answers=int(m.mask.sum()),
        targets=sorted(targets, key=lambda t: -t.theta),
        items=items,
        flagged=[i.item_id for i in items if i.flagged],
        level_vs_b=level_vs_difficulty(items),
    )


def level_vs_difficulty(items: list[CalibratedItem]) -> LevelVsB:
    """Does "Hard" mean hard? Spearman's ρ between the generated level and the fitted b
    over the unflagged items, and the mean b per level."""
    good = [i for i in items if not i.flagged and i.level in LEVEL_RANK]
    by_level = {lv: [i.b for i in good if i.level == lv] for lv in LEVEL_RANK}
    rho = irt.spearman([LEVEL_RANK[str(i.level)] for i in good], [i.b for i in good])
    return LevelVsB(
        spearman=None if rho is None else round(rho, 4),
        n_items=len(good),
        mean_b_by_level={lv: (round(float(np.mean(bs)), 4) if bs else None) for lv, bs in by_level.items()},
    )


def current_graph_hash(graph_dir: Path) -> str | None:
    """The input hash of the graph as it is built now (None when it is not built)."""
    try:
        return json.loads((Path(graph_dir) / "manifest.json").read_text()).get("input_hash")
    except (OSError, json.JSONDecodeError):
        return None


def load_calibration(graph_dir: Path) -> dict | None:
    """calibration.json as JSON (bankrun.py reads it so; new readers use :func:`read_calibration`)."""
    path = calibration_path(graph_dir)
    if not path.exists():
        return None
    try:
        return json.loads(path.read_text())
    except (OSError, json.JSONDecodeError) as e:
        raise JudgeAgentError(f"{path}: cannot read the calibration ({e}); rerun `judgeagent calibrate`") from None


def read_calibration(graph_dir: Path) -> Calibration | None:
    """The bank's calibration, parsed (None before the first `judgeagent calibrate`)."""
    data = load_calibration(graph_dir)
    if data is None:
        return None
    try:
        return Calibration.model_validate(data)
    except ValidationError as e:
        raise JudgeAgentError(f"{calibration_path(graph_dir)}: not a calibration ({e.errors()[0]['msg']}); rerun `judgeagent calibrate`") from None


def write_calibration(graph_dir: Path, result: Calibration) -> Path:
    path = calibration_path(graph_dir)
    write_json_atomic(path, result.model_dump())  # python mode: a NaN stays NaN, as json.dumps writes it
    path.with_suffix(".md").write_text(calibration_markdown(result))
    return path


def calibration_markdown(result: Calibration) -> str:
    """The calibration's report section."""
    lv = result.level_vs_b
    rho = "n/a (too few items or one level only)" if lv.spearman is None else f"{lv.spearman:.2f} over {lv.n_items} items"
    lines = [
        "## Item response calibration",
        "",
        f"{result.n_targets} targets, {result.n_items} items, {result.n_answers} answers. {result.estimator}.",
        "",
        "| target | θ | SE | items answered | accuracy |",
        "|---|---:|---:|---:|---:|",
        *[f"| {t.name} | {t.theta:.2f} | {t.se:.2f} | {t.n_answered} | {100 * t.accuracy:.1f}% |" for t in result.targets],
        "",
        f"**Does \"Hard\" mean hard?** Spearman ρ between the generated level and the fitted b: {rho}. "
        "Mean b by level: " + ", ".join(f"{k} {'–' if v is None else f'{v:.2f}'}" for k, v in lv.mean_b_by_level.items()) + ".",
        "",
        f"**Flagged items** ({len(result.flagged)}; excluded from `evaluate --bank`):",
        "",
    ]
    flagged = [i for i in result.items if i.flagged]
    lines += [f"- `{i.item_id}` ({i.level}): {i.flag_reason} (item-rest {i.item_rest}, a {i.a})" for i in flagged] or ["- none"]
    if result.n_targets < 5:
        lines += ["", f"With {result.n_targets} target(s) the fit says little: the priors hold a near 1 and θ near 0."]
    return "\n".join(lines) + "\n"
