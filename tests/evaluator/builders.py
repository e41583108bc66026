"""Small crafted tasks and final states with known answers, shared by the evaluator tests."""

from __future__ import annotations

import math

from jarvis_sim.lego.assembly import LatticeBrick, make_brick, yaw_quaternion
from jarvis_sim.lego.world_state import BrickState, WorldState
from jarvis_sim.tasks.spec import ActionBrick, ManualStep, TablePose, TaskSpec, time_budget_s

RED, BLUE, YELLOW = 4, 1, 14


def make_task(
    initial: list[LatticeBrick] | None = None,
    actions: list[tuple[LatticeBrick, TablePose]] | None = None,
    task_id: str = "lego/test/0",
    difficulty: str | None = "easy",
) -> TaskSpec:
    """A task from explicit bricks; by default a 2x4 base with a 2x4 on top and a 2x2 beside it."""
    if initial is None:
        initial = [make_brick("i1", "3001", BLUE, 0, 0, 0)]
    if actions is None:
        actions = [
            (make_brick("a1", "3001", RED, 0, 0, 3), TablePose(x=0.35, y=0.25, yaw=0.0)),
            (make_brick("a2", "3003", YELLOW, 6, 0, 0), TablePose(x=0.45, y=0.25, yaw=0.3)),
        ]
    return TaskSpec(
        id=task_id,
        difficulty=difficulty,  # type: ignore[arg-type]
        source_assembly="crafted",
        initial=initial,
        action_bricks=[ActionBrick(start=s, target=t) for t, s in actions],
        manual_steps=[ManualStep(index=k, brick_ids=[t.id]) for k, (t, _) in enumerate(actions)],
        time_budget_s=time_budget_s(len(actions)),
    )


def perfect_state(task: TaskSpec) -> WorldState:
    """Every brick exactly at its target, action bricks above level 0 connected to their supports."""
    target = task.target_assembly
    bricks = []
    for b in target.bricks:
        pos, quat = task.target_world_pose(b.id)
        connected = target.supports(b.id)
        bricks.append(BrickState(id=b.id, part=b.part, color=b.color, position=pos, quaternion=quat,
                                 connected_to=connected))
    return WorldState(sim_time_s=10.0, bricks=bricks)


def start_state(task: TaskSpec) -> WorldState:
    """The state at reset: initial structure in place, action bricks at their start poses."""
    bricks = []
    for b in task.initial:
        pos, quat = task.target_world_pose(b.id)
        bricks.append(BrickState(id=b.id, part=b.part, color=b.color, position=pos, quaternion=quat))
    for a in task.action_bricks:
        bricks.append(
            BrickState(id=a.id, part=a.target.part, color=a.target.color, position=(a.start.x, a.start.y, 0.0),
                       quaternion=yaw_quaternion(a.start.yaw))
        )
    return WorldState(bricks=bricks)


def with_brick(state: WorldState, brick_id: str, **changes: object) -> WorldState:
    """A copy of the state with one brick's fields changed."""
    bricks = [b.model_copy(update=changes) if b.id == brick_id else b for b in state.bricks]
    return WorldState(sim_time_s=state.sim_time_s, bricks=bricks)


def shifted(state: WorldState, brick_id: str, dx: float = 0.0, dy: float = 0.0, dz: float = 0.0) -> WorldState:
    """A copy with one brick translated."""
    b = state.by_id()[brick_id]
    x, y, z = b.position
    return with_brick(state, brick_id, position=(x + dx, y + dy, z + dz))


def turned(state: WorldState, brick_id: str, yaw_rad: float) -> WorldState:
    """A copy with one brick rotated about its own vertical axis (about its centre) by yaw_rad more."""
    b = state.by_id()[brick_id]
    w, _, _, z = b.quaternion
    yaw = 2 * math.atan2(z, w) + yaw_rad
    return with_brick(state, brick_id, quaternion=yaw_quaternion(yaw))


def tilted(state: WorldState, brick_id: str, angle_rad: float) -> WorldState:
    """A copy with one brick tilted about the world x axis."""
    return with_brick(state, brick_id, quaternion=(math.cos(angle_rad / 2), math.sin(angle_rad / 2), 0.0, 0.0))
