"""The task library's placements: place (a pose), place_on (studs of a support), place_at (the lattice), put_down;
each lowers the held brick into the lead-in, presses it home where the structure can take it, and checks the seat."""

from __future__ import annotations

import math

import numpy as np

from jarvis_sim.gripper import GRIPPER_MAX_OPENING_M, PICK_OPENING_MIN_MM, opening_fits
from jarvis_sim.lego.assembly import LATTICE_LIMIT
from skills.context import SkillContext
from skills.errors import (
    GraspFailed,
    InvalidArgument,
    NothingHeld,
    PathBlocked,
    PlacementFailed,
)
from skills.geometry import (
    PITCH_MM,
    PLATE_MM,
    ground_placement_pose,
    height_kind,
    height_mm,
)
from skills.hand import PAD
from skills.library.common import go_home, wait_gripper
from skills.library.grip_room import room_off_centre, supports_under
from skills.library.picking import _pick
from skills.library.push import (
    PUSH_EASE_MM,
    PUSH_MARGIN_N,
    PUSH_N_PER_STUD,
    STUD_MM,
    push_yaw,
    release_lift_mm,
    set_and_push,
)
from skills.library.task import (
    APPROACH_HEIGHT_MM,
    FINGERTIP_BELOW_TCP_MM,
    GRIP_FORCE_N,
    HIGH_GRIP_TIPS_MM,
    PAD_FRICTION_ASSUMED,
    PRESS_BELOW_SEAT_MM,
    PRESS_MARGIN_N,
    PRESS_N_PER_CONNECTION,
    PRESS_OFFSET_MIN_MM,
    PUT_DOWN_TOLERANCE_MM,
    RELEASE_EASE_S,
    RELEASE_GRIP_N,
    RELEASE_OPENING_MM,
    SEATED_TOLERANCE_MM,
    VERIFY_ASIDE_M,
    _check_free,
    _find_near,
    _finger_blockers,
    _grip_span_mm,
    _gripper_width_mm,
    _gripper_yaw,
    _hand_blockers,
    _hand_yaw,
    _let_go,
    _offset_tool,
    _pad_target,
    _placement_pose,
    _settle,
    _transfer,
)
from skills.motion import PRESS_MAX_N, guarded_press, step_watching, top_down_quaternion
from skills.registry import skill
from skills.types import BrickDescriptor, PlaceResult, Pose

OFF_CENTRE_MARGIN_MM = 2.0  # an off-centre grip lands ~1 mm from its aim: room this far either way (033's b092)
DROP_STABLE_MARGIN_MM = 2.0  # a brick's centre this far inside its supported cells rests on their stud tops


