"""The knowledge boundary: which graph entities the target failed on, and which it mastered.

Computed from the records alone: every knowledge path in records.jsonl carries its
entities, chunk ids and chunk texts, so the graph itself is never loaded.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from judgeagent.records import InterviewRecord, PathRecord, QuestionRecord
from judgeagent.report.sections import Table


@dataclass(frozen=True)
class PathStep:
    entity: str
    chunk_id: str
    text: str


def path_steps(path: PathRecord | None) -> list[PathStep]:
    """A follow-up's knowledge path as steps."""
    if path is None:
        return []
    return [PathStep(s.entity, s.chunk_id, s.text) for s in path.steps]


@dataclass
class AskedQuestion:
    kind: str  # "seed" | "follow-up"
    batch_id: str
    text: str
    correct: bool
    level: str | None
    steps: list[PathStep] = field(default_factory=list)  # the path behind a follow-up


@dataclass
class EntityStat:
    entity: str
    questions: list[AskedQuestion] = field(default_factory=list)

    @property
    def asked(self) -> int:
        return len(self.questions)

    @property
    def wrong(self) -> int:
        return sum(1 for q in self.questions if not q.correct)

    @property
    def failure_rate(self) -> float:
        return 100.0 * self.wrong / self.asked if self.asked else 0.0

    def count(self, kind: str, wrong: bool = False) -> int:
        return sum(1 for q in self.questions if q.kind == kind and (not wrong or not q.correct))


def _seed_text(q: QuestionRecord) -> str:
    return " ".join([q.question, *(q.options or {}).values()]).lower()


def entity_stats(records: Sequence[InterviewRecord]) -> list[EntityStat]:
    """Every graph entity a question was about, with the questions, ranked worst first.

    A follow-up question is about every entity of its knowledge path. A seed question is
    about the graph entities its batch's extracted names were matched to, when the name
    occurs in the question or its options; a name found in none of them (a lemma, say)
    counts for the whole batch, since it came from the batch's text.
    """
    stats: dict[str, EntityStat] = {}

    def add(entity: str, q: AskedQuestion) -> None:
        st = stats.setdefault(entity, EntityStat(entity))
        if all(x is not q for x in st.questions):  # one question counts once per entity
            st.questions.append(q)

    for r in records:
        seeds = [AskedQuestion("seed", r.batch_id, q.question, a.correct, q.difficulty) for q, a in zip(r.seed, r.seed_answers)]
        texts = [_seed_text(q) for q in r.seed]
        for m in r.matched_entities:
            name = m.query.lower()
            hits = [s for s, t in zip(seeds, texts) if name and name in t] or seeds
            for s in hits:
                add(m.entity, s)
        for rd in r.rounds:
            if rd.answer is None or rd.question is None:
                continue
            steps = path_steps(rd.path)
            q = AskedQuestion("follow-up", r.batch_id, rd.question.question, rd.answer.correct, rd.level, steps)
            for e in dict.fromkeys(s.entity for s in steps if s.entity):
                add(e, q)
    return sorted(stats.values(), key=lambda s: (-s.failure_rate, -s.asked, s.entity))


BOUNDARY_ROWS = 15


def boundary_table(stats: list[EntityStat], limit: int = BOUNDARY_ROWS) -> Table:
    rows = [
        [
            s.entity,
            str(s.asked),
            str(s.wrong),
            f"{s.failure_rate:.0f}",
            f"{s.count('seed', True)}/{s.count('seed')}",
            f"{s.count('follow-up', True)}/{s.count('follow-up')}",
        ]
        for s in stats[:limit]
    ]
    return Table(["entity", "questions", "wrong", "failure %", "seed wrong/asked", "follow-up wrong/asked"], rows, numeric={1, 2, 3, 4, 5})


def worst_entities(stats: list[EntityStat], k: int = 5) -> list[EntityStat]:
    """The k worst entities whose failures include a follow-up question (those have path
    chunks to show); entities failed only in seed questions fill any remaining places."""
    with_path = [s for s in stats if s.count("follow-up", wrong=True)]
    seed_only = [s for s in stats if s.wrong and not s.count("follow-up", wrong=True)]
    return (with_path + seed_only)[:k]


def failed_questions(stat: EntityStat, k: int = 3) -> list[AskedQuestion]:
    """The failed questions behind an entity, follow-ups first: they carry the path chunks."""
    failed = [q for q in stat.questions if not q.correct]
    return sorted(failed, key=lambda q: q.kind != "follow-up")[:k]


def mastered(stats: list[EntityStat], min_questions: int = 2, limit: int = 20) -> list[EntityStat]:
    """Entities asked about at least ``min_questions`` times and never failed, most asked first."""
    ok = [s for s in stats if s.wrong == 0 and s.asked >= min_questions]
    return sorted(ok, key=lambda s: (-s.asked, s.entity))[:limit]
