"""Cutting reference texts into chunks (docs/concepts/method.md §1, "Chunking").

A chunk is a paragraph, a few consecutive paragraphs, or a few sentences of one long
paragraph, kept under a token budget. The budget is counted in the embedding model's own
word-pieces (MiniLM's tokenizer, read from the installed model package), because a chunk
is embedded whole: MiniLM reads at most ``max_seq_length`` (256) word-pieces including its
two special tokens, and a budget counted in whitespace words (200 words are 260-300
word-pieces) let the tail of many chunks go unembedded. The budget is therefore capped at
:func:`max_chunk_tokens`. Word-piece counts add up across whitespace (the tokenizer splits
on it first), so a sentence or word is counted once and groups are summed.

Rules, in priority order:

1. No text is ever dropped or altered: every chunk is built from exact substrings of the
   input, so the whitespace-token sequence of the chunks equals that of the input.
2. A chunk stays within the budget. A single sentence longer than the budget on its own is
   cut at word boundaries into balanced pieces (only a lone word longer than the whole
   budget, which no prose has, can exceed it).
3. A paragraph over the budget is split at sentence boundaries into pieces of two or more
   sentences. A piece of one sentence is produced only when no split of that paragraph
   within the budget avoids it (it is the minimum possible number of lone sentences).
4. Consecutive short paragraphs (and pieces) are packed together up to the budget, so a
   run of one-line headings or short paragraphs does not become a run of tiny chunks.
5. A paragraph the caller marks as a heading (``headings=``, the indices of the headings of
   a converted document) never ends a chunk: it moves to the next chunk, with the text it
   heads, whenever the two fit the budget together.

Any token counter can be passed instead (``count=``); :func:`count_tokens` counts
whitespace tokens, which the rule tests use because they are easy to count by hand.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Collection
from typing import NamedTuple

from judgeagent import minilm
from judgeagent.data.benchmark import Chunk, Document

TokenCounter = Callable[[str], int]
SPECIAL_TOKENS = 2  # MiniLM wraps every input in [CLS] ... [SEP]

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
    """Whitespace tokens (the rule tests' counter)."""
    return len(text.split())


# The tokenizer lives with the model package's other files (judgeagent.minilm), which the
# embedder reads too: data must not import the graph layer for it.
_model_tokenizer = minilm.tokenizer


def count_model_tokens(text: str) -> int:
    """Word-pieces of ``text`` in the embedding model's tokenizer, special tokens excluded."""
    return minilm.count_wordpieces(text)


def count_model_tokens_batch(texts: list[str]) -> list[int]:
    """:func:`count_model_tokens` of many texts at once (the tokenizer runs them in parallel)."""
    return minilm.count_wordpieces_batch(texts)


def max_chunk_tokens() -> int:
    """The most word-pieces a chunk may hold and still be embedded whole (254 for MiniLM)."""
    return _model_tokenizer()[1] - SPECIAL_TOKENS


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


def chunk_paragraphs(
    paragraphs: list[str], budget: int, count: TokenCounter | None = None, headings: Collection[int] = ()
) -> list[str]:
    """Pack ``paragraphs`` into chunks of at most ``budget`` tokens.

    ``count`` counts a text's tokens; by default the embedding model's word-pieces, and
    then the budget is capped at :func:`max_chunk_tokens`. ``headings`` are the indices of
    the paragraphs that are headings. See the module docstring for the rules. Chunks made
    of several paragraphs (or pieces) join them with a blank line.
    """
    if budget < 1:
        raise ValueError(f"chunk budget must be at least 1 token, got {budget}")
    if count is None:
        count, budget = count_model_tokens, min(budget, max_chunk_tokens())
    units: list[_Unit] = []
    for k, paragraph in enumerate(paragraphs):
        paragraph = paragraph.strip()
        if not paragraph:
            continue
        size = count(paragraph)
        if size <= budget:
            units.append(_Unit(paragraph, size, k in headings))
        else:
            units.extend(_Unit(piece, n, False) for piece, n in _split_long_paragraph(paragraph, budget, count))
    return _pack(units, budget)


def chunk_document(
    doc_id: str, title: str, paragraphs: list[str], budget: int, count: TokenCounter | None = None,
    headings: Collection[int] = (),
) -> tuple[Document, list[Chunk]]:
    """One Document and its chunks, with chunk ids ``f"{doc_id}-c{k}"`` (k from 1)."""
    texts = chunk_paragraphs(paragraphs, budget, count, headings)
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


def _split_long_paragraph(paragraph: str, budget: int, count: TokenCounter) -> list[tuple[str, int]]:
    """(piece, size) pieces of an over-budget paragraph, each within the budget."""
    spans = sentence_spans(paragraph)
    sizes = [count(paragraph[a:b]) for a, b in spans]
    out: list[tuple[str, int]] = []
    for i, j in _best_grouping(sizes, budget):
        piece, size = paragraph[spans[i][0] : spans[j - 1][1]], sum(sizes[i:j])
        out.extend(_split_words(piece, budget, count) if size > budget else [(piece, size)])
    return out


def _split_words(sentence: str, budget: int, count: TokenCounter) -> list[tuple[str, int]]:
    """Cut an over-long sentence at word boundaries into the fewest balanced pieces.

    Needed because a chunk past the model's limit is embedded without its tail; with the
    fewest pieces of near-equal size, no piece is a scrap of a few words.
    """
    words = [(m.start(), m.end()) for m in re.finditer(r"\S+", sentence)]
    sizes = [count(sentence[a:b]) for a, b in words]
    target = sum(sizes) / math.ceil(sum(sizes) / budget)
    groups: list[list[int]] = [[]]
    size = 0
    for k, n in enumerate(sizes):
        if groups[-1] and (size + n > budget or size + n / 2 > target):
            groups.append([])
            size = 0
        groups[-1].append(k)
        size += n
    return [(sentence[words[g[0]][0] : words[g[-1]][1]], sum(sizes[k] for k in g)) for g in groups]


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
            current = best[j]
            if current is None or cost < current:
                best[j], back[j] = cost, i
    groups: list[tuple[int, int]] = []
    j = n
    while j > 0:
        groups.append((back[j], j))
        j = back[j]
    return groups[::-1]


class _Unit(NamedTuple):
    text: str
    size: int
    heading: bool


def _pack(units: list[_Unit], budget: int) -> list[str]:
    chunks: list[str] = []
    current: list[_Unit] = []
    for unit in units:
        if current and sum(u.size for u in current) + unit.size > budget:
            carried = _trailing_headings(current)
            if carried and len(carried) < len(current) and sum(u.size for u in carried) + unit.size <= budget:
                current = current[: len(current) - len(carried)]
            else:
                carried = []
            chunks.append(PARAGRAPH_JOINER.join(u.text for u in current))
            current = carried
        current.append(unit)
    if current:
        chunks.append(PARAGRAPH_JOINER.join(u.text for u in current))
    return chunks


def _trailing_headings(units: list[_Unit]) -> list[_Unit]:
    k = len(units)
    while k > 0 and units[k - 1].heading:
        k -= 1
    return units[k:]
