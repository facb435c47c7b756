"""What a run sets up before its first request: models, benchmark, batches, graph.

Everything here that can fail on bad setup (a model name, a key, the data, a graph built from
other data) fails with a one-line error before any model is asked anything.
"""

from __future__ import annotations

import platform
from collections.abc import Mapping
from importlib import metadata
from typing import TYPE_CHECKING, Any

from pydantic import Field

from judgeagent.batches import Batch, make_batches
from judgeagent.config import EvalConfig, ProtocolOptions, SeedOptions
from judgeagent.data import load_benchmark
from judgeagent.data.benchmark import Benchmark
from judgeagent.errors import ConfigError
from judgeagent.records import JsonModel

if TYPE_CHECKING:
    from judgeagent.graph import ContextGraph
    from judgeagent.llm.registry import ModelSpec

VERSIONED = ("judgeagent", "spacy", "sentence-transformers", "faiss-cpu", "openai", "llama-cpp-python", "networkx", "numpy", "torch")


def resolve_models(cfg: EvalConfig, roles: dict[str, str]) -> tuple[ModelSpec, ModelSpec, dict[str, ModelSpec]]:
    """(target, judge, {role: spec}) from the model registry; an unknown name is one line."""
    from judgeagent.llm import load_registry

    registry = load_registry(cfg.llm.models_file)
    return registry.resolve(cfg.target), registry.resolve(cfg.judge), {role: registry.resolve(name) for role, name in roles.items()}


def load(cfg: EvalConfig) -> Benchmark:
    return load_benchmark(cfg.data, chunk_tokens=cfg.graph_build.chunk_tokens, section_chunks=cfg.graph_build.section_chunks)


def seed_batches(cfg: EvalConfig, bench: Benchmark, options: ProtocolOptions) -> list[Batch]:
    """The seed questions in batches of the protocol's ``batch_size`` (the first ``limit``);
    one batch per question for a protocol whose options have no batches."""
    seeds = options if isinstance(options, SeedOptions) else SeedOptions(batch_size=1)
    batches = make_batches(bench, seeds.batch_size, seeds.limit)
    if not batches:
        raise ConfigError(f"{cfg.data}: no seed questions to ask")
    return batches


def ensure_graph(cfg: EvalConfig, bench: Benchmark, progress: bool) -> ContextGraph:
    """The run's context graph: loaded when built from this data, built first when missing.

    A graph built from other data (edited files, another folder of the same name) is refused,
    or rebuilt with ``rebuild_graph``: it would silently plan paths over the wrong texts.
    """
    from judgeagent.graph import build_graph, load_graph

    gdir = cfg.graph_dir()
    if not (gdir / "manifest.json").exists():
        return build_graph(bench, cfg.graph_build, gdir, progress=progress)
    graph = load_graph(gdir)
    if graph_matches(graph.manifest, bench):
        return graph
    if not cfg.rebuild_graph:
        raise ConfigError(
            f"the graph {gdir} was built from other data than {cfg.data} (input hash differs); "
            "pass --rebuild-graph to rebuild it, or --graph to use the graph of this data"
        )
    return build_graph(bench, cfg.graph_build.model_copy(update={"force": True}), gdir, progress=progress)


def graph_matches(manifest: dict[str, Any], bench: Benchmark) -> bool:
    """The manifest's input hash, computed again over ``bench`` with the build settings the
    manifest records: equal only if the graph was built from these files and chunks."""
    from judgeagent.graph.build import input_hash

    settings = manifest.get("settings")
    return isinstance(settings, dict) and input_hash(bench, settings) == manifest.get("input_hash")


def package_versions() -> dict[str, str]:
    out = {"python": platform.python_version()}
    for name in VERSIONED:
        try:
            out[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            pass
    return out


class SeenModel(JsonModel):
    """What a session saw of a model (the client's usage summary), or an earlier session's
    config.json kept of it."""

    temperature_sent: float | None = None
    sampled: bool = False
    reasoning: bool = False
    served_models: list[str] = Field(default_factory=list)


def model_info(spec: ModelSpec, learned: Mapping[str, Any] | None = None, before: Mapping[str, Any] | None = None) -> dict[str, object]:
    """A model as config.json records it, with whether its answers are samples (a temperature
    above 0, asked for or forced to 1 by the server) and whether it reasons before answering
    (declared, or seen in its replies: think text or reasoning tokens). What an earlier
    session of the run saw still holds: a resumed run may replay every answer."""
    now, then = SeenModel.model_validate(learned or {}), SeenModel.model_validate(before or {})
    return {
        "name": spec.name, "base_url": spec.base_url, "model": spec.model,
        "temperature": now.temperature_sent or spec.temperature,
        "sampled": bool(spec.temperature > 0 or now.sampled or then.sampled),
        "reasoning": bool(spec.reasoning or now.reasoning or then.reasoning),
        "served_models": sorted(set(now.served_models) | set(then.served_models)),
    }  # fmt: skip
