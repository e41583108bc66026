from __future__ import annotations

import pytest

from jarvis_sim.vsp import maze as M

MAP = M.MazeMap(4, (0, 0), (3, 3), frozenset({(0, 1), (3, 0)}))


def test_off_edge_move_is_a_no_op_and_a_hole_ends_the_walk() -> None:
    assert M.walk(MAP, ["U", "L"]).final == (0, 0)
    res = M.walk(MAP, ["R", "D"])
    assert res.outcome is M.Outcome.HOLE and res.steps_taken == 1 and res.trailing == 1


def test_goal_ends_the_walk_and_unknown_moves_raise() -> None:
    res = M.walk(MAP, ["D", "D", "R", "R", "D", "R", "U"])
    assert res.outcome is M.Outcome.GOAL and res.trailing == 1
    with pytest.raises(KeyError):
        M.walk(MAP, ["X"])


def test_bfs_finds_a_shortest_safe_plan() -> None:
    plan = M.shortest_plan(MAP)
    assert plan is not None and len(plan) == 6
    assert M.walk(MAP, plan).outcome is M.Outcome.GOAL
    walled = M.MazeMap(3, (0, 0), (2, 2), frozenset({(0, 1), (1, 0), (1, 1)}))
    assert M.shortest_plan(walled) is None


def test_text_formats_round_trip() -> None:
    assert M.parse_table(MAP.to_table()) == MAP
    assert M.parse_pure_text(MAP.to_pure_text()) == MAP
    assert M.parse_desc(MAP.to_desc()) == MAP
    assert M.parse_special_text(MAP.to_special_text()) == MAP
    assert MAP.relation() == {"Above", "Left"}


def test_bad_maps_are_rejected_with_a_clear_error() -> None:
    with pytest.raises(M.MazeFormatError, match="square"):
        M.parse_table("| Row 1 | _ | @ |\n| Row 2 | * |")
    with pytest.raises(M.MazeFormatError, match="unknown symbol"):
        M.parse_desc("SX\nFG")


def test_t4_safety_walks_on_past_the_goal() -> None:
    m = M.MazeMap(3, (0, 0), (0, 1), frozenset({(0, 2)}))
    assert not M.is_safe(m, ["R", "R"])
    assert M.is_safe(m, ["L", "D"])