@skill("task")
def place(ctx: SkillContext, pose: Pose, press_supported: bool = False) -> PlaceResult:
    """Place the held brick so that its top-face centre ends at `pose` (mm) with yaw `pose.yaw_deg`.

    Use placement(...) to compute a pose on studs. Moves above the target, descends vertically,
    presses the brick onto the studs (about 1 N for each brick it stands on), releases, retreats and checks that the
    brick is seated: it seats only when it comes down within a fraction of a millimetre of the studs. When bricks
    beside the target leave the fingers no room, the brick is first set down and gripped across its other
    side; when neither side has room to open the fingers (flush between bricks of its own level), it is pressed
    on and the lightly squeezing pads slide up off it before they open; where the pads do not even fit beside it,
    it is let go just above its studs and pushed home with the closed fingers; path_blocked when even that would
    touch a neighbour (place it before its neighbours).
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
    taken = [stud for studs in supports_under(ctx, pose, held).values() for stud in studs]
    if not taken:
        return None
    x, y = np.mean(taken, axis=0)
    return float(x), float(y)


def _seat_press_n(ctx: SkillContext, pose: Pose, held: BrickDescriptor) -> float:
    """The press that seats the held brick at `pose`: PRESS_N_PER_CONNECTION for each perceived brick it stands on (the
    ground or baseplate is one), and the margin; never more than the press bound."""
    connections = max(1, len(supports_under(ctx, pose, held)))
    return min(PRESS_N_PER_CONNECTION * connections + PRESS_MARGIN_N, PRESS_MAX_N)


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
    slide_off = False  # let go by sliding the lightly squeezing pads up the seated brick: no room to open beside it
    room_at = room_off_centre(ctx, pose, held) if gripper_yaw is None and held.height == "plate" else None
    if room_at is not None:  # the pick's grip, slid along the plate to where the pads have room
        gripper_yaw, press_at = _gripper_yaw(ctx, pose.yaw_deg), room_at
    if gripper_yaw is None:
        shifted = _off_centre_room(ctx, pose, held)
        if shifted is not None:
            gripper_yaw, press_at = shifted
    if gripper_yaw is None:
        try:
            gripper_yaw = _regrasp_for(ctx, pose)
        except PathBlocked as blocked:
            base = _gripper_yaw(ctx, pose.yaw_deg)
            if ctx.held_offset_mm or _finger_blockers(ctx, pose, held, base, _grip_span_mm(held, ctx.held_across_long),
                                                      release_opening_mm=0.0):
                high = _high_grip_side(ctx, pose, held) if _tips_when_dropped(ctx, pose, held) else None
                if high is None:
                    return _set_and_push(ctx, pose, tolerance_mm, blocked)
                # Gripped by its top, the pads stay above the neighbours' studs: the brick is pressed home held,
                # never dropped (a 1x2 dropped onto one supporting stud's top tips off it: v7-00011-random_stack/007).
                _set_down_and_regrip(ctx, "gripped by its top", across_long=high[0],
                                     tips_below_top_mm=HIGH_GRIP_TIPS_MM)
                gripper_yaw, slide_off = _gripper_yaw(ctx, pose.yaw_deg), high[1]
            else:
                gripper_yaw, slide_off = base, True
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
    press_n = _seat_press_n(ctx, pose, held)
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
    if slide_off:
        # Flush between neighbours, the pads have no room to open: they slide up the seated brick (their light squeeze's
        # friction, under 1 N, is far below its clutch) and open once above it.
        clear = seat.copy()
        clear[2] += (height_mm(height_kind(held)) + STUD_MM + 2.0) / 1000.0
        ctx.motion.move_to(ctx, clear, quat, speed=0.01, check_collisions=False)
    ctx.backend.set_gripper(closed=False, width_m=min(span_mm + RELEASE_OPENING_MM, GRIPPER_MAX_OPENING_M * 1000.0)
                            / 1000.0)
    wait_gripper(ctx)
    ctx.motion.move_to(ctx, above, quat, speed=0.1, check_collisions=False)
    return _verify_placed(ctx, held, pose, tolerance_mm, above, quat)


def _verify_placed(ctx: SkillContext, held: BrickDescriptor, pose: Pose, tolerance_mm: float, above: np.ndarray,
                   quat: np.ndarray) -> PlaceResult:
    """After the release: step aside so the camera sees the brick, forget it, and check that it is seated at `pose`."""
    assert ctx.motion is not None
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


def _set_and_push(ctx: SkillContext, pose: Pose, tolerance_mm: float, blocked: PathBlocked) -> PlaceResult:
    """place() for a brick with no room for a pad beside its seat (skills/library/push.py): let go above the
    neighbours' studs, then push it home with the closed fingers over its own footprint. Raises `blocked` when
    neither can be done without touching a neighbour."""
    held = ctx.held_descriptor
    assert held is not None and ctx.held is not None
    if ctx.held_offset_mm:
        raise blocked
    span = _grip_span_mm(held, ctx.held_across_long)
    yaw = _gripper_yaw(ctx, pose.yaw_deg)
    tcp_seat_mm = pose.z_mm - ctx.held_grip_depth_mm
    exclude = {ctx.held}

    def hits(y: float, openings: tuple[float, ...], tips_z: float) -> list[str]:
        return _hand_blockers(ctx, pose.x_mm, pose.y_mm, y, openings, tips_z, exclude)

    lift = release_lift_mm(hits, yaw, (span, span + RELEASE_OPENING_MM), tcp_seat_mm - FINGERTIP_BELOW_TCP_MM)
    push_tips = pose.z_mm + STUD_MM - 1.0  # the closed pads' lowest point: a millimetre into the brick's studs
    turn = push_yaw(hits, [yaw, yaw + math.pi / 2], push_tips - STUD_MM - 0.5)
    if lift is None or turn is None:
        raise blocked
    if lift > HIGH_GRIP_TIPS_MM + STUD_MM and held.height != "plate":
        # Gripped low, it would drop from high and land turned, out of the studs' lead-in: grip it by its top instead.
        _set_down_and_regrip(ctx, "gripped by its top", across_long=ctx.held_across_long,
                             tips_below_top_mm=HIGH_GRIP_TIPS_MM)
        held = ctx.held_descriptor
        assert held is not None and ctx.held is not None
        exclude.clear()
        exclude.add(ctx.held)
        tcp_seat_mm = pose.z_mm - ctx.held_grip_depth_mm
        lift = release_lift_mm(hits, yaw, (span, span + RELEASE_OPENING_MM), tcp_seat_mm - FINGERTIP_BELOW_TCP_MM)
        if lift is None:
            raise blocked
    press_n = min(PUSH_N_PER_STUD * held.size[0] * held.size[1] + PUSH_MARGIN_N, PRESS_MAX_N)
    above = _pad_target(ctx, pose.x_mm, pose.y_mm, tcp_seat_mm + APPROACH_HEIGHT_MM)
    _transfer(ctx, above, top_down_quaternion(_hand_yaw(ctx, above, yaw)), check_collisions=False)
    ease = None if hits(turn, (PUSH_EASE_MM,), push_tips - STUD_MM - 0.5) else PUSH_EASE_MM
    set_and_push(ctx, _pad_target(ctx, pose.x_mm, pose.y_mm, tcp_seat_mm), yaw, lift, span + RELEASE_OPENING_MM,
                 above, _pad_target(ctx, pose.x_mm, pose.y_mm, push_tips + FINGERTIP_BELOW_TCP_MM), turn, press_n,
                 lambda at, y: _hand_yaw(ctx, at, y), ease)
    return _verify_placed(ctx, held, pose, tolerance_mm, above, ctx.backend.robot_state().ee_quaternion)


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


def _high_grip_side(ctx: SkillContext, pose: Pose, held: BrickDescriptor) -> tuple[bool, bool] | None:
    """A grip by the held brick's top (tips HIGH_GRIP_TIPS_MM below it) that keeps every part of the hand clear of the
    neighbours' studs while it presses the brick home: (across its long side, whether the pads must slide up off it
    before they open, having no room to open beside it); one that can open in place first. None when no such grip
    exists, or for a plate (too thin to be held by less than its height)."""
    if held.height == "plate":
        return None
    # The tips' lowest point is PRESS_BELOW_SEAT_MM below the seat; the neighbours' studs stand STUD_MM above their tops.
    tips_z = pose.z_mm - HIGH_GRIP_TIPS_MM - PRESS_BELOW_SEAT_MM - STUD_MM
    base = _gripper_yaw(ctx, pose.yaw_deg) - (math.pi / 2 if ctx.held_across_long else 0.0)  # fingers across short
    exclude = {ctx.held} if ctx.held else set()
    for release_mm, slide_off in ((RELEASE_OPENING_MM, False), (0.0, True)):
        for across_long in (ctx.held_across_long, not ctx.held_across_long):
            span = _grip_span_mm(held, across_long)
            if not opening_fits(span + 2 * PICK_OPENING_MIN_MM):
                continue
            yaw = base + (math.pi / 2 if across_long else 0.0)
            if not _hand_blockers(ctx, pose.x_mm, pose.y_mm, yaw, (span, span + release_mm), tips_z, exclude):
                return across_long, slide_off
    return None


def _tips_when_dropped(ctx: SkillContext, pose: Pose, held: BrickDescriptor) -> bool:
    """Whether the held brick, let go onto its supports' stud tops at `pose` (set-and-push), would tip off them: its
    centre lies within DROP_STABLE_MARGIN_MM of the edge of the perceived supports' cells under it (or outside them).
    A brick let go over supports all round it rests there (set-and-push is made for it: gripped by its top, one
    going in between neighbours tilts in the pads and jams on their edges)."""
    studs = [stud for studs in supports_under(ctx, pose, held).values() for stud in studs]
    if not studs or pose.z_mm - height_mm(height_kind(held)) < 0.5:
        return False  # on the ground every stud is supported
    yaw = math.radians(pose.yaw_deg)
    frame = np.array([[math.cos(yaw), math.sin(yaw)], [-math.sin(yaw), math.cos(yaw)]])
    local = (np.array(studs) - (pose.x_mm, pose.y_mm)) @ frame.T  # along, across the brick, from its centre
    low, high = local.min(axis=0) - PITCH_MM / 2, local.max(axis=0) + PITCH_MM / 2
    return bool(np.any(low > -DROP_STABLE_MARGIN_MM) or np.any(high < DROP_STABLE_MARGIN_MM))


def _set_down_and_regrip(ctx: SkillContext, how: str, across_long: bool, offset_mm: float = 0.0,
                         tips_below_top_mm: float | None = None) -> None:
    """Put the held brick down in the staging area and pick it again another way (`how`, for the error message)."""
    held = ctx.held_descriptor
    assert held is not None
    put = put_down(ctx)
    go_home(ctx)  # out of the camera's view: the hand beside the brick hides half of it
    again = _find_near(ctx, held, put.pose)
    if again is None:
        raise PlacementFailed(f"{put.brick}, set down to be {how}, is no longer near "
                              f"({put.pose.x_mm:.1f}, {put.pose.y_mm:.1f}) mm; observe() to find it")
    _pick(ctx, again.id, across_long=across_long, offset_mm=offset_mm, tips_below_top_mm=tips_below_top_mm)


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


def _off_centre_room(ctx: SkillContext, pose: Pose, held: BrickDescriptor) -> tuple[float, tuple[float, float]] | None:
    """(gripper yaw, TCP x, y mm) of the grip nearest the centre, shifted along the pads' width, whose fingers have room
    at `pose` where the centred grip has none; None when no shift has. The press goes through the TCP: never farther
    from the middle of the studs taken from below than the centre (it would lever on them). A 6x6 plate with no room
    for a centred grip was let go above its studs and tipped off the 2x2 under its edge (v107-00038/033)."""
    base = _gripper_yaw(ctx, pose.yaw_deg)
    options = [base, base + math.pi / 2] if held.size[0] == held.size[1] else [base]
    span_mm = _grip_span_mm(held, ctx.held_across_long)
    reach = int(held.size[1 if ctx.held_across_long else 0] * PITCH_MM / 2 - PAD.half_along_mm - 0.5)
    support = _supported_centre(ctx, pose, held)
    centre_lever = 0.0 if support is None else math.hypot(pose.x_mm - support[0], pose.y_mm - support[1])
    shifts = sorted(((t, yaw) for yaw in options for t in range(-reach, reach + 1) if abs(t) >= PRESS_OFFSET_MIN_MM),
                    key=lambda shift: abs(shift[0]))
    for t, yaw in shifts:
        at = (pose.x_mm + t * math.cos(yaw), pose.y_mm + t * math.sin(yaw))
        if support is not None and math.hypot(at[0] - support[0], at[1] - support[1]) > centre_lever:
            continue
        if not any(_finger_blockers(ctx, pose.model_copy(update={"x_mm": at[0] + m * math.cos(yaw),
                                                                  "y_mm": at[1] + m * math.sin(yaw)}), held, yaw, span_mm)
                   for m in (0.0, -OFF_CENTRE_MARGIN_MM, OFF_CENTRE_MARGIN_MM)):
            return yaw, at
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
    _set_down_and_regrip(ctx, "gripped the other way", across_long=turned)
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
    _set_down_and_regrip(ctx, "gripped off its centre", across_long=ctx.held_across_long, offset_mm=offset_mm)
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
