"""Word documents (.docx), read with python-docx.

python-docx gives each paragraph with its style, so a "Heading N" (or "Title") paragraph is
a heading of level N, and tables come in their place in the text; page headers and footers
live in other parts of the file and are never read. mammoth (which markitdown uses for
.docx) goes through HTML to get the same headings.
"""

from __future__ import annotations

import re
import zipfile
from pathlib import Path

from judgeagent.data.documents.base import Block, Converted, Unreadable, missing_library

SUFFIXES = (".docx",)
WHAT = "Word documents (.docx)"
CACHED = True  # python-docx unzips and parses the XML of the whole file
LIBRARIES = ("python-docx",)

_HEADING_STYLE = re.compile(r"heading\s*(\d)", re.IGNORECASE)


def convert(path: Path) -> Converted:
    try:
        import docx
        from docx.table import Table
        from docx.text.paragraph import Paragraph
    except ImportError:
        raise missing_library("python-docx", WHAT) from None
    if not zipfile.is_zipfile(path):
        raise Unreadable("not a .docx file (a .docx is a zip archive; an old binary .doc must be saved as .docx)")
    try:
        document = docx.Document(str(path))
        blocks: list[Block] = []
        for item in document.iter_inner_content():
            if isinstance(item, Paragraph):
                block = _paragraph(item)
                if block is not None:
                    blocks.append(block)
            elif isinstance(item, Table):
                rows = [" | ".join(" ".join(cell.text.split()) for cell in row.cells) for row in item.rows]
                text = "\n".join(r for r in rows if r.strip(" |"))
                if text:
                    blocks.append(Block(text))
        title = " ".join((document.core_properties.title or "").split()) or None
    except Exception as err:  # noqa: BLE001 - a parser fed arbitrary bytes raises anything
        raise Unreadable(f"damaged .docx ({type(err).__name__}: {str(err)[:80] or 'no detail'})") from None
    if not blocks:
        raise Unreadable("no text")
    return Converted(title, tuple(blocks))


def _paragraph(paragraph) -> Block | None:
    text = "\n".join(" ".join(line.split()) for line in paragraph.text.splitlines()).strip()
    if not text:
        return None
    style = (paragraph.style.name if paragraph.style is not None else "") or ""
    if style.lower() == "title":
        return Block(" ".join(text.split()), 1)
    match = _HEADING_STYLE.fullmatch(style.strip())
    if match:
        return Block(" ".join(text.split()), min(max(int(match.group(1)), 1), 6))
    return Block(text)
