"""The generic robot API (the JARVIS paper's low-level baseline): poses, gripper and raw camera images.

Only this library exposes end-effector poses; there is no object grounding here: the agent must read
bricks' positions from the images itself.
"""

from __future__ import annotations

import math

import numpy as np

from skills.context import SkillContext
from skills.errors import InvalidArgument
from skills.library.common import wait_gripper
from skills.motion import guarded_press, move_joints, top_down_quaternion
from skills.registry import skill
from skills.types import JointState, Pose

WORKSPACE_Z_MM = (0.0, 600.0)


@skill("generic")
def get_joint_state(ctx: SkillContext) -> JointState:
    """The arm's 7 joint angles (rad) and the gripper opening (mm)."""
    s = ctx.backend.robot_state()
    return JointState(positions_rad=[round(float(q), 5) for q in s.joint_positions],
                      gripper_opening_mm=round(s.gripper_width * 1000.0, 2))


@skill("generic")
def get_ee_pose(ctx: SkillContext) -> Pose:
    """The gripper's tool-centre point (between the finger pads) in mm above the table, and its yaw."""
    s = ctx.backend.robot_state()
    w, x, y, _z = (float(v) for v in s.ee_quaternion)
    # For a top-down tool (w ~ 0), yaw = 2 * atan2(y, x) in the convention of top_down_quaternion.
    yaw = math.degrees(2 * math.atan2(y, x)) if abs(w) < 0.3 else 0.0
    table = ctx.workspace.lattice_origin[2]
    return Pose(x_mm=round(float(s.ee_position[0]) * 1000, 2), y_mm=round(float(s.ee_position[1]) * 1000, 2),
                z_mm=round((float(s.ee_position[2]) - table) * 1000, 2), yaw_deg=round(yaw % 360.0, 2))


@skill("generic")
def move_ee(ctx: SkillContext, x_mm: float, y_mm: float, z_mm: float, yaw_deg: float = 0.0) -> Pose:
    """Move the gripper, pointing down, to (x, y, z) mm (z above the table) with a yaw in degrees.

    The path is a straight line; raises unreachable without moving when the arm cannot reach it.
    Nothing checks the path for obstacles: when the gripper, the arm or a held brick hits something
    (more than about 20 N), the arm stops there and the call raises collision; whatever was hit may
    have moved. Returns the reached pose.
    """
    if not WORKSPACE_Z_MM[0] <= z_mm <= WORKSPACE_Z_MM[1]:
        raise InvalidArgument(f"z_mm must lie in {WORKSPACE_Z_MM} mm above the table, not {z_mm}")
    table = ctx.workspace.lattice_origin[2]
    target = np.array([x_mm / 1000.0, y_mm / 1000.0, table + z_mm / 1000.0])
    assert ctx.motion is not None
    ctx.motion.move_to(ctx, target, top_down_quaternion(math.radians(yaw_deg)), speed=0.2, check_collisions=False)
    return get_ee_pose(ctx)


@skill("generic")
def move_joints_to(ctx: SkillContext, positions_rad: list[float]) -> JointState:
    """Move the arm in joint space to 7 joint angles (rad, joint 1 at the base to joint 7 at the wrist), smoothly
    at up to 1 rad/s, and wait until it gets there. Angles must lie within the arm's joint limits.

    Nothing checks the path for obstacles. Returns the joint state reached. (Joint-space policies, e.g. an
    Inspect Robots policy driven by `jarvis run`, act through this.)
    """
    q = np.asarray(positions_rad, dtype=float)
    if q.shape != (7,) or not np.isfinite(q).all():
        raise InvalidArgument(f"positions_rad must be 7 finite angles in rad, got {positions_rad!r}")
    low, high = ctx.backend.joint_limits()
    outside = [i + 1 for i in range(7) if not low[i] <= q[i] <= high[i]]
    if outside:
        raise InvalidArgument(f"joint(s) {outside} outside the limits {[round(float(v), 4) for v in low]} .. "
                              f"{[round(float(v), 4) for v in high]} rad")
    move_joints(ctx, q)
    return get_joint_state(ctx)


PRESS_LIMIT_N = 40.0


@skill("generic")
def press_down(ctx: SkillContext, max_descent_mm: float = 20.0, force_n: float = 10.0) -> dict[str, float]:
    """Guarded move: descend straight down from the current pose until the gripper (or the brick it holds)
    touches something, then press down with up to `force_n` newtons (at most 40), and stop: at that force, or
    as soon as what is pressed gives way (a brick seating on its studs), so nothing is pushed on after it seats.

    A brick is clutched to the studs below only when pressed this way (about 1 N for each brick it stands on; a harder
    press loads what holds the bricks below) while it sits within a fraction of a millimetre of them. Returns
    {"contact_z_mm": height where contact began, or -1 when nothing was touched within max_descent_mm,
    "force_n": the largest force felt}.
    """
    if not 0.0 < max_descent_mm <= WORKSPACE_Z_MM[1]:
        raise InvalidArgument(f"max_descent_mm must lie in (0, {WORKSPACE_Z_MM[1]}] mm, not {max_descent_mm}")
    if not 0.0 < force_n <= PRESS_LIMIT_N:
        raise InvalidArgument(f"force_n must lie in (0, {PRESS_LIMIT_N}] N, not {force_n}")
    state = ctx.backend.robot_state()
    table = ctx.workspace.lattice_origin[2]
    bottom = state.ee_position.copy()
    bottom[2] = max(table, float(bottom[2]) - max_descent_mm / 1000.0)
    contact, peak = guarded_press(ctx, bottom, state.ee_quaternion.copy(), force_n)
    return {"contact_z_mm": -1.0 if contact is None else round((contact - table) * 1000.0, 2),
            "force_n": round(peak, 2)}


@skill("generic")
def open_gripper(ctx: SkillContext) -> float:
    """Open the fingers fully; returns the opening in mm."""
    ctx.backend.set_gripper(closed=False)
    return round(wait_gripper(ctx), 2)


@skill("generic")
def close_gripper(ctx: SkillContext) -> float:
    """Close the fingers with the default force; returns the opening in mm (about 0 when empty)."""
    ctx.backend.set_gripper(closed=True)
    return round(wait_gripper(ctx), 2)


@skill("generic")
def capture_images(ctx: SkillContext) -> dict[str, str]:
    """Take the top camera's RGB and depth images; they are shown to you in the next round.

    Returns {"rgb": name, "depth": name} of the saved images and the camera's pixel-to-world
    calibration is described in the prompt.
    """
    frame = ctx.backend.render(ctx.camera, rgb=True, depth=True, segmentation=False)
    saver = ctx.image_sink
    if saver is None:
        return {"rgb": "", "depth": ""}
    assert frame.rgb is not None and frame.depth is not None
    return {"rgb": saver("rgb", frame.rgb), "depth": saver("depth", frame.depth)}
