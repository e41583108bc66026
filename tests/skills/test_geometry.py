"""Stud-lattice geometry of skills.geometry on hand-computed cases (8 mm pitch, 3.2 mm plates, 9.6 mm bricks)."""

from __future__ import annotations

import itertools

import pytest

from jarvis_sim.tasks.spec import Workspace
from skills.geometry import (
    ground_placement_pose,
    height_mm,
    placement_pose,
    relative_placement,
    snap_to_lattice,
)
from skills.types import BrickDescriptor, Pose

WS = Workspace()  # lattice point (0, 0, level 0) at (400, -200, 0) mm


def desc(size: tuple[int, int], x: float, y: float, top: float, yaw: float, height: str = "brick") -> BrickDescriptor:
    """A perceived brick; yaw is normalised as perception reports it ([0, 180), squares [0, 90))."""
    period = 90.0 if size[0] == size[1] else 180.0
    return BrickDescriptor(id="p1", color="red", size=size, height=height, x_mm=x, y_mm=y, top_z_mm=top,
                           yaw_deg=yaw % period, in_structure=True, free_to_grasp=False, visible_fraction=1.0)


def as_tuple(p: Pose) -> tuple[float, float, float, float]:
    return (p.x_mm, p.y_mm, p.z_mm, p.yaw_deg)


def test_body_heights() -> None:
    assert height_mm("brick") == pytest.approx(9.6)
    assert height_mm("plate") == pytest.approx(3.2)


@pytest.mark.parametrize(
    ("size", "height", "stud", "rotation", "expected"),
    [
        ((4, 2), "brick", (2, 3), 0, (432.0, -168.0, 9.6, 0.0)),
        ((4, 2), "brick", (2, 3), 1, (424.0, -160.0, 9.6, 90.0)),  # turned: 2 studs along x, 4 along y
        ((4, 2), "brick", (2, 3), 2, (432.0, -168.0, 9.6, 180.0)),
        ((4, 2), "brick", (2, 3), 3, (424.0, -160.0, 9.6, 270.0)),
        ((2, 2), "plate", (0, 0), 0, (408.0, -192.0, 3.2, 0.0)),
        ((2, 1), "brick", (0, 0), 1, (404.0, -192.0, 9.6, 90.0)),
        ((4, 2), "brick", (-1, 0), 0, (408.0, -192.0, 9.6, 0.0)),  # one stud before the first
    ],
)
def test_ground_placement_pose(size: tuple[int, int], height: str, stud: tuple[int, int], rotation: int,
                               expected: tuple[float, float, float, float]) -> None:
    pose = ground_placement_pose(WS, size, height, stud[0], stud[1], rotation)
    assert as_tuple(pose) == pytest.approx(expected)


def test_ground_placement_follows_the_lattice_origin() -> None:
    ws = Workspace(lattice_origin=(0.456, -0.208, 0.0032))
    pose = ground_placement_pose(ws, (4, 2), "brick", 0, 0, 0)
    assert as_tuple(pose) == pytest.approx((472.0, -200.0, 12.8, 0.0))


