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

REACH_SEARCH_STEP_MM = 5.0  # the rise's steps when finding the highest height reached over a point (waypoints: 10)
REACH_MARGIN_MM = 10.0  # an approach comes in this far below the highest height reached there
DETOUR_RADII_MM = (20.0, 40.0, 60.0, 80.0, 100.0)  # how far from the target the hand may come down
DETOUR_DIRECTIONS = 12
SLIDE_STEP_MM = 10.0
SLIDE_STEPS = 5
SLIDE_CLEARANCE_MM = 5.0  # the lowest part of the hand (or held brick) above anything perceived near the slide


def highest_reachable_z(ctx: SkillContext, xy: np.ndarray, low: float, high: float, quat: np.ndarray) -> float | None:
    """The highest z (m) in [low, high] the arm reaches over `xy` rising straight up from `low`, each height solved
    from the configuration below it as a planned move is (a solver started elsewhere may reach an isolated height the
    rise cannot); None when not even `low` is reached."""
    home = np.asarray(ctx.backend.home_q, dtype=float)
    best: float | None = None
    for q in (quat, half_turn(quat)):
        seed: np.ndarray | None = None
        for s in (ctx.backend.robot_state().joint_positions, home):
            seed = ctx.backend.solve_ik(np.array([xy[0], xy[1], low]), q, s)
            if seed is not None:
                break
        if seed is None:
            continue
        z = low
        while z < high:
            up = min(high, z + REACH_SEARCH_STEP_MM / 1000.0)
            sol = ctx.backend.solve_ik(np.array([xy[0], xy[1], up]), q, seed)
            if sol is None:
                break
            z, seed = up, sol
        best = z if best is None else max(best, z)
    return best


def come_in_low(ctx: SkillContext, target: np.ndarray, transit_z: float, quat: np.ndarray, hanging_mm: float,
                ignore: str | None, check_collisions: bool) -> None:
    """Bring the TCP from the transit height to `target` (m) where the straight way (across, then down) is out of
    reach: cross to a point near it, come down there, slide in at the target's height or lower (the arm's
    configuration sliding in at one height may not get there where rising from below does), and rise to it.
    `hanging_mm`: how far below the TCP the fingertips (and a held brick) reach; the slide keeps them clear of what is
    perceived around it (brick `ignore` excepted). Raises unreachable when no such way exists."""
    assert ctx.motion is not None
    xy = np.asarray(target[:2], dtype=float)
    for z in _slide_heights(float(target[2])):
        for w in _ring(xy):
            if _slide_blocked(ctx, xy, w, z * 1000.0 - hanging_mm, ignore):
                continue
            try:  # each move is planned before it starts: an unreachable one leaves the arm where it was
                for point in ((w[0], w[1], transit_z), (w[0], w[1], z), (xy[0], xy[1], z), tuple(target)):
                    ctx.motion.move_to(ctx, np.array(point), quat, speed=0.1, check_collisions=check_collisions)
                return
            except Unreachable:
                continue
    raise Unreachable(f"the arm cannot reach ({target[0] * 1000:.0f}, {target[1] * 1000:.0f}, "
                      f"{target[2] * 1000:.0f}) mm with the gripper pointing down, not even coming in low; choose a "
                      "target closer to the robot base or lower.")


def go_out_low(ctx: SkillContext, transit_z: float, quat: np.ndarray, hanging_mm: float, ignore: str | None) -> None:
    """Rise to the transit height where straight up is out of reach: down a little if need be, slide out to a point
    near, clear of what is perceived, and rise there. Raises unreachable when no such way exists."""
    assert ctx.motion is not None
    here = ctx.backend.robot_state().ee_position.copy()
    for z in _slide_heights(float(here[2])):
        for w in _ring(here[:2]):
            if _slide_blocked(ctx, here[:2], w, z * 1000.0 - hanging_mm, ignore):
                continue
            try:
                for point in ((here[0], here[1], z), (w[0], w[1], z), (w[0], w[1], transit_z)):
                    ctx.motion.move_to(ctx, np.array(point), quat, speed=0.1, check_collisions=False)
                return
            except Unreachable:
                continue
    raise Unreachable(f"the arm cannot rise from ({here[0] * 1000:.0f}, {here[1] * 1000:.0f}, {here[2] * 1000:.0f}) "
                      "mm with the gripper pointing down.")


def _slide_heights(z: float) -> list[float]:
    """Heights (m) to slide at, from `z` down in SLIDE_STEP_MM steps (a slide too low is refused by _slide_blocked)."""
    return [z - k * SLIDE_STEP_MM / 1000.0 for k in range(SLIDE_STEPS)]


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
