"""The task-oriented skill library (the JARVIS paper's main library).

Agent code names bricks by perception id and placements by studs; it never sets raw grasp
coordinates, IK targets or gripper forces. Every skill runs in named, checked phases and raises a
typed SkillError whose message says what went wrong and what to try.
"""

from __future__ import annotations

import math

import numpy as np

from jarvis_sim.gripper import GRIPPER_MAX_OPENING_M, PICK_OPENING_MIN_MM, opening_fits
from jarvis_sim.lego import units as u
from jarvis_sim.lego.assembly import LATTICE_LIMIT
from skills.context import SkillContext
from skills.errors import (
    AlreadyHolding,
    GraspFailed,
    InvalidArgument,
    NotGraspable,
    NothingHeld,
    PathBlocked,
    PlacementFailed,
    PlacementOccupied,
    StuckInStructure,
    TooWideForGripper,
    Unreachable,
)
from skills.geometry import (
    PITCH_MM,
    PLATE_MM,
    ground_placement_pose,
    height_kind,
    height_mm,
    placement_pose,
    relative_placement,
    snap_to_lattice,
)
from skills.hand import ABOVE_PADS, HAND_BOXES, PAD, HandBox, Obstacle, rects_overlap, struck
from skills.library.common import go_home, refresh_perception, wait_gripper
from skills.motion import PRESS_MAX_N, guarded_press, leave_park, step_watching, top_down_quaternion
from skills.registry import skill
from skills.types import BrickDescriptor, GraspPlan, PickResult, Placement, PlaceResult, Pose

APPROACH_HEIGHT_MM = 60.0  # above the highest thing under the gripper
FINGER_CLEARANCE_MM = 9.0  # finger thickness plus margin on each side of the brick
PICK_OPENING_MM = 6.0  # per side: how much wider than the brick the pads open to descend around it, room allowing
FINGER_HALF_WIDTH_MM = 4.0  # half the finger pad's width along the brick, with margin
GRIP_DEPTH_MM = 4.5  # pads centre this far below a brick's top face
PULL_STEP_MM = 1.0  # lift increments while pulling a structure brick off its studs (studs engage 1.7 mm)
PULL_PAST_TOP_MM = 6.0  # lift beyond the grip depth by which pads sliding up a stuck brick have left its top
PLATE_GRIP_DEPTH_MM = 1.6
FINGERTIP_BELOW_TCP_MM = 10.0  # the tool convention of jarvis_sim.backends.base
TIP_CLEARANCE_MM = 1.0
PRESS_OFFSET_MIN_MM = 1.0  # place(press_supported=True): nearer the centre than this, it is pressed at its centre
# A brick is gripped with the finger tips above the studs (1.7 mm) of whatever stands beside it at its seat: tips
# lower would land on those studs while the brick is still being pressed, and take the press off it.
BRICK_TIP_CLEARANCE_MM = 2.1
GRIP_FORCE_N = 2.0  # per finger: holds a 2x8 brick; harder squeezes twist thin plates out of the fingers
# Clutch is about 1 N per engaged stud (StableLego's T = 100 gf): pressing a brick on takes that much per stud,
# pulling one off as much again. The pads' friction (about 1.5 between pad and ABS) must carry either.
PRESS_N_PER_STUD = 1.0
PRESS_MARGIN_N = 2.0
PAD_FRICTION_ASSUMED = 1.0  # below the real pads' 1.5: the grip is sized with margin
PULL_GRIP_N = 15.0  # per finger, picking a brick off the structure (the Franka hand: 70 N continuous)
RELEASE_GRIP_N = 0.3  # per finger: the squeeze a placed brick is let go from
RELEASE_EASE_S = 0.05
PULL_REFLEX_N = 45.0  # the contact reflex while pulling: above the pulling grip's friction (2 x 15 N x 1.0)
PRESS_BELOW_SEAT_MM = 1.0  # the guarded descent's lowest point below the seat (the press stops at the give first)
CENTRING_OPENING_MM = 12.0  # the first squeeze of the centring opens this much wider than the brick's other side
RELEASE_OPENING_MM = 4.0  # the pads open this much wider than the brick to let it go (2 mm on each side)
PAD_HALF_WIDTH_MM = PAD.half_along_mm  # finger pad (LEGO fingertips), across the finger travel
PAD_THICKNESS_MM = PAD.across_mm[1] - PAD.across_mm[0]
SEATED_TOLERANCE_MM = 2.0
PUT_DOWN_TOLERANCE_MM = 10.0
PRECISE_SETTLE_MM = 0.03  # in-plane TCP error allowed when the fingers close on or let go of a brick
VERIFY_ASIDE_M = 0.15  # how far the hand steps aside before the camera checks a placement
GROUND = "ground"  # support name of the build area's level 0 (table or baseplate), studs counted from its corner


@skill("task")
def observe(ctx: SkillContext) -> list[BrickDescriptor]:
    """Look at the workspace with the top camera and return every visible brick.

    Each descriptor has: id (perception id such as 'p4', stable while the brick does not move),
    color, size (studs, long side first), height ('brick', 'plate' or 'unknown' on the structure),
    x_mm, y_mm (top-face centre), top_z_mm, yaw_deg (long side, 0-180), in_structure,
    free_to_grasp, visible_fraction. Estimates carry errors of about a millimetre.
    Call it again after bricks move; ids of moved bricks may change.
    """
    return refresh_perception(ctx)


