"""The task library's pick: a brick off the table or off the structure, centred between the fingers and held.

What it checks at each phase is written where the phase is (see skills.library.task for the shared figures)."""

from __future__ import annotations

import math

import numpy as np

from skills.context import SkillContext
from skills.errors import (
    AlreadyHolding,
    GraspFailed,
    NotGraspable,
    PathBlocked,
    StuckInStructure,
    Unreachable,
)
from skills.library.common import wait_gripper
from skills.library.task import (
    APPROACH_HEIGHT_MM,
    CENTRING_OPENING_MM,
    FINGERTIP_BELOW_TCP_MM,
    GRIP_DEPTH_MM,
    GRIP_FORCE_N,
    PAD_THICKNESS_MM,
    PLATE_GRIP_DEPTH_MM,
    PULL_GRIP_N,
    PULL_PAST_TOP_MM,
    PULL_REFLEX_N,
    PULL_STEP_MM,
    _centring_fits,
    _centring_radius_mm,
    _grasp_plan,
    _grip_span_mm,
    _gripper_width_mm,
    _hand_yaw,
    _offset_tool,
    _pad_target,
    _reachable_above,
    _settle,
    _tool_yaw,
    _transfer,
)
from skills.motion import top_down_quaternion
from skills.registry import skill
from skills.types import BrickDescriptor, GraspPlan, PickResult


@skill("task")
def pick(ctx: SkillContext, brick: str) -> PickResult:
    """Pick a brick by its perception id: approach from above, descend, close, verify, lift.

    The brick must be visible in the last observation, not covered by another brick, with room for
    the fingers. Picking a brick clutched to the structure pulls it off (to undo a mistake).
    Raises already_holding, unknown_brick, not_graspable, grasp_failed, or stuck_in_structure when a
    brick of the structure holds on to its studs and does not come off.
    """
    return _pick(ctx, brick, across_long=False)


