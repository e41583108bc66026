"""`jarvis bench score`: assembly scoring throughput on jarvis-v1-sized tasks, one core.

Uses assets/suites/jarvis-v1.jsonl when it exists; otherwise synthetic tasks of the same size
(initial complexity around the pool median of 57 bricks, up to 300; horizon 1-10, mean about 5).
Final states are the perfect build plus seeded noise, so every code path (matching, supports,
kernels, stability) runs. Prints `score_episodes_per_s` and, for a baseline measured in the same run,
the rate with the per-task geometry cache defeated (geometry rebuilt for every episode).
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import math  # noqa: E402
import random  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

from common import emit, machine  # noqa: E402

from evaluator.assembly import score_assembly  # noqa: E402
from evaluator.geometry import _CACHE, task_geometry  # noqa: E402
from jarvis_sim.lego.assembly import make_brick, yaw_quaternion  # noqa: E402
from jarvis_sim.lego.world_state import BrickState, WorldState  # noqa: E402
from jarvis_sim.tasks.spec import ActionBrick, ManualStep, TablePose, TaskSpec, time_budget_s  # noqa: E402

SUITE = Path(__file__).resolve().parents[2] / "assets" / "suites" / "jarvis-v1.jsonl"


def synthetic_task(k: int, n_initial: int, horizon: int) -> TaskSpec:
    """A staggered wall of 2x4 bricks: n_initial already built, `horizon` more to add."""
    bricks = []
    per_row = 6
    for n in range(n_initial + horizon):
        level, col = divmod(n, per_row)
        shift = 2 if level % 2 else 0
        bricks.append(make_brick(f"b{n:03d}", "3001", 4 if n % 3 else 1, col * 4 + shift, 0, 3 * level))
    initial, rest = bricks[:n_initial], bricks[n_initial:]
    actions = [ActionBrick(start=TablePose(x=0.32 + 0.03 * j, y=0.3, yaw=0.0), target=b) for j, b in enumerate(rest)]
    return TaskSpec(
        id=f"lego/bench/{k}",
        difficulty="medium",
        source_assembly="bench-wall",
        initial=initial,
        action_bricks=actions,
        manual_steps=[ManualStep(index=j, brick_ids=[b.id]) for j, b in enumerate(rest)],
        time_budget_s=time_budget_s(len(rest)),
    )


def noisy_final_state(task: TaskSpec, rng: random.Random) -> WorldState:
    """The target built with millimetre noise; some action bricks dropped, unconnected or left alone."""
    target = task.target_assembly
    action_ids = {a.id for a in task.action_bricks}
    out = []
    for b in target.bricks:
        (x, y, z), _ = task.target_world_pose(b.id)
        yaw = b.yaw_rad
        connected = target.supports(b.id)
        if b.id in action_ids:
            r = rng.random()
            if r < 0.15:
                a = next(a for a in task.action_bricks if a.id == b.id)
                x, y, z, yaw, connected = a.start.x, a.start.y, 0.0, a.start.yaw, []
            elif r < 0.3:
                z += 0.0017
                connected = []
            x += rng.gauss(0, 0.001)
            y += rng.gauss(0, 0.001)
            yaw += rng.gauss(0, math.radians(2))
        else:
            x += rng.gauss(0, 0.0003)
        out.append(BrickState(id=b.id, part=b.part, color=b.color, position=(x, y, z),
                              quaternion=yaw_quaternion(yaw), connected_to=connected))
    return WorldState(sim_time_s=rng.uniform(0.5, 1.5) * task.time_budget_s, bricks=out)


def load_tasks(rng: random.Random, n_tasks: int) -> tuple[list[TaskSpec], str]:
    """The shipped jarvis-v1 suite if present, else synthetic tasks of its size."""
    if SUITE.exists():
        tasks = [TaskSpec.model_validate_json(line) for line in SUITE.read_text().splitlines() if line.strip()]
        return tasks, "jarvis-v1"
    tasks = []
    for k in range(n_tasks):
        n_initial = min(300, int(rng.lognormvariate(math.log(57), 0.8)))
        horizon = max(1, min(10, round(rng.gauss(5, 2.5))))
        tasks.append(synthetic_task(k, n_initial, horizon))
    return tasks, "synthetic"


def main() -> None:
    """Measure scoring throughput."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--tasks", type=int, default=50)
    ap.add_argument("--states-per-task", type=int, default=8)
    ap.add_argument("--seconds", type=float, default=3.0)
    args = ap.parse_args()
    rng = random.Random(0)
    tasks, source = load_tasks(rng, args.tasks)
    episodes = [(t, noisy_final_state(t, rng)) for t in tasks for _ in range(args.states_per_task)]
    for t in tasks:
        task_geometry(t)  # warm the cache, as a re-scoring run does after its first episode per task

    def rate(fn) -> tuple[float, float]:  # type: ignore[no-untyped-def]
        """(episodes per wall second, episodes per CPU second of this process)."""
        n, t0, c0 = 0, time.perf_counter(), time.process_time()
        while time.perf_counter() - t0 < args.seconds:
            for task, state in episodes:
                fn(task, state)
            n += len(episodes)
        return n / (time.perf_counter() - t0), n / (time.process_time() - c0)

    cached_wall, cached_cpu = rate(lambda task, state: score_assembly(task, state, state.sim_time_s))

    def uncached(task: TaskSpec, state: WorldState) -> None:
        _CACHE.clear()
        score_assembly(task, state, state.sim_time_s)

    _, base_cpu = rate(uncached)
    mean_initial = sum(len(t.initial) for t in tasks) / len(tasks)
    mean_horizon = sum(len(t.action_bricks) for t in tasks) / len(tasks)
    size = {"tasks": source, "n_tasks": len(tasks), "mean_initial_bricks": round(mean_initial, 1),
            "mean_horizon": round(mean_horizon, 2)}
    # CPU time of this process is the one-core figure; wall time also counts other users of a shared machine.
    emit("score_episodes_per_s", cached_cpu, "episodes/s", clock="process cpu", target=5000, **size, **machine())
    emit("score_episodes_per_wall_s", cached_wall, "episodes/s", clock="wall", **size)
    emit("score_episodes_per_s_uncached_geometry", base_cpu, "episodes/s", clock="process cpu",
         speedup_of_cache=round(cached_cpu / base_cpu, 2), **size)


if __name__ == "__main__":
    main()
