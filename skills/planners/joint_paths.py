"""What every joint-space planner of the skills shares (OMPL in-process, MoveIt and cuMotion over ROS 2): a
collision-free goal configuration at a tool pose, and the execution of a planned joint path in the backend."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from jarvis_sim.quaternions import half_turn
from skills.errors import PathBlocked, Unreachable
from skills.motion import SETTLE_MAX_S, SETTLE_TOLERANCE_M, CartesianPlanner

if TYPE_CHECKING:
    from skills.context import SkillContext

# Franka Panda joint limits (rad), from Franka's datasheet; the MuJoCo model uses the same.
PANDA_LOWER = np.array([-2.8973, -1.7628, -2.8973, -3.0718, -2.8973, -0.0175, -2.8973])
PANDA_UPPER = np.array([2.8973, 1.7628, 2.8973, -0.0698, 2.8973, 3.7525, 2.8973])


def _within_limits(q: np.ndarray) -> bool:
    return bool(np.all(q >= PANDA_LOWER) and np.all(q <= PANDA_UPPER))


def collision_free_goal(ctx: SkillContext, position: np.ndarray, quaternion: np.ndarray,
                        ignore: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """A collision-free joint configuration at the pose (either half turn of the symmetric gripper), and the
    quaternion it reaches; PathBlocked or Unreachable (messages for the agent) when there is none."""
    backend = ctx.backend
    q0 = backend.robot_state().joint_positions.copy()
    blocked: list[tuple[str, str]] = []
    for quat in (quaternion, half_turn(quaternion)):
        for seed in (q0, np.asarray(backend.home_q, dtype=float)):
            q = backend.solve_ik(position, quat, seed)
            if q is None or not _within_limits(q):
                continue
            hits = backend.collisions(q, ignore=ignore)
            if not hits:
                return q, quat
            blocked = blocked or hits
    p = position * 1000.0
    if blocked:
        a, b = blocked[0]
        raise PathBlocked(f"at ({p[0]:.0f}, {p[1]:.0f}, {p[2]:.0f}) mm {a} would touch {b}; pick another target.")
    raise Unreachable(f"the arm cannot reach ({p[0]:.0f}, {p[1]:.0f}, {p[2]:.0f}) mm with the gripper pointing down; "
                      "choose a target closer to the robot base or lower.")


def follow_joint_path(ctx: SkillContext, path: list[np.ndarray], position: np.ndarray, quaternion: np.ndarray,
                      speed: float, joint_speed_rad_s: float) -> None:
    """Stream the joint path at a speed scaled like the Cartesian moves, then settle on the tool pose."""
    backend = ctx.backend
    rate = joint_speed_rad_s * min(1.0, max(speed, 1e-3) / 0.2)
    for a, b in itertools.pairwise(path):
        span = float(np.max(np.abs(b - a)))
        steps = max(1, math.ceil(span / rate / backend.control_dt))
        for k in range(1, steps + 1):
            t = k / steps
            backend.set_joint_targets(a + (t * t * (3 - 2 * t)) * (b - a))
            backend.step(1)
    backend.set_ee_target(position, quaternion)
    for _ in range(math.ceil(SETTLE_MAX_S / backend.control_dt)):
        if float(np.linalg.norm(backend.robot_state().ee_position - position)) < SETTLE_TOLERANCE_M:
            break
        backend.step(1)


JointPlan = Callable[["SkillContext", np.ndarray, np.ndarray, tuple[str, ...]], tuple[list[np.ndarray], np.ndarray]]


def straight_or_detour(ctx: SkillContext, cartesian: CartesianPlanner, plan: JointPlan, joint_speed_rad_s: float,
                       position: np.ndarray, quaternion: np.ndarray, speed: float, check_collisions: bool,
                       ignore: tuple[str, ...]) -> None:
    """A joint-space planner's move_to: straight when the line is free (with the hand either way round), else the
    joint path `plan` finds (path, the quaternion it reaches); raises before moving when there is none."""
    position = np.asarray(position, dtype=float)
    quaternion = np.asarray(quaternion, dtype=float)
    if not check_collisions:
        cartesian.move_to(ctx, position, quaternion, speed, check_collisions, ignore)
        return
    try:
        cartesian.plan(ctx, position, quaternion, True, ignore)
    except (PathBlocked, Unreachable):
        try:
            cartesian.plan(ctx, position, half_turn(quaternion), True, ignore)
        except (PathBlocked, Unreachable):
            path, quaternion = plan(ctx, position, quaternion, ignore)
            follow_joint_path(ctx, path, position, quaternion, speed, joint_speed_rad_s)
            return
        quaternion = half_turn(quaternion)
    cartesian.move_to(ctx, position, quaternion, speed, check_collisions, ignore)
