"""Where the hand has room to press a brick on: the studs a brick takes from the bricks below it (as perceived), a grip
slid along a plate to where the pads clear its neighbours. place() (skills/library/placing.py) decides with these, then
regrips."""

from __future__ import annotations

import math

import numpy as np

from skills.context import SkillContext
from skills.geometry import PITCH_MM, height_kind, height_mm
from skills.hand import PAD
from skills.library.task import PRESS_OFFSET_MIN_MM, _finger_blockers, _grip_span_mm, _gripper_yaw
from skills.types import BrickDescriptor, Pose

OFF_SUPPORT_PRESS_MIN_STUDS = 4  # room_off_centre: from a 2x2's hold up, a press a few mm off the support seats


def supports_under(ctx: SkillContext, pose: Pose, held: BrickDescriptor) -> dict[str, list[np.ndarray]]:
    """The perceived bricks whose top is the bottom of the held brick placed at `pose`, each with the held brick's
    studs (x, y mm) that stand over it."""
    bottom = pose.z_mm - height_mm(height_kind(held))
    supports = [d for pid, d in ctx.perceived.descriptors.items()
                if pid != ctx.held and abs(d.top_z_mm - bottom) < 1.0]
    yaw = math.radians(pose.yaw_deg)
    along, across = np.array([math.cos(yaw), math.sin(yaw)]), np.array([-math.sin(yaw), math.cos(yaw)])
    out: dict[str, list[np.ndarray]] = {}
    for i in range(held.size[0]):
        for j in range(held.size[1]):
            stud = (np.array([pose.x_mm, pose.y_mm]) + ((i - (held.size[0] - 1) / 2) * along
                                                        + (j - (held.size[1] - 1) / 2) * across) * PITCH_MM)
            for d in supports:
                dyaw = math.radians(d.yaw_deg)
                rel = stud - (d.x_mm, d.y_mm)
                if (abs(rel @ (math.cos(dyaw), math.sin(dyaw))) < d.size[0] * PITCH_MM / 2
                        and abs(rel @ (-math.sin(dyaw), math.cos(dyaw))) < d.size[1] * PITCH_MM / 2):
                    out.setdefault(d.id, []).append(stud)
                    break
    return out


def room_off_centre(ctx: SkillContext, pose: Pose, held: BrickDescriptor) -> tuple[float, float] | None:
    """Where the TCP goes, nearest the brick's centre, for the present grip slid along the brick (as far as the pads
    stay on it) to where no part of the hand strikes a neighbour at the target; None when there is no such place.

    Tried for a plate before a regrasp across its long side: held by its ends, 3.2 mm of plate turns in the pads (a 6x4
    plate regrasped so on jarvis-v2's random_stack/003 turned against the finger and set off the reflex), while a
    grip slid off the centre keeps the pick's hold across its short side. On fewer than
    OFF_SUPPORT_PRESS_MIN_STUDS studs from below the TCP stays over them (the press goes through it): a 1x3 plate on
    two studs pressed 1 mm beyond their edge (vehicle/017) stayed on the stud tops, 1.7 mm high, while the 6x4 plate
    on six studs, pressed 4 mm beyond theirs, seated."""
    yaw = _gripper_yaw(ctx, pose.yaw_deg)
    along = np.array([math.cos(yaw), math.sin(yaw)])
    reach = held.size[1 if ctx.held_across_long else 0] * PITCH_MM / 2 - PAD.half_along_mm - 0.5
    span = _grip_span_mm(held, ctx.held_across_long)
    studs = [stud for studs in supports_under(ctx, pose, held).values() for stud in studs]
    on = [float(np.dot(np.asarray(stud) - (pose.x_mm, pose.y_mm), along)) for stud in studs]
    edge = PITCH_MM / 2 if len(studs) < OFF_SUPPORT_PRESS_MIN_STUDS else math.inf  # a broad hold takes the lever
    for t in np.arange(PRESS_OFFSET_MIN_MM, reach + 1e-9, 1.0).tolist():
        for signed in (t, -t):
            if on and not min(on) - edge <= signed <= max(on) + edge:
                continue  # the press goes through the TCP: far beyond the supported studs it levers the brick off
            tool = pose.model_copy(update={"x_mm": pose.x_mm + signed * along[0], "y_mm": pose.y_mm + signed * along[1]})
            if not _finger_blockers(ctx, tool, held, yaw, span):
                return tool.x_mm, tool.y_mm
    return None
