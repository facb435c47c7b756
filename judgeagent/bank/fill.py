"""Filling the bank from a finished interview's records: an extra write after the run.

The interview itself never reads the bank, so a run measures the same with or without it.
Only follow-ups that passed the quality gate go in (with ``--no-gate`` nothing does), each
with the target's answer to it. Writing the same run twice (a resume, a replay) adds nothing.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from judgeagent.bank.store import Bank, BankAnswer, BankItem


def item_id(qtype: str, question: str, options: dict | None, answer: str) -> str:
    """Content-addressed: the same question written twice is one item."""
    key = json.dumps([qtype, question.strip(), options, answer.strip()], ensure_ascii=False, sort_keys=True)
    return "q" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:15]


def banked_rounds(records: list[dict]):
    """(record, round) for every asked follow-up that passed the gate."""
    for rec in records:
        for rd in rec.get("rounds") or []:
            gate = rd.get("gate")
            if rd.get("question") and rd.get("answer") and gate and gate.get("passed"):
                yield rec, rd


def items_from_records(records: list[dict], *, qtype: str, judge: str, run: str, graph_hash: str | None, data: str | None) -> list[BankItem]:
    items = []
    for _rec, rd in banked_rounds(records):
        q = rd["question"]
        steps = (rd.get("path") or {}).get("steps") or []
        items.append(
            BankItem(
                item_id=item_id(qtype, q["question"], q.get("options"), q["answer"]),
                qtype=qtype, question=q["question"], answer=q["answer"], options=q.get("options"),
                level=rd.get("level"), counted_as=rd.get("counted_as"),
                chunk_ids=[s["chunk_id"] for s in steps], path=steps, gate=rd.get("gate"),
                judge=judge, run=run, graph_hash=graph_hash, data=data,
            )
        )
    return items


def answers_from_records(records: list[dict], *, qtype: str, target: str, target_name: str, run: str) -> list[BankAnswer]:
    out = []
    for _rec, rd in banked_rounds(records):
        q, a = rd["question"], rd["answer"]
        out.append(BankAnswer(item_id(qtype, q["question"], q.get("options"), q["answer"]), target, target_name, run, "interview",
                              a.get("reply"), a.get("chosen"), bool(a.get("correct"))))
    return out


def fill_bank(graph_dir: Path, run_dir: Path, records: list[dict], *, qtype: str, graph_hash: str | None, data: str | None,
              target, judge) -> tuple[int, int]:
    """Write a run's gated follow-ups and the target's answers to the graph's bank.
    ``target`` and ``judge`` are model specs (their ``identity`` is recorded). Returns the
    numbers of new items and new answers."""
    run = str(Path(run_dir).resolve())
    items = items_from_records(records, qtype=qtype, judge=judge.identity, run=run, graph_hash=graph_hash, data=data)
    if not items:
        return 0, 0
    answers = answers_from_records(records, qtype=qtype, target=target.identity, target_name=target.name, run=run)
    return Bank.open(graph_dir).write(items, answers)
