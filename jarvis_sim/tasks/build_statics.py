"""Can a task be built under the clutch's physics at all? Its structures checked for StableLego admissibility.

The MuJoCo backend seats a brick only when it is pressed on with `press_n_per_stud` per engaged stud, and breaks
connections the structure cannot carry (jarvis_sim/lego/statics.py). A task whose initial structure does not stand
under its own weight by that test, or one of whose bricks cannot be pressed on without overloading what is below,
cannot be finished by any agent without breaking something: those bricks bound what even the oracle can seat.
The pool's tasks were generated before the clutch had physics, so this reports how many are affected.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from jarvis_sim.lego.assembly import Assembly
from jarvis_sim.lego.statics import (
    admissible,
    assembly_joints,
    engaged_centre,
    gravity_loads,
    press_admissible,
)
from jarvis_sim.tasks.spec import TaskSpec


@dataclass(frozen=True)
class BuildStatics:
    """One task's answer: does its initial structure stand under its own weight, and which action bricks (in manual
    order, each pressed on with its seating force onto the structure built so far) overload it pressed at their
    centre, where place() holds a brick, and which even pressed over their engaged studs. The presses are judged
    as the simulator judges them: on what they add to a structure that stands at rest."""

    task_id: str
    initial_stands: bool
    actions: int
    overloaded_at_centre: list[str] = field(default_factory=list)
    overloaded_over_studs: list[str] = field(default_factory=list)


def _engaged_studs(asm: Assembly, brick_id: str) -> int:
    b = asm[brick_id]
    if b.z == 0:
        return len(b.cells())
    mine = set(b.cells())
    return sum(len(mine.intersection(asm[s].cells())) for s in asm.supports(brick_id))


def press_point(asm: Assembly, brick_id: str, origin: tuple[float, float, float], baseplate: bool, stud_n: float,
                press_n_per_stud: float) -> tuple[float, float] | bool | None:
    """Where a brick seated in `asm` (the structure built so far) can take its seating press without overloading what
    is below: None at its centre (where place() holds a brick), the world (x, y) m of its engaged studs' middle when
    only there, False when nowhere."""
    press = _engaged_studs(asm, brick_id) * press_n_per_stud
    if press_admissible(asm, brick_id, press, origin, baseplate, stud_n, with_weight=False):
        return None
    at = engaged_centre(asm, brick_id, origin)
    return at if press_admissible(asm, brick_id, press, origin, baseplate, stud_n, at=at, with_weight=False) else False


def build_statics(task: TaskSpec, stud_n: float, press_n_per_stud: float) -> BuildStatics:
    """Check a task's initial structure, then press each action brick on in manual order (see BuildStatics)."""
    origin = task.workspace.lattice_origin
    initial = task.initial_assembly
    stands = True
    if len(initial):
        joints = assembly_joints(initial, origin, task.baseplate)
        centre = np.mean([j.centre for j in joints], axis=0)
        stands = admissible(joints, gravity_loads(list(initial), origin, centre), centre, stud_n)
    target = task.target_assembly
    built = list(initial)
    at_centre, over_studs = [], []
    for action in task.action_bricks:
        built.append(target[action.id])
        where = press_point(Assembly(built, baseplate=task.baseplate), action.id, origin, task.baseplate, stud_n,
                            press_n_per_stud)
        if where is not None:
            at_centre.append(action.id)
            if where is False:
                over_studs.append(action.id)
    return BuildStatics(task.id, stands, len(task.action_bricks), at_centre, over_studs)
