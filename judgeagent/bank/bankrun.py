"""``judgeagent evaluate --bank GRAPH_DIR``: ask a target fixed bank items, no generation.

Several targets asked the same items (same ``--bank-size`` and ``--bank-seed``) are on one
scale. Items that calibration flagged are left out, with a note. With ``--adaptive`` the
items are chosen one at a time by Fisher information at the target's current θ
(:mod:`judgeagent.bank.adaptive`) until the SE reaches ``--target-se``.

A separate mode beside the interview: it shares the model client, the grading and the run
folder (journal, so a rerun replays), and nothing else.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import numpy as np

from judgeagent.bank.adaptive import AdaptiveTest
from judgeagent.bank.calibrate import current_graph_hash, load_calibration
from judgeagent.bank.irt import eap
from judgeagent.bank.store import Bank, BankAnswer, BankItem
from judgeagent.config import EvalConfig
from judgeagent.data.benchmark import QuestionType
from judgeagent.errors import ConfigError
from judgeagent.runfolder import RunFolder
from judgeagent.stages.extension import path_text
from judgeagent.stages.grading import Answer, ask_batch
from judgeagent.stages.models import Models


@dataclass
class BankRunOutcome:
    folder: RunFolder
    metrics: dict


def run_bank_evaluation(cfg: EvalConfig) -> BankRunOutcome:
    return asyncio.run(_run(cfg))


@dataclass
class BankPool:
    """The items a bank run may ask, and what was set aside."""

    items: list[BankItem]
    flagged: list[str]  # set aside: calibration says the key looks wrong
    params: dict[str, tuple[float, float]]  # item id → (a, b) for calibrated items
    calibration: dict | None


def bank_pool(graph_dir: Path, bank: Bank, *, adaptive: bool) -> BankPool:
    """Unflagged items; for an adaptive test only calibrated items with a > 0."""
    calibration = load_calibration(graph_dir)
    if adaptive and calibration is None:
        raise ConfigError(f"--adaptive needs a calibrated bank: run `judgeagent calibrate {graph_dir}` first")
    fitted = {i["item_id"]: i for i in (calibration or {}).get("items", [])}
    flagged = {k for k, i in fitted.items() if i["flagged"]}
    params = {k: (i["a"], i["b"]) for k, i in fitted.items() if not i["flagged"] and i["a"] > 0}
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


async def fixed_test(models: Models, items: list[BankItem], concurrency: int) -> list[dict]:
    gate = asyncio.Semaphore(concurrency)

    async def one(item: BankItem) -> dict:
        async with gate:
            return item_record(item, await ask_item(models, item))

    return list(await asyncio.gather(*(one(i) for i in items)))


async def adaptive_test(models: Models, pool: BankPool, cfg: EvalConfig) -> tuple[AdaptiveTest, list[dict]]:
    items = sorted(pool.items, key=lambda i: i.item_id)
    a = np.array([pool.params[i.item_id][0] for i in items])
    b = np.array([pool.params[i.item_id][1] for i in items])
    test = AdaptiveTest(a, b, cfg.target_se, cfg.bank_size)
    records = []
    while (j := test.next_item()) is not None:
        answer = await ask_item(models, items[j])
        step = test.record(j, answer.correct)
        records.append(item_record(items[j], answer) | {"step": len(test.steps), "information": round(step.information, 4),
                                                          "theta": round(step.theta, 4), "se": round(step.se, 4)})
    return test, records


def item_record(item: BankItem, answer: Answer) -> dict:
    return {"item_id": item.item_id, "level": item.level, "qtype": item.qtype, "question": item.question, "options": item.options,
            "answer": item.answer, "graph_hash": item.graph_hash, "target_answer": answer.to_dict(), "correct": answer.correct}


def fixed_metrics(records: list[dict], pool: BankPool) -> dict:
    """Accuracy overall and by level; θ and SE when the asked items are calibrated."""
    n = len(records)
    by_level: dict[str, dict] = {}
    for r in records:
        lv = by_level.setdefault(r["level"] or "unlabeled", {"n_items": 0, "correct": 0})
        lv["n_items"] += 1
        lv["correct"] += int(r["correct"])
    for lv in by_level.values():
        lv["accuracy"] = round(100 * lv["correct"] / lv["n_items"], 2)
    calibrated = [r for r in records if r["item_id"] in pool.params]
    ability = None
    if calibrated:
        theta, se = eap([float(r["correct"]) for r in calibrated], [pool.params[r["item_id"]][0] for r in calibrated],
                        [pool.params[r["item_id"]][1] for r in calibrated])
        ability = {"theta": round(theta, 4), "se": round(se, 4), "n_items": len(calibrated)}
    return {"n_items": n, "n_correct": sum(r["correct"] for r in records), "accuracy": round(100 * sum(r["correct"] for r in records) / n, 2),
            "by_level": by_level, "ability": ability}


async def _run(cfg: EvalConfig) -> BankRunOutcome:
    from judgeagent.llm import LLMClient, load_registry
    from judgeagent.scaffold import preflight

    assert cfg.bank is not None
    graph_dir = Path(cfg.bank)
    bank = Bank.open(graph_dir, create=False)
    pool = bank_pool(graph_dir, bank, adaptive=cfg.adaptive)
    registry = load_registry(cfg.llm.models_file)
    target, judge = registry.resolve(cfg.target), registry.resolve(cfg.judge)
    mode = "adaptive" if cfg.adaptive else "bank"
    identity = {"mode": mode, "bank": str(graph_dir.resolve()), "target": cfg.target, "judge": cfg.judge, "bank_size": cfg.bank_size,
                "bank_seed": cfg.bank_seed, "target_se": cfg.target_se if cfg.adaptive else None, "seed": cfg.seed}
    folder = RunFolder(cfg.resume) if cfg.resume else RunFolder.for_settings(identity, target=cfg.target, data=graph_dir.name, out=cfg.out, kind=f"-{mode}")
    async with LLMClient.from_config(cfg.llm, folder.journal_path) as client:
        await preflight(client, target, judge)
        models = Models(client, target, judge, seed=cfg.seed)
        if cfg.adaptive:
            test, records = await adaptive_test(models, pool, cfg)
            metrics = {"mode": mode, "theta": round(test.theta, 4), "se": round(test.se, 4), "items_used": len(test.steps),
                       "items_available": len(pool.items), "target_se": cfg.target_se, "stop_reason": test.stop_reason}
        else:
            records = await fixed_test(models, draw_items(pool.items, cfg.bank_size, cfg.bank_seed), cfg.concurrency)
            metrics = {"mode": mode, **fixed_metrics(records, pool)}
            if cfg.bank_size and cfg.bank_size > len(pool.items):
                metrics["size_note"] = f"--bank-size {cfg.bank_size} asked for more items than the bank has usable ({len(pool.items)}): all were asked"
    metrics |= pool_notes(pool, graph_dir, len(bank.items()))
    write_run(folder, cfg, identity, records, metrics, target, judge)
    bank.write([], [BankAnswer(r["item_id"], target.identity, target.name, str(folder.path.resolve()), mode, r["target_answer"]["reply"],
                               r["target_answer"]["chosen"], r["correct"]) for r in records])
    return BankRunOutcome(folder, metrics)


def pool_notes(pool: BankPool, graph_dir: Path, n_bank: int) -> dict:
    current = current_graph_hash(graph_dir)
    older = sum(1 for i in pool.items if current is not None and i.graph_hash != current)
    note = (f"{len(pool.flagged)} item(s) flagged by calibration (key looks wrong) were left out" if pool.flagged else None)
    return {"bank_items": n_bank, "excluded_flagged": len(pool.flagged), "excluded_note": note, "items_from_older_graph": older}


def write_run(folder: RunFolder, cfg: EvalConfig, identity: dict, records: list[dict], metrics: dict, target, judge) -> None:
    from judgeagent.run import model_info, package_versions

    folder.write_json("config.json", {"settings": identity, "eval_config": cfg.replay_json(), "mode": identity["mode"],
                                      "models": {"target": model_info(target), "judge": model_info(judge)},
                                      "versions": package_versions(), "created": datetime.now(UTC).isoformat(timespec="seconds")})
    tmp = folder.records_path.with_suffix(".jsonl.tmp")
    folder.path.mkdir(parents=True, exist_ok=True)
    tmp.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    tmp.replace(folder.records_path)
    folder.write_json("metrics.json", metrics)
