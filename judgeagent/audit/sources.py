"""Where the audited items come from: a run folder, a sweep folder or a graph's question bank.

This is the one module that reads what a source wrote (``records.jsonl`` through its
protocol's record model, :mod:`judgeagent.audit.runrecords`; ``sweep.json``,
``shared_items.json`` and ``leaderboard.json`` through the sweep's models; the bank's SQLite
file). Everything after it sees :class:`~judgeagent.audit.items.AuditItem` only.

Which items enter the figures, and so the audit's population:
- a run of ``judgeagent`` (its main arm), ``escalate`` or ``contamination``: every follow-up
  it asked (those the quality gate passed, or every one when the gate was off);
- a sweep: its shared items (the gate-passed follow-ups every target answered);
- a bank: every item in it.
With ``include_rejected``, the questions the gate rejected as unsound (not well formed, not
self-contained, not answerable from the passages) join them as their own stratum; those
rejected only for copying a seed or an earlier question are left out, since a copy is
rejected for being a copy, which no audit label judges. Today's records keep only why a
question was rejected, not its text, so it is rebuilt from the generation reply in the
run's journal (:mod:`judgeagent.audit.rejected`).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TypeVar

from pydantic import ValidationError

from judgeagent.audit.items import PASSED, AuditItem
from judgeagent.audit.runrecords import asked_item, protocol_of, provenance, read_config, records, slots
from judgeagent.engine.registry import AnyProtocol, registered
from judgeagent.errors import JudgeAgentError
from judgeagent.records import JsonModel, PathRecord
from judgeagent.report.load import RunConfig, record_setting
from judgeagent.sweeps.board import Leaderboard
from judgeagent.sweeps.state import SharedItem, SharedItems, SweepFile

M = TypeVar("M", bound=JsonModel)


@dataclass
class Source:
    """The items of one source, with what the audit needs to know about it."""

    kind: str  # run | sweep | bank
    path: Path
    items: list[AuditItem]  # the population (with the rejected items when asked for)
    writer: dict | None  # the model that wrote the items: name / base_url / model, or identity
    suspects: dict[str, list[str]] = field(default_factory=dict)  # item id → what the item analysis saw
    notes: list[str] = field(default_factory=list)  # what was left out, and why

    def identity(self) -> dict:
        return {"kind": self.kind, "path": str(self.path.resolve())}


def read_source(path: Path, *, include_rejected: bool = False) -> Source:
    """The items of a run folder, a sweep folder, or a graph folder (or its .bank.sqlite)."""
    path = Path(path)
    if path.is_file() and path.name.endswith(".bank.sqlite"):
        return read_bank(path.with_name(path.name.removesuffix(".bank.sqlite")), include_rejected=include_rejected)
    if not path.is_dir():
        raise JudgeAgentError(f"{path}: no such folder (give a run folder, a sweep folder or a graph folder with a question bank)")
    if (path / "sweep.json").exists():
        return read_sweep(path, include_rejected=include_rejected)
    if (own := own_folder(path)) is not None:
        return read_own_folder(path, own, include_rejected=include_rejected)
    if (path / "config.json").exists() or (path / "records.jsonl").exists():
        return read_run(path, include_rejected=include_rejected)
    if (path / "manifest.json").exists() or path.with_name(path.name + ".bank.sqlite").exists():
        return read_bank(path, include_rejected=include_rejected)
    raise JudgeAgentError(f"{path}: not a run folder, a sweep folder or a graph folder with a question bank")


def _object(path: Path, model: type[M]) -> M:
    """A JSON file of a sweep folder through its model (the model's defaults when it is not there)."""
    try:
        return model.model_validate_json(path.read_text(encoding="utf-8")) if path.exists() else model()
    except (OSError, ValidationError) as e:
        raise JudgeAgentError(f"{path}: cannot read it ({e})") from None


# ----------------------------------------------------------------------------- runs
def read_run(run_dir: Path, *, include_rejected: bool = False) -> Source:
    config = read_config(run_dir)
    protocol, qtype = protocol_of(config), config.question_type
    if protocol.audited_items and protocol.audited_in == "bank":
        return _bank_run(run_dir, config)
    if not protocol.audited_items or not protocol.interviews:
        writers = " and ".join(", ".join(n for n, cls in registered().items() if cls.audited_items and cls.interviews
                                         and cls.audited_in == "records").rsplit(", ", 1))
        raise JudgeAgentError(f"{run_dir}: a {protocol.name} run writes no questions to audit ({writers} runs do, "
                              "and so do sweeps and question banks)")  # fmt: skip
    judge = config.models.get("judge")
    writer = judge.label if judge else None
    arm = config.settings.main_arm
    recs = protocol.audited_records([r for r in records(run_dir, config) if record_setting(r) == arm], config.options)
    notes = [] if arm == "full" and not config.settings.ablation else [f"only the {arm!r} arm's follow-ups (the figures' own)"]
    all_slots = [s for rec in recs for s in slots(rec, protocol)]
    items = _unique([it for s in all_slots if (it := asked_item(s, qtype, writer=writer, source=str(run_dir))) is not None])
    if include_rejected:
        from judgeagent.audit.rejected import rejected_items

        rejected, why = rejected_items(run_dir, all_slots, qtype=qtype, seed=config.seed or 0, writer=writer)
        known = {i.item_id for i in items}
        items += _unique([r for r in rejected if r.item_id not in known])
        notes += why
    return Source("run", run_dir, items, judge.to_json() if judge else None, {}, notes)


def _unique(items: list[AuditItem]) -> list[AuditItem]:
    """Each item once (content-addressed ids: the same question written twice is one item)."""
    seen: dict[str, AuditItem] = {}
    for it in items:
        seen.setdefault(it.item_id, it)
    return list(seen.values())


# ----------------------------------------------------------------------------- a protocol's own folders
def own_folder(path: Path) -> AnyProtocol | None:
    """The protocol whose own kind of folder ``path`` is (a seed set), by the file that marks it."""
    for cls in registered().values():
        if cls.own_folder is not None and (path / cls.own_folder.marker).exists():
            return cls()
    return None


def read_own_folder(folder: Path, protocol: AnyProtocol, *, include_rejected: bool = False) -> Source:
    """The questions a protocol's own folder holds (a seed set's seeds, each with the sentences
    it cites marked in its passages), read from the run inside it as the protocol says."""
    own = protocol.own_folder
    assert own is not None, "a protocol that writes a folder of its own"
    run_dir = folder / own.run
    config = read_config(run_dir)
    qtype = protocol.audited_qtype(config.options) or config.question_type
    judge = config.models.get("judge")
    writer = judge.label if judge else None
    kept = protocol.audited_records(records(run_dir, config), config.options)
    found = (asked_item(s, qtype, writer=writer, source=str(folder)) for rec in kept for s in slots(rec, protocol))
    notes = [own.rejected_note] if include_rejected and own.rejected_note else []
    return Source(own.kind, folder, _unique([it for it in found if it is not None]), judge.to_json() if judge else None, {}, notes)


# ----------------------------------------------------------------------------- sweeps
def read_sweep(sweep_dir: Path, *, include_rejected: bool = False) -> Source:
    sweep = _object(sweep_dir / "sweep.json", SweepFile)
    shared = _object(sweep_dir / "shared_items.json", SharedItems).items
    if not shared:
        raise JudgeAgentError(f"{sweep_dir}: the sweep has no shared items yet (its interviews wrote none that passed the gate)")
    runs: dict[str, Source] = {}
    for t in sweep.targets:
        run_dir = sweep_dir / "targets" / t.slug  # the sweep folder's layout (judgeagent/sweeps/__init__.py)
        if (run_dir / "config.json").exists():
            runs[t.name] = read_run(run_dir, include_rejected=include_rejected)
    items = [_shared_item(it, runs.get(it.source_target)) for it in shared]
    notes: list[str] = []
    if include_rejected:
        known = {i.item_id for i in items}
        for name, run in runs.items():
            for r in run.items:
                if r.rejected and r.item_id not in known:
                    r.batch, r.ref = f"{name}/{r.batch}", f"{name} {r.ref}"
                    items.append(r)
                    known.add(r.item_id)
        notes += sorted({n for run in runs.values() for n in run.notes})
    writer = next((r.writer for r in runs.values() if r.writer), None) or {"name": sweep.config.judge}
    return Source("sweep", sweep_dir, items, writer, sweep_suspects(sweep_dir), notes)


def _shared_item(shared: SharedItem, run: Source | None) -> AuditItem:
    """A shared item with the provenance its source interview recorded."""
    iid, target = shared.item_id, shared.source_target
    found = next((i for i in run.items if i.item_id == iid), None) if run is not None else None
    if found is not None:
        found.batch, found.ref = shared.cluster or f"{target}/{found.batch}", f"{target} {found.ref}"
        return found
    return AuditItem(
        item_id=iid, ref=f"{target} {shared.source_batch}", qtype=shared.qtype or "kmc", question=shared.question, options=shared.options,
        key=shared.answer, level=shared.level, counted_as=shared.counted_as, status=PASSED, batch=shared.cluster,
        missing=[f"the knowledge path, source chunks and gate verdict (the interview of {target} that wrote it is not readable)"],
    )  # fmt: skip


def sweep_suspects(sweep_dir: Path) -> dict[str, list[str]]:
    """Shared items the leaderboard's answers single out: every target wrong, or a negative
    item-rest correlation (the targets who do well elsewhere get it wrong)."""
    matrix = _object(sweep_dir / "leaderboard.json", Leaderboard).matrix
    ids, rows = matrix.items, matrix.correct
    return answer_flags(ids, [[row[j] if j < len(row) else None for row in rows] for j in range(len(ids))])


def answer_flags(ids: list[str], answers: list[list[int | None]]) -> dict[str, list[str]]:
    """Per item (``answers[j]``: each target's 1 / 0, None when not asked), what the answers
    say against it."""
    import numpy as np

    from judgeagent.bank.irt import item_rest_correlation

    out: dict[str, list[str]] = {}
    if not ids:
        return out
    x = np.array([[np.nan if v is None else float(v) for v in col] for col in answers]).T  # targets × items
    mask = ~np.isnan(x)
    rest = item_rest_correlation(np.nan_to_num(x), mask)
    for j, iid in enumerate(ids):
        asked = x[mask[:, j], j]
        if asked.size >= 2 and not asked.any():
            out.setdefault(iid, []).append(f"every target got it wrong ({asked.size} targets)")
        if np.isfinite(rest[j]) and rest[j] < 0:
            out.setdefault(iid, []).append(f"negative item-rest correlation ({rest[j]:.2f})")
    return out


# ----------------------------------------------------------------------------- banks
def read_bank(graph_dir: Path, *, include_rejected: bool = False) -> Source:
    from judgeagent.bank.store import Bank

    bank = Bank.open(graph_dir, create=False)
    stored = bank.items()
    if not stored:
        raise JudgeAgentError(f"{bank.path}: the question bank has no item yet")
    batches = _bank_batches({i.run for i in stored})
    items = []
    for it in stored:
        steps, chunks, missing = provenance(PathRecord.model_validate({"steps": it.path}))
        batch = batches.get((it.run, it.item_id))
        if batch is None:
            missing.append("the batch that wrote it (the bank does not record it, and its run folder does not say)")
        items.append(AuditItem(
            item_id=it.item_id, ref=f"{Path(it.run).name} {batch or ''}".strip(), qtype=it.qtype, question=it.question, options=it.options,
            key=it.answer, level=it.level, counted_as=it.counted_as, status=PASSED, batch=batch or Path(it.run).name, path=steps, chunks=chunks,
            gate=it.gate, written_by=it.judge, source=str(bank.path), missing=missing,
        ))  # fmt: skip
    writer = {"identity": Counter(i.judge for i in stored).most_common(1)[0][0]}
    notes = ["the bank keeps only the items the gate passed; audit a run folder for the ones it rejected"] if include_rejected else []
    return Source("bank", graph_dir, items, writer, bank_suspects(graph_dir, bank), notes)


def _bank_batches(runs: set[str]) -> dict[tuple[str, str], str]:
    """(run, item id) → the batch that wrote it, from each run folder still on disk."""
    out = {}
    for run in runs:
        try:
            source = read_run(Path(run))
        except JudgeAgentError:
            continue
        out.update({(run, i.item_id): i.batch for i in source.items})
    return out


def bank_suspects(graph_dir: Path, bank) -> dict[str, list[str]]:
    """Items calibration flagged, and items every target that answered them got wrong."""
    from judgeagent.bank.calibrate import read_calibration

    out: dict[str, list[str]] = {}
    try:
        cal = read_calibration(graph_dir)
    except JudgeAgentError:
        cal = None
    for it in cal.items if cal is not None else []:
        if it.flagged:
            out.setdefault(it.item_id, []).append(f"calibration: {it.flag_reason or 'flagged'}")
    by_item: dict[str, dict[str, bool]] = {}
    for a in bank.answers():
        by_item.setdefault(a.item_id, {})[a.target] = by_item.get(a.item_id, {}).get(a.target, False) or a.correct
    for iid, targets in by_item.items():
        if len(targets) >= 2 and not any(targets.values()):
            out.setdefault(iid, []).append(f"every target got it wrong ({len(targets)} targets)")
    return out


def _bank_run(run_dir: Path, config: RunConfig) -> Source:
    """A bank run's items are the bank's: their provenance is read from the bank itself."""
    graph = config.options.get("bank")
    protocol = protocol_of(config)
    asked = {a.item_id for r in records(run_dir, config) for a in protocol.audited_answers(r, config.question_type or "")}
    if not graph:
        raise JudgeAgentError(f"{run_dir}/config.json: a bank run that does not name its bank")
    source = read_bank(Path(str(graph)))
    source.items = [i for i in source.items if i.item_id in asked]
    source.path, source.kind = run_dir, "run"
    source.notes.append(f"the items this bank run asked, from the bank of {graph}")
    return source
