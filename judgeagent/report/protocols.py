"""What each protocol contributes to its run's report, asked of the registry (the report
imports no protocol).

A run of a protocol whose report is the interview report (``interview_report``: JudgeAgent's)
keeps it and gains the protocol's sections (Appendix E.2, when it ran them); a run of another
protocol gets its own document: an overview, then its protocol's sections. Pure: the run folder
in, blocks out.
"""

from __future__ import annotations

from judgeagent.blocks import Document, Facts, Para, Section
from judgeagent.engine.registry import protocols
from judgeagent.report import audited
from judgeagent.report import sections as sec
from judgeagent.report.load import Run

EXAMPLES_PER_RANGE = 2


def protocol_sections(run: Run) -> list[Section]:
    """What the run's protocol contributes to its report, asked of the registry."""
    cls = protocols().get(run.protocol)
    return cls().report_sections(run) if cls is not None else []


def protocol_document(run: Run) -> Document | None:
    """The document of a run whose protocol has one of its own; None when its report is the
    interview report."""
    name = run.protocol
    known = protocols()
    if name in known and known[name].interview_report:
        return None
    title = known[name].title if name in known else name
    overview = [("Protocol", f"{name}: {title}"), *sec.overview(run)[:4]]
    head = Section("Summary", "summary", [Facts(overview), *[Para(w, "warn") for w in _warnings(run)]])
    if name in known and (items := known[name].audited_items):  # the audit of the questions it wrote (or asked) beside its figures
        head.blocks += audited.audit_blocks(run.metrics, items, "RUN_DIR", dropped=run.audit_dropped)
    return Document(f"JudgeAgent report ({name}): {run.target} on {run.data_name}",
                    f"judge {run.judge} · {run.date or 'undated'} · run folder {run.path.name}", [head, *protocol_sections(run)])


def _warnings(run: Run) -> list[str]:
    return ["The run is incomplete (stopped early): the figures cover the finished units only."] if run.figures.complete is False else []
