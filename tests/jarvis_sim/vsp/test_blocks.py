from __future__ import annotations

import pytest

from jarvis_sim.vsp import blocks as B

S = B.BlocksState((("purple",), ("blue",), ("orange", "red")))


def test_only_top_blocks_move_onto_tops_or_the_table() -> None:
    assert S.why_invalid(B.Move("orange", "table")) == "the orange block is covered"
    assert S.why_invalid(B.Move("green", "table")) == "there is no green block"
    assert S.why_invalid(B.Move("blue", "orange")) == "the orange block is covered"
    after = S.apply(B.Move("red", "blue"))
    assert after.same_as(B.BlocksState((("purple",), ("blue", "red"), ("orange",))))
    with pytest.raises(ValueError):
        S.apply(B.Move("orange", "purple"))


def test_stack_order_does_not_matter() -> None:
    assert S.same_as(B.BlocksState((("orange", "red"), ("purple",), ("blue",))))
    assert not S.same_as(B.BlocksState((("red", "orange"), ("purple",), ("blue",))))


def test_search_finds_optimal_plans() -> None:
    goal = B.BlocksState((("red", "orange", "blue", "purple"),))
    plan = B.shortest_plan(S, goal)
    assert plan is not None and len(plan) == 4
    end, bad = B.run_plan(S, plan)
    assert bad is None and end.same_as(goal)
    plans = B.optimal_plans(S, goal, limit=5)
    assert plans and all(len(p) == 4 for p in plans)


def test_formats_round_trip() -> None:
    assert B.decode(S.encode()) == S
    assert B.parse_pure_text(S.to_pure_text()) == S
    assert S.tower_type() == "3Towers/112"
    assert S.to_table().splitlines()[1] == "Level 2 | | | red |"
    assert B.parse_move("move(r,table,0)") == B.Move("red", "table")
    assert B.parse_move("move(pink,red)") is None


def test_relation_follows_the_official_labels() -> None:
    tall = B.BlocksState((("green", "orange", "red"),))
    assert B.relation(tall, "red", "green") == 0  # above, though not touching
    assert B.relation(tall, "green", "orange") == 1
    assert B.relation(S, "purple", "blue") == 2
    assert B.relation(S, "yellow", "blue") == 3


def test_bad_text_is_rejected() -> None:
    with pytest.raises(B.BlocksFormatError, match="twice"):
        B.parse_pure_text("- Stack with red block\n- Stack with red block")
    with pytest.raises(B.BlocksFormatError, match="unknown block letter"):
        B.decode("X00000")
