"""place()'s press and grip choices from what it perceives: the seating press sized by the bricks it stands on, and
the grip by a brick's top where the pads have no room beside its seat (no simulator: a recording backend)."""

from __future__ import annotations

import math

import pytest

from jarvis_sim.lego.clutch_model import SEAT_PRESS_N
from jarvis_sim.tasks.spec import Workspace
from skills.context import Perceived, SkillContext
from skills.library.placing import (
    _free_gripper_yaw,
    _high_grip_side,
    _off_centre_room,
    _seat_press_n,
    _tips_when_dropped,
)
from skills.library.task import PRESS_MARGIN_N, _finger_blockers, _grip_span_mm
from skills.types import BrickDescriptor, Pose
from tests.fakes.skill_backend import RecordingBackend


def _brick(pid: str, size: tuple[int, int], x: float, y: float, top: float, yaw: float = 0.0,
           height: str = "brick") -> BrickDescriptor:
    return BrickDescriptor(id=pid, color="red", size=size, height=height, x_mm=x, y_mm=y, top_z_mm=top, yaw_deg=yaw,
                           in_structure=True, free_to_grasp=False, visible_fraction=1.0)


def _holding(held: BrickDescriptor, *others: BrickDescriptor) -> SkillContext:
    ctx = SkillContext(backend=RecordingBackend(), workspace=Workspace())
    ctx.perceived = Perceived(descriptors={d.id: d for d in (held, *others)})
    ctx.held, ctx.held_descriptor = held.id, held
    return ctx


def test_the_seating_press_is_one_connections_press_per_brick_stood_on() -> None:
    # A 2x2 plate on the free end of a 2x8 plate: one connection, however many studs (jarvis-v1 v7-00349-vehicle/012,
    # where 4 + 2 N broke the 2x8's joint to the brick holding it and statics admits 2 N).
    held = _brick("p1", (2, 2), 300.0, 300.0, 3.2, height="plate")
    plate = _brick("p2", (8, 2), 24.0, 0.0, 3.2, height="plate")
    ctx = _holding(held, plate)
    on_plate = Pose(x_mm=0.0, y_mm=0.0, z_mm=6.4, yaw_deg=0.0)
    assert _seat_press_n(ctx, on_plate, held) == pytest.approx(SEAT_PRESS_N + PRESS_MARGIN_N)
    # Bridging two bricks: a press for each connection.
    left, right = _brick("p3", (2, 2), -8.0, 0.0, 3.2, height="plate"), _brick("p4", (2, 2), 8.0, 0.0, 3.2, height="plate")
    wide = _brick("p1", (4, 2), 300.0, 300.0, 3.2, height="plate")
    ctx = _holding(wide, left, right)
    assert _seat_press_n(ctx, on_plate, wide) == pytest.approx(2 * SEAT_PRESS_N + PRESS_MARGIN_N)
    # On the ground (nothing perceived under it): the ground is one connection.
    ctx = _holding(held)
    assert _seat_press_n(ctx, Pose(x_mm=0.0, y_mm=0.0, z_mm=3.2, yaw_deg=0.0), held) == pytest.approx(
        SEAT_PRESS_N + PRESS_MARGIN_N)


def test_a_brick_with_no_room_beside_its_seat_is_gripped_by_its_top_where_that_clears_the_neighbours() -> None:
    # jarvis-v1 v7-00011-random_stack/007: a 1x2 brick along y, a 1x1 plate beside one end (its studs 4.8 mm below
    # the brick's top) and a flush 1x2 brick 8 mm beyond it; a taller 1x3 brick against its +x side.
    held = _brick("p1", (2, 1), 300.0, 300.0, 9.6)
    seat = Pose(x_mm=0.0, y_mm=0.0, z_mm=19.2, yaw_deg=90.0)
    plate = _brick("p2", (1, 1), 0.0, -12.0, 12.8, height="plate")
    flush = _brick("p3", (2, 1), 4.0, -20.0, 19.2)
    taller = _brick("p4", (3, 1), 16.0, -4.0, 16.0)
    ctx = _holding(held, plate, flush, taller)
    # Across the long side, over the plate; the flush brick leaves the pads no room to open: they slide up off it.
    assert _high_grip_side(ctx, seat, held) == (True, True)
    # A neighbour as tall as the brick on that side too: no grip by the top clears it.
    ctx = _holding(held, _brick("p2", (1, 1), 0.0, -12.0, 19.2), flush, taller)
    assert _high_grip_side(ctx, seat, held) is None
    # A plate is too thin to be held by less than its height.
    thin = _brick("p1", (2, 1), 300.0, 300.0, 3.2, height="plate")
    assert _high_grip_side(_holding(thin, plate, flush, taller), seat, thin) is None


