"""A scripted pick-and-place through the Backend protocol only: the pattern the skills build on.

    move above the brick -> descend -> close -> lift -> move above the target -> descend -> open -> lift

Heights are TCP heights: the TCP sits 10 mm above the finger tips, so grasping at brick bottom + 13 mm
leaves the tips 3 mm above the brick's bottom face (clear of the studs of whatever it lands on). Fingers
close along the TCP's y axis, so a top-down grasp with the brick's yaw closes across its width.
"""

from __future__ import annotations

import numpy as np

from jarvis_sim.backends.base import Backend
from jarvis_sim.backends.mujoco.panda import top_down_quaternion

GRASP_ABOVE_BOTTOM_M = 0.013
APPROACH_M = 0.08
PRESS_M = 0.0005  # push the brick this far below its seat so the stud fit is not left hanging


def move_to(backend: Backend, pos: np.ndarray, quat: np.ndarray, settle_s: float = 0.3, timeout_s: float = 6.0) -> float:
    """Track a TCP pose until the controller arrives and the arm settles; return the remaining TCP error (m)."""
    backend.set_ee_target(pos, quat)
    dt = backend.control_dt
    t_end = backend.sim_time_s + timeout_s
    arrived_at = None
    while backend.sim_time_s < t_end:
        backend.step(1)
        arrived = getattr(backend, "ee_target_reached", lambda: True)()
        if arrived and arrived_at is None:
            arrived_at = backend.sim_time_s
        if arrived_at is not None and backend.sim_time_s - arrived_at >= settle_s - 1e-9:
            break
    _ = dt
    return float(np.linalg.norm(backend.robot_state().ee_position - pos))


def wait(backend: Backend, seconds: float) -> None:
    """Step for a stretch of simulated time."""
    backend.step(max(1, round(seconds / backend.control_dt)))


def pick_and_place(backend: Backend, brick_id: str, target_pos: tuple[float, float, float], target_yaw: float,
                   start_pos: tuple[float, float, float], start_yaw: float) -> None:
    """Carry a brick from its start pose (bottom-face centre) to a target pose; grasp across its width."""
    sx, sy, sz = start_pos
    tx, ty, tz = target_pos
    q_pick = top_down_quaternion(start_yaw)
    q_place = top_down_quaternion(target_yaw)
    backend.set_gripper(False)
    move_to(backend, np.array([sx, sy, sz + APPROACH_M]), q_pick)
    move_to(backend, np.array([sx, sy, sz + GRASP_ABOVE_BOTTOM_M]), q_pick)
    backend.set_gripper(True)
    wait(backend, 1.0)  # the fingers close from wide open at 50 mm/s
    move_to(backend, np.array([sx, sy, sz + APPROACH_M]), q_pick)
    move_to(backend, np.array([tx, ty, tz + APPROACH_M]), q_place)
    move_to(backend, np.array([tx, ty, tz + GRASP_ABOVE_BOTTOM_M - PRESS_M]), q_place, settle_s=0.5)
    backend.set_gripper(False)
    wait(backend, 0.4)
    move_to(backend, np.array([tx, ty, tz + APPROACH_M]), q_place)
