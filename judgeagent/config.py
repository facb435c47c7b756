"""Configuration: one typed model per command; its fields are the command's flags.

``GraphConfig`` is what ``judgeagent build-graph`` takes; ``EvalConfig`` is what
``judgeagent evaluate`` / ``ablate`` / ``contamination`` take, and it embeds the
``GraphConfig`` used when the graph has to be built first. Every field carries its type,
its range, its default and a one-line description; the CLI builds its options from them
(``batch_size`` is ``--batch-size``), ``config.json`` holds ``model_dump()``, and a saved
config is read back with ``model_validate()``. A default or a range is written only here.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, model_validator

DEFAULT_DATA = Path("data/medqa-demo")
GRAPHS_DIR = Path("graphs")
RUNS_DIR = Path("runs")

Level = Literal["easy", "medium", "hard"]
Extractor = Literal["spacy", "llm"]
EmbedBackend = Literal["torch", "onnx", "onnx-int8", "openvino"]  # judgeagent/graph/embed_backends.py registers each
DecontaminationMode = Literal["paraphrase", "modify", "unclarify"]
DECONTAMINATION_MODES: tuple[str, ...] = get_args(DecontaminationMode)
# The interview protocols (judgeagent/protocols/): each name is one registered module.
ProtocolName = Literal["judgeagent", "kieval", "interviewer", "escalate"]


def default_workers() -> int:
    """One spaCy process per core, up to 4; the entities do not depend on the number."""
    return max(1, min(4, os.cpu_count() or 1))


class _Config(BaseModel):
    # A misspelt key in a saved config.json is an error, not a silently ignored setting.
    model_config = ConfigDict(extra="forbid")


class GraphConfig(_Config):
    """How ``build-graph`` turns a benchmark's reference texts into the context graph."""

    extractor: Extractor = Field(default="spacy", description="Entity extractor: spaCy (named entities and noun chunks) or the judge model.")
    workers: int = Field(default_factory=default_workers, ge=1, description="spaCy worker processes (default: one per core, up to 4).")
    chunk_tokens: int = Field(default=200, ge=16, description="Token budget of one chunk, in MiniLM word-pieces (at most 254: what the model reads).")
    section_chunks: int = Field(default=6, ge=1, description="MedQA textbooks: chunks per section document.")
    stop_entity_share: float = Field(default=0.2, ge=0.0, le=1.0, description="Entities in more than this share of documents (or of chunks), and in at least 5, get no edges.")
    embed_batch_size: int = Field(default=64, ge=1, description="MiniLM batch size for chunk texts.")
    embed_backend: EmbedBackend = Field(default="torch", description="How MiniLM runs: torch (bf16 where the CPU has it), an ONNX Runtime export in fp32 or int8 (needs the onnx extra of judgeagent), or OpenVINO (the openvino extra).")
    force: bool = Field(default=False, description="Rebuild even when the input is unchanged.")
    out: Path | None = Field(default=None, description="Output folder (default: graphs/<data folder name>).")
    judge: str = Field(default="local", description="Model that extracts entities with --extractor llm.")
    engine: Literal["local", "ray"] = Field(default="local", description="Where extraction and embedding run: this process, or Ray actor pools (needs the ray extra of judgeagent).")
    ray_address: str | None = Field(default=None, description="Ray cluster to join with --engine ray: auto, a head node's host:port or ray:// address (default: start Ray inside this process).")

    def out_dir(self, data_dir: Path) -> Path:
        return self.out if self.out is not None else GRAPHS_DIR / Path(data_dir).resolve().name


class DifficultyConfig(_Config):
    """Gains and thresholds of the DifficultyController (method.md §2)."""

    gain_easy: float = Field(default=1.0, ge=0.0, description="Gain of a correct Easy answer.")
    gain_medium: float = Field(default=1.5, ge=0.0, description="Gain of a correct Medium (or unlabeled) answer.")
    gain_hard: float = Field(default=2.0, ge=0.0, description="Gain of a correct Hard answer.")
    t1: float = Field(default=0.5, ge=0.0, description="Score at or below which the next question is Easy.")
    t2: float = Field(default=1.0, ge=0.0, description="Score above which the next question is Hard (must exceed t1).")
    hard_wrong_penalty: float = Field(default=0.0, ge=0.0, description="Score lost by a wrong Hard answer (reference code: 0.2).")

    @model_validator(mode="after")
    def _thresholds_in_order(self) -> DifficultyConfig:
        # With t2 <= t1 the Medium band is empty and the controller jumps from Easy to Hard.
        if self.t2 <= self.t1:
            raise ValueError(f"t2 ({self.t2:g}) must be greater than t1 ({self.t1:g})")
        return self


