"""Filling the bank from a finished interview's records: an extra write after the run.

The interview itself never reads the bank, so a run measures the same with or without it.
Only follow-ups that passed the quality gate go in (with ``--no-gate`` nothing does), each
with the target's answer to it. Writing the same run twice (a resume, a replay) adds nothing.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Sequence
from pathlib import Path

from judgeagent.bank.store import Bank, BankAnswer, BankItem
from judgeagent.records import AnswerRecord, InterviewRecord, QuestionRecord, RoundRecord


def item_id(qtype: str, question: str, options: dict | None, answer: str) -> str:
    """Content-addressed: the same question written twice is one item."""
    key = json.dumps([qtype, question.strip(), options, answer.strip()], ensure_ascii=False, sort_keys=True)
    return "q" + hashlib.sha256(key.encode("utf-8")).hexdigest()[:15]


def banked_rounds(records: Sequence[InterviewRecord]) -> Iterator[tuple[QuestionRecord, AnswerRecord, RoundRecord]]:
    """(question, answer, round) for every asked follow-up that passed the gate."""
    for rec in records:
        for rd in rec.rounds:
            if rd.question is not None and rd.answer is not None and rd.gate is not None and rd.gate.passed:
                yield rd.question, rd.answer, rd


def items_from_records(records: Sequence[InterviewRecord], *, qtype: str, judge: str, run: str, graph_hash: str | None,
                       data: str | None) -> list[BankItem]:
    items = []
    for q, _answer, rd in banked_rounds(records):
        steps = rd.path.steps if rd.path is not None else []
        items.append(
            BankItem(
                item_id=item_id(qtype, q.question, q.options, q.answer),
                qtype=qtype, question=q.question, answer=q.answer, options=q.options, level=rd.level, counted_as=rd.counted_as,
                chunk_ids=[s.chunk_id for s in steps], path=[s.to_json() for s in steps], gate=rd.gate.to_json() if rd.gate else None,
                judge=judge, run=run, graph_hash=graph_hash, data=data,
            )
        )  # fmt: skip
    return items


def answers_from_records(records: Sequence[InterviewRecord], *, qtype: str, target: str, target_name: str, run: str) -> list[BankAnswer]:
    return [BankAnswer(item_id(qtype, q.question, q.options, q.answer), target, target_name, run, "interview", a.reply, a.chosen, a.correct)
            for q, a, _round in banked_rounds(records)]  # fmt: skip


def fill_bank(graph_dir: Path, run_dir: Path, records: Sequence[InterviewRecord], *, qtype: str, graph_hash: str | None, data: str | None,
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