def _pick(ctx: SkillContext, brick: str, across_long: bool, offset_mm: float = 0.0,
          tips_below_top_mm: float | None = None) -> PickResult:
    """pick(); `offset_mm` grips the brick off its centre: its centre ends that far from the TCP along the pads'
    width (the tool's x axis), so that place() can press it over the studs it engages."""
    if ctx.held is not None:
        raise AlreadyHolding(f"the gripper already holds {ctx.held}; place it before picking {brick}")
    d = ctx.descriptor(brick)
    if not d.free_to_grasp and not d.in_structure:
        raise NotGraspable(f"brick {brick} is covered or mostly hidden (visible {d.visible_fraction:.0%}): clear what "
                           "lies on it, or go_home() and observe() again if the arm hides it")
    plan = _grasp_plan(ctx, brick, across_long, tips_below_top_mm)
    assert ctx.motion is not None
    at = _pad_target(ctx, plan.x_mm, plan.y_mm, plan.z_mm)
    # Near the robot base the arm points down only low over the table: the approach comes in as high as it reaches,
    # at least the pads' own height over the brick (the fingertips then clear its studs).
    lowest = _pad_target(ctx, plan.x_mm, plan.y_mm, max(plan.z_mm, d.top_z_mm) + FINGERTIP_BELOW_TCP_MM)
    above = _reachable_above(ctx, _pad_target(ctx, plan.x_mm, plan.y_mm, d.top_z_mm + APPROACH_HEIGHT_MM), lowest,
                             top_down_quaternion(math.radians(plan.yaw_deg)))
    quat = top_down_quaternion(_hand_yaw(ctx, above, math.radians(plan.yaw_deg)))
    squared_yaw = None  # the hand's yaw when the centring squeeze squared the brick up
    if not d.in_structure and _centring_fits(d, across_long) and _room_to_centre(ctx, d, plan):
        try:
            squared_yaw = _centre_between_fingers(ctx, d, plan, above, at, across_long)
        except (PathBlocked, Unreachable):
            squared_yaw = None  # the hand cannot turn that way here: grasp as perceived
    centred = squared_yaw is not None
    if not centred:
        # phase: approach, fingers opened only as wide as the grasp needs (neighbours stay clear)
        above, at = _offset_tool(above, quat, offset_mm), _offset_tool(at, quat, offset_mm)
        ctx.backend.set_gripper(closed=False, width_m=plan.opening_mm / 1000.0)
        wait_gripper(ctx)
        _transfer(ctx, above, quat, check_collisions=True)
        # phase: descend (the target brick itself is expected between the fingers)
        ctx.motion.move_to(ctx, at, quat, speed=0.05, check_collisions=False)
    elif offset_mm:
        # The opened fingers straddle the centred brick's sides: sliding along them to the grip point is free. The
        # slide follows the brick's axis as the squeeze left it (square to the squeezing hand), not the yaw from
        # perception (4 degrees off measured: 8 mm along that put the grip 0.6 mm off the brick's centreline).
        # The hand turns to that axis first: pads closing a few degrees across a brick off its centre squeeze it at
        # two corners and hold it skewed, its centre half a millimetre off the TCP's line.
        assert squared_yaw is not None
        axis = squared_yaw + math.pi / 2
        if math.cos(axis - _tool_yaw(ctx.backend.robot_state().ee_quaternion)) < 0.0:
            axis += math.pi
        quat = top_down_quaternion(axis)
        ctx.motion.move_to(ctx, at, quat, speed=0.05, check_collisions=False)
        above, at = _offset_tool(above, quat, offset_mm), _offset_tool(at, quat, offset_mm)
        ctx.motion.move_to(ctx, at, quat, speed=0.02, check_collisions=False)
    quat = ctx.backend.robot_state().ee_quaternion  # lift without turning the hand
    # phase: close (until the fingers stop moving) and verify attachment
    _settle(ctx, at)
    # A brick of the structure is clutched: the fingers must hold more than its studs' clutch to pull it off.
    ctx.backend.set_gripper(closed=True, force_n=PULL_GRIP_N if d.in_structure else GRIP_FORCE_N)
    width = wait_gripper(ctx)
    span_mm = _grip_span_mm(d, across_long)
    if width < span_mm - 2.5:
        ctx.backend.set_gripper(closed=False, width_m=plan.opening_mm / 1000.0)
        wait_gripper(ctx)
        ctx.motion.move_to(ctx, above, quat, speed=0.1, check_collisions=False)
        raise GraspFailed(f"the fingers closed to {width:.1f} mm without holding {brick} ({span_mm:.1f} mm wide); "
                          "observe() again and retry")
    if d.in_structure:
        # phase: pull off the studs, feeling for the fingers sliding up the brick's sides
        _pull_off(ctx, brick, d, plan, at, above, quat, span_mm)
    # phase: lift vertically
    ctx.motion.move_to(ctx, above, quat, speed=0.08, check_collisions=False)
    width = _gripper_width_mm(ctx)
    if width < span_mm - 2.5:
        if d.in_structure:
            raise GraspFailed(f"{brick} is clutched to the structure more strongly than the fingers can pull: it "
                              "stayed on its studs. Remove what stands on it first, or leave it")
        raise GraspFailed(f"{brick} slipped out of the fingers while lifting; observe() and pick it again")
    if d.in_structure:
        ctx.backend.set_gripper(closed=True, force_n=GRIP_FORCE_N)  # off the studs: the ordinary grip carries it
    ctx.held, ctx.held_descriptor, ctx.held_across_long = brick, d, across_long
    ctx.held_grip_depth_mm = d.top_z_mm - plan.z_mm
    ctx.held_offset_mm = offset_mm
    return PickResult(brick=brick, grasp=plan, lifted_to_mm=round(float(above[2]) * 1000.0, 1))


def _pull_off(ctx: SkillContext, brick: str, d: BrickDescriptor, plan: GraspPlan, at: np.ndarray, above: np.ndarray,
              quat: np.ndarray, span_mm: float) -> None:
    """Lift a structure brick in PULL_STEP_MM steps until its pads are past its top edge; raise StuckInStructure when
    the fingers lose it there: they slid up its sides while it stayed clutched (a brick that came off and slipped
    later would have left them higher)."""
    assert ctx.motion is not None
    pads_past_top_mm = (PLATE_GRIP_DEPTH_MM if d.height == "plate" else GRIP_DEPTH_MM) + PULL_PAST_TOP_MM
    # The pull is an intended contact: the pads' friction on a brick that holds, and the fingers closing over its top
    # edge when they slide off, reach past the ordinary reflex threshold (Franka programs raise their collision
    # thresholds for contact tasks the same way).
    ctx.backend.set_contact_reflex(PULL_REFLEX_N)
    try:
        lifted = _pull_steps(ctx, at, quat, span_mm, pads_past_top_mm)
    finally:
        ctx.backend.set_contact_reflex(None)
    if lifted is not None:
        ctx.backend.set_gripper(closed=False, width_m=plan.opening_mm / 1000.0)
        wait_gripper(ctx)
        ctx.motion.move_to(ctx, above, quat, speed=0.1, check_collisions=False)
        raise StuckInStructure(
            f"brick {brick} is clutched to the structure and did not come off: the fingers slid off its top after "
            f"{lifted:.0f} mm of lift while it stayed on its studs (the connection holds harder than the grip). "
            "It is still part of the structure; pick a loose brick, or remove the bricks that clamp it first."
        )


