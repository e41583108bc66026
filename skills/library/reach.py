"""Approaches near the robot base, where the arm cannot point the gripper down from high up.

A Panda pointing its gripper straight down reaches the table close to its base only low down: at 283 mm from the
base (the staging area's corner nearest the robot, jarvis-v2 v107-00038-random_stack/033) it reaches 40 mm above the
table and not 70 mm, so the usual approach, 60 mm above the brick, was out of reach and the brick could not be picked
at all (three attempts, `unreachable`). A person's arm does the same thing: it comes in low over the table to what
lies near the body. Here the hand crosses at the transit height to a point a little farther out, where it reaches
down, comes down there to the highest height it reaches over the target, and slides in at that height, clear of
everything perceived near its path.
"""

from __future__ import annotations

import math

import numpy as np

from jarvis_sim.quaternions import half_turn
from skills.context import SkillContext
from skills.errors import Unreachable

REACH_SEARCH_STEP_MM = 2.0  # resolution of the highest reachable height over a point
REACH_MARGIN_MM = 10.0  # an approach comes in this far below the highest height reached there
DETOUR_RADII_MM = (20.0, 40.0, 60.0, 80.0, 100.0)  # how far from the target the hand may come down
DETOUR_DIRECTIONS = 12
SLIDE_CLEARANCE_MM = 5.0  # the lowest part of the hand (or held brick) above anything perceived near the slide


def reachable(ctx: SkillContext, position: np.ndarray, quat: np.ndarray) -> bool:
    """Whether the arm reaches `position` (m) pointing down at `quat` or at its half turn (the gripper is symmetric)."""
    q0 = ctx.backend.robot_state().joint_positions
    home = np.asarray(ctx.backend.home_q, dtype=float)
    return any(ctx.backend.solve_ik(position, q, seed) is not None
               for q in (quat, half_turn(quat)) for seed in (q0, home))


def highest_reachable_z(ctx: SkillContext, xy: np.ndarray, low: float, high: float, quat: np.ndarray) -> float | None:
    """The highest z (m) in [low, high] reached over `xy` (the reachable heights there are one interval: the arm
    reaches down to the table everywhere on it); None when not even `low` is."""
    if reachable(ctx, np.array([xy[0], xy[1], high]), quat):
        return high
    if not reachable(ctx, np.array([xy[0], xy[1], low]), quat):
        return None
    step = REACH_SEARCH_STEP_MM / 1000.0
    while high - low > step:
        mid = (low + high) / 2
        if reachable(ctx, np.array([xy[0], xy[1], mid]), quat):
            low = mid
        else:
            high = mid
    return low


def come_in_low(ctx: SkillContext, target: np.ndarray, transit_z: float, quat: np.ndarray, hanging_mm: float,
                ignore: str | None, check_collisions: bool) -> None:
    """Bring the TCP from the transit height to `target` (m) where the straight way (across, then down) is out of
    reach: cross to a point near it, come down there to the target's height, slide in. `hanging_mm`: how far below
    the TCP the fingertips (and a held brick) reach; the slide keeps them clear of what is perceived around it (brick
    `ignore` excepted). Raises unreachable when no such way exists."""
    assert ctx.motion is not None
    xy = np.asarray(target[:2], dtype=float)
    for w in _ring(xy):
        if _slide_blocked(ctx, xy, w, float(target[2]) * 1000.0 - hanging_mm, ignore):
            continue
        try:
            ctx.motion.move_to(ctx, np.array([w[0], w[1], transit_z]), quat, speed=0.25,
                               check_collisions=check_collisions)
            ctx.motion.move_to(ctx, np.array([w[0], w[1], target[2]]), quat, speed=0.1,
                               check_collisions=check_collisions)
            ctx.motion.move_to(ctx, target, quat, speed=0.1, check_collisions=check_collisions)
            return
        except Unreachable:
            continue  # planned before moving: the arm is at the last point it reached, and tries the next way
    raise Unreachable(f"the arm cannot reach ({target[0] * 1000:.0f}, {target[1] * 1000:.0f}, "
                      f"{target[2] * 1000:.0f}) mm with the gripper pointing down, not even coming in low; choose a "
                      "target closer to the robot base or lower.")


def go_out_low(ctx: SkillContext, transit_z: float, quat: np.ndarray, hanging_mm: float, ignore: str | None) -> None:
    """Rise to the transit height where straight up is out of reach: slide out at the present height to a point near,
    clear of what is perceived, and rise there. Raises unreachable when no such way exists."""
    assert ctx.motion is not None
    here = ctx.backend.robot_state().ee_position.copy()
    for w in _ring(here[:2]):
        if _slide_blocked(ctx, here[:2], w, float(here[2]) * 1000.0 - hanging_mm, ignore):
            continue
        try:
            ctx.motion.move_to(ctx, np.array([w[0], w[1], here[2]]), quat, speed=0.1, check_collisions=False)
            ctx.motion.move_to(ctx, np.array([w[0], w[1], transit_z]), quat, speed=0.2, check_collisions=False)
            return
        except Unreachable:
            continue
    raise Unreachable(f"the arm cannot rise from ({here[0] * 1000:.0f}, {here[1] * 1000:.0f}, {here[2] * 1000:.0f}) "
                      "mm with the gripper pointing down.")


def _ring(xy: np.ndarray) -> list[np.ndarray]:
    """Points around `xy` (m), nearest first, where the hand may come down or rise."""
    return [xy + r / 1000.0 * np.array([math.cos(a), math.sin(a)]) for r in DETOUR_RADII_MM
            for a in (2 * math.pi * k / DETOUR_DIRECTIONS for k in range(DETOUR_DIRECTIONS))]


def _slide_blocked(ctx: SkillContext, a: np.ndarray, b: np.ndarray, bottom_mm: float, ignore: str | None) -> bool:
    """Whether a perceived brick near the segment a-b (m) stands higher than `bottom_mm` less the clearance."""
    for pid, d in ctx.perceived.descriptors.items():
        if pid == ignore or d.top_z_mm + SLIDE_CLEARANCE_MM <= bottom_mm:
            continue
        p = np.array([d.x_mm, d.y_mm]) / 1000.0
        ab = b - a
        t = float(np.clip(np.dot(p - a, ab) / max(float(np.dot(ab, ab)), 1e-12), 0.0, 1.0))
        reach_mm = max(d.size) * 4.0 + 50.0  # the brick's half length and the hand's half width
        if float(np.linalg.norm(p - (a + t * ab))) * 1000.0 < reach_mm:
            return True
    return False
