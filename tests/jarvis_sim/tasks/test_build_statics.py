"""build_statics on jarvis-v1 tasks as shipped: which can be built by one arm at all (weight and press counted)."""

from __future__ import annotations

from jarvis_sim.lego import clutch_model as cm
from jarvis_sim.lego.assembly import Assembly
from jarvis_sim.lego.press_order import SEAT_PRESS_N, press_point
from jarvis_sim.tasks.build_statics import BuildStatics, build_statics
from jarvis_sim.tasks.registry import load_task
from jarvis_sim.tasks.spec import TaskSpec


def _statics(task_id: str) -> BuildStatics:
    task = load_task(task_id)
    assert isinstance(task, TaskSpec)
    return build_statics(task)


def test_the_press_is_the_seating_figure_not_the_capacity() -> None:
    assert SEAT_PRESS_N == cm.SEAT_PRESS_N < cm.CONTACT_POINT_CLUTCH_N * cm.POINTS_PER_STUD_WIDE


def test_a_tower_stands_and_takes_every_press() -> None:
    r = _statics("lego/v7-00000-tower/004")
    assert r.initial_stands and r.actions == 3
    assert r.overloaded_at_centre == [] and r.unbuildable == []


def test_a_1x1_pressed_onto_a_wall_hanging_from_one_stud_overloads_it() -> None:
    """wall v7-00116/023: the last 1x1 goes on a column that stands on a 1x6 held by one stud of the brick below;
    the seating press, with the column's weight, pries that stud out wherever the 1x1 is pressed."""
    r = _statics("lego/v7-00116-wall/023")
    assert r.initial_stands
    assert r.overloaded_at_centre == ["b112"] and r.unbuildable == ["b112"]


def test_a_random_pile_that_cannot_carry_its_own_weight_is_named() -> None:
    assert not _statics("lego/v7-00008-random_stack/025").initial_stands


def test_an_overhanging_brick_takes_its_press_over_its_studs_only() -> None:
    """jarvis-mini's v7-00034/005: the 2x6 b009 overhangs its support; pressed at its centre it would pry the
    structure, pressed over its engaged studs it pushes straight into it (place(press_supported=True))."""
    task = load_task("lego/v7-00034-random_stack/005")
    assert isinstance(task, TaskSpec)
    built = Assembly([*task.initial, task.target_assembly["b009"]], baseplate=task.baseplate)
    at = press_point(built, "b009", task.workspace.lattice_origin, task.baseplate)
    assert isinstance(at, tuple)
    assert press_point(built, "b009", task.workspace.lattice_origin, task.baseplate, press_n=0.0) is None
