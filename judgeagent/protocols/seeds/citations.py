"""Citations: the sentences of a seed's passages that support its key, checked to be there.

The writer copies each sentence with the number of its excerpt. A citation counts only if,
after whitespace and case are normalised, it appears in the passage it names, or (a wrong
number is a slip, not an invention) in another passage of the path, which is then recorded.
A question with one citation that is in none of its passages is dropped: a citation the
source does not hold is the commonest sign of a key the writer made up.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

MIN_WORDS = 4  # a citation of one or two words ("the kidney") is found anywhere and proves nothing


@dataclass(frozen=True)
class Cited:
    """A citation as the writer gave it."""

    excerpt: str  # the excerpt number, as text
    sentence: str


@dataclass(frozen=True)
class Citation:
    """A citation found in its passage: the passage's position on the path and its chunk."""

    passage: int  # 0-based position on the path
    chunk_id: str
    text: str  # the sentence as the writer copied it


def normalize(text: str) -> str:
    """Case folded, every run of whitespace one space."""
    return " ".join(text.split()).casefold()


def _number(excerpt: str) -> int | None:
    m = re.search(r"\d+", excerpt)
    return int(m.group(0)) - 1 if m else None


def verify(cited: Sequence[Cited], passages: Sequence[str], chunk_ids: Sequence[str]) -> tuple[list[Citation], str | None]:
    """(the citations found, why the question must be dropped or None).

    Every citation must be found; at least one is needed."""
    if not cited:
        return [], "no citation"
    normal = [normalize(p) for p in passages]
    found: list[Citation] = []
    for c in cited:
        sentence = normalize(c.sentence).strip(" \"'")
        if len(sentence.split()) < MIN_WORDS:
            return [], f"citation {c.sentence!r} is shorter than {MIN_WORDS} words"
        named = _number(c.excerpt)
        order = ([named] if named is not None and 0 <= named < len(normal) else []) + [i for i in range(len(normal)) if i != named]
        at = next((i for i in order if sentence in normal[i]), None)
        if at is None:
            where = f"excerpt {c.excerpt}" if named is not None and 0 <= named < len(normal) else "any excerpt"
            return [], f"citation not found in {where}: {c.sentence[:80]!r}"
        found.append(Citation(at, chunk_ids[at], c.sentence.strip()))
    return found, None