@skill("task")
def find_bricks(ctx: SkillContext, color: str | None = None, size: tuple[int, int] | None = None,
                loose_only: bool = False) -> list[BrickDescriptor]:
    """Filter the last observation: bricks of a colour name and/or a size in studs, e.g. (4, 2).

    loose_only=True keeps only bricks lying in the staging area (not part of the structure).
    Returns them ordered by id. Call observe() first.
    """
    out = []
    want = tuple(sorted(size, reverse=True)) if size is not None else None
    for d in ctx.perceived.descriptors.values():
        if color is not None and d.color != color.lower():
            continue
        if want is not None and d.size != want:
            continue
        if loose_only and d.in_structure:
            continue
        out.append(d)
    return sorted(out, key=lambda d: int(d.id[1:]))


@skill("task")
def placement(ctx: SkillContext, support: str, brick: str, stud_x: int, stud_y: int, rotation: int = 0) -> Placement:
    """Where `brick` would sit if placed on `support` with its footprint corner over stud (stud_x, stud_y).

    Studs are counted from 0 along the support's long side (x) and short side (y), starting at the
    corner opposite to the support's yaw direction. rotation is in quarter turns (0-3) relative to
    the support's long side. support="ground" means the build area itself (level 0): studs are then
    counted along world x and y from the build area's corner, given in the task description. Negative or large offsets overhang the support. Returns the placement
    and the world pose (top-face centre in mm, yaw in degrees) the brick will have.
    """
    if rotation not in (0, 1, 2, 3):
        raise InvalidArgument(f"rotation must be 0, 1, 2 or 3 quarter turns, not {rotation}")
    b = ctx.descriptor(brick)
    pose = _placement_pose(ctx, support, b, stud_x, stud_y, rotation)
    return Placement(support=support, stud_x=stud_x, stud_y=stud_y, rotation=rotation, pose=pose)


@skill("task")
def where_is(ctx: SkillContext, brick: str, support: str) -> dict[str, int]:
    """Where `brick` sits relative to `support`, in the same terms as placement():

    returns {"stud_x", "stud_y", "rotation", "level"} where level is the height difference in
    plates between the brick's bottom and the support's top (0 = resting on it).
    """
    b = snap_to_lattice(ctx.descriptor(brick), ctx.workspace)
    s = snap_to_lattice(ctx.descriptor(support), ctx.workspace)
    sx, sy, rot, level = relative_placement(b, s)
    return {"stud_x": sx, "stud_y": sy, "rotation": rot, "level": level}


@skill("task")
def grasp_plan(ctx: SkillContext, brick: str) -> GraspPlan:
    """Estimate a top-down grasp of a brick from the point cloud: fingers close across its short side.

    Checks there is room for the fingers on both sides; raises not_graspable otherwise.
    """
    return _grasp_plan(ctx, brick, across_long=False)


def _grip_span_mm(d: BrickDescriptor, across_long: bool) -> float:
    """The brick's width between the finger pads (mm)."""
    return d.size[0 if across_long else 1] * PITCH_MM - u.FIT_GAP_M * 1000.0


def _grasp_plan(ctx: SkillContext, brick: str, across_long: bool) -> GraspPlan:
    """A top-down grasp closing across the brick's short side, or across its long side (for a regrasp)."""
    d = ctx.descriptor(brick)
    pts = ctx.perceived.points.get(brick)
    if pts is None:
        raise NotGraspable(f"brick {brick} has no point cloud in the last observation; call observe()")
    yaw_deg = d.yaw_deg + (90.0 if across_long else 0.0)
    span_mm = _grip_span_mm(d, across_long)
    if not opening_fits(span_mm + 2 * PICK_OPENING_MIN_MM):
        side = "long" if across_long else "narrow"
        raise TooWideForGripper(
            f"brick {brick} (a {d.size[0]} x {d.size[1]} {d.height}) is {span_mm:.1f} mm across its {side} side, where "
            f"the fingers would close; the gripper opens {GRIPPER_MAX_OPENING_M * 1000.0:.0f} mm at most, so it "
            "cannot be picked this way" + ("; pick it across its narrow side" if across_long else ""))
    depth = PLATE_GRIP_DEPTH_MM if d.height == "plate" else GRIP_DEPTH_MM
    centre = np.array([d.x_mm, d.y_mm]) / 1000.0
    # The finger tips reach FINGERTIP_BELOW_TCP_MM below the TCP: keep them off whatever the brick rests on.
    rest_z = d.top_z_mm - height_mm(height_kind(d))
    clearance = TIP_CLEARANCE_MM if d.height == "plate" else BRICK_TIP_CLEARANCE_MM
    pad_z = max(d.top_z_mm - depth, rest_z + FINGERTIP_BELOW_TCP_MM + clearance)
    gap, neighbour = _finger_room(ctx, brick, centre, math.radians(yaw_deg), span_mm, pad_z)
    if gap < FINGER_CLEARANCE_MM:
        raise NotGraspable(
            f"brick {brick} has a neighbour {neighbour} only {gap:.1f} mm from its side: the fingers "
            "do not fit. Move the neighbour first or leave this brick."
        )
    # The pads open only as far as the room beside the brick allows: wide open, they would land on a neighbour.
    opening = span_mm + 2 * min(PICK_OPENING_MM, max(PICK_OPENING_MIN_MM, gap - PAD_THICKNESS_MM - 0.5))
    opening = min(opening, GRIPPER_MAX_OPENING_M * 1000.0)
    # The pads' own room is the gap just measured; above them, the upper fingers and the hand reach wider.
    blockers = _hand_blockers(ctx, d.x_mm, d.y_mm, math.radians(yaw_deg), (span_mm, opening),
                              pad_z - FINGERTIP_BELOW_TCP_MM, {brick}, ABOVE_PADS)
    if blockers:
        raise NotGraspable(
            f"brick {brick} stands beside taller bricks ({', '.join(sorted(blockers))}) that the upper fingers or the "
            "hand would strike while gripping it. Remove them first or leave this brick."
        )
    return GraspPlan(
        brick=brick, x_mm=d.x_mm, y_mm=d.y_mm, z_mm=round(pad_z, 2), yaw_deg=round(yaw_deg % 180.0, 3),
        opening_mm=round(opening, 1), clearance_mm=round(min(gap, 99.0), 1),
    )


