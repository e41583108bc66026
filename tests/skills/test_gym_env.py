"""The skill-level Gymnasium env: registered by importing skills, one action one skill, scored as the
motor-level env; on MuJoCo a pick and a place_at of the task's brick completes it."""

from __future__ import annotations

import gymnasium
import numpy as np
import pytest

import skills  # noqa: F401  (registers the skill-level env)
from jarvis_sim.env import LegoAssemblyEnv
from skills.gym_env import MAX_BRICKS, SkillAssemblyEnv
from tests.fakes.env_backend import EnvBackend
from tests.fakes.lego_tasks import stack_task


def test_registered_with_a_multidiscrete_skill_action_space():
    assert gymnasium.spec("jarvis/LegoAssemblySkills-v1").entry_point == "skills.gym_env:make_skill_env"
    env = SkillAssemblyEnv(LegoAssemblyEnv(stack_task(2, 1), backend=EnvBackend()))
    assert env.action_space.nvec.tolist()[:2] == [2, MAX_BRICKS]
    assert env.observation_space["bricks"].shape == (MAX_BRICKS, 9)
    with pytest.raises(ValueError, match=r"6 integers within .*\[skill, brick, stud_x"):
        env.step(np.array([2, 0, 0, 0, 0, 0]))


@pytest.mark.slow
@pytest.mark.render
def test_pick_and_place_at_the_target_completes_the_task():
    task = stack_task(2, 1)
    target = task.action_bricks[0].target
    env = gymnasium.make("jarvis/LegoAssemblySkills-v1", task=task, backend="mujoco", reward="dense")
    try:
        obs, info = env.reset(seed=0)
        assert not info["complete"]
        rows = obs["bricks"][obs["bricks"][:, 0] == 1]
        loose = [k for k, row in enumerate(rows) if row[7] == 0 and row[8] == 1]
        assert len(loose) == 1  # the one action brick lies free on the table
        obs, r_pick, terminated, _, info = env.step(np.array([0, loose[0], 0, 0, 0, 0]))
        assert "skill_error" not in info, info
        assert obs["held"][0] == 1 and not terminated
        obs, r_place, terminated, truncated, info = env.step(np.array([1, 0, target.x, target.y, target.z, target.yaw]))
        assert "skill_error" not in info, info
        assert terminated and not truncated and info["complete"]
        assert r_pick + r_place > 0.3  # the soft score rose by the brick's share
        _, _, _, _, info = env.step(np.array([0, MAX_BRICKS - 1, 0, 0, 0, 0]))
        assert info["skill_error"]["kind"] == "invalid_argument"  # an empty slot is refused, not raised
    finally:
        env.close()
