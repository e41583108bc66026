"""Set a brick on its studs and push it home with the closed fingers: placing a brick flush between neighbours.

A parallel gripper needs room for a pad beside the brick at its seat. A brick that goes in flush between bricks of
its own level on both sides of both grips (the x = 6 column of jarvis-mini's tower v7-00013/005: a 7.9 mm slot
beside it, the pads 8 mm thick) has none. A person sets such a brick on its studs and pushes it down with a
fingertip; so does this: the held brick is let go with the pads above everything beside the seat (it drops a few
millimetres onto the studs, whose lead-in centres it), then the fingers, closed, press it down over its own
footprint until it gives (the seating press, jarvis_sim/lego/clutch_model.py).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from jarvis_sim.lego import units as u
from skills.context import SkillContext
from skills.library.common import wait_gripper
from skills.motion import guarded_press, step_watching, top_down_quaternion

STUD_MM = u.STUD_HEIGHT_M * 1000.0  # stud height: what stands above a neighbour's top face
RELEASE_CLEARANCE_MM = 1.0  # the pads' bottom above the highest stud beside the seat when they open
LIFT_STEP_MM = 0.5
LIFT_MAX_MM = 15.0  # a brick dropped from higher than this lands anywhere: not a placement
PUSH_BELOW_TOP_MM = 1.0  # the push's lowest point below the seated brick's stud tops (it stops on the give first)
SETTLE_S = 0.3
# The push, by the closed pads on a brick let go onto its supports' stud tops, is sized by the brick's studs (1 N each,
# 2 N more), not by its connections as a held press is: a brick dropped there rests up to half a millimetre off its
# seat, and the press must also slide it over the lead-in into the capture region (a 2x2 plate on one support,
# pushed with 1.5 N, stayed on the stud tops 0.4 mm off: jarvis-v1 v7-00349-vehicle/012 b033).
PUSH_N_PER_STUD = 1.0
PUSH_MARGIN_N = 2.0
# Closed with a light force, the pads leave a gap a stud can wedge in: a 1x1 brick pushed home was squeezed by its stud
# and carried up 16 mm by the rising hand, to land back on the stud tops (jarvis-v2 v107-00019-vehicle/006 b022). They
# open to the stud's diameter (4.8 mm) and a millimetre more before rising.
PUSH_EASE_MM = u.STUD_DIAMETER_M * 1000.0 + 1.0

Blocked = Callable[[float, tuple[float, ...], float], list[str]]  # (gripper yaw, openings mm, tips z mm) -> ids


def release_lift_mm(blocked: Blocked, yaw: float, openings: tuple[float, ...], tips_at_seat_mm: float) -> float | None:
    """How far above the seat (mm) the held brick must be let go for the pads, opening, to clear everything beside
    it; None when not within LIFT_MAX_MM."""
    lift = 0.0
    while lift <= LIFT_MAX_MM:
        if not blocked(yaw, openings, tips_at_seat_mm + lift - STUD_MM - RELEASE_CLEARANCE_MM):
            return lift
        lift += LIFT_STEP_MM
    return None


def push_yaw(blocked: Blocked, yaws: list[float], tips_z_mm: float) -> float | None:
    """A yaw for the closed fingers whose pads, pushing the brick home, touch nothing but free space and the brick."""
    return next((yaw for yaw in yaws if not blocked(yaw, (0.0,), tips_z_mm)), None)


def set_and_push(ctx: SkillContext, tcp_at_seat: np.ndarray, gripper_yaw: float, lift_mm: float, open_mm: float,
                 above: np.ndarray, push_tcp: np.ndarray, push_yaw_rad: float, press_n: float,
                 hand_yaw: Callable[[np.ndarray, float], float], ease_mm: float | None = None) -> None:
    """Let the held brick go `lift_mm` above its seat (the TCP at `tcp_at_seat` would seat it), rise to `above`,
    then push it home with the closed fingers, the TCP coming down to `push_tcp` at most (world m). `ease_mm`: the
    opening the pads ease to after the push, before they rise (None: they rise closed)."""
    assert ctx.motion is not None
    release = tcp_at_seat + np.array([0.0, 0.0, lift_mm / 1000.0])
    quat = top_down_quaternion(hand_yaw(above, gripper_yaw))
    ctx.motion.move_to(ctx, above, quat, speed=0.1, check_collisions=False)
    ctx.motion.move_to(ctx, release, quat, speed=0.03, check_collisions=False)
    step_watching(ctx, max(1, round(SETTLE_S / ctx.backend.control_dt)))
    # phase: set. The pads open clear of the neighbours' studs; the brick drops onto its supports' stud tops.
    ctx.backend.set_gripper(closed=False, width_m=open_mm / 1000.0)
    wait_gripper(ctx)
    step_watching(ctx, max(1, round(SETTLE_S / ctx.backend.control_dt)))
    ctx.motion.move_to(ctx, above, quat, speed=0.05, check_collisions=False)
    # phase: push. Closed, the pads make one block over the brick's own footprint.
    push_quat = top_down_quaternion(hand_yaw(above, push_yaw_rad))
    ctx.backend.set_gripper(closed=True, force_n=2.0)
    wait_gripper(ctx)
    ctx.motion.move_to(ctx, np.array([push_tcp[0], push_tcp[1], above[2]]), push_quat, speed=0.05,
                       check_collisions=False)
    start = push_tcp + np.array([0.0, 0.0, (lift_mm + STUD_MM + 3.0) / 1000.0])
    ctx.motion.move_to(ctx, start, push_quat, speed=0.03, check_collisions=False)
    guarded_press(ctx, push_tcp, push_quat, press_n)
    if ease_mm is not None:
        ctx.backend.set_gripper(closed=False, width_m=ease_mm / 1000.0)
        wait_gripper(ctx)
    ctx.motion.move_to(ctx, np.array([push_tcp[0], push_tcp[1], above[2]]), push_quat, speed=0.1,
                       check_collisions=False)
    if math.isfinite(open_mm):
        ctx.backend.set_gripper(closed=False, width_m=open_mm / 1000.0)
        wait_gripper(ctx)
