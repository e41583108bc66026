"""jarvis-v1-perturbed: 25 jarvis-v1 tasks beside twins that carry one recoverable disturbance each."""

from __future__ import annotations

import pytest

from jarvis_sim.tasks.perturbed import SUITE, disturbance, perturbed_tasks, twin_id
from jarvis_sim.tasks.registry import load_task, suite_task_ids
from jarvis_sim.tasks.spec import TaskSpec
from jarvis_sim.tasks.suites import load_suite


def test_suite_pairs_each_task_with_its_twin() -> None:
    ids = suite_task_ids(SUITE)
    assert len(ids) == 50 and len(set(ids)) == 50
    v1 = {t.id: t for t in load_suite("jarvis-v1")}
    for plain, twin in zip(ids[0::2], ids[1::2], strict=True):
        assert twin_id(twin) == plain and plain in v1
        task = load_task(twin)
        assert isinstance(task, TaskSpec) and len(task.perturbations) == 1
        base = v1[plain]
        # The twin is the task itself plus the disturbance: same scene, targets and budget.
        assert task.model_copy(update={"id": plain, "perturbations": []}) == base
    kinds = [t.perturbations[0].kind for t in perturbed_tasks()]
    assert (kinds.count("displace_brick"), kinds.count("drop_held"), kinds.count("knock_structure")) == (9, 8, 8)
    assert {t.difficulty for t in perturbed_tasks()} == {"easy", "medium", "hard"}


def test_disturbances_are_recoverable() -> None:
    for task in perturbed_tasks():
        p = task.perturbations[0]
        order = [b for s in task.manual_steps for b in s.brick_ids]
        assert p.when_brick in order
        if p.kind != "drop_held":
            assert p.when == "placed" and p.brick_id == p.when_brick and p.when_brick != order[-1]
        else:
            assert p.when == "held"
        if p.kind == "displace_brick":
            # Set down where it lay at the start: a free, reachable spot the staging checked.
            (x, y, _), _ = task.target_world_pose(p.brick_id or "")
            start = next(a.start for a in task.action_bricks if a.id == p.brick_id)
            assert (x + p.offset_m[0], y + p.offset_m[1]) == pytest.approx((start.x, start.y), abs=1e-6)
        if p.kind == "knock_structure":
            assert 0 < p.impulse_n_s < 0.01
        assert p.brick_id is None or p.brick_id not in {b.id for b in task.initial}  # never the static structure


def test_unknown_kind_and_short_task() -> None:
    task = load_suite("jarvis-v1")[1]
    assert len(task.action_bricks) == 1
    with pytest.raises(ValueError, match="at least 2 action bricks"):
        disturbance(task, "drop_held")
    with pytest.raises(ValueError, match="unknown disturbance kind"):
        disturbance(load_suite("jarvis-v1")[0], "earthquake")
