"""The clutch model's pure parts: capacities from the engaged studs, what a brick seats on, collision groups."""

from __future__ import annotations

import pytest

from jarvis_sim.backends.mujoco.clutch import GROUND, ClutchGraph, capacity_of
from jarvis_sim.backends.mujoco.collision_groups import (
    ALL_BITS,
    FIRST_CLUSTER_BIT,
    LOOSE_MASKS,
    N_BITS,
    cluster_masks,
)
from jarvis_sim.lego import units as u
from jarvis_sim.lego.assembly import make_brick
from jarvis_sim.lego.clutch_model import CONTACT_POINT_CLUTCH_N

ARM = (1 << 1, 0b11)  # panda.py: ARM_CONTYPE, ARM_CONAFFINITY


def _collide(a: tuple[int, int], b: tuple[int, int]) -> bool:
    """MuJoCo's rule: (contype_a & conaffinity_b) or (contype_b & conaffinity_a)."""
    return bool((a[0] & b[1]) or (b[0] & a[1]))


def test_a_2x4_on_a_2x4_holds_its_contact_points_of_pull_and_a_lever_limited_moment() -> None:
    cells = [(x, y) for x in range(4) for y in range(2)]
    cap = capacity_of(cells, cells, (0.0, 0.0, 0.0), 0.0)
    assert cap.studs == 8
    t = CONTACT_POINT_CLUTCH_N
    assert cap.pull_n == pytest.approx(8 * 3 * t)  # StableLego: T per contact point, 3 per stud under a 2-wide brick
    p = u.STUD_PITCH_M
    # Prying about the long (x) axis: per stud of a row, the wall point and the two tube points at their levers from
    # the far edge (1/4 outward, 1/8 inward of the stud centre, half a pitch from its own edge).
    row = (0.5 - 0.25) + 2 * (0.5 + 0.125)  # the row along the pivot edge ...
    far = (1.5 + 0.25) + 2 * (1.5 - 0.125)  # ... and the other
    assert cap.moment_x_nm == pytest.approx(t * 4 * (row + far) * p)
    assert cap.moment_y_nm == pytest.approx(t * 2 * 3 * (0.5 + 1.5 + 2.5 + 3.5) * p)
    with pytest.raises(ValueError, match="at least one engaged stud"):
        capacity_of(cells, [], (0.0, 0.0, 0.0), 0.0)


def test_a_tile_gives_a_brick_on_it_nothing_to_seat_on() -> None:
    graph = ClutchGraph(lattice_origin=(0.0, 0.0, 0.0), baseplate=(0, 0, 32, 32))
    plate = make_brick("p", "3020", 1, 0, 0, 0)  # a 2x4 plate on the baseplate
    tile = make_brick("t", "3069b", 1, 4, 0, 0)  # a 1x2 tile beside it
    graph.seat(plate, (GROUND,))
    graph.seat(tile, (GROUND,))
    on_plate = make_brick("a", "3001", 2, 0, 0, 1)
    on_tile = make_brick("b", "3004", 2, 4, 0, 1)
    assert graph.supports_of(on_plate) == ("p",)
    assert graph.supports_of(on_tile) == ()


def test_welded_clusters_do_not_collide_inside_and_collide_with_everything_else() -> None:
    members = ["a", "b", "c", "d", "e", GROUND]
    groups = cluster_masks(members, [("a", GROUND), ("b", "a"), ("c", "d")])
    m = groups.masks
    assert not _collide(m["a"], m["b"]) and not _collide(m["a"], m[GROUND])  # one cluster: held by welds
    assert not _collide(m["c"], m["d"])
    assert _collide(m["a"], m["c"]) and _collide(m["b"], m["d"])  # two clusters
    assert m["e"] == LOOSE_MASKS and _collide(m["e"], m["a"]) and _collide(m["e"], m["e"])
    assert all(_collide(ARM, m[k]) for k in members) and _collide(ARM, ARM)  # the arm's self-collision stays
    assert groups.cluster_of["e"] == -1 and groups.cluster_of["a"] == groups.cluster_of[GROUND] >= 0


def test_clusters_beyond_the_bits_keep_full_collision() -> None:
    n = N_BITS - FIRST_CLUSTER_BIT + 3
    members = [f"b{k}" for k in range(2 * n)]
    links = [(f"b{2 * k}", f"b{2 * k + 1}") for k in range(n)]
    groups = cluster_masks(members, links)
    assert sum(1 for v in groups.masks.values() if v == LOOSE_MASKS) == 2 * 3  # the 3 extra pairs
    assert all(0 < ct <= ALL_BITS and 0 < ca <= ALL_BITS for ct, ca in groups.masks.values())
