"""Skills shared by both libraries, and the observation step the task skills build on."""

from __future__ import annotations

import math

import numpy as np

from skills.context import SkillContext
from skills.motion import move_joints, park_configuration
from skills.perception import detect
from skills.registry import skill
from skills.types import BrickDescriptor

TRACK_RADIUS_MM = 12.0


def refresh_perception(ctx: SkillContext) -> list[BrickDescriptor]:
    """Render the top camera, detect bricks and keep perception ids stable across observations."""
    if ctx.sensor is None:
        frame = ctx.backend.render(ctx.camera, rgb=True, depth=True, segmentation=True)
    else:  # a camera's view: its noise, and no instance masks
        frame = ctx.sensor.apply(ctx.backend.render(ctx.camera, rgb=True, depth=True), ctx.sensor_rng)
    found = detect(frame, ctx.workspace)
    previous = dict(ctx.perceived.descriptors)
    descriptors: dict[str, BrickDescriptor] = {}
    points: dict[str, np.ndarray] = {}
    # Match to the previous observation by position, colour and size, closest first.
    pairs = []
    for k, (d, _) in enumerate(found):
        for pid, old in previous.items():
            dist = math.hypot(d.x_mm - old.x_mm, d.y_mm - old.y_mm)
            if dist < TRACK_RADIUS_MM and d.color == old.color and d.size == old.size:
                pairs.append((dist, k, pid))
    assigned: dict[int, str] = {}
    used: set[str] = set()
    for _, k, pid in sorted(pairs):
        if k not in assigned and pid not in used:
            assigned[k] = pid
            used.add(pid)
    if ctx.held is not None:
        used.add(ctx.held)
    for k, (d, pts) in enumerate(found):
        pid = assigned.get(k) or ctx.new_perception_id()
        descriptors[pid] = d.model_copy(update={"id": pid})
        points[pid] = pts
    ctx.perceived.descriptors = descriptors
    ctx.perceived.points = points
    ctx.perceived.sim_time_s = ctx.backend.sim_time_s
    return sorted(descriptors.values(), key=lambda d: int(d.id[1:]))


@skill("task", "generic")
def go_home(ctx: SkillContext) -> str:
    """Lift the gripper, then park the arm beside the table, out of the top camera's view.

    Keeps holding a brick if it holds one. Returns "parked". Call it before observe() when the
    arm may hide bricks from the camera.
    """
    state = ctx.backend.robot_state()
    assert ctx.motion is not None
    lift = state.ee_position.copy()
    lift[2] = max(lift[2], 0.25)
    ctx.motion.move_to(ctx, lift, state.ee_quaternion, speed=0.25, check_collisions=False)
    move_joints(ctx, park_configuration(ctx.backend.home_q))
    return "parked"


def wait_gripper(ctx: SkillContext, max_s: float = 3.0) -> float:
    """Step until the finger opening settles (moves < 0.03 mm in 0.1 s); returns it in mm."""
    chunk = max(1, int(0.1 / ctx.backend.control_dt))
    last = ctx.backend.robot_state().gripper_width * 1000.0
    for _ in range(int(max_s / 0.1)):
        ctx.backend.step(chunk)
        now = ctx.backend.robot_state().gripper_width * 1000.0
        if abs(now - last) < 0.03:
            return now
        last = now
    return last
