"""Asking a target fixed bank items, no generation: the pieces of the ``bank`` protocol
(:mod:`judgeagent.protocols.bank`, ``judgeagent evaluate --bank GRAPH_DIR``).

Several targets asked the same items (same ``--bank-size`` and ``--bank-seed``) are on one
scale. Items that calibration flagged are left out, with a note. With ``--adaptive`` the
items are chosen one at a time by Fisher information at the target's current θ
(:mod:`judgeagent.bank.adaptive`) until the SE reaches ``--target-se``.

The engine runs it like every protocol: same client and journal (a rerun replays), same run
folder, failed calls and stops.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from judgeagent.bank.adaptive import AdaptiveTest
from judgeagent.bank.calibrate import Calibration, current_graph_hash, read_calibration
from judgeagent.bank.irt import eap
from judgeagent.bank.store import Bank, BankItem
from judgeagent.data.benchmark import QuestionType
from judgeagent.errors import ConfigError
from judgeagent.records import AnswerRecord, BankItemRecord
from judgeagent.stages.extension import path_text
from judgeagent.stages.grading import Answer, ask_batch
from judgeagent.stages.models import Models


@dataclass
class BankPool:
    """The items a bank run may ask, and what was set aside."""

    items: list[BankItem]
    flagged: list[str]  # set aside: calibration says the key looks wrong
    params: dict[str, tuple[float, float]]  # item id → (a, b) for calibrated items
    calibration: Calibration | None


def bank_pool(graph_dir: Path, bank: Bank, *, adaptive: bool) -> BankPool:
    """Unflagged items; for an adaptive test only calibrated items with a > 0."""
    calibration = read_calibration(graph_dir)
    if adaptive and calibration is None:
        raise ConfigError(f"--adaptive needs a calibrated bank: run `judgeagent calibrate {graph_dir}` first")
    fitted = {i.item_id: i for i in (calibration.items if calibration is not None else [])}
    flagged = {k for k, i in fitted.items() if i.flagged}
    params = {k: (i.a, i.b) for k, i in fitted.items() if not i.flagged and i.a > 0}
    items = [i for i in bank.items() if i.item_id not in flagged and (not adaptive or i.item_id in params)]
    if not items:
        raise ConfigError(f"{bank.path}: no usable items" + (" with calibrated parameters" if adaptive else ""))
    return BankPool(items, sorted(flagged), params, calibration)


def draw_items(items: list[BankItem], size: int | None, seed: int) -> list[BankItem]:
    """``size`` items, ranked by a seeded hash of their ids: two targets given the same size
    and seed get the same items, and items added to the bank later only enter the draw
    where they rank, instead of reshuffling it."""
    ranked = sorted(items, key=lambda i: hashlib.sha256(f"{seed}:{i.item_id}".encode()).hexdigest())
    return ranked[: size or len(ranked)]


async def ask_item(models: Models, item: BankItem) -> Answer:
    """One item in its own prompt; a reading item comes with its passages."""
    qtype = QuestionType(item.qtype)
    context = path_text([s["text"] for s in item.path], [s["entity"] for s in item.path]) if qtype.shows_context else None
    (answer,) = await ask_batch(models, qtype, [item.to_question()], stage="bank", context=context)
    return answer


async def adaptive_test(models: Models, pool: BankPool, target_se: float, max_items: int | None) -> tuple[AdaptiveTest, list[BankItemRecord]]:
    items = sorted(pool.items, key=lambda i: i.item_id)
    a = np.array([pool.params[i.item_id][0] for i in items])
    b = np.array([pool.params[i.item_id][1] for i in items])
    test = AdaptiveTest(a, b, target_se, max_items)
    records = []
    while (j := test.next_item()) is not None:
        answer = await ask_item(models, items[j])
        step = test.record(j, answer.correct)
        rec = item_record(items[j], answer)
        rec.step, rec.information, rec.theta, rec.se = len(test.steps), round(step.information, 4), round(step.theta, 4), round(step.se, 4)
        records.append(rec)
    return test, records


def item_record(item: BankItem, answer: Answer) -> BankItemRecord:
    return BankItemRecord(item_id=item.item_id, level=item.level, qtype=item.qtype, question=item.question, options=item.options, answer=item.answer,
                          graph_hash=item.graph_hash, target_answer=AnswerRecord.of(answer), correct=answer.correct)


@dataclass
class LevelFigures:
    n_items: int = 0
    correct: int = 0
    accuracy: float | None = None


@dataclass
class Ability:
    """θ and its SE from the calibrated items asked."""

    theta: float
    se: float
    n_items: int


@dataclass
class FixedFigures:
    """A fixed bank test: accuracy overall and by level; θ and SE when the items are calibrated."""

    n_items: int
    n_correct: int
    accuracy: float | None
    by_level: dict[str, LevelFigures]
    ability: Ability | None


def fixed_metrics(records: Sequence[BankItemRecord], pool: BankPool) -> FixedFigures:
    """Accuracy overall and by level; θ and SE when the asked items are calibrated."""
    n = len(records)
    if n == 0:  # every item's call failed: the run says so under "incomplete"
        return FixedFigures(0, 0, None, {}, None)
    by_level: dict[str, LevelFigures] = {}
    for r in records:
        lv = by_level.setdefault(r.level or "unlabeled", LevelFigures())
        lv.n_items += 1
        lv.correct += int(r.correct)
    for lv in by_level.values():
        lv.accuracy = round(100 * lv.correct / lv.n_items, 2)
    calibrated = [r for r in records if r.item_id in pool.params]
    ability = None
    if calibrated:
        theta, se = eap([float(r.correct) for r in calibrated], [pool.params[r.item_id][0] for r in calibrated],
                        [pool.params[r.item_id][1] for r in calibrated])
        ability = Ability(round(theta, 4), round(se, 4), len(calibrated))
    right = sum(r.correct for r in records)
    return FixedFigures(n, right, round(100 * right / n, 2), by_level, ability)


def pool_notes(pool: BankPool, graph_dir: Path, n_bank: int) -> dict[str, object]:
    current = current_graph_hash(graph_dir)
    older = sum(1 for i in pool.items if current is not None and i.graph_hash != current)
    note = (f"{len(pool.flagged)} item(s) flagged by calibration (key looks wrong) were left out" if pool.flagged else None)
    return {"bank_items": n_bank, "excluded_flagged": len(pool.flagged), "excluded_note": note, "items_from_older_graph": older}


