"""Assembly scores on crafted final states with known answers."""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evaluator.assembly import score_assembly, time_penalty
from evaluator.config import ScoringConfig
from jarvis_sim.lego import units as u
from jarvis_sim.lego.assembly import make_brick
from jarvis_sim.tasks.spec import TablePose
from tests.evaluator.builders import (
    BLUE,
    RED,
    make_task,
    perfect_state,
    shifted,
    start_state,
    tilted,
    turned,
    with_brick,
)

TASK = make_task()
CFG = ScoringConfig()


def brick(scores, target_id):  # type: ignore[no-untyped-def]
    return next(b for b in scores.bricks if b.target_id == target_id)


def test_perfect_build_scores_100() -> None:
    s = score_assembly(TASK, perfect_state(TASK), elapsed_s=10.0)
    assert s.scores() == {
        "soft_score": 100.0,
        "pose": 100.0,
        "completion": 100.0,
        "validity": 100.0,
        "stability": 100.0,
        "time_penalty": 0.0,
        "soft_score_no_time_penalty": 100.0,
    }
    assert all(b.problems == () for b in s.bricks)
    assert brick(s, "a1").reference == ("i1",) and brick(s, "a2").reference == ("ground",)


def test_nothing_moved_scores_zero_but_keeps_stability() -> None:
    s = score_assembly(TASK, start_state(TASK), elapsed_s=5.0)
    assert (s.pose, s.completion, s.validity, s.soft_score) == (0.0, 0.0, 0.0, 0.0)
    assert s.stability == 100.0
    assert all("not moved from its start pose" in b.problems for b in s.bricks)


def test_2x4_turned_half_way_earns_full_orientation_credit() -> None:
    s = score_assembly(TASK, turned(perfect_state(TASK), "a1", math.pi), elapsed_s=10.0)
    assert brick(s, "a1").credit["yaw"] == 1.0
    assert s.soft_score == pytest.approx(100.0)


def test_2x4_turned_quarter_earns_no_orientation_credit() -> None:
    s = score_assembly(TASK, turned(perfect_state(TASK), "a1", math.pi / 2), elapsed_s=10.0)
    a1 = brick(s, "a1")
    assert a1.credit["yaw"] == 0.0
    assert a1.yaw_error_rad == pytest.approx(math.pi / 2)
    assert not a1.complete
    assert a1.pose == pytest.approx(1.0 - CFG.pose.w_yaw)
    assert s.completion == 50.0


def test_2x2_turned_quarter_earns_full_credit() -> None:
    s = score_assembly(TASK, turned(perfect_state(TASK), "a2", math.pi / 2), elapsed_s=10.0)
    assert brick(s, "a2").credit["yaw"] == 1.0
    assert s.soft_score == pytest.approx(100.0)


def test_one_stud_off_loses_in_plane_credit_but_keeps_level_and_orientation() -> None:
    s = score_assembly(TASK, shifted(perfect_state(TASK), "a1", dx=u.STUD_PITCH_M), elapsed_s=10.0)
    a1 = brick(s, "a1")
    pc = CFG.pose
    assert a1.credit["plane"] == 0.0 and a1.credit["gate"] == pytest.approx(1.0)
    expected = pc.w_level + pc.w_yaw + pc.w_tilt + pc.w_anchor * pc.anchor(u.STUD_PITCH_M)
    assert a1.pose == pytest.approx(expected)
    assert not a1.complete
    expected_soft = 0.5 * (100 * expected + 100) / 2 + 0.3 * 50 + 0.2 * 100
    assert s.soft_score == pytest.approx(expected_soft)


def test_one_level_too_high_loses_level_credit() -> None:
    s = score_assembly(TASK, shifted(perfect_state(TASK), "a1", dz=u.BRICK_PLATES * u.PLATE_HEIGHT_M), 10.0)
    a1 = brick(s, "a1")
    assert a1.credit["level"] == 0.0 and a1.credit["plane"] == 1.0
    assert a1.level_error_m == pytest.approx(0.0096)
    assert not a1.complete and "not at its target lattice pose" in a1.problems


