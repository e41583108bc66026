"""Seeded scene variation (jarvis_sim.tasks.variation): seed 0 is the spec, seeds are deterministic and differ,
every layout stays reachable and overlap-free, and distractors are in no manual step."""

from __future__ import annotations

import math

import pytest

from jarvis_sim.tasks.spec import TaskSpec
from jarvis_sim.tasks.staging import MIN_GAP_M, REACH_MAX_M, REACH_MIN_M
from jarvis_sim.tasks.suites import load_suite
from jarvis_sim.tasks.variation import _footprint, loose_bricks, polygon_distance, seeded_scene
from tests.fakes.lego_tasks import stack_task

SEEDS = (1, 2, 3, 17)


@pytest.fixture(scope="module")
def suite() -> list[TaskSpec]:
    return load_suite("jarvis-v1")


def test_seed_zero_is_the_task_spec_exactly(suite: list[TaskSpec]) -> None:
    for task in suite:
        assert seeded_scene(task, 0) is task
        assert '"scene_seed"' not in task.model_dump_json()  # generated tasks serialise as before


def test_the_same_seed_gives_the_same_scene_and_two_seeds_differ(suite: list[TaskSpec]) -> None:
    for task in suite[:10]:
        a, b, c = seeded_scene(task, 5), seeded_scene(task, 5), seeded_scene(task, 6)
        assert a.model_dump_json() == b.model_dump_json()
        assert [x.start for x in a.action_bricks] != [x.start for x in c.action_bricks]
        assert [x.start for x in a.action_bricks] != [x.start for x in task.action_bricks]
        assert a.target_assembly.bricks == task.target_assembly.bricks and a.manual_steps == task.manual_steps
        assert a.initial == task.initial


def test_layouts_stay_in_staging_within_reach_and_clear_of_each_other(suite: list[TaskSpec]) -> None:
    yaws: list[float] = []
    n_distractors = 0
    for task in suite:
        for seed in SEEDS:
            scene = seeded_scene(task, seed)
            assert scene.scene_seed == seed, f"{task.id} seed {seed} fell back to the spec's layout"
            (ax0, ay0), (ax1, ay1) = scene.workspace.staging_min, scene.workspace.staging_max
            loose = loose_bricks(scene)
            corners = [_footprint(b.id, b.part).corners(b.start) for b in loose]
            for b, cs in zip(loose, corners, strict=True):
                assert REACH_MIN_M <= math.hypot(b.start.x, b.start.y) <= REACH_MAX_M
                assert all(ax0 - 1e-6 <= x <= ax1 + 1e-6 and ay0 - 1e-6 <= y <= ay1 + 1e-6 for x, y in cs), b
                assert round(b.start.x * 1000, 6).is_integer() and round(b.start.y * 1000, 6).is_integer()
                yaws.append(b.start.yaw)
            for i in range(len(corners)):
                for j in range(i + 1, len(corners)):
                    gap = polygon_distance(corners[i], corners[j])
                    assert gap >= MIN_GAP_M - 1e-6, f"{task.id} seed {seed}: {loose[i].id}, {loose[j].id} {gap:.4f} m"
            manual = {i for s in scene.manual_steps for i in s.brick_ids}
            assert not manual & {d.id for d in scene.distractors}
            n_distractors += len(scene.distractors)
    assert max(yaws) > math.radians(270) and min(yaws) < math.radians(90)  # the full circle, not 0/90 only
    assert n_distractors > len(suite)  # on average more than one distractor per task over four seeds


def test_a_varied_scene_round_trips_through_json_and_is_its_own_scene() -> None:
    task = stack_task(4, 3)
    scene = seeded_scene(task, 9)
    again = TaskSpec.model_validate_json(scene.model_dump_json())
    assert again == scene and seeded_scene(again, 9) is again and seeded_scene(again, 0) is again
    with pytest.raises(ValueError, match="already the scene of seed 9"):
        seeded_scene(scene, 4)
    with pytest.raises(ValueError, match="non-negative"):
        seeded_scene(task, -1)


def test_distractor_ids_may_not_name_manual_bricks() -> None:
    scene = next(s for s in (seeded_scene(stack_task(2, 2), seed) for seed in range(1, 40)) if s.distractors)
    data = scene.model_dump()
    data["distractors"][0]["id"] = "a00"
    with pytest.raises(ValueError, match="distractor ids"):
        TaskSpec.model_validate(data)


def test_polygon_distance_of_rectangles() -> None:
    square = [(0.0, 0.0), (1.0, 0.0), (1.0, 1.0), (0.0, 1.0)]
    shifted = [(x + 3.0, y + 4.0) for x, y in square]
    assert polygon_distance(square, shifted) == pytest.approx(math.hypot(2.0, 3.0))
    assert polygon_distance(square, [(x + 0.5, y) for x, y in square]) == 0.0
