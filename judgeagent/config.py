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
import re
from pathlib import Path
from typing import Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator
from pydantic.fields import FieldInfo

DEFAULT_DATA = Path("data/medqa-demo")
GRAPHS_DIR = Path("graphs")
RUNS_DIR = Path("runs")

Level = Literal["easy", "medium", "hard"]
BatchExpired = Literal["retry", "live", "stop"]
Extractor = Literal["spacy", "llm"]
EmbedBackend = Literal["torch", "onnx", "onnx-int8", "openvino"]  # judgeagent/graph/embed_backends.py registers each
EncoderName = Literal["minilm", "wordllama"]  # judgeagent/graph/encoders.py
DecontaminationMode = Literal["paraphrase", "modify", "unclarify"]
DECONTAMINATION_MODES: tuple[str, ...] = get_args(DecontaminationMode)


def default_workers() -> int:
    """One spaCy process per core, up to 4; the entities do not depend on the number."""
    return max(1, min(4, os.cpu_count() or 1))


_DURATION = re.compile(r"(\d+(?:\.\d+)?)\s*(d|h|m|s)", re.I)
_SECONDS = {"d": 86400, "h": 3600, "m": 60, "s": 1}


def parse_duration(text: str) -> float:
    """Seconds in "2h", "90m", "1h30m", "45s", "1d" or a plain number of seconds."""
    t = str(text).strip().lower()
    if re.fullmatch(r"\d+(\.\d+)?", t):
        seconds = float(t)
    elif t and re.fullmatch(r"(\s*\d+(\.\d+)?\s*[dhms])+", t):
        seconds = sum(float(n) * _SECONDS[u] for n, u in _DURATION.findall(t))
    else:
        raise ValueError(f"not a duration: {text!r} (use e.g. 90m, 2h or 1h30m)")
    if seconds <= 0:
        raise ValueError("a duration must be more than 0")
    return seconds


def field_of(model: type[BaseModel], name: str, *, note: str | None = None) -> Any:
    """``model``'s field ``name``, to declare again on another model (``judge: str =
    field_of(EvalConfig, "judge")``): its default, range and description stay written once.
    ``note`` adds what the field does on the other model beside what it does on ``model``."""
    info = model.model_fields[name]
    if note is None:
        return FieldInfo.merge_field_infos(info)
    return FieldInfo.merge_field_infos(info, description=f"{info.description} {note}")


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
    embed_batch_size: int = Field(default=16, ge=1, description="MiniLM batch size for chunk texts (16: the activations stay in cache; 64 took 15% more CPU per chunk on 2 busy cores, the same on idle ones).")
    embed_backend: EmbedBackend = Field(default="torch", description="How MiniLM runs: torch (bf16 where the CPU has it), an ONNX Runtime export in fp32 or int8 (needs the onnx extra of judgeagent), or OpenVINO (the openvino extra).")
    entity_encoder: EncoderName = Field(default="minilm", description="Encoder of entity names (and of the question names matched to them): minilm, or wordllama's static token vectors.")
    chunk_encoder: EncoderName = Field(default="minilm", description="Encoder of chunk texts (and of the batch texts they are ranked against): minilm, or wordllama's static token vectors.")
    embed: Literal["lazy", "all"] = Field(
        default="lazy",
        description="lazy: embed nothing now; a run embeds the chunk texts and names it needs, once, and keeps them in the graph "
        "folder (a lexical index proposes the candidates of a search over the whole graph). all: embed every chunk text and entity "
        "name now, as for many runs on many machines or a Ray cluster.",
    )
    force: bool = Field(default=False, description="Rebuild even when the input is unchanged.")
    strict: bool = Field(default=False, description="A folder of documents: refuse to build when a file cannot be read (by default it is left out, with a line saying why).")
    out: Path | None = Field(default=None, description="Output folder (default: graphs/<data folder name>).")
    judge: str = Field(default="local", description="Model that extracts entities with --extractor llm.")
    engine: Literal["local", "ray"] = Field(default="local", description="Where extraction and embedding run: this process, or Ray actor pools (needs the ray extra of judgeagent).")
    ray_address: str | None = Field(default=None, description="Ray cluster to join with --engine ray: auto, a head node's host:port or ray:// address (default: start Ray inside this process).")

    def out_dir(self, data_dir: Path) -> Path:
        return self.out if self.out is not None else GRAPHS_DIR / Path(data_dir).resolve().name