def _pull_steps(ctx: SkillContext, at: np.ndarray, quat: np.ndarray, span_mm: float,
                pads_past_top_mm: float) -> float | None:
    """Lift in PULL_STEP_MM steps until the pads are past the brick's top; the lift (mm) at which the fingers lost
    it, or None when they kept it."""
    assert ctx.motion is not None
    lifted = 0.0
    while lifted < pads_past_top_mm:
        lifted += PULL_STEP_MM
        step = at.copy()
        step[2] += lifted / 1000.0
        ctx.motion.move_to(ctx, step, quat, speed=0.02, check_collisions=False)
        if _gripper_width_mm(ctx) < span_mm - 2.5:
            return lifted
    return None


def _room_to_centre(ctx: SkillContext, d: BrickDescriptor, plan: GraspPlan) -> bool:
    """True when nothing perceived stands within reach of fingers opened around the brick and turning about it."""
    reach_mm = max(_centring_radius_mm(d), _grip_span_mm(d, across_long=True) / 2 + 6.0) + PAD_THICKNESS_MM + 1.0
    centre = np.array([d.x_mm, d.y_mm]) / 1000.0
    for other_id, pts in ctx.perceived.points.items():
        if other_id == d.id:
            continue
        high = pts[pts[:, 2] * 1000.0 > plan.z_mm - FINGERTIP_BELOW_TCP_MM - 3.0]
        if len(high) and float(np.min(np.linalg.norm(high[:, :2] - centre, axis=1))) * 1000.0 < reach_mm:
            return False
    return True


def _centre_between_fingers(ctx: SkillContext, d: BrickDescriptor, plan: GraspPlan, above: np.ndarray,
                            at: np.ndarray, across_long: bool) -> float | None:
    """Square a loose brick up under the TCP before the holding grasp, leaving open fingers across its short side.

    The fingers centre a brick only across their closing direction; along the pads it stays wherever perception
    put it (about half a millimetre off, enough to land a small brick on a neighbour's edge). Closing first
    across the other side, then turning the opened fingers a quarter turn about the brick, centres both axes.
    Returns the hand's yaw during the first squeeze, which squared the brick up to it; None (fingers open above
    the brick) when that squeeze closed on nothing: the brick is not where perception put it, and the ordinary
    grasp reports that.
    """
    assert ctx.motion is not None
    yaw = math.radians(plan.yaw_deg)
    quat_first = top_down_quaternion(_hand_yaw(ctx, above, yaw + math.pi / 2))
    ctx.backend.set_gripper(closed=False, width_m=(_grip_span_mm(d, not across_long) + CENTRING_OPENING_MM) / 1000.0)
    wait_gripper(ctx)
    _transfer(ctx, above, quat_first, check_collisions=True)
    ctx.motion.move_to(ctx, at, quat_first, speed=0.05, check_collisions=False)
    _settle(ctx, at)
    ctx.backend.set_gripper(closed=True, force_n=GRIP_FORCE_N)
    squeezed = wait_gripper(ctx)
    ctx.backend.set_gripper(closed=False, width_m=2 * _centring_radius_mm(d) / 1000.0)
    wait_gripper(ctx)
    if squeezed < _grip_span_mm(d, not across_long) - 2.5:
        ctx.motion.move_to(ctx, above, quat_first, speed=0.1, check_collisions=False)
        return None
    squared = _tool_yaw(ctx.backend.robot_state().ee_quaternion)
    ctx.motion.move_to(ctx, at, top_down_quaternion(_hand_yaw(ctx, at, yaw)), speed=0.05, check_collisions=False)
    return squared
