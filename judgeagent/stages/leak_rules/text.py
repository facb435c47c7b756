"""Text as the rules read it: sentences, words with their stems and places, and how common a
word is in general English."""

from __future__ import annotations

import functools
import re
import unicodedata

from judgeagent.stages.answers import normalize_phrase
from judgeagent.stages.leak_normalize import fold, stem, tokens
from judgeagent.stages.leak_rules.vocabulary import entries, words


@functools.lru_cache(maxsize=4096)
def compiled(source: str) -> re.Pattern:
    """``source`` compiled once. For the patterns built from a question's, an option's or a word's
    text: re's own cache holds 512 patterns, and a batch's built patterns overflowed it, so they
    and the fixed patterns read through ``re.search`` were compiled again and again."""
    return re.compile(source)


# Answer texts too short or too generic to identify anything when mentioned.
_GENERIC_ANSWERS = words("generic_answers")
_MIN_ANSWER_CHARS = 3
# Words that never single out an option on their own: grammar, and class nouns ("disease", "drug").
STOP = frozenset(tokens(" ".join(entries("stop_words"))))
# Words that name nothing, never a distinctive word of an option ("how", "which", "could").
FUNCTION = frozenset(tokens(" ".join(entries("function_words"))))

_SENTENCE = re.compile(r"[^.!?;\n]+(?:[.!?;]+|$)")
_WHOLE_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|$)")

# The full stop of an initial or an abbreviation ("E. M. Forster", "C. S. Lewis", "E. coli"),
# which ends no sentence: held as a one-dot leader while the text is split. A capital with a
# full stop before another sentence ("... which is B. Then ...") is not one of these.
# A decimal point ("0.001 mol/L") ends no sentence either, nor do the stops of a lower-case
# abbreviation ("a.m.", "e.g.", "i.e.", "var.", "approx."), unless a capital follows ("... at 3 p.m. Then ...").
_INITIAL_STOP = re.compile(
    r"(?<![\w'’])([A-Z])\.(?=\s*[A-Z]\.|\s+[a-z])|(?<=(?<![\w'’])[A-Z]\.\s)([A-Z])\.(?=\s+[A-Z])|(?<=\d)()\.(?=\d)"
    r"|(?<=(?<![\w'’])[a-z])()\.(?=[a-z]\.)|(?<=(?<![\w'’])[a-z]\.[a-z])()\.(?=\s*[,;:)]|\s+[a-z0-9])"
    # ("Bacillus subtilis var. natto", "approx. two hours", "cf. the notice")
    r"|(?:" + "|".join(rf"(?<=(?<![\w'’]){a})" for a in ("var", "subsp", "ssp", "spp", "sp", "cv", "cf", "approx", "vs", "ca", "esp", "incl", "fig"))
    + r")()\.(?=\s+[a-z0-9])"
)
_HELD_STOP = "\u2024"


def sentences(text: str) -> list[str]:
    """The sentences of ``text`` (split at . ! ? ; and line ends, never after an initial)."""
    return list(_split(text, _SENTENCE))


# What may open a line of a feedback before its advice: a bullet or a number, and a label ("Q1:",
# "Sponge timing:", "Q2 –"). Rules that read a sentence from its start read it without them too.
# A clause before a colon that opens with a verb or a pronoun is advice, not a label ("Compare A
# and C: ...", "Recall the definition: ...").
_MARK = re.compile(r"^\s*(?:[-•*–—]\s*|\(?\d{1,2}[.)]\s+|\(?[a-e]\)\s+)?")
_LABEL = re.compile(r"(?:Q\d{1,2}|Question\s+\d{1,2})\s*[:.)–—-]\s*|(?P<first>[A-Z][\w'’/-]*)(?:\s+[\w'’/-]+){0,3}?\s*:\s+")
_OPENERS = frozenset(entries("sentence_openers"))


def unlabelled(sentence: str) -> str:
    """``sentence`` without the bullet, number or label that opens it."""
    mark = _MARK.match(sentence)
    start = mark.end() if mark else 0
    label = _LABEL.match(sentence, start)
    if label and (label.group("first") or "").casefold() not in _OPENERS:
        start = label.end()
    return sentence[start:]


