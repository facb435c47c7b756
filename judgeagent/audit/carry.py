"""The audit carried into the figures it qualifies.

A run's metrics.json and a sweep's leaderboard.json gain an ``audit`` block
(:class:`judgeagent.metrics.audited.AuditBlock`): the invalid-item rate with its 95%
interval, per defect and per level, who labelled how many, each labelled item's verdict, and
the figures recomputed on the items audited valid (a run's accuracy on its generated items;
a sweep's shared-item comparison). Their reports are rewritten, so the HTML report,
``compare`` and ``validate`` show the rate beside the figures. A bank has no figures file of
its own: its audit stays in the audit folder.

``judgeagent audit import`` carries every import; drawing an audit carries it only when the
source has no audit yet or has this one (a new, unlabelled draw never hides a labelled one).
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass, field
from pathlib import Path

from judgeagent.audit.folder import AuditFolder
from judgeagent.audit.items import VALID
from judgeagent.audit.results import basis_labels
from judgeagent.audit.runrecords import answered, read_config
from judgeagent.errors import JudgeAgentError
from judgeagent.files import write_json_atomic
from judgeagent.metrics.audited import AuditBlock, Rate, accuracy_on_valid


@dataclass
class Carried:
    """What carrying the audit changed: the files rewritten, and why nothing was, if so."""

    updated: list[Path] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def audit_block(folder: AuditFolder, results: dict) -> AuditBlock:
    """The audit's figures as the source's figures file keeps them (results.json's, and
    each labelled item's verdict on the labels the figures rest on)."""
    meta = folder.read_design()
    design = folder.design()
    people = {name: {e.item_id: e.labels for e in f.labels} for name, f in folder.people().items()}
    models = folder.models()
    name = next(iter(models), None)
    model = {i: v["labels"] for i, v in (models[name].get("verdicts") or {}).items() if v.get("labels")} if name else None
    basis, labels = basis_labels(people, model)
    source = Path(str((meta.get("source") or {}).get("path") or ""))
    stratum = design.stratum_of()
    return AuditBlock(
        audit_id=str(meta["audit_id"]), audit_dir=_relative(folder.path, source), updated=_dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        basis=results["basis"] if results["basis"] in ("people", "model auditor") else "none", auditors=list(results.get("auditors") or []),
        model_auditor=results.get("model_auditor"), population=sum(s.size for s in design.strata if not s.rejected),
        n_sample=sum(1 for i in design.order if not stratum[i].rejected), n_labelled=int((results.get("invalid") or {}).get("n") or 0),
        invalid=_rate(results.get("invalid")), by_defect={k: r for k, v in (results.get("by_defect") or {}).items() if (r := _rate(v))},
        by_level={k: r for k, v in (results.get("by_level") or {}).items() if (r := _rate(v))}, method=str((results.get("method") or {}).get("rate") or ""),
        verdicts={i: ls == [VALID] for i, ls in labels.items()} if basis != "none" else {},
        notes=[f"the labels are the model auditor {results.get('model_auditor')}'s: no person has labelled yet"] if basis == "model auditor" else [],
    )  # fmt: skip


def _rate(d: dict | None) -> Rate | None:
    if not d or d.get("estimate") is None:
        return None
    return Rate(estimate=d["estimate"], ci=d.get("ci"), n=int(d.get("n") or 0), hits=int(d.get("hits") or 0), population=int(d.get("population") or 0))


def _relative(path: Path, source: Path) -> str:
    """The audit folder as the source's figures name it: relative to the source when inside it."""
    try:
        return str(path.resolve().relative_to(source.resolve()))
    except ValueError:
        return str(path.resolve())


def carry(folder: AuditFolder, results: dict, *, replace: bool = True) -> Carried:
    """Write the audit block into its source's figures and rewrite the source's reports.
    ``replace`` False: only when the source has no audit block yet, or has this audit's."""
    meta = folder.read_design()
    kind, path = (meta.get("source") or {}).get("kind"), Path(str((meta.get("source") or {}).get("path") or ""))
    block = audit_block(folder, results)
    if kind == "run":
        return _carry_run(path, block, replace)
    if kind == "sweep":
        return _carry_sweep(path, block, replace)
    if (marker := _own_marker(kind)) is not None:
        return _carry_own(path / marker, block, replace)
    return Carried(notes=["a question bank has no figures file of its own: the audit's figures stay in the audit folder"])


def _keeps_other(current: dict | None, block: AuditBlock, replace: bool) -> bool:
    """The figures file holds another audit, and a new draw must not hide it."""
    return not replace and isinstance(current, dict) and current.get("audit_id") not in (None, block.audit_id)


def _read(path: Path) -> dict | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, json.JSONDecodeError) as e:
        raise JudgeAgentError(f"{path}: cannot read it ({e})") from None
    return data if isinstance(data, dict) else None


