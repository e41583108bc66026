"""`jarvis bench sim`: MuJoCo backend speed: pick-and-place wall time, steps/s by brick count, overhead
versus bare mj_step, RGB-D render time, reset time of a large scene. One JSON object per figure.

Every brick is a dynamic body welded by breakable clutch (jarvis_sim/backends/mujoco/clutch.py). Each scene
size is also compiled with its initial structure fused into the world (no joints: the round-1 model, which
cannot be knocked), and bare mj_step is timed on both in the same run: `dynamic_over_fused` is the price of a
structure that can be disturbed.

The 150-brick episode is also split by MuJoCo's own timers (mjData.timer): mj_step as a whole, its collision
broadphase and narrowphase and its constraint solver; the rest of the wall time is the backend's per-tick Python
(controller, contact reflex, clutch and grasp rules). Targets (issue 18): the episode at least 5x faster than real
time (wall <= 2.4 s for 12 s) and at most 2x bare mj_step over the same simulated time.
"""

from __future__ import annotations

import statistics
import sys
import time
from pathlib import Path

import mujoco

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from common import emit, machine

from jarvis_sim.backends.mujoco.backend import MujocoBackend
from jarvis_sim.backends.mujoco.scene import SimConfig, build_scene
from tests.fakes.lego_tasks import stack_task
from tests.jarvis_sim.backends.pick_place import pick_and_place, wait

EPISODE_S = 12.0
REALTIME_TARGET = 5.0  # the episode at least this many times faster than real time
# MuJoCo's timers of the episode split (seconds spent in each over the whole episode).
_TIMERS = {"mj_step_s": "mjTIMER_STEP", "broadphase_s": "mjTIMER_COL_BROAD", "narrowphase_s": "mjTIMER_COL_NARROW",
           "solver_s": "mjTIMER_CONSTRAINT"}
_last_split: dict[str, float] = {}


def pick_place_episode(n_bricks: int) -> tuple[float, float]:
    """Wall seconds of a 12 s scripted pick-and-place in a scene of n dynamic bricks, and its sim seconds
    (MuJoCo's timers of the episode are left in _last_split)."""
    task = stack_task(n_bricks, 1, baseplate=True)
    b = MujocoBackend()
    b.load(task)
    a = task.action_bricks[0]
    target, _ = task.target_world_pose(a.id)
    for timer in b.data.timer:
        timer.duration, timer.number = 0.0, 0
    t0 = time.perf_counter()
    pick_and_place(b, a.id, target, a.target.yaw_rad, (a.start.x, a.start.y, 0.0), a.start.yaw)
    if b.sim_time_s < EPISODE_S:
        wait(b, EPISODE_S - b.sim_time_s)
    wall = time.perf_counter() - t0
    sim = b.sim_time_s
    _last_split.clear()
    _last_split.update({k: float(b.data.timer[int(getattr(mujoco.mjtTimer, t))].duration) for k, t in _TIMERS.items()})
    connected = bool(b.world_state().by_id()[a.id].connected_to)
    b.close()
    if not connected:
        print(f"warning: brick not seated in the {n_bricks}-brick episode", file=sys.stderr)
    return wall, sim


def bare_step_wall(n_bricks: int, sim_s: float) -> float:
    """Wall seconds of plain mj_step over the same scene and simulated time (arm holding still)."""
    b = MujocoBackend()
    b.load(stack_task(n_bricks, 1, baseplate=True))
    m, d = b.model, b.data
    steps = round(sim_s / m.opt.timestep)
    t0 = time.perf_counter()
    mujoco.mj_step(m, d, nstep=steps)
    wall = time.perf_counter() - t0
    b.close()
    return wall


def fused_step_wall(n_bricks: int, sim_s: float) -> float:
    """Wall seconds of plain mj_step over the same scene with its initial structure fused into the world."""
    task = stack_task(n_bricks, 1, baseplate=True)
    spec, _ = build_scene(task, SimConfig())
    initial = {b.id for b in task.initial}
    for eq in list(spec.equalities):
        if eq.name1 in initial:
            spec.delete(eq)
    for brick_id in initial:
        spec.delete(spec.body(brick_id).first_joint())
    m = spec.compile()
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    mujoco.mj_step(m, d, nstep=round(0.3 / m.opt.timestep))  # settle, as load() does
    steps = round(sim_s / m.opt.timestep)
    t0 = time.perf_counter()
    mujoco.mj_step(m, d, nstep=steps)
    return time.perf_counter() - t0


def main() -> None:
    """Print every figure."""
    ctx = machine()
    wall, sim = pick_place_episode(150)
    emit("pick_place_150_wall_s", wall, "s", sim_s=round(sim, 2), realtime_factor=round(sim / wall, 2),
         target=f"<= {EPISODE_S / REALTIME_TARGET:g} (>= {REALTIME_TARGET:g}x real time)", **ctx)
    split = dict(_last_split)
    emit("pick_place_150_split_s", wall, "s", **{k: round(v, 3) for k, v in split.items()},
         python_s=round(wall - split["mj_step_s"], 3),
         what="episode wall = mj_step (broadphase, narrowphase, solver, rest) + Python (the backend's per-tick rules and the scripted skill)", **ctx)
    bare = bare_step_wall(150, sim)
    emit("episode_over_bare_step_ratio", wall / bare, "x", bare_wall_s=round(bare, 3), target="<= 2", **ctx)
    for n in (0, 50, 150, 300):
        w, s = pick_place_episode(n)
        emit("steps_per_s", (s / 0.002) / w, "physics steps/s", bricks=n, timestep_s=0.002,
             realtime_factor=round(s / w, 2), what="pick-and-place episode, dynamic structure", **ctx)
        dyn, fused = bare_step_wall(n, s), fused_step_wall(n, s)
        emit("bare_steps_per_s", (s / 0.002) / dyn, "physics steps/s", bricks=n, fused_steps_per_s=round(
             (s / 0.002) / fused), dynamic_over_fused=round(dyn / fused, 2), what="bare mj_step, arm still", **ctx)
    b = MujocoBackend()
    b.load(stack_task(150, 1, baseplate=True))
    b.render("top")
    samples = []
    for _ in range(15):
        t0 = time.perf_counter()
        b.render("top", rgb=True, depth=True)
        samples.append(time.perf_counter() - t0)
    emit("render_rgbd_ms", statistics.median(samples) * 1000, "ms", size="640x480", bricks=150, target="<= 150", **ctx)
    b.close()
    task = stack_task(235, 1)
    b = MujocoBackend()
    t0 = time.perf_counter()
    b.load(task)
    emit("reset_236_bricks_s", time.perf_counter() - t0, "s", target="<= 2", what="build, compile, settle", **ctx)
    t0 = time.perf_counter()
    b.reset(0)
    emit("reset_236_bricks_rerun_s", time.perf_counter() - t0, "s", what="reset of a loaded scene", **ctx)
    b.close()


if __name__ == "__main__":
    main()