class LLMConfig(_Config):
    """How requests are sent, replayed and budgeted."""

    models_file: Path | None = Field(default=None, description="Model registry file (default: ./judgeagent.toml when present).")
    cache: Path | None = Field(default=None, description="Shared request cache (SQLite), beside the run's own journal.")
    no_cache: bool = Field(default=False, description="Do not replay requests from the journal or cache.")
    max_requests: int | None = Field(default=None, ge=1, description="Stop cleanly before sending more requests than this.")
    budget_usd: float | None = Field(default=None, gt=0.0, description="Stop cleanly before spending more than this (model prices from the registry).")
    max_attempts: int = Field(default=6, ge=1, description="Attempts per request before it is recorded as failed.")
    timeout_s: float = Field(default=120.0, gt=0.0, description="Seconds per request attempt.")
    breaker_window: int = Field(default=20, ge=1, description="Circuit breaker: the last N requests to one model that are watched.")
    breaker_failure_share: float = Field(default=0.2, ge=0.0, lt=1.0, description="Circuit breaker: stop the run when more than this share of them failed after retries.")


class EvalConfig(_Config):
    """One interview (or ablation, or contamination probe): what to ask, how, and what to check."""

    target: str = Field(default="local", description="Model under evaluation: a name from `judgeagent models`, provider:model, URL@model or local:/path.gguf.")
    judge: str = Field(default="local", description="Model that writes questions and feedback (same forms as --target).")
    data: Path = Field(default=DEFAULT_DATA, description="Benchmark folder (MedQA, MultiHop-RAG, QuALITY or generic JSONL; detected).")
    graph: Path | None = Field(default=None, description="Context graph folder (default: graphs/<data name>; built when missing).")
    rebuild_graph: bool = Field(default=False, description="Rebuild the context graph when it was built from other data than --data (else the run is refused).")
    batch_size: int = Field(default=3, ge=1, description="Seed questions per batch (one prompt). RMC batches never mix articles.")
    rounds: int = Field(default=3, ge=0, description="Extension rounds per batch.")
    hops: int = Field(default=2, ge=1, description="Knowledge-path hops per generated question.")
    limit: int | None = Field(default=None, ge=1, description="Use only the first N seed questions.")
    seed: int = Field(default=0, description="Seed for path sampling, option order, model calls and the bootstrap.")
    concurrency: int = Field(default=8, ge=1, description="Batches interviewed at once.")
    no_graph: bool = Field(default=False, description="Ablation: path chunks drawn at random from the corpus.")
    fixed_difficulty: Level | None = Field(default=None, description="Ablation: this difficulty for every generated question.")
    no_extension: bool = Field(default=False, description="Ablation: feedback from the seed answers only.")
    eval_every_round: bool = Field(default=False, description="Feedback and validation after round 0..R (gives by_round).")
    reask_correct: bool = Field(default=False, description="Also re-ask batches the target got fully right.")
    report: bool = Field(default=True, description="Write report.html and report.md.")
    summary: bool = Field(default=True, description="Ask the judge for the end-of-run interview summary (summary.json).")
    gate: bool = Field(default=True, description="Check generated questions: well-formed, answerable from the path, not a copy or duplicate.")
    check_hops: bool = Field(default=True, description="Hard questions must fail when any one path chunk is removed; else they count as single-hop.")
    gate_overlap: bool = Field(
        default=True,
        description="Send the gate's answerable check while the question is embedded, and withdraw it if the question is a copy "
        "(only when the judge takes parallel requests; saves a wait, may spend a call).",
    )
    seed_similarity: float = Field(default=0.9, gt=0.0, le=1.0, description="Cosine to a seed question at or above which a generated one is a copy.")
    generation_tries: int = Field(default=3, ge=1, description="Tries per follow-up question before the round is skipped.")
    leak_threshold: float = Field(default=0.85, gt=0.0, le=1.0, description="Cosine of a suggestion sentence to an answer at or above which it leaks.")
    leak_check: Literal["auto", "rules", "judge", "off"] = Field(
        default="auto",
        description="Leak check of the suggestions: rules only; rules, then one judge call per seed question; or off. "
        "auto: judge for remote judges, rules for the bundled local model.",
    )
    controls: bool = Field(default=True, description="Also re-ask with no suggestions and with a placebo suggestion.")
    bootstrap: int = Field(default=2000, ge=100, description="Bootstrap resamples for the 95% confidence intervals.")
    decontaminate: DecontaminationMode | None = Field(default=None, description="Rewrite the seed questions first, with this method.")
    protocol: ProtocolName = Field(default="judgeagent", description="Interview protocol: JudgeAgent's, KIEval's dialogue, LLM-as-an-Interviewer's revision loop, or MACEval's escalation.")
    evaluator: str | None = Field(default=None, description="kieval: the model that scores each turn (default: the judge).")
    kieval_turns: int = Field(default=5, ge=1, description="kieval: dialogue turns per seed question.")
    revisions: int = Field(default=3, ge=1, description="interviewer: answers per question, the first and each revision after feedback (gives acc@1..@N).")
    reask_extended: bool = Field(default=False, description="judgeagent: also re-ask the follow-up questions with the suggestions (Appendix E.2).")
    transfer: bool = Field(default=False, description="judgeagent: apply source batches' suggestions to held-out seed questions (Appendix E.2).")
    out: Path | None = Field(default=None, description="Run folder (default: runs/<date>-<target>-<data>).")
    resume: Path | None = Field(default=None, description="Continue the run in this folder (rerunning the same command does too).")
    bank: Path | None = Field(default=None, description="Ask fixed items from this graph folder's question bank instead of interviewing (no generation).")
    bank_size: int | None = Field(default=None, ge=1, description="With --bank: how many items (default: every unflagged one; with --adaptive, the most to ask).")
    bank_seed: int = Field(default=0, description="With --bank: the seed that draws the items.")
    adaptive: bool = Field(default=False, description="With --bank: pick each item by Fisher information at the current ability (needs `judgeagent calibrate`).")
    target_se: float = Field(default=0.3, gt=0.0, description="With --adaptive: stop once the ability's standard error is at most this.")
    difficulty: DifficultyConfig = Field(default_factory=lambda: DifficultyConfig(), description="The difficulty controller.")
    llm: LLMConfig = Field(default_factory=lambda: LLMConfig(), description="Requests, replay and budget.")
    graph_build: GraphConfig = Field(default_factory=lambda: GraphConfig(), description="How the graph is built when it is missing.")

    @model_validator(mode="before")
    @classmethod
    def _graph_extractor_follows_judge(cls, data: Any) -> Any:
        """The graph built for a run extracts with the run's judge unless told otherwise."""
        if isinstance(data, dict) and "judge" in data:
            gb = data.get("graph_build")
            if gb is None:
                data = {**data, "graph_build": {"judge": data["judge"]}}
            elif isinstance(gb, dict) and "judge" not in gb:
                data = {**data, "graph_build": {**gb, "judge": data["judge"]}}
        return data

    @model_validator(mode="after")
    def _adaptive_needs_bank(self) -> EvalConfig:
        if self.adaptive and self.bank is None:
            raise ValueError("adaptive needs bank (a graph folder whose bank is calibrated)")
        return self

    def graph_dir(self) -> Path:
        return self.graph if self.graph is not None else GRAPHS_DIR / Path(self.data).resolve().name

    def to_json(self) -> dict:
        return self.model_dump(mode="json")

    def replay_json(self) -> dict:
        """``model_dump`` with every path made absolute and every cwd-dependent default resolved,
        so that ``evaluate --config`` re-creates the run from any working directory."""
        models_file = self.llm.models_file
        if models_file is None and Path("judgeagent.toml").is_file():
            models_file = Path("judgeagent.toml")
        fixed = self.model_copy(
            update={
                "data": _absolute(self.data),
                "graph": _absolute(self.graph_dir()),
                "out": _absolute(self.out),
                "resume": _absolute(self.resume),
                "llm": self.llm.model_copy(update={"models_file": _absolute(models_file), "cache": _absolute(self.llm.cache)}),
                "graph_build": self.graph_build.model_copy(update={"out": _absolute(self.graph_build.out)}),
            }
        )
        return fixed.model_dump(mode="json")


