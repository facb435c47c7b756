"""Reading and grading answers (pure functions; the LLM judge for KQA lives in grading.py).

Multiple choice: the target's reply is reduced to one option letter ("B", "b)",
"B. Coxsackie…", "The answer is (B)" → "B"); a reply that is exactly an option's text
maps to that option. Phrase QA is graded the way the field grades it (SQuAD, HotpotQA):
exact match (EM) and token F1 after normalisation, and only the uncertain middle goes to the
LLM judge (:func:`score_phrase`).
"""

from __future__ import annotations

import functools
import re
import string
from collections import Counter
from dataclasses import dataclass

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
# ASCII punctuation as SQuAD drops it, and the typographic quotes, dashes and ellipsis that
# models and references write as often.
_PUNCT = str.maketrans("", "", string.punctuation + "\u2018\u2019\u201c\u201d\u201e\u00ab\u00bb\u2013\u2014\u2026")


def normalize_phrase(text: str | None) -> str:
    """Lower-case, drop punctuation and articles (a, an, the), fold white space (SQuAD-style)."""
    return "" if text is None else _normalized(str(text))


@functools.lru_cache(maxsize=65_536)  # the gate compares each new question with every earlier one
def _normalized(text: str) -> str:
    text = _ARTICLES.sub(" ", text.lower().translate(_PUNCT))
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


# ----------------------------------------------------------------------------- EM and F1
# A quoted nickname inside a name: Daniel Patrick "Pat" Moynihan, Daniel 'Pat' Moynihan.
# Single quotes count only between spaces, so that an apostrophe (O'Brien's) is not one.
_NICKNAME = re.compile(r"""["“”„«»]([^"“”„«»]{1,40})["“”„«»]|(?<=\s)['‘’]([^'‘’]{1,40})['‘’](?=\s)""")
# A parenthetical or bracketed aside: Mercury (planet), Robert (Bob) Smith, Paris [France].
_ASIDE = re.compile(r"\([^()]*\)|\[[^\[\]]*\]")


def answer_forms(text: str | None) -> list[str]:
    """The normalised ways a phrase may be written, its full form first.

    Besides the whole phrase: the phrase without its quoted nicknames and parenthetical
    asides ("Daniel Patrick Moynihan"), and, for a nickname followed by more of the name, the
    nickname with the rest ("Pat Moynihan"). A name and its aside are one answer, not a
    list of two, so the aside alone is never a form ("Paris (France)" is not "France").
    """
    if text is None:
        return []
    text = str(text)
    forms = [normalize_phrase(text), normalize_phrase(_ASIDE.sub(" ", _NICKNAME.sub(" ", text)))]
    for m in _NICKNAME.finditer(text):
        rest = _ASIDE.sub(" ", _NICKNAME.sub(" ", text[m.end():]))
        if normalize_phrase(rest):
            forms.append(normalize_phrase(f"{m.group(1) or m.group(2)} {rest}"))
    return [f for f in dict.fromkeys(forms) if f]


def exact_match(reply: str | None, reference: str | None) -> bool:
    """SQuAD exact match, taking the best pair of :func:`answer_forms`."""
    refs = set(answer_forms(reference))
    return any(form in refs for form in answer_forms(reply))


def _f1(pred: list[str], gold: list[str]) -> float:
    common = sum((Counter(pred) & Counter(gold)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(pred), common / len(gold)
    return 2 * precision * recall / (precision + recall)


def token_f1(reply: str | None, reference: str | None) -> float:
    """SQuAD token F1 (bag of normalised words), the best over pairs of :func:`answer_forms`."""
    return max((_f1(p.split(), g.split()) for p in answer_forms(reply) for g in answer_forms(reference)), default=0.0)


# ----------------------------------------------------------------------------- the bands
# F1 at or above F1_RIGHT: the same words in another order ("Moynihan, Daniel Patrick").
# Anything lower is left to the judge, because a word more or less can be the whole answer:
# "George W Bush" against "George H W Bush" has F1 0.86, and so has "not Daniel Patrick
# Moynihan" against "Daniel Patrick Moynihan"; no cut-off below 1 tells those from a
# shortened right answer ("Daniel Moynihan", 0.8). A nickname or an article needs no judge
# at all: normalisation and answer_forms make it an exact match.
F1_RIGHT = 1.0
# F1 at or below F1_WRONG: not one word in common under any form. The field's EM and F1 both
# score that 0; asking a judge there costs a request per answer and, with a weak judge, mostly
# adds false yeses. The known loss is a synonym with no shared word ("USA" against
# "America"); an abbreviation of the reference by its initials still goes to the judge.
# A verbose right answer ("it is located in Paris", F1 0.33) shares a word, so it is judged.
F1_WRONG = 0.0

# Normalised (normalize_phrase) ways of saying "this question has no answer".
NULL_ANSWERS = frozenset(
    {"insufficient information", "not enough information", "cannot be determined", "cannot be answered", "no information"}
)
_ABSTAINS = re.compile(
    r"\b(insufficient|not enough (information|data|evidence)|cannot be (determined|answered)|can not be (determined|answered)"
    r"|no information|unknown|unanswerable|not (known|determinable|answerable)|dont know|do not know)\b"
)


@dataclass(frozen=True)
class PhraseScore:
    """A phrase answer against its reference: the field's figures and the verdict they allow.

    ``correct`` is None when the figures cannot decide and the judge must; ``rule`` names
    what decided ("exact", "f1", "yes/no", "null", or "judge" when undecided).
    """

    em: bool
    f1: float
    correct: bool | None
    rule: str


def is_null_answer(text: str | None) -> bool:
    """Whether a reference says that its question has no answer (MultiHop-RAG's null queries)."""
    return normalize_phrase(text) in NULL_ANSWERS


def abstains(reply: str | None) -> bool:
    """Whether a reply declines to answer, in any of the usual phrasings."""
    return bool(_ABSTAINS.search(normalize_phrase(reply)))


def _initials(short: str, long: str) -> bool:
    """Whether one word abbreviates a phrase by its initials ("nyc" for "new york city")."""
    words = long.split()
    letters = {"".join(w[0] for w in words), "".join(w[0] for w in words if w not in ("of", "and", "for", "in"))}
    return " " not in short and len(words) > 1 and short in letters


def score_phrase(reply: str | None, reference: str) -> PhraseScore:
    """EM and F1 of ``reply``, and whether they settle it without the judge (see the bands above)."""
    em, f1 = exact_match(reply, reference), round(token_f1(reply, reference), 4)
    ref, r = normalize_phrase(reference), normalize_phrase(reply)
    if em:
        return PhraseScore(em, f1, True, "exact")
    if ref in ("yes", "no"):
        # Word overlap means nothing here ("Correct." shares no word with "Yes"): the reply's
        # first word decides, and any other phrasing goes to the judge.
        first = r.split()[:1]
        return PhraseScore(em, f1, first[0] == ref, "yes/no") if first in (["yes"], ["no"]) else PhraseScore(em, f1, None, "judge")
    if is_null_answer(reference) and abstains(reply):
        return PhraseScore(em, f1, True, "null")
    if f1 >= F1_RIGHT:
        return PhraseScore(em, f1, True, "f1")
    if f1 <= F1_WRONG and not (_initials(r, ref) or _initials(ref, r)):
        return PhraseScore(em, f1, False, "f1")
    return PhraseScore(em, f1, None, "judge")