def test_placed_but_not_connected_keeps_a_substantial_pose_score() -> None:
    one = make_task(actions=[(make_brick("a1", "3001", RED, 0, 0, 3), TablePose(x=0.35, y=0.25))])
    exact = with_brick(perfect_state(one), "a1", connected_to=[])
    s = score_assembly(one, exact, 10.0)
    assert (s.completion, s.pose, s.validity) == (0.0, 100.0, 100.0)
    assert s.soft_score == pytest.approx(70.0)
    assert brick(s, "a1").problems == ("not connected",)
    # Resting on the stud tops, as an unseated brick does: still well over half the score.
    on_studs = shifted(exact, "a1", dz=u.STUD_HEIGHT_M)
    s2 = score_assembly(one, on_studs, 10.0)
    assert s2.completion == 0.0
    assert 55.0 < s2.soft_score < 70.0


def test_still_held_is_neither_valid_nor_complete() -> None:
    s = score_assembly(TASK, with_brick(perfect_state(TASK), "a1", held=True), 10.0)
    a1 = brick(s, "a1")
    assert not a1.valid and not a1.complete and "still held" in a1.problems
    assert (s.validity, s.completion) == (50.0, 50.0)


def test_knocked_off_the_table() -> None:
    state = with_brick(perfect_state(TASK), "a2", position=(1.2, 0.0, -0.7), connected_to=[])
    s = score_assembly(TASK, state, 10.0)
    a2 = brick(s, "a2")
    assert not a2.valid and "off the table" in a2.problems
    assert a2.pose == 0.0
    assert s.validity == 50.0


def test_footprint_overhanging_the_table_edge_is_invalid() -> None:
    edge_x = TASK.workspace.table_max[0]
    state = with_brick(perfect_state(TASK), "a2", position=(edge_x - 0.005, 0.0, 0.0))
    assert not brick(score_assembly(TASK, state, 10.0), "a2").valid


def test_disturbed_initial_structure_costs_stability_but_not_relative_pose() -> None:
    state = shifted(shifted(perfect_state(TASK), "i1", dx=0.01), "a1", dx=0.01)
    s = score_assembly(TASK, state, 10.0)
    assert s.stability == 0.0 and s.disturbed == ("i1",)
    a1 = brick(s, "a1")
    assert a1.plane_error_m == pytest.approx(0.0, abs=1e-12) and a1.complete
    assert a1.credit["anchor"] < 1.0
    progress = 0.5 * s.pose + 0.3 * s.completion + 0.2 * s.validity
    assert s.soft_score == pytest.approx(progress * (1 - CFG.soft.stability_penalty))


def test_support_yaw_deviation_turns_the_expected_offset() -> None:
    """A brick on the far end of a slightly rotated support is judged where the support now points."""
    task = make_task(
        initial=[make_brick("i1", "3008", BLUE, 0, 0, 0)],  # 1x8 brick along x
        actions=[(make_brick("a1", "3005", RED, 7, 0, 3), TablePose(x=0.35, y=0.25))],
    )
    base = perfect_state(task)
    angle = math.radians(3)
    i1 = base.by_id()["i1"]
    a1 = base.by_id()["a1"]
    cx, cy, _ = i1.position
    ox, oy = a1.position[0] - cx, a1.position[1] - cy
    rotated_a1 = (cx + math.cos(angle) * ox - math.sin(angle) * oy, cy + math.sin(angle) * ox + math.cos(angle) * oy)
    state = turned(turned(base, "i1", angle), "a1", angle)
    state = with_brick(state, "a1", position=(*rotated_a1, a1.position[2]))
    b = brick(score_assembly(task, state, 10.0), "a1")
    assert b.plane_error_m == pytest.approx(0.0, abs=1e-9)
    assert b.yaw_error_rad == pytest.approx(0.0, abs=1e-9)


def test_tilted_brick_loses_tilt_credit() -> None:
    s = score_assembly(TASK, tilted(perfect_state(TASK), "a2", math.radians(30)), 10.0)
    a2 = brick(s, "a2")
    assert a2.credit["tilt"] == 0.0 and not a2.complete


def test_identical_bricks_swapped_are_matched_optimally() -> None:
    task = make_task(
        actions=[
            (make_brick("a1", "3001", RED, 0, 0, 3), TablePose(x=0.35, y=0.25)),
            (make_brick("a2", "3001", RED, 6, 0, 0), TablePose(x=0.45, y=0.25)),
        ]
    )
    state = perfect_state(task)
    p = state.by_id()
    swapped = with_brick(with_brick(state, "a1", position=p["a2"].position, connected_to=[]),
                         "a2", position=p["a1"].position, connected_to=["i1"])
    s = score_assembly(task, swapped, 10.0)
    assert s.soft_score == pytest.approx(100.0)
    assert {b.target_id: b.matched_id for b in s.bricks} == {"a1": "a2", "a2": "a1"}


