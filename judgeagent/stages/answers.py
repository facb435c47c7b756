"""Reading and grading answers (pure functions; the LLM judge for KQA lives in grading.py).

Multiple choice: the target's reply is reduced to one option letter ("B", "b)",
"B. Coxsackie…", "The answer is (B)" → "B"); a reply that is exactly an option's text
maps to that option. Phrase QA: normalised exact match (case, punctuation, articles).
"""

from __future__ import annotations

import re
import string

_LETTER_PATTERNS = [
    re.compile(r"^\s*\(?([A-Za-z])\)?\s*$"),  # "B", "(b)"
    re.compile(r"^\s*\(?([A-Za-z])\s*[\).:\-]"),  # "B)", "b.", "B: text", "B - text"
    re.compile(r"answer\s*(?:is|:)?\s*(?:option\s*)?\(?([A-Za-z])\b\)?", re.I),  # "the answer is (B)"
    re.compile(r"^\s*option\s*\(?([A-Za-z])\b", re.I),
]


def normalize_letter(reply: str | None, options: dict[str, str]) -> str | None:
    """The option letter a reply chooses, or None when it names none of ``options``."""
    if not reply:
        return None
    text = str(reply).strip()
    letters = {k.upper() for k in options}
    for pat in _LETTER_PATTERNS:
        m = pat.search(text)
        if m and m.group(1).upper() in letters:
            return m.group(1).upper()
    norm = normalize_phrase(text)
    for letter, opt in options.items():
        if norm and norm == normalize_phrase(opt):
            return letter.upper()
    return None


_ARTICLES = re.compile(r"\b(a|an|the)\b")
_PUNCT = str.maketrans("", "", string.punctuation)


def normalize_phrase(text: str | None) -> str:
    """Lower-case, drop punctuation and articles, fold white space (SQuAD-style)."""
    if text is None:
        return ""
    text = str(text).lower().translate(_PUNCT)
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())


def phrase_match(reply: str | None, reference: str) -> bool:
    """Normalised exact match, also accepting a yes/no reference answered with a longer yes/no."""
    r, ref = normalize_phrase(reply), normalize_phrase(reference)
    if not r or not ref:
        return False
    if r == ref:
        return True
    if ref in ("yes", "no"):
        return r.split()[0] == ref
    return False
