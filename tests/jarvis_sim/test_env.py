"""The Gymnasium env's contract on a renderless backend: registration, tasks by id, bounded normalised
actions, seeds passed to the backend, reward from the injected scorer (dense and sparse), termination."""

from __future__ import annotations

import math
import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import jarvis_sim
from evaluator.assembly import build_progress
from jarvis_sim.env import LegoAssemblyEnv
from jarvis_sim.lego.world_state import WorldState
from jarvis_sim.tasks.spec import TaskSpec
from tests.evaluator.builders import make_task, perfect_state, start_state
from tests.fakes.env_backend import EnvBackend
from tests.fakes.lego_tasks import stack_task


class ScriptedScorer:
    """Returns the scores it is given, one per call, then repeats the last."""

    def __init__(self, *scores: tuple[float, bool]) -> None:
        self.scores = list(scores)
        self.calls = 0

    def __call__(self, task: TaskSpec, state: WorldState, elapsed_s: float) -> tuple[float, bool]:
        self.calls += 1
        return self.scores.pop(0) if len(self.scores) > 1 else self.scores[0]


def _env(scorer=None, **kw) -> tuple[LegoAssemblyEnv, EnvBackend]:
    backend = EnvBackend()
    return LegoAssemblyEnv(stack_task(2, 1), backend=backend, scorer=scorer or ScriptedScorer((0.0, False)),
                           **kw), backend


def test_package_import_registers_the_id():
    assert jarvis_sim.__name__ == "jarvis_sim"
    spec = gymnasium.spec("jarvis/LegoAssembly-v1")
    assert spec.entry_point == "jarvis_sim.env:LegoAssemblyEnv"


def test_make_by_task_id_and_module_prefix():
    env = gymnasium.make("jarvis_sim:jarvis/LegoAssembly-v1", task="lego/v7-00009-stairs/000", backend=EnvBackend())
    assert env.unwrapped.task.id == "lego/v7-00009-stairs/000"
    env.close()


def test_a_task_that_is_not_a_lego_task_or_id_is_refused():
    with pytest.raises(TypeError, match="TaskSpec or a task id"):
        LegoAssemblyEnv(42, backend=EnvBackend())  # type: ignore[arg-type]
    with pytest.raises(KeyError, match="unknown task family"):
        LegoAssemblyEnv("no-such-family/x", backend=EnvBackend())


def test_actions_are_bounded_and_normalised_and_mapped_onto_the_workspace():
    env, backend = _env()
    assert env.action_space.shape == (7,) and (env.action_space.low == -1).all() and (env.action_space.high == 1).all()
    env.reset(seed=0)
    env.step(np.zeros(7, np.float32))
    pos, quat = backend.ee_targets[-1]
    ws = env.task.workspace
    assert pos[:2] == pytest.approx([(ws.table_min[0] + ws.table_max[0]) / 2, (ws.table_min[1] + ws.table_max[1]) / 2])
    assert quat == pytest.approx([0.0, 1.0, 0.0, 0.0])  # zero rotation: pointing down
    assert backend.gripper[-1] is False
    env.step(np.array([1, 1, 1, 0.3, -0.7, 1.0, 1.0], np.float32))
    pos, quat = backend.ee_targets[-1]
    assert pos == pytest.approx([ws.table_max[0], ws.table_max[1], 0.5])
    assert np.linalg.norm(quat) == pytest.approx(1.0)  # every action is a valid orientation
    assert backend.gripper[-1] is True
    for bad in (np.full(7, 1.5), np.zeros(8), np.array([math.nan] * 7)):
        with pytest.raises(ValueError, match=r"7 finite numbers in \[-1, 1\]"):
            env.step(bad)


def test_joint_mode_scales_onto_the_backends_joint_limits():
    env, backend = _env(action_mode="joint")
    assert env.action_space.shape == (8,)
    env.reset(seed=0)
    env.step(np.array([-1, 0, 1, 0.5, 0, 0, 0, -1], np.float32))
    assert backend.joint_targets[-1] == pytest.approx([-2, 0, 2, 1, 0, 0, 0])


def test_seeds_reach_the_backend_and_unseeded_resets_draw_fresh_ones():
    env, backend = _env()
    _, info = env.reset(seed=7)
    assert backend.reset_seeds[-1] == 7 and info["seed"] == 7
    env.reset()
    env.reset()
    assert backend.reset_seeds[-2] != backend.reset_seeds[-1]
    env2, backend2 = _env()
    env2.reset(seed=7)
    env2.reset()
    env2.reset()
    assert backend2.reset_seeds == backend.reset_seeds  # the same seed gives the same sequence


def test_dense_reward_is_the_change_in_soft_score_and_complete_terminates():
    scorer = ScriptedScorer((10.0, False), (25.0, False), (20.0, False), (90.0, True))
    env, _ = _env(scorer=scorer)
    env.reset(seed=0)
    rewards, terminated = [], False
    while not terminated:
        _, r, terminated, truncated, info = env.step(np.zeros(7, np.float32))
        rewards.append(r)
        assert not truncated
    assert rewards == pytest.approx([0.15, -0.05, 0.70])
    assert sum(rewards) == pytest.approx((90 - 10) / 100)
    assert info == {"soft_score": 90.0, "complete": True}


def test_sparse_reward_pays_the_final_score_once_at_truncation():
    env, backend = _env(scorer=ScriptedScorer((40.0, False)), reward="sparse", ticks_per_step=1000)
    env.reset(seed=0)
    rewards, truncated = [], False
    while not truncated:
        _, r, terminated, truncated, _ = env.step(np.zeros(7, np.float32))
        rewards.append(r)
        assert not terminated
    assert backend.sim_time_s >= env.task.time_budget_s
    assert rewards[:-1] == [0.0] * (len(rewards) - 1) and rewards[-1] == pytest.approx(0.4)


def test_render_fps_follows_the_step_length():
    env, _ = _env(ticks_per_step=20)
    assert env.metadata["render_fps"] == pytest.approx(5.0)  # 20 ticks of 10 ms


def test_check_env_passes_without_warnings():
    env = gymnasium.make("jarvis/LegoAssembly-v1", task=stack_task(2, 1), backend=EnvBackend(),
                         scorer=ScriptedScorer((0.0, False))).unwrapped
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(env)
    assert [str(w.message) for w in caught] == []


def test_bad_options_are_named():
    with pytest.raises(ValueError, match="reward must be 'dense' or 'sparse'"):
        _env(reward="shaped")
    with pytest.raises(ValueError, match="scorer 'nowhere'"):
        _env(scorer="nowhere")


def test_the_evaluators_build_progress_is_the_default_scorer_and_knows_complete():
    task = make_task()
    score, complete = build_progress(task, perfect_state(task), 10.0)
    assert complete and score == pytest.approx(100.0)
    score, complete = build_progress(task, start_state(task), 10.0)
    assert not complete and score < 50.0
    env = LegoAssemblyEnv(task, backend=EnvBackend())
    assert env.scorer is build_progress
