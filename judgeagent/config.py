"""Configuration: one typed object per command, whose fields map one-to-one onto CLI flags.

``GraphConfig`` is what ``judgeagent build-graph`` takes; ``EvalConfig`` is what
``judgeagent evaluate`` / ``ablate`` take, and it embeds the ``GraphConfig`` used when the
graph has to be built first. A flag ``--batch-size`` is the field ``batch_size``, and so on.
"""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path

DEFAULT_DATA = Path("data/medqa-demo")
GRAPHS_DIR = Path("graphs")
RUNS_DIR = Path("runs")


def default_workers() -> int:
    """One spaCy process per core, up to 4; the entities do not depend on the number."""
    return max(1, min(4, os.cpu_count() or 1))


@dataclass
class GraphConfig:
    extractor: str = "spacy"  # "spacy" | "llm"
    workers: int = field(default_factory=lambda: default_workers())  # spaCy processes
    chunk_tokens: int = 200  # token budget of one chunk (whitespace tokens)
    section_chunks: int = 6  # MedQA textbooks: chunks per "section" document
    stop_entity_share: float = 0.2  # entities in more than this share of documents get no edges
    embed_batch_size: int = 64
    force: bool = False
    out: Path | None = None  # default: graphs/<data folder name>
    judge: str = "local"  # model used by the LLM extractor

    def out_dir(self, data_dir: Path) -> Path:
        return self.out if self.out is not None else GRAPHS_DIR / Path(data_dir).resolve().name


@dataclass
class DifficultyConfig:
    """Gains and thresholds of the DifficultyController (method.md §2)."""

    gain_easy: float = 1.0
    gain_medium: float = 1.5
    gain_hard: float = 2.0
    t1: float = 0.5
    t2: float = 1.0
    hard_wrong_penalty: float = 0.0  # the reference code's -0.2 option; off by default


@dataclass
class LLMConfig:
    models_file: Path | None = None  # default: ./judgeagent.toml when present
    cache: Path | None = None  # optional shared cache, beside the per-run journal
    no_cache: bool = False
    max_requests: int | None = None
    budget_usd: float | None = None
    max_attempts: int = 6
    timeout_s: float = 120.0


@dataclass
class EvalConfig:
    target: str = "local"
    judge: str = "local"
    data: Path = DEFAULT_DATA
    graph: Path | None = None  # default: graphs/<data folder name>, built when missing
    batch_size: int = 3
    rounds: int = 3
    hops: int = 2
    limit: int | None = None
    seed: int = 0
    concurrency: int = 8
    no_graph: bool = False
    fixed_difficulty: str | None = None  # "easy" | "medium" | "hard"
    no_extension: bool = False
    eval_every_round: bool = False
    reask_correct: bool = False  # also re-ask batches the target got fully right
    report: bool = True  # write report.html and report.md (--no-report turns it off)
    summary: bool = True  # one judge call condensing the batch evaluations (summary.json)
    # Trust: the quality gate, the leakage guard, the controls and the statistics.
    gate: bool = True  # check every generated question (--no-gate turns it off)
    check_hops: bool = True  # Hard questions must need their hops
    gate_overlap: bool = True  # send the answerable check while embedding, when the judge takes parallel requests
    seed_similarity: float = 0.9  # a generated question this close to a seed is a copy
    generation_tries: int = 3  # tries per follow-up question before the round is skipped
    leak_threshold: float = 0.85  # embedding similarity of a suggestion sentence to an answer
    controls: bool = True  # plain and placebo re-asks beside the suggestions
    bootstrap: int = 2000  # resamples for the confidence intervals
    decontaminate: str | None = None  # "paraphrase" | "modify" | "unclarify"
    out: Path | None = None
    resume: Path | None = None
    difficulty: DifficultyConfig = field(default_factory=DifficultyConfig)
    llm: LLMConfig = field(default_factory=LLMConfig)
    graph_build: GraphConfig = field(default_factory=GraphConfig)

    def graph_dir(self) -> Path:
        return self.graph if self.graph is not None else GRAPHS_DIR / Path(self.data).resolve().name

    def to_json(self) -> dict:
        def conv(v):
            if isinstance(v, Path):
                return str(v)
            if isinstance(v, dict):
                return {k: conv(x) for k, x in v.items()}
            return v

        return conv(asdict(self))
