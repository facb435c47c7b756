"""``AuditConfig``: the settings of ``judgeagent audit``, one typed model (the command's flags
come from its fields)."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import Field

from judgeagent.config import LLMConfig, _Config


class AuditConfig(_Config):
    """One audit: a seeded stratified sample of the generated items of a run, sweep or bank."""

    source: Path = Field(description="A run folder, a sweep folder, or a graph folder with a question bank (or its .bank.sqlite).")
    sample: int = Field(default=50, ge=1, description="Items to draw for people to label (all of them when there are fewer).")
    seed: int = Field(default=0, description="Seed of the draw and of the order the page shows the items in.")
    include_rejected: bool = Field(default=False, description="Also sample the questions the quality gate rejected as unsound, as their own stratum, to measure the gate.")
    auditor: str | None = Field(default=None, description="A model that audits the items too: it answers each blind from its source passages, then judges the key (any name `judgeagent models` knows).")
    auditor_scope: Literal["sample", "all"] = Field(default="sample", description="What the model auditor audits: the sample, or every item (those it flags outside the sample are listed as suspects).")
    suspects: int = Field(default=20, ge=0, description="At most this many suspect items (flagged by the item analysis or the model auditor) listed after the random sample; they never enter the rate.")
    out: Path | None = Field(default=None, description="The audit folder (default: SOURCE/audit; for a bank, graphs/<name>.audit).")
    llm: LLMConfig = Field(default_factory=lambda: LLMConfig(), description="Requests of the model auditor: replay, budget, retries.")
