"""Graph commands: build-graph, graph-info, sample-path.

Heavy imports (spaCy, torch, FAISS) happen inside the commands, and sample-path loads
the sentence encoder only when the entity text is not already a node name.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from judgeagent.cli.app import app
from judgeagent.cli.common import console, err_console, user_errors
from judgeagent.cli.options import build_config, config_flags, with_config_flags
from judgeagent.config import GraphConfig

if TYPE_CHECKING:
    from judgeagent.graph.info import GraphInfo
    from judgeagent.graph.manifest import BuildStats, RoleEncoder

# build-graph's flags: every GraphConfig field. The flag --stop-share keeps its earlier spelling.
BUILD_FLAGS = config_flags(
    GraphConfig,
    {None: ("out", "force", "strict", "workers", "chunk_tokens", "section_chunks", "stop_entity_share", "extractor", "judge", "embed_batch_size", "embed_backend", "entity_encoder", "chunk_encoder", "embed", "engine", "ray_address")},
    {"stop_entity_share": ("--stop-share",)},
)


def reuse_line(build: BuildStats, embed: str = "all") -> str:
    """What the per-chunk cache saved, and where the work ran."""
    r = build.reused
    where = f"; engine {build.engine} on {len(build.nodes)} node(s)" if build.engine != "local" else ""
    if embed == "lazy":
        return (f"reused {r.extraction_reused} of {r.chunks} chunk extractions; no vectors embedded: runs embed what "
                f"they need, once, into the graph folder (--embed all embeds them now){where}")
    return (f"reused {r.extraction_reused} of {r.chunks} chunk extractions, "
            f"{r.chunks - r.chunk_vectors_embedded} of {r.chunks} chunk vectors, "
            f"{r.entity_vectors - r.entity_vectors_embedded} of {r.entity_vectors} entity vectors{where}")


ENCODER_LABELS = {"minilm": "MiniLM", "wordllama": "WordLlama's static vectors"}


def encoder_line(role: RoleEncoder) -> str:
    """One role's encoder as graph-info prints it: 'wordllama (wordllama-l2-supercat-256 0.4.0, static fp32, 256-d)'."""
    return f"{role.encoder} ({role.model} {role.version}, {role.backend} {role.precision}, {role.dim}-d)"


def _say(text: str) -> None:
    """Print plain text: no markup (entity names may hold brackets), no hard wrapping."""
    console.print(text, highlight=False, markup=False, soft_wrap=True)


@app.command("build-graph")
@user_errors
@with_config_flags(BUILD_FLAGS)
def build_graph_cmd(
    given: dict,
    data_dir: Path = typer.Argument(..., help="Benchmark folder (MedQA, MultiHop-RAG, QuALITY or generic JSONL), or a folder of documents (PDF, HTML, DOCX, Markdown, text; subfolders too)."),
) -> None:
    """Build the context graph of a benchmark or of a folder of documents (reused when its input is unchanged)."""
    config = build_config(GraphConfig, BUILD_FLAGS, given)
    from judgeagent.data import load_benchmark
    from judgeagent.graph import build_graph

    benchmark = load_benchmark(data_dir, chunk_tokens=config.chunk_tokens, section_chunks=config.section_chunks,
                               questions=False, strict=config.strict, progress=True)
    _say_skipped(data_dir, benchmark)
    out_dir = config.out_dir(data_dir)
    graph = build_graph(benchmark, config, out_dir, progress=True)
    m = graph.meta
    c = m.counts
    if graph.reused:
        _say(f"reused graph at {out_dir} (input unchanged; --force rebuilds it)")
    else:
        _say(f"built graph at {out_dir} in {m.timings_s.get('total', 0.0):.1f} s")
        _say(reuse_line(m.build, m.embed))
    _say(
        f"{c.entities} entities ({c.stop_entities} stop), "
        f"{c.edges_strong + c.edges_weak} edges ({c.edges_strong} strong, {c.edges_weak} weak), "
        f"{c.chunks} chunks, {c.documents} documents; "
        f"indexes: entity {m.indexes['entity'].kind}, chunk {m.indexes['chunk'].kind}"
    )


def _say_skipped(data_dir: Path, benchmark) -> None:
    """One line per file of a folder of documents that could not be read, then how many."""
    if not benchmark.skipped:
        return
    for s in benchmark.skipped:
        err_console.print(f"skipped {data_dir / s.source}: {s.reason}", highlight=False, markup=False, soft_wrap=True)
    n, total = len(benchmark.skipped), len(benchmark.skipped) + len(benchmark.documents)
    err_console.print(f"skipped {n} of {total} files (they cannot be read); building from the other {total - n} "
                      "(--strict refuses instead)", highlight=False, markup=False, soft_wrap=True)


