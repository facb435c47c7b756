"""The audit's estimators: how many generated items are invalid, and how far two auditors agree.

Pure maths on counts; the audit (:mod:`judgeagent.audit`) turns a design and labels into them.

- :func:`wilson` and :func:`clopper_pearson`: an interval for k of n from a simple random sample.
- :func:`stratified_proportion`: the share of a finite population that has a property, from a
  stratified random sample drawn without replacement, with its variance (finite population
  correction included) and Korn and Graubard's interval (:func:`korn_graubard`).
- :func:`share_of_hits`: the share of the population's hits that lie in some strata (how many
  of the invalid items the gate rejected), a ratio of two stratified totals.
- :func:`cohen_kappa`: Cohen's κ with the large-sample standard error of Fleiss, Cohen and
  Everitt (1969), and the confusion table behind it.

Why Korn–Graubard for the stratified interval. An audit labels a few dozen items, and the
invalid share of a good generator is small, so the interval must behave at 0 invalid items
and at 5 labelled items per stratum, where the normal approximation (estimate ± 1.96 SE)
falls below 0 or collapses to a point. Korn and Graubard (1998) keep the exact
Clopper–Pearson interval and feed it the design's information instead of the raw count:
the effective sample size n* = p̂(1 − p̂) / v̂ (v̂ the stratified variance), shrunk by the
ratio of t quantiles (n − 1 against n − H degrees of freedom) because v̂ rests on few items
per stratum. It is what the U.S. National Center for Health Statistics uses for survey
proportions; it never leaves [0, 1], and for one stratum it is Clopper–Pearson on n − 1 items
(n with the variance p̂(1 − p̂)/n of a sample drawn with replacement).
We do not truncate n* at n (as NCHS does for its national surveys): an audit may label a
large share of a small population, and the finite population correction then rightly
makes the design more informative than a sample drawn with replacement.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass

from scipy import stats

LEVEL = 0.95
METHOD = "stratified (finite population correction), Korn-Graubard interval"


def _z(level: float) -> float:
    return float(stats.norm.ppf(1 - (1 - level) / 2))


def wilson(k: float, n: float, level: float = LEVEL) -> tuple[float, float]:
    """Wilson's score interval for k successes in n draws; (0, 1) when n is 0."""
    if n <= 0:
        return 0.0, 1.0
    z, p = _z(level), k / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def clopper_pearson(k: float, n: float, level: float = LEVEL) -> tuple[float, float]:
    """The exact (Clopper–Pearson) interval for k successes in n draws. ``k`` and ``n`` may be
    fractional (an effective sample size); (0, 1) when n is 0."""
    if n <= 0:
        return 0.0, 1.0
    alpha = 1 - level
    lo = 0.0 if k <= 0 else float(stats.beta.ppf(alpha / 2, k, n - k + 1))
    hi = 1.0 if k >= n else float(stats.beta.ppf(1 - alpha / 2, k + 1, n - k))
    return lo, hi


@dataclass(frozen=True)
class Stratum:
    """One stratum of a design: ``size`` items in the population, ``n`` of them labelled,
    ``hits`` of those with the property counted."""

    size: int
    n: int
    hits: int

    @property
    def complete(self) -> bool:
        """Every item of the stratum was labelled: its share is known exactly."""
        return self.n >= self.size


@dataclass(frozen=True)
class Estimate:
    """A share with its 95% interval. ``n`` items labelled, ``hits`` of them counted;
    ``population`` the items it speaks for (strata with no label are left out)."""

    estimate: float | None
    ci: tuple[float, float] | None
    se: float | None
    n: int
    hits: int
    population: int
    n_effective: float | None = None
    df: int | None = None
    method: str = METHOD

    def to_dict(self) -> dict:
        d = asdict(self)
        d["ci"] = None if self.ci is None else [round(self.ci[0], 6), round(self.ci[1], 6)]
        for k in ("estimate", "se", "n_effective"):
            d[k] = None if d[k] is None else round(d[k], 6)
        return d


