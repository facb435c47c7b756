"""Ranking several targets on shared items, and how far to trust the ranking: pure NumPy, no I/O.

Input everywhere is a targets × items correctness matrix (1 right, 0 wrong, NaN not
answered: a failed call is not a wrong answer) with one row per target. Scores are
accuracies in percent over the items a target answered, like :mod:`judgeagent.metrics.scores`.

Items asked together (one batch of seed questions in one prompt) are not independent, so
every bootstrap here resamples *clusters* of items (``clusters``: one id per item, e.g. the
batch; None makes each item its own cluster), as :func:`stats.clustered_bootstrap_ci` does
for one run. With fewer than :data:`stats.MIN_UNITS` clusters an interval is the whole range
its figure can take (ranks 1 to the number of targets, correlations −1 to 1, accuracies 0 to
100) and says so (``thin``): one cluster resamples to itself and would claim certainty.

- :func:`rank_intervals`: each target's rank (1 = best) with a bootstrap interval ("2nd–3rd").
- :func:`pairwise_tests`: every pair compared on the items both answered, exact McNemar
  (or a cluster sign-flip test when clusters are given), Holm-corrected over the pairs.
- :func:`rank_agreement`: Spearman and Kendall's tau-b between the ranking on generated
  items and a reference ranking (seed ACC1, or an external leaderboard), with intervals.
- :func:`difficulty_check`: accuracy per generated level against the seeds; is Hard harder?
  (Generated benchmark versions are often easier than their seeds: arXiv 2505.22830.)
"""

from __future__ import annotations

import warnings
from collections.abc import Hashable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np
from scipy import stats

from judgeagent.metrics.stats import ACC_RANGE, GAP_RANGE, mcnemar_exact, sign_flip_test, thin

PAIRWISE_METHOD = "exact McNemar on discordant shared items"
CLUSTER_PAIRWISE_METHOD = "paired sign-flip test over clusters of shared items"
CORRECTION = "Holm"
LEVELS = ("Easy", "Medium", "Hard")

# Resamples drawn per step, so memory stays bounded for many clusters.
_CHUNK = 256


def _jsonable(value):
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, list):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {k: _jsonable(v) for k, v in value.items()}
    return value


def _round(x: float | None) -> float | None:
    return None if x is None or not np.isfinite(x) else round(float(x), 4)


def ordinal(n: int) -> str:
    """1 → "1st", 2 → "2nd", 11 → "11th", 23 → "23rd"."""
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _matrix(correct) -> np.ndarray:
    x = np.asarray(correct, dtype=float)
    if x.ndim != 2:
        raise ValueError(f"correct must be a targets × items matrix, got shape {x.shape}")
    bad = ~np.isnan(x) & (x != 0.0) & (x != 1.0)
    if bad.any():
        raise ValueError("correct holds values other than 0, 1 and NaN")
    return x


def _cluster_sums(x: np.ndarray, clusters: Sequence[Hashable] | None) -> tuple[np.ndarray, np.ndarray]:
    """Per cluster and target: right answers and answers. Shapes clusters × targets."""
    answered = ~np.isnan(x)
    right = np.where(answered, x, 0.0)
    if clusters is None:
        return right.T.copy(), answered.T.astype(float)
    if len(clusters) != x.shape[1]:
        raise ValueError(f"clusters has {len(clusters)} ids for {x.shape[1]} items")
    ids: dict[Hashable, int] = {}
    codes = np.array([ids.setdefault(c, len(ids)) for c in clusters], dtype=np.int64)
    k = len(ids)
    r = np.zeros((k, x.shape[0]))
    n = np.zeros((k, x.shape[0]))
    np.add.at(r, codes, right.T)
    np.add.at(n, codes, answered.T.astype(float))
    return r, n


