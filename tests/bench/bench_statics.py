"""`jarvis bench statics [--suite S]`: which tasks can be built under the clutch's physics at all.

For every LEGO task of the suite (default jarvis-v1): does the initial structure stand under its own weight by
StableLego's admissibility test (jarvis_sim/lego/statics.py, T = 0.98 N per contact point), and can each action brick, in
manual order, be pressed on with its seating force (seat_press_n per connection, with weight) without overloading the
structure, pressed at its centre (where place() holds it) or over its engaged studs. One JSON object per task
with a finding, then the totals: the ceiling any agent's completion has without breaking something.

Beside it, the hand's ceiling: the action bricks the Franka hand (skills/hand.py) has room to press on and let go
of, placed in the oracle's order (agent.agents.hand_room.grip_order, which puts bricks that would be hemmed in before
their neighbours within a manual step). A brick flanked on both sides of both grips (the pads need 10 mm beside
it) cannot be placed by a parallel gripper in that order; place() refuses it as path_blocked. Two figures say
what else would help: grips off the brick's centre (along the pads' width), and ordering over the whole task
instead of within each manual step.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from common import emit, machine

from agent.agents.hand_room import grip_order, hand_fits
from jarvis_sim.backends.mujoco.scene import SimConfig
from jarvis_sim.tasks.build_statics import build_statics
from jarvis_sim.tasks.registry import load_task, suite_task_ids
from jarvis_sim.tasks.spec import TaskSpec


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--suite", default="jarvis-v1")
    args = parser.parse_args()
    config = SimConfig()
    ctx = machine()
    t0 = time.perf_counter()
    tasks = standing = actions = centre_ok = studs_ok = hand_ok = off_centre_ok = any_order_ok = 0
    for task_id in suite_task_ids(args.suite):
        task = load_task(task_id)
        if not isinstance(task, TaskSpec):
            continue
        r = build_statics(task, config.contact_point_clutch_n)  # the seating press: 1 N per connection
        tasks += 1
        standing += r.initial_stands
        actions += r.actions
        centre_ok += r.actions - len(r.overloaded_at_centre)
        studs_ok += r.actions - len(r.overloaded_over_studs)
        hemmed = _hemmed_in(task)
        hand_ok += r.actions - len(hemmed)
        off_centre_ok += r.actions - len(_hemmed_in(task, off_centre=True)) if hemmed else r.actions
        any_order_ok += r.actions - len(_hemmed_in(task, by_step=False)) if hemmed else r.actions
        if not r.initial_stands or r.overloaded_at_centre or hemmed:
            emit("task_statics", len(r.overloaded_at_centre), "action bricks overloading the structure at centre",
                 task=task_id, initial_stands=r.initial_stands, overloaded_at_centre=r.overloaded_at_centre,
                 overloaded_over_studs=r.overloaded_over_studs, hand_hemmed_in=hemmed, actions=r.actions)
    wall = time.perf_counter() - t0
    emit("initial_structures_standing", standing, "tasks", of=tasks, suite=args.suite, **ctx)
    emit("action_bricks_pressable_at_centre_pct", 100.0 * centre_ok / max(actions, 1), "%", bricks=centre_ok,
         of=actions, suite=args.suite, what="pressed where place() holds a brick, onto the structure built so far", **ctx)
    emit("action_bricks_pressable_over_studs_pct", 100.0 * studs_ok / max(actions, 1), "%", bricks=studs_ok,
         of=actions, suite=args.suite, what="pressed over the brick's engaged studs: the ceiling of any press", **ctx)
    emit("action_bricks_hand_has_room_pct", 100.0 * hand_ok / max(actions, 1), "%", bricks=hand_ok, of=actions,
         suite=args.suite, what="the hand has room to press each on and let go, in the oracle's order", **ctx)
    emit("action_bricks_hand_has_room_off_centre_pct", 100.0 * off_centre_ok / max(actions, 1), "%",
         bricks=off_centre_ok, of=actions, suite=args.suite,
         what="the same, also gripping a brick off its centre along the pads' width (place() does not)", **ctx)
    emit("action_bricks_hand_has_room_any_order_pct", 100.0 * any_order_ok / max(actions, 1), "%",
         bricks=any_order_ok, of=actions, suite=args.suite,
         what="the same, in the oracle's order over the whole task instead of within each manual step", **ctx)
    emit("statics_wall_s", wall, "s", tasks=tasks, **ctx)


def _hemmed_in(task: TaskSpec, off_centre: bool = False, by_step: bool = True) -> list[str]:
    """Action bricks beside which the hand has no room when they are placed in the oracle's order: within each manual
    step (what the oracle does), or, with `by_step` False, over all the task's action bricks at once (supports first).
    `off_centre` also admits grips shifted along the pads' width (hand_room.hand_fits)."""
    target = task.target_assembly
    origin = task.workspace.lattice_origin
    present = list(task.initial)
    steps = [step.brick_ids for step in task.manual_steps] if by_step else [[a.id for a in task.action_bricks]]
    out = []
    for ids in steps:
        for bid in grip_order([target[i] for i in ids], present, target, origin):
            if not hand_fits(target[bid], present, origin, off_centre):
                out.append(bid)
            present.append(target[bid])
    return out


if __name__ == "__main__":
    main()