def _carry_run(run_dir: Path, block: AuditBlock, replace: bool) -> Carried:
    path = run_dir / "metrics.json"
    metrics = _read(path)
    if metrics is None:
        return Carried(notes=[f"{path}: not there (the run has not finished): the audit's figures stay in the audit folder"])
    if _keeps_other(metrics.get("audit"), block, replace):
        return Carried(notes=[f"{path} keeps the audit {metrics['audit']['audit_id']}: importing labels of this one carries it instead"])
    from judgeagent.engine.folder import RunFolder

    answers, what = answered(run_dir, read_config(run_dir))
    block = block.model_copy(update={"accuracy": accuracy_on_valid(answers, block.verdicts, what), "records_sha256": RunFolder(run_dir).records_digest()})
    write_json_atomic(path, metrics | {"audit": block.model_dump(mode="json")})
    return Carried([path, *_rewrite_reports(run_dir)])


def _own_marker(kind: str | None) -> str | None:
    """The file marking a protocol's own kind of folder (a seed set's seeds.json), by the kind."""
    from judgeagent.engine.registry import registered

    return next((cls.own_folder.marker for cls in registered().values() if cls.own_folder is not None and cls.own_folder.kind == kind), None)


def _carry_own(path: Path, block: AuditBlock, replace: bool) -> Carried:
    """Into the file marking a protocol's own folder: a seed set's manifest (seeds.json), which
    every run made on the set copies into its metrics.json as ``seed_audit``."""
    manifest = _read(path)
    if manifest is None:
        return Carried(notes=[f"{path}: not there: the audit's figures stay in the audit folder"])
    if _keeps_other(manifest.get("audit"), block, replace):
        return Carried(notes=[f"{path} keeps the audit {manifest['audit']['audit_id']}: importing labels of this one carries it instead"])
    write_json_atomic(path, manifest | {"audit": block.model_dump(mode="json")})
    return Carried([path])


def _rewrite_reports(run_dir: Path) -> list[Path]:
    """The run's reports that exist, rebuilt from its folder (now with the audit)."""
    from judgeagent.report import write_reports

    html, md = (run_dir / "report.html").exists(), (run_dir / "report.md").exists()
    return write_reports(run_dir, html=html, md=md) if html or md else []


def _carry_sweep(sweep_dir: Path, block: AuditBlock, replace: bool) -> Carried:
    from judgeagent.sweeps.audited import apply_audit
    from judgeagent.sweeps.board import Leaderboard
    from judgeagent.sweeps.folder import LEADERBOARD, REPORT, SweepFolder
    from judgeagent.sweeps.outputs import write_outputs

    path = sweep_dir / f"{LEADERBOARD}.json"
    board = _read(path)
    if board is None:
        return Carried(notes=[f"{path}: not there (the sweep has not finished): the audit's figures stay in the audit folder"])
    if _keeps_other(board.get("audit"), block, replace):
        return Carried(notes=[f"{path} keeps the audit {board['audit']['audit_id']}: importing labels of this one carries it instead"])
    files = write_outputs(SweepFolder(sweep_dir), apply_audit(Leaderboard.from_json(board), block), report=(sweep_dir / REPORT).exists())
    return Carried(list(files.values()))
