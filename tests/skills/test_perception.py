"""Brick perception (skills.perception) on synthetic RGB-D frames of boxes at known poses."""

from __future__ import annotations

import math

import numpy as np
import pytest

from jarvis_sim.backends.base import CameraFrame
from jarvis_sim.lego.colors import COLORS
from jarvis_sim.tasks.spec import Workspace
from skills.perception import (
    Segment,
    color_name,
    describe,
    detect,
    min_area_rect,
    point_cloud,
    segments,
    top_face,
)
from skills.types import BrickDescriptor
from tests.fakes.box_camera import CAMERA_POS, Box, camera_calibration, render_boxes

WS = Workspace()  # staging area x 300-620 mm, y 180-420 mm
PLATE = 0.0032
RED, BLUE, YELLOW = (201, 26, 9), (0, 85, 191), (242, 205, 55)


def yaw_error_deg(a: float, b: float, period: float) -> float:
    """Smallest angle between two yaws of a shape with this symmetry period (deg)."""
    d = (a - b) % period
    return min(d, period - d)


def only(frame_boxes: list[Box], **kw: object) -> list[BrickDescriptor]:
    """Descriptors detected in a synthetic frame of these boxes, ordered by x then y."""
    frame = render_boxes(frame_boxes, **kw)  # type: ignore[arg-type]
    return sorted((d for d, _ in detect(frame, WS)), key=lambda d: (d.x_mm, d.y_mm))


def test_point_cloud_back_projects_through_the_calibration() -> None:
    frame = render_boxes([])
    cloud = point_cloud(frame)
    assert cloud.shape == (480, 640, 3)
    k, _pose = camera_calibration()
    centre = cloud[239, 319]  # (cx, cy) = (319.5, 239.5): half a pixel beside the optical axis
    half_px = 0.5 * CAMERA_POS[2] / k[0, 0]
    assert centre == pytest.approx((CAMERA_POS[0] + half_px, CAMERA_POS[1] + half_px, 0.0), abs=1e-6)
    assert np.abs(cloud[..., 2]).max() < 1e-6  # the whole table lies at z = 0


@pytest.mark.parametrize(
    ("box", "size", "height"),
    [
        (Box("a", (4, 2), 0.450, 0.250, math.radians(30)), (4, 2), "brick"),
        (Box("a", (4, 2), 0.412, 0.301, math.radians(90)), (4, 2), "brick"),
        (Box("a", (2, 4), 0.412, 0.301, math.radians(-15)), (4, 2), "brick"),  # long side along local y
        (Box("a", (4, 2), 0.530, 0.220, math.radians(179.5)), (4, 2), "brick"),  # yaw wraps at 180
        (Box("a", (8, 1), 0.480, 0.380, math.radians(12)), (8, 1), "brick"),
        (Box("a", (2, 1), 0.350, 0.200, 0.0, rgb=YELLOW), (2, 1), "brick"),
        (Box("a", (1, 1), 0.360, 0.260, math.radians(40)), (1, 1), "brick"),
        (Box("a", (2, 2), 0.400, 0.300, math.radians(100), height=PLATE, rgb=BLUE), (2, 2), "plate"),
        (Box("a", (4, 2), 0.440, 0.330, math.radians(63), height=PLATE), (4, 2), "plate"),
    ],
)
def test_a_loose_brick_at_a_known_pose_gives_its_descriptor(box: Box, size: tuple[int, int], height: str) -> None:
    (d,) = only([box])
    long_yaw = math.degrees(box.yaw) + (90.0 if box.studs[1] > box.studs[0] else 0.0)
    period = 90.0 if size[0] == size[1] else 180.0
    assert d.size == size and d.height == height
    assert math.hypot(d.x_mm - box.x * 1000, d.y_mm - box.y * 1000) < 0.8
    assert d.top_z_mm == pytest.approx(box.top * 1000, abs=0.3)
    # A 1x1 top face is a ring of about 30 pixels around its stud: its yaw is only known to a few degrees.
    assert yaw_error_deg(d.yaw_deg, long_yaw, period) < (6.0 if size == (1, 1) else 1.5)
    assert 0.0 <= d.yaw_deg < period
    assert d.color == color_name(np.asarray(box.rgb))
    assert not d.in_structure and d.free_to_grasp and d.visible_fraction > 0.65


def test_descriptor_error_stays_small_under_depth_noise() -> None:
    box = Box("a", (4, 2), 0.455, 0.265, math.radians(37))
    (d,) = only([box], depth_noise_m=0.0002, seed=4)
    assert math.hypot(d.x_mm - 455.0, d.y_mm - 265.0) < 1.0
    assert yaw_error_deg(d.yaw_deg, 37.0, 180.0) < 2.0 and d.size == (4, 2)


