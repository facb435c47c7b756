"""What a paged document repeats on its pages and is not its text: running headers and
footers, and page numbers. Pure functions over laid-out text boxes, so they are tested
without a PDF.

A box counts as page furniture when it sits in the top or bottom band of its page and
either is a page number alone ("12", "- 12 -", "Page 12", "12 of 40", "iv"), or says the
same thing, digits aside and with a letter in it, in the same band on at least two pages.
"Digits aside" lets "Chapter 2 ... 17" and "Chapter 2 ... 18" match. Two pages, not most:
a book's running header changes with each chapter, and a chapter may be two pages long;
a letter is required so that a closing brace of code at the top of two pages stays.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

EDGE_BAND = 0.1  # the top and bottom tenth of a page: where running heads, feet and folios sit
MIN_REPEATS = 2

_PAGE_NUMBER = re.compile(
    r"[-–—\s]*(?:page|p\.|pp\.)?\s*(?:\d+|[ivxlcdm]+)(?:\s*(?:of|/)\s*\d+)?[-–—\s]*", re.IGNORECASE
)
_DIGITS = re.compile(r"\d+")


@dataclass(frozen=True)
class PageBox:
    """A block of text on a page; ``top`` and ``bottom`` are fractions of the page height
    measured from the top (0 at the top edge, 1 at the bottom)."""

    text: str
    top: float
    bottom: float
    size: float = 0.0  # the largest font size in the box, for headings


def band(box: PageBox) -> str | None:
    """'top' or 'bottom' when the box lies in that band of its page, else None."""
    if box.bottom <= EDGE_BAND:
        return "top"
    if box.top >= 1 - EDGE_BAND:
        return "bottom"
    return None


def is_page_number(text: str) -> bool:
    return _PAGE_NUMBER.fullmatch(text.strip()) is not None


def remove_furniture(pages: Sequence[Sequence[PageBox]]) -> list[list[PageBox]]:
    """Each page's boxes without running headers, footers and page numbers, order kept."""
    keys = [[_key(box) for box in page] for page in pages]
    seen: Counter[tuple[str, str]] = Counter()
    for page_keys in keys:
        seen.update({k for k in page_keys if k is not None})
    repeated = {k for k, n in seen.items() if n >= MIN_REPEATS and any(c.isalpha() for c in k[1])}
    out = []
    for page, page_keys in zip(pages, keys):
        kept = [box for box, k in zip(page, page_keys)
                if k is None or not (k in repeated or is_page_number(box.text))]
        out.append(kept)
    return out


def _key(box: PageBox) -> tuple[str, str] | None:
    where = band(box)
    if where is None or not box.text.strip():
        return None
    return where, " ".join(_DIGITS.sub("#", box.text).casefold().split())
