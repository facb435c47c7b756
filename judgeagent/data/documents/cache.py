"""Converted documents kept in the user's cache, by the sha256 of the file's bytes.

Reading a PDF costs about as much as building its share of the graph (pdfminer lays out
every page), and a rebuild after one changed file reads the whole folder again. So what a
costly reader made of a file (its title and blocks, or why it cannot be read) is kept in
``<cache>/documents/`` (:func:`judgeagent.files.cache_root`) under a key made of the file's
sha256 and the reader's identity: the source of this package's readers and the versions of
the libraries the reader names (``LIBRARIES``). A changed file, reader or library is
converted anew; an unchanged one is read from the cache. Only readers that declare
``CACHED = True`` are cached: a Markdown or text file reads as fast as its cache entry would.

A cache entry that cannot be read is converted again and overwritten; a cache that cannot
be written is no error (the conversion is kept in memory only).
"""

from __future__ import annotations

import hashlib
import json
import os
from functools import cache
from importlib import metadata, resources
from pathlib import Path
from types import ModuleType

from judgeagent.data.documents.base import Block, Converted, Unreadable
from judgeagent.files import cache_root

FORMAT = 1  # bump when what an entry holds changes


def cache_dir() -> Path:
    return cache_root() / "documents"


@cache
def _code() -> str:
    """sha256 of this package's modules: a change to any reader's rules converts files again."""
    h = hashlib.sha256()
    package = resources.files(__package__)
    for folder in (package, package / "readers"):
        for item in sorted(folder.iterdir(), key=lambda p: p.name):
            if item.name.endswith(".py"):
                h.update(item.name.encode() + b"\0" + item.read_bytes() + b"\0")
    return h.hexdigest()


def _version(package: str) -> str:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return "absent"


def key(reader: ModuleType, digest: str) -> str:
    """The cache key of a file with sha256 ``digest`` read by ``reader``."""
    libraries = {name: _version(name) for name in getattr(reader, "LIBRARIES", ())}
    identity = json.dumps([FORMAT, reader.__name__, _code(), libraries, digest], sort_keys=True)
    return hashlib.sha256(identity.encode()).hexdigest()


def _entry(converted: Converted | None, unreadable: str | None) -> dict:
    if converted is None:
        return {"unreadable": unreadable}
    return {"title": converted.title, "blocks": [[b.text, b.level] for b in converted.blocks]}


def _from_entry(data: dict) -> Converted:
    if "unreadable" in data:
        raise Unreadable(str(data["unreadable"]))
    return Converted(data["title"], tuple(Block(str(text), int(level)) for text, level in data["blocks"]))


def convert_cached(path: Path, reader: ModuleType, digest: str) -> Converted:
    """``reader.convert(path)``, or what it made of these bytes before. Raises Unreadable as the reader does."""
    if not getattr(reader, "CACHED", False):
        return reader.convert(path)
    entry = cache_dir() / f"{key(reader, digest)}.json"
    try:
        return _from_entry(json.loads(entry.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        pass  # not there yet, or unreadable: convert again
    try:
        converted = reader.convert(path)
    except Unreadable as why:
        _store(entry, _entry(None, str(why)))
        raise
    _store(entry, _entry(converted, None))
    return converted


def _store(entry: Path, data: dict) -> None:
    """Write the entry whole (a temporary file of this process, renamed), or not at all."""
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        tmp = entry.with_name(f"{entry.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
        os.replace(tmp, entry)
    except OSError:
        pass
