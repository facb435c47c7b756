"""Exports of a bank (``bank export``) and of a run (``export RUN_DIR``), one function per
format, registered by name: the CLI looks a format up, it never branches on it.

- ``generic``: our own JSONL benchmark (corpus.jsonl + questions.jsonl + benchmark.json),
  so a bank becomes a benchmark ``evaluate --data`` reads. Each item's document is its
  knowledge path's passages.
- ``hf``: a Hugging Face ``datasets`` folder (``datasets.load_from_disk`` reads it).
- ``inspect``: an Inspect AI dataset (JSONL samples) and a task file for ``inspect eval``.
- run ``inspect``: an Inspect AI eval log built from inspect-ai's own log types.

``datasets`` and ``inspect-ai`` are optional extras (``pip install judgeagent[bank]`` /
``judgeagent[inspect]``); a missing one is a one-line error saying which to install.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

from judgeagent.bank.calibrate import CalibratedItem, read_calibration
from judgeagent.bank.store import Bank, BankItem
from judgeagent.errors import JudgeAgentError

Fitted = dict[str, CalibratedItem]  # item id → its calibration, for the items the last fit saw
BANK_EXPORTS: dict[str, Callable[[list[BankItem], Fitted, Path], list[Path]]] = {}
RUN_EXPORTS: dict[str, Callable[[Path, Path], list[Path]]] = {}


def bank_exporter(name: str):
    def register(fn):
        BANK_EXPORTS[name] = fn
        return fn

    return register


def run_exporter(name: str):
    def register(fn):
        RUN_EXPORTS[name] = fn
        return fn

    return register


def export_bank(graph_dir: Path, fmt: str, out: Path) -> list[Path]:
    """Write the bank's unflagged items in ``fmt`` into the folder ``out``."""
    if fmt not in BANK_EXPORTS:
        raise JudgeAgentError(f"--format must be one of {', '.join(BANK_EXPORTS)} (got {fmt!r})")
    calibration = read_calibration(graph_dir)
    fitted = {i.item_id: i for i in calibration.items} if calibration is not None else {}
    items = [i for i in Bank.open(graph_dir, create=False).items() if not (i.item_id in fitted and fitted[i.item_id].flagged)]
    if not items:
        raise JudgeAgentError(f"{graph_dir}: the bank has no items to export")
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    return BANK_EXPORTS[fmt](items, fitted, out)


def export_run(run_dir: Path, fmt: str, out: Path) -> list[Path]:
    if fmt not in RUN_EXPORTS:
        raise JudgeAgentError(f"--format must be one of {', '.join(RUN_EXPORTS)} (got {fmt!r})")
    if not (Path(run_dir) / "records.jsonl").exists():
        raise JudgeAgentError(f"{run_dir}: not a run folder (no records.jsonl)")
    return RUN_EXPORTS[fmt](Path(run_dir), Path(out))


def _write_jsonl(path: Path, rows: list[dict]) -> Path:
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")
    return path


def _passages(item: BankItem) -> str:
    return "\n\n".join(s["text"].strip() for s in item.path)


def _row(item: BankItem, fitted: Fitted) -> dict:
    """One item as a flat record (the hf columns); a and b when it is calibrated."""
    fit = fitted.get(item.item_id)
    return {
        "id": item.item_id, "question_type": item.qtype, "question": item.question,
        "option_letters": list((item.options or {}).keys()), "options": list((item.options or {}).values()),
        "answer": item.answer, "answer_text": item.answer_text, "level": item.level or "", "counted_as": item.counted_as or "",
        "passages": _passages(item), "chunk_ids": item.chunk_ids, "judge": item.judge, "graph_hash": item.graph_hash or "",
        "irt_a": None if fit is None else fit.a, "irt_b": None if fit is None else fit.b,
    }


@bank_exporter("generic")
def to_generic(items: list[BankItem], fitted: Fitted, out: Path) -> list[Path]:
    corpus = [{"doc_id": i.item_id, "title": f"knowledge path of {i.item_id}", "text": _passages(i)} for i in items]
    questions = []
    for i in items:
        q: dict[str, object] = {"id": i.item_id, "question": i.question, "answer": i.answer, "doc_id": i.item_id}
        if i.options:
            q["options"] = i.options
        if i.level:
            q["difficulty"] = i.level
        questions.append(q)
    qtypes = {i.qtype for i in items}
    if len(qtypes) > 1:
        raise JudgeAgentError(f"the bank mixes question types ({', '.join(sorted(qtypes))}); a benchmark has one")
    (out / "benchmark.json").write_text(json.dumps({"question_type": qtypes.pop()}) + "\n")
    return [_write_jsonl(out / "corpus.jsonl", corpus), _write_jsonl(out / "questions.jsonl", questions), out / "benchmark.json"]


@bank_exporter("hf")
def to_hf(items: list[BankItem], fitted: Fitted, out: Path) -> list[Path]:
    datasets = _optional("datasets", "bank")
    rows = [_row(i, fitted) for i in items]
    features = datasets.Features({
        **{k: datasets.Value("string") for k in ("id", "question_type", "question", "answer", "answer_text", "level", "counted_as",
                                                  "passages", "judge", "graph_hash")},
        "option_letters": datasets.Sequence(datasets.Value("string")), "options": datasets.Sequence(datasets.Value("string")),
        "chunk_ids": datasets.Sequence(datasets.Value("string")), "irt_a": datasets.Value("float64"), "irt_b": datasets.Value("float64"),
    })
    if out.exists() and any(out.iterdir()):
        shutil.rmtree(out)  # save_to_disk will not write into a folder holding an older export
    datasets.Dataset.from_list(rows, features=features).save_to_disk(str(out))
    return [out]


INSPECT_TASK = '''"""Inspect AI task over a JudgeAgent question bank export: `inspect eval task.py --model ...`."""

from pathlib import Path

from inspect_ai import Task, task
from inspect_ai.dataset import json_dataset
from inspect_ai.scorer import {scorer}
from inspect_ai.solver import {solver}


@task
def judgeagent_bank():
    return Task(dataset=json_dataset(str(Path(__file__).parent / "dataset.jsonl")), solver={solver}(), scorer={scorer}())
'''


def inspect_sample(item: BankItem) -> dict:
    """An Inspect sample: multiple choice as ``choices`` + target letter; a reading item
    carries its passages in the input, as our own target prompt does."""
    text = item.question if item.qtype != "rmc" else f"{_passages(item)}\n\n{item.question}"
    sample = {"id": item.item_id, "input": text, "target": item.answer,
              "metadata": {"level": item.level, "question_type": item.qtype, "chunk_ids": item.chunk_ids, "graph_hash": item.graph_hash}}
    if item.options:
        sample["choices"] = list(item.options.values())
    return sample


@bank_exporter("inspect")
def to_inspect(items: list[BankItem], fitted: Fitted, out: Path) -> list[Path]:
    mc = [i for i in items if i.options]
    if mc and len(mc) != len(items):
        raise JudgeAgentError("the bank mixes multiple-choice and phrase items; Inspect's task takes one kind")
    solver, scorer = ("multiple_choice", "choice") if mc else ("generate", "includes")
    task = out / "task.py"
    task.write_text(INSPECT_TASK.format(solver=solver, scorer=scorer))
    return [_write_jsonl(out / "dataset.jsonl", [inspect_sample(i) for i in items]), task]


def _optional(module: str, extra: str):
    import importlib

    try:
        return importlib.import_module(module)
    except ImportError:
        raise JudgeAgentError(f"this export needs the {module!r} package: pip install 'judgeagent[{extra}]'") from None
