"""PDF files, read with pdfminer.six.

pdfminer lays a page out into text boxes (a paragraph, a heading, a list) with their
position and font sizes, which is what keeps paragraphs apart and finds headings; readers
that return a page's text as lines (pypdfium2, and markitdown, which calls pdfminer's plain
text function) lose both. The comparison is on the Documents measurements page.

- Running headers, footers and page numbers go (:mod:`.pages`).
- A box is a heading when its largest font is at least 15% larger than the body text's
  (the size most characters have) and it is short; the largest such size is level 1.
- Lines of a box are joined into one paragraph; a word hyphenated across two lines is
  joined whole; a line that starts with a bullet or a number starts a new line.
- A table of contents or an index (boxes whose lines end, at least half of them, in dot
  leaders and a page number) goes: the chunks would hold titles and numbers, no content.
- A PDF that needs a password, one whose pages hold no text (a scan: run OCR first) and a
  damaged one cannot be read.
"""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

from judgeagent.data.documents.base import Block, Converted, Unreadable, missing_library
from judgeagent.data.documents.readers.pages import PageBox, remove_furniture

SUFFIXES = (".pdf",)
WHAT = "PDF files"
CACHED = True  # pdfminer lays out every page: about as costly as building the graph from it
LIBRARIES = ("pdfminer.six",)

HEADING_RATIO = 1.15
HEADING_MAX_WORDS = 20
MAX_LEVELS = 6

_TOC_LINE = re.compile(r"(?:\.\s?){4,}\s*\d+\s*$")
_LIST_ITEM = re.compile(r"^\s*(?:[•◦▪‣∙·\-*–]|\(?\d{1,3}[.)]|\(?[a-z][.)])\s+")


def convert(path: Path) -> Converted:
    with open(path, "rb") as f:
        if not f.read(1024).lstrip().startswith(b"%PDF"):
            raise Unreadable("not a PDF (no %PDF header)")
    pages, title = _layout(path)
    if not any(pages):
        raise Unreadable("no text layer (a scanned PDF? run OCR on it first)")
    pages = remove_furniture(pages)
    body = _body_size(pages)
    levels = _heading_levels(pages, body)
    blocks = []
    for page in pages:
        for box in page:
            if _is_contents(box.text):
                continue
            level = levels.get(round(box.size, 1), 0) if _short(box.text) and _has_letter(box.text) else 0
            text = _heading_text(box.text) if level else _paragraph_text(box.text)
            if text:
                blocks.append(Block(text, level))
    if not blocks:
        raise Unreadable("no text besides page headers and footers")
    return Converted(title, tuple(blocks))


def _layout(path: Path) -> tuple[list[list[PageBox]], str | None]:
    """Each page's text boxes in pdfminer's reading order, and the title the file declares."""
    try:
        from pdfminer.high_level import extract_pages
        from pdfminer.layout import LTChar, LTTextBox
        from pdfminer.pdfdocument import PDFEncryptionError
    except ImportError:
        raise missing_library("pdfminer.six", WHAT) from None
    pages: list[list[PageBox]] = []
    try:
        for page in extract_pages(path):
            height = page.height or 1.0
            boxes = []
            for item in page:
                if not isinstance(item, LTTextBox):
                    continue
                text = item.get_text().strip()
                if not text:
                    continue
                sizes = [ch.size for line in item for ch in line if isinstance(ch, LTChar)]
                boxes.append(PageBox(text, top=(height - item.y1) / height, bottom=(height - item.y0) / height,
                                     size=max(sizes, default=0.0)))
            pages.append(boxes)
    except PDFEncryptionError:
        raise Unreadable("encrypted (it needs a password)") from None
    except Exception as err:  # noqa: BLE001 - a parser fed arbitrary bytes raises anything
        raise Unreadable(f"damaged PDF ({type(err).__name__}: {str(err)[:80] or 'no detail'})") from None
    return pages, _declared_title(path)


def _declared_title(path: Path) -> str | None:
    """The document information's Title, when it holds one (many PDFs carry a tool's name or nothing)."""
    from pdfminer.pdfdocument import PDFDocument
    from pdfminer.pdfparser import PDFParser

    try:
        with open(path, "rb") as f:
            info = PDFDocument(PDFParser(f)).info
        raw = info[0].get("Title") if info else None
        if isinstance(raw, bytes):
            raw = raw.decode("utf-16") if raw.startswith(b"\xfe\xff") else raw.decode("latin-1")
        title = " ".join(str(raw).split()) if raw else ""
        return title or None
    except Exception:  # noqa: BLE001 - the title is a nicety: a damaged info dictionary is no reason to skip the file
        return None


def _body_size(pages: list[list[PageBox]]) -> float:
    weight: Counter[float] = Counter()
    for page in pages:
        for box in page:
            weight[round(box.size, 1)] += len(box.text)
    return weight.most_common(1)[0][0] if weight else 0.0


def _heading_levels(pages: list[list[PageBox]], body: float) -> dict[float, int]:
    """Font size → heading level, for sizes of short boxes clearly above the body size."""
    sizes = {round(b.size, 1) for page in pages for b in page
             if _short(b.text) and _has_letter(b.text) and b.size >= body * HEADING_RATIO}
    return {size: min(k, MAX_LEVELS) for k, size in enumerate(sorted(sizes, reverse=True), 1)}


def _is_contents(text: str) -> bool:
    lines = [line for line in text.splitlines() if line.strip()]
    return bool(lines) and sum(1 for line in lines if _TOC_LINE.search(line)) * 2 >= len(lines)


def _has_letter(text: str) -> bool:
    return any(c.isalpha() for c in text)


def _short(text: str) -> bool:
    return len(text.split()) <= HEADING_MAX_WORDS


def _heading_text(text: str) -> str:
    return " ".join(text.split())


def _paragraph_text(text: str) -> str:
    """The box's lines as one paragraph: soft hyphens at line ends joined, list items kept on their lines."""
    out = ""
    for raw in text.splitlines():
        line = " ".join(raw.split())
        if not line:
            continue
        if not out:
            out = line
        elif _LIST_ITEM.match(line):
            out += "\n" + line
        elif out.endswith("-") and len(out) > 1 and out[-2].isalpha() and line[:1].islower():
            out = out[:-1] + line
        else:
            out += " " + line
    return out
