"""What a sentence names: an option, by its letter, its place in the list or its text."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class OptionRef:
    """One option named in a sentence: by letter, position or text."""

    letter: str
    question_id: str | None  # None: a letter that could belong to any question of the batch
    start: int
    end: int
    how: str  # "letter" | "bare letter" | "ordinal" | "text"
    # A text mention by its whole text, or by two of its distinctive words (all, if it has
    # one): enough to name it without a judgement. One word of a long option ("intention")
    # names it only when judged.
    whole: bool = True