def share_variance(s: Stratum) -> float:
    """The variance of the stratum's share p̂ = hits / n under sampling without replacement:
    (1 − n/N) S² / n, with S² estimated by n/(n − 1) p̂(1 − p̂). A stratum of one labelled
    item has no estimate of S²; it gets its largest possible value, N / (4(N − 1)) (a
    population split half and half), so the interval errs wide rather than narrow."""
    if s.n <= 0 or s.complete:
        return 0.0
    if s.n == 1:
        s2 = s.size / (4 * (s.size - 1))
    else:
        p = s.hits / s.n
        s2 = s.n / (s.n - 1) * p * (1 - p)
    return (1 - s.n / s.size) * s2 / s.n


def korn_graubard(p: float, variance: float, n: int, df: int, level: float = LEVEL, *, exact: bool = False) -> tuple[tuple[float, float], float]:
    """Korn and Graubard's interval for a share ``p`` estimated with ``variance`` from ``n``
    labelled items, ``df`` degrees of freedom (n minus the strata). Returns (interval,
    effective sample size). ``exact``: every stratum was labelled whole, so p is known.

    With no variance to go on (p̂ is 0 or 1, or every stratum gave one answer throughout)
    the effective size is n itself, as Korn and Graubard prescribe for p̂ ∈ {0, 1}."""
    if exact:
        return (p, p), math.inf
    n_eff = p * (1 - p) / variance if variance > 0 and 0 < p < 1 else float(n)
    if df >= 1 and n >= 2 and df < n - 1:
        q = 1 - (1 - level) / 2
        n_eff *= (stats.t.ppf(q, n - 1) / stats.t.ppf(q, df)) ** 2
    return clopper_pearson(p * n_eff, n_eff, level), n_eff


def stratified_proportion(strata: Sequence[Stratum], level: float = LEVEL) -> Estimate:
    """The population share p̂ = Σ W_h p̂_h (W_h = N_h / N over the strata with a label), its
    variance Σ W_h² Var(p̂_h) (:func:`share_variance`) and Korn–Graubard interval."""
    used = [s for s in strata if s.n > 0]
    n, hits = sum(s.n for s in used), sum(s.hits for s in used)
    if not used:
        return Estimate(None, None, None, 0, 0, 0)
    size = sum(s.size for s in used)
    p = sum(s.size * s.hits / s.n for s in used) / size
    variance = sum((s.size / size) ** 2 * share_variance(s) for s in used)
    df = n - len(used)
    ci, n_eff = korn_graubard(p, variance, n, df, level, exact=all(s.complete for s in used))
    return Estimate(p, ci, math.sqrt(variance), n, hits, size, None if math.isinf(n_eff) else n_eff, df)


def share_of_hits(strata: Sequence[Stratum], inside: Sequence[bool], level: float = LEVEL) -> Estimate:
    """Of the population's hits, the share in the strata marked ``inside``: R = Σ_in t_h / Σ t_h
    with t_h = N_h p̂_h. Its variance is the linearised one, Σ ((a_h − R) / T)² N_h² Var(p̂_h)
    (a_h = 1 inside, else 0; T = Σ t_h); the interval is Korn–Graubard's on the hits labelled."""
    pairs = [(s, a) for s, a in zip(strata, inside) if s.n > 0]
    totals = [(s.size * s.hits / s.n, a) for s, a in pairs]
    total = sum(t for t, _ in totals)
    hits = sum(s.hits for s, _ in pairs)
    n = sum(s.n for s, _ in pairs)
    if total <= 0:
        return Estimate(None, None, None, hits, sum(s.hits for s, a in pairs if a), sum(s.size for s, _ in pairs), method=_RATIO)
    r = sum(t for t, a in totals if a) / total
    variance = sum(((float(a) - r) / total) ** 2 * s.size**2 * share_variance(s) for s, a in pairs)
    df = n - len(pairs)
    ci, n_eff = korn_graubard(r, variance, hits, df, level, exact=all(s.complete for s, _ in pairs))
    inside_hits = sum(s.hits for s, a in pairs if a)
    return Estimate(r, ci, math.sqrt(variance), hits, inside_hits, sum(s.size for s, _ in pairs), None if math.isinf(n_eff) else n_eff, df, _RATIO)


