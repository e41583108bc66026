"""The Isaac stage description of a task: the bodies, prim paths, slabs and cameras the MuJoCo backend builds."""

from __future__ import annotations

import re

import numpy as np
import pytest
from pydantic import ValidationError

from jarvis_sim.backends.isaac.config import IsaacConfig
from jarvis_sim.backends.isaac.kinematics import quat_to_matrix
from jarvis_sim.backends.isaac.scene import BRICKS, brick_prim_names, describe_scene
from jarvis_sim.backends.mujoco.backend import MujocoBackend
from jarvis_sim.tasks.spec import TaskSpec
from jarvis_sim.tasks.variation import seeded_scene


def test_bodies_lie_where_the_mujoco_scene_puts_them(task: TaskSpec, mujoco: MujocoBackend) -> None:
    for seed in (0, 3):
        mujoco.reset(seed)
        scene = describe_scene(seeded_scene(task, seed), IsaacConfig())
        truth = mujoco.world_state().by_id()
        assert {b.id for b in scene.bricks} == set(truth)
        for body in scene.bricks:
            assert np.allclose(body.position, truth[body.id].position, atol=2e-4), body.id
            assert abs(float(np.dot(body.quaternion, truth[body.id].quaternion))) > 1 - 1e-6
            assert body.centre[2] == pytest.approx(body.position[2] + body.size_m[2] / 2)
            assert body.mass_kg > 0 and all(0 <= c <= 1 for c in body.color_rgb)
        kinds = {b.kind for b in scene.bricks}
        assert kinds == ({"initial", "action", "distractor"} if seed else {"initial", "action"})


def test_prim_names_are_usd_safe_unique_and_map_back() -> None:
    ids = ["a00", "1x2", "brick/7", "brick_7", "brick 7", ""]
    names = brick_prim_names(ids)
    assert len(set(names.values())) == len(ids)
    assert all(re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n) for n in names.values())
    assert names["a00"] == "a00" and names["1x2"] == "b_1x2"


def test_the_lookup_by_prim_path_inverts_the_layout(task: TaskSpec) -> None:
    scene = describe_scene(task, IsaacConfig())
    by_prim = scene.brick_by_prim()
    assert all(path.startswith(f"{BRICKS}/") for path in by_prim)
    assert sorted(by_prim.values()) == sorted(b.id for b in scene.bricks)
    with pytest.raises(KeyError, match="unknown brick 'nope'"):
        scene.brick("nope")


def test_cameras_have_the_mujoco_calibration(task: TaskSpec, mujoco: MujocoBackend) -> None:
    mujoco.reset(0)
    scene = describe_scene(task, IsaacConfig())
    assert [c.name for c in scene.cameras] == mujoco.cameras()
    for rig in scene.cameras:
        frame = mujoco.render(rig.name, rgb=False, depth=True)
        assert (rig.height, rig.width) == frame.shape
        assert np.allclose(rig.intrinsics, frame.intrinsics, atol=1e-9)
        assert np.allclose(rig.world_from_camera, frame.world_from_camera, atol=1e-9)
        horizontal, vertical = rig.apertures_mm  # USD: fx = focal length * width / horizontal aperture
        assert rig.focal_length_mm * rig.width / horizontal == pytest.approx(rig.intrinsics[0, 0])
        assert horizontal / vertical == pytest.approx(rig.width / rig.height)
        position, quat = rig.usd_pose  # a USD camera looks along its -z with +y up
        rot = quat_to_matrix(quat)
        assert np.allclose(position, rig.world_from_camera[:3, 3])
        assert np.allclose(-rot[:, 2], rig.world_from_camera[:3, 2], atol=1e-9)
        assert np.allclose(-rot[:, 1], rig.world_from_camera[:3, 1], atol=1e-9)


def test_slabs_and_initial_connections(task: TaskSpec) -> None:
    scene = describe_scene(task, IsaacConfig())
    assert scene.table.centre[2] + scene.table.size_m[2] / 2 == pytest.approx(0.0)  # table top at z = 0
    assert scene.baseplate is not None and scene.baseplate.centre[2] < 0
    expected = set(task.initial_assembly.connections()) | {(b.id, "ground") for b in task.initial if b.z == 0}
    assert set(scene.initial_connections) == expected
    assert describe_scene(task.model_copy(update={"baseplate": False}), IsaacConfig()).baseplate is None


def test_the_config_is_strict() -> None:
    with pytest.raises(ValidationError, match="extra"):
        IsaacConfig(physics_steps=3)  # type: ignore[call-arg]
    with pytest.raises(ValidationError, match="capture_xy_m"):
        IsaacConfig(capture_xy_m=0.01)