def test_missing_brick_earns_nothing() -> None:
    state = perfect_state(TASK)
    state = state.model_copy(update={"bricks": [b for b in state.bricks if b.id != "a2"]})
    s = score_assembly(TASK, state, 10.0)
    a2 = brick(s, "a2")
    assert a2.matched_id is None and a2.pose == 0.0 and a2.problems == ("no matching brick",)
    assert s.completion == 50.0


def test_missing_initial_brick_is_unstable_and_its_dependant_is_judged_on_the_lattice() -> None:
    state = perfect_state(TASK)
    state = state.model_copy(update={"bricks": [b for b in state.bricks if b.id != "i1"]})
    s = score_assembly(TASK, state, 10.0)
    assert s.stability == 0.0 and brick(s, "a1").reference == ("ground",)


def test_time_over_budget() -> None:
    budget = TASK.time_budget_s
    assert score_assembly(TASK, perfect_state(TASK), budget).soft_score == 100.0
    over = score_assembly(TASK, perfect_state(TASK), 1.5 * budget)
    assert over.time_penalty == pytest.approx(10.0) and over.soft_score == pytest.approx(90.0)
    assert over.soft_score_no_time_penalty == 100.0
    assert time_penalty(10 * budget, budget) == CFG.time_penalty.max_points
    assert time_penalty(None, budget) == 0.0


def test_details_are_json_ready() -> None:
    import json

    s = score_assembly(TASK, shifted(perfect_state(TASK), "a1", dx=0.002), 10.0)
    d = json.loads(json.dumps(s.details()))
    assert d["n_required"] == 2 and d["bricks"][0]["plane_error_mm"] == pytest.approx(2.0)


finite = st.floats(min_value=-0.05, max_value=0.05, allow_nan=False)


@settings(max_examples=150, deadline=None)
@given(dx=finite, dy=finite, dz=finite, yaw=st.floats(-4.0, 4.0), tilt=st.floats(0.0, 1.5),
       held=st.booleans(), elapsed=st.floats(0.0, 1000.0))
def test_scores_stay_in_bounds(dx: float, dy: float, dz: float, yaw: float, tilt: float, held: bool,
                               elapsed: float) -> None:
    state = turned(shifted(perfect_state(TASK), "a1", dx, dy, dz), "a2", yaw)
    state = with_brick(tilted(state, "i1", tilt), "a1", held=held)
    s = score_assembly(TASK, state, elapsed)
    for v in s.scores().values():
        assert 0.0 <= v <= 100.0
    assert all(0.0 <= b.pose <= 1.0 for b in s.bricks)
    assert s.soft_score <= s.soft_score_no_time_penalty


@settings(max_examples=100, deadline=None)
@given(direction=st.floats(0.0, 2 * math.pi), r1=st.floats(0.0, 0.06), r2=st.floats(0.0, 0.06),
       up=st.floats(-1.0, 1.0))
def test_scores_never_rise_with_error(direction: float, r1: float, r2: float, up: float) -> None:
    small, large = sorted((r1, r2))

    def at(r: float):  # type: ignore[no-untyped-def]
        state = shifted(perfect_state(TASK), "a1", r * math.cos(direction), r * math.sin(direction), up * r / 4)
        return score_assembly(TASK, state, 10.0)

    a, b = at(small), at(large)
    assert brick(a, "a1").pose >= brick(b, "a1").pose - 1e-12
    assert a.soft_score >= b.soft_score - 1e-9


@settings(max_examples=60, deadline=None)
@given(y1=st.floats(0.0, math.pi / 2), y2=st.floats(0.0, math.pi / 2))
def test_orientation_credit_never_rises_with_yaw_error(y1: float, y2: float) -> None:
    small, large = sorted((y1, y2))
    a = brick(score_assembly(TASK, turned(perfect_state(TASK), "a1", small), 10.0), "a1")
    b = brick(score_assembly(TASK, turned(perfect_state(TASK), "a1", large), 10.0), "a1")
    assert a.credit["yaw"] >= b.credit["yaw"] and a.pose >= b.pose - 1e-12


@given(e1=st.floats(0.0, 1e4), e2=st.floats(0.0, 1e4))
def test_time_penalty_is_bounded_and_monotone(e1: float, e2: float) -> None:
    budget = TASK.time_budget_s
    lo, hi = sorted((e1, e2))
    assert 0.0 <= time_penalty(lo, budget) <= time_penalty(hi, budget) <= CFG.time_penalty.max_points
