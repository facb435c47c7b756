"""The units a quantity may be written in (``lists/units.txt``: name, measure, size in the
measure's base unit, and an offset for temperatures), and the unit written after a number."""

from __future__ import annotations

import functools
import re

from judgeagent.stages.leak_rules.vocabulary import entries


@functools.cache
def units() -> tuple[tuple[str, str, float, float], ...]:
    rows = []
    for line in entries("units"):
        name, measure, size, *offset = line.split("\t")
        rows.append((name, measure, float(size), float(offset[0]) if offset else 0.0))
    return tuple(rows)


@functools.cache
def _pattern() -> re.Pattern:
    names = sorted({re.escape(name) for name, _, _, _ in units()}, key=len, reverse=True)
    return re.compile(r"\s*(?:-\s*)?(?P<u>" + "|".join(names) + r")(?![\w/])", re.IGNORECASE)


def unit_at(text: str, pos: int) -> tuple[str, str, float, float, int] | None:
    """(name, measure, size, offset, end) of the unit written right after ``pos``, if any."""
    m = _pattern().match(text, pos)
    if not m:
        return None
    name = m.group("u")
    for unit, measure, size, offset in units():
        if unit == name or (unit == name.lower() and len(unit) > 2):  # "KM" but never "M" for "m"
            return name, measure, size, offset, m.end()
    return None