_RATIO = "ratio of stratified totals (linearised variance), Korn-Graubard interval"


# ----------------------------------------------------------------------------- agreement
@dataclass(frozen=True)
class Kappa:
    """Cohen's κ between two raters over ``n`` items, with its confusion table
    (``table[i][j]``: items rater A put in ``categories[i]`` and rater B in ``categories[j]``)."""

    kappa: float | None
    se: float | None
    ci: tuple[float, float] | None
    n: int
    observed: float | None  # share of items on which they agree
    expected: float | None  # the agreement their marginals give by chance
    categories: list[str]
    table: list[list[int]]
    method: str = "Cohen's kappa, asymptotic SE (Fleiss, Cohen & Everitt 1969), Wald interval clipped to [-1, 1]"

    def to_dict(self) -> dict:
        d = asdict(self)
        for k in ("kappa", "se", "observed", "expected"):
            d[k] = None if d[k] is None else round(d[k], 6)
        d["ci"] = None if self.ci is None else [round(self.ci[0], 6), round(self.ci[1], 6)]
        return d


def confusion(a: Sequence[Hashable], b: Sequence[Hashable], categories: Sequence[Hashable] | None = None) -> tuple[list[str], list[list[int]]]:
    """The categories (given, else every one used, sorted as text) and the counts table."""
    if len(a) != len(b):
        raise ValueError("the two raters must label the same items")
    cats = list(categories) if categories is not None else sorted({*a, *b}, key=str)
    index = {c: i for i, c in enumerate(cats)}
    table = [[0] * len(cats) for _ in cats]
    for x, y in zip(a, b):
        table[index[x]][index[y]] += 1
    return [str(c) for c in cats], table


def cohen_kappa(a: Sequence[Hashable], b: Sequence[Hashable], categories: Sequence[Hashable] | None = None, level: float = LEVEL) -> Kappa:
    """κ = (p_o − p_e) / (1 − p_e) over the items both raters labelled (``a[i]``, ``b[i]``).

    The standard error is the large-sample one of Fleiss, Cohen and Everitt (1969), valid
    whatever κ is (not only under κ = 0):
    Var κ̂ = [Σ_i p_ii (1 − (p_i· + p_·i)(1 − κ))² + (1 − κ)² Σ_{i≠j} p_ij (p_·i + p_j·)²
             − (κ − p_e(1 − κ))²] / (n (1 − p_e)²).
    κ is undefined (None) with no item, or when both raters put every item in one and the
    same category (p_e = 1)."""
    cats, table = confusion(a, b, categories)
    n = len(a)
    if n == 0:
        return Kappa(None, None, None, 0, None, None, cats, table)
    k = len(cats)
    p = [[table[i][j] / n for j in range(k)] for i in range(k)]
    row = [sum(p[i]) for i in range(k)]
    col = [sum(p[i][j] for i in range(k)) for j in range(k)]
    po = sum(p[i][i] for i in range(k))
    pe = sum(row[i] * col[i] for i in range(k))
    if pe >= 1:
        return Kappa(None, None, None, n, po, pe, cats, table)
    kappa = (po - pe) / (1 - pe)
    diag = sum(p[i][i] * (1 - (row[i] + col[i]) * (1 - kappa)) ** 2 for i in range(k))
    off = (1 - kappa) ** 2 * sum(p[i][j] * (col[i] + row[j]) ** 2 for i in range(k) for j in range(k) if i != j)
    variance = (diag + off - (kappa - pe * (1 - kappa)) ** 2) / (n * (1 - pe) ** 2)
    se = math.sqrt(max(variance, 0.0))
    z = _z(level)
    return Kappa(kappa, se, (max(-1.0, kappa - z * se), min(1.0, kappa + z * se)), n, po, pe, cats, table)
