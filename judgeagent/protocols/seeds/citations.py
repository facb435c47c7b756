"""Citations: the sentences of a seed's passages that support its key, cited by number.

The writer is shown its passages sentence by sentence, each with a number (one count across
the passages, split as the chunker splits sentences), and cites the numbers. A citation is
then the exact text of the sentence it names, so the copy can never be wrong; what is
checked is what a copy used to stand for:

- every number cited is one shown (a number the passages do not have drops the question);
- the cited sentences support the key: at least two thirds of the key's content words are
  stated in them (both of two, two of three)
  (a question whose key the cited sentences do not hold rests on something else, commonly
  on what the writer made up);
- a cited sentence is kept only if it is about the question: it shares a content word with
  the question or its key. A sentence cited beside the evidence (small writers list 1, 2, 3)
  is left out of the citations rather than sinking the question; with none left, the question
  is dropped. The key must then be stated in the sentences kept, so citing every sentence
  shown proves no more than the key being somewhere in the passages.

A question that fails any of them is dropped, never kept with a low score. A line too short
to state a fact (a heading, a caption) is shown without a number: it cannot be cited.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from importlib import resources

from judgeagent.data.chunking import split_paragraphs, split_sentences

MIN_WORDS = 4  # a line of one to three words ("Chronic kidney disease") states no fact: shown, not numbered
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


@dataclass(frozen=True)
class Sentence:
    """A numbered sentence of a slot's passages."""

    number: int  # from 1, counted across the passages
    passage: int  # 0-based position on the path
    text: str  # exactly as it stands in the chunk


@dataclass(frozen=True)
class Line:
    """A line of an excerpt as the writer sees it: a numbered sentence, or text that cannot be cited."""

    passage: int
    text: str
    number: int | None = None


@dataclass(frozen=True)
class Citation:
    """A cited sentence: the passage's position on the path, its chunk and the sentence's text."""

    passage: int  # 0-based position on the path
    chunk_id: str
    text: str  # the sentence, exactly as the chunk holds it


def normalize(text: str) -> str:
    """Case folded, every run of whitespace one space."""
    return " ".join(text.split()).casefold()


def lines(passages: Sequence[str]) -> list[Line]:
    """Every line of the passages in order: a sentence of :data:`MIN_WORDS` words or more gets
    the next number; a shorter line is shown without one."""
    out: list[Line] = []
    number = 0
    for i, passage in enumerate(passages):
        for paragraph in split_paragraphs(passage):
            for sentence in split_sentences(paragraph):
                if len(sentence.split()) >= MIN_WORDS:
                    number += 1
                    out.append(Line(i, sentence, number))
                else:
                    out.append(Line(i, sentence))
    return out


def numbered(passages: Sequence[str]) -> list[Sentence]:
    """The sentences that can be cited, by number."""
    return [Sentence(ln.number, ln.passage, ln.text) for ln in lines(passages) if ln.number is not None]


def excerpts_text(passages: Sequence[str], entities: Sequence[str]) -> str:
    """The passages as the writer sees them: each under its number and entity, one sentence a
    line, the citable ones with their number in brackets."""
    by_passage: dict[int, list[str]] = {i: [] for i in range(len(passages))}
    for ln in lines(passages):
        text = " ".join(ln.text.split())
        by_passage[ln.passage].append(f"[{ln.number}] {text}" if ln.number is not None else text)
    blocks = [f"Excerpt {i + 1} (about {entity}):\n" + "\n".join(by_passage[i]) for i, entity in enumerate(entities[: len(passages)])]
    return "\n\n".join(blocks)


@cache
def function_words() -> frozenset[str]:
    """Words that name nothing (function_words.txt beside this module): they never count as support."""
    text = (resources.files(__package__) / "function_words.txt").read_text(encoding="utf-8")
    return frozenset(w for line in text.splitlines() if not line.startswith("#") for w in line.split())


def _stem(word: str) -> str:
    """A light English stem, so that "kidneys" meets "kidney" and "blocked" meets "blocks"."""
    for suffix in ("ing", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            word = word[: -len(suffix)]
            break
    return word[:-1] if word.endswith("e") and len(word) > 3 else word


def _content(text: str) -> dict[str, str]:
    """Stem → word, for the words of ``text`` that name something (numbers included)."""
    stop = function_words()
    words = (re.sub(r"['’]s$", "", m.group(0).casefold()) for m in _WORD.finditer(text))  # "warfarin's" is warfarin
    return {_stem(w): w for w in words if w not in stop}


def content_words(text: str) -> set[str]:
    """The stems of the words of ``text`` that name something (numbers included)."""
    return set(_content(text))


def parse_number(cited: object) -> int | None:
    """The sentence number a writer gave: 3, "3", "[3]" or "sentence 3"; None when it holds none."""
    if isinstance(cited, bool):
        return None
    if isinstance(cited, int):
        return cited
    m = re.fullmatch(r"\s*\D{0,12}?(\d+)\W*", str(cited))
    return int(m.group(1)) if m else None


def verify(cited: Sequence[object], passages: Sequence[str], chunk_ids: Sequence[str], *, question: str, key: str) -> tuple[list[Citation], str | None]:
    """(the cited sentences, why the question must be dropped or None).

    At least one citation; every number one of the sentences shown; of the cited sentences,
    those about the question or its key are kept, and together they state two thirds of the
    key's content words."""
    if not cited:
        return [], "no citation"
    shown = {s.number: s for s in numbered(passages)}
    picked: dict[int, Sentence] = {}
    for c in cited:
        number = parse_number(c)
        sentence = shown.get(number) if number is not None else None
        if sentence is None:
            return [], f"citation {c!r} is not a sentence number of the excerpts (they are numbered 1 to {max(shown, default=0)})"
        picked.setdefault(sentence.number, sentence)
    asked = content_words(question) | content_words(key)
    about = [s for s in picked.values() if content_words(s.text) & asked]
    if not about:
        numbers = ", ".join(f"[{n}]" for n in picked)
        return [], f"cited sentences {numbers} share no word with the question or its answer: none is evidence for them"
    found = [Citation(s.passage, chunk_ids[s.passage], s.text) for s in about]
    why = unsupported(key, [f.text for f in found])
    return ([], why) if why else (found, None)


def unsupported(key: str, sentences: Sequence[str]) -> str | None:
    """Why the sentences do not support the key, or None: two thirds of the key's content words must
    be stated in them. A key of function words alone ("yes", "none of them") names nothing a
    sentence could state."""
    wanted = _content(key)
    if not wanted:
        return f"cited sentences cannot state the answer {key!r}: it names nothing"
    held = set().union(*(content_words(s) for s in sentences)) if sentences else set()
    missing = sorted(w for stem, w in wanted.items() if stem not in held)
    if 3 * (len(wanted) - len(missing)) < 2 * len(wanted):
        return f"cited sentences do not state the answer {key!r} (missing: {', '.join(missing)})"
    return None
