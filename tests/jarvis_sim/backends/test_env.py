"""The Gymnasium env on MuJoCo: observations carry no ground truth, check_env is clean, shipped tasks load."""

from __future__ import annotations

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import jarvis_sim  # noqa: F401  (registers the env)
from tests.fakes.lego_tasks import stack_task

OBS_KEYS = {"rgb", "depth", "joint_positions", "joint_velocities", "gripper_width", "ee_pose", "sim_time"}


@pytest.mark.render
def test_env_observation_has_no_ground_truth():
    env = gymnasium.make("jarvis/LegoAssembly-v1", task=stack_task(3, 1), backend="mujoco")
    try:
        obs, info = env.reset(seed=0)
        assert set(obs) == OBS_KEYS
        assert set(info) == {"task", "seed", "soft_score", "complete"} and "target" not in str(info["task"])
        assert not info["complete"]
        obs, reward, terminated, _, info = env.step(np.array([0.0, 0.0, -0.2, 0.0, 0.0, 0.0, -1.0], np.float32))
        assert set(info) == {"soft_score", "complete"} and not terminated
        assert isinstance(reward, float)
        assert obs["rgb"].shape == (480, 640, 3)
        assert len(env.unwrapped.ground_truth().bricks) == 4  # the explicit oracle accessor
    finally:
        env.close()


@pytest.mark.slow
@pytest.mark.render
def test_check_env_on_mujoco_has_no_warnings():
    env = gymnasium.make("jarvis/LegoAssembly-v1", task=stack_task(2, 1), backend="mujoco", ticks_per_step=2)
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            check_env(env.unwrapped)
        assert [str(w.message) for w in caught] == []
    finally:
        env.close()


@pytest.mark.slow
@pytest.mark.render
def test_shipped_mini_suite_loads_settles_and_renders():
    from jarvis_sim.backends.mujoco.backend import MujocoBackend
    from jarvis_sim.tasks.suites import load_suite

    b = MujocoBackend()
    try:
        for task in load_suite("jarvis-mini"):
            b.load(task)
            before = np.array([s.position for s in b.world_state().bricks])
            b.step(200)
            after = np.array([s.position for s in b.world_state().bricks])
            assert np.abs(after - before).max() < 0.0005, task.id
            frame = b.render("top")
            assert frame.rgb is not None and frame.rgb.std() > 5, task.id
    finally:
        b.close()
