"""`jarvis bench sim`: MuJoCo backend speed: pick-and-place wall time, steps/s by brick count, overhead
versus bare mj_step, RGB-D render time, reset time of a large scene. One JSON object per figure.

Every brick is a dynamic body welded by breakable clutch (jarvis_sim/backends/mujoco/clutch.py). Each scene
size is also compiled with its initial structure fused into the world (no joints: the round-1 model, which
cannot be knocked), and bare mj_step is timed on both in the same run: `dynamic_over_fused` is the price of a
structure that can be disturbed.

The 150-brick episode is also split by MuJoCo's own timers (mjData.timer): mj_step as a whole, its collision
broadphase and narrowphase and its constraint solver; the rest of the wall time is the backend's per-tick Python
(controller, contact reflex, clutch and grasp rules). Targets (issues 18, 28): the episode at least 5x faster than
real time (wall <= 2.4 s for 12 s) and at most 1.5x bare mj_step over the same simulated time.

Two bare baselines, both over the episode's simulated time of the same scene:
- `episode_over_bare_step_ratio`: the scene with the arm holding still (the figure issue 18 set). Its physics is
  not the episode's: no arm motion, no contacts, no pressed structure awake (MuJoCo's island sleeping keeps every
  brick asleep), so part of the episode's own mj_step (0.2 s of ~0.95 s measured) counts as overhead there.
- `episode_over_replay_ratio`: the episode's own physics replayed with mj_step alone: every physics step's inputs
  (the actuator controls, and the equality switches and model fields the backend's rules set between ticks) are
  recorded in a second, untimed run of the same episode, then fed to a freshly loaded scene with nothing else
  running. The replay must end in the episode's exact state (bit for bit), else the benchmark stops: it is the
  same simulation, and the ratio is the backend's per-tick Python and nothing else.
Ratios come from one process and are repeated (--repeat): the medians are emitted with every sample.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import mujoco
import numpy as np

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


def _run_episode(b: MujocoBackend, task: Any) -> None:
    """The scripted 12 s pick-and-place of the task's first action brick on a loaded backend."""
    a = task.action_bricks[0]
    target, _ = task.target_world_pose(a.id)
    pick_and_place(b, a.id, target, a.target.yaw_rad, (a.start.x, a.start.y, 0.0), a.start.yaw)
    if b.sim_time_s < EPISODE_S:
        wait(b, EPISODE_S - b.sim_time_s)


def pick_place_episode(n_bricks: int) -> tuple[float, float]:
    """Wall seconds of a 12 s scripted pick-and-place in a scene of n dynamic bricks, and its sim seconds
    (MuJoCo's timers of the episode are left in _last_split, its final state in _last_state)."""
    task = stack_task(n_bricks, 1, baseplate=True)
    b = MujocoBackend()
    b.load(task)
    for timer in b.data.timer:
        timer.duration, timer.number = 0.0, 0
    t0, c0 = time.perf_counter(), time.process_time()
    _run_episode(b, task)
    wall = time.perf_counter() - t0
    _last_cpu["episode"] = time.process_time() - c0
    sim = b.sim_time_s
    _last_split.clear()
    _last_split.update({k: float(b.data.timer[int(getattr(mujoco.mjtTimer, t))].duration) for k, t in _TIMERS.items()})
    _last_state[:] = [b.data.qpos.copy(), b.data.qvel.copy()]
    connected = bool(b.world_state().by_id()[task.action_bricks[0].id].connected_to)
    b.close()
    if not connected:
        print(f"warning: brick not seated in the {n_bricks}-brick episode", file=sys.stderr)
    return wall, sim


_last_state: list[np.ndarray] = []
# CPU seconds of this process (time.process_time) of the last run of each: on a shared machine the wall time also
# counts the slices other processes took, the CPU time only this one's work.
_last_cpu: dict[str, float] = {}
# What the backend's rules may set between physics steps (besides the controls): switching welds, retargeting them,
# collision groups, slip friction, the grip's force limit. A replay that misses one ends elsewhere, and says so.
_MODEL_INPUTS = ("eq_obj2id", "eq_data", "geom_contype", "geom_conaffinity", "dof_frictionloss", "dof_solref",
                 "dof_solimp", "actuator_forcerange", "geom_margin")
_DATA_INPUTS = ("eq_active", "xfrc_applied", "qfrc_applied", "tree_asleep")


def record_episode(n_bricks: int) -> tuple[np.ndarray, dict[int, list[tuple[str, str, np.ndarray]]]]:
    """The episode's physics inputs, step by step (untimed): the controls of every mj_step, and the model and data
    fields the rules changed before a step (step index -> (m or d, field, value))."""
    task = stack_task(n_bricks, 1, baseplate=True)
    b = MujocoBackend()
    b.load(task)
    m, d = b.model, b.data
    seen = {("m", f): getattr(m, f).copy() for f in _MODEL_INPUTS} | {("d", f): getattr(d, f).copy() for f in _DATA_INPUTS}
    controls: list[np.ndarray] = []
    changes: dict[int, list[tuple[str, str, np.ndarray]]] = {}
    bare_step = mujoco.mj_step

    def recording_step(model: mujoco.MjModel, data: mujoco.MjData, nstep: int = 1) -> None:
        if data is d and nstep == 1:
            for (owner, field), last in seen.items():
                now = getattr(m if owner == "m" else d, field)
                if not np.array_equal(now, last):
                    seen[(owner, field)] = now.copy()
                    changes.setdefault(len(controls), []).append((owner, field, now.copy()))
            controls.append(d.ctrl.copy())
        bare_step(model, data, nstep=nstep)

    mujoco.mj_step = recording_step
    try:
        _run_episode(b, task)
    finally:
        mujoco.mj_step = bare_step
    b.close()
    return np.array(controls), changes


