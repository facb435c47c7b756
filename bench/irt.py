"""The calibrated bank's maths on simulated targets with known truth (issue 18).

Panels of 20 and 100 targets, θ ~ N(0, 1); 300 items, a ~ U(0.5, 2), b ~ N(0, 1), answering
by the 2PL law; 5% of the items with a flipped key (a negated). Seeded. Printed:

* recovery, over 10 seeded panels (mean and min): correlation of the fitted θ with the
  true θ; of the fitted b with the true b on the good items, beside the naive baseline
  (−logit of the share right); the shares of flipped and of good items flagged;
* girth's 2PL MML on the same panels (one seed), when girth is installed, for comparison;
* adaptive testing with the *fitted* parameters at SE 0.3 and 0.2, 20 replications at 100
  targets: items used, their share of the bank, and Spearman's ρ between the adaptive and
  the full-bank ranking of the targets (mean, min and max over the replications);
* fit time at 20 × 300 and 100 × 3,000, with the load average.

Targets: θ r ≥ 0.95 at 20; b r ≥ 0.90 at 100 and ≥ naive at 20; ≥ 80% of flipped keys
flagged with ≤ 5% of good items at 20; at SE 0.2, ≤ 20% of the items with mean ρ ≥ 0.95.

Run: .venv/bin/python bench/irt.py [--quick]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from judgeagent.bank.irt import calibrate, naive_difficulty  # noqa: E402
from judgeagent.bank.simulation import adaptive_replication, make_panel, recovery  # noqa: E402

N_ITEMS = 300


def recovery_table(n_targets: int, seeds: int) -> dict:
    runs = [recovery(make_panel(n_targets, N_ITEMS, seed=s)) for s in range(seeds)]
    keys = ("theta_r", "b_r", "b_r_naive", "flipped_flagged", "good_flagged")
    return {k: (float(np.mean([r[k] for r in runs])), float(np.min([r[k] for r in runs])), float(np.max([r[k] for r in runs]))) for k in keys}


def girth_row(n_targets: int) -> str:
    try:
        import girth
    except ImportError:
        return f"girth 2PL MML, {n_targets} targets: girth not installed"
    panel = make_panel(n_targets, N_ITEMS, seed=0)
    good = ~panel.flipped
    t = time.perf_counter()
    est = girth.twopl_mml(panel.x.T.astype(int))
    took = time.perf_counter() - t
    r = np.corrcoef(np.asarray(est["Difficulty"])[good], panel.b[good])[0, 1]
    naive = np.corrcoef(naive_difficulty(panel.x)[good], panel.b[good])[0, 1]
    a_le0 = float((np.asarray(est["Discrimination"]) <= 0)[panel.flipped].mean())
    return f"girth 2PL MML, {n_targets} targets (seed 0): b r {r:.3f} (naive {naive:.3f}); flipped keys with a <= 0: {a_le0:.0%}; {took:.1f} s"


def adaptive_table(n_targets: int, replications: int, ses: tuple[float, ...]) -> dict:
    reps = [adaptive_replication(make_panel(n_targets, N_ITEMS, seed=100 + s), ses) for s in range(replications)]
    out = {}
    for se in ses:
        rows = [r[se] for r in reps]
        out[se] = {k: (float(np.mean([x[k] for x in rows])), float(np.min([x[k] for x in rows])), float(np.max([x[k] for x in rows])))
                   for k in ("items_used", "share", "rho")}
        out[se]["below_095"] = sum(x["rho"] < 0.95 for x in rows)
    return out


def fit_time(n_targets: int, n_items: int) -> float:
    panel = make_panel(n_targets, n_items, seed=7)
    t = time.perf_counter()
    calibrate(panel.x)
    return time.perf_counter() - t


def fmt(triple) -> str:
    mean, lo, hi = triple
    return f"{mean:.3f} [{lo:.3f}, {hi:.3f}]"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="3 seeds and 5 replications, no girth, no 100 x 3000 fit")
    args = parser.parse_args()
    seeds, reps = (3, 5) if args.quick else (10, 20)
    print(f"load average at start: {os.getloadavg()[0]:.2f} ({os.cpu_count()} cores)")
    print("\nrecovery: mean [min, max] over", seeds, "seeded panels of", N_ITEMS, "items")
    for n in (20, 100):
        t = recovery_table(n, seeds)
        print(f"  {n:>3} targets: θ r {fmt(t['theta_r'])}; b r {fmt(t['b_r'])} vs naive {fmt(t['b_r_naive'])}; "
              f"flipped flagged {fmt(t['flipped_flagged'])}; good flagged {fmt(t['good_flagged'])}")
    if not args.quick:
        for n in (20, 100):
            print("  " + girth_row(n))
    print(f"\nadaptive testing, fitted parameters, {reps} replications at 100 targets: mean [min, max]")
    for se, row in adaptive_table(100, reps, (0.3, 0.2)).items():
        print(f"  SE {se}: items used {fmt(row['items_used'])}; share of the bank {fmt(row['share'])}; "
              f"ρ vs full bank {fmt(row['rho'])} ({row['below_095']} of {reps} below 0.95)")
    print("\nfit time (calibrate: fit, flag, refit)")
    sizes = [(20, 300)] + ([] if args.quick else [(100, 3000)])
    for n, j in sizes:
        print(f"  {n} x {j}: {fit_time(n, j):.2f} s")
    print(f"load average at end: {os.getloadavg()[0]:.2f}")


if __name__ == "__main__":
    main()
