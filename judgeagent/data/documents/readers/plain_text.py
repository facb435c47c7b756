"""Plain-text files: paragraphs are separated by blank lines (by line breaks when there is none).

Read as UTF-8, or as Windows-1252 when the bytes are not UTF-8 (older files often are);
a file with NUL bytes is binary, not text. A plain-text file has no headings.
"""

from __future__ import annotations

from pathlib import Path

from judgeagent.data.chunking import split_paragraphs
from judgeagent.data.documents.base import Block, Converted, Unreadable

SUFFIXES = (".txt", ".text")
WHAT = "text files"


def convert(path: Path) -> Converted:
    blocks = tuple(Block(p) for p in split_paragraphs(read_text(path)))
    if not blocks:
        raise Unreadable("empty")
    return Converted(None, blocks)


def read_text(path: Path) -> str:
    raw = path.read_bytes()
    if b"\0" in raw[:8192]:
        raise Unreadable("binary data, not text")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        pass
    try:
        return raw.decode("cp1252")
    except UnicodeDecodeError:
        raise Unreadable("neither UTF-8 nor Windows-1252 text") from None
