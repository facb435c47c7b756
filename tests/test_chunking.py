"""Chunking rules, checked with whitespace tokens (easy to count by hand), and the default
budget in MiniLM word-pieces."""

import functools
import itertools
import random
from pathlib import Path

import pytest

from judgeagent.data import chunking
from judgeagent.data.chunking import (
    chunk_document,
    count_model_tokens,
    count_tokens,
    max_chunk_tokens,
    split_paragraphs,
    split_sentences,
)

# The rule tests count whitespace tokens; the model's own budget has its tests at the end.
chunk_paragraphs = functools.partial(chunking.chunk_paragraphs, count=count_tokens)

WORDS = "alpha beta gamma delta epsilon zeta theta iota kappa lambda sigma omega".split()


def sentence(rng: random.Random, n_tokens: int) -> str:
    words = [rng.choice(WORDS) for _ in range(n_tokens)]
    return " ".join(words).capitalize() + "."


def paragraph(rng: random.Random, sizes: list[int]) -> str:
    return " ".join(sentence(rng, n) for n in sizes)


def tokens(texts: list[str]) -> list[str]:
    return " ".join(texts).split()


def is_lone_sentence(chunk: str, paragraphs: list[str], budget: int) -> bool:
    """One whole sentence cut out of a longer paragraph, though it could have shared a chunk."""
    return (
        any(chunk in split_sentences(p) for p in paragraphs)
        and chunk not in paragraphs
        and len(chunk.split()) <= budget
    )


def check_invariants(paragraphs: list[str], budget: int) -> list[str]:
    chunks = chunk_paragraphs(paragraphs, budget)
    assert tokens(chunks) == tokens(paragraphs), "text was lost, reordered or altered"
    for chunk in chunks:
        n = len(chunk.split())
        assert n <= budget, f"{n} tokens over budget {budget}"
    return chunks


# -- split_paragraphs ---------------------------------------------------------------


def test_split_paragraphs_on_blank_lines():
    text = "First para\nstill first.\n\nSecond para.\n   \n\n  Third.  \n"
    assert split_paragraphs(text) == ["First para\nstill first.", "Second para.", "Third."]


def test_split_paragraphs_falls_back_to_lines():
    assert split_paragraphs("One.\nTwo.\r\nThree.\n") == ["One.", "Two.", "Three."]


def test_split_paragraphs_empty():
    assert split_paragraphs("") == []
    assert split_paragraphs(" \n\n \n") == []


# -- split_sentences ----------------------------------------------------------------


def test_split_sentences_basic_and_punctuation():
    text = 'It rained. Did it stop? "Yes!" she said. Then 3 boats left.'
    assert split_sentences(text) == ["It rained.", "Did it stop?", '"Yes!" she said.', "Then 3 boats left."]


def test_split_sentences_keeps_abbreviations_initials_and_decimals():
    text = "Dr. Lee gave 2.5 mg, e.g. Aspirin. J. R. Smith agreed. Done."
    assert split_sentences(text) == ["Dr. Lee gave 2.5 mg, e.g. Aspirin.", "J. R. Smith agreed.", "Done."]


def test_split_sentences_without_final_period():
    assert split_sentences("First one. and no end") == ["First one. and no end"]
    assert split_sentences("First one. Second without end") == ["First one.", "Second without end"]


# -- chunk_paragraphs ---------------------------------------------------------------


def test_short_paragraphs_are_packed_up_to_budget():
    paras = ["Heading", "A short paragraph of six words.", "Another one with five words.", "x " * 8]
    chunks = check_invariants(paras, budget=14)
    assert chunks == ["Heading\n\nA short paragraph of six words.\n\nAnother one with five words.", "x x x x x x x x"]


def test_a_heading_moves_to_the_next_chunk_with_the_text_it_heads():
    paras = ["Intro", "one two three four five", "Setup", "six seven eight nine", "Use", "ten"]
    count = chunking.count_tokens
    # Unmarked, the heading "Use" ends the second chunk, away from its text.
    assert chunk_paragraphs(paras, budget=6, count=count) == [
        "Intro\n\none two three four five", "Setup\n\nsix seven eight nine\n\nUse", "ten"]
    assert chunk_paragraphs(paras, budget=6, count=count, headings={0, 2, 4}) == [
        "Intro\n\none two three four five", "Setup\n\nsix seven eight nine", "Use\n\nten"]
    # A heading and its text that do not fit one chunk together: the heading stays behind.
    assert chunk_paragraphs(["a b", "Title", "c d e f g h"], budget=6, count=count, headings={1}) == [
        "a b\n\nTitle", "c d e f g h"]


def test_paragraph_within_budget_is_never_split():
    rng = random.Random(1)
    para = paragraph(rng, [5, 5, 5, 5])
    assert chunk_paragraphs([para], budget=20) == [para]


def test_long_paragraph_splits_into_multi_sentence_pieces():
    rng = random.Random(2)
    para = paragraph(rng, [10] * 9)  # 90 tokens, budget 40: pieces of 2-4 sentences
    chunks = check_invariants([para], budget=40)
    assert len(chunks) >= 3
    for chunk in chunks:
        assert len(split_sentences(chunk)) >= 2
        assert para.find(chunk) >= 0, "a piece is an exact substring of its paragraph"


