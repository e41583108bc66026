"""A brick lying where the arm points down only low over the table (near the robot base) is picked and placed by
coming in low (skills/library/reach.py), on real MuJoCo kinematics."""

from __future__ import annotations

import pytest

from jarvis_sim.backends.registry import make_backend
from jarvis_sim.lego.assembly import make_brick
from jarvis_sim.tasks.spec import ActionBrick, ManualStep, TablePose, TaskSpec, Workspace
from skills.context import SkillContext
from skills.libraries import bind

pytestmark = [pytest.mark.render, pytest.mark.slow]

NEAR_BASE = (0.2519, 0.1279)  # jarvis-v2 v107-00038-random_stack/033 b096's start: 283 mm from the base


def test_a_brick_near_the_robot_base_is_picked_by_coming_in_low_and_placed() -> None:
    target = make_brick("a00", "3002", 4, 6, 6, 0)
    task = TaskSpec(id="near-base", source_assembly="crafted", initial=[], workspace=Workspace(), time_budget_s=60.0,
                    baseplate=True, action_bricks=[ActionBrick(start=TablePose(x=NEAR_BASE[0], y=NEAR_BASE[1]),
                                                               target=target)],
                    manual_steps=[ManualStep(index=0, brick_ids=["a00"])])
    backend = make_backend("mujoco")
    try:
        backend.load(task, seed=0)
        ctx = SkillContext(backend=backend, workspace=task.workspace)
        skills = dict(bind("task", ctx))
        skills["go_home"]()
        brick = next(d for d in skills["observe"]() if abs(d["x_mm"] - NEAR_BASE[0] * 1000) < 5)
        picked = skills["pick"](brick["id"])
        assert picked["brick"] == brick["id"] and backend.held_brick() == "a00"
        placed = skills["place_at"](6, 6, 0, 0)
        assert placed["seated"] and placed["error_mm"] < 1.0
        state = backend.world_state().by_id()["a00"]
        assert not state.held and state.position[2] == pytest.approx(0.0, abs=5e-4)
    finally:
        backend.close()
