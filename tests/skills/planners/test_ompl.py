"""OMPL planner: finds collision-free detours where the built-in straight line collides, with the backend's own
collision query, and executes them in the MuJoCo backend."""

from __future__ import annotations

import itertools
from collections.abc import Iterator

import numpy as np
import pytest

from jarvis_sim.backends.base import Backend
from skills.context import SkillContext
from skills.errors import PathBlocked
from skills.motion import CartesianPlanner
from skills.planners.registry import make_planner, planner_names
from tests.fakes.detour_scene import detour_scene, disturbed

ompl = pytest.importorskip("ompl", reason="OMPL comes with the ros extra (pip install 'jarvis[ros]')")

from skills.planners.ompl import CLEARANCE_M, ESCAPE_RAD, PANDA_LOWER, PANDA_UPPER, OmplPlanner  # noqa: E402

pytestmark = pytest.mark.slow
# RRT-Connect stops at its first solution, so a generous limit costs nothing where it succeeds; it keeps these
# seeded plans the same on a slower or busier machine, where the default 2 s could cut a search short.
LIMIT_S = 20.0


@pytest.fixture(scope="module")
def wall_scene() -> Iterator[tuple[Backend, SkillContext, np.ndarray, np.ndarray]]:
    """A 36-brick block (3 courses); the closed hand beside it, low; a target on the far side at the same height."""
    scene = detour_scene()
    yield scene.backend, scene.ctx, scene.far, scene.quaternion
    scene.backend.close()


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
    planner = OmplPlanner(time_limit_s=LIMIT_S)
    path, _quat = planner.plan(ctx, far, quat)
    assert planner.last.used_ompl and planner.last.checks > 0
    # Every state and the straight joint-space segments between them (densely) are free and within limits, and
    # keep most of the planner's clearance (it is checked at OMPL's resolution, not densely).
    assert backend.collisions(path[0], clearance_m=CLEARANCE_M) == []  # the start is not inside the clearance
    for a, b in itertools.pairwise(path):
        for t in np.linspace(0.0, 1.0, 12):
            q = a + t * (b - a)
            assert np.all(q >= PANDA_LOWER - 1e-6) and np.all(q <= PANDA_UPPER + 1e-6)
            assert backend.collisions(q, clearance_m=CLEARANCE_M / 2) == [], f"within 2.5 mm at t={t:.2f}"


def test_the_same_seed_plans_the_same_detour(wall_scene: tuple[Backend, SkillContext, np.ndarray, np.ndarray]) -> None:
    _backend, ctx, far, quat = wall_scene

    def same(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
        return len(a) == len(b) and all(np.allclose(x, y) for x, y in zip(a, b, strict=True))

    first, again = (OmplPlanner(seed=7, time_limit_s=LIMIT_S).plan(ctx, far, quat)[0] for _ in range(2))
    other = OmplPlanner(seed=8, time_limit_s=LIMIT_S).plan(ctx, far, quat)[0]
    assert same(first, again) and not same(first, other)
    assert OmplPlanner(seed=7).describe().settings["seed"] == 7


def test_ompl_executes_the_detour_and_arrives(wall_scene: tuple[Backend, SkillContext, np.ndarray, np.ndarray]) -> None:
    backend, ctx, far, quat = wall_scene
    before = {b.id: b.position for b in backend.world_state().bricks}
    OmplPlanner(time_limit_s=LIMIT_S).move_to(ctx, far, quat, speed=0.2)
    assert float(np.linalg.norm(backend.robot_state().ee_position - far)) < 0.002
    moved = disturbed(before, backend)
    assert moved == {}, f"the detour disturbed {moved}"


def test_a_start_inside_the_clearance_may_leave_it_but_the_rest_keeps_it() -> None:
    """Transfers often begin beside a brick (a grasp, a press): the first ESCAPE_RAD of joint space round such a
    start needs only to be contact-free; beyond it every planned state keeps the clearance."""
    scene = detour_scene()
    backend, ctx, quat = scene.backend, scene.ctx, scene.quaternion
    try:
        q_here = backend.robot_state().joint_positions
        nearest = next(c for c in np.arange(0.0, 0.06, 0.0005)
                       if any(o.startswith("s") for _, o in backend.collisions(q_here, clearance_m=float(c))))
        CartesianPlanner().move_to(ctx, scene.near + np.array([nearest - 0.0025, 0.0, 0.0]), quat)  # 2.5 mm off
        q0 = backend.robot_state().joint_positions.copy()
        assert backend.collisions(q0) == [] and backend.collisions(q0, clearance_m=CLEARANCE_M) != []
        path, _quat = OmplPlanner(time_limit_s=LIMIT_S).plan(ctx, scene.far, quat)
        for a, b in itertools.pairwise(path):
            for t in np.linspace(0.0, 1.0, 12):
                q = a + t * (b - a)
                assert backend.collisions(q) == []
                if np.linalg.norm(q - q0) > ESCAPE_RAD:
                    assert backend.collisions(q, clearance_m=CLEARANCE_M / 2) == [], f"within 2.5 mm at t={t:.2f}"
    finally:
        backend.close()
