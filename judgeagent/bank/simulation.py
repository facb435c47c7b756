"""Simulated panels with known truth, for ``bench/irt.py`` and the recovery test.

Targets have θ ~ N(0, 1); items a ~ U(0.5, 2) and b ~ N(0, 1); answers follow the 2PL law;
a share of the items has its key flipped (a negated), as a wrong answer key would.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from judgeagent.bank.adaptive import simulate
from judgeagent.bank.irt import calibrate, eap, naive_difficulty, p_correct, spearman


@dataclass
class Panel:
    theta: np.ndarray
    a: np.ndarray  # negative on flipped items
    b: np.ndarray
    flipped: np.ndarray
    x: np.ndarray  # targets × items, 0/1


def make_panel(n_targets: int, n_items: int, *, flipped_share: float = 0.05, seed: int = 0) -> Panel:
    rng = np.random.default_rng(seed)
    theta = rng.normal(size=n_targets)
    a, b = rng.uniform(0.5, 2.0, n_items), rng.normal(size=n_items)
    flipped = np.zeros(n_items, bool)
    flipped[rng.choice(n_items, int(round(flipped_share * n_items)), replace=False)] = True
    a = np.where(flipped, -a, a)
    x = (rng.random((n_targets, n_items)) < p_correct(theta[:, None], a[None, :], b[None, :])).astype(float)
    return Panel(theta, a, b, flipped, x)


def recovery(panel: Panel) -> dict:
    """How well a calibration of the panel's answers recovers the truth."""
    cal = calibrate(panel.x)
    good = ~panel.flipped
    return {
        "theta_r": float(np.corrcoef(cal.theta, panel.theta)[0, 1]),
        "b_r": float(np.corrcoef(cal.b[good], panel.b[good])[0, 1]),
        "b_r_naive": float(np.corrcoef(naive_difficulty(panel.x)[good], panel.b[good])[0, 1]),
        "flipped_flagged": float(cal.flagged[panel.flipped].mean()),
        "good_flagged": float(cal.flagged[good].mean()),
        "converged": cal.converged,
    }


def adaptive_replication(panel: Panel, target_ses: tuple[float, ...]) -> dict:
    """Calibrate the panel, then test every target adaptively with the *fitted* parameters
    (flagged items left out), and compare with its full-bank θ under the same parameters."""
    cal = calibrate(panel.x)
    keep = ~cal.flagged
    a, b, x = cal.a[keep], cal.b[keep], panel.x[:, keep]
    full = np.array([eap(row, a, b)[0] for row in x])
    out = {}
    for se in target_ses:
        thetas, used = [], []
        for row in x:
            test = simulate(a, b, row.astype(bool).__getitem__, se)
            thetas.append(test.theta)
            used.append(len(test.steps))
        out[se] = {"items_used": float(np.mean(used)), "share": float(np.mean(used) / keep.sum()), "rho": spearman(thetas, full)}
    return out