def whole_sentences(text: str) -> list[str]:
    """The sentences of ``text`` with their clauses after a semicolon kept (split at . ! ? and
    line ends, never after an initial): what the learned layer reads one by one in a long
    feedback. A clause read alone is short, and the model reads any short text much as it reads
    "Go with C.", the typical short give-away."""
    return list(_split(text, _WHOLE_SENTENCE))


@functools.lru_cache(maxsize=4096)  # every layer and rule of a check splits the same text
def _split(text: str, sentence: re.Pattern) -> tuple[str, ...]:
    held = _INITIAL_STOP.sub(lambda m: (m.group(1) or m.group(2) or "") + _HELD_STOP, text)
    return tuple(m.group(0).strip().replace(_HELD_STOP, ".") for m in sentence.finditer(held) if m.group(0).strip())


def word_spans(sentence: str) -> list[tuple[str, str, int, int]]:
    """(folded word, stem, start, end) of each word of the sentence, articles kept out."""
    folded = fold(sentence)
    out = []
    for m in re.finditer(r"[a-z0-9]+", folded):
        w = m.group(0)
        if w in ("a", "an", "the"):
            continue
        out.append((w, stem(w), m.start(), m.end()))
    return out


# A phrase answer given with a second form in brackets: "seasonal performance factor (SPF)",
# "Tolman-Oppenheimer-Volkoff limit (TOV limit)", "about 100 °C (or slightly above)".
_BRACKETED = re.compile(r"^(?P<main>[^()]+?)\s*\((?P<other>[^()]+)\)\s*$")


def bracketed(phrase: str) -> tuple[str, str] | None:
    """(main form, bracketed form) of a phrase answer written "main (other)", or None."""
    m = _BRACKETED.match(phrase.strip())
    return (m.group("main"), m.group("other").strip()) if m else None


@functools.lru_cache(maxsize=65_536)  # asked of every option of the batch for every sentence
def identifying(text: str) -> bool:
    """Whether an answer or option text is specific enough that its mention gives it away."""
    norm = normalize_phrase(text)
    return len(norm.replace(" ", "")) >= _MIN_ANSWER_CHARS and norm not in _GENERIC_ANSWERS


@functools.lru_cache(maxsize=16_384)  # re's own cache holds 512: a large run names thousands of options
def mention(text: str) -> re.Pattern:
    """Case-folded whole-word occurrences of ``text``, with any white space between its words."""
    words = [re.escape(w) for w in text.casefold().split()]
    return re.compile(r"(?<!\w)" + r"\s+".join(words) + r"(?!\w)")


# A word at least this frequent in general English (wordfreq's Zipf scale, log10 of uses per
# billion words: "deep" 5.1, "cost" 5.2, "time" 6.3) is everyday English; "median" 4.1,
# "Newton" 3.9 and "Westphalia" 2.6 name something.
_COMMON_ZIPF = 4.5
# One word of an option this frequent is the sentence's own ("different" 5.5, "know" 6.3), not a
# mention of the option; "surgery" (4.6) and "English" (5.2, a whole option) still name theirs.
EVERYDAY_ZIPF = 5.0


@functools.lru_cache(maxsize=65_536)
def common_word(word: str) -> bool:
    """Whether a folded word is a common word of general English (see :data:`_COMMON_ZIPF`)."""
    return zipf(word) >= _COMMON_ZIPF


@functools.lru_cache(maxsize=65_536)
def zipf(word: str) -> float:
    """How common a folded word is in general English (wordfreq's Zipf scale)."""
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en")


def cased_words(sentence: str, n: int) -> list[str]:
    """The words of ``sentence`` as written (accents and apostrophes dropped, case kept), one per
    word of :func:`word_spans`; all lower case when the two do not line up."""
    text = unicodedata.normalize("NFKD", sentence)
    text = re.sub(r"['’‘`´]", "", "".join(ch for ch in text if not unicodedata.combining(ch)))
    out = [w for w in re.findall(r"[A-Za-z0-9]+", text) if w.lower() not in ("a", "an", "the")]
    return out if len(out) == n else [""] * n


def folded_span(sentence: str, lo: int, hi: int) -> tuple[int, int]:
    """A span of ``sentence`` as written, in its folded form (:func:`fold` drops apostrophes),
    where every mention of an option by its text is."""
    return len(fold(sentence[:lo])), len(fold(sentence[:hi]))
