"""``SeedsConfig``: what `judgeagent seeds` and ``judgeagent.write_seeds`` take.

The generation settings are the protocol's own (:class:`SeedSettings`, declared once);
this model adds the graph, the writer, the output folder and the run settings it shares with
every run, and turns itself into the run's :class:`~judgeagent.config.EvalConfig`.
"""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from judgeagent.config import EvalConfig, LLMConfig, field_of
from judgeagent.protocols.seeds import SeedSettings
from judgeagent.protocols.seeds.folder import GENERATION

SEEDS_DATA = Path("data")


class SeedsConfig(SeedSettings):
    """Seed questions from a graph: where from, with which model, where to."""

    graph: Path = Field(description="The context graph to write from (a folder `judgeagent build-graph` made).")
    writer: str = Field(
        default="local",
        description="Model that writes the seeds and reads them for the quality gate: a name from `judgeagent models`, "
        "provider:model, URL@model or local:/path.gguf.",
    )
    out: Path | None = Field(
        default=None,
        description="The benchmark folder to write, in the generic format (default: data/<graph name>-seeds). Its run folder "
        "(journal, records) is <out>/generation: rerunning the same command resumes it.",
    )
    seed: int = field_of(EvalConfig, "seed")
    concurrency: int = field_of(EvalConfig, "concurrency")
    llm: LLMConfig = Field(default_factory=lambda: LLMConfig(), description="Requests, replay and budget.")

    def out_dir(self) -> Path:
        return self.out if self.out is not None else SEEDS_DATA / f"{Path(self.graph).resolve().name}-seeds"

    def eval_config(self) -> EvalConfig:
        """The run the engine makes of these settings (protocol ``seeds``; the writer is both
        roles, so it is preflighted once)."""
        settings = self.model_dump(mode="json", include=set(SeedSettings.model_fields))
        out = self.out_dir()
        return EvalConfig(protocol="seeds", target=self.writer, judge=self.writer, data=self.graph, graph=self.graph, seed=self.seed,
                          concurrency=self.concurrency, out=out / GENERATION, report=False, llm=self.llm,
                          options=settings | {"benchmark": str(out)})  # fmt: skip