def replay_step_wall(n_bricks: int, controls: np.ndarray, changes: dict[int, list[tuple[str, str, np.ndarray]]],
                     final: list[np.ndarray]) -> float:
    """Wall seconds of the recorded episode replayed with mj_step alone on a freshly loaded scene (the controls set
    before every step, the recorded changes before theirs); raises if it does not end in the episode's state."""
    b = MujocoBackend()
    b.load(stack_task(n_bricks, 1, baseplate=True))
    m, d = b.model, b.data
    ctrl, rows = d.ctrl, list(controls)  # the rows taken out before the clock starts
    t0, c0 = time.perf_counter(), time.process_time()
    for k, row in enumerate(rows):
        if k in changes:
            for owner, field, value in changes[k]:
                getattr(m if owner == "m" else d, field)[:] = value
        ctrl[:] = row
        mujoco.mj_step(m, d)
    wall = time.perf_counter() - t0
    _last_cpu["replay"] = time.process_time() - c0
    same = np.array_equal(d.qpos, final[0]) and np.array_equal(d.qvel, final[1])
    b.close()
    if not same:
        raise RuntimeError("the replay did not end in the episode's state: a physics input is not recorded")
    return wall


def bare_step_wall(n_bricks: int, sim_s: float) -> float:
    """Wall seconds of plain mj_step over the same scene and simulated time (arm holding still)."""
    b = MujocoBackend()
    b.load(stack_task(n_bricks, 1, baseplate=True))
    m, d = b.model, b.data
    steps = round(sim_s / m.opt.timestep)
    t0, c0 = time.perf_counter(), time.process_time()
    mujoco.mj_step(m, d, nstep=steps)
    wall = time.perf_counter() - t0
    _last_cpu["still"] = time.process_time() - c0
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


def episode_ratios(repeat: int, ctx: dict[str, str]) -> None:
    """The 150-brick episode against both bare baselines, `repeat` times in this process: medians and samples."""
    controls, changes = record_episode(150)
    walls, sims, still, replay, splits, cpu = [], [], [], [], [], []
    for _ in range(repeat):
        wall, sim = pick_place_episode(150)
        walls.append(wall)
        sims.append(sim)
        splits.append(dict(_last_split))
        replay.append(replay_step_wall(150, controls, changes, _last_state))
        still.append(bare_step_wall(150, sim))
        cpu.append(dict(_last_cpu))
    med = statistics.median
    wall, sim = med(walls), med(sims)
    emit("pick_place_150_wall_s", wall, "s", sim_s=round(sim, 2), realtime_factor=round(sim / wall, 2),
         samples=[round(w, 3) for w in walls], target=f"<= {EPISODE_S / REALTIME_TARGET:g} (>= {REALTIME_TARGET:g}x real time)", **ctx)
    split = {k: med(s[k] for s in splits) for k in _TIMERS}
    emit("pick_place_150_split_s", wall, "s", **{k: round(v, 3) for k, v in split.items()},
         python_s=round(med(w - s["mj_step_s"] for w, s in zip(walls, splits, strict=True)), 3),
         what="episode wall = mj_step (broadphase, narrowphase, solver, rest) + Python (the backend's per-tick rules and the scripted skill)", **ctx)
    for name, baseline, key, what in (
            ("episode_over_bare_step_ratio", still, "still", "baseline: the same scene, arm holding still"),
            ("episode_over_replay_ratio", replay, "replay",
             "baseline: the episode's own physics replayed with mj_step alone, ending in its exact state")):
        ratios = [w / b for w, b in zip(walls, baseline, strict=True)]
        cpu_ratios = [c["episode"] / c[key] for c in cpu]
        emit(name, med(ratios), "x", baseline_wall_s=round(med(baseline), 3), samples=[round(r, 3) for r in ratios],
             cpu_ratio=round(med(cpu_ratios), 3), cpu_samples=[round(r, 3) for r in cpu_ratios], target="<= 1.5",
             what=what, **ctx)


def main() -> None:
    """Print every figure."""
    ap = argparse.ArgumentParser(prog="jarvis bench sim", description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3, help="episodes of the ratio figures (medians; default 3)")
    ap.add_argument("--only", choices=("episode",), help="only the 150-brick episode's figures")
    args = ap.parse_args()
    if args.repeat < 1:
        ap.error(f"--repeat must be at least 1, got {args.repeat}")
    ctx = machine()
    episode_ratios(args.repeat, ctx)
    if args.only == "episode":
        return
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