@pytest.mark.parametrize(
    ("support", "placed", "height", "stud", "rotation", "expected"),
    [
        # A 2x4 support at (100, 50), long side along +x: its first stud corner is at (84, 42).
        (desc((4, 2), 100, 50, 9.6, 0), (2, 2), "brick", (0, 0), 0, (92.0, 50.0, 19.2, 0.0)),
        (desc((4, 2), 100, 50, 9.6, 0), (2, 2), "brick", (2, 0), 0, (108.0, 50.0, 19.2, 0.0)),
        (desc((4, 2), 100, 50, 9.6, 0), (4, 2), "brick", (0, 0), 1, (92.0, 58.0, 19.2, 90.0)),  # overhangs +y
        (desc((4, 2), 100, 50, 9.6, 0), (4, 2), "plate", (0, 0), 0, (100.0, 50.0, 12.8, 0.0)),
        # Long side along +y: the support's x axis is world +y, its y axis world -x.
        (desc((4, 2), 0, 0, 9.6, 90), (2, 1), "brick", (1, 0), 0, (4.0, 0.0, 19.2, 90.0)),
        (desc((4, 2), 0, 0, 9.6, 90), (2, 1), "brick", (0, 0), 1, (0.0, -12.0, 19.2, 180.0)),
        (desc((2, 2), 0, 0, 3.2, 0, "plate"), (2, 2), "plate", (0, 0), 0, (0.0, 0.0, 6.4, 0.0)),
    ],
)
def test_placement_pose_hand_computed(support: BrickDescriptor, placed: tuple[int, int], height: str,
                                      stud: tuple[int, int], rotation: int,
                                      expected: tuple[float, float, float, float]) -> None:
    pose = placement_pose(support, placed, height, stud[0], stud[1], rotation)
    assert as_tuple(pose) == pytest.approx(expected, abs=1e-3)


SUPPORTS = [desc((4, 2), 430, -150, 9.6, 0), desc((4, 2), 430, -150, 9.6, 90), desc((8, 1), 10, 20, 19.2, 30),
            desc((2, 2), 0, 0, 3.2, 0, "plate"), desc((6, 2), -40, 25, 12.8, 135)]
PLACED = [((4, 2), "brick"), ((2, 1), "brick"), ((2, 2), "plate"), ((1, 1), "brick"), ((6, 1), "plate")]


@pytest.mark.parametrize("support", SUPPORTS, ids=lambda s: f"{s.size[0]}x{s.size[1]}@{s.yaw_deg:g}")
@pytest.mark.parametrize(("placed", "height"), PLACED, ids=lambda v: str(v))
def test_relative_placement_inverts_placement_pose(support: BrickDescriptor, placed: tuple[int, int],
                                                   height: str) -> None:
    square = placed[0] == placed[1]
    for sx, sy, rotation in itertools.product((-1, 0, 1, 3), (0, 1), range(4)):
        pose = placement_pose(support, placed, height, sx, sy, rotation)
        brick = desc(placed, pose.x_mm, pose.y_mm, pose.z_mm, pose.yaw_deg, height)
        got = relative_placement(brick, support)
        assert got[:2] == (sx, sy), (sx, sy, rotation)
        assert got[3] == 0  # resting on the support
        if not square:  # a square's quarter turn is not observable
            assert got[2] == rotation % 2


def test_relative_placement_counts_levels_in_plates() -> None:
    support = desc((4, 2), 0, 0, 9.6, 0)
    above = desc((2, 2), -8, 0, 9.6 + 3.2 + 9.6, 0)  # one plate of gap under a brick
    assert relative_placement(above, support) == (0, 0, 0, 1)
    plate_on_top = desc((2, 2), -8, 0, 12.8, 0, "plate")
    assert relative_placement(plate_on_top, support) == (0, 0, 0, 0)


def test_relative_placement_wraps_yaw_at_180() -> None:
    """A brick seen at 179.5 deg on a support seen at 0.5 deg is aligned with it, not a quarter turn off."""
    support = desc((4, 2), 0, 0, 9.6, 0.5)
    brick = desc((4, 2), 0.1, -0.1, 19.2, 179.5)
    assert relative_placement(brick, support) == (0, 0, 0, 0)
    turned = desc((4, 2), 0, 0, 19.2, 89.6)
    assert relative_placement(turned, support)[2] == 1