def test_bricks_outside_staging_or_stacked_belong_to_the_structure() -> None:
    base = Box("s0", (4, 2), 0.432, -0.184, 0.0, rgb=BLUE)
    on_top = Box("s1", (4, 2), 0.440, -0.184, 0.0, bottom=base.top, rgb=RED)
    low, high = only([base, on_top])
    assert low.in_structure and not low.free_to_grasp and low.height == "brick"
    assert high.in_structure and high.height == "unknown"  # seen stacked: brick or plate cannot be told
    assert high.top_z_mm == pytest.approx(19.2, abs=0.3)
    # Three quarters covered: its top face does not give a trustworthy stud frame (what the oracle checks).
    assert not (low.size == (4, 2) and low.visible_fraction > 0.9)


def test_a_brick_under_another_in_staging_is_not_free_to_grasp() -> None:
    under = Box("u", (4, 2), 0.450, 0.300, 0.0, rgb=BLUE)
    over = Box("o", (2, 2), 0.450, 0.300, 0.0, bottom=under.top, rgb=YELLOW)  # across its middle
    descs = {d.color: d for d in only([under, over])}
    assert not descs["blue"].free_to_grasp and not descs["blue"].in_structure
    assert descs["yellow"].in_structure and not descs["yellow"].free_to_grasp  # stacked


pytest.mark.xfail(strict=False, reason="perception: a brick half covered at one end reads as a smaller brick that is "
                   "fully visible and free (the cover test uses the visible rectangle only); pick() would then grasp "
                   "a brick with another on top of it")
def test_a_brick_covered_at_one_end_is_not_free_to_grasp() -> None:
    under = Box("u", (4, 2), 0.450, 0.300, 0.0, rgb=BLUE)
    over = Box("o", (2, 2), 0.442, 0.300, 0.0, bottom=under.top, rgb=YELLOW)
    descs = {d.color: d for d in only([under, over])}
    assert not descs["blue"].free_to_grasp


def test_neighbours_do_not_mark_a_brick_covered() -> None:
    a = Box("a", (4, 2), 0.450, 0.300, 0.0)
    b = Box("b", (4, 2), 0.450, 0.3165, 0.0, rgb=BLUE)  # 0.7 mm beside it
    descs = only([a, b])
    assert len(descs) == 2 and all(d.free_to_grasp for d in descs)


def robot_over_the_bricks() -> CameraFrame:
    """A red 2x4 half hidden by the arm, and a blue 1x1 hidden by the hand but for a strip of a few pixels."""
    brick = Box("a", (4, 2), 0.450, 0.300, 0.0)
    speck = Box("b", (1, 1), 0.400, 0.250, 0.0, rgb=BLUE)
    hand = Box("robot", (4, 4), 0.4135, 0.250, 0.0, bottom=0.012, height=0.001, with_studs=False)
    arm = Box("robot", (6, 6), 0.450, 0.3239, 0.0, bottom=0.012, height=0.001, with_studs=False)
    return render_boxes([brick, speck], occluders={"hand": hand, "arm": arm})


def test_scene_objects_and_tiny_segments_are_not_bricks() -> None:
    frame = robot_over_the_bricks()
    assert frame.segmentation is not None
    counts = {frame.segment_ids[int(i)]: int((frame.segmentation == i).sum()) for i in np.unique(frame.segmentation)}
    assert 0 < counts["b"] < 12 and counts["robot"] > 1000
    assert len(segments(frame)) == 1  # table, robot and the speck are not brick instances
    (d,) = [d for d, _ in detect(frame, WS)]
    assert d.color == "red"


def test_a_brick_half_hidden_by_the_robot_is_not_trusted() -> None:
    """Half of the 2x4 under the arm reads as a 4x1; bordering the robot, it is flagged, not offered for a grasp."""
    (d,) = [d for d, _ in detect(robot_over_the_bricks(), WS)]
    assert d.size == (4, 2) or (not d.free_to_grasp and d.visible_fraction <= 0.5)


def test_detect_returns_each_bricks_world_points() -> None:
    box = Box("a", (4, 2), 0.450, 0.250, math.radians(20))
    ((_d, pts),) = detect(render_boxes([box]), WS)
    assert pts.ndim == 2 and pts.shape[1] == 3 and len(pts) > 100
    assert pts[:, 2].max() == pytest.approx(box.top + 0.0017, abs=1e-4)  # stud tops
    assert np.median(pts[:, 2]) == pytest.approx(box.top, abs=1e-4)


def test_top_face_ignores_stud_tops_and_sides() -> None:
    rng = np.random.default_rng(0)
    face = np.column_stack([rng.uniform(0, 0.03, 400), rng.uniform(0, 0.015, 400), np.full(400, 0.0096)])
    studs = face[:120].copy()
    studs[:, 2] += 0.0017
    sides = np.column_stack([rng.uniform(0, 0.03, 150), np.zeros(150), rng.uniform(0, 0.0096, 150)])
    z, top = top_face(np.vstack([face, studs, sides]))
    assert z == pytest.approx(0.0096, abs=1e-4)
    assert len(top) >= 400 and np.all(np.abs(top[:, 2] - 0.0096) < 0.0009)


