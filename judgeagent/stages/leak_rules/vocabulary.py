"""The word lists the rules read, as data files in ``lists/`` (shipped with the package).

Each file holds one entry per line; a line that starts with ``#`` is a comment. Two kinds:

* a *word list* (:func:`entries`): words or short phrases, read as a set;
* an *alternation* (:func:`alternation`): alternatives of a regular expression, joined by ``|``
  in the file's order (``rul(?:e|ed|es|ing)\\s+out`` is one line: ``\\s+`` between words, a
  group for the endings). The rules wrap it in their own ``\\b(?:...)\\b``.

Adding a word is editing a file; ``tests/test_leak_rules.py`` runs every rule's examples, so a
word that changes what a rule catches shows there.
"""

from __future__ import annotations

import functools
from pathlib import Path

LISTS = Path(__file__).with_name("lists")


@functools.cache
def entries(name: str) -> tuple[str, ...]:
    """The entries of ``lists/<name>.txt``, in the file's order."""
    lines = (LISTS / f"{name}.txt").read_text(encoding="utf-8").splitlines()
    return tuple(line.strip() for line in lines if line.strip() and not line.lstrip().startswith("#"))


def words(name: str) -> frozenset[str]:
    """``lists/<name>.txt`` as a set of words."""
    return frozenset(entries(name))


def alternation(name: str) -> str:
    """``lists/<name>.txt`` as the body of a regular-expression alternation (``a|b|c``)."""
    return "|".join(entries(name))