def test_only_a_brick_whose_centre_is_not_inside_its_supports_tips_when_dropped_on_their_studs() -> None:
    # The 1x2 of v7-00011-random_stack/007: one stud over a 1x3's end, its centre over that brick's edge.
    held = _brick("p1", (2, 1), 300.0, 300.0, 9.6)
    seat = Pose(x_mm=0.0, y_mm=0.0, z_mm=19.2, yaw_deg=90.0)
    end = _brick("p2", (3, 1), 0.0, -12.0, 9.6, yaw=90.0)
    assert _tips_when_dropped(_holding(held, end), seat, held)
    # Both studs supported (a 1x2 under it): it rests on the stud tops, so set-and-push may let it go there.
    under = _brick("p2", (2, 1), 0.0, 0.0, 9.6, yaw=90.0)
    assert not _tips_when_dropped(_holding(held, under), seat, held)
    # On the ground nothing tips.
    assert not _tips_when_dropped(_holding(held), Pose(x_mm=0.0, y_mm=0.0, z_mm=9.6, yaw_deg=90.0), held)


def test_a_brick_with_no_room_for_a_centred_grip_is_gripped_off_its_centre_toward_what_holds_it() -> None:
    # jarvis-v2 v107-00038-random_stack/033 b092: a 6x6 plate whose seat has a brick as tall as it beside one grip
    # (p3) and another beside the other (p4); one 2x2 plate (p5) under its -y edge holds it, over a lower 6x6 (p6).
    held = _brick("p1", (6, 6), 300.0, 300.0, 3.2, height="plate")
    seat = Pose(x_mm=540.0, y_mm=-84.0, z_mm=19.2, yaw_deg=0.0)
    beside = [_brick("p3", (3, 2), 536.0, -52.0, 19.2), _brick("p4", (3, 2), 580.0, -72.0, 19.2, yaw=90.0)]
    under = [_brick("p5", (2, 2), 548.0, -100.0, 16.0, height="plate"), _brick("p6", (6, 6), 548.0, -108.0, 12.8,
                                                                                  yaw=90.0, height="plate")]
    ctx = _holding(held, *beside, *under)
    ctx.held_grip_depth_mm = -7.8  # a plate off the table: the TCP above its top, the tips a millimetre off its bottom
    assert _free_gripper_yaw(ctx, seat, held) is None
    room = _off_centre_room(ctx, seat, held)
    assert room is not None
    yaw, (x, y) = room
    shifted = seat.model_copy(update={"x_mm": x, "y_mm": y})
    assert not _finger_blockers(ctx, shifted, held, yaw, _grip_span_mm(held, False))
    assert math.hypot(x - 540.0, y + 84.0) >= 1.0  # a real shift, and toward the 2x2: never farther than the centre
    assert math.hypot(x - 548.0, y + 100.0) <= math.hypot(540.0 - 548.0, -84.0 + 100.0) + 1e-9
    # Held under its centre (a 2x2 there), any shift would lever on what holds it: no grip.
    ctx = _holding(held, *beside, _brick("p5", (2, 2), 540.0, -84.0, 16.0, height="plate"))
    ctx.held_grip_depth_mm = -7.8
    assert _off_centre_room(ctx, seat, held) is None
