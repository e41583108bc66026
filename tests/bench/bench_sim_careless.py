"""`jarvis bench sim_careless`: a deliberately careless program on a suite, to show collisions have consequences.

The program knows where every brick goes (ground truth, like the oracle) and uses the skills, but has no transit
height: the hand and the held brick sweep through whatever stands in the way. Two ways of being careless:

- `straight` (default): one straight line from where it picked the brick to 2 mm above its target, the
  program a model writes when it forgets that the structure is there (pick(); move_ee(target); ...);
- `level`: up to the target's top + 15 mm over the pick, then level to the target, which only sweeps through
  what stands taller than the target.

It then presses the brick down (generic press_down) and lets go, ignoring every error. The figure that matters
is the initial structure's stability score (evaluator.assembly): with a dynamic structure and a contact reflex
it falls below 100 on the tasks whose structure stands in the way.

    jarvis bench sim_careless [--suite jarvis-v1] [--limit 12] [--path straight|level]
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from common import emit, machine

import jarvis_sim.tasks.families  # noqa: F401  (registers the task families)
from evaluator.assembly import score_assembly
from jarvis_sim.backends.registry import make_backend
from jarvis_sim.lego.catalog import part
from jarvis_sim.tasks.registry import load_task, suite_task_ids
from jarvis_sim.tasks.spec import TaskSpec
from skills.context import SkillContext
from skills.errors import Collision, SkillError
from skills.libraries import bind

LOW_MM = 15.0  # `level`: carried this far above the target's top, all the way
ABOVE_MM = 2.0  # `straight`: the line ends this far above the target's top
PATHS = ("straight", "level")


def careless_episode(task: TaskSpec, path: str = "straight") -> dict[str, float]:
    """Run the careless program on one task; its stability, collisions and other skill errors."""
    backend = make_backend("mujoco")
    backend.load(task, seed=0)
    ctx = SkillContext(backend=backend, workspace=task.workspace)
    sk, gen = dict(bind("task", ctx)), dict(bind("generic", ctx))
    collisions = errors = 0
    for a in task.action_bricks:
        try:
            sk["go_home"]()
            seen = sk["observe"]()
            start = backend.world_state().by_id()[a.id].position
            near = min(seen, key=lambda d: math.hypot(d["x_mm"] - start[0] * 1000, d["y_mm"] - start[1] * 1000))
            sk["pick"](near["id"])
            (tx, ty, tz), _ = task.target_world_pose(a.id)
            top = (tz + part(a.target.part).height_m) * 1000.0
            yaw = math.degrees(a.target.yaw_rad)
            if path == "level":
                here = gen["get_ee_pose"]()
                gen["move_ee"](here["x_mm"], here["y_mm"], top + LOW_MM, here["yaw_deg"])
                gen["move_ee"](tx * 1000.0, ty * 1000.0, top + LOW_MM, yaw)
            else:
                gen["move_ee"](tx * 1000.0, ty * 1000.0, top + ABOVE_MM, yaw)  # from the pick, in one line
            gen["close_gripper"]()
            gen["press_down"]((LOW_MM if path == "level" else ABOVE_MM) + 10.0, 12.0)
        except Collision:
            collisions += 1
        except SkillError:
            errors += 1
        finally:
            try:
                gen["open_gripper"]()
                ctx.held, ctx.held_descriptor = None, None
            except SkillError:
                errors += 1
    scores = score_assembly(task, backend.world_state(), None)
    backend.close()
    return {"stability": scores.stability, "collisions": collisions, "errors": errors,
            "disturbed": len(scores.disturbed)}


def main() -> None:
    """Print the figures."""
    ap = argparse.ArgumentParser(prog="jarvis bench sim_careless", description=__doc__.splitlines()[0])
    ap.add_argument("--suite", default="jarvis-v1")
    ap.add_argument("--limit", type=int, default=12, help="the first N tasks of the suite")
    ap.add_argument("--path", choices=PATHS, default="straight", help="how the brick is carried (see above)")
    args = ap.parse_args()
    ctx = machine()
    ids = suite_task_ids(args.suite)[: args.limit]
    t0 = time.perf_counter()
    rows = []
    for tid in ids:
        task = load_task(tid)
        if not isinstance(task, TaskSpec) or not task.initial:
            continue  # a question item, or nothing standing that could be disturbed
        row = careless_episode(task, args.path)
        rows.append(row)
        emit("careless_episode", row["stability"], "stability points", task=tid, path=args.path, **{k: v for k, v in row.items()
             if k != "stability"}, **ctx)
    below = sum(r["stability"] < 100.0 for r in rows)
    emit("careless_tasks_below_100_stability", below / max(1, len(rows)), "share", tasks=len(rows), path=args.path,
         mean_stability=round(statistics.mean(r["stability"] for r in rows), 2) if rows else math.nan,
         collisions=sum(r["collisions"] for r in rows), wall_s=round(time.perf_counter() - t0, 1), **ctx)


if __name__ == "__main__":
    main()
