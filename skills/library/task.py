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
from jarvis_sim.lego.clutch_model import SEAT_PRESS_N
from skills.context import SkillContext
from skills.errors import (
    InvalidArgument,
    NotGraspable,
    PlacementOccupied,
    TooWideForGripper,
    Unreachable,
)
from skills.geometry import (
    PITCH_MM,
    ground_placement_pose,
    height_kind,
    height_mm,
    placement_pose,
    relative_placement,
    snap_to_lattice,
)
from skills.hand import ABOVE_PADS, HAND_BOXES, PAD, HandBox, Obstacle, rects_overlap, struck
from skills.library.common import refresh_perception
from skills.library.reach import REACH_MARGIN_MM, come_in_low, go_out_low, highest_reachable_z
from skills.motion import leave_park, top_down_quaternion
from skills.registry import skill
from skills.types import BrickDescriptor, GraspPlan, Placement, Pose

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
# A brick seats under a press of SEAT_PRESS_N per connection it makes, one per brick it stands on (BrickSim's
# registration press, jarvis_sim/lego/clutch_model.py); the build order's statics admits exactly that press. Pressing
# harder pries what holds the support: 4 + 2 N on a 2x2 plate at the free end of a 2x8 plate held by one 2x2 brick
# broke that joint (jarvis-v1 v7-00349-vehicle/012; statics admits 2 N there). The margin covers the tool's force
# reading and the pads' squeeze; the pads' friction (1.5 between pad and ABS in the simulator, jarvis_sim's
# panda.PAD_FRICTION) must carry the press.
PRESS_N_PER_CONNECTION = SEAT_PRESS_N
PRESS_MARGIN_N = 0.5
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
HIGH_GRIP_TIPS_MM = 3.0  # set-and-push: the tips this far below a brick's top, so it drops little onto its studs
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


def _grasp_plan(ctx: SkillContext, brick: str, across_long: bool, tips_below_top_mm: float | None = None) -> GraspPlan:
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
    if tips_below_top_mm is not None:  # a high grip, the tips this far below the top (set-and-push: a short drop)
        pad_z = d.top_z_mm - tips_below_top_mm + FINGERTIP_BELOW_TCP_MM
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


def _centring_radius_mm(d: BrickDescriptor) -> float:
    """Finger opening half-width (mm) at which open fingers turn about a brick's centre without touching it."""
    long_mm, short_mm = _grip_span_mm(d, across_long=True), _grip_span_mm(d, across_long=False)
    return max(long_mm / 2 + 2.0, math.hypot(long_mm, short_mm) / 2 + 1.5)


def _centring_fits(d: BrickDescriptor, across_long: bool) -> bool:
    """Whether the hand opens wide enough to square this brick up (a 6 x 8 plate needs 82.7 mm to turn the opened
    fingers about it): a wider brick is grasped as perceived."""
    return opening_fits(2 * _centring_radius_mm(d)) and opening_fits(_grip_span_mm(d, not across_long) + CENTRING_OPENING_MM)


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
    hanging = _hanging_mm(ctx)
    if state.ee_position[2] < z:
        lift = state.ee_position.copy()
        lift[2] = z
        try:
            ctx.motion.move_to(ctx, lift, state.ee_quaternion, speed=0.2, check_collisions=False)  # straight up: free
        except Unreachable:  # near the robot base the arm points down only low: out low first (reach.py)
            go_out_low(ctx, z, state.ee_quaternion, hanging, ctx.held)
    over = target.copy()
    over[2] = z
    try:  # each move is planned before it starts: an unreachable one leaves the arm where it was
        ctx.motion.move_to(ctx, over, quat, speed=0.25, check_collisions=check_collisions)
        ctx.motion.move_to(ctx, target, quat, speed=0.2, check_collisions=check_collisions)
    except Unreachable:  # near the robot base: come down farther out and slide in low
        come_in_low(ctx, target, z, quat, hanging, ctx.held, check_collisions)


def _hanging_mm(ctx: SkillContext) -> float:
    """How far below the TCP the hand reaches: the fingertips, or the bottom of the held brick when lower."""
    if ctx.held_descriptor is None:
        return FINGERTIP_BELOW_TCP_MM
    return max(FINGERTIP_BELOW_TCP_MM, height_mm(height_kind(ctx.held_descriptor)) - ctx.held_grip_depth_mm)


def _reachable_above(ctx: SkillContext, above: np.ndarray, lowest: np.ndarray, quat: np.ndarray) -> np.ndarray:
    """`above`, lowered to the highest height the arm reaches pointing down there when it does not reach `above`
    (near the robot base: skills/library/reach.py), but never below `lowest`."""
    z = highest_reachable_z(ctx, above[:2], float(lowest[2]), float(above[2]), quat)
    if z is None or z >= float(above[2]):
        return above  # reached (or not even low down: the move itself reports the unreachable point)
    # The solver reaches the limit from some starting configurations only: a path coming in must be well inside it.
    return np.array([above[0], above[1], max(float(lowest[2]), z - REACH_MARGIN_MM / 1000.0)])


def _placement_pose(ctx: SkillContext, support: str, brick: BrickDescriptor, stud_x: int, stud_y: int,
                    rotation: int) -> Pose:
    """Pose of `brick` placed on a perceived support, or on the build area's lattice for 'ground'."""
    height = height_kind(brick)
    if support == GROUND:
        return ground_placement_pose(ctx.workspace, brick.size, height, stud_x, stud_y, rotation)
    sup = snap_to_lattice(ctx.descriptor(support), ctx.workspace)
    return placement_pose(sup, brick.size, height, stud_x, stud_y, rotation)


def _let_go(ctx: SkillContext) -> None:
    """Forget the held brick (after a release, or when it slipped out)."""
    ctx.held, ctx.held_descriptor, ctx.held_across_long, ctx.held_offset_mm = None, None, False, 0.0


def _finger_blockers(ctx: SkillContext, pose: Pose, held: BrickDescriptor, gripper_yaw: float,
                     span_mm: float, release_opening_mm: float = RELEASE_OPENING_MM) -> list[str]:
    """Perceived bricks that some part of the hand (skills/hand.py: pads, upper fingers, the hand's body) would hit
    with the held brick at its seat, while the fingers press it (closed on the brick) and while they open to let go."""
    tips_z = pose.z_mm - ctx.held_grip_depth_mm - FINGERTIP_BELOW_TCP_MM - PRESS_BELOW_SEAT_MM
    return _hand_blockers(ctx, pose.x_mm, pose.y_mm, gripper_yaw, (span_mm, span_mm + release_opening_mm), tips_z,
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
