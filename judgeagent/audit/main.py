"""What ``judgeagent audit`` does, as functions a notebook can call too.

- :func:`audit`: read the source's items, draw the sample, write the audit folder and page
  (and run the model auditor when asked);
- :func:`import_labels`: take a person's labels file into the audit, recompute the figures and
  carry them into the source's metrics.json or leaderboard.json and its reports;
- :func:`audit_results`: the figures from what the audit folder holds now.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from pathlib import Path

from judgeagent.audit import labels as labelsfile
from judgeagent.audit.carry import Carried, carry
from judgeagent.audit.config import AuditConfig
from judgeagent.audit.design import Design, DesignError, Unit, draw
from judgeagent.audit.folder import AuditFolder
from judgeagent.audit.items import LABELS, AuditItem
from judgeagent.audit.page import page_item, render
from judgeagent.audit.results import compute
from judgeagent.audit.sources import Source, read_source
from judgeagent.errors import ConfigError, JudgeAgentError
from judgeagent.exits import Status, run_status

METHOD = {
    "sampling": "stratified random sample without replacement: strata are the levels an item counts as (and the gate-rejected items, "
    "when sampled), each cut into contiguous blocks of the batches that wrote them; proportional allocation, at least 2 per stratum",
    "rate": "stratified estimate with finite population correction; Korn-Graubard 95% interval (judgeagent/metrics/audit.py)",
    "agreement": "Cohen's kappa with the Fleiss-Cohen-Everitt standard error",
    "several auditors": "an item has a defect when at least half of the people who labelled it gave it; invalid when at least half found one",
}


@dataclass
class AuditResult:
    """An audit folder as :func:`audit` left it."""

    audit_dir: Path
    audit_id: str
    kind: str  # run | sweep | bank
    population: int
    sampled: int
    suspects: int
    page: Path
    results: dict
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # of this call (the model auditor's); results["warnings"] has the audit's
    carried: Carried = field(default_factory=Carried)  # the source's figures files this call rewrote (metrics.json, leaderboard.json, reports)
    status: Status = "complete"  # of the model auditor's pass: complete | incomplete | nothing_answered (judgeagent/exits.py)


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")


def default_folder(source: Source) -> Path:
    """SOURCE/audit, or for a bank graphs/<name>.audit beside the graph (a rebuilt graph
    replaces its folder, and would take the audit with it)."""
    if source.kind == "bank":
        return source.path.parent / f"{source.path.name}.audit"
    return source.path / "audit"


def draw_sample(source: Source, sample: int, seed: int) -> Design:
    units = [Unit(i.item_id, i.stratum_level, i.batch, i.rejected) for i in source.items]
    try:
        return draw(units, sample, seed)
    except DesignError as e:
        raise ConfigError(f"--sample {sample}: {e}") from None


def audit(config: AuditConfig | None = None, /, *, say=None, **settings) -> AuditResult:
    """Draw the sample of ``config.source``'s items and write the audit folder and page; with
    ``auditor``, the model audits them too. ``say`` hears progress lines. Rerunning with the
    same settings finds the same audit (and keeps every label); other settings need ``out``."""
    cfg = config if config is not None else AuditConfig(**settings)
    if (Path(cfg.source) / "design.json").exists():
        raise ConfigError(f"{cfg.source} is an audit folder: its figures are `judgeagent audit import FILE` or judgeagent.audit.audit_results()")
    source = read_source(cfg.source, include_rejected=cfg.include_rejected)
    design = draw_sample(source, cfg.sample, cfg.seed)
    audit_id = "A" + design.fingerprint()[:12]
    folder = AuditFolder(cfg.out or default_folder(source))
    before = folder.read_design() if folder.exists else {}
    if before and before.get("audit_id") != audit_id:
        s = before.get("settings") or {}
        raise ConfigError(f"{folder.path} holds audit {before.get('audit_id')} (sample {s.get('sample')}, seed {s.get('seed')}, "
                          f"include_rejected {s.get('include_rejected')}), drawn with other settings or from items that have changed since; "
                          "pass --out DIR for a new audit, or its own settings")  # fmt: skip
    items = {i.item_id: i for i in source.items}
    warnings: list[str] = []
    status: Status = "complete"
    if cfg.auditor:
        passed, status = model_pass(cfg, folder, source, design, items, say or (lambda line: None))
        warnings += passed
    suspects = pick_suspects(source, folder, design, cfg.suspects)
    shown = [items[i] for i in design.order] + [items[i] for i in suspects]
    folder.write_design({
        "audit_id": audit_id, "created": before.get("created") or _now(), "updated": _now(),
        "source": source.identity() | {"writer": source.writer},
        "settings": {"sample": cfg.sample, "seed": cfg.seed, "include_rejected": cfg.include_rejected},
        "design": design.to_dict(), "suspects": [{"item_id": i, "reasons": suspects[i]} for i in suspects],
        "notes": source.notes, "labels": list(LABELS), "method": METHOD,
    })  # fmt: skip
    folder.write_items(shown)
    folder.write_json(folder.schema_path, labelsfile.schema(audit_id, [i.item_id for i in shown]))
    write_page(folder, source, design, items, suspects)
    results = audit_results(folder.path)
    carried = carry(folder, results, replace=False)
    return AuditResult(folder.path, audit_id, source.kind, design.population, len(design.order), len(suspects), folder.page_path, results,
                       source.notes, warnings, carried, status)  # fmt: skip


# ----------------------------------------------------------------------------- the model auditor
def model_pass(cfg: AuditConfig, folder: AuditFolder, source: Source, design: Design, items: dict[str, AuditItem],
               say) -> tuple[list[str], Status]:  # fmt: skip
    """Run the model auditor over the sample (or every item) and keep its verdicts in
    model/NAME.json, also when a stop cuts the pass short. Returns the warnings and how far
    the pass got (an item with no verdict is a unit left incomplete)."""
    from judgeagent.audit.auditor import judge_items, same_model
    from judgeagent.llm import load_registry

    assert cfg.auditor is not None
    spec = load_registry(cfg.llm.models_file).resolve(cfg.auditor)
    warnings = []
    same = same_model(spec, source.writer)  # results.json warns about it
    chosen = list(design.order) if cfg.auditor_scope == "sample" else [i.item_id for i in source.items]
    old = folder.models().get(spec.name) or {}
    verdicts: dict[str, dict] = dict(old.get("verdicts") or {})
    todo = [items[i] for i in chosen if (verdicts.get(i) or {}).get("labels") is None]
    say(f"model auditor {spec.name}: {len(todo)} item(s) to judge ({len(chosen) - len(todo)} already judged)")

    def keep() -> None:
        folder.write_model(spec.name, {"model": spec.name, "identity": spec.identity, "same_as_writer": same, "scope": cfg.auditor_scope,
                                       "updated": _now(), "verdicts": verdicts})  # fmt: skip

    try:
        judge_items(cfg.llm, folder.journal_path, cfg.auditor, todo, on_verdict=lambda v: verdicts.__setitem__(v.item_id, v.to_dict()))
    finally:
        folder.path.mkdir(parents=True, exist_ok=True)
        keep()
    failed = [v for i in chosen if (v := verdicts.get(i)) and v.get("error")]
    if failed:
        warnings.append(f"the model auditor gave no verdict on {len(failed)} item(s) (first: {failed[0]['error']}); rerun the command to retry them")
    judged = sum(1 for i in chosen if (verdicts.get(i) or {}).get("labels") is not None)
    return warnings, run_status(len(chosen), judged, judged == len(chosen))


def pick_suspects(source: Source, folder: AuditFolder, design: Design, limit: int) -> dict[str, list[str]]:
    """Up to ``limit`` items outside the sample that the item analysis or a model auditor
    flags, the item analysis first; each with why."""
    sampled = set(design.order)
    known = {i.item_id for i in source.items}
    flagged: dict[str, list[str]] = {i: list(r) for i, r in source.suspects.items() if i in known and i not in sampled}
    for name, data in folder.models().items():
        for iid, v in (data.get("verdicts") or {}).items():
            labels = v.get("labels") or []
            if iid in known and iid not in sampled and any(x != LABELS[0] for x in labels):
                flagged.setdefault(iid, []).append(f"model auditor {name}: {', '.join(labels)}")
    return dict(list(flagged.items())[:limit])


def write_page(folder: AuditFolder, source: Source, design: Design, items: dict[str, AuditItem], suspects: dict[str, list[str]]) -> Path:
    """audit.html: the sample in its drawn order, then the suspects."""
    stratum = design.stratum_of()
    models = folder.models()
    name = next(iter(models), None)
    verdicts = (models.get(name) or {}).get("verdicts") or {} if name else {}

    def model_of(iid: str) -> dict | None:
        return verdicts.get(iid)

    shown = [page_item(items[i], "sample", stratum=stratum[i].id, probability=round(stratum[i].inclusion_probability, 4), model=model_of(i))
             for i in design.order]  # fmt: skip
    shown += [page_item(items[i], "suspect", reasons=r, model=model_of(i)) for i, r in suspects.items()]
    audit_id = folder.audit_id if folder.exists else ""
    writer = (source.writer or {}).get("name") or (source.writer or {}).get("identity") or "?"
    subtitle = (f"{_n(len(design.order), 'item')} drawn at random from {design.population} ({_n(len(design.strata), 'stratum', 'strata')}, "
                f"seed {design.seed}); {_n(len(suspects), 'suspect')} after them · written by {writer} · audit {audit_id}")  # fmt: skip
    html = render(audit_id=audit_id, audit_dir=str(folder.path.resolve()), title=f"{source.kind} {source.path.resolve().name}",
                  subtitle=subtitle, items=shown, notes=source.notes)  # fmt: skip
    return folder.write_page(html)


def _n(k: int, one: str, many: str | None = None) -> str:
    return f"{k} {one if k == 1 else (many or one + 's')}"


# ----------------------------------------------------------------------------- labels and figures
@dataclass
class ImportResult:
    audit_dir: Path
    auditor: str
    added: int  # items this file labelled that the auditor had not labelled before
    changed: int  # items whose label this file replaced with a later one
    total: int  # items the auditor has labelled, all files together
    results: dict
    carried: Carried = field(default_factory=Carried)  # metrics.json / leaderboard.json and the reports rewritten with the audit


def import_labels(labels_file: Path, audit_dir: Path | None = None) -> ImportResult:
    """Take one person's labels file into its audit (``audit_dir``, else the folder the file
    names). A malformed or foreign file is refused with one line and changes nothing;
    labels already imported are kept (per item, the later label wins)."""
    labels_file = Path(labels_file)
    raw = labelsfile.read_json(labels_file)
    where = Path(audit_dir) if audit_dir is not None else (Path(raw["audit_dir"]) if isinstance(raw.get("audit_dir"), str) else None)
    if where is None:
        raise JudgeAgentError(f"{labels_file}: it does not say which audit folder it belongs to; pass --audit DIR")
    folder = AuditFolder(where)
    if not folder.exists:
        hint = "" if audit_dir is not None else " (the folder the file names; pass --audit DIR if it moved)"
        raise JudgeAgentError(f"{labels_file}: {where} is not an audit folder{hint}")
    new = labelsfile.check(labels_file, raw, folder.audit_id, set(folder.read_items()))
    if new.kind != "person":
        raise JudgeAgentError(f"{labels_file}: a model's labels come from `judgeagent audit SOURCE --auditor MODEL`, not from a file")
    old = folder.people().get(new.auditor)
    before = {e.item_id: e for e in old.labels} if old else {}
    merged = labelsfile.merge(old, new)
    after = {e.item_id: e for e in merged.labels}
    folder.write_labels(merged)
    changed = sum(1 for i, e in after.items() if i in before and e != before[i])
    results = audit_results(folder.path)
    return ImportResult(folder.path, new.auditor, len(set(after) - set(before)), changed, len(after), results, carry(folder, results))


def audit_results(audit_dir: Path) -> dict:
    """The audit's figures from its folder as it is (results.json is rewritten)."""
    folder = AuditFolder(audit_dir)
    meta = folder.read_design()
    design = folder.design()
    items = folder.read_items()
    people = {name: {e.item_id: e.labels for e in f.labels} for name, f in folder.people().items()}
    models = folder.models()
    name = next(iter(models), None)
    model = {i: v["labels"] for i, v in (models[name].get("verdicts") or {}).items() if v.get("labels")} if name else None
    suspects = {s["item_id"]: s["reasons"] for s in meta.get("suspects") or []}
    out = compute(design, people, model, model_name=name, refs={i: it.ref for i, it in items.items()}, suspects=suspects)
    warnings = [f"the model auditor {n} is the model that wrote the items: it tends to agree with its own keys, so its verdicts are a weak check; "
                "prefer another model, or people" for n, m in models.items() if m.get("same_as_writer")]  # fmt: skip
    if len(models) > 1:
        warnings.append(f"{len(models)} model auditors; the figures compare the first, {name}")
    result = {"audit_id": meta["audit_id"], "computed": _now(), "source": meta.get("source"), "method": meta.get("method"), **out,
              "notes": meta.get("notes") or [], "warnings": warnings}  # fmt: skip
    folder.write_json(folder.results_path, result)
    return result
