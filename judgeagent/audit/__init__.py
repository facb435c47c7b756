"""The audit of generated questions: how many of the items behind the figures are invalid.

A seeded stratified random sample of the items a run, a sweep or a bank wrote, each with
its provenance (the knowledge path and its source passages), labelled by people on one
self-contained page, optionally by a model too; the invalid-item rate with a 95% interval
that accounts for the design, per defect and per level, agreement between auditors, and
how well the quality gate separates sound questions from unsound ones.

    design     the sampling design (pure, seeded)
    sources    the items of a run, sweep or bank (runrecords: today's records.jsonl;
               rejected: the gate's rejected questions, rebuilt from the run's journal)
    items      an item as the audit shows it; the labels
    labels     the labels file and its schema
    folder     the audit folder
    page       audit.html (audit.css, audit.js)
    auditor    the model-assisted pass
    results    the figures (the maths is judgeagent/metrics/audit.py)
    main       audit(), import_labels(), audit_results()

From Python, ``judgeagent.audit(...)`` does what ``judgeagent audit`` does::

    import judgeagent
    result = judgeagent.audit("runs/2025-01-01-local-medqa-demo", sample=50, seed=0)
    result.page, result.results["invalid"]
    judgeagent.audit.import_labels("labels-A1b2c3-ana.json")
"""

from __future__ import annotations

import sys
import types

from judgeagent.audit.config import AuditConfig
from judgeagent.audit.main import AuditResult, ImportResult, audit, audit_results, import_labels

__all__ = ["AuditConfig", "AuditResult", "ImportResult", "audit", "audit_results", "import_labels"]


class _CallableModule(types.ModuleType):
    """``judgeagent.audit`` is both this package and the function :func:`audit`: once the
    package is imported, Python binds the name to the package, so the package answers calls."""

    def __call__(self, source=None, /, **settings) -> AuditResult:
        if isinstance(source, AuditConfig):
            return audit(source, **settings)
        if source is not None:
            settings["source"] = source
        return audit(**settings)


sys.modules[__name__].__class__ = _CallableModule
