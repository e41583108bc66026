"""The MuJoCo backend lays out the scene of a seed: seed 0 the spec, the same seed identical, two seeds differ."""

from __future__ import annotations

import numpy as np
import pytest

from evaluator.assembly import score_assembly
from jarvis_sim.backends.mujoco.backend import MujocoBackend
from jarvis_sim.tasks.variation import seeded_scene
from tests.fakes.lego_tasks import stack_task

TASK = stack_task(4, 3, task_id="crafted-seeds")
SEED_WITH_DISTRACTORS = next(s for s in range(1, 50) if seeded_scene(TASK, s).distractors)


@pytest.fixture(scope="module")
def backend():
    b = MujocoBackend()
    yield b
    b.close()


def _loose_state(b: MujocoBackend) -> dict[str, tuple[float, ...]]:
    return {s.id: (*s.position, *s.quaternion) for s in b.world_state().bricks if not s.id.startswith("s")}


def test_seed_zero_lays_out_the_spec(backend: MujocoBackend) -> None:
    backend.load(TASK, seed=0)
    state = _loose_state(backend)
    assert set(state) == {a.id for a in TASK.action_bricks}
    for a in TASK.action_bricks:
        assert state[a.id][:2] == pytest.approx((a.start.x, a.start.y), abs=5e-4)


def test_the_same_seed_gives_identical_final_states_and_two_seeds_differ(backend: MujocoBackend) -> None:
    runs = []
    for seed in (SEED_WITH_DISTRACTORS, SEED_WITH_DISTRACTORS, SEED_WITH_DISTRACTORS + 1):
        backend.load(TASK, seed=seed)
        backend.set_ee_target(np.array([0.45, 0.1, 0.2]), np.array([0.0, 1.0, 0.0, 0.0]))
        backend.step(50)
        runs.append((backend.data.qpos.copy(), _loose_state(backend)))
    assert np.array_equal(runs[0][0], runs[1][0])
    assert runs[0][1] != runs[2][1]


def test_distractors_are_bricks_of_the_scene_and_reset_switches_seed(backend: MujocoBackend) -> None:
    scene = seeded_scene(TASK, SEED_WITH_DISTRACTORS)
    backend.load(TASK, seed=SEED_WITH_DISTRACTORS)
    state = backend.world_state().by_id()
    for d in scene.distractors:
        assert (state[d.id].part, state[d.id].color) == (d.part, d.color)
        assert state[d.id].position[:2] == pytest.approx((d.start.x, d.start.y), abs=5e-4)
    backend.reset(0)  # back to the spec: no distractors in the model any more
    assert set(_loose_state(backend)) == {a.id for a in TASK.action_bricks}
    assert backend.task == TASK


def test_an_untouched_varied_scene_earns_no_validity(backend: MujocoBackend) -> None:
    backend.load(TASK, seed=SEED_WITH_DISTRACTORS)
    scores = score_assembly(seeded_scene(TASK, SEED_WITH_DISTRACTORS), backend.world_state(), None)
    assert scores.validity == 0.0 and scores.completion == 0.0


@pytest.mark.render
def test_a_distractor_can_be_picked_and_put_down(backend: MujocoBackend) -> None:
    from skills.context import SkillContext
    from skills.libraries import bind

    scene = seeded_scene(TASK, SEED_WITH_DISTRACTORS)
    backend.load(TASK, seed=SEED_WITH_DISTRACTORS)
    ctx = SkillContext(backend=backend, workspace=scene.workspace)
    skills = dict(bind("task", ctx))
    skills["go_home"]()
    d = scene.distractors[0]
    seen = skills["observe"]()
    pid = min(seen, key=lambda b: (b["x_mm"] - d.start.x * 1000) ** 2 + (b["y_mm"] - d.start.y * 1000) ** 2)["id"]
    skills["pick"](pid)
    assert backend.held_brick() == d.id
    skills["put_down"]()
    moved = backend.world_state().by_id()[d.id]
    assert not moved.held and abs(moved.position[0] - d.start.x) + abs(moved.position[1] - d.start.y) > 0.005