def _finger_room(ctx: SkillContext, brick: str, centre: np.ndarray, yaw: float, span_mm: float,
                 pad_z: float) -> tuple[float, str | None]:
    """Free space (mm) beside fingers closing on `span_mm` of a brick across the normal of direction `yaw`.

    Looks for other bricks' points higher than the pads' bottom inside each finger's corridor and returns the
    smallest gap between the brick's side and one of them (inf when none), with that brick's id. The fingers
    fit when the gap is at least FINGER_CLEARANCE_MM.
    """
    along = np.array([math.cos(yaw), math.sin(yaw)])
    across = np.array([-math.sin(yaw), math.cos(yaw)])
    gap, nearest = math.inf, None
    for other_id, other_pts in ctx.perceived.points.items():
        if other_id == brick:
            continue
        high = other_pts[other_pts[:, 2] * 1000.0 > pad_z - 3.0]
        if not len(high):
            continue
        rel = (high[:, :2] - centre) * 1000.0
        beside = np.abs(rel @ across)[np.abs(rel @ along) < FINGER_HALF_WIDTH_MM] - span_mm / 2
        beside = beside[beside > 0]
        if len(beside) and float(beside.min()) < gap:
            gap, nearest = float(beside.min()), other_id
    return gap, nearest


def _tool_yaw(quat: np.ndarray) -> float:
    """Yaw of a top-down tool orientation (skills.motion.top_down_quaternion's inverse)."""
    return 2.0 * math.atan2(float(quat[2]), float(quat[1]))


def _offset_tool(position: np.ndarray, quat: np.ndarray, offset_mm: float) -> np.ndarray:
    """The TCP position that leaves a brick centred at `position` `offset_mm` along the tool's x axis from the TCP."""
    yaw = _tool_yaw(quat)
    return position - np.array([math.cos(yaw), math.sin(yaw), 0.0]) * offset_mm / 1000.0


def _pad_target(ctx: SkillContext, x_mm: float, y_mm: float, pad_z_mm: float) -> np.ndarray:
    """TCP position putting the finger pads' centre at a height (the TCP is between the pads)."""
    return np.array([x_mm / 1000.0, y_mm / 1000.0, pad_z_mm / 1000.0])  # heights are above the table (z = 0)


def _settle(ctx: SkillContext, position: np.ndarray, max_s: float = 0.6) -> None:
    """Step until the TCP is within PRECISE_SETTLE_MM of `position` in the plane (or max_s passes).

    A move ends once the TCP is within 0.15 mm, still drifting; closing or opening the fingers then drags the
    brick along by that drift, while a brick set between clutched neighbours has 0.1 mm to spare.
    """
    chunk = max(1, int(0.01 / ctx.backend.control_dt))
    for _ in range(max(1, int(max_s / 0.01))):
        if float(np.linalg.norm(ctx.backend.robot_state().ee_position[:2] - position[:2])) * 1000.0 < PRECISE_SETTLE_MM:
            return
        ctx.backend.step(chunk)


def _gripper_width_mm(ctx: SkillContext) -> float:
    return ctx.backend.robot_state().gripper_width * 1000.0


@skill("task")
def pick(ctx: SkillContext, brick: str) -> PickResult:
    """Pick a brick by its perception id: approach from above, descend, close, verify, lift.

    The brick must be visible in the last observation, not covered by another brick, with room for
    the fingers. Picking a brick clutched to the structure pulls it off (to undo a mistake).
    Raises already_holding, unknown_brick, not_graspable, grasp_failed, or stuck_in_structure when a
    brick of the structure holds on to its studs and does not come off.
    """
    return _pick(ctx, brick, across_long=False)


