"""Lattice rules on crafted assemblies."""

from __future__ import annotations

import pytest

from jarvis_sim.lego.assembly import Assembly, AssemblyError, make_brick


def test_stacked_bricks_connect_and_ground() -> None:
    a = Assembly(
        [
            make_brick("a", "3001", 4, 0, 0, 0),
            make_brick("b", "3003", 1, 1, 0, 3),
            make_brick("c", "3001", 1, 3, 0, 3, yaw=1),
        ]
    )
    assert a.overlaps() == []
    assert set(a.connections()) == {("b", "a"), ("c", "a")}
    assert a.supports("c") == ["a"]
    assert all(a.connected_to_ground().values())
    assert a.buildability_errors() == []


def test_overlap_detected() -> None:
    a = Assembly([make_brick("a", "3001", 4, 0, 0, 0), make_brick("b", "3003", 1, 3, 1, 2)])
    assert [(o.a, o.b) for o in a.overlaps()] == [("a", "b")]
    with pytest.raises(AssemblyError, match="overlap"):
        a.validate()


def test_floating_brick_is_unbuildable_and_not_grounded() -> None:
    a = Assembly([make_brick("a", "3001", 4, 0, 0, 0), make_brick("f", "3003", 1, 10, 10, 6)])
    errs = a.buildability_errors()
    assert len(errs) == 1 and errs[0].brick_id == "f" and "no studs" in str(errs[0])
    assert a.connected_to_ground() == {"a": True, "f": False}


def test_brick_under_overhang_cannot_be_placed_from_above() -> None:
    a = Assembly(
        [
            make_brick("p1", "3005", 4, 0, 0, 0),
            make_brick("p2", "3005", 4, 3, 0, 0),
            make_brick("top", "3001", 4, 0, 0, 3),
            make_brick("late", "3005", 4, 1, 0, 0),
        ]
    )
    errs = a.buildability_errors()
    assert [e.brick_id for e in errs] == ["late"]


def test_rotation_swaps_extent_and_keeps_integer_cells() -> None:
    b = make_brick("r", "3001", 4, 5, 5, 0, yaw=1)
    assert b.extent == (2, 4)
    assert sorted(b.cells()) == [(x, y) for x in (5, 6) for y in (5, 6, 7, 8)]


def test_duplicate_ids_rejected() -> None:
    with pytest.raises(AssemblyError, match="duplicate"):
        Assembly([make_brick("a", "3001", 4, 0, 0, 0), make_brick("a", "3003", 4, 5, 0, 0)])
