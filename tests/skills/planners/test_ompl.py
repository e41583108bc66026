"""OMPL planner: finds collision-free detours where the built-in straight line collides, with the backend's own
collision query, and executes them in the MuJoCo backend."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np
import pytest

from jarvis_sim.backends.base import Backend, make_backend
from skills.context import SkillContext
from skills.errors import PathBlocked
from skills.motion import CartesianPlanner, make_planner, planner_names, top_down_quaternion
from tests.fakes.lego_tasks import stack_task

ompl = pytest.importorskip("ompl", reason="OMPL comes with the ros extra (pip install 'jarvis[ros]')")

from skills.planners.ompl import PANDA_LOWER, PANDA_UPPER, OmplPlanner  # noqa: E402

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def wall_scene() -> Iterator[tuple[Backend, SkillContext, np.ndarray, np.ndarray]]:
    """A 36-brick block (3 courses); the closed hand beside it, low; a target on the far side at the same height."""
    task = stack_task(n_initial=36, n_action=1, task_id="ompl-wall")
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
    far = np.array([hi[0] + 0.06, centre_y, z])
    quat = top_down_quaternion(0.0)
    cart = CartesianPlanner()
    cart.move_to(ctx, near + np.array([0.0, 0.0, 0.12]), quat)
    cart.move_to(ctx, near, quat)
    yield backend, ctx, far, quat
    backend.close()


def test_the_planner_registry_names_ompl() -> None:
    assert {"cartesian", "ompl"} <= set(planner_names())
    assert isinstance(make_planner("ompl"), OmplPlanner)
    with pytest.raises(KeyError, match="valid: cartesian"):
        make_planner("warp-drive")


def test_ompl_finds_a_collision_free_path_where_the_straight_line_collides(
    wall_scene: tuple[Backend, SkillContext, np.ndarray, np.ndarray],
) -> None:
    backend, ctx, far, quat = wall_scene
    with pytest.raises(PathBlocked):
        CartesianPlanner().plan(ctx, far, quat, check_collisions=True, ignore=())
    planner = OmplPlanner()
    path, _quat = planner.plan(ctx, far, quat)
    assert planner.last.used_ompl and planner.last.checks > 0
    # Every state and the straight joint-space segments between them (densely) are free and within limits.
    for a, b in itertools.pairwise(path):
        for t in np.linspace(0.0, 1.0, 12):
            q = a + t * (b - a)
            assert np.all(q >= PANDA_LOWER - 1e-6) and np.all(q <= PANDA_UPPER + 1e-6)
            assert backend.collisions(q) == [], f"collision at t={t:.2f} between waypoints"


def test_ompl_executes_the_detour_and_arrives(wall_scene: tuple[Backend, SkillContext, np.ndarray, np.ndarray]) -> None:
    backend, ctx, far, quat = wall_scene
    before = {b.id: b.position for b in backend.world_state().bricks}
    OmplPlanner().move_to(ctx, far, quat, speed=0.2)
    assert float(np.linalg.norm(backend.robot_state().ee_position - far)) < 0.002
    after = {b.id: b.position for b in backend.world_state().bricks}
    moved = [k for k in before if np.linalg.norm(np.subtract(after[k], before[k])) > 0.001]
    assert moved == [], f"the detour disturbed {moved}"
