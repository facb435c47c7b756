"""Seed questions written from a graph (``judgeagent seeds GRAPH_DIR``): a benchmark folder for
documents that have no questions.

A run of this protocol interviews no target. Its units are *slots*, planned up front over
the graph (:mod:`.plan`): single-passage ones and multi-hop ones whose knowledge path crosses
chunks (and documents, where the graph links them), spread so that no document or entity
holds more than ``--max-share`` of the seeds. The writer model writes each slot's question
with the numbers of the sentences it cites (:mod:`.writer`); a question is kept only when
its citations hold (:mod:`.citations`: numbers shown, sentences about the question, the key
stated in them) and the quality gate passes it (answerable from the passages
alone, self-contained, not a near-copy of a seed kept before, and, across passages, whether
it needs them all). Multiple-choice options come from the graph (:mod:`.distractors`).

The engine runs it as any protocol: the run folder (``<out>/generation``: config.json,
records.jsonl with one line per slot, the journal) resumes when the command is run again,
the budget stops it cleanly, Ctrl-C stops it at once, ``--dry-run`` prices it from the
real prompts and ``--batch-api`` sends its requests in waves. Once the writing stops, the
kept seeds (the first ``--n`` by slot) are written as a generic benchmark folder
(:mod:`.folder`), which ``evaluate``, ``sweep``, ``contamination``, ``validate`` and
``audit`` read like any other.
"""

from __future__ import annotations

import asyncio
import math
from collections import Counter
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from pydantic import Field

from judgeagent.batches import Batch
from judgeagent.budgets import PHRASE_JUDGE, gate_stage
from judgeagent.config import EvalConfig, ProtocolOptions
from judgeagent.data.benchmark import Question, QuestionType
from judgeagent.engine.callplan import NONE, ONE, PHRASE_JUDGED, Call, Count, RateValues, Seen, bernoulli, tries
from judgeagent.engine.protocol import AuditSlot, Figures, OwnFolder, Protocol, Renderable
from judgeagent.engine.registry import register
from judgeagent.engine.services import RunOutcome, RunServices
from judgeagent.errors import ConfigError
from judgeagent.exits import COMPLETE, EMPTY
from judgeagent.protocols.seeds.folder import GENERATION, MANIFEST, write_seed_set
from judgeagent.protocols.seeds.plan import MULTI_HOP, Slot, plan_slots, share_cap
from judgeagent.protocols.seeds.writer import SEED_WRITING, SeedWriter, Written, writing_level, writing_messages
from judgeagent.protocols.stage_plans import TRY_ACCEPTED, TRY_REACHES_GATE, seen_followups, written_ok
from judgeagent.records import FollowUpRecord, GateRecord, GenerationAttempt, Json, JsonModel, PathRecord, QuestionRecord, UnitRecord

if TYPE_CHECKING:
    from judgeagent.graph.context_graph import ContextGraph

QUESTION_TYPES = ("kmc", "kqa")
MANIFEST_FIGURES = {"n_asked", "n_written", "drops", "multi_hop", "multi_hop_crossing_documents", "difficulty", "distractors", "per_document",
                    "max_document_share", "max_entity_share", "notes"}  # fmt: skip