def test_pieces_are_balanced_not_greedy():
    rng = random.Random(3)
    para = paragraph(rng, [10] * 5)  # greedy at budget 40 would give 4 + 1 sentences
    chunks = check_invariants([para], budget=40)
    assert sorted(len(split_sentences(c)) for c in chunks) == [2, 3]


def test_over_long_sentence_is_cut_into_balanced_word_pieces():
    rng = random.Random(4)
    long_sentence = sentence(rng, 30)
    para = " ".join([sentence(rng, 4), sentence(rng, 4), long_sentence, sentence(rng, 4), sentence(rng, 4)])
    chunks = check_invariants([para], budget=12)
    pieces = [c for c in chunks if c in long_sentence]
    # 30 tokens at a budget of 12: the fewest pieces is 3, of 10 tokens each.
    assert [len(c.split()) for c in pieces] == [10, 10, 10]
    assert " ".join(pieces) == long_sentence
    assert not any(is_lone_sentence(c, [para], 12) for c in chunks)


def test_text_without_sentence_boundaries_is_cut_at_words():
    blob = " ".join(["word"] * 50)  # no sentence boundary at all
    assert chunk_paragraphs([blob], budget=10) == [" ".join(["word"] * 10)] * 5


def test_empty_input_and_bad_budget():
    assert chunk_paragraphs([], 10) == []
    assert chunk_paragraphs(["", "   "], 10) == []
    with pytest.raises(ValueError):
        chunk_paragraphs(["text"], 0)


@pytest.mark.parametrize("seed", range(40))
def test_random_texts_keep_invariants(seed):
    rng = random.Random(seed)
    budget = rng.choice([15, 30, 60, 200])
    paras = [paragraph(rng, [rng.randint(1, budget // 3) for _ in range(rng.randint(1, 12))]) for _ in range(rng.randint(1, 8))]
    chunks = check_invariants(paras, budget)
    # With every sentence at most a third of the budget, pairs and a final triple always
    # fit, so no sentence should ever be left alone.
    assert not [c for c in chunks if is_lone_sentence(c, paras, budget)]


@pytest.mark.parametrize("seed", range(60))
def test_lone_sentences_only_when_unavoidable(seed):
    """Compare with brute force over every split of a paragraph that respects the budget."""
    rng = random.Random(100 + seed)
    budget = rng.randint(4, 12)
    sizes = [rng.randint(1, budget + 3) for _ in range(rng.randint(2, 8))]
    para = paragraph(rng, sizes)
    chunks = check_invariants([para], budget)
    if sum(sizes) <= budget:
        assert chunks == [para]
        return
    got = sum(1 for c in chunks if is_lone_sentence(c, [para], budget))
    if max(sizes) <= budget:
        assert got == min_lone_sentences(sizes, budget)
    else:
        # Pieces of an over-long sentence may pack with a lone neighbour: never more.
        assert got <= min_lone_sentences(sizes, budget)


def min_lone_sentences(sizes: list[int], budget: int) -> int:
    n = len(sizes)
    best = n
    for cuts in itertools.product([False, True], repeat=n - 1):
        groups, current = [], [sizes[0]]
        for size, cut in zip(sizes[1:], cuts):
            if cut:
                groups.append(current)
                current = []
            current.append(size)
        groups.append(current)
        if all(sum(g) <= budget or len(g) == 1 for g in groups):
            best = min(best, sum(1 for g in groups if len(g) == 1 and g[0] <= budget))
    return best


def test_chunk_document_ids():
    doc, chunks = chunk_document("d1", "Title", ["One two.", "Three four five."], budget=3, count=count_tokens)
    assert [c.id for c in chunks] == ["d1-c1", "d1-c2"]
    assert doc.chunk_ids == ("d1-c1", "d1-c2")
    assert all(c.doc_id == "d1" for c in chunks)


# -- the default budget: MiniLM word-pieces ----------------------------------------------


def test_model_tokens_are_minilm_word_pieces():
    # "warfarin" is four word-pieces (war ##far ##in ...), punctuation is its own piece.
    assert count_model_tokens("Warfarin.") == len(chunking._model_tokenizer()[0].encode("Warfarin.", add_special_tokens=False).ids)
    assert count_model_tokens("the heart") == 2
    assert count_model_tokens("the heart, the lung") == 5
    assert max_chunk_tokens() == 254  # max_seq_length 256 less [CLS] and [SEP]


def test_default_budget_counts_word_pieces_and_is_capped_at_the_model_limit():
    words = ["thromboembolism"] * 300  # several word-pieces per whitespace word
    per_word = count_model_tokens("thromboembolism")
    assert per_word > 1
    chunks = chunking.chunk_paragraphs([" ".join(words) + "."], budget=10_000)
    assert all(count_model_tokens(c) <= 254 for c in chunks)
    assert sum(len(c.split()) for c in chunks) == 300
    assert len(chunks) == -(-(300 * per_word + 1) // 254)  # the fewest pieces that fit


def test_demo_chunks_fit_the_model():
    from judgeagent.data import load_benchmark

    root = Path(__file__).resolve().parents[1] / "data"
    for name in ("medqa-demo", "multihop-demo", "quality-demo"):
        chunks = load_benchmark(root / name).chunks
        sizes = chunking.count_model_tokens_batch([c.text for c in chunks])
        assert max(sizes) <= 200, name  # the default budget of 200 word-pieces holds
