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


def test_the_action_space_spans_every_tasks_lattice():
    """Negative studs and high levels (an imported model's) are actions like any other, and every brick of the
    shipped suites can be named; the lattice's own bounds are the space's bounds."""
    from jarvis_sim.lego.assembly import LATTICE_LIMIT, LatticeBrick
    from jarvis_sim.tasks.suites import load_suite

    env = SkillAssemblyEnv(LegoAssemblyEnv(stack_task(2, 1), backend=EnvBackend()))
    space = env.action_space
    assert space.contains(np.array([1, 0, -2, -2, 129, 3]))
    assert space.contains(np.array([1, 0, -LATTICE_LIMIT, LATTICE_LIMIT, LATTICE_LIMIT, 0]))
    assert not space.contains(np.array([1, 0, -LATTICE_LIMIT - 1, 0, 0, 0]))
    for name in ("jarvis-v1", "jarvis-v2"):
        for task in load_suite(name):
            for b in task.action_bricks:
                t = b.target
                assert space.contains(np.array([1, 0, t.x, t.y, t.z, t.yaw])), (task.id, t)
    with pytest.raises(ValueError, match="less than or equal to 1000"):  # the Assembly refuses what lies beyond
        LatticeBrick(id="x", part="3001", color=4, x=LATTICE_LIMIT + 1, y=0, z=0, yaw=0)
    with pytest.raises(ValueError, match=r"\[-1000, 1000\]"):
        env.step(np.array([1, 0, -LATTICE_LIMIT - 1, 0, 0, 0]))
