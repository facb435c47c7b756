"""One follow-up question from a batch's knowledge path: path window → generate → gate.

The interview (one question per round, at the controller's level) and the contamination
probe (one question per seed, at the seed's level) write their new questions the same way,
so the two can only differ in what they do with the question afterwards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeVar

from judgeagent.batches import Batch, batch_seed
from judgeagent.data.benchmark import Benchmark, Question
from judgeagent.graph import KnowledgePath
from judgeagent.records import FollowUpRecord, GateRecord, GenerationAttempt, PathRecord, QuestionRecord
from judgeagent.stages.extension import generate_question, path_text
from judgeagent.stages.gate import GateVerdict, QualityGate, balanced_position
from judgeagent.stages.models import Models

F = TypeVar("F", bound=FollowUpRecord)

# The field a benchmark's questions come from, named in the generation prompt.
DOMAINS = {"medqa": "medical", "multihop": "news", "quality": "reading comprehension", "generic": "general knowledge"}


@dataclass
class FollowUp:
    """A follow-up as written, before it is asked: the question, or why there is none."""

    window: KnowledgePath | None  # the path steps it was written from
    question: Question | None
    source: str | None = None  # the numbered passages the judge saw (shown to an RMC target)
    attempts: list[dict] | None = None  # None when there was no path to write from
    verdict: GateVerdict | None = None
    skipped: str | None = None

    @property
    def path(self) -> PathRecord | None:
        return PathRecord.from_json(self.window.to_dict()) if self.window else None

    def record(self, rec: F) -> F:
        """``rec`` with the follow-up's path, how it was written and the gate's verdict (the
        last two only when something was written: a record without them had no path)."""
        rec.path = self.path
        if self.attempts is not None:
            rec.generation_attempts = [GenerationAttempt.from_json(a) for a in self.attempts]
            rec.gate = GateRecord.from_json(self.verdict.to_dict()) if self.verdict is not None else None
        if self.question is None:
            rec.skipped, rec.question, rec.answer = self.skipped, None, None
        else:
            rec.skipped, rec.question = None, QuestionRecord.of(self.question)
        return rec

    @property
    def single_hop(self) -> bool:
        return self.verdict is not None and self.verdict.single_hop


@dataclass
class FollowUpWriter:
    """Writes one batch's follow-ups, the i-th from window i of the batch's knowledge path."""

    models: Models
    bench: Benchmark
    path: KnowledgePath | None
    hops: int
    tries: int
    letters_seed: int
    avoid: list[str]  # the seeds and the accepted follow-ups: a copy of one is rejected
    gate: QualityGate | None = None

    @classmethod
    def for_batch(cls, models: Models, bench: Benchmark, batch: Batch, path: KnowledgePath | None, *, hops: int, tries: int, seed: int,
                  gate: QualityGate | None = None) -> FollowUpWriter:
        """The writer for one batch: its planned path, and the balanced answer letters seeded by the batch."""
        letters_seed = batch_seed(seed, batch.id, "letters")
        return cls(models, bench, path, hops, tries, letters_seed, [q.question for q in batch.questions], gate)

    async def write(self, index: int, level: str, *, qid: str) -> FollowUp:
        """The ``index``-th follow-up at ``level``; ``qid`` also names its gate verdicts in the journal."""
        window = self.path.window(index, self.hops) if self.path else None
        if not window or not window.steps:
            return FollowUp(window, None, skipped="no knowledge path")
        source = path_text(window.texts, window.entities)
        qtype = self.bench.qtype
        gen = await generate_question(
            self.models, qtype, level, source, qid=qid, domain=DOMAINS.get(self.bench.format, "general"), avoid=self.avoid,
            gate=self.gate, path_texts=list(dict.fromkeys(window.texts)), tries=self.tries,
            # Answer letters balanced over the batch's follow-ups, the same whatever the scheduling.
            position=balanced_position(self.letters_seed, index) if qtype.is_multiple_choice else None,
        )
        if gen.question is not None:
            self.avoid.append(gen.question.question)
        return FollowUp(window, gen.question, source, gen.attempts, gen.verdict, gen.skipped)
