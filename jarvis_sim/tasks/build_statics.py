"""Can a task be built by one arm at all? Its structures checked by StableLego's admissibility test, with weight.

A brick seats only when pressed on with the seating press (jarvis_sim/lego/clutch_model.py), and the clutch gives
where the structure cannot carry its loads (jarvis_sim/lego/statics.py: friction per stud-tube contact point). A
task whose initial structure does not stand under its own weight by that test, or one of whose bricks cannot take
its press with everything's weight on the structure (at its centre, where place() holds a brick, or over the studs
it engages, where place(press_supported=True) pushes), cannot be finished by one arm without breaking something.
The generated pools order their builds so that this never happens (jarvis_sim/lego/press_order.py); jarvis-v1 was
drawn before, and this counts what it holds.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jarvis_sim.lego import clutch_model
from jarvis_sim.lego.assembly import Assembly
from jarvis_sim.lego.press_order import press_point
from jarvis_sim.lego.statics import stands
from jarvis_sim.tasks.spec import TaskSpec

__all__ = ["BuildStatics", "build_statics", "press_point"]


@dataclass(frozen=True)
class BuildStatics:
    """One task's answer: does its initial structure stand under its own weight, and which action bricks (in manual
    order, each pressed on with the seating press onto the structure built so far, with its weight) overload it
    pressed at their centre, where place() holds a brick, and which even pressed over their engaged studs (those no
    single arm can build)."""

    task_id: str
    initial_stands: bool
    actions: int
    overloaded_at_centre: list[str] = field(default_factory=list)
    overloaded_over_studs: list[str] = field(default_factory=list)

    @property
    def unbuildable(self) -> list[str]:
        """The action bricks no single arm can press on anywhere (same as overloaded_over_studs)."""
        return self.overloaded_over_studs


def build_statics(task: TaskSpec, point_n: float = clutch_model.CONTACT_POINT_CLUTCH_N,
                  press_n: float | None = None) -> BuildStatics:
    """Check a task's initial structure, then press each action brick on in manual order (see BuildStatics)."""
    origin = task.workspace.lattice_origin
    initial = task.initial_assembly
    ok = stands(initial, origin, task.baseplate, point_n)
    target = task.target_assembly
    built = list(initial)
    at_centre, over_studs = [], []
    for action in task.action_bricks:
        built.append(target[action.id])
        where = press_point(Assembly(built, baseplate=task.baseplate), action.id, origin, task.baseplate, press_n,
                            point_n)
        if where is not None:
            at_centre.append(action.id)
            if where is False:
                over_studs.append(action.id)
    return BuildStatics(task.id, ok, len(task.action_bricks), at_centre, over_studs)