def _pick(ctx: SkillContext, brick: str, across_long: bool, offset_mm: float = 0.0) -> PickResult:
    """pick(); `offset_mm` grips the brick off its centre: its centre ends that far from the TCP along the pads'
    width (the tool's x axis), so that place() can press it over the studs it engages."""
    if ctx.held is not None:
        raise AlreadyHolding(f"the gripper already holds {ctx.held}; place it before picking {brick}")
    d = ctx.descriptor(brick)
    if not d.free_to_grasp and not d.in_structure:
        raise NotGraspable(f"brick {brick} is covered or mostly hidden (visible {d.visible_fraction:.0%}): clear what "
                           "lies on it, or go_home() and observe() again if the arm hides it")
    plan = _grasp_plan(ctx, brick, across_long)
    assert ctx.motion is not None
    above = _pad_target(ctx, plan.x_mm, plan.y_mm, d.top_z_mm + APPROACH_HEIGHT_MM)
    at = _pad_target(ctx, plan.x_mm, plan.y_mm, plan.z_mm)
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


def _centring_radius_mm(d: BrickDescriptor) -> float:
    """Finger opening half-width (mm) at which open fingers turn about a brick's centre without touching it."""
    long_mm, short_mm = _grip_span_mm(d, across_long=True), _grip_span_mm(d, across_long=False)
    return max(long_mm / 2 + 2.0, math.hypot(long_mm, short_mm) / 2 + 1.5)


def _centring_fits(d: BrickDescriptor, across_long: bool) -> bool:
    """Whether the hand opens wide enough to square this brick up (a 6 x 8 plate needs 82.7 mm to turn the opened
    fingers about it): a wider brick is grasped as perceived."""
    return opening_fits(2 * _centring_radius_mm(d)) and opening_fits(_grip_span_mm(d, not across_long) + CENTRING_OPENING_MM)


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


def _transit_height(ctx: SkillContext) -> float:
    """World z (m) at which the TCP crosses the workspace: above everything perceived, held brick included."""
    tops = [d.top_z_mm for d in ctx.perceived.descriptors.values()] or [0.0]
    held_below = 0.0
    if ctx.held_descriptor is not None:  # the held brick hangs below the TCP
        held_below = height_mm(height_kind(ctx.held_descriptor))
    return (max(tops) + APPROACH_HEIGHT_MM + held_below) / 1000.0


def _transfer(ctx: SkillContext, target: np.ndarray, quat: np.ndarray, check_collisions: bool) -> None:
    """Lift vertically to the transit height, cross horizontally, descend vertically to `target`."""
    assert ctx.motion is not None
    leave_park(ctx)
    state = ctx.backend.robot_state()
    z = max(_transit_height(ctx), float(target[2]))
    if state.ee_position[2] < z:
        lift = state.ee_position.copy()
        lift[2] = z
        ctx.motion.move_to(ctx, lift, state.ee_quaternion, speed=0.2, check_collisions=False)  # straight up: free
    over = target.copy()
    over[2] = z
    ctx.motion.move_to(ctx, over, quat, speed=0.25, check_collisions=check_collisions)
    ctx.motion.move_to(ctx, target, quat, speed=0.2, check_collisions=check_collisions)


@skill("task")
def place(ctx: SkillContext, pose: Pose, press_supported: bool = False) -> PlaceResult:
    """Place the held brick so that its top-face centre ends at `pose` (mm) with yaw `pose.yaw_deg`.

    Use placement(...) to compute a pose on studs. Moves above the target, descends vertically,
    presses the brick onto the studs (about 1 N per stud), releases, retreats and checks that the
    brick is seated: it seats only when it comes down within a fraction of a millimetre of the studs. When bricks
    beside the target leave the fingers no room, the brick is first set down and gripped across its other
    side; path_blocked when neither side has room (place it before its neighbours).
    press_supported: press over the studs the brick takes from the bricks below it (as perceived) instead of at
    its centre, for a brick overhanging its support: pressed at its centre, it levers on what holds it. The brick
    is then set down and gripped again off its centre first, as far along its length as the fingers allow.
    Raises nothing_held, placement_occupied, unreachable, path_blocked or placement_failed.
    """
    if not isinstance(press_supported, bool):
        raise InvalidArgument(f"press_supported must be True or False, not {press_supported!r}")
    if ctx.held_descriptor is None:
        raise NothingHeld("the gripper holds nothing: pick(brick) first")
    press_at = _supported_centre(ctx, pose, ctx.held_descriptor) if press_supported else None
    return _place(ctx, pose, SEATED_TOLERANCE_MM, press_at)


def _supported_centre(ctx: SkillContext, pose: Pose, held: BrickDescriptor) -> tuple[float, float] | None:
    """The middle (x, y mm) of the held brick's studs, placed at `pose`, that stand over a perceived brick whose top is
    the placed brick's bottom; None when none does (on the ground every stud is supported: its centre)."""
    bottom = pose.z_mm - height_mm(height_kind(held))
    supports = [d for pid, d in ctx.perceived.descriptors.items()
                if pid != ctx.held and abs(d.top_z_mm - bottom) < 1.0]
    yaw = math.radians(pose.yaw_deg)
    along, across = np.array([math.cos(yaw), math.sin(yaw)]), np.array([-math.sin(yaw), math.cos(yaw)])
    taken = []
    for i in range(held.size[0]):
        for j in range(held.size[1]):
            stud = (np.array([pose.x_mm, pose.y_mm]) + ((i - (held.size[0] - 1) / 2) * along
                                                        + (j - (held.size[1] - 1) / 2) * across) * PITCH_MM)
            for d in supports:
                dyaw = math.radians(d.yaw_deg)
                rel = stud - (d.x_mm, d.y_mm)
                if (abs(rel @ (math.cos(dyaw), math.sin(dyaw))) < d.size[0] * PITCH_MM / 2
                        and abs(rel @ (-math.sin(dyaw), math.cos(dyaw))) < d.size[1] * PITCH_MM / 2):
                    taken.append(stud)
                    break
    if not taken:
        return None
    x, y = np.mean(taken, axis=0)
    return float(x), float(y)


