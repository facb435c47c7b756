"""Cutting reference texts into chunks (method.md §1, "Chunking").

A chunk is a paragraph, a few consecutive paragraphs, or a few sentences of one long
paragraph, kept under a budget of whitespace tokens. Whitespace tokens are used instead of
a model tokenizer so that chunking is instant, deterministic and model-independent.

Rules, in priority order:

1. No text is ever dropped or altered: every chunk is built from exact substrings of the
   input, so the token sequence of the chunks equals the token sequence of the input.
2. A chunk stays within the budget. The only exception is a single sentence that is
   longer than the budget on its own: it becomes one chunk, uncut.
3. A paragraph over the budget is split at sentence boundaries into pieces of two or more
   sentences. A piece of one sentence is produced only when no split of that paragraph
   within the budget avoids it (it is the minimum possible number of lone sentences).
4. Consecutive short paragraphs (and pieces) are packed together up to the budget, so a
   run of one-line headings or short paragraphs does not become a run of tiny chunks.
"""

from __future__ import annotations

import re

from judgeagent.data.benchmark import Chunk, Document

PARAGRAPH_JOINER = "\n\n"

# A sentence ends at . ! ? or … (optionally followed by closing quotes or brackets), then
# whitespace, then something that can start a sentence.
_BOUNDARY = re.compile(r"""[.!?…]+["'”’)\]]*(?=\s+["'“‘(\[]?[A-Z0-9])""")
# Words after which a period does not end a sentence ("Dr. Smith", "e.g. Aspirin").
_ABBREVIATIONS = frozenset(
    "mr mrs ms dr prof sr jr st mt vs v fig figs no nos vol approx cf al e.g i.e ca esp "
    "dept inc ltd co corp gen gov sen rep rev sgt capt col lt jan feb mar apr jun jul aug "
    "sep sept oct nov dec u.s u.k".split()
)
_BLANK_LINE = re.compile(r"\n[ \t\r\f\v]*\n")


def split_paragraphs(text: str) -> list[str]:
    """Paragraphs of ``text``: blank-line separated, or one per line if it has no blank line.

    Paragraphs are stripped of surrounding whitespace; empty ones are left out.
    """
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    parts = _BLANK_LINE.split(text) if _BLANK_LINE.search(text) else text.split("\n")
    return [p.strip() for p in parts if p.strip()]


def count_tokens(text: str) -> int:
    return len(text.split())


def sentence_spans(paragraph: str) -> list[tuple[int, int]]:
    """(start, end) offsets of the sentences of ``paragraph``, covering all its words."""
    spans: list[tuple[int, int]] = []
    start = _skip_space(paragraph, 0)
    for match in _BOUNDARY.finditer(paragraph):
        end = match.end()
        if end <= start or _is_abbreviation(paragraph, match.start()):
            continue
        spans.append((start, end))
        start = _skip_space(paragraph, end)
    tail = paragraph[start:].rstrip()
    if tail:
        spans.append((start, start + len(tail)))
    return spans


def split_sentences(paragraph: str) -> list[str]:
    return [paragraph[a:b] for a, b in sentence_spans(paragraph)]


def chunk_paragraphs(paragraphs: list[str], budget: int) -> list[str]:
    """Pack ``paragraphs`` into chunks of at most ``budget`` whitespace tokens.

    See the module docstring for the rules. Chunks made of several paragraphs (or pieces)
    join them with a blank line.
    """
    if budget < 1:
        raise ValueError(f"chunk budget must be at least 1 token, got {budget}")
    units: list[str] = []
    for paragraph in paragraphs:
        paragraph = paragraph.strip()
        if not paragraph:
            continue
        if count_tokens(paragraph) <= budget:
            units.append(paragraph)
        else:
            units.extend(_split_long_paragraph(paragraph, budget))
    return _pack(units, budget)


def chunk_document(
    doc_id: str, title: str, paragraphs: list[str], budget: int
) -> tuple[Document, list[Chunk]]:
    """One Document and its chunks, with chunk ids ``f"{doc_id}-c{k}"`` (k from 1)."""
    texts = chunk_paragraphs(paragraphs, budget)
    chunks = [Chunk(id=f"{doc_id}-c{k}", doc_id=doc_id, text=t) for k, t in enumerate(texts, 1)]
    return Document(id=doc_id, title=title, chunk_ids=tuple(c.id for c in chunks)), chunks


def _skip_space(text: str, i: int) -> int:
    while i < len(text) and text[i].isspace():
        i += 1
    return i


def _is_abbreviation(text: str, period_at: int) -> bool:
    if text[period_at] != ".":
        return False
    word_start = period_at
    while word_start > 0 and not text[word_start - 1].isspace():
        word_start -= 1
    word = text[word_start:period_at].lstrip("\"'“‘([").lower()
    # A lone capital letter is an initial ("J. R. R. Tolkien"), not a sentence end.
    is_initial = len(word) == 1 and text[word_start:period_at][-1:].isupper()
    return word in _ABBREVIATIONS or is_initial


def _split_long_paragraph(paragraph: str, budget: int) -> list[str]:
    spans = sentence_spans(paragraph)
    sizes = [count_tokens(paragraph[a:b]) for a, b in spans]
    groups = _best_grouping(sizes, budget)
    return [paragraph[spans[i][0] : spans[j - 1][1]] for i, j in groups]


def _best_grouping(sizes: list[int], budget: int) -> list[tuple[int, int]]:
    """Split sentences [0, n) into consecutive groups (i, j) within the budget.

    Dynamic programming over prefixes minimising, in order: lone sentences that could
    have fitted with a neighbour, number of groups, and unevenness (sum of squared group
    sizes), so pieces come out balanced rather than greedy-full then tiny.
    """
    n = len(sizes)
    best: list[tuple[int, int, int] | None] = [None] * (n + 1)
    back = [0] * (n + 1)
    best[0] = (0, 0, 0)
    for j in range(1, n + 1):
        total = 0
        for i in range(j - 1, -1, -1):
            total += sizes[i]
            single = i == j - 1
            if total > budget and not single:
                break  # earlier starts only make the group longer
            prev = best[i]
            if prev is None:
                continue
            # An over-long sentence cannot share a chunk, so it is not a "lone" fault.
            lone = 1 if single and sizes[i] <= budget else 0
            cost = (prev[0] + lone, prev[1] + 1, prev[2] + total * total)
            if best[j] is None or cost < best[j]:
                best[j], back[j] = cost, i
    groups: list[tuple[int, int]] = []
    j = n
    while j > 0:
        groups.append((back[j], j))
        j = back[j]
    return groups[::-1]


def _pack(units: list[str], budget: int) -> list[str]:
    chunks: list[str] = []
    current: list[str] = []
    size = 0
    for unit in units:
        n = count_tokens(unit)
        if current and size + n > budget:
            chunks.append(PARAGRAPH_JOINER.join(current))
            current, size = [], 0
        current.append(unit)
        size += n
    if current:
        chunks.append(PARAGRAPH_JOINER.join(current))
    return chunks
