"""A small hand-made task for the manual tests: 3 initial bricks and 3 steps, one adding two bricks."""

from __future__ import annotations

from jarvis_sim.lego.assembly import make_brick
from jarvis_sim.tasks.spec import ActionBrick, ManualStep, TablePose, TaskSpec


def crafted_task(task_id: str = "lego/test-crafted/000") -> TaskSpec:
    """Red and blue 2x4 bricks and a yellow 2x2 on the table; then a white 2x4, a green 1x2 with an
    orange 1x1, and a black 2x2 plate on top."""
    initial = [
        make_brick("b000", "3001", 4, 0, 0, 0),
        make_brick("b001", "3001", 1, 0, 2, 0),
        make_brick("b002", "3003", 14, 4, 0, 0),
    ]
    targets = [
        make_brick("b003", "3001", 15, 0, 1, 3),
        make_brick("b004", "3004", 2, 4, 0, 3, 1),
        make_brick("b005", "3005", 25, 3, 3, 3),
        make_brick("b006", "3022", 0, 2, 0, 6),
    ]
    return TaskSpec(
        id=task_id,
        source_assembly="crafted",
        initial=initial,
        action_bricks=[ActionBrick(start=TablePose(x=0.35 + 0.05 * i, y=0.3), target=b) for i, b in enumerate(targets)],
        manual_steps=[
            ManualStep(index=0, brick_ids=["b003"]),
            ManualStep(index=1, brick_ids=["b004", "b005"]),
            ManualStep(index=2, brick_ids=["b006"]),
        ],
        time_budget_s=130.0,
    )


def one_step_task(task_id: str = "lego/test-crafted/001") -> TaskSpec:
    """The crafted task cut to its first step (cheap to render, for cache tests)."""
    full = crafted_task(task_id)
    first = full.manual_steps[0]
    data = full.model_dump()
    data["action_bricks"] = [a for a in data["action_bricks"] if a["target"]["id"] in first.brick_ids]
    data["manual_steps"] = [first.model_dump()]
    return TaskSpec.model_validate(data)  # validated again: steps and action bricks must agree
