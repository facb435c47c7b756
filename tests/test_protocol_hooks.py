"""What a protocol declares instead of the engine or the audit knowing it by name: the
services its units share (built once per run, once the models are up) and where its records
hold questions for ``judgeagent audit``. A protocol defined in this module alone, registered
here, gets both, with no other file changed: the proof that a new protocol is one package.

The "reversal" protocol writes, per seed, one new question of its own (the seed's options
in reverse order, the key moved with them), asks it and records it. The target is a scripted
server on 127.0.0.1 that always answers A.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scripted_server import ScriptedServer

import judgeagent
from judgeagent.audit.runrecords import answered, read_config
from judgeagent.audit.sources import read_source
from judgeagent.batches import Batch
from judgeagent.budgets import answering
from judgeagent.config import EvalConfig, LLMConfig, SeedOptions
from judgeagent.data.benchmark import Question
from judgeagent.engine import AuditSlot, Protocol, RunServices, Service, register, split_seeds
from judgeagent.engine import run as run_protocol
from judgeagent.engine.protocol import Figures
from judgeagent.records import AnswerRecord, FollowUpRecord, QuestionRecord, UnitRecord
from judgeagent.stages.grading import ask_batch

DATA = Path(__file__).resolve().parents[1] / "data" / "medqa-demo"
ASK = answering("reversal", 15)  # the target answers the reversed question


class ReversalRecord(UnitRecord):
    written: FollowUpRecord


class Written:
    """The run-wide service: which units wrote a question, in the order they did."""

    def __init__(self, judge: str) -> None:
        self.judge = judge  # the judge's name: the models were up when it was built
        self.units: list[str] = []


BUILT: list[Written] = []


def written(run: RunServices[Any, Any]) -> Written:
    BUILT.append(Written(run.models.judge.name))
    return BUILT[-1]


WRITTEN = Service("written", written)


def reversed_question(q: Question) -> Question:
    letters = sorted(q.options or {})
    texts = [q.options[x] for x in reversed(letters)] if q.options else []
    key = letters[len(letters) - 1 - letters.index(q.answer)]
    return Question(id=f"{q.id}-rev", question=q.question, answer=key, options=dict(zip(letters, texts)), difficulty=q.difficulty)


class Reversal(Protocol[SeedOptions, ReversalRecord]):
    name = "reversal"
    title = "Reversal (a protocol from tests/test_protocol_hooks.py)"
    order = 95
    audited_items = "reversed questions"

    def units(self, run: RunServices[SeedOptions, ReversalRecord]) -> list[Batch]:
        return split_seeds(run.batches)

    def services(self, options: SeedOptions) -> tuple[Service[Any], ...]:
        return (WRITTEN,)

    async def ask_unit(self, run: RunServices[SeedOptions, ReversalRecord], unit: Batch) -> None:
        q = reversed_question(unit.questions[0])
        (a,) = await ask_batch(run.models, run.bench.qtype, [q], stage=ASK.name)
        run.service(WRITTEN).units.append(unit.id)
        entry = FollowUpRecord(level=q.difficulty or "medium", question=QuestionRecord.of(q), answer=AnswerRecord.of(a))
        run.append(ReversalRecord(batch_id=unit.id, batch_index=unit.index, written=entry))

    def audit_slots(self, record: ReversalRecord) -> list[AuditSlot]:
        return [AuditSlot(record.batch_id, f"{record.batch_id} reversed", 0, f"{record.batch_id}-rev", record.written)]

    def metrics(self, run: RunServices[SeedOptions, ReversalRecord], records: list[ReversalRecord]) -> Figures:
        return {"protocol": self.name, **run.bookkeeping({r.batch_id for r in records})}


@pytest.fixture(scope="module")
def reversal():
    from judgeagent.engine.registry import PROTOCOLS

    register(Reversal)
    yield Reversal
    PROTOCOLS.pop(Reversal.name, None)


@pytest.fixture(scope="module")
def run_dir(reversal, tmp_path_factory) -> Path:
    """One run of four seeds through the engine, against a target that always answers A."""
    tmp = tmp_path_factory.mktemp("reversal")
    with ScriptedServer(lambda body: json.dumps({"response": [{"answer": "A"}]})) as srv:
        models = tmp / "judgeagent.toml"
        models.write_text(f'[models.scripted]\nbase_url = "{srv.base_url}"\nmodel = "scripted-model"\nconcurrency = 2\n')
        cfg = EvalConfig(target="scripted", judge="scripted", data=DATA, out=tmp / "run", protocol="reversal", limit=4,
                         llm=LLMConfig(models_file=models))
        BUILT.clear()
        outcome = run_protocol(cfg, progress=False)
    return outcome.folder.path


def test_a_declared_service_is_built_once_with_the_models_up_and_shared_by_every_unit(run_dir):
    assert len(BUILT) == 1 and BUILT[0].judge == "scripted"
    records = [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines()]
    assert sorted(BUILT[0].units) == sorted(r["batch_id"] for r in records) and len(records) == 4


def test_the_audit_reads_a_new_protocols_questions_where_it_says_they_are(run_dir):
    source = read_source(run_dir)
    records = [json.loads(line) for line in (run_dir / "records.jsonl").read_text().splitlines()]
    assert source.kind == "run" and len(source.items) == 4
    by_ref = {i.ref: i for i in source.items}
    for r in records:
        item = by_ref[f"{r['batch_id']} reversed"]
        written = r["written"]
        assert (item.question, item.key, item.options) == (written["question"]["question"], written["question"]["answer"], written["question"]["options"])
        assert item.status == "asked without a gate" and item.batch == r["batch_id"]
    # What the audit's accuracy on valid items is computed from: each asked item and its answer.
    answers, what = answered(run_dir, read_config(run_dir))
    assert what == "reversed questions"
    assert sorted((a.item_id, a.correct) for a in answers) == sorted((i.item_id, i.key == "A") for i in source.items)
    result = judgeagent.audit(run_dir, sample=3, seed=1)
    assert (result.kind, result.population, result.sampled) == ("run", 4, 3)