class SeedSettings(ProtocolOptions):
    """How seeds are written from a graph (the settings `judgeagent seeds` and its function share)."""

    n: int = Field(default=200, ge=1, description="How many seed questions to write.")
    question_type: Literal["kmc", "kqa"] = Field(
        default="kmc", description="kmc: multiple choice, 4 options, the wrong ones taken from the graph; kqa: a short-answer phrase.")
    multi_hop_share: float = Field(
        default=0.5, ge=0.0, le=1.0,
        description="Share of the seeds written across several passages (a knowledge path); the rest from one passage each.")  # fmt: skip
    hops: int = Field(default=2, ge=2, le=5, description="Passages on a multi-hop seed's knowledge path.")
    max_share: float = Field(
        default=0.2, gt=0.0, le=1.0,
        description="At most this share of --n may come from one document, or be about one entity (a path counts for each of its own).")
    reserve: float = Field(
        default=0.5, ge=0.0, le=5.0,
        description="Slots planned beyond --n, used as the filters drop seeds (the writing stops once --n are kept; "
        "with --batch-api every slot is written).")  # fmt: skip
    generation_tries: int = Field(default=3, ge=1, description="Tries per slot before it is given up.")
    duplicate_similarity: float = Field(
        default=0.9, gt=0.0, le=1.0, description="MiniLM cosine of two seed questions at or above which the later one is a duplicate.")
    check_hops: bool = Field(default=True, description="Multi-hop seeds: ask the gate's reader with each passage removed; a seed it still answers is labelled medium.")
    domain: str = Field(default="general knowledge", description="The field the writer is told the exam is in (medical, law, ...).")


class SeedsOptions(SeedSettings):
    """The protocol's options: the settings and where the seed set goes."""

    benchmark: Path = Field(description="The benchmark folder the seed set is written to (generic format).")


class CitationRecord(JsonModel):
    """A sentence of a seed's passages that supports its key, found there."""

    passage: int  # position on the seed's path, from 0
    chunk_id: str
    doc_id: str = ""
    text: str


class WrittenSeed(FollowUpRecord):
    """A slot's seed as written (a follow-up's record: path, tries, gate verdict), with its citations."""

    citations: list[CitationRecord] = Field(default_factory=list)
    distractor_sources: list[str] = Field(default_factory=list)  # per wrong option: "graph" or "writer"
    difficulty: str | None = None
    difficulty_reason: str | None = None


class SeedRecord(UnitRecord):
    """One slot: its kind, its documents, and the seed written from it (or why none was)."""

    kind: str = ""
    docs: list[str] = Field(default_factory=list)
    written: WrittenSeed = Field(default_factory=WrittenSeed)

    @property
    def kept(self) -> bool:
        return self.written.question is not None


NOT_NEEDED = "not needed: enough seeds were kept before this slot"
Run = RunServices[SeedsOptions, SeedRecord]


def drop_filter(attempt: GenerationAttempt) -> str | None:
    """Which filter dropped a try: the gate's first failed check, or what the writer got wrong
    (``citation``: a number not shown; ``support``: cited sentences not about the question, or
    not stating its key)."""
    if attempt.ok:
        return None
    if attempt.gate is not None:
        return next((name for name, c in attempt.gate.checks.items() if c.passed is False and name != "needs_hops"), "gate")
    error = attempt.error or ""
    if error.startswith(("citation", "no citation")):
        return "citation"
    if error.startswith("cited sentence"):
        return "support"
    if error.startswith("fewer than 3 wrong options"):
        return "options"
    if error.startswith("copies an existing question"):
        return "not_duplicate"
    return "unusable reply"


def kept_seeds(records: Sequence[SeedRecord], n: int) -> list[SeedRecord]:
    """The seed set: the first ``n`` kept seeds by slot (a slot written at once with the last
    needed ones may have kept one more)."""
    return [r for r in sorted(records, key=lambda r: r.batch_index) if r.kept][:n]


def spread(kept: Sequence[SeedRecord]) -> tuple[Counter[str], Counter[str]]:
    """Seeds per document and per entity (a seed counts once for each of its own)."""
    docs: Counter[str] = Counter()
    ents: Counter[str] = Counter()
    for r in kept:
        docs.update(set(r.docs))
        ents.update(set(r.written.path.entities if r.written.path else []))
    return docs, ents


