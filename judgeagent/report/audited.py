"""The audit of a run's or sweep's generated items, as the reports, ``compare`` and ``validate``
say it: one line with the invalid-item rate and its interval (or that nobody audited them),
and the figures on the items audited valid beside those on all items. Pure: the ``audit``
block of metrics.json or leaderboard.json in, text and tables out."""

from __future__ import annotations

from pydantic import ValidationError

from judgeagent.blocks import DASH, Para, Table, TableBlock, pct
from judgeagent.metrics.audited import AccuracyOnValid, AuditBlock, Rate


def block_of(figures: dict | None) -> AuditBlock | None:
    """The audit block of a metrics.json or leaderboard.json (None: never audited, or a block
    this version cannot read)."""
    raw = (figures or {}).get("audit")
    if not isinstance(raw, dict):
        return None
    try:
        return AuditBlock.model_validate(raw)
    except ValidationError:
        return None


def exact(rate: Rate) -> bool:
    """Every item the rate speaks for was labelled: the share is known, its interval a point."""
    return rate.ci is not None and rate.ci[0] == rate.ci[1]


def rate_text(rate: Rate | None) -> str:
    """"12.0% [3.1, 30.2]", "9.1% (exact)" when every item was labelled; a dash with no estimate."""
    if rate is None or rate.estimate is None:
        return DASH
    if exact(rate):
        return f"{100 * rate.estimate:.1f}% (exact)"
    ci = f" [{100 * rate.ci[0]:.1f}, {100 * rate.ci[1]:.1f}]" if rate.ci else ""
    return f"{100 * rate.estimate:.1f}%{ci}"


def rate_cell(block: AuditBlock | None) -> str:
    """The rate as one table cell: the share with its interval, or why there is none."""
    if block is None:
        return "not audited"
    if block.basis == "none" or block.invalid is None:
        return "not labelled yet"
    return rate_text(block.invalid) + (" (model)" if block.basis == "model auditor" else "")


def audit_sentence(block: AuditBlock | None, *, items: str, source: str, dropped: bool = False) -> str:
    """One line on the audit of ``items`` ("follow-up questions", "shared items"), or that it
    was never audited (``source``: the folder to pass to ``judgeagent audit``, or a placeholder
    in a file that may move, RUN_DIR); ``dropped``:
    the source has an audit folder whose block a rerun dropped, because the run changed."""
    if block is None and dropped:
        return (f"The {items} have an audit (audit/ in the run folder) whose figures are not carried into these ones: the run changed after it "
                "(a resumed run asked more); `judgeagent audit import LABELS_FILE` carries it again, or draw a new one.")  # fmt: skip
    if block is None:
        return f"The {items} were never audited: how many are invalid is unknown (`judgeagent audit {source}` draws a sample to label)."
    if block.basis == "none" or block.invalid is None:
        return (f"The {items} have an audit ({block.audit_id}: {block.n_sample} of {block.population} drawn) with no label yet: "
                f"label them on {block.audit_dir}/audit.html, then `judgeagent audit import FILE`.")  # fmt: skip
    who = ("people: " + ", ".join(block.auditors)) if block.basis == "people" else f"the model auditor {block.model_auditor} alone, no person yet"
    defects = [f"{name} {rate_text(r)}" for name, r in block.by_defect.items() if r.hits]
    share = (f"{100 * (block.invalid.estimate or 0.0):.1f}% (exact: every one labelled)" if exact(block.invalid)
             else f"{rate_text(block.invalid)} (95% interval of the stratified sample)")  # fmt: skip
    return (f"Invalid {items}: {share} of {block.population}, "
            f"from {block.n_labelled} of {block.n_sample} sampled items labelled ({who}; audit {block.audit_id})"
            + (f"; by defect: {', '.join(defects)}" if defects else "") + ".")  # fmt: skip


def _acc(a) -> str:
    return DASH if a is None or a.accuracy is None else f"{pct(a.accuracy)} ({a.correct}/{a.n})"


def accuracy_table(acc: AccuracyOnValid) -> Table:
    """Accuracy per level on all the generated items and on those audited valid, side by side."""
    levels = list(dict.fromkeys([*acc.by_level, *acc.by_level_valid]))
    rows = [[lv, _acc(acc.by_level.get(lv)), _acc(acc.by_level_valid.get(lv))] for lv in levels]
    rows.append(["all", _acc(acc.overall), _acc(acc.overall_valid)])
    return Table(["level", "all items: accuracy % (right/asked)", "items audited valid: accuracy % (right/asked)"], rows, numeric={1, 2})


def accuracy_caption(acc: AccuracyOnValid) -> str:
    return (f"Accuracy on the {acc.what}: {acc.n_items} answered; {acc.n_valid} to items audited valid, {acc.n_invalid} to items "
            f"audited invalid, {acc.n_unlabelled} to items nobody labelled (in the first column only).")  # fmt: skip


def audit_blocks(figures: dict, items: str, source: str, *, dropped: bool = False) -> list:
    """The audit of a run's generated items beside their figures (``figures``: its
    metrics.json): the invalid-item rate, or that nobody audited them, and the accuracy on
    the items audited valid."""
    block = block_of(figures)
    out: list = [Para(audit_sentence(block, items=items, source=source, dropped=dropped), "note" if block is not None else "warn")]
    out += [Para(f"Audit: {n}.", "note") for n in (block.notes if block is not None else [])]
    if block is not None and block.accuracy is not None and block.accuracy.n_items:
        out.append(TableBlock(accuracy_table(block.accuracy), accuracy_caption(block.accuracy)))
    return out