def _absolute(path: Path | None) -> Path | None:
    return None if path is None else Path(path).resolve()


def saved_config(path: Path, command: str, overrides: dict | None = None) -> dict:
    """The EvalConfig fields of a run's ``config.json``, set to resume that run's folder unless
    the ``overrides`` the caller will lay on top say where the run goes (``out`` or ``resume``).

    Not yet validated, so that a bad value can be named as a flag or as the file's. ``command``
    (evaluate, ablate, contamination) must be the one that made the run, or the records
    in the folder would be of another kind.
    """
    import json

    from judgeagent.errors import ConfigError

    path = Path(path)
    try:
        saved = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise ConfigError(f"{path}: cannot read the run config ({e})") from None
    if not isinstance(saved, dict) or not isinstance(saved.get("eval_config") or saved.get("settings"), dict):
        raise ConfigError(f"{path}: not a run's config.json (no eval_config)")
    settings = saved.get("settings") or {}
    made_by = "contamination" if settings.get("probe") else ("ablate" if len(settings.get("settings") or []) > 1 else "evaluate")
    if made_by != command:
        raise ConfigError(f"{path}: written by `judgeagent {made_by}`; rerun it with `judgeagent {made_by} --config {path}`")
    # Runs written before config.json held eval_config: their settings are the same fields,
    # less the output paths and most of llm.
    fields = dict(saved.get("eval_config") or {k: v for k, v in settings.items() if k not in ("settings", "probe")})
    overrides = overrides or {}
    if "out" not in overrides and "resume" not in overrides:
        fields["resume"] = str(path.resolve().parent)
    else:
        fields.pop("resume", None)
    return fields
