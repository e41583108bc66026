"""Joint trajectories as joint_trajectory_controller executes them, without ROS types (tested on their own).

A goal names its joints in any order; it is rejected when the names are not exactly the controller's
joints (INVALID_JOINTS), and when its points' times do not increase (INVALID_GOAL). Between points the
position is interpolated linearly (the controller's `linear` interpolation; its default spline needs
velocities the planners here do not send).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

PANDA_ARM_JOINTS: tuple[str, ...] = tuple(f"panda_joint{i}" for i in range(1, 8))
PANDA_FINGER_JOINTS: tuple[str, ...] = ("panda_finger_joint1", "panda_finger_joint2")


class TrajectoryRejected(ValueError):
    """A goal the controller refuses before moving; `code` is control_msgs' FollowJointTrajectory error code."""

    def __init__(self, message: str, code: int):
        super().__init__(message)
        self.code = code


INVALID_GOAL = -1
INVALID_JOINTS = -2


@dataclass(frozen=True)
class JointTrajectory:
    """Points in the controller's joint order: times (s from start, increasing) and positions (rad)."""

    times: np.ndarray  # (N,)
    positions: np.ndarray  # (N, len(joints))

    @property
    def duration(self) -> float:
        """Seconds from the start to the last point."""
        return float(self.times[-1])

    def sample(self, t: float, start: np.ndarray) -> np.ndarray:
        """Positions at t seconds, moving linearly from `start` (at t = 0) through the points."""
        times = np.concatenate([[0.0], self.times])
        positions = np.vstack([start, self.positions])
        if t >= times[-1]:
            return positions[-1].copy()
        return np.array([np.interp(t, times, positions[:, j]) for j in range(positions.shape[1])])


def order_goal(joint_names: Sequence[str], points: Sequence[tuple[float, Sequence[float]]],
               controller_joints: Sequence[str] = PANDA_ARM_JOINTS) -> JointTrajectory:
    """Validate a goal's joint names and points and reorder them to the controller's joints."""
    names = list(joint_names)
    expected = list(controller_joints)
    if len(set(names)) != len(names) or set(names) != set(expected):
        unknown = sorted(set(names) - set(expected))
        missing = sorted(set(expected) - set(names))
        raise TrajectoryRejected(
            f"joints {names} do not match the controller's joints {expected}"
            + (f" (unknown: {unknown})" if unknown else "") + (f" (missing: {missing})" if missing else ""),
            INVALID_JOINTS,
        )
    if not points:
        raise TrajectoryRejected("the trajectory has no points", INVALID_GOAL)
    index = [names.index(j) for j in expected]
    times: list[float] = []
    rows: list[list[float]] = []
    for k, (t, pos) in enumerate(points):
        if len(pos) != len(names):
            raise TrajectoryRejected(f"point {k} has {len(pos)} positions for {len(names)} joints", INVALID_GOAL)
        if not np.all(np.isfinite(pos)) or not np.isfinite(t):
            raise TrajectoryRejected(f"point {k} holds a non-finite value", INVALID_GOAL)
        if times and t <= times[-1]:
            raise TrajectoryRejected(f"point {k}'s time_from_start {t:.3f} s does not increase", INVALID_GOAL)
        times.append(float(t))
        rows.append([float(pos[i]) for i in index])
    if times[0] < 0:
        raise TrajectoryRejected("time_from_start is negative", INVALID_GOAL)
    return JointTrajectory(np.asarray(times), np.asarray(rows))