@app.command("graph-info")
@user_errors
def graph_info_cmd(
    graph_dir: Path = typer.Argument(..., help="A built graph folder, e.g. graphs/medqa-demo."),
    as_json: bool = typer.Option(False, "--json", help="Print JSON only."),
) -> None:
    """Size, connectivity, degree spread, hubs and stop entities of a built graph."""
    from judgeagent.graph import graph_info, load_graph

    info = graph_info(load_graph(graph_dir))
    if as_json:
        typer.echo(json.dumps(info.model_dump(mode="json"), indent=2, ensure_ascii=False))
        return
    _print_info(info)


def _print_info(info: GraphInfo) -> None:
    from rich.table import Table
    from rich.text import Text

    e = info.edges
    console.print(Text(info.path, style="bold"))
    _say(
        f"nodes {info.nodes}  edges {e.total} (strong {e.strong}, weak {e.weak})  "
        f"chunks {info.chunks}  documents {info.documents}"
    )
    _say(
        f"stop entities {info.stop_entity_count} (share > {info.stop_entity_share} and in "
        f">= {info.stop_entity_min_count} documents or chunks)  "
        f"components {info.connected_components} (largest {info.largest_component_share:.1%} of "
        f"non-stop nodes)  isolated {info.isolated_nodes}"
    )
    d = info.dropped_entities
    _say(f"dropped entities {sum(d.values())}: " + ", ".join(f"{k.replace('_', ' ')} {v}" for k, v in d.items())
         + f"  (weak edges: chunks at most {info.weak_edge_window} apart)")
    _say("encoders: " + "; ".join(f"{role} {encoder_line(r)}" for role, r in info.encoders.items()))
    how = "stored by the build" if info.embed == "all" else "embedded on demand so far, kept in the graph folder"
    _say("vectors (" + how + "): " + ", ".join(f"{role} {v.embedded} of {v.total}" for role, v in info.vectors.items()))
    c = info.chunk_model_tokens
    _say(f"largest chunk {c.largest} model tokens ({c.largest_chunk}; limit {c.max_seq_length}, {c.over_limit} over)")
    _say("degree " + "  ".join(f"{k} {v:g}" for k, v in info.degree_quantiles.items()))
    top = Table(title="top entities by degree", title_justify="left")
    for col in ("entity", "degree", "chunks", "kind"):
        top.add_column(col)
    for r in info.top_entities_by_degree:
        top.add_row(Text(r.entity), str(r.degree), str(r.chunks), Text(r.kind))
    console.print(top)
    if info.stop_entities:
        _say("stop entities: " + ", ".join(f"{s.entity} ({s.documents} docs)" for s in info.stop_entities))


@app.command("sample-path")
@user_errors
def sample_path_cmd(
    graph_dir: Path = typer.Argument(..., help="A built graph folder."),
    entity: str = typer.Option(..., "--entity", help="Start entity: a node name or any text."),
    hops: int = typer.Option(2, "--hops", min=1, help="Number of (entity, chunk) steps."),
    seed: int = typer.Option(0, "--seed", help="Same seed, same path."),
    top_k: int = typer.Option(3, "--top-k", min=1, help="Draw each chunk among this many best-ranked."),
) -> None:
    """Map TEXT to the nearest graph entity and print a knowledge path from it."""
    from judgeagent.errors import JudgeAgentError
    from judgeagent.graph import load_graph

    graph = load_graph(graph_dir)
    match = graph.resolve_entities([entity])[0]
    if match is None:
        raise JudgeAgentError(f"{graph_dir}: the graph has no entities")
    if match.exact:
        how = ("its vector was read back from the FAISS entity index, the encoder was not loaded"
               if graph.has_vector(match.entity) else
               "its name vector is made when first needed and kept in the graph folder" if graph.lazy else
               "a stop entity has no stored vector: its name was embedded")
        _say(f"{entity!r} is the graph entity {match.entity!r} (exact name match, similarity "
             f"{match.similarity:.3f}; {how})")
        path = graph.sample_path(match.entity, hops, seed=seed, top_k=top_k)
    else:
        _say(
            f"{entity!r} → nearest graph entity {match.entity!r} (cosine {match.similarity:.3f}; "
            f"the text was embedded with {ENCODER_LABELS.get(graph.roles['entities'].encoder, 'its encoder')}, "
            "the entity names' encoder, and " + ("ranked against the names most like it in characters)" if graph.lazy
                                                 else "searched in the FAISS entity index)")
        )
        # The encoder is loaded anyway, so chunks are ranked against the user's own words.
        path = graph.sample_path(match.entity, hops, seed=seed, top_k=top_k, query_text=entity)
    _say(f"path from {path.start!r}, {len(path)} of {hops} hops, seed {seed}:")
    for i, step in enumerate(path.steps, 1):
        preview = " ".join(step.text.split())
        preview = preview if len(preview) <= 160 else preview[:157] + "..."
        _say(f"  {i}. ({step.entity!r}, {step.chunk_id})")
        _say(f"     {preview}")
