"""The joint-space planners' proving ground: a 36-brick block (3 courses) on the table, the closed hand low beside
it and a target on its far side at the same height, so the straight line runs through the block's top course.
Shared by tests/skills/planners and tests/bench/bench_detours.py."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from jarvis_sim.backends.base import Backend
from jarvis_sim.backends.registry import make_backend
from skills.context import SkillContext
from skills.motion import CartesianPlanner, top_down_quaternion
from tests.fakes.lego_tasks import stack_task


@dataclass
class DetourScene:
    backend: Backend
    ctx: SkillContext
    near: np.ndarray  # where the hand starts, beside the block
    far: np.ndarray  # the target beyond the block
    quaternion: np.ndarray


def detour_scene(task_id: str = "detour-wall") -> DetourScene:
    """Load the block in MuJoCo and bring the hand to its near side; the caller closes the backend."""
    task = stack_task(n_initial=36, n_action=1, task_id=task_id)
    backend = make_backend("mujoco")
    backend.load(task, seed=0)
    ctx = SkillContext(backend=backend, workspace=task.workspace)
    backend.set_gripper(closed=True)  # open fingers would straddle the block's 64 mm width
    backend.step(int(0.5 / backend.control_dt))
    pos = np.array([b.position for b in backend.world_state().bricks if b.id.startswith("s")])
    lo, hi = pos.min(axis=0), pos.max(axis=0)
    centre_y = float((lo[1] + hi[1]) / 2)
    z = float(hi[2]) + 0.005  # below the block's top: the straight line runs through it
    near = np.array([lo[0] - 0.06, centre_y, z])
    quat = top_down_quaternion(0.0)
    cart = CartesianPlanner()
    cart.move_to(ctx, near + np.array([0.0, 0.0, 0.12]), quat)
    cart.move_to(ctx, near, quat)
    return DetourScene(backend, ctx, near, np.array([hi[0] + 0.06, centre_y, z]), quat)


def disturbed(before: dict[str, tuple[float, float, float]], backend: Backend, tol_m: float = 0.001) -> dict[str, float]:
    """Bricks that moved more than tol_m since `before` (id -> position), with how far (m)."""
    out = {}
    for b in backend.world_state().bricks:
        moved = float(np.linalg.norm(np.subtract(b.position, before[b.id])))
        if moved > tol_m:
            out[b.id] = moved
    return out