@pytest.mark.parametrize(
    ("perceived", "snapped"),
    [
        # 2x4 turned a quarter with its corner over lattice stud (3, 5): centre (432, -144).
        (desc((4, 2), 432.7, -144.9, 9.9, 91.5), (432.0, -144.0, 9.6, 90.0)),
        # Seen at 178.8 deg: the same as 0 (a rectangle's yaw is defined modulo 180).
        (desc((4, 2), 423.4, -184.6, 9.4, 178.8), (424.0, -184.0, 9.6, 0.0)),
        (desc((4, 2), 424.5, -183.2, 9.5, 1.3), (424.0, -184.0, 9.6, 0.0)),
        # Odd footprints land on half-stud centres.
        (desc((2, 1), 408.9, -196.4, 9.6, 0.2), (408.0, -196.0, 9.6, 0.0)),
        (desc((2, 1), 403.1, -192.5, 9.6, 90.7), (404.0, -192.0, 9.6, 90.0)),
        # A square near a quarter turn keeps the world-aligned frame.
        (desc((2, 2), 424.6, -175.3, 3.0, 88.5, "plate"), (424.0, -176.0, 3.2, 0.0)),
        # Stacked: the top height snaps to whole plates.
        (desc((4, 2), 432.0, -184.0, 19.0, 0.0), (432.0, -184.0, 19.2, 0.0)),
    ],
)
def test_snap_to_lattice(perceived: BrickDescriptor, snapped: tuple[float, float, float, float]) -> None:
    out = snap_to_lattice(perceived, WS)
    assert (out.x_mm, out.y_mm, out.top_z_mm, out.yaw_deg) == pytest.approx(snapped, abs=1e-3)
    assert snap_to_lattice(out, WS) == out  # idempotent
    assert out.size == perceived.size and out.color == perceived.color


@pytest.mark.parametrize(
    "far",
    [
        desc((4, 2), 427.5, -184.0, 9.6, 0.0),  # 3.5 mm from the nearest lattice centre
        desc((4, 2), 424.0, -184.0, 9.6, 15.0),  # 15 deg from the lattice axes
        desc((4, 2), 424.0, -184.0, 9.6, 45.0),
    ],
)
def test_snap_leaves_bricks_off_the_lattice_alone(far: BrickDescriptor) -> None:
    assert snap_to_lattice(far, WS) == far


def test_snapped_supports_seen_at_0_and_180_give_the_same_placement() -> None:
    """Perception may report 179.6 or 0.4 deg for the same support; snapping makes stud counting agree."""
    a = snap_to_lattice(desc((4, 2), 424.3, -183.8, 9.6, 179.6), WS)
    b = snap_to_lattice(desc((4, 2), 423.8, -184.2, 9.6, 0.4), WS)
    for stud in ((0, 0), (2, 1), (3, 0)):
        assert placement_pose(a, (2, 2), "brick", *stud, 0) == placement_pose(b, (2, 2), "brick", *stud, 0)


@pytest.mark.parametrize(("size", "height"), [((4, 2), "brick"), ((2, 1), "plate"), ((2, 2), "brick")])
@pytest.mark.parametrize("rotation", range(4))
def test_ground_poses_are_fixed_points_of_snapping_and_agree_with_supports(size: tuple[int, int], height: str,
                                                                          rotation: int) -> None:
    pose = ground_placement_pose(WS, size, height, 3, 2, rotation)
    seen = desc(size, pose.x_mm, pose.y_mm, pose.z_mm, pose.yaw_deg, height)
    snapped = snap_to_lattice(seen, WS)
    assert (snapped.x_mm, snapped.y_mm, snapped.top_z_mm) == pytest.approx((pose.x_mm, pose.y_mm, pose.z_mm))
    # A 1x1 brick placed on this one's first stud lands on lattice stud (3, 2) rotated into its frame.
    on_top = placement_pose(snapped, (1, 1), "brick", 0, 0, 0)
    corner_x = 3 if snapped.yaw_deg == 0.0 else 3 + size[1] - 1  # a frame along +y starts at its max-x corner
    ground = ground_placement_pose(WS, (1, 1), "brick", corner_x, 2, 0)
    assert (on_top.x_mm, on_top.y_mm) == pytest.approx((ground.x_mm, ground.y_mm))
    assert on_top.z_mm == pytest.approx(pose.z_mm + 9.6)
