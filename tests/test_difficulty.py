"""The difficulty controller's rules (docs/concepts/method.md §2), tested as properties."""

import itertools
import random

import pytest

from judgeagent.config import DifficultyConfig
from judgeagent.metrics.difficulty import DifficultyController, level_for


def test_default_gains_and_thresholds_follow_the_papers_rules():
    c = DifficultyConfig()
    assert c.gain_easy + c.gain_hard == 2 * c.gain_medium
    # t1 and t2 cut the unlabeled (Medium) range [0, g_M] in thirds.
    assert c.t1 == pytest.approx(c.gain_medium / 3)
    assert c.t2 == pytest.approx(2 * c.gain_medium / 3)


def test_score_is_the_running_average_of_gains():
    ctl = DifficultyController()
    ctl.update("easy", True)  # 1
    ctl.update("hard", True)  # 2
    ctl.update("medium", False)  # 0
    ctl.update(None, True)  # unlabeled counts as medium: 1.5
    assert ctl.score == pytest.approx((1 + 2 + 0 + 1.5) / 4)
    assert ctl.history == pytest.approx([1.0, 1.5, 1.0, 4.5 / 4])


@pytest.mark.parametrize(
    "score,level",
    [(0.0, "easy"), (0.5, "easy"), (0.51, "medium"), (1.0, "medium"), (1.01, "hard"), (2.0, "hard")],
)
def test_thresholds_are_inclusive_upper_bounds(score, level):
    assert level_for(score, DifficultyConfig()) == level


def test_a_correct_answer_at_the_asked_level_never_lowers_the_score():
    # Every reachable state from random histories: answering the controller's own level
    # correctly must never lower s.
    rng = random.Random(0)
    for _ in range(500):
        ctl = DifficultyController()
        for _ in range(rng.randint(1, 12)):
            ctl.update(rng.choice(["easy", "medium", "hard", None]), rng.random() < 0.5)
        before = ctl.score
        ctl.update(ctl.level, True)
        assert ctl.score >= before - 1e-12


def _correct_answers_to_climb(n_wrong: int) -> int:
    ctl = DifficultyController()
    for _ in range(n_wrong):
        ctl.update("easy", False)
    for k in itertools.count(1):
        ctl.update(ctl.level, True)
        if ctl.level != "easy":
            return k
    raise AssertionError("unreachable")


def test_longer_runs_need_more_consecutive_correct_answers_to_climb():
    needed = [_correct_answers_to_climb(n) for n in range(1, 8)]
    assert needed == sorted(needed)
    assert needed[-1] > needed[0]


def test_wrong_answers_gain_nothing_by_default_and_the_hard_penalty_is_opt_in():
    ctl = DifficultyController()
    assert ctl.gain("hard", False) == 0.0
    penal = DifficultyController(DifficultyConfig(hard_wrong_penalty=0.2))
    assert penal.gain("hard", False) == pytest.approx(-0.2)
    assert penal.gain("easy", False) == 0.0


def test_perfect_target_climbs_to_hard_and_a_failing_one_falls_to_easy():
    ctl = DifficultyController()
    for _ in range(3):
        ctl.update(ctl.level, True)
    assert ctl.level == "hard"
    for _ in range(6):
        ctl.update(ctl.level, False)
    assert ctl.level == "easy"
