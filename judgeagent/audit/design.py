"""The sampling design: which items an audit labels, drawn at random, and with what chance.

Pure and seeded: the same population, size and seed give the same sample.

Strata. Items are first split by what they are: each difficulty level (the level an item
counts as: a single-hop Hard question counts as Medium) among the items that enter the
figures, and, with ``--include-rejected``, the items the quality gate rejected as one stratum
of their own. Within each of those, the batches that wrote the items (an interview batch, a
sweep target's batch) are taken in run order and cut into contiguous blocks of about equal
size, one block per two sampled items: every block is a stratum. Items of one batch share a
knowledge path, so their defects go together; blocks spread the sample over the run instead
of letting chance put it in a few batches, and with few batches each batch is a stratum.

Allocation. The sample size is shared out in proportion to the strata's sizes, each stratum
getting at least two items where it has them (two are the fewest that estimate a stratum's
variance), one item at a time to the stratum sampled least so far (Sainte-Laguë rounding).

Within a stratum the items are drawn without replacement, all with the same chance: the
inclusion probability n_h / N_h, recorded per stratum. The sample is shown in a seeded random
order, so an audit stopped half way is still a random part of it.
"""

from __future__ import annotations

import hashlib
import json
import random
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field

LEVEL_ORDER = ("easy", "medium", "hard")
UNKNOWN_LEVEL = "unknown"
REJECTED = "rejected"  # the primary stratum of the items the quality gate rejected
MIN_PER_STRATUM = 2


@dataclass(frozen=True)
class Unit:
    """One item of the population, as the design sees it."""

    item_id: str
    level: str  # the level it counts as, or "unknown"
    batch: str  # the batch that wrote it
    rejected: bool = False  # the quality gate rejected it (only sampled with --include-rejected)

    @property
    def primary(self) -> str:
        return REJECTED if self.rejected else (self.level or UNKNOWN_LEVEL)


@dataclass
class StratumPlan:
    """One stratum: its population (``items``), the batches it spans and the items drawn."""

    id: str
    primary: str  # a level, "unknown" or "rejected"
    batches: list[str]
    items: list[str]
    sampled: list[str] = field(default_factory=list)

    @property
    def size(self) -> int:
        return len(self.items)

    @property
    def n(self) -> int:
        return len(self.sampled)

    @property
    def inclusion_probability(self) -> float:
        return self.n / self.size if self.size else 0.0

    @property
    def rejected(self) -> bool:
        return self.primary == REJECTED

    def to_dict(self) -> dict:
        return asdict(self) | {"size": self.size, "n": self.n, "inclusion_probability": round(self.inclusion_probability, 6)}

    @classmethod
    def from_dict(cls, d: dict) -> StratumPlan:
        return cls(d["id"], d["primary"], list(d["batches"]), list(d["items"]), list(d["sampled"]))


@dataclass
class Design:
    seed: int
    requested: int
    strata: list[StratumPlan]
    order: list[str]  # the sampled items in the order the page shows them

    @property
    def population(self) -> int:
        return sum(s.size for s in self.strata)

    def stratum_of(self) -> dict[str, StratumPlan]:
        """Every population item's stratum, by item id."""
        return {i: s for s in self.strata for i in s.items}

    def to_dict(self) -> dict:
        return {"seed": self.seed, "requested": self.requested, "population": self.population, "n": len(self.order),
                "strata": [s.to_dict() for s in self.strata], "order": self.order}

    @classmethod
    def from_dict(cls, d: dict) -> Design:
        return cls(int(d["seed"]), int(d["requested"]), [StratumPlan.from_dict(s) for s in d["strata"]], list(d["order"]))

    def fingerprint(self) -> str:
        """What identifies the draw: its population by stratum, and the items drawn."""
        body = json.dumps([self.seed, [(s.id, s.items, s.sampled) for s in self.strata]], sort_keys=True)
        return hashlib.sha256(body.encode("utf-8")).hexdigest()


