"""HTML pages, read with trafilatura.

trafilatura finds a page's main text and leaves out what surrounds it on every page of a
site (navigation, sidebars, headers, footers, cookie notices); markitdown and html2text
turn the whole page into text, navigation included. Its XML output keeps headings
(``<head rend="h2">``), paragraphs, lists, tables and code apart, which is what the
blocks here are made from. Its metadata extraction (title, date, author) is not asked for:
it tripled the time per page on Python's documentation, and the title is taken from the
page's first heading instead.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

from judgeagent.data.documents.base import Block, Converted, Unreadable, missing_library

SUFFIXES = (".html", ".htm", ".xhtml")
WHAT = "HTML pages"
CACHED = True  # trafilatura parses and scores the whole page
LIBRARIES = ("trafilatura", "lxml")

# Sphinx and MkDocs put a permalink sign after each heading.
_PERMALINKS = " ¶§\u00b6"


def convert(path: Path) -> Converted:
    try:
        import trafilatura
    except ImportError:
        raise missing_library("trafilatura", WHAT) from None
    raw = path.read_bytes()
    if b"\0" in raw[:4096]:
        raise Unreadable("binary data, not an HTML page")
    xml = trafilatura.extract(raw, output_format="xml", include_tables=True, include_comments=False,
                              include_links=False, include_images=False, with_metadata=False)
    if not xml:
        raise Unreadable("no main text found (the page holds only navigation, scripts or nothing)")
    root = ET.fromstring(xml)
    main = root.find("main")
    blocks = tuple(b for element in (main if main is not None else []) for b in _blocks(element))
    if not blocks:
        raise Unreadable("no main text found (the page holds only navigation, scripts or nothing)")
    return Converted(None, blocks)


def _blocks(element: ET.Element) -> list[Block]:
    tag = element.tag
    if tag == "head":
        text = _inline(element).rstrip(_PERMALINKS)
        rend = element.get("rend") or "h2"
        level = int(rend[1]) if len(rend) == 2 and rend[0] == "h" and rend[1].isdigit() else 2
        return [Block(text, min(max(level, 1), 6))] if text else []
    if tag == "list":
        items = [_inline(item) for item in element.iter("item")]
        text = "\n".join(f"- {t}" for t in items if t)
    elif tag == "table":
        rows = [" | ".join(_inline(cell) for cell in row.findall("cell")) for row in element.iter("row")]
        text = "\n".join(r for r in rows if r.strip(" |"))
    elif tag == "code":
        text = "".join(element.itertext()).strip("\n")
    else:  # p, quote and anything a later trafilatura adds: its text as one paragraph
        text = _inline(element)
    return [Block(text)] if text.strip() else []


def _inline(element: ET.Element) -> str:
    return " ".join("".join(element.itertext()).split())
