"""The Backend protocol (jarvis_sim/backends/base.py), checked the same way on every registered backend.

These are assertions about the protocol, not about one simulator's physics: ids and shapes, seeded determinism,
snapshots, commands being tracked within generous tolerances, camera calibration agreeing with ground truth,
bad input raising BackendError. Nothing here asserts how bricks seat or how strong the clutch is.
MuJoCo runs in CI, the `ros` case through a real bridge over Fast DDS (marker `ros`), Isaac Sim on an RTX
workstation (marker `isaac`: `python -m pytest -m isaac tests/jarvis_sim/backends/contract`).
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from jarvis_sim.backends.base import Backend, BackendError
from jarvis_sim.backends.registry import backend_names
from jarvis_sim.lego.assembly import brick_pose_in_world
from jarvis_sim.lego.world_state import WorldState
from jarvis_sim.tasks.spec import TaskSpec
from tests.fakes.lego_tasks import stack_task
from tests.jarvis_sim.backends.contract.cases import CASES, BackendCase, case_params

TOP_DOWN = np.array([0.0, 1.0, 0.0, 0.0])  # TCP pointing down (skills.motion.top_down_quaternion(0))
REACHABLE = np.array([0.45, 0.05, 0.25])  # over the table, well inside the Panda's workspace
SAYS_WHY = r"\w"  # a BackendError must carry a message, not just its type


@pytest.fixture(scope="module")
def task() -> TaskSpec:
    """Three bricks in a running bond (one clutched on two) and one loose action brick."""
    return stack_task(3, 1)


@pytest.fixture(scope="module", params=case_params())
def case(request: pytest.FixtureRequest) -> BackendCase:
    c: BackendCase = request.param
    return c


@pytest.fixture(scope="module")
def backend(case: BackendCase, task: TaskSpec, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Backend]:
    """One backend per case with the task loaded; tests reset it as they need."""
    with case.open(tmp_path_factory.mktemp(f"contract_{case.name}")) as b:
        b.load(task, seed=0)
        yield b


@pytest.fixture
def fresh(case: BackendCase, tmp_path: Path) -> Iterator[Backend]:
    """A backend with nothing loaded."""
    with case.open(tmp_path) as b:
        yield b


def _positions(ws: WorldState) -> dict[str, np.ndarray]:
    return {s.id: np.array(s.position) for s in ws.bricks}


def _same_state(a: WorldState, b: WorldState, atol: float = 1e-6) -> bool:
    if [s.id for s in a.bricks] != [s.id for s in b.bricks]:
        return False
    for x, y in zip(a.bricks, b.bricks, strict=True):
        if (x.held, sorted(x.connected_to)) != (y.held, sorted(y.connected_to)):
            return False
        if not (np.allclose(x.position, y.position, atol=atol) and np.allclose(x.quaternion, y.quaternion, atol=atol)):
            return False
    return True


def _settle(b: Backend, case: BackendCase, seconds: float) -> None:
    if case.drives_arm:
        b.step(max(1, round(seconds / b.control_dt)))


# --- the registry ---------------------------------------------------------------------------------------------
def test_every_registered_backend_has_a_contract_case() -> None:
    assert sorted(c.name for c in CASES) == backend_names()


# --- life cycle -----------------------------------------------------------------------------------------------
def test_before_load_every_query_is_a_backend_error(fresh: Backend, case: BackendCase) -> None:
    calls: list[tuple[str, Any]] = [("reset", lambda: fresh.reset(0)), ("world_state", fresh.world_state)]
    if case.drives_arm:
        calls += [("step", lambda: fresh.step(1)), ("robot_state", fresh.robot_state)]
    if case.snapshots:
        calls.append(("save_state", fresh.save_state))
    for what, call in calls:
        with pytest.raises(BackendError) as err:
            call()
        assert str(err.value), f"{what} before load raised an empty BackendError"


def test_rendering_before_load_is_a_backend_error(fresh: Backend) -> None:
    with pytest.raises(BackendError):
        fresh.render("top")


def test_load_reports_every_brick_of_the_task(backend: Backend, task: TaskSpec) -> None:
    backend.reset(0)
    ws = backend.world_state()
    expected = {b.id for b in task.initial} | {a.id for a in task.action_bricks}
    assert {s.id for s in ws.bricks} == expected  # seed 0 adds no distractors
    assert backend.held_brick() is None and not any(s.held for s in ws.bricks)
    for s in ws.bricks:
        assert all(math.isfinite(v) for v in (*s.position, *s.quaternion)), s
        assert abs(float(np.linalg.norm(s.quaternion)) - 1.0) < 1e-6, s
    assert math.isfinite(backend.sim_time_s) and backend.sim_time_s >= 0.0


def test_seed_zero_lays_out_the_spec(backend: Backend, task: TaskSpec) -> None:
    backend.reset(0)
    pos = _positions(backend.world_state())
    for a in task.action_bricks:  # loose bricks lie where the spec puts them (they may settle by a fraction of a mm)
        assert np.allclose(pos[a.id][:2], (a.start.x, a.start.y), atol=0.002), (a.id, pos[a.id])
    for b in task.initial:
        where, _ = brick_pose_in_world(task.initial_assembly[b.id], task.workspace.lattice_origin)
        assert np.allclose(pos[b.id], where, atol=0.002), (b.id, pos[b.id], where)


def test_connections_are_reported_both_ways(backend: Backend) -> None:
    backend.reset(0)
    by_id = backend.world_state().by_id()
    for s in by_id.values():
        for other in s.connected_to:
            assert other == "ground" or s.id in by_id[other].connected_to, (s.id, other)


def test_the_same_seed_gives_the_same_scene_and_two_seeds_differ(backend: Backend, case: BackendCase) -> None:
    scenes, images = [], []
    for _ in range(2):
        backend.reset(3)
        _settle(backend, case, 0.3)
        scenes.append(backend.world_state())
        frame = backend.render("top", rgb=True, depth=False)
        assert frame.rgb is not None
        images.append(frame.rgb.astype(np.int16))
    assert _same_state(scenes[0], scenes[1])
    assert float(np.abs(images[0] - images[1]).mean()) < 0.5  # a noisy (path-traced) renderer may differ a little
    backend.reset(0)
    seed0 = _positions(backend.world_state())
    seed3 = _positions(scenes[0])
    moved = [i for i in seed0 if i in seed3 and float(np.linalg.norm(seed0[i][:2] - seed3[i][:2])) > 0.005]
    assert moved or set(seed3) != set(seed0), "seeds 0 and 3 gave the same scene: the seed did not reach the backend"


# --- time and the robot ---------------------------------------------------------------------------------------
def test_step_advances_simulated_time_by_whole_ticks(backend: Backend, case: BackendCase) -> None:
    if not case.drives_arm:
        for call in (lambda: backend.step(1), lambda: backend.control_dt):
            with pytest.raises(BackendError, match=SAYS_WHY):
                call()
        return
    backend.reset(0)
    t0, dt = backend.sim_time_s, backend.control_dt
    assert 0.0 < dt <= 0.05
    backend.step(25)
    assert backend.sim_time_s == pytest.approx(t0 + 25 * dt, rel=1e-9, abs=1e-9)


def test_robot_state_is_well_formed_and_starts_at_home(backend: Backend, case: BackendCase) -> None:
    if not case.drives_arm:
        for call in (backend.robot_state, lambda: backend.home_q):
            with pytest.raises(BackendError, match=SAYS_WHY):
                call()
        return
    backend.reset(0)
    s = backend.robot_state()
    assert s.joint_positions.shape == (7,) and s.joint_velocities.shape == (7,)
    assert s.ee_position.shape == (3,) and s.ee_quaternion.shape == (4,)
    assert np.all(np.isfinite(s.joint_positions)) and np.all(np.isfinite(s.ee_position))
    assert abs(float(np.linalg.norm(s.ee_quaternion)) - 1.0) < 1e-6
    assert 0.0 <= s.gripper_width <= 0.085
    assert s.sim_time_s == pytest.approx(backend.sim_time_s)
    home = np.asarray(backend.home_q, dtype=float)
    assert home.shape == (7,) and float(np.max(np.abs(s.joint_positions - home))) < 0.05
    lower, upper = backend.joint_limits()
    assert np.all(lower < home) and np.all(home < upper)


def test_joint_targets_are_tracked(backend: Backend, case: BackendCase) -> None:
    if not case.drives_arm:
        with pytest.raises(BackendError, match=SAYS_WHY):
            backend.set_joint_targets(np.zeros(7))
        return
    backend.reset(0)
    target = np.asarray(backend.home_q, dtype=float) + np.array([0.3, -0.1, 0.0, 0.2, 0.0, 0.1, 0.0])
    backend.set_joint_targets(target)
    _settle(backend, case, 2.0)
    assert float(np.max(np.abs(backend.robot_state().joint_positions - target))) < 0.05


def test_ik_and_the_cartesian_controller_agree(backend: Backend, case: BackendCase) -> None:
    if not case.drives_arm:
        for call in (lambda: backend.set_ee_target(REACHABLE, TOP_DOWN), lambda: backend.solve_ik(REACHABLE, TOP_DOWN)):
            with pytest.raises(BackendError, match=SAYS_WHY):
                call()
        return
    backend.reset(0)
    q = backend.solve_ik(REACHABLE, TOP_DOWN, None)
    assert q is not None and q.shape == (7,)
    assert backend.solve_ik(np.array([3.0, 0.0, 0.3]), TOP_DOWN, None) is None  # 3 m away: unreachable, not an error
    backend.set_ee_target(REACHABLE, TOP_DOWN)
    _settle(backend, case, 2.5)
    s = backend.robot_state()
    assert float(np.linalg.norm(s.ee_position - REACHABLE)) < 0.005
    assert abs(float(np.dot(s.ee_quaternion, TOP_DOWN))) > math.cos(math.radians(3) / 2)
    assert float(np.max(np.abs(s.joint_positions - q))) < 0.1  # IK's answer is where the controller went


def test_the_gripper_opens_to_a_width_and_closes(backend: Backend, case: BackendCase) -> None:
    if not case.drives_arm:
        with pytest.raises(BackendError, match=SAYS_WHY):
            backend.set_gripper(False, width_m=0.05)
        return
    backend.reset(0)
    backend.set_gripper(False, width_m=0.05)
    _settle(backend, case, 1.0)
    assert backend.robot_state().gripper_width == pytest.approx(0.05, abs=0.003)
    backend.set_gripper(True)
    _settle(backend, case, 1.0)
    assert backend.robot_state().gripper_width < 0.01  # nothing between the fingers
    assert backend.held_brick() is None


def test_a_collision_query_leaves_the_state_untouched(backend: Backend, case: BackendCase) -> None:
    if not case.drives_arm:
        with pytest.raises(BackendError, match=SAYS_WHY):
            backend.collisions(np.zeros(7))
        return
    backend.reset(0)
    before_ws, before_q = backend.world_state(), backend.robot_state().joint_positions.copy()
    low = backend.solve_ik(np.array([0.416, -0.192, 0.0]), TOP_DOWN, None)  # the tool inside the structure
    assert low is not None
    hits = backend.collisions(low)
    assert hits and all(isinstance(a, str) and isinstance(b, str) for a, b in hits)
    assert backend.collisions(np.asarray(backend.home_q, dtype=float)) == []
    assert _same_state(before_ws, backend.world_state(), atol=0.0)
    assert np.array_equal(before_q, backend.robot_state().joint_positions)


# --- snapshots ------------------------------------------------------------------------------------------------
def test_save_and_restore_round_trip(backend: Backend, case: BackendCase) -> None:
    if not case.snapshots:
        with pytest.raises(BackendError, match=SAYS_WHY):
            backend.save_state()
        with pytest.raises(BackendError, match=SAYS_WHY):
            backend.restore_state(object())
        return
    backend.reset(0)
    backend.set_ee_target(REACHABLE, TOP_DOWN)
    backend.step(10)
    snap = backend.save_state()
    backend.step(20)
    expected_ws, expected_q = backend.world_state(), backend.robot_state().joint_positions.copy()
    backend.step(25)
    backend.set_gripper(True)
    backend.restore_state(snap)
    backend.step(20)
    assert _same_state(backend.world_state(), expected_ws)
    assert np.allclose(backend.robot_state().joint_positions, expected_q, atol=1e-6)
    with pytest.raises(BackendError, match=SAYS_WHY):
        backend.restore_state("not a snapshot")


# --- cameras --------------------------------------------------------------------------------------------------
def test_every_camera_renders_calibrated_frames(backend: Backend) -> None:
    backend.reset(0)
    names = backend.cameras()
    assert "top" in names
    for name in names:
        f = backend.render(name, rgb=True, depth=True, segmentation=True)
        assert f.rgb is not None and f.depth is not None and f.segmentation is not None
        h, w = f.shape
        assert f.rgb.shape == (h, w, 3) and f.rgb.dtype == np.uint8
        assert f.depth.shape == (h, w) and f.depth.dtype == np.float32
        assert f.segmentation.shape == (h, w) and np.issubdtype(f.segmentation.dtype, np.integer)
        assert set(np.unique(f.segmentation)) <= {-1, *f.segment_ids}
        k = np.asarray(f.intrinsics, dtype=float)
        assert k.shape == (3, 3) and k[0, 0] > 0 and k[1, 1] > 0 and k[2, 2] == 1.0
        assert 0 < k[0, 2] < w and 0 < k[1, 2] < h
        pose = np.asarray(f.world_from_camera, dtype=float)
        rot = pose[:3, :3]
        assert np.allclose(rot @ rot.T, np.eye(3), atol=1e-6) and np.linalg.det(rot) == pytest.approx(1.0, abs=1e-6)
        assert np.allclose(pose[3], (0, 0, 0, 1))
        only = backend.render(name, rgb=False, depth=True, segmentation=False)
        assert only.rgb is None and only.segmentation is None and only.depth is not None


def test_the_top_camera_sees_the_bricks_where_ground_truth_puts_them(backend: Backend) -> None:
    """Back-project each visible brick's mask with depth, intrinsics and pose: it must land on the brick."""
    backend.reset(0)
    f = backend.render("top", rgb=False, depth=True, segmentation=True)
    assert f.depth is not None and f.segmentation is not None
    k_inv = np.linalg.inv(np.asarray(f.intrinsics, dtype=float))
    pose = np.asarray(f.world_from_camera, dtype=float)
    bricks = backend.world_state().by_id()
    checked = 0
    for index, name in f.segment_ids.items():
        mask = f.segmentation == index
        if name not in bricks or mask.sum() < 30:
            continue
        v, u = np.nonzero(mask)
        z = f.depth[v, u].astype(float)
        rays = k_inv @ np.stack([u + 0.5, v + 0.5, np.ones_like(u, dtype=float)])
        world = (pose[:3, :3] @ (rays * z) + pose[:3, 3:4]).T
        top = float(np.percentile(world[:, 2], 90))
        upper = world[world[:, 2] > top - 0.002]  # the brick's top face: no side faces, no perspective shift
        centre = upper[:, :2].mean(axis=0)
        assert float(np.linalg.norm(centre - np.array(bricks[name].position[:2]))) < 0.006, (name, centre)
        assert bricks[name].position[2] < top < bricks[name].position[2] + 0.02, (name, top)
        checked += 1
    assert checked >= 3, f"only {checked} bricks visible to the top camera"