def _place(ctx: SkillContext, pose: Pose, tolerance_mm: float,
           press_at: tuple[float, float] | None = None) -> PlaceResult:
    """place(), with the in-plane distance from `pose` within which the brick counts as where it should be."""
    if ctx.held is None or ctx.held_descriptor is None:
        raise NothingHeld("the gripper holds nothing: pick(brick) first")
    held = ctx.held_descriptor
    span_mm = _grip_span_mm(held, ctx.held_across_long)
    if abs(_gripper_width_mm(ctx) - span_mm) > 2.5:  # closed on nothing, or opened
        brick = ctx.held
        _let_go(ctx)
        raise GraspFailed(f"{brick} is no longer between the fingers (it slipped after the pick); observe() to "
                          "find it, then pick it again")
    _check_free(ctx, pose, held)
    gripper_yaw = _free_gripper_yaw(ctx, pose, held)
    if gripper_yaw is None:
        gripper_yaw = _regrasp_for(ctx, pose)
    hand_yaw = None
    if press_at is not None:
        hand_yaw = _grip_to_press_at(ctx, pose, gripper_yaw, press_at)
    held = ctx.held_descriptor
    assert held is not None
    span_mm = _grip_span_mm(held, ctx.held_across_long)
    grip_depth = ctx.held_grip_depth_mm
    above = _pad_target(ctx, pose.x_mm, pose.y_mm, pose.z_mm - grip_depth + APPROACH_HEIGHT_MM)
    quat = top_down_quaternion(_hand_yaw(ctx, above, gripper_yaw) if hand_yaw is None else hand_yaw)
    near = _pad_target(ctx, pose.x_mm, pose.y_mm, pose.z_mm - grip_depth + 4.0)
    # The descent may go on below the seat: a well aligned brick can slide down the studs before the press force
    # builds up, and must then be pressed onto its support. The press stops on force long before this depth.
    seat = _pad_target(ctx, pose.x_mm, pose.y_mm, pose.z_mm - grip_depth - PRESS_BELOW_SEAT_MM)
    above, near, seat = (_offset_tool(p, quat, ctx.held_offset_mm) for p in (above, near, seat))
    assert ctx.motion is not None
    # phase: transfer above the target at a safe height, then descend to just above the studs
    _transfer(ctx, above, quat, check_collisions=False)
    ctx.motion.move_to(ctx, near, quat, speed=0.05, check_collisions=False)
    _settle(ctx, near)
    # phase: press. The brick lands on the stud tops and seats only when pressed down within the studs' lead-in
    # (a fraction of a millimetre); the grip is tightened first so the brick does not slip up between the pads.
    press_n = min(PRESS_N_PER_STUD * held.size[0] * held.size[1] + PRESS_MARGIN_N, PRESS_MAX_N)
    ctx.backend.set_gripper(closed=True, force_n=max(GRIP_FORCE_N, press_n / (2 * PAD_FRICTION_ASSUMED)))
    # A brick that gives has snapped in and is pulled down into its seat: the press squeeze is eased at once, so it
    # slides the last fraction of a millimetre between the pads instead of hanging the arm on the clutch (a 2x6
    # plate held with the press grip pulled the hand down with 50 N and set off the reflex).
    guarded_press(ctx, seat, quat, press_n,
                  on_give=lambda: ctx.backend.set_gripper(closed=True, force_n=RELEASE_GRIP_N))
    # phase: release (a few mm wider than the brick) and retreat. The squeeze is eased off first: fingers opening
    # from a press grip let go one a moment before the other, and the other's squeeze then pushes the seated brick
    # sideways, prying the structure below (a 1-wide brick's clutch holds 0.03 N m at most).
    ctx.backend.set_gripper(closed=True, force_n=RELEASE_GRIP_N)
    step_watching(ctx, max(1, round(RELEASE_EASE_S / ctx.backend.control_dt)))
    ctx.backend.set_gripper(closed=False, width_m=min(span_mm + RELEASE_OPENING_MM, GRIPPER_MAX_OPENING_M * 1000.0)
                            / 1000.0)
    wait_gripper(ctx)
    ctx.motion.move_to(ctx, above, quat, speed=0.1, check_collisions=False)
    # Step aside (to -y, away from the staging area) so the hand no longer hides the brick from the camera.
    aside = above.copy()
    aside[1] -= VERIFY_ASIDE_M
    ctx.motion.move_to(ctx, aside, quat, speed=0.25, check_collisions=False)
    brick = ctx.held
    _let_go(ctx)
    # phase: verify
    found = _find_near(ctx, held, pose)
    if found is None:  # the arm may still hide it (part of a brick reads as a smaller one): look from the park pose
        go_home(ctx)
        found = _find_near(ctx, held, pose)
    if found is None:
        raise PlacementFailed(f"after release {brick} is not near ({pose.x_mm:.1f}, {pose.y_mm:.1f}) mm; observe() "
                              "to find it, then pick and place it again")
    err = math.hypot(found.x_mm - pose.x_mm, found.y_mm - pose.y_mm)
    dz = found.top_z_mm - pose.z_mm
    if err > tolerance_mm or abs(dz) > 1.2:
        raise PlacementFailed(f"{brick} landed {err:.1f} mm off and {dz:+.1f} mm high: not seated on the studs. "
                              f"It is now {found.id}; pick it and place again")
    return PlaceResult(brick=found.id, pose=Pose(x_mm=found.x_mm, y_mm=found.y_mm, z_mm=found.top_z_mm,
                                                 yaw_deg=found.yaw_deg), error_mm=round(err, 2), seated=True)