class DesignError(ValueError):
    """The requested sample cannot be drawn (fewer items than strata)."""


def _primary_order(name: str) -> tuple[int, str]:
    if name in LEVEL_ORDER:
        return LEVEL_ORDER.index(name), name
    return (len(LEVEL_ORDER) + (1 if name == REJECTED else 0), name)


def allocate(sizes: Sequence[int], n: int, minimum: int = MIN_PER_STRATUM) -> list[int]:
    """``n`` sampled items over strata of ``sizes``: at least ``minimum`` (or the whole stratum)
    each, the rest one at a time to the stratum whose sampling fraction (n_h + ½) / N_h is the
    lowest (Sainte-Laguë's rounding of proportional shares; ties: the earlier stratum).
    Raises DesignError when n is below one per stratum."""
    n = min(n, sum(sizes))
    alloc = [min(s, minimum) for s in sizes]
    if sum(alloc) > n:
        alloc = [min(s, 1) for s in sizes]
    if sum(alloc) > n:
        raise DesignError(f"a sample of {n} is fewer than the {sum(alloc)} strata; ask for at least {sum(alloc)}")
    for _ in range(n - sum(alloc)):
        room = [h for h, s in enumerate(sizes) if alloc[h] < s]
        best = min(room, key=lambda h: ((alloc[h] + 0.5) / sizes[h], h))
        alloc[best] += 1
    return alloc


def blocks(batch_sizes: Sequence[tuple[str, int]], k: int) -> list[list[str]]:
    """The batches, in order, cut into at most ``k`` contiguous blocks of about equal item
    counts: a batch goes to the block its middle item falls in. Empty blocks are dropped."""
    total = sum(size for _, size in batch_sizes)
    k = max(1, min(k, len(batch_sizes)))
    out: list[list[str]] = [[] for _ in range(k)]
    before = 0
    for batch, size in batch_sizes:
        out[min(k - 1, int((before + size / 2) * k / total))].append(batch)
        before += size
    return [b for b in out if b]


def _rng(seed: int, name: str) -> random.Random:
    return random.Random(f"{seed}:{name}")


def draw(units: Sequence[Unit], n: int, seed: int = 0) -> Design:
    """The stratified sample of ``n`` items from ``units`` (the whole population when n ≥ its
    size). Units keep their given order within a batch, and batches their first appearance."""
    if not units:
        raise DesignError("there is no item to audit")
    by_primary: dict[str, list[Unit]] = {}
    for u in units:
        by_primary.setdefault(u.primary, []).append(u)
    primaries = sorted(by_primary, key=_primary_order)
    try:
        shares = allocate([len(by_primary[p]) for p in primaries], n)
    except DesignError as e:
        raise DesignError(f"{e} ({', '.join(primaries)})") from None
    strata: list[StratumPlan] = []
    for primary, n_h in zip(primaries, shares):
        strata += _split(primary, by_primary[primary], n_h, seed)
    order = [i for s in strata for i in s.sampled]
    _rng(seed, "order").shuffle(order)
    return Design(seed, n, strata, order)


def _split(primary: str, units: list[Unit], n_h: int, seed: int) -> list[StratumPlan]:
    """One primary stratum's blocks of batches, each drawn from at random."""
    batches: dict[str, list[str]] = {}
    for u in units:
        batches.setdefault(u.batch, []).append(u.item_id)
    groups = blocks([(b, len(ids)) for b, ids in batches.items()], max(1, n_h // MIN_PER_STRATUM))
    members = [[i for b in g for i in batches[b]] for g in groups]
    alloc = allocate([len(m) for m in members], n_h)
    out = []
    for k, (g, items, n_s) in enumerate(zip(groups, members, alloc)):
        sid = f"{primary}/{k + 1}"
        picked = set(_rng(seed, sid).sample(items, n_s))
        out.append(StratumPlan(sid, primary, g, items, [i for i in items if i in picked]))
    return out