def test_bad_commands_and_names_are_backend_errors(backend: Backend, case: BackendCase) -> None:
    backend.reset(0)
    with pytest.raises(BackendError, match="nope"):
        backend.render("nope")
    bad: list[Any] = [
        lambda: backend.set_joint_targets(np.zeros(3)),
        lambda: backend.set_joint_targets(np.full(7, np.nan)),
        lambda: backend.set_ee_target(np.array([np.nan, 0.0, 0.3]), TOP_DOWN),
        lambda: backend.set_gripper(True, force_n=-1.0),
        lambda: backend.displace_brick("no-such-brick", (0.01, 0.0)),
        lambda: backend.knock("no-such-brick", 0.001),
    ]
    for call in bad:
        with pytest.raises(BackendError, match=SAYS_WHY):
            call()
    if case.drives_arm:  # nothing moved: bad commands are refused before they reach the simulator
        assert float(np.max(np.abs(backend.robot_state().joint_positions - backend.home_q))) < 0.05


# --- perturbations --------------------------------------------------------------------------------------------
def test_perturbations_move_bricks_or_are_refused(backend: Backend, case: BackendCase, task: TaskSpec) -> None:
    brick = task.action_bricks[0].id
    backend.reset(0)
    if not case.perturbs:
        for call in (lambda: backend.displace_brick(brick, (0.03, 0.0)), lambda: backend.knock(brick, 0.001),
                     backend.drop_held):
            with pytest.raises(BackendError, match="bridge"):
                call()
        return
    before = _positions(backend.world_state())[brick]
    backend.displace_brick(brick, (0.03, 0.0))
    _settle(backend, case, 0.3)
    after = _positions(backend.world_state())[brick]
    assert after[0] - before[0] == pytest.approx(0.03, abs=0.003) and abs(after[1] - before[1]) < 0.003
    backend.knock(brick, 0.002)
    _settle(backend, case, 0.5)
    knocked = _positions(backend.world_state())[brick]
    assert float(np.linalg.norm(knocked[:2] - after[:2])) > 0.002  # an impulse moves a loose brick
    backend.drop_held()  # nothing held: a no-op, not an error
    assert backend.held_brick() is None


# --- the observation path -------------------------------------------------------------------------------------
def test_the_gymnasium_observation_holds_no_ground_truth(case: BackendCase, task: TaskSpec,
                                                          request: pytest.FixtureRequest) -> None:
    """What an agent observes through the environment is images and proprioception, never brick poses or ids."""
    if not case.drives_arm:
        pytest.skip("the ros backend's agent-facing path is the bridge's skills (tests/ros), not a Gymnasium env")
    from jarvis_sim.env import LegoAssemblyEnv

    env = LegoAssemblyEnv(task, backend=request.getfixturevalue("fresh"))
    obs, info = env.reset(seed=0)
    assert set(obs) == {"rgb", "depth", "joint_positions", "joint_velocities", "gripper_width", "ee_pose", "sim_time"}
    assert obs["rgb"].dtype == np.uint8 and obs["rgb"].ndim == 3
    ids = [b.id for b in task.initial] + [a.id for a in task.action_bricks]
    text = repr({k: v for k, v in info.items() if k != "task"})
    assert not any(i in text for i in ids) and "target" not in str(info.get("task", ""))
    assert len(env.ground_truth().bricks) == len(ids)  # the explicit oracle accessor is the only way in
