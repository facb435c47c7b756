"""Generic entities: everyday words that name nothing in particular ("time", "year", "way").

A noun-chunk extractor keeps every common noun that stands alone, and the commonest ones
are in so many chunks that a knowledge path pivoting on them goes anywhere. Whether a word
is generic depends on the corpus, though: "heart", "blood" and "pain" are everyday English,
yet in a medical corpus they are what the questions are about. So a single word is generic
when it is common in general English (``wordfreq``'s Zipf frequency of at least
:data:`ZIPF_MIN`) *and* this corpus does not use it clearly more than general English would:

- expected: the number of chunks that would hold the word if the corpus used it at its
  general-English rate p, Σ over chunks of 1 − exp(−p · words in the chunk);
- observed: the chunks where it is a word of some entity ("heart" in "heart failure"
  counts too, since the extractor names the compound, not the word);
- domain word: observed ≥ :data:`MIN_CHUNKS` and observed ≥ :data:`LIFT_MIN` × expected.

Measured on the 80-chunk medqa-demo (observed ÷ expected): kidney 558, patient 107, dose
31, heart 24, blood 12 are kept; time 0.18, way 0.16, day, man, point and group are generic.
The words nearest the threshold of 5 are "lower" 5.0 and "release" 5.3 (kept) and "result"
4.3, "damage" 4.1 and "brain" 3.7 (dropped): below 5 sit words a textbook uses no more than
any prose does. A word seen in a single chunk cannot show that it is characteristic of the
corpus (of a thousand common words each expected 0.1 times, a hundred turn up once by
chance), hence the minimum of 2; on the demo
that drops "fever", "withdrawal" and "mg", each in one chunk. 48 common words survive there.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

ZIPF_MIN = 4.0  # about once per 100,000 words of general English ("accordance" 4.1, "time" 6.3)
LIFT_MIN = 5.0
MIN_CHUNKS = 2


def zipf(word: str) -> float:
    from wordfreq import zipf_frequency

    return zipf_frequency(word, "en")


def generic_names(chunk_entities: Sequence[Sequence[str]], chunk_words: Sequence[int]) -> set[str]:
    """The entity names of this corpus that are generic (see the module docstring)."""
    candidates = {}
    for ents in chunk_entities:
        for name in ents:
            if name not in candidates and name.isalpha():  # one plain word, no digits or hyphens
                candidates[name] = zipf(name)
    candidates = {n: z for n, z in candidates.items() if z >= ZIPF_MIN}
    if not candidates:
        return set()
    observed = _chunks_with_word(chunk_entities, set(candidates))
    lengths, counts = np.unique(np.asarray(chunk_words, dtype=np.float64), return_counts=True)
    generic = set()
    for name, z in candidates.items():
        rate = 10.0 ** (z - 9.0)  # Zipf frequency is log10 of occurrences per billion words
        expected = float(np.sum(counts * -np.expm1(-rate * lengths)))
        if not is_domain_word(observed[name], expected):
            generic.add(name)
    return generic


def is_domain_word(observed: int, expected: float) -> bool:
    """Whether a common word is used in this corpus clearly more than in general English."""
    return observed >= MIN_CHUNKS and observed >= LIFT_MIN * expected


def _chunks_with_word(chunk_entities: Sequence[Sequence[str]], words: set[str]) -> dict[str, int]:
    out = dict.fromkeys(words, 0)
    for ents in chunk_entities:
        for w in {w for name in ents for w in name.split(" ")} & words:
            out[w] += 1
    return out
