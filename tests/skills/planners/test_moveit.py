"""MoveIt and cuMotion planner clients against a move_group stand-in speaking the real moveit_msgs interfaces over
Fast DDS (tests/fakes/move_group.py): the scene goes out as collision objects, the detour comes back and is
executed in the MuJoCo backend; failures come back as the agent-facing PathBlocked, a missing server as a clear
PlannerUnavailable."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

pytest.importorskip("rclpy", reason="ROS 2 wheels are installed by .ci/ros-setup")
pytest.importorskip("moveit_msgs", reason="moveit_msgs (CI: the tests/ros/shims subset) is built by .ci/ros-setup")
pytest.importorskip("ompl", reason="the move_group stand-in plans with OMPL")

from jarvis_sim.backends.base import Backend
from skills.context import SkillContext
from skills.errors import PathBlocked
from skills.motion import CartesianPlanner
from skills.planners.moveit import CuMotionPlanner, MoveItPlanner, PlannerUnavailable
from skills.planners.registry import make_planner
from tests.fakes.detour_scene import detour_scene
from tests.fakes.move_group import FakeMoveGroup
from tests.ros.bridge_process import use_private_ros_domain

pytestmark = [pytest.mark.ros, pytest.mark.slow]
use_private_ros_domain()

Scene = tuple[Backend, SkillContext, np.ndarray, np.ndarray, np.ndarray]


@pytest.fixture(scope="module")
def move_group() -> Iterator[FakeMoveGroup]:
    server = FakeMoveGroup().start()
    yield server
    server.close()


@pytest.fixture(scope="module")
def wall_scene() -> Iterator[Scene]:
    """A 36-brick block; the closed hand low beside it; targets on either side at the same height."""
    scene = detour_scene("moveit-wall")
    backend = scene.backend
    yield backend, scene.ctx, scene.near, scene.far, scene.quaternion
    backend.close()


def _positions(backend: Backend) -> dict[str, np.ndarray]:
    return {b.id: np.array(b.position) for b in backend.world_state().bricks}


def _detour(planner: MoveItPlanner, scene: Scene, to: str, move_group: FakeMoveGroup, endpoint: str) -> None:
    backend, ctx, near, far, quat = scene
    target = far if to == "far" else near
    with pytest.raises(PathBlocked):
        CartesianPlanner().plan(ctx, target, quat, check_collisions=True, ignore=())
    before, n_requests = _positions(backend), len(move_group.received)
    planner.move_to(ctx, target, quat, speed=0.2)
    assert float(np.linalg.norm(backend.robot_state().ee_position - target)) < 0.002
    after = _positions(backend)
    assert [k for k in before if np.linalg.norm(after[k] - before[k]) > 0.001] == []  # the detour touched nothing
    assert len(move_group.received) == n_requests + 1
    seen = move_group.received[-1]
    assert seen.endpoint == endpoint and seen.group == "panda_arm"
    assert sorted(seen.objects) == sorted(["table", *before])  # every brick and the table went out as objects
    assert backend.collisions(seen.goal) == []  # the goal sent is a collision-free configuration at the target


def test_the_registry_makes_and_describes_both(move_group: FakeMoveGroup) -> None:
    moveit, cumotion = make_planner("moveit"), make_planner("cumotion")
    assert type(moveit) is MoveItPlanner and isinstance(cumotion, CuMotionPlanner)
    a, b = moveit.describe(), cumotion.describe()
    assert (a.name, b.name) == ("moveit", "cumotion") and a.version == b.version == "moveit_msgs 2.6.0"
    assert a.settings["endpoint"] == "/move_action" and b.settings["endpoint"] == "/cumotion/move_group"


def test_move_action_plans_the_detour_and_it_is_executed_here(wall_scene: Scene, move_group: FakeMoveGroup) -> None:
    _detour(MoveItPlanner(), wall_scene, "far", move_group, "/move_action")
    assert move_group.received[-1].plan_only is True  # move_group must not execute through the controllers


def test_plan_kinematic_path_after_applying_the_scene(wall_scene: Scene, move_group: FakeMoveGroup) -> None:
    _detour(MoveItPlanner(mode="plan_kinematic_path"), wall_scene, "near", move_group, "/plan_kinematic_path")


def test_cumotion_through_its_move_group_action(wall_scene: Scene, move_group: FakeMoveGroup) -> None:
    _detour(CuMotionPlanner(), wall_scene, "far", move_group, "/cumotion/move_group")


def test_a_planner_failure_is_path_blocked_and_nothing_moves(wall_scene: Scene, move_group: FakeMoveGroup) -> None:
    backend, ctx, near, _far, quat = wall_scene
    q_before = backend.robot_state().joint_positions.copy()
    move_group.fail_all = True
    try:
        with pytest.raises(PathBlocked, match="MoveIt error code -1"):
            MoveItPlanner().move_to(ctx, near, quat)
    finally:
        move_group.fail_all = False
    with pytest.raises(PathBlocked, match="MoveIt error code -15"):  # INVALID_GROUP_NAME, as move_group answers
        MoveItPlanner(group="fr3_arm").move_to(ctx, near, quat)
    assert np.allclose(backend.robot_state().joint_positions, q_before, atol=1e-3)


def test_no_server_is_a_clear_error(wall_scene: Scene) -> None:
    _backend, ctx, near, _far, quat = wall_scene
    with pytest.raises(PlannerUnavailable, match="no MoveGroup action server answers /nobody/move_action"):
        MoveItPlanner(action="/nobody/move_action", connect_s=1.0).move_to(ctx, near, quat)