@skill("task")
def place_on(ctx: SkillContext, support: str, stud_x: int, stud_y: int, rotation: int = 0,
             press_supported: bool = False) -> PlaceResult:
    """Place the held brick on `support` with its footprint corner over stud (stud_x, stud_y).

    Same stud convention as placement(). Equivalent to place(placement(support, held, ...).pose, press_supported).
    """
    if ctx.held is None or ctx.held_descriptor is None:
        raise NothingHeld("the gripper holds nothing: pick(brick) first")
    if rotation not in (0, 1, 2, 3):
        raise InvalidArgument(f"rotation must be 0, 1, 2 or 3 quarter turns, not {rotation}")
    return place(ctx, _placement_pose(ctx, support, ctx.held_descriptor, stud_x, stud_y, rotation), press_supported)


def _placement_pose(ctx: SkillContext, support: str, brick: BrickDescriptor, stud_x: int, stud_y: int,
                    rotation: int) -> Pose:
    """Pose of `brick` placed on a perceived support, or on the build area's lattice for 'ground'."""
    height = height_kind(brick)
    if support == GROUND:
        return ground_placement_pose(ctx.workspace, brick.size, height, stud_x, stud_y, rotation)
    sup = snap_to_lattice(ctx.descriptor(support), ctx.workspace)
    return placement_pose(sup, brick.size, height, stud_x, stud_y, rotation)


@skill("task")
def place_at(ctx: SkillContext, stud_x: int, stud_y: int, level: int, rotation: int = 0,
             press_supported: bool = False) -> PlaceResult:
    """Place the held brick on the build area's stud lattice: footprint corner at (stud_x, stud_y), its
    bottom `level` plates above level 0 (a brick is 3 plates tall), turned `rotation` quarter turns;
    press_supported as in place().

    Coordinates count studs along world x and y from the build area's corner given in the task.
    The studs below must exist (a brick or the ground at level 0), or the brick will not be seated.
    """
    if ctx.held is None or ctx.held_descriptor is None:
        raise NothingHeld("the gripper holds nothing: pick(brick) first")
    if rotation not in (0, 1, 2, 3):
        raise InvalidArgument(f"rotation must be 0, 1, 2 or 3 quarter turns, not {rotation}")
    if not 0 <= level <= LATTICE_LIMIT:
        raise InvalidArgument(f"level must lie in 0..{LATTICE_LIMIT} plates, not {level}")
    held = ctx.held_descriptor
    pose = ground_placement_pose(ctx.workspace, held.size, height_kind(held),
                                 stud_x, stud_y, rotation)
    return place(ctx, pose.model_copy(update={"z_mm": round(pose.z_mm + level * PLATE_MM, 3)}), press_supported)


@skill("task")
def put_down(ctx: SkillContext) -> PlaceResult:
    """Put the held brick down on a free spot of the staging area (to recover after a failed placement).

    The spot is chosen from the last observation, away from other loose bricks. Raises nothing_held.
    """
    if ctx.held is None or ctx.held_descriptor is None:
        raise NothingHeld("the gripper holds nothing")
    held = ctx.held_descriptor
    ws = ctx.workspace
    others = [(d.x_mm, d.y_mm) for pid, d in ctx.perceived.descriptors.items() if pid != ctx.held]
    best, best_gap = None, -1.0
    for fx in np.linspace(0.15, 0.85, 8):
        for fy in np.linspace(0.15, 0.85, 6):
            x = (ws.staging_min[0] + fx * (ws.staging_max[0] - ws.staging_min[0])) * 1000
            y = (ws.staging_min[1] + fy * (ws.staging_max[1] - ws.staging_min[1])) * 1000
            gap = min((math.hypot(x - ox, y - oy) for ox, oy in others), default=1e9)
            if gap > best_gap:
                best, best_gap = (x, y), gap
    assert best is not None
    pose = Pose(x_mm=round(best[0], 2), y_mm=round(best[1], 2),
                z_mm=height_mm(height_kind(held)), yaw_deg=held.yaw_deg)
    return _place(ctx, pose, PUT_DOWN_TOLERANCE_MM)  # no studs there: where it lands flat is fine


