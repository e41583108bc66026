"""Picking a brick of the structure that does not come off says so, in its own error kind."""

from __future__ import annotations

import pytest

from jarvis_sim.backends.registry import make_backend
from jarvis_sim.lego.assembly import make_brick
from jarvis_sim.tasks.spec import ActionBrick, ManualStep, TablePose, TaskSpec, Workspace
from skills.context import SkillContext
from skills.errors import StuckInStructure
from skills.libraries import bind
from skills.library import picking

pytestmark = pytest.mark.render


def test_a_structure_brick_that_stays_clutched_raises_stuck_in_structure(monkeypatch) -> None:
    # A yellow 2x8 on the baseplate: 16 studs clutch it with 16 x 0.98 N = 15.7 N. The pick skill's
    # pulling grip (2 x 15 N, friction 1) pulls that off, so the hand here squeezes 1 N a finger: its friction holds
    # 2 N, well under the clutch (the lift also tilts the hand a little, prying), and the brick slips out of the
    # fingers and stays. (The grasp lock limits the force it passes on, not its moment: see issue 18's note.)
    monkeypatch.setattr(picking, "PULL_GRIP_N", 1.0)  # the pull uses the picking module's binding
    initial = [make_brick("s000", "3007", 14, 0, 0, 0)]
    task = TaskSpec(id="stuck", source_assembly="crafted", initial=initial, workspace=Workspace(), time_budget_s=60.0,
                    baseplate=True,
                    action_bricks=[ActionBrick(start=TablePose(x=0.40, y=0.30), target=make_brick("a00", "3001", 4, 0, 0, 6))],
                    manual_steps=[ManualStep(index=0, brick_ids=["a00"])])
    backend = make_backend("mujoco")
    try:
        backend.load(task, seed=0)
        ctx = SkillContext(backend=backend, workspace=task.workspace)
        skills = dict(bind("task", ctx))
        skills["go_home"]()
        top = max((d for d in skills["observe"]() if d["in_structure"]), key=lambda d: d["top_z_mm"])
        before = backend.world_state().by_id()["s000"].position
        with pytest.raises(StuckInStructure, match="clutched to the structure and did not come off") as info:
            skills["pick"](top["id"])
        assert info.value.kind == "stuck_in_structure" and "slipped" not in info.value.message
        after = backend.world_state().by_id()["s000"]
        assert after.position == pytest.approx(before, abs=5e-4) and not after.held
        assert ctx.held is None and backend.robot_state().gripper_width > 0.02  # fingers open again
    finally:
        backend.close()