class DifficultyConfig(_Config):
    """Gains and thresholds of the DifficultyController (docs/concepts/method.md §2)."""

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
    batch_api: bool = Field(
        default=False,
        description="Send every remote model's requests through its provider's Batch API (OpenAI's, or an OpenAI-compatible one such as "
        "DashScope's): about half price, answers within the provider's window (24 h; often minutes). Requests ready at the same point "
        "of the run go in one job per model (a wave); a stopped run resumes its jobs. Local models ignore it.",
    )
    batch_api_deadline: str | None = Field(
        default=None,
        description="With --batch-api: a job still running this long after it was sent is cancelled, what it finished is kept and "
        "the rest is sent one by one (e.g. 2h, 90m, 1h30m).",
        json_schema_extra={"accepts": "a duration such as 90m, 2h or 1h30m"},
    )
    batch_api_poll_s: float = Field(default=15.0, gt=0.0, description="With --batch-api: seconds between two looks at a job in flight at first (slowing to 4x while nothing changes).")
    # The provider ends a job at its completion window (24 h) and returns what it did not run
    # as batch_expired lines. Sending them again keeps the batch price, which is what a user who
    # chose the Batch API chose it for, so that is the default; each try may take another window.
    batch_api_expired: BatchExpired = Field(
        default="retry",
        description="With --batch-api: what happens to requests a job returns expired (not run within the provider's 24 h window): "
        "retry (send them again in the next wave's job, at batch price, up to --batch-api-expired-retries times; each try can take "
        "another window), live (send them one by one at once, at the full price), stop (leave their units incomplete, reason "
        "expired; rerun the command to try again).",
    )
    batch_api_expired_retries: int = Field(
        default=2, ge=0, le=10,
        description="With --batch-api-expired retry: how many times one request that expired is sent again in a new job before its "
        "unit is left incomplete (reason expired).",
    )  # fmt: skip

    @field_validator("batch_api_deadline")
    @classmethod
    def _a_duration(cls, v: str | None) -> str | None:
        if v is not None:
            parse_duration(v)  # ValueError: the CLI names the flag and what it accepts
        return v

    @property
    def batch_api_deadline_s(self) -> float | None:
        return parse_duration(self.batch_api_deadline) if self.batch_api_deadline is not None else None


class ProtocolOptions(_Config):
    """Base of every protocol's options model: the settings only that protocol reads.

    A protocol declares its model as its ``options`` class attribute (see
    :mod:`judgeagent.engine.protocol`); the run's :class:`EvalConfig` holds an instance of it.
    The building blocks below are shared by the protocols that ask the same kind of thing.
    """


class SeedOptions(ProtocolOptions):
    """A protocol that asks the benchmark's seed questions."""

    batch_size: int = Field(default=3, ge=1, description="Seed questions per batch (one prompt). RMC batches never mix articles.")
    limit: int | None = Field(default=None, ge=1, description="Use only the first N seed questions.")


class PathOptions(SeedOptions):
    """... along knowledge paths of the context graph."""

    hops: int = Field(default=2, ge=1, description="Knowledge-path hops per generated question.")


class GenerationOptions(PathOptions):
    """... and has the judge write new questions from them, through the quality gate."""

    generation_tries: int = Field(default=3, ge=1, description="Tries per follow-up question before the round is skipped.")
    gate: bool = Field(default=True, description="Check generated questions: well-formed, answerable from the path, not a copy or duplicate.")
    check_hops: bool = Field(default=True, description="Hard questions must fail when any one path chunk is removed; else they count as single-hop.")
    gate_overlap: bool = Field(
        default=True,
        description="Send the gate's answerable check while the question is embedded, and withdraw it if the question is a copy "
        "(only when the judge takes parallel requests; saves a wait, may spend a call).",
    )
    seed_similarity: float = Field(default=0.9, gt=0.0, le=1.0, description="Cosine to a seed question at or above which a generated one is a copy.")