def _free_gripper_yaw(ctx: SkillContext, pose: Pose, held: BrickDescriptor) -> float | None:
    """Gripper yaw for the placement whose finger pads have room beside the brick at the target, or None.

    A square brick can be turned in the hand a quarter turn further, so both finger axes are tried.
    """
    base = _gripper_yaw(ctx, pose.yaw_deg)
    options = [base, base + math.pi / 2] if held.size[0] == held.size[1] else [base]
    span_mm = _grip_span_mm(held, ctx.held_across_long)
    for yaw in options:
        if not _finger_blockers(ctx, pose, held, yaw, span_mm):
            return yaw
    return None


def _regrasp_for(ctx: SkillContext, pose: Pose) -> float:
    """Set the held brick down in the staging area and pick it again across its other side, when only that grip
    leaves the fingers room beside it at the target; returns the new gripper yaw. Raises path_blocked when
    neither grip has room."""
    held = ctx.held_descriptor
    assert held is not None and ctx.held is not None
    base = _gripper_yaw(ctx, pose.yaw_deg)
    turned = not ctx.held_across_long
    blockers = _finger_blockers(ctx, pose, held, base, _grip_span_mm(held, ctx.held_across_long))
    if held.size[0] == held.size[1] or _finger_blockers(ctx, pose, held, base + math.pi / 2,
                                                        _grip_span_mm(held, turned)):
        raise PathBlocked(
            f"the fingers have no room beside {ctx.held} at ({pose.x_mm:.1f}, {pose.y_mm:.1f}) mm: "
            f"{', '.join(sorted(set(blockers)))} stand(s) where they must pass. Place this brick before its "
            "neighbours, or put_down() and choose another target."
        )
    put = put_down(ctx)
    go_home(ctx)  # out of the camera's view: the hand beside the brick hides half of it
    again = _find_near(ctx, held, put.pose)
    if again is None:
        raise PlacementFailed(f"{put.brick}, set down to be gripped the other way, is no longer near "
                              f"({put.pose.x_mm:.1f}, {put.pose.y_mm:.1f}) mm; observe() to find it")
    _pick(ctx, again.id, across_long=turned)
    return _gripper_yaw(ctx, pose.yaw_deg)


def _grip_to_press_at(ctx: SkillContext, pose: Pose, gripper_yaw: float, press_at: tuple[float, float]) -> float | None:
    """Grip the held brick so that the TCP, where the press goes through, comes as near `press_at` as the fingers
    allow along the brick (set down and picked again off its centre when the present grip does not do it).
    Returns the hand yaw that brings the TCP there, or None to press at the centre: press_at lies within a
    millimetre of it, or the hand has no room at the offset."""
    held = ctx.held_descriptor
    assert held is not None and ctx.held is not None
    along = np.array([math.cos(gripper_yaw), math.sin(gripper_yaw)])
    reach = held.size[1 if ctx.held_across_long else 0] * PITCH_MM / 2 - PAD.half_along_mm - 0.5
    t = float(np.clip(np.dot(np.array(press_at) - (pose.x_mm, pose.y_mm), along), -reach, reach))
    if abs(t) < PRESS_OFFSET_MIN_MM and not ctx.held_offset_mm:
        return None
    tool = pose.model_copy(update={"x_mm": pose.x_mm + t * along[0], "y_mm": pose.y_mm + t * along[1]})
    if abs(abs(ctx.held_offset_mm) - abs(t)) < PRESS_OFFSET_MIN_MM / 2:  # already gripped there
        return _yaw_pressing_at(ctx, pose, tool)
    if _finger_blockers(ctx, tool, held, gripper_yaw, _grip_span_mm(held, ctx.held_across_long)):
        return None
    # Of the hand's two yaws pressing there, the one farther from joint 7's limits; the grip's sign follows.
    above = _pad_target(ctx, tool.x_mm, tool.y_mm, pose.z_mm + APPROACH_HEIGHT_MM)
    preferred = _hand_yaw(ctx, above, gripper_yaw)
    offset_mm = -t * math.cos(preferred - gripper_yaw)
    across_long = ctx.held_across_long
    put = put_down(ctx)
    go_home(ctx)  # out of the camera's view: the hand beside the brick hides half of it
    again = _find_near(ctx, held, put.pose)
    if again is None:
        raise PlacementFailed(f"{put.brick}, set down to be gripped off its centre, is no longer near "
                              f"({put.pose.x_mm:.1f}, {put.pose.y_mm:.1f}) mm; observe() to find it")
    _pick(ctx, again.id, across_long=across_long, offset_mm=offset_mm)
    return _yaw_pressing_at(ctx, pose, tool)


def _yaw_pressing_at(ctx: SkillContext, pose: Pose, tool: Pose) -> float:
    """The hand yaw, of those turning the held brick onto `pose`'s yaw (a half turn apart, or a quarter for a square
    brick), that puts the TCP nearest `tool` with the brick centred on `pose` (the grip is ctx.held_offset_mm off the
    brick's centre along the tool's x axis)."""
    assert ctx.held_descriptor is not None
    base = _gripper_yaw(ctx, pose.yaw_deg)
    turns = 4 if ctx.held_descriptor.size[0] == ctx.held_descriptor.size[1] else 2
    candidates = [base + k * 2 * math.pi / turns for k in range(turns)]
    h = ctx.held_offset_mm
    return min(candidates, key=lambda yaw: math.hypot(pose.x_mm - h * math.cos(yaw) - tool.x_mm,
                                                      pose.y_mm - h * math.sin(yaw) - tool.y_mm))