def _resampled_scores(r: np.ndarray, n: np.ndarray, rng: np.random.Generator, n_resamples: int) -> np.ndarray:
    """Accuracy (%) of each target in each cluster resample: resamples × targets, NaN where a
    resample holds none of a target's answers. Drawing K clusters with replacement is drawing
    their multiplicities from Multinomial(K, 1/K)."""
    k = r.shape[0]
    out = np.empty((n_resamples, r.shape[1]))
    if k == 0:
        out.fill(np.nan)
        return out
    p = np.full(k, 1.0 / k)
    for lo in range(0, n_resamples, _CHUNK):
        m = min(_CHUNK, n_resamples - lo)
        w = rng.multinomial(k, p, size=m).astype(float)
        right, answered = w @ r, w @ n
        with np.errstate(invalid="ignore", divide="ignore"):
            out[lo : lo + m] = np.where(answered > 0, 100.0 * right / answered, np.nan)
    return out


def accuracies(correct) -> np.ndarray:
    """Each target's accuracy (%) over the items it answered; NaN for a target that answered none."""
    x = _matrix(correct)
    answered = (~np.isnan(x)).sum(axis=1)
    right = np.nansum(x, axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(answered > 0, 100.0 * right / answered, np.nan)


def _check_level(level: float) -> float:
    if not 0.0 < level < 1.0:
        raise ValueError(f"level must be between 0 and 1, got {level}")
    return (1.0 - level) / 2.0


def _interval(values: np.ndarray, level: float) -> tuple[float, float] | None:
    tail = _check_level(level)
    v = values[np.isfinite(values)]
    if v.size == 0:
        return None
    lo, hi = np.quantile(v, [tail, 1.0 - tail])
    return round(float(lo), 4), round(float(hi), 4)


# ----------------------------------------------------------------------------- rank intervals
@dataclass(frozen=True)
class RankInterval:
    """One target's rank (1 = best) on the shared items, with its bootstrap interval."""

    target: str
    score: float | None
    n_items: int
    rank: int
    rank_lo: int
    rank_hi: int
    thin: bool = False  # too few clusters to resample: the interval is every rank

    def label(self) -> str:
        if self.rank_lo == self.rank_hi:
            return ordinal(self.rank_lo)
        return f"{ordinal(self.rank_lo)}–{ordinal(self.rank_hi)}"

    def to_dict(self) -> dict:
        return asdict(self) | {"label": self.label()}


def _best_worst_ranks(s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For scores (... × targets): each target's best rank (1 + targets strictly better) and
    worst rank (targets at least as good, itself included). NaN scores rank nowhere (NaN)."""
    a, b = s[..., :, None], s[..., None, :]  # [t, u]: target t against target u
    better = (b > a).sum(axis=-1)
    at_least = (b >= a).sum(axis=-1)
    missing = np.isnan(s)
    return np.where(missing, np.nan, 1.0 + better), np.where(missing, np.nan, at_least.astype(float))


def rank_intervals(
    correct,
    targets: Sequence[str],
    clusters: Sequence[Hashable] | None = None,
    *,
    n_resamples: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> list[RankInterval]:
    """Each target's rank by accuracy on its answered items, and a bootstrap rank interval.

    Each resample draws the clusters with replacement and ranks the targets on the drawn
    items. A tie within a resample counts in the target's favour for the interval's best end
    and against it for the worst end, so ties widen the interval rather than being broken at
    random. The interval is [lower quantile of the best ranks, upper quantile of the worst].
    A target that answered nothing gets no score and is ranked after every scored target.
    """
    x = _matrix(correct)
    if len(targets) != x.shape[0]:
        raise ValueError(f"{len(targets)} target names for {x.shape[0]} rows")
    tail = _check_level(level)
    point = accuracies(x)
    n_targets = x.shape[0]
    scored = ~np.isnan(point)
    # Unscored targets sit below every scored one, tied among themselves.
    filled = np.where(scored, point, -1.0)
    best, worst = _best_worst_ranks(filled)
    r, n = _cluster_sums(x, clusters)
    few = thin(r.shape[0])
    boot = _resampled_scores(r, n, np.random.default_rng(seed), n_resamples)
    boot = np.where(np.isnan(boot) & scored[None, :], np.nan, np.where(scored[None, :], boot, -1.0))
    b_best, b_worst = _best_worst_ranks(boot)
    out = []
    for t in range(n_targets):
        lo_vals, hi_vals = b_best[:, t], b_worst[:, t]
        lo_vals, hi_vals = lo_vals[~np.isnan(lo_vals)], hi_vals[~np.isnan(hi_vals)]
        if few:
            lo, hi = 1, n_targets
        elif lo_vals.size:
            lo = int(np.quantile(lo_vals, tail, method="lower"))
            hi = int(np.quantile(hi_vals, 1.0 - tail, method="higher"))
        else:
            lo, hi = int(best[t]), int(worst[t])
        out.append(
            RankInterval(
                target=str(targets[t]),
                score=_round(point[t]),
                n_items=int((~np.isnan(x[t])).sum()),
                rank=int(best[t]),
                rank_lo=lo,
                rank_hi=hi,
                thin=few,
            )
        )
    return out


# ----------------------------------------------------------------------------- pairwise tests
@dataclass(frozen=True)
class PairTest:
    """Two targets compared on the items both answered."""

    a: str
    b: str
    n_shared: int
    a_only: int
    b_only: int
    diff: float | None
    method: str
    p_value: float
    p_holm: float
    significant: bool

    def to_dict(self) -> dict:
        return asdict(self)


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjustment (controls the family-wise error rate), in the input order.

    The i-th smallest p (from 0) is multiplied by m − i, and adjusted values are made
    non-decreasing in that order, capped at 1.
    """
    p = np.asarray(p_values, dtype=float)
    m = p.size
    order = np.argsort(p, kind="stable")
    adjusted = np.minimum(1.0, np.maximum.accumulate((m - np.arange(m)) * p[order])) if m else p
    out = np.empty(m)
    out[order] = adjusted
    return [float(v) for v in out]


def pairwise_tests(
    correct,
    targets: Sequence[str],
    clusters: Sequence[Hashable] | None = None,
    *,
    alpha: float = 0.05,
    n_permutations: int = 10000,
    seed: int = 0,
) -> list[PairTest]:
    """Every pair (i < j, in ``targets`` order) compared on the items both answered.

    Without clusters the test is exact McNemar: under "equally good" each item one got right
    and the other wrong is equally likely to go either way. With clusters (items asked in one
    prompt move together) it is the paired sign-flip test over the clusters' net differences
    (:func:`stats.sign_flip_test`). The p values are Holm-adjusted over all pairs;
    ``significant`` is p_holm < alpha.
    """
    x = _matrix(correct)
    if len(targets) != x.shape[0]:
        raise ValueError(f"{len(targets)} target names for {x.shape[0]} rows")
    if clusters is not None and len(clusters) != x.shape[1]:
        raise ValueError(f"clusters has {len(clusters)} ids for {x.shape[1]} items")
    rows = []
    for i in range(x.shape[0]):
        for j in range(i + 1, x.shape[0]):
            shared = ~np.isnan(x[i]) & ~np.isnan(x[j])
            ai, bj = x[i, shared] == 1.0, x[j, shared] == 1.0
            n_shared = int(shared.sum())
            diff = 100.0 * (ai.mean() - bj.mean()) if n_shared else None
            if clusters is None:
                test = mcnemar_exact(ai.tolist(), bj.tolist())
                method, p = "mcnemar_exact", float(test["p_value"])
            else:
                ids = [c for c, s in zip(clusters, shared) if s]
                net: dict[Hashable, int] = {}
                for c, u, v in zip(ids, ai, bj):
                    net[c] = net.get(c, 0) + int(u) - int(v)
                test = sign_flip_test(list(net.values()), n_permutations=n_permutations, seed=seed)
                method, p = "cluster_sign_flip", float(test["p_value"])
            rows.append((i, j, n_shared, int(np.sum(ai & ~bj)), int(np.sum(~ai & bj)), diff, method, p))
    adjusted = holm([row[-1] for row in rows])
    return [
        PairTest(
            a=str(targets[i]),
            b=str(targets[j]),
            n_shared=n_shared,
            a_only=a_only,
            b_only=b_only,
            diff=_round(diff),
            method=method,
            p_value=p,
            p_holm=q,
            significant=bool(q < alpha),
        )
        for (i, j, n_shared, a_only, b_only, diff, method, p), q in zip(rows, adjusted)
    ]


# ----------------------------------------------------------------------------- rank agreement
def _spearman_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Spearman's rho per row (Pearson on average ranks); NaN where a side has no spread.
    ``spearmanr`` correlates every row with every other; this pairs row i with row i only."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stats.ConstantInputWarning)  # an all-tied row is NaN, left out
        return np.asarray(stats.pearsonr(stats.rankdata(x, axis=-1), stats.rankdata(y, axis=-1), axis=-1).statistic)


def _kendall_rows(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Kendall's tau-b per row: (concordant − discordant) / √((n0 − tx)(n0 − ty)).

    Written out because the bootstrap needs it on every resample at once: scipy's
    ``kendalltau(axis=-1)`` loops over the rows in Python, 800 times slower on 2000 resamples
    of 6 targets. :func:`kendall_tau_b` (one pair of vectors) is scipy's; a test checks both agree.
    """
    n = x.shape[-1]
    iu = np.triu_indices(n, 1)
    sx = np.sign(x[..., :, None] - x[..., None, :])[..., iu[0], iu[1]]
    sy = np.sign(y[..., :, None] - y[..., None, :])[..., iu[0], iu[1]]
    num = (sx * sy).sum(axis=-1)
    den = np.sqrt((sx != 0).sum(axis=-1) * (sy != 0).sum(axis=-1).astype(float))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / den, np.nan)


def _pair(x, y) -> tuple[np.ndarray, np.ndarray]:
    a, b = np.asarray(x, dtype=float), np.asarray(y, dtype=float)
    if a.shape != b.shape or a.ndim != 1:
        raise ValueError(f"two score vectors of one length expected, got shapes {a.shape} and {b.shape}")
    keep = np.isfinite(a) & np.isfinite(b)
    return a[keep], b[keep]


def spearman(x, y) -> float | None:
    """Spearman's rank correlation of two score vectors (pairs with a NaN left out); None
    with fewer than 2 pairs or when either side has no spread."""
    a, b = _pair(x, y)
    if a.size < 2:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stats.ConstantInputWarning)  # no spread: NaN, so None
        return _round(float(stats.spearmanr(a, b).statistic))


def kendall_tau_b(x, y) -> float | None:
    """Kendall's tau-b (tie-corrected) of two score vectors; None like :func:`spearman`."""
    a, b = _pair(x, y)
    if a.size < 2:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stats.ConstantInputWarning)
        return _round(float(stats.kendalltau(a, b).statistic))


@dataclass(frozen=True)
class Agreement:
    """Rank agreement between the generated-item ranking and a reference ranking."""

    n_targets: int
    spearman: float | None
    spearman_ci: tuple[float, float] | None
    kendall: float | None
    kendall_ci: tuple[float, float] | None
    level: float
    n_resamples: int
    thin: bool = False  # too few clusters on a side to resample: the intervals are [-1, 1]

    def to_dict(self) -> dict:
        return _jsonable(asdict(self))


def rank_agreement(
    correct,
    clusters: Sequence[Hashable] | None,
    reference,
    *,
    reference_clusters: Sequence[Hashable] | None = None,
    n_resamples: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> Agreement:
    """Spearman and Kendall's tau-b between each target's accuracy on ``correct`` (targets ×
    items) and ``reference``, with percentile bootstrap intervals.

    ``reference`` is either fixed per-target scores (1-D; an external leaderboard; NaN
    leaves that target out) or a targets × items matrix of its own (e.g. the seed answers,
    clustered by ``reference_clusters``), which is then resampled too, independently of the
    generated items: both rankings carry sampling noise. Resamples in which a side has no
    spread (all tied) have no correlation and are left out of the interval.
    """
    x = _matrix(correct)
    ref = np.asarray(reference, dtype=float)
    if ref.ndim == 1:
        ref_point = ref
    else:
        ref = _matrix(ref)
        ref_point = accuracies(ref)
    if ref_point.shape[0] != x.shape[0]:
        raise ValueError(f"reference has {ref_point.shape[0]} targets, correct has {x.shape[0]}")
    point = accuracies(x)
    keep = np.isfinite(point) & np.isfinite(ref_point)
    n = int(keep.sum())
    out: dict = {"n_targets": n, "level": level, "n_resamples": n_resamples}
    _check_level(level)
    if n < 2:
        return Agreement(spearman=None, spearman_ci=None, kendall=None, kendall_ci=None, **out)
    rng = np.random.default_rng(seed)
    r, c = _cluster_sums(x[keep], clusters)
    gen = _resampled_scores(r, c, rng, n_resamples)
    few = thin(r.shape[0])
    if ref.ndim == 1:
        other = np.broadcast_to(ref_point[keep], gen.shape)
    else:
        r2, c2 = _cluster_sums(ref[keep], reference_clusters)
        other = _resampled_scores(r2, c2, rng, n_resamples)
        few = few or thin(r2.shape[0])
    ok = np.isfinite(gen).all(axis=1) & np.isfinite(other).all(axis=1)
    gen, other = gen[ok], np.asarray(other)[ok]
    rho, tau = spearman(point[keep], ref_point[keep]), kendall_tau_b(point[keep], ref_point[keep])
    whole = (-1.0, 1.0)
    return Agreement(
        spearman=rho,
        spearman_ci=(whole if rho is not None else None) if few else _interval(_spearman_rows(gen, other), level),
        kendall=tau,
        kendall_ci=(whole if tau is not None else None) if few else _interval(_kendall_rows(gen, other), level),
        thin=few,
        **out,
    )


# ----------------------------------------------------------------------------- difficulty check
@dataclass(frozen=True)
class LevelAccuracy:
    """Pooled accuracy (every answered cell of every target) on one group of items."""

    level: str
    n_items: int
    n_answers: int
    n_clusters: int  # what the bootstrap resamples: with one, the interval has no width to show
    accuracy: float | None
    ci: tuple[float, float] | None
    gap_vs_seeds: float | None
    gap_ci: tuple[float, float] | None
    thin: bool = False  # too few clusters (here or in the seeds) to resample: whole-range intervals

    def to_dict(self) -> dict:
        return _jsonable(asdict(self))


@dataclass(frozen=True)
class LevelStep:
    """One step down the levels present: how many points more the easier level got right."""

    easier: str
    harder: str
    gap: float | None
    ci: tuple[float, float] | None


@dataclass(frozen=True)
class DifficultyCheck:
    """Are generated items easier than the seeds, and is Hard harder than Easy?"""

    rows: list[LevelAccuracy]
    ordered: bool | None
    hard_harder_than_seeds: bool | None
    generated_easier_than_seeds: bool | None
    steps: list[LevelStep] = field(default_factory=list)
    ordered_by_intervals: bool | None = None

    def row(self, level: str) -> LevelAccuracy | None:
        return next((r for r in self.rows if r.level == level), None)

    def to_dict(self) -> dict:
        return {
            "rows": [r.to_dict() for r in self.rows],
            "ordered": self.ordered,
            "hard_harder_than_seeds": self.hard_harder_than_seeds,
            "generated_easier_than_seeds": self.generated_easier_than_seeds,
            "steps": [_jsonable(asdict(st)) for st in self.steps],
            "ordered_by_intervals": self.ordered_by_intervals,
        }


def _pooled_boot(x: np.ndarray, clusters: Sequence[Hashable] | None, rng, n_resamples: int) -> tuple[float, np.ndarray]:
    """Pooled accuracy (%) of all answered cells and its cluster resamples."""
    answered = ~np.isnan(x)
    total = int(answered.sum())
    point = 100.0 * float(np.nansum(x)) / total if total else float("nan")
    r, n = _cluster_sums(x, clusters)
    # One pooled "target": sum the targets per cluster.
    boot = _resampled_scores(r.sum(axis=1, keepdims=True), n.sum(axis=1, keepdims=True), rng, n_resamples)[:, 0]
    return point, boot


def difficulty_check(
    generated,
    levels: Sequence[str],
    seeds,
    *,
    clusters: Sequence[Hashable] | None = None,
    seed_clusters: Sequence[Hashable] | None = None,
    n_resamples: int = 2000,
    seed: int = 0,
    level: float = 0.95,
) -> DifficultyCheck:
    """Accuracy on the seeds, on all generated items and per generated level, each with a
    cluster-bootstrap interval and its gap to the seeds (points; > 0 means easier than the
    seeds), the two sides resampled independently.

    ``ordered``: accuracy falls strictly from Easy to Medium to Hard over the levels that
    have answers (None with fewer than two), by the point estimates; ``steps`` gives each
    step's drop with its interval, and ``ordered_by_intervals`` needs every step's interval
    above 0. ``hard_harder_than_seeds`` and ``generated_easier_than_seeds`` need the gap's
    whole interval on one side of 0.
    """
    g = _matrix(generated)
    s = _matrix(seeds)
    if len(levels) != g.shape[1]:
        raise ValueError(f"levels has {len(levels)} entries for {g.shape[1]} generated items")
    if clusters is not None and len(clusters) != g.shape[1]:
        raise ValueError(f"clusters has {len(clusters)} ids for {g.shape[1]} items")
    _check_level(level)
    rng = np.random.default_rng(seed)
    seed_point, seed_boot = _pooled_boot(s, seed_clusters, rng, n_resamples)
    seeds_thin = thin(s.shape[1] if seed_clusters is None else len(set(seed_clusters)))
    boots: dict[str, np.ndarray] = {}
    few: dict[str, bool] = {}

    def row(name: str, cols: np.ndarray, is_seed: bool = False) -> LevelAccuracy:
        sub = s if is_seed else g[:, cols]
        if is_seed:
            point, boot = seed_point, seed_boot
            ids = seed_clusters
        else:
            ids = None if clusters is None else [clusters[int(j)] for j in np.flatnonzero(cols)]
            point, boot = _pooled_boot(sub, ids, rng, n_resamples)
        boots[name] = boot
        n_answers = int((~np.isnan(sub)).sum())
        n_clusters = int(sub.shape[1]) if ids is None else len(set(ids))
        few[name] = thin(n_clusters)
        gap = None if is_seed else _round(point - seed_point)
        gap_ci = None if is_seed or n_answers == 0 else GAP_RANGE if few[name] or seeds_thin else _interval(boot - seed_boot, level)
        return LevelAccuracy(
            level=name,
            n_items=int(sub.shape[1]),
            n_answers=n_answers,
            n_clusters=n_clusters,
            accuracy=_round(point),
            ci=(ACC_RANGE if few[name] else _interval(boot, level)) if n_answers else None,
            gap_vs_seeds=gap,
            gap_ci=gap_ci,
            thin=few[name] or (seeds_thin and not is_seed and n_answers > 0),
        )

    # Level names are matched case-insensitively ("hard" and "Hard" are one level).
    canonical = {name.lower(): name for name in LEVELS}
    lv = np.asarray([canonical.get(str(v).strip().lower(), str(v)) for v in levels], dtype=object)
    names = [name for name in LEVELS if (lv == name).any()]
    names += sorted({str(v) for v in lv} - set(LEVELS))
    rows = [row("seeds", np.zeros(0, bool), is_seed=True), row("all generated", np.ones(g.shape[1], bool))]
    rows += [row(name, lv == name) for name in names]
    by_level = {r.level: r for r in rows if r.level in LEVELS and r.accuracy is not None}
    present = [name for name in LEVELS if name in by_level]
    accs = [by_level[name].accuracy for name in present]
    ordered = all(a > b for a, b in zip(accs, accs[1:])) if len(accs) >= 2 else None  # type: ignore[operator]
    steps = [
        LevelStep(a, b, _round(by_level[a].accuracy - by_level[b].accuracy),  # type: ignore[operator]
                  GAP_RANGE if few[a] or few[b] else _interval(boots[a] - boots[b], level))  # fmt: skip
        for a, b in zip(present, present[1:])
    ]
    hard, everything = by_level.get("Hard"), rows[1]
    return DifficultyCheck(
        steps=steps,
        ordered_by_intervals=all(st.ci is not None and st.ci[0] > 0 for st in steps) if steps else None,
        rows=rows,
        ordered=ordered,
        hard_harder_than_seeds=None if hard is None or hard.gap_ci is None else hard.gap_ci[1] < 0,
        generated_easier_than_seeds=None if everything.gap_ci is None else everything.gap_ci[0] > 0,
    )
