"""Hand-built LEGO TaskSpecs for simulator tests and benchmarks (before and beside the shipped suites)."""

from __future__ import annotations

from jarvis_sim.lego.assembly import LatticeBrick, make_brick
from jarvis_sim.tasks.spec import ActionBrick, ManualStep, TablePose, TaskSpec

COLORS = (4, 1, 14, 2, 15, 25, 71, 0)


def structure(n_bricks: int) -> list[LatticeBrick]:
    """n 2x4 bricks stacked in running bond, 12 per course (3 along x, 4 rows along y), from lattice (0, 0)."""
    bricks: list[LatticeBrick] = []
    level = 0
    while len(bricks) < n_bricks:
        shift = 2 if level % 2 else 0
        for k in range(12):
            if len(bricks) == n_bricks:
                break
            row, col = divmod(k, 3)
            bricks.append(
                make_brick(f"s{len(bricks):03d}", "3001", COLORS[len(bricks) % len(COLORS)],
                           col * 4 + shift, row * 2, level * 3)
            )
        level += 1
    return bricks


def stack_task(n_initial: int = 2, n_action: int = 1, baseplate: bool = False, task_id: str = "") -> TaskSpec:
    """A task placing `n_action` 2x4 bricks, one on top of the other, on a running-bond block of n_initial."""
    initial = structure(n_initial)
    top = max((b.top for b in initial), default=0)
    actions = []
    for k in range(n_action):
        target = make_brick(f"a{k:02d}", "3001", COLORS[(k + 3) % len(COLORS)], 2, 0, top + 3 * k)
        actions.append(ActionBrick(start=TablePose(x=0.40 + 0.05 * (k % 4), y=0.24 + 0.05 * (k // 4), yaw=0.0),
                                   target=target))
    return TaskSpec(
        id=task_id or f"crafted-{n_initial}-{n_action}{'-bp' if baseplate else ''}",
        source_assembly="crafted",
        baseplate=baseplate,
        initial=initial,
        action_bricks=actions,
        manual_steps=[ManualStep(index=k, brick_ids=[a.id]) for k, a in enumerate(actions)],
        time_budget_s=30.0 + 25.0 * n_action,
    )