def _let_go(ctx: SkillContext) -> None:
    """Forget the held brick (after a release, or when it slipped out)."""
    ctx.held, ctx.held_descriptor, ctx.held_across_long, ctx.held_offset_mm = None, None, False, 0.0


def _finger_blockers(ctx: SkillContext, pose: Pose, held: BrickDescriptor, gripper_yaw: float,
                     span_mm: float) -> list[str]:
    """Perceived bricks that some part of the hand (skills/hand.py: pads, upper fingers, the hand's body) would hit
    with the held brick at its seat, while the fingers press it (closed on the brick) and while they open to let go."""
    tips_z = pose.z_mm - ctx.held_grip_depth_mm - FINGERTIP_BELOW_TCP_MM - PRESS_BELOW_SEAT_MM
    return _hand_blockers(ctx, pose.x_mm, pose.y_mm, gripper_yaw, (span_mm, span_mm + RELEASE_OPENING_MM), tips_z,
                          exclude={ctx.held} if ctx.held else set())


def _hand_blockers(ctx: SkillContext, x_mm: float, y_mm: float, gripper_yaw: float, openings: tuple[float, ...],
                   tips_z: float, exclude: set[str], boxes: tuple[HandBox, ...] = HAND_BOXES) -> list[str]:
    """Perceived bricks (not in `exclude`) standing where a box of the hand would be, with the tool at (x, y) and its
    tips at `tips_z`, at any of the finger openings (mm between the pads)."""
    seen = [d for pid, d in ctx.perceived.descriptors.items() if pid not in exclude]
    obstacles = [Obstacle((d.x_mm, d.y_mm), d.yaw_deg, (d.size[0] * 4.0 - 0.6, d.size[1] * 4.0 - 0.6), d.top_z_mm)
                 for d in seen]
    return [seen[k].id for k in struck(x_mm, y_mm, gripper_yaw, openings, tips_z, obstacles, boxes)]


def _gripper_yaw(ctx: SkillContext, target_yaw_deg: float) -> float:
    """Gripper yaw turning the held brick from its picked yaw to the target yaw by the shortest way."""
    assert ctx.held_descriptor is not None
    picked = ctx.held_descriptor.yaw_deg
    sym = 90.0 if ctx.held_descriptor.size[0] == ctx.held_descriptor.size[1] else 180.0
    delta = (target_yaw_deg - picked) % sym
    if delta > sym / 2:
        delta -= sym
    turn = 90.0 if ctx.held_across_long else 0.0  # the fingers' direction relative to the brick's long side
    return math.radians(picked + delta + turn)


def _hand_yaw(ctx: SkillContext, position: np.ndarray, yaw: float) -> float:
    """Of the gripper yaws yaw + k * 180 deg (the hand is symmetric under a half turn), the one to use at `position`:
    the one leaving joint 7 farthest from its limits (a yaw near a limit stalls the hand short of it), else the
    one nearest the hand's present yaw."""
    state = ctx.backend.robot_state()
    now = _tool_yaw(state.ee_quaternion)
    near = yaw + math.pi * math.floor((now - yaw) / math.pi + 0.5)
    best, best_q7 = near, math.inf
    for candidate in (near, near - math.pi, near + math.pi):
        sol = ctx.backend.solve_ik(position, top_down_quaternion(candidate), state.joint_positions)
        if sol is not None and abs(float(sol[6])) < best_q7 - 1e-3:  # joint 7's range is symmetric about 0
            best, best_q7 = candidate, abs(float(sol[6]))
    return best


def _check_free(ctx: SkillContext, pose: Pose, held: BrickDescriptor) -> None:
    """Raise placement_occupied when a perceived brick already fills the target volume."""
    bottom = pose.z_mm - height_mm(height_kind(held))
    for pid, d in ctx.perceived.descriptors.items():
        if pid == ctx.held:
            continue
        if d.top_z_mm > bottom + 1.0 and _footprints_overlap(pose, held, d):
            raise PlacementOccupied(f"the target is occupied by {pid} ({d.color} {d.size[0]}x{d.size[1]}) whose top "
                                    f"is at {d.top_z_mm:.1f} mm; choose other studs or remove {pid}")


def _footprints_overlap(pose: Pose, held: BrickDescriptor, other: BrickDescriptor) -> bool:
    """True when two brick footprints (shrunk by 0.4 mm per side) overlap."""
    return rects_overlap((pose.x_mm, pose.y_mm), pose.yaw_deg, (held.size[0] * 4.0 - 0.5, held.size[1] * 4.0 - 0.5),
                         (other.x_mm, other.y_mm), other.yaw_deg, (other.size[0] * 4.0 - 0.5, other.size[1] * 4.0 - 0.5))


def _find_near(ctx: SkillContext, held: BrickDescriptor, pose: Pose) -> BrickDescriptor | None:
    """After a release: the observed brick of the held size nearest to the target (colour names can change
    with the lighting between the staging area and the structure, sizes cannot)."""
    best, best_d = None, 25.0
    for d in refresh_perception(ctx):
        if d.size != held.size:
            continue
        dist = math.hypot(d.x_mm - pose.x_mm, d.y_mm - pose.y_mm)
        if dist < best_d:
            best, best_d = d, dist
    return best