def rectangle_points(cx: float, cy: float, long: float, short: float, yaw: float, n: int = 600) -> np.ndarray:
    rng = np.random.default_rng(1)
    a, b = rng.uniform(-long / 2, long / 2, n), rng.uniform(-short / 2, short / 2, n)
    corners = np.array([[sx * long / 2, sy * short / 2] for sx in (-1, 1) for sy in (-1, 1)])
    a, b = np.concatenate([a, corners[:, 0]]), np.concatenate([b, corners[:, 1]])
    c, s = math.cos(yaw), math.sin(yaw)
    return np.column_stack([cx + c * a - s * b, cy + s * a + c * b])


@pytest.mark.parametrize("yaw_deg", [0.0, 0.3, 30.0, 90.0, 135.0, 179.7, 200.0, -10.0])
def test_min_area_rect_recovers_centre_sides_and_yaw(yaw_deg: float) -> None:
    centre, long, short, yaw = min_area_rect(rectangle_points(0.45, 0.2, 0.0318, 0.0158, math.radians(yaw_deg)))
    assert centre == pytest.approx((0.45, 0.2), abs=1e-6)
    assert (long, short) == pytest.approx((0.0318, 0.0158), abs=1e-6)
    assert 0.0 <= yaw < math.pi
    assert yaw_error_deg(math.degrees(yaw), yaw_deg, 180.0) < 1e-4


def test_min_area_rect_of_a_square_has_equal_sides() -> None:
    _c, long, short, _yaw = min_area_rect(rectangle_points(0.0, 0.0, 0.0158, 0.0158, math.radians(20)))
    assert long == pytest.approx(short, abs=1e-6)


def test_min_area_rect_of_slivers_does_not_fail() -> None:
    line = np.column_stack([np.linspace(0, 0.02, 9), np.full(9, 0.1)])
    _c, long, short, yaw = min_area_rect(line[::-1].copy())
    assert long == pytest.approx(0.02) and short == pytest.approx(0.0, abs=1e-12)
    assert yaw_error_deg(math.degrees(yaw), 0.0, 180.0) < 1e-6
    two = np.array([[0.0, 0.0], [0.0, 0.01]])
    _c, long, short, yaw = min_area_rect(two)
    assert long == pytest.approx(0.01) and math.degrees(yaw) == pytest.approx(90.0)


pytest.mark.xfail(strict=False, reason="perception.min_area_rect asserts on a segment whose points all coincide "
                   "(e.g. pixels with zero depth back-project to the camera centre); it should return an empty "
                   "rectangle or let describe() drop the segment")
def test_min_area_rect_of_coincident_points_returns_an_empty_rectangle() -> None:
    _c, long, short, _yaw = min_area_rect(np.zeros((10, 2)))
    assert long == 0.0 and short == 0.0


def test_describe_a_one_pixel_wide_sliver_yields_nothing_graspable() -> None:
    """A brick seen only through a 1-pixel gap: no crash, and never reported as free to grasp."""
    xs = np.full(40, 0.45)
    ys = np.linspace(0.25, 0.28, 40)
    pts = np.column_stack([xs, ys, np.full(40, 0.0096)])
    seg = Segment(points=pts, colors=np.tile(np.array(RED, dtype=np.uint8), (40, 1)), n_pixels=40)
    d = describe(seg, WS, [seg])
    assert d is None or (not d.free_to_grasp and d.visible_fraction < 0.6)


def test_every_catalog_colour_is_named_by_itself() -> None:
    for c in COLORS.values():
        assert color_name(np.asarray(c.rgb)) == c.name


@pytest.mark.parametrize("gain", [0.7, 0.8, 0.9, 1.1])
def test_colour_names_survive_shading(gain: float) -> None:
    """Shading scales brightness; names hold for every catalog colour between 0.7x and 1.1x."""
    for c in COLORS.values():
        shaded = np.clip(np.asarray(c.rgb, dtype=float) * gain, 0, 255)
        assert color_name(shaded) == c.name, (c.name, gain)


def test_strong_shadow_can_confuse_white_with_grey() -> None:
    """Documents the limit: at 0.6x a white brick reads as light grey (a real camera has the same ambiguity)."""
    assert color_name(np.array([153.0, 153.0, 153.0])) != "white"


@pytest.mark.parametrize("studs", [(1, 1), (2, 1), (2, 2)])
def test_a_fully_visible_small_brick_is_seen_whole(studs: tuple[int, int]) -> None:
    (d,) = only([Box("a", studs, 0.5099, 0.1839, 0.0)])
    assert d.visible_fraction > 0.9
