"""build_statics on jarvis-v1 tasks as shipped: which can be built under the clutch's physics at all."""

from __future__ import annotations

from jarvis_sim.backends.mujoco.clutch import STUD_CLUTCH_N
from jarvis_sim.tasks.build_statics import build_statics
from jarvis_sim.tasks.registry import load_task
from jarvis_sim.tasks.spec import TaskSpec


def _statics(task_id: str):  # type: ignore[no-untyped-def]
    task = load_task(task_id)
    assert isinstance(task, TaskSpec)
    return build_statics(task, STUD_CLUTCH_N, STUD_CLUTCH_N)


def test_a_tower_stands_and_takes_every_press() -> None:
    r = _statics("lego/v7-00000-tower/004")
    assert r.initial_stands and r.actions == 3
    assert r.overloaded_at_centre == [] and r.overloaded_over_studs == []


def test_a_1x1_pressed_onto_a_wall_hanging_from_one_stud_overloads_it() -> None:
    """wall v7-00116/023: the last 1x1 goes on a column that stands on a 1x6 held by one stud of the brick below;
    the one stud's seating press, a pitch away from that stud, pries it out wherever the 1x1 is pressed."""
    r = _statics("lego/v7-00116-wall/023")
    assert r.initial_stands
    assert r.overloaded_at_centre == ["b112"] and r.overloaded_over_studs == ["b112"]


def test_a_house_whose_wall_hangs_on_one_stud_does_not_stand() -> None:
    assert not _statics("lego/v7-00325-house/043").initial_stands
