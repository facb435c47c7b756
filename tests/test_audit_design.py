"""The audit's sampling design (judgeagent/audit/design.py): strata by level and by blocks of
batches, proportional allocation with at least two per stratum, inclusion probabilities,
and a draw fixed by its seed."""

from __future__ import annotations

import pytest

from judgeagent.audit.design import Design, DesignError, Unit, allocate, blocks, draw


def population(levels: dict[str, int], batches: int, rejected: int = 0) -> list[Unit]:
    """``levels[level]`` items per level, spread round-robin over ``batches`` batches."""
    out, k = [], 0
    for level, n in levels.items():
        for _ in range(n):
            out.append(Unit(f"q{k:03d}", level, f"b{k % batches:02d}"))
            k += 1
    out += [Unit(f"r{i:03d}", "easy", f"b{i % batches:02d}", rejected=True) for i in range(rejected)]
    return out


def test_allocation_is_proportional_with_two_at_least():
    assert allocate([80, 15, 5], 20) == [15, 3, 2]
    assert allocate([1, 50], 6) == [1, 5]  # a stratum of one gives its one item
    assert allocate([10, 10, 10], 4) == [2, 1, 1]  # fewer than two each: one each, then by size
    assert allocate([3, 4], 100) == [3, 4]  # a census
    with pytest.raises(DesignError, match="at least 3"):
        allocate([5, 5, 5], 2)


def test_blocks_cut_batches_in_order_into_about_equal_parts():
    sizes = [("b1", 3), ("b2", 3), ("b3", 3), ("b4", 3)]
    assert blocks(sizes, 2) == [["b1", "b2"], ["b3", "b4"]]
    assert blocks(sizes, 4) == [["b1"], ["b2"], ["b3"], ["b4"]]
    assert blocks(sizes, 9) == [["b1"], ["b2"], ["b3"], ["b4"]]  # never more blocks than batches
    assert blocks([("big", 10), ("s1", 1), ("s2", 1)], 3) == [["big"], ["s1", "s2"]]  # an empty block is dropped


def test_draw_strata_sizes_and_inclusion_probabilities():
    units = population({"easy": 30, "medium": 20, "hard": 10}, batches=10, rejected=12)
    d = draw(units, 24, seed=3)
    assert d.population == 72 and len(d.order) == 24 and len(set(d.order)) == 24
    by_primary: dict[str, int] = {}
    for s in d.strata:
        by_primary[s.primary] = by_primary.get(s.primary, 0) + s.n
        assert set(s.sampled) <= set(s.items) and s.inclusion_probability == pytest.approx(s.n / s.size)
        assert s.n >= min(2, s.size)
    # 24 over 30/20/10/12 in proportion: 10, 6.67, 3.33, 4 → 10, 7, 3, 4
    assert by_primary == {"easy": 10, "medium": 7, "hard": 3, "rejected": 4}
    # Each level is cut into blocks of its batches, one block per two sampled items.
    easy = [s for s in d.strata if s.primary == "easy"]
    assert len(easy) == 5 and sorted(b for s in easy for b in s.batches) == [f"b{i:02d}" for i in range(10)]
    assert all(len(s.batches) == 2 for s in easy)
    # Every population item is in exactly one stratum.
    assert sorted(i for s in d.strata for i in s.items) == sorted(u.item_id for u in units)


def test_the_seed_fixes_the_draw_and_the_order():
    units = population({"easy": 40, "hard": 25}, batches=7)
    a, b, c = draw(units, 15, seed=1), draw(units, 15, seed=1), draw(units, 15, seed=2)
    assert a.to_dict() == b.to_dict() and a.fingerprint() == b.fingerprint()
    assert a.order != c.order and a.fingerprint() != c.fingerprint()
    assert Design.from_dict(a.to_dict()).to_dict() == a.to_dict()


def test_every_item_is_equally_likely_within_its_stratum():
    """Over many seeds, each item of a stratum is drawn about n/N of the time."""
    units = population({"medium": 12}, batches=1)
    counts = {u.item_id: 0 for u in units}
    for seed in range(3000):
        for i in draw(units, 3, seed).order:
            counts[i] += 1
    # Expected 3000 · 3/12 = 750 per item; binomial SD ≈ 23.7, so ±100 is over 4 SD.
    assert all(abs(c - 750) < 100 for c in counts.values()), counts


def test_a_census_and_a_sample_too_small():
    units = population({"easy": 3, "medium": 2}, batches=2)
    d = draw(units, 50)
    assert len(d.order) == 5 and all(s.inclusion_probability == 1 for s in d.strata)
    with pytest.raises(DesignError, match="fewer than the 2 strata"):
        draw(units, 1)
    with pytest.raises(DesignError, match="no item"):
        draw([], 5)