def seed_figures(records: Sequence[SeedRecord], n: int) -> Figures:
    """What the writing came to: kept, dropped by filter, the spread, the kinds and levels."""
    kept = kept_seeds(records, n)
    tried = [r for r in records if r.written.generation_attempts]
    drops: Counter[str] = Counter()
    for r in tried:
        for a in r.written.generation_attempts or []:
            if (f := drop_filter(a)) is not None:
                drops[f] += 1
    docs, ents = spread(kept)
    multi = [r for r in kept if r.kind == MULTI_HOP]
    sources = Counter(s for r in kept for s in r.written.distractor_sources)

    def top(c: Counter[str]) -> float | None:
        return round(max(c.values()) / len(kept), 4) if kept and c else None

    return {
        "n_asked": n,
        "n_written": len(kept),
        "slots_planned": len(records),
        "slots_tried": len(tried),
        "slots_given_up": sum(1 for r in tried if not r.kept),
        "tries": sum(len(r.written.generation_attempts or []) for r in tried),
        "drops": dict(sorted(drops.items())),
        "multi_hop": len(multi),
        "multi_hop_share": round(len(multi) / len(kept), 4) if kept else None,
        "multi_hop_crossing_documents": sum(1 for r in multi if len(set(r.docs)) > 1),
        "difficulty": dict(sorted(Counter(r.written.difficulty or "unlabeled" for r in kept).items())),
        "distractors": dict(sorted(sources.items())),
        "per_document": dict(docs.most_common()),
        "max_document_share": top(docs),
        "per_entity": dict(ents.most_common(20)),
        "entities": len(ents),
        "max_entity_share": top(ents),
    }


def question_line(r: SeedRecord) -> dict[str, object]:
    """A kept seed as a line of questions.jsonl: the generic fields, then how it was made."""
    w = r.written
    assert w.question is not None and w.path is not None
    q = w.question
    line: dict[str, object] = {"id": q.id, "question": q.question}
    if q.options is not None:
        line["options"] = q.options
    line |= {"answer": q.answer, "difficulty": w.difficulty, "doc_id": w.citations[0].doc_id if w.citations else r.docs[0]}
    line["difficulty_reason"] = w.difficulty_reason
    line["kind"] = r.kind
    line["citations"] = [{"chunk_id": c.chunk_id, "doc_id": c.doc_id, "sentence": c.text} for c in w.citations]
    line["path"] = [{"entity": s.entity, "chunk_id": s.chunk_id} for s in w.path.steps]
    line["documents"] = list(r.docs)
    if w.distractor_sources:
        line["distractor_sources"] = list(w.distractor_sources)
    return line


