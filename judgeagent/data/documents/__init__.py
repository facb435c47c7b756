"""A folder of documents (PDF, HTML, DOCX, Markdown, text) as a benchmark with no questions.

Each format is one module of :mod:`.readers` that declares ``SUFFIXES``, ``WHAT`` (how an
error names its files) and ``convert(path) -> Converted``; :data:`READERS` finds them, so a
new format is one new module there and nothing else names it (a costly one also says
``CACHED = True`` and its ``LIBRARIES``, for :mod:`.cache`). The loader is :mod:`.folder`.
"""

from __future__ import annotations

import importlib
import pkgutil
from pathlib import Path
from types import ModuleType

from judgeagent.data.documents import readers
from judgeagent.data.documents.base import Block, Converted, Unreadable
from judgeagent.data.documents.cache import convert_cached


def _readers() -> dict[str, ModuleType]:
    """Suffix → reader module, for every module of this package that declares SUFFIXES."""
    found: dict[str, ModuleType] = {}
    for info in pkgutil.iter_modules(readers.__path__):
        module = importlib.import_module(f"{readers.__name__}.{info.name}")
        for suffix in getattr(module, "SUFFIXES", ()):
            found[suffix] = module
    return found


READERS = _readers()


def reader_for(path: Path) -> ModuleType | None:
    return READERS.get(path.suffix.lower())


def convert_file(path: Path | str, digest: str | None = None) -> Converted:
    """One file as headings and paragraphs; :class:`Unreadable` says why it cannot be. With
    ``digest`` (the sha256 of its bytes) a costly reader's result is kept in the user's cache
    and read from there next time (:mod:`.cache`)."""
    path = Path(path)
    reader = reader_for(path)
    if reader is None:
        raise Unreadable(f"unknown type ({path.suffix or 'no extension'}; reads {known_types()})")
    try:
        return reader.convert(path) if digest is None else convert_cached(path, reader, digest)
    except OSError as err:
        raise Unreadable(f"cannot read the file ({err.strerror or err})") from None


def known_types() -> str:
    return ", ".join(sorted(READERS))


__all__ = ["READERS", "Block", "Converted", "Unreadable", "convert_file", "known_types", "reader_for"]
