"""Options named by a standard symbol or formula: "Cu" for "Copper", "CO2" (or "CO₂") for "Carbon
dioxide", "PVC" for "Polyvinyl chloride". The symbols are data (``lists/symbols.txt``); an
option's own short form in brackets is :mod:`mentions`' to read."""

from __future__ import annotations

import functools
import re

from judgeagent.stages.leak_rules.text import compiled, folded_span
from judgeagent.stages.leak_rules.vocabulary import entries

_SUBSCRIPTS = str.maketrans("₀₁₂₃₄₅₆₇₈₉", "0123456789")
# British and American spellings of one substance read as one.
_SPELLINGS = (("sulph", "sulf"), ("aluminum", "aluminium"), ("cesium", "caesium"), ("polyethene", "polyethylene"))


@functools.lru_cache(maxsize=4096)  # every option of the batch, for every sentence checked
def _name(text: str) -> str:
    """A substance's name as compared: lower case, no gloss in brackets, one spelling."""
    name = re.sub(r"\s+", " ", re.sub(r"\([^)]*\)", " ", text.translate(_SUBSCRIPTS))).strip(" .").lower()
    for variant, kept in _SPELLINGS:
        name = name.replace(variant, kept)
    return name


@functools.cache
def _symbols_by_name() -> dict[str, tuple[str, ...]]:
    by_name: dict[str, list[str]] = {}
    for line in entries("symbols"):
        symbol, name = line.split("\t")
        by_name.setdefault(_name(name), []).append(symbol)
    return {name: tuple(symbols) for name, symbols in by_name.items()}


def symbol_spans(sentence: str, option: str, asked: str) -> list[tuple[int, int]]:
    """Where ``sentence`` writes ``option`` by its symbol or formula, unless the batch's questions
    (``asked``, their texts) write it too (then it is their word, as with a short form in brackets)."""
    symbols = _symbols_by_name().get(_name(option), ())
    if not symbols:
        return []
    written = sentence.translate(_SUBSCRIPTS)  # one character for one: the spans still fit
    asked = asked.translate(_SUBSCRIPTS)
    spans = []
    for symbol in symbols:
        pattern = compiled(r"(?<![\w-])" + re.escape(symbol) + r"(?![\w-]|\.\w)")
        if not pattern.search(asked):
            spans += [folded_span(sentence, *m.span()) for m in pattern.finditer(written) if not _in_a_unit(written, *m.span())]
    return spans


def _in_a_unit(sentence: str, start: int, end: int) -> bool:
    """Whether the symbol is part of a unit ("mg KOH per gram", "ppm CO2"): a measure, not a pick."""
    return re.search(r"(?<![\w-])(?:µg|mg|g|kg|mol|mmol|ppm|ppb|%)\s*$", sentence[:start]) is not None or re.match(r"\s*(?:per|/)\b", sentence[end:]) is not None
