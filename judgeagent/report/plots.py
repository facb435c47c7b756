"""The report's figures as PNG bytes.

Figures are drawn on matplotlib's Agg canvas directly, without pyplot: no global backend
switch, no GUI, nothing left open, and safe to call from any thread.
"""

from __future__ import annotations

import io
from statistics import mean

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from judgeagent.metrics.figures import LevelAccuracy, PaperFigures, RoundFigures
from judgeagent.report.sections import Trajectory, level_order

DPI = 110
SIZE = (7.0, 3.6)
LEVEL_COLORS = {"easy": "#4caf50", "medium": "#ff9800", "hard": "#e53935"}
BLUE, ORANGE, GREY = "#1f77b4", "#ff7f0e", "#777777"
MAX_LINES = 30  # more batches than this: thin lines plus the mean, or the plot is a smear


def _png(fig: Figure) -> bytes:
    FigureCanvasAgg(fig)
    buf = io.BytesIO()
    # No Software/date metadata, so the same run gives byte-identical images.
    fig.savefig(buf, format="png", dpi=DPI, bbox_inches="tight", metadata={"Software": None})
    return buf.getvalue()


def _figure() -> tuple[Figure, Axes]:
    fig = Figure(figsize=SIZE, layout="constrained")
    ax = fig.add_subplot()
    ax.grid(axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return fig, ax


def trajectory_plot(trajs: list[Trajectory], t1: float, t2: float) -> bytes:
    """The running difficulty score after each answer, per batch, over the Easy/Medium/Hard bands."""
    fig, ax = _figure()
    top = max([t2 * 1.5, *(s for t in trajs for s in t.scores)]) * 1.08
    for lo, hi, level in ((0, t1, "easy"), (t1, t2, "medium"), (t2, top, "hard")):
        ax.axhspan(lo, hi, color=LEVEL_COLORS[level], alpha=0.10, lw=0)
        ax.text(1.005, (lo + hi) / 2, level.capitalize(), transform=ax.get_yaxis_transform(), va="center", fontsize=8, color=LEVEL_COLORS[level])
    ax.axhline(t1, color=GREY, lw=0.8, ls=":")
    ax.axhline(t2, color=GREY, lw=0.8, ls=":")
    many = len(trajs) > MAX_LINES
    for t in trajs:
        xs = list(range(1, len(t.scores) + 1))
        if many:
            ax.plot(xs, t.scores, color=BLUE, lw=0.6, alpha=0.25)
        else:
            ax.plot(xs, t.scores, marker="o", ms=3, lw=1.2, label=t.batch_id)
    if many:
        length = max(len(t.scores) for t in trajs)
        avg = [mean(t.scores[i] for t in trajs if len(t.scores) > i) for i in range(length)]
        ax.plot(range(1, length + 1), avg, color="black", lw=2, label="mean")
    seeds = {t.n_seed for t in trajs}
    if len(seeds) == 1:  # the same batch size everywhere: mark where the follow-ups start
        ax.axvline(seeds.pop() + 0.5, color=GREY, lw=1, ls="--")
        ax.text(0.01, 0.98, "seed answers | follow-ups →", transform=ax.transAxes, va="top", fontsize=8, color=GREY)
    ax.set_ylim(0, top)
    ax.set_xlabel("answer number (seed questions first)")
    ax.set_ylabel("difficulty score s")
    ax.set_title(f"Difficulty trajectory per batch (T1 = {t1:g}, T2 = {t2:g})")
    if trajs and (many or len(trajs) <= 12):
        ax.legend(fontsize=7, ncol=min(6, len(trajs)), loc="upper center", bbox_to_anchor=(0.5, -0.2), frameon=False)
    return _png(fig)


def _bar_labels(ax, bars, texts: list[str]) -> None:
    for b, text in zip(bars, texts):
        ax.annotate(text, (b.get_x() + b.get_width() / 2, b.get_height()), ha="center", va="bottom", fontsize=8, xytext=(0, 2), textcoords="offset points")


def extension_accuracy_plot(acc: dict[str, LevelAccuracy]) -> bytes:
    """Accuracy on the generated follow-up questions, per generated difficulty."""
    fig, ax = _figure()
    levels = sorted(acc, key=level_order)
    bars = ax.bar(levels, [acc[lv].accuracy or 0.0 for lv in levels], color=[LEVEL_COLORS.get(lv, GREY) for lv in levels], width=0.55)
    _bar_labels(ax, bars, [f"{acc[lv].accuracy or 0.0:.0f}% ({acc[lv].correct}/{acc[lv].n})" for lv in levels])
    ax.set_ylim(0, 112)
    ax.set_ylabel("accuracy %")
    ax.set_title("Accuracy on follow-up questions, by generated difficulty")
    return _png(fig)


def acc_by_label_plot(by_label: dict[str, PaperFigures]) -> bytes:
    """ACC1 next to ACC2 for each seed difficulty label."""
    fig, ax = _figure()
    labels = sorted(by_label, key=level_order)
    acc1 = [by_label[lb].acc1 or 0.0 for lb in labels]
    acc2 = [by_label[lb].acc2 or 0.0 for lb in labels]
    xs = range(len(labels))
    w = 0.38
    b1 = ax.bar([x - w / 2 for x in xs], acc1, w, label="ACC1 (before feedback)", color=BLUE)
    b2 = ax.bar([x + w / 2 for x in xs], acc2, w, label="ACC2 (after feedback)", color=ORANGE)
    _bar_labels(ax, b1, [f"{v:.0f}" for v in acc1])
    _bar_labels(ax, b2, [f"{v:.0f}" for v in acc2])
    ax.set_xticks(list(xs), [f"{lb}\n(N={by_label[lb].n_questions})" for lb in labels])
    ax.set_ylim(0, 112)
    ax.set_ylabel("% of seed questions")
    ax.set_title("ACC1 vs ACC2 by seed difficulty label")
    # Below the axes: a bar may reach 100% anywhere, so no corner inside is free.
    ax.legend(fontsize=8, frameon=False, loc="upper center", bbox_to_anchor=(0.5, -0.22), ncol=2)
    return _png(fig)


def round_delta_plot(by_round: list[RoundFigures]) -> bytes:
    """ΔACC (with CR and CtE) when the feedback came after round 0, 1, …"""
    fig, ax = _figure()
    xs = [p.after_round for p in by_round]
    delta = [p.delta_acc or 0.0 for p in by_round]
    ax.plot(xs, delta, marker="o", lw=2, color="black", label="ΔACC = CR − CtE")
    ax.plot(xs, [p.cr or 0.0 for p in by_round], marker="^", lw=1, ls="--", color="#2e7d32", label="CR")
    ax.plot(xs, [p.cte or 0.0 for p in by_round], marker="v", lw=1, ls="--", color="#c62828", label="CtE")
    for x, d in zip(xs, delta):
        ax.annotate(f"{d:+.1f}", (x, d), xytext=(0, 6), textcoords="offset points", ha="center", fontsize=8)
    ax.axhline(0, color=GREY, lw=0.8)
    ax.set_xticks(xs)
    ax.set_xlabel("feedback given after extension round")
    ax.set_ylabel("percentage points")
    ax.set_title("Effect of the feedback per extension round")
    ax.legend(fontsize=8, frameon=False)
    return _png(fig)

