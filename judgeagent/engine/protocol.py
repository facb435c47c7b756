"""What a protocol supplies to the engine: its options, its records, its steps, its figures,
its call plan and its report.

The engine (:mod:`judgeagent.engine.run`) owns the run: the folder and its resumption, the
models and their preflight, the asking loop with its concurrency and progress bar, Ctrl-C,
failed calls (the unit is left incomplete), budget and circuit-breaker stops, config.json,
metrics.json and the reports. A protocol only says what happens to one unit and what its
records add up to. It never opens a client, catches Ctrl-C or writes metrics.json itself.

A protocol is generic over its options model and its record model::

    @register
    class KIEval(SeedProtocol[KIEvalOptions, DialogueRecord]): ...

The two type arguments are the protocol's declaration: the engine validates the run's options
with the first (a flag of another protocol is refused) and writes and reads records.jsonl
through the second, so every step receives typed options and typed records. Each step gets
the run's :class:`~judgeagent.engine.services.RunServices` (models, benchmark, graph,
folder, ``append``, ``timed``), not the engine's state.

What a protocol needs beyond that it declares, and the engine knows none of it by name: the
run-wide helpers its units share (:meth:`Protocol.services`: a quality gate, a leakage guard;
the stages build them) and what ``judgeagent audit`` may read of its records
(:meth:`Protocol.audit_slots`, :attr:`Protocol.audited_items`).

A new protocol is one module (this repository's ``judgeagent/protocols/``, or anywhere: it
registers itself when imported) with a subclass of :class:`Protocol` decorated with
``judgeagent.engine.registry.register``, its options model (a subclass of
``judgeagent.config.ProtocolOptions``), its record model (a subclass of
``judgeagent.records.UnitRecord``), its prompts and its tests. ``tests/toy_protocol.py`` is
a complete one in a page.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, ClassVar, Generic, Literal, get_args, get_origin

from pydantic import BaseModel

from judgeagent.bank.fill import item_id
from judgeagent.batches import Batch
from judgeagent.blocks import Section
from judgeagent.budgets import answering
from judgeagent.config import EvalConfig, ProtocolOptions
from judgeagent.engine.callplan import ONE, SEED_ACCURACY, Call, Rate, RateValues, Seen, answer_call
from judgeagent.engine.services import FinishedRun, OptionsT, RecordT, RunOutcome, RunServices, Service
from judgeagent.metrics.audited import Answered
from judgeagent.records import AnswerRecord, FollowUpRecord, Json, UnitRecord

ANSWER = answering("answer", 30)  # the default plan: the target answers a unit's questions once
Renderable = object  # what a headline holds: strings or rich renderables, printed in order
Figures = dict[str, object]  # metrics.json, or a block of it


@dataclass(frozen=True)
class AuditSlot:
    """One place of a record where the run wrote a question its figures rest on (an interview
    round, an escalation step, a probe's question, a seed): what ``judgeagent audit`` reads."""

    batch: str  # the unit
    ref: str  # how the audit page names the place ("b0003 round 2")
    index: int  # the path window the writer was given (what places the key letter)
    qid: str  # the id the run gave the question written there (its gate verdicts' in the journal)
    entry: FollowUpRecord  # level, path, question, gate, generation_attempts, counted_as, answer
    level: str | None = None  # the level it is audited at, when not the entry's (a seed's difficulty)
    own_level: bool = False  # whether ``level`` stands (a seed without a difficulty is audited at none)
    cited: tuple[tuple[str, str], ...] = ()  # (chunk id, sentence) the writer cited: the page highlights them


@dataclass(frozen=True)
class OwnFolder:
    """What a protocol that writes a folder of its own, not a run folder (``judgeagent seeds``:
    a seed set), tells ``judgeagent audit`` about it."""

    kind: str  # what the audit calls such a source ("seeds")
    marker: str  # the file that marks the folder; the audit's block is carried into it
    run: str  # the sub-folder holding the run that wrote it (config.json, records.jsonl)
    rejected_note: str = ""  # why --include-rejected adds nothing, when it does not


class Protocol(Generic[OptionsT, RecordT]):
    """Base class of a registered protocol. Every method has a default but ``units``,
    ``ask_unit`` and ``metrics``; the engine calls them in the order of
    :func:`judgeagent.engine.run.run`."""

    name: ClassVar[str]
    title: ClassVar[str] = ""  # the kin system it follows, for reports and --help
    order: ClassVar[int] = 50  # where --help and `judgeagent protocols` list it
    options: ClassVar[type[ProtocolOptions]] = ProtocolOptions  # the first type argument
    records: ClassVar[type[UnitRecord]] = UnitRecord  # the second type argument
    label: ClassVar[str] = ""  # the progress bar's label (default: the name)
    writes_report: ClassVar[bool] = True  # report.html / report.md (with --report, the default)
    # Whether its runs' report is the interview report (report/render.py: difficulty,
    # follow-ups, feedback, Table 2) with its sections added, rather than a document of its
    # own: an overview, then its sections. Likewise in `compare`, whether its rows stand
    # alone under its columns.
    interview_report: ClassVar[bool] = False
    # Whether it interviews a target, so that `evaluate --protocol` lists and runs it. A
    # protocol that writes something else (seed questions) runs from its own command.
    interviews: ClassVar[bool] = True
    # What `judgeagent audit` checks of its runs, as the report names it: the questions a model
    # wrote (or a bank's items) that its figures rest on; empty when it writes none. The report
    # and compare say whether anyone audited them. Where the audit finds them: in the records
    # (``audit_slots``), or in the question bank the run's ``bank`` option names (a bank run).
    audited_items: ClassVar[str] = ""
    audited_in: ClassVar[Literal["records", "bank"]] = "records"
    # What its accuracy on those items is called beside the audit's figures (default: audited_items).
    audited_accuracy: ClassVar[str] = ""
    # A protocol whose output is a folder of its own (a seed set), read by the audit as such.
    own_folder: ClassVar[OwnFolder | None] = None
    # (label, key) pairs `compare` shows for this protocol; keys are those of compare_values().
    compare_columns: ClassVar[tuple[tuple[str, str], ...]] = ()
    # The probabilities its call plan uses (their priors are the estimate's when no earlier
    # run of the same models measured them; see ``observe``).
    rates: ClassVar[tuple[Rate, ...]] = (SEED_ACCURACY,)
    # Model roles it can take beyond target and judge, whether or not this run names them
    # (KIEval's evaluator): a driver that binds roles itself (Inspect's --model-role) asks.
    extra_roles: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(cls, **kwargs: Any) -> None:
        """``options`` and ``records`` from the type arguments, so they are written once:
        ``class P(Protocol[POptions, PRecord])`` declares both."""
        super().__init_subclass__(**kwargs)
        for base in getattr(cls, "__orig_bases__", ()):
            origin = get_origin(base)
            if isinstance(origin, type) and issubclass(origin, Protocol):
                args = [a for a in get_args(base) if isinstance(a, type)]
                for arg in args:
                    if issubclass(arg, ProtocolOptions):
                        cls.options = arg
                    elif issubclass(arg, UnitRecord):
                        cls.records = arg

    # ------------------------------------------------------------------ setup, no model asked
    def roles(self, options: OptionsT) -> dict[str, str]:
        """Model roles beyond target and judge, as {role: model name} (KIEval's evaluator)."""
        return {}

    def needs_benchmark(self, options: OptionsT) -> bool:
        """Whether the run reads the --data benchmark (a bank run asks stored items instead)."""
        return True

    def needs_graph(self, options: OptionsT) -> bool:
        """Whether the run plans knowledge paths over the context graph (built first when missing)."""
        return False

    def units(self, run: RunServices[OptionsT, RecordT]) -> list[Batch]:
        """The run's units of work, each one line of records.jsonl once finished."""
        raise NotImplementedError

    def identity(self, run: RunServices[OptionsT, RecordT]) -> Json:
        """What must match for a rerun to resume a run folder instead of starting a new one."""
        return run.default_identity()

    def folder_name(self, run: RunServices[OptionsT, RecordT]) -> tuple[str, str, str]:
        """(name, data, kind) of the default run folder runs/<date>-<name>-<data><kind>."""
        return run.cfg.target, run.data_name, f"-{self.name}"

    # ------------------------------------------------------------------ inside the client
    def todo(self, run: RunServices[OptionsT, RecordT]) -> list[Batch]:
        """The units still to ask: those with no finished record."""
        done = run.done_ids()
        return [u for u in run.units if u.id not in done]

    async def plan(self, run: RunServices[OptionsT, RecordT], todo: list[Batch]) -> None:
        """Graph work for the units to do, before any of them is asked (none by default)."""

    def services(self, options: OptionsT) -> tuple[Service[Any], ...]:
        """The run-wide helpers its units share (quality gates, the leakage guard), built in
        this order once the models are up and the plans made, before :meth:`prime`; each step
        reads one with ``run.service(declared)``. None by default."""
        return ()

    def prime(self, run: RunServices[OptionsT, RecordT], todo: list[Batch]) -> None:
        """Anything else to set up once the plans are made and the services built (texts to
        embed before the units ask for them, state taken from the records finished before)."""

    async def ask_unit(self, run: RunServices[OptionsT, RecordT], unit: Batch) -> None:
        """Interview one unit and hand each finished record to ``run.append``."""
        raise NotImplementedError

    async def finish(self, run: RunServices[OptionsT, RecordT]) -> None:
        """Closing steps over the finished records (a summary, an end-of-run report).
        Called unless a budget or breaker stop ended the run."""

    # ------------------------------------------------------------------ estimating (--dry-run)
    def call_plan(self, run: RunServices[OptionsT, RecordT], unit: Batch | None, rates: RateValues) -> list[Call]:
        """The requests ``unit`` will send, for ``judgeagent evaluate --dry-run``
        (:mod:`judgeagent.estimation`); ``unit`` None: the run's closing requests, sent once.

        Each :class:`~judgeagent.engine.callplan.Call` is a kind of request: its stage (name,
        answer budget and completion prior, the constants the run sends it with), its role,
        one such request's messages from the real templates, and how many of them (a random
        :class:`~judgeagent.engine.callplan.Count`, from ``rates``: one value per
        :class:`~judgeagent.engine.callplan.Rate` of :attr:`rates`). Nothing may be sent or
        loaded here. By default the target answers the unit's questions once, in one prompt.
        """
        if unit is None or not unit.questions or not run.has_bench:
            return []
        return [answer_call(run.bench, ANSWER, unit.questions, ONE, context=unit.context)]

    def observe(self, records: Sequence[RecordT]) -> Iterable[Seen]:
        """The rates of :attr:`rates` as an earlier run's records show them (the estimate of a
        later run of the same models learns them from here). None by default."""
        return ()

    # ------------------------------------------------------------------ after the client
    def metrics(self, run: RunServices[OptionsT, RecordT], records: list[RecordT]) -> Figures:
        """metrics.json from the finished records (pure apart from reading the run folder);
        the engine adds what every run reports: incomplete, llm_usage, complete, timings."""
        raise NotImplementedError

    def outputs(self, run: RunServices[OptionsT, RecordT], records: list[RecordT], metrics: Figures) -> dict[str, Figures]:
        """Further JSON files of the run folder, by name (ablation.json, contamination.json)."""
        return {}

    def after(self, run: RunServices[OptionsT, RecordT], records: list[RecordT]) -> None:
        """Writes outside the run folder once it is complete on disk (the question bank)."""

    # ------------------------------------------------------------------ presenting
    def headline(self, outcome: RunOutcome, cfg: EvalConfig) -> list[Renderable]:
        """What the terminal prints after a run: strings or rich renderables."""
        return []

    def compare_values(self, metrics: Json) -> dict[str, float | None]:
        """The figures of :attr:`compare_columns`, by key, from a run's metrics.json."""
        return {}

    def headline_figures(self, metrics: Json) -> dict[str, float | None]:
        """The run's figures as named numbers, from its metrics.json: what a log of another
        tool shows as the run's metrics (Inspect's). By default :meth:`compare_values`."""
        return self.compare_values(metrics)

    def grades(self, record: RecordT) -> list[Grade]:
        """Each graded answer of one record, where it sits in the record, and the difficulty
        level of the follow-up it answers. By default every :class:`AnswerRecord` in it."""
        return answer_grades(record)

    # ------------------------------------------------------------------ auditing
    def audit_slots(self, record: RecordT) -> list[AuditSlot]:
        """Where ``record`` holds a question the run wrote and its figures rest on, for
        ``judgeagent audit`` (with :attr:`audited_items`). None by default."""
        return []

    def audited_records(self, records: list[RecordT], options: Json) -> list[RecordT]:
        """Which of a finished run's records the audit reads (of its main arm, when it has
        arms), given the run's options as config.json keeps them (a seed set: the seeds it
        kept, not every try). All by default."""
        return records

    def audited_qtype(self, options: Json) -> str | None:
        """The question type of the questions it wrote, when not the benchmark's (a seed set's own)."""
        return None

    def audited_answers(self, record: RecordT, qtype: str) -> list[Answered]:
        """The answers ``record`` counts to audited items: each with the item's id, the level
        it counts as and whether it was right (what the audit's accuracy on valid items is
        computed from). By default those of :meth:`audit_slots` that were asked."""
        out = []
        for s in self.audit_slots(record):
            q, a = s.entry.question, s.entry.answer
            if q is not None and a is not None:
                out.append(Answered(item_id(qtype, q.question, q.options, q.answer), s.entry.reported_level or "unknown", a.correct))
        return out

    def report_sections(self, run: FinishedRun[RecordT]) -> list[Section]:
        """Report sections (judgeagent.blocks.Section) for a finished run of this protocol."""
        return []

    def finished(self, path: Path, config: Json, metrics: Json, records: Iterable[Json]) -> FinishedRun[RecordT]:
        """A finished run folder's parts, its records read through the record model."""
        model: type[RecordT] = self.records  # type: ignore[assignment]  # the class's own second type argument
        return FinishedRun(path, config, metrics, sorted((model.from_json(r) for r in records), key=lambda r: r.batch_index))


@dataclass(frozen=True)
class Grade:
    """One graded reply of a record: where it is (``rounds[1].answer``), its grade (1 right,
    0 wrong, or a protocol's own scale), and the level of the follow-up it answers."""

    key: str
    value: float
    level: str | None = None


def answer_grades(record: BaseModel) -> list[Grade]:
    """Every :class:`AnswerRecord` in ``record``, depth first, with the level of the nearest
    follow-up that holds it (its ``level`` field)."""
    out: list[Grade] = []

    def walk(node: object, path: str, level: str | None) -> None:
        if isinstance(node, AnswerRecord):
            out.append(Grade(path, 1.0 if node.correct else 0.0, level))
        elif isinstance(node, BaseModel):
            own = getattr(node, "level", None)
            level = own if isinstance(own, str) and own else level
            for name in type(node).model_fields:
                walk(getattr(node, name), f"{path}.{name}" if path else name, level)
        elif isinstance(node, list):
            for i, item in enumerate(node):
                walk(item, f"{path}[{i}]", level)

    walk(record, "", None)
    return out


def split_seeds(batches: list[Batch]) -> list[Batch]:
    """One unit per seed question, named after its batch, so plans and records stay stable."""
    out: list[Batch] = []
    for b in batches:
        for i, q in enumerate(b.questions):
            out.append(Batch(len(out), f"{b.id}-q{i}", [q], b.context))
    return out
