"""The difficulty controller (docs/concepts/method.md §2).

Every answered question, seed or extended, adds its gain to a running average
``s = Σ gains / answered``. The next question's difficulty is Easy while ``s <= t1``,
Medium while ``t1 < s <= t2`` and Hard above ``t2``.

With the default gains (1, 1.5, 2) and thresholds (0.5, 1.0):

- ``g_E + g_H == 2 * g_M``;
- t1 and t2 cut the range of an unlabeled (Medium) question, [0, g_M], in thirds;
- a correct answer at the level the controller asked for never lowers ``s``, because every
  level's gain is at least the top of that level's band;
- being an average, the longer the run, the more consecutive correct answers it takes to
  climb a level.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from judgeagent.config import DifficultyConfig

LEVELS = ("easy", "medium", "hard")


@dataclass
class DifficultyController:
    config: DifficultyConfig = field(default_factory=DifficultyConfig)
    total_gain: float = 0.0
    answered: int = 0
    history: list[float] = field(default_factory=list)  # s after each answer

    def gain(self, difficulty: str | None, correct: bool) -> float:
        level = difficulty if difficulty in LEVELS else "medium"  # unlabeled counts as Medium
        if not correct:
            return -self.config.hard_wrong_penalty if level == "hard" else 0.0
        return {
            "easy": self.config.gain_easy,
            "medium": self.config.gain_medium,
            "hard": self.config.gain_hard,
        }[level]

    def update(self, difficulty: str | None, correct: bool) -> float:
        """Record one answer; return the new score."""
        self.total_gain += self.gain(difficulty, correct)
        self.answered += 1
        self.history.append(self.score)
        return self.score

    @property
    def score(self) -> float:
        return self.total_gain / self.answered if self.answered else 0.0

    @property
    def level(self) -> str:
        """The difficulty the next question should have."""
        return level_for(self.score, self.config)


def level_for(score: float, config: DifficultyConfig) -> str:
    if score <= config.t1:
        return "easy"
    if score <= config.t2:
        return "medium"
    return "hard"