class GuardOptions(ProtocolOptions):
    """A protocol that shows the target the judge's advice, through the leakage guard."""

    leak_threshold: float = Field(default=0.85, gt=0.0, le=1.0, description="Cosine of a suggestion sentence to an answer at or above which it leaks.")
    leak_check: Literal["auto", "rules", "judge", "off"] = Field(
        default="auto",
        description="Leak check of the suggestions: rules only; rules, then one judge call per seed question; or off. "
        "auto: judge for remote judges, rules for the bundled local model.",
    )


# What every run has, whatever its protocol. Anything else is the protocol's option.
SHARED_FIELDS = ("target", "judge", "data", "graph", "rebuild_graph", "seed", "concurrency", "out", "resume", "report", "protocol",
                 "options", "llm", "graph_build")


class EvalConfig(_Config):
    """One run: what every run has (models, data, graph, budget, concurrency, seed, output),
    the protocol, and that protocol's options.

    The options may be given flat (``EvalConfig(protocol="kieval", kieval_turns=3)``, which is
    what the command line does) or as ``options={...}``. They stay a plain dict here; the
    engine validates them with the protocol's own options model, so a setting that belongs to
    another protocol is refused, naming it (:func:`judgeagent.engine.options.resolve`).
    """

    target: str = Field(default="local", description="Model under evaluation: a name from `judgeagent models`, provider:model, URL@model or local:/path.gguf.")
    judge: str = Field(default="local", description="Model that writes questions and feedback (same forms as a target).")
    data: Path = Field(default=DEFAULT_DATA, description="Benchmark folder (MedQA, MultiHop-RAG, QuALITY or generic JSONL; detected).")
    graph: Path | None = Field(default=None, description="Context graph folder (default: graphs/<data name>; built when missing).")
    rebuild_graph: bool = Field(default=False, description="Rebuild the context graph when it was built from other data than --data (else the run is refused).")
    seed: int = Field(default=0, description="Seed for path sampling, option order, model calls and the bootstrap.")
    concurrency: int = Field(default=8, ge=1, description="Units (batches, seeds or items) asked at once.")
    out: Path | None = Field(default=None, description="Run folder (default: runs/<date>-<target>-<data>).")
    resume: Path | None = Field(default=None, description="Continue the run in this folder (rerunning the same command does too).")
    report: bool = Field(default=True, description="Write report.html and report.md.")
    protocol: str = Field(default="judgeagent", description="How the target is interviewed: `judgeagent protocols` lists them and their options.")
    options: dict[str, Any] = Field(default_factory=dict, description="The protocol's options (flat keyword arguments land here).")
    llm: LLMConfig = Field(default_factory=lambda: LLMConfig(), description="Requests, replay and budget.")
    graph_build: GraphConfig = Field(default_factory=lambda: GraphConfig(), description="How the graph is built when it is missing.")

    @model_validator(mode="before")
    @classmethod
    def _gather_options(cls, data: Any) -> Any:
        """Flat keyword arguments that are no shared setting are the protocol's options."""
        if not isinstance(data, dict):
            return data
        extra = {k: v for k, v in data.items() if k not in SHARED_FIELDS}
        if not extra:
            return data
        options = merged(dict(data.get("options") or {}), extra)
        return {k: v for k, v in data.items() if k in SHARED_FIELDS} | {"options": options}

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

    def graph_dir(self) -> Path:
        return self.graph if self.graph is not None else GRAPHS_DIR / Path(self.data).resolve().name

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    def replay_json(self) -> dict[str, Any]:
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


def merged(base: dict, top: dict) -> dict:
    """``top`` over ``base``, nested dicts merged key by key (``--t2`` over a saved controller,
    flags over a config file)."""
    out = dict(base)
    for k, v in top.items():
        out[k] = merged(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


def _absolute(path: Path | None) -> Path | None:
    return None if path is None else Path(path).resolve()
