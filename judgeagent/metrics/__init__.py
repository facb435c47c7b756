"""Pure maths: the difficulty controller and the paper's metrics. No I/O here."""

from judgeagent.metrics.difficulty import DifficultyController
from judgeagent.metrics.scores import PaperMetrics, paper_metrics

__all__ = ["DifficultyController", "PaperMetrics", "paper_metrics"]
