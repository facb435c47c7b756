"""The on-disk graph artefact: file layout, atomic publishing, and reading it back.

Layout of ``graphs/<name>/`` (docs/reference/graph-folder.md)::

    manifest.json     written last: a folder without it is not a graph; ``embed`` says
                      whether the vectors are stored ("all") or made on demand ("lazy")
    nodes.json        node names, display labels, kinds
    arrays/*.npy      CSR arrays, one uncompressed .npy each, memory-mapped on load:
                      node→chunks, node→documents, chunk→entities, adjacency (neighbour,
                      weight, kind), stop flags, chunk→document, text offsets, and the
                      node of each entity-index row (stop entities have no vector)
    chunks.json       chunk IDs and the documents (ID, title)
    chunk_text.bin    all chunk texts, UTF-8, back to back (offsets in arrays/)
    lexical/          "lazy" only: BM25 index over the chunk texts (bm25s's files)
    chunk_emb.npy     "all" only: chunk embeddings, float32 (n, 384), memory-mapped on load
    entity.faiss      "all" only: FAISS index over entity-name embeddings, memory-mapped
    chunk.faiss       "all" only: FAISS index over chunk embeddings, memory-mapped
    cache.sqlite      per-chunk extraction cache and every vector embedded so far, by the
                      build or on demand (see judgeagent.graph.chunk_cache and
                      judgeagent.graph.vectors); not listed in the manifest

Opening a graph therefore reads the JSON tables and maps the rest: the pages a query
touches are read, nothing else. Format 2 replaced format 1's ``graph.npz`` (which numpy
can only read whole) with ``arrays/``; format 3 added lazy graphs (``embed``, ``lexical/``)
and lists each graph's data files in its manifest. A format 2 graph is read as a full one.

A build writes into a hidden sibling folder and renames it into place at the end, so an
interrupted build never leaves something at ``graphs/<name>/`` that loads.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
from pathlib import Path

import numpy as np

from judgeagent.errors import JudgeAgentError

FORMAT_VERSION = 3
READABLE_FORMATS = (2, 3)  # format 2 is a format 3 graph with every vector stored
MANIFEST = "manifest.json"
NODES = "nodes.json"
ARRAYS = "arrays"  # a folder of .npy files
CHUNKS = "chunks.json"
TEXT = "chunk_text.bin"
CHUNK_EMB = "chunk_emb.npy"
ENTITY_INDEX = "entity.faiss"
CHUNK_INDEX = "chunk.faiss"
LEXICAL = "lexical"  # a folder: the BM25 index of a lazily built graph
BASE_FILES = (NODES, ARRAYS, CHUNKS, TEXT)
DATA_FILES = (*BASE_FILES, CHUNK_EMB, ENTITY_INDEX, CHUNK_INDEX)  # a graph built with --embed all
LAZY_FILES = (*BASE_FILES, LEXICAL)  # a graph built lazily (the default)


def data_files(embed: str) -> tuple[str, ...]:
    """The files and folders a graph built with ``--embed embed`` holds besides its manifest."""
    return LAZY_FILES if embed == "lazy" else DATA_FILES


def write_json(path: Path, obj) -> None:
    with open(path, "w", encoding="utf-8") as f:
        json.dump(obj, f, ensure_ascii=False, separators=(",", ":"))
        f.flush()
        os.fsync(f.fileno())


def write_texts(path: Path, texts: list[str]) -> np.ndarray:
    """Write texts back to back; returns the (n+1) byte offsets."""
    encoded = [t.encode("utf-8") for t in texts]
    offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
    offsets[1:] = np.cumsum([len(b) for b in encoded])
    with open(path, "wb") as f:
        f.write(b"".join(encoded))
    return offsets


def write_arrays(folder: Path, arrays: dict[str, np.ndarray]) -> None:
    """One uncompressed ``.npy`` per array, so a reader can map each instead of reading it."""
    folder.mkdir()
    for name, a in arrays.items():
        np.save(folder / f"{name}.npy", np.ascontiguousarray(a))


def read_arrays(folder: Path) -> dict[str, np.ndarray]:
    """Every array of :func:`write_arrays`, memory-mapped read-only (an empty one is read:
    there is nothing to map)."""
    out = {}
    for path in sorted(Path(folder).glob("*.npy")):
        try:
            out[path.stem] = np.load(path, mmap_mode="r")
        except ValueError:  # numpy refuses to map a zero-length array
            out[path.stem] = np.load(path)
    return out


def write_manifest(folder: Path, manifest: dict) -> None:
    """Written last and atomically: its presence marks the folder as a complete graph."""
    tmp = folder / (MANIFEST + ".part")
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2, ensure_ascii=False)
        f.write("\n")
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, folder / MANIFEST)


# --- publishing -----------------------------------------------------------------------


def staging_dir(out_dir: Path) -> Path:
    """A fresh hidden folder beside ``out_dir`` (same file system, so rename is atomic)."""
    out_dir = Path(out_dir)
    out_dir.parent.mkdir(parents=True, exist_ok=True)
    tmp = out_dir.parent / f".{out_dir.name}.tmp-{os.getpid()}-{secrets.token_hex(3)}"
    tmp.mkdir()
    return tmp


def publish(tmp: Path, out_dir: Path) -> None:
    """Move a finished staging folder to ``out_dir``, replacing any previous graph."""
    out_dir = Path(out_dir)
    old = None
    if out_dir.exists():
        old = out_dir.parent / f".{out_dir.name}.old-{os.getpid()}-{secrets.token_hex(3)}"
        os.rename(out_dir, old)
    os.rename(tmp, out_dir)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)


def clean_stale(out_dir: Path) -> None:
    """Remove staging folders left by builds that died (their process is gone)."""
    out_dir = Path(out_dir)
    if not out_dir.parent.is_dir():
        return
    for p in out_dir.parent.glob(f".{out_dir.name}.*-*-*"):
        parts = p.name.rsplit("-", 2)
        try:
            pid = int(parts[-2])
        except (ValueError, IndexError):
            continue
        if pid != os.getpid() and _alive(pid):
            continue
        shutil.rmtree(p, ignore_errors=True)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


# --- reading ----------------------------------------------------------------------------


def read_manifest(folder: Path) -> dict:
    """The manifest of a complete graph, or a JudgeAgentError saying what is wrong."""
    folder = Path(folder)
    if not folder.is_dir():
        raise JudgeAgentError(f"{folder}: no graph here; build one with `judgeagent build-graph DATA_DIR`")
    path = folder / MANIFEST
    if not path.is_file():
        raise JudgeAgentError(
            f"{folder}: not a complete graph (no {MANIFEST}); rebuild it with `judgeagent build-graph --force`"
        )
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise JudgeAgentError(f"{path}: unreadable manifest ({e}); rebuild the graph with --force") from None
    if manifest.get("format_version") not in READABLE_FORMATS:
        raise JudgeAgentError(
            f"{path}: graph format {manifest.get('format_version')!r}, this version reads "
            f"{' and '.join(map(str, READABLE_FORMATS))}; rebuild it with --force"
        )
    missing = [f for f in data_files(manifest.get("embed", "all")) if not (folder / f).exists()]
    if missing:
        raise JudgeAgentError(f"{folder}: incomplete graph, missing {', '.join(missing)}; rebuild it with --force")
    return manifest
