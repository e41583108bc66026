"""Joint trajectory goals as joint_trajectory_controller takes them: names mapped, bad goals rejected."""

from __future__ import annotations

import numpy as np
import pytest

from skills.ros.trajectory import (
    INVALID_GOAL,
    INVALID_JOINTS,
    PANDA_ARM_JOINTS,
    TrajectoryRejected,
    order_goal,
)


def test_points_are_reordered_to_the_controllers_joints_and_sampled_linearly() -> None:
    names = list(reversed(PANDA_ARM_JOINTS))
    traj = order_goal(names, [(1.0, [7, 6, 5, 4, 3, 2, 1]), (2.0, [0, 0, 0, 0, 0, 0, 0])])
    assert traj.positions[0].tolist() == [1, 2, 3, 4, 5, 6, 7] and traj.duration == 2.0
    start = np.zeros(7)
    assert traj.sample(0.5, start).tolist() == pytest.approx([0.5, 1, 1.5, 2, 2.5, 3, 3.5])
    assert traj.sample(1.5, start).tolist() == pytest.approx([0.5, 1, 1.5, 2, 2.5, 3, 3.5])
    assert traj.sample(9.0, start).tolist() == [0] * 7


@pytest.mark.parametrize(("names", "code", "words"), [
    ([*PANDA_ARM_JOINTS[:6], "elbow"], INVALID_JOINTS, "unknown: ['elbow']"),
    (list(PANDA_ARM_JOINTS[:6]), INVALID_JOINTS, "missing: ['panda_joint7']"),
    ([*PANDA_ARM_JOINTS[:6], "panda_joint1"], INVALID_JOINTS, "do not match"),
])
def test_wrong_joint_names_are_rejected(names: list[str], code: int, words: str) -> None:
    with pytest.raises(TrajectoryRejected, match=words.replace("[", r"\[").replace("]", r"\]")) as exc:
        order_goal(names, [(1.0, [0.0] * len(names))])
    assert exc.value.code == code


@pytest.mark.parametrize(("points", "words"), [
    ([], "no points"),
    ([(1.0, [0.0] * 7), (1.0, [0.0] * 7)], "does not increase"),
    ([(1.0, [0.0] * 6)], "6 positions for 7 joints"),
    ([(1.0, [float("nan")] * 7)], "non-finite"),
])
def test_malformed_points_are_invalid_goals(points: list[tuple[float, list[float]]], words: str) -> None:
    with pytest.raises(TrajectoryRejected, match=words) as exc:
        order_goal(list(PANDA_ARM_JOINTS), points)
    assert exc.value.code == INVALID_GOAL
