"""Clutch decisions: capture of a pressed brick into a lattice pose, studs engaged, breaking under load."""

from __future__ import annotations

import math

import numpy as np
import pytest

from jarvis_sim.backends.isaac.clutch import GROUND, ClutchBook, engaged_studs, nearest_seat
from jarvis_sim.backends.isaac.config import IsaacConfig
from jarvis_sim.lego.assembly import brick_pose_in_world, make_brick, yaw_quaternion

ORIGIN = (0.40, -0.20, 0.0)
CONFIG = IsaacConfig()


def _pose(x: int, y: int, z: int, yaw: int = 0) -> tuple[np.ndarray, np.ndarray]:
    p, q = brick_pose_in_world(make_brick("b", "3001", 4, x, y, z, yaw), ORIGIN)
    return np.array(p), np.array(q)


@pytest.mark.parametrize(("x", "y", "z", "yaw"), [(0, 0, 0, 0), (3, -2, 3, 1), (-5, 7, 6, 2), (1, 1, 3, 3)])
def test_a_brick_within_the_capture_finds_its_lattice_pose(x: int, y: int, z: int, yaw: int) -> None:
    p, _ = _pose(x, y, z, yaw)
    off = p + np.array([0.0004, -0.0003, 0.0005])
    turned = np.array(yaw_quaternion(yaw * math.pi / 2 + 0.01))
    seat = nearest_seat("3001", off, turned, ORIGIN, CONFIG)
    assert seat is not None
    assert (seat.x, seat.y, seat.z) == (x, y, z) and seat.yaw % 2 == yaw % 2  # a 2x4 is symmetric under a half turn
    assert np.allclose(seat.position, p, atol=1e-12)


@pytest.mark.parametrize("miss", ["x", "z", "yaw", "tilt"])
def test_a_brick_outside_the_capture_is_not_seated(miss: str) -> None:
    p, q = _pose(2, 0, 3)
    if miss == "x":
        p = p + np.array([0.0015, 0.0, 0.0])  # resting on stud tops 1.5 mm off: no clutch
    elif miss == "z":
        p = p + np.array([0.0, 0.0, 0.0017])  # sitting on the studs, not pressed down
    elif miss == "yaw":
        q = np.array(yaw_quaternion(math.radians(4)))
    else:
        half = math.radians(3) / 2
        q = np.array([math.cos(half), math.sin(half), 0.0, 0.0])
    assert nearest_seat("3001", p, q, ORIGIN, CONFIG) is None


def test_engaged_studs_count_the_overlap() -> None:
    low = nearest_seat("3001", *_pose(0, 0, 0), ORIGIN, CONFIG)
    upper = nearest_seat("3001", *_pose(2, 0, 3), ORIGIN, CONFIG)  # running bond: half of the 2x4 overlaps
    beside = nearest_seat("3001", *_pose(4, 0, 3), ORIGIN, CONFIG)
    assert low and upper and beside
    assert engaged_studs("3001", upper, "3001", low) == 4
    assert engaged_studs("3001", beside, "3001", low) == 0
    assert engaged_studs("3001", low, "3001", upper) == 0  # the lower one does not stand on the upper one


def test_the_book_connects_breaks_and_detaches() -> None:
    book = ClutchBook(CONFIG)
    book.reset([("s1", "s0", 4), ("s0", GROUND, 8)])
    assert book.connected_to("s0") == ["ground", "s1"]
    assert book.connect("a", "s1", 2) and not book.connect("a", "s1", 2) and not book.connect("b", "s1", 0)
    assert not book.pressed(CONFIG.press_force_n * 0.5) and book.pressed(CONFIG.press_force_n)
    strong = frozenset(("s1", "s0"))
    weak = frozenset(("a", "s1"))
    broken = book.overloaded({strong: 4 * CONFIG.clutch_n_per_stud * 0.9, weak: 2 * CONFIG.clutch_n_per_stud * 1.1})
    assert broken == [weak] and book.connected_to("a") == []
    saved = book.snapshot()
    assert sorted(book.detach("s0")) == [("ground", "s0"), ("s0", "s1")]
    assert book.connected_to("s1") == [] and saved[strong] == 4


def test_a_weld_counts_as_broken_once_its_bodies_drift_apart() -> None:
    from jarvis_sim.backends.isaac.clutch import relative_pose, weld_broken
    from jarvis_sim.backends.isaac.kinematics import quat_to_matrix

    lower, upper = np.eye(4), np.eye(4)
    upper[:3, 3] = (0.016, 0.0, 0.0096)
    at_weld = relative_pose(upper, lower)
    shifted = upper.copy()
    shifted[:3, 3] += (0.0003, 0.0, 0.0)  # a loaded weld gives a fraction of a millimetre
    assert not weld_broken(at_weld, relative_pose(shifted, lower))
    lifted = upper.copy()
    lifted[:3, 3] += (0.0, 0.0, 0.003)  # pulled off its studs
    assert weld_broken(at_weld, relative_pose(lifted, lower))
    turned = upper.copy()
    turned[:3, :3] = quat_to_matrix(np.array(yaw_quaternion(math.radians(3))))
    assert weld_broken(at_weld, relative_pose(turned, lower))
    moved_together = lower.copy(), upper.copy()  # the pair carried away together: still one body
    for pose in moved_together:
        pose[:3, 3] += (0.1, 0.05, 0.0)
    assert not weld_broken(at_weld, relative_pose(moved_together[1], moved_together[0]))
