"""PlacementWatch: which skill calls end a pick-and-place, what it keeps of them, when it pauses."""

from __future__ import annotations

from typing import Any

from agent.episodes.placements import PlacementWatch
from jarvis_sim.records import SkillCallRecord
from tests.fakes.gripper_backend import GripperBackend


def _call(watch: PlacementWatch, backend: GripperBackend, name: str, held_after: str | None, ok: bool = True,
          **args: Any) -> None:
    backend.held = held_after
    watch.on_call(SkillCallRecord(name=name, args=args, ok=ok, error_kind=None if ok else "path_blocked"))


def test_task_library_placements_are_kept_and_pause_once_each() -> None:
    backend = GripperBackend()
    watch = PlacementWatch(backend, pause=True)  # type: ignore[arg-type]
    _call(watch, backend, "observe", None)
    _call(watch, backend, "place_on", None, support="ground", stud_x=1, stud_y=2)  # nothing held: no operation
    _call(watch, backend, "pick", "a1", brick="p3")
    assert watch.pause_reason() is None and watch.placements == []
    _call(watch, backend, "place_at", "a1", ok=False, stud_x=0, stud_y=0, level=0)  # refused, still held
    first = watch.pause_reason()
    assert first is not None and "place_at(stud_x=0, stud_y=0, level=0)" in first and "path_blocked" in first
    assert watch.pause_reason() is None  # a reason is given once
    _call(watch, backend, "place_on", None, support="ground", stud_x=1, stud_y=2)
    assert watch.pause_reason() is not None
    assert [(p.call_index, p.skill, p.ok, p.brick_id) for p in watch.placements] == [
        (3, "place_at", False, "a1"), (4, "place_on", True, "a1"),
    ]
    assert [p.state.sim_time_s for p in watch.placements] == [1.0, 2.0]  # ground truth taken just after each


def test_generic_release_counts_only_when_a_brick_was_let_go() -> None:
    backend = GripperBackend()
    watch = PlacementWatch(backend)  # type: ignore[arg-type]
    _call(watch, backend, "open_gripper", None)  # empty hand
    _call(watch, backend, "close_gripper", "a2")
    _call(watch, backend, "move_ee", "a2", x_mm=400.0, y_mm=0.0, z_mm=50.0)
    _call(watch, backend, "open_gripper", None)
    assert [(p.skill, p.brick_id, p.call_index) for p in watch.placements] == [("open_gripper", "a2", 3)]
    assert watch.pause_reason() is None  # pausing was not asked for