@register
class Seeds(Protocol[SeedsOptions, SeedRecord]):
    name = "seeds"
    title = "Seed questions written from a context graph"
    order = 90
    label = "seed questions"
    writes_report = False
    interviews = False  # `judgeagent seeds` runs it; `evaluate --protocol` does not list it
    audited_items = "seed questions"
    own_folder = OwnFolder(
        "seeds", MANIFEST, GENERATION,
        "a seed set keeps the tries the filters dropped in generation/records.jsonl, not as items: only its seeds are audited",
    )
    rates = (TRY_REACHES_GATE, TRY_ACCEPTED, PHRASE_JUDGED)

    def __init__(self) -> None:
        self.graph: ContextGraph | None = None
        self.slots: dict[str, Slot] = {}
        self.notes: list[str] = []
        self.writer: SeedWriter | None = None
        self.kept = 0
        self.flying = 0
        self.turn: asyncio.Condition | None = None
        self.seed = 0

    def needs_benchmark(self, options: SeedsOptions) -> bool:
        return False

    def units(self, run: Run) -> list[Batch]:
        """The slots, planned over the whole graph at every start (so a resumed run plans the same)."""
        from judgeagent.graph import load_graph

        opts = run.options
        self.graph = graph = load_graph(run.cfg.graph_dir())
        if not graph.chunk_ids:
            raise ConfigError(f"{run.cfg.graph_dir()}: the graph has no chunks to write seeds from")
        n_slots = math.ceil(opts.n * (1 + opts.reserve))
        slots, self.notes = plan_slots(graph, opts.n, n_slots, multi_hop_share=opts.multi_hop_share, hops=opts.hops,
                                       max_share=opts.max_share, seed=run.seed)  # fmt: skip
        if not slots:
            raise ConfigError(f"{run.cfg.graph_dir()}: no passages to write seeds from ({'; '.join(self.notes) or 'no entity to start at'})")
        self.slots = {s.id: s for s in slots}
        return [Batch(s.index, s.id, []) for s in slots]

    def identity(self, run: Run) -> Json:
        return run.default_identity() | {"graph": str(run.cfg.graph_dir().resolve())}

    def folder_name(self, run: Run) -> tuple[str, str, str]:
        return run.cfg.judge, run.cfg.graph_dir().name, "-seeds"

    def prime(self, run: Run, todo: list[Batch]) -> None:
        """The quality gate, with the seeds an earlier session kept (a new one must not repeat them)."""
        from judgeagent.stages.gate import GateConfig, QualityGate

        opts = run.options
        gate_cfg = GateConfig(check_hops=opts.check_hops, duplicate_similarity=opts.duplicate_similarity)
        gate = QualityGate(run.models, run.embedder(), [], gate_cfg, scope="seeds")
        assert self.graph is not None, "units() loads the graph"
        writer = SeedWriter(run.models, self.graph, QuestionType(opts.question_type), gate, run.seed, opts.generation_tries, opts.domain)
        for r in sorted(run.done, key=lambda r: r.batch_index):
            if r.written.question is not None:
                gate.accept(Question(**r.written.question.fields()))
                writer.kept.append(r.written.question.question)
        self.writer, self.kept, self.flying = writer, sum(r.kept for r in run.done), 0
        self.turn = asyncio.Condition()
        self.seed = run.seed

    async def ask_unit(self, run: Run, unit: Batch) -> None:
        slot, writer, turn = self.slots[unit.id], self.writer, self.turn
        assert writer is not None and turn is not None, "prime() comes first"
        n = run.options.n
        batching = run.models.client.batching
        async with turn:
            # Only as many slots in flight as seeds still wanted: the ones after them are
            # written only if these drop theirs. (Under --batch-api every unit must reach its
            # request for the wave to go, so none waits here.)
            await turn.wait_for(lambda: batching or self.kept + self.flying < n or self.flying == 0)
            needed = self.kept < n
            self.flying += needed
        written = Written(skipped=NOT_NEEDED)
        try:
            if needed:
                written = await writer.write(slot)
        finally:
            async with turn:
                self.flying -= needed
                self.kept += written.question is not None
                turn.notify_all()
        run.append(self.record(slot, written))

    def record(self, slot: Slot, w: Written) -> SeedRecord:
        graph = self.graph
        assert graph is not None
        chunk_doc = {c: graph.chunk_doc(c) for c in slot.path.chunk_ids}
        rec = WrittenSeed(
            level=writing_level(slot, self.seed) if w.question is None else (w.question.difficulty or ""),
            path=PathRecord.from_json(slot.path.to_dict()),
            skipped=w.skipped,
            question=QuestionRecord.of(w.question) if w.question is not None else None,
            citations=[CitationRecord(passage=c.passage, chunk_id=c.chunk_id, doc_id=chunk_doc.get(c.chunk_id, ""), text=c.text) for c in w.citations],
            distractor_sources=w.distractor_sources, difficulty=w.difficulty, difficulty_reason=w.difficulty_reason,
        )  # fmt: skip
        if w.attempts:
            rec.generation_attempts = [GenerationAttempt.from_json(a) for a in w.attempts]
            rec.gate = GateRecord.from_json(w.verdict.to_dict()) if w.verdict is not None else None
        return SeedRecord(batch_id=slot.id, batch_index=slot.index, kind=slot.kind, docs=list(slot.docs), written=rec)

    # ------------------------------------------------------------------ --dry-run
    def call_plan(self, run: Run, unit: Batch | None, rates: RateValues) -> list[Call]:
        """Per slot used: the writer's tries until one passes, each that reaches the gate read
        once from the passages (a multi-hop one also once per passage removed, stopping at the
        first miss), a phrase reading graded by the judge when it is not an exact match. The
        first --n slots are written; the reserve's are written as the filters drop seeds: the
        slots needed are --n / P(a slot keeps a seed), the reserve's spread over the rest."""
        if unit is None:
            return []
        opts, slot = run.options, self.slots[unit.id]
        qtype = QuestionType(opts.question_type)
        p_kept = written_ok(rates, opts.generation_tries)
        # The first --n slots are written; a later one when those before it kept too few.
        extra = opts.n / max(p_kept, 1e-3) - opts.n
        used = 1.0 if run.cfg.llm.batch_api or unit.index < opts.n else min(1.0, extra / max(1, len(run.units) - opts.n))
        per_slot = tries(rates[TRY_ACCEPTED], opts.generation_tries)
        attempts = bernoulli(used).per(per_slot)
        from judgeagent.protocols.seeds.citations import excerpts_text
        from judgeagent.stages.gate import answer_messages as gate_messages

        texts = slot.path.texts
        msgs = writing_messages(qtype, writing_level(slot, run.seed), excerpts_text(texts, slot.path.entities), domain=opts.domain)
        calls = [Call(SEED_WRITING, "judge", attempts, msgs, growth=150, repeats=1 - 1 / per_slot.mean)]
        k = len(texts)
        ablations = Count(1 + 0.3 * (k - 1), (k - 1) ** 2 / 12, 1.0, float(k)) if slot.kind == MULTI_HOP and opts.check_hops and k >= 2 else NONE
        gate_calls = attempts.per(bernoulli(min(1.0, rates[TRY_REACHES_GATE])).per(ONE + ablations))
        stand_in = Question(slot.id, "Which of these is named in the passages?", "A",
                            {"A": "one", "B": "two", "C": "three", "D": "four"} if qtype.is_multiple_choice else None)
        stand_in = stand_in if qtype.is_multiple_choice else Question(slot.id, stand_in.question, "one")
        calls.append(Call(gate_stage(qtype.is_multiple_choice), "judge", gate_calls, gate_messages(stand_in, qtype, texts)))
        if not qtype.is_multiple_choice:
            from judgeagent.prompts import messages, render

            judged = messages(render("judge_phrase_system"), render("judge_phrase", question=stand_in.question, reference="one", candidate="one of them"))
            calls.append(Call(PHRASE_JUDGE, "judge", gate_calls.per(bernoulli(rates[PHRASE_JUDGED])), judged))
        return calls

    def observe(self, records: Sequence[SeedRecord]) -> Iterable[Seen]:
        return seen_followups([r.written for r in records if r.written.generation_attempts])

    def audit_slots(self, record: SeedRecord) -> list[AuditSlot]:
        """The one seed question a slot wrote, at the difficulty it was labelled, with the
        sentences it cites."""
        b, w = record.batch_id, record.written
        return [AuditSlot(b, f"{b} ({record.kind.replace('_', '-')})", record.batch_index, b, w, level=w.difficulty, own_level=True,
                          cited=tuple((c.chunk_id, c.text) for c in w.citations))]

    def audited_records(self, records: list[SeedRecord], options: Json) -> list[SeedRecord]:
        """The seeds the set kept (questions.jsonl), not every try."""
        settings = SeedSettings.model_validate({k: v for k, v in options.items() if k in SeedSettings.model_fields})
        return kept_seeds(records, settings.n)

    def audited_qtype(self, options: Json) -> str | None:
        return SeedSettings.model_validate({k: v for k, v in options.items() if k in SeedSettings.model_fields}).question_type

    # ------------------------------------------------------------------ after the writing
    def metrics(self, run: Run, records: list[SeedRecord]) -> Figures:
        from judgeagent.stages.gate import gate_summary

        cfg, opts = run.cfg, run.options
        figures = seed_figures(records, opts.n)
        figures |= {"cap_per_document_or_entity": share_cap(opts.n, opts.max_share), "notes": list(self.notes),
                    "gate": gate_summary(r.written for r in records if r.written.generation_attempts)}  # fmt: skip
        head: Figures = {"protocol": self.name, "writer": cfg.judge, "graph": str(cfg.graph_dir()), "benchmark": str(opts.benchmark)}
        out = head | figures | dict(run.bookkeeping({r.batch_id for r in records}))
        if records and not figures["n_written"] and out["status"] == COMPLETE:
            out["status"] = EMPTY  # every slot tried and none kept: exit 4, not 0, for a script to see
        return out

    def after(self, run: Run, records: list[SeedRecord]) -> None:
        """The seed set: the kept seeds as a generic benchmark folder, with its manifest."""
        opts = run.options
        kept = kept_seeds(records, opts.n)
        if not kept or self.graph is None:
            return
        figures = SeedFigures.from_json(run.read_json("metrics.json") or {})
        manifest = {
            "format": "judgeagent-seeds",
            "version": 1,
            "graph": {"dir": str(run.cfg.graph_dir().resolve()), "input_hash": self.graph.meta.input_hash},
            "writer": run.judge.name,
            "settings": opts.model_dump(mode="json", exclude={"benchmark"}),
            "seed": run.seed,
            "generation": str(run.folder.path.resolve()),
            "complete": figures.complete,
            "figures": figures.model_dump(mode="json", include=MANIFEST_FIGURES),
            "written": datetime.now(UTC).isoformat(timespec="seconds"),
        }
        write_seed_set(Path(opts.benchmark), self.graph, opts.question_type, [question_line(r) for r in kept], manifest)

    def headline(self, outcome: RunOutcome, cfg: EvalConfig) -> list[Renderable]:
        m = SeedFigures.from_json(outcome.metrics)
        benchmark = SeedsOptions.model_validate(cfg.options).benchmark
        lines: list[Renderable] = [f"note: {note}" for note in m.notes]
        drops = ", ".join(f"{k} {v}" for k, v in m.drops.items()) or "none"
        lines.append(f"{m.n_written} of {m.n_asked} seed questions kept, from {m.slots_tried} slots tried "
                     f"({m.tries} tries; dropped by filter: {drops})")  # fmt: skip
        levels = ", ".join(f"{k} {v}" for k, v in m.difficulty.items()) or "–"
        lines.append(f"multi-hop: {m.multi_hop} ({m.multi_hop_crossing_documents} across documents); difficulty: {levels}")

        def share(v: float | None) -> str:
            return "–" if v is None else f"{100 * v:.0f}%"

        lines.append(f"spread: {len(m.per_document)} documents (largest {share(m.max_document_share)}), "
                     f"{m.entities} entities (largest {share(m.max_entity_share)}); at most {m.cap_per_document_or_entity} seeds each")
        if m.n_written:
            lines.append(f"seed set: {benchmark} (evaluate it with: judgeagent evaluate --data {benchmark})")
        else:
            lines.append("no seed kept, so no seed set written: the drops above say which filter refused the tries "
                         "(a stronger --writer, more --generation-tries or a larger --reserve)")
        return lines


class SeedFigures(JsonModel):
    """A seeds run's metrics.json, as its headline and the seed set's manifest read it."""

    n_asked: int = 0
    n_written: int = 0
    slots_planned: int = 0
    slots_tried: int = 0
    slots_given_up: int = 0
    tries: int = 0
    drops: dict[str, int] = Field(default_factory=dict)
    multi_hop: int = 0
    multi_hop_share: float | None = None
    multi_hop_crossing_documents: int = 0
    difficulty: dict[str, int] = Field(default_factory=dict)
    distractors: dict[str, int] = Field(default_factory=dict)
    per_document: dict[str, int] = Field(default_factory=dict)
    max_document_share: float | None = None
    per_entity: dict[str, int] = Field(default_factory=dict)
    entities: int = 0
    max_entity_share: float | None = None
    cap_per_document_or_entity: int = 0
    notes: list[str] = Field(default_factory=list)
    complete: bool = False
