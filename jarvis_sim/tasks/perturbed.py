"""The error-recovery suite `jarvis-v1-perturbed`: 25 jarvis-v1 tasks, each beside its perturbed twin.

The suite lists 50 ids: each unperturbed task, then its twin `<task id>-perturbed` carrying one
scheduled disturbance, so one run scores both and the report pairs them (evaluator.perturbation_report).
Tasks with 2-8 action bricks are eligible (a placed brick to disturb and something left to build,
within a budget that leaves room to recover); 25 are taken at even spacing over the suite's difficulty
order, and the disturbances cycle through the three kinds:

- `displace_brick`: once the middle brick of the build order is seated, it is set back down on the
  table where it started (a free, reachable spot the staging checked), so it must be placed again;
- `drop_held`: once the middle brick is in the gripper, the gripper opens over its pick-up spot;
- `knock_structure`: once a placed brick whose +x side is open (the push goes along +x; a neighbour there
  would stop it dead) is seated, a horizontal push of 1.5 m/s (its mass times that speed) detaches it,
  with what is clutched onto it; the placed brick nearest the middle of the build order that has an open
  side is chosen, else the middle one.

Disturbances wait for a brick's state (Perturbation.when), not for a call count, so they land at the
same point of the build whatever calls an agent makes. They touch bricks placed during the episode
only: a backend that keeps the initial structure static (main's MuJoCo backend) can apply every one.
"""

from __future__ import annotations

from functools import cache

from jarvis_sim.tasks.spec import Perturbation, TaskSpec

SUITE = "jarvis-v1-perturbed"
BASE_SUITE = "jarvis-v1"
SUFFIX = "-perturbed"
N_TASKS = 25
MIN_HORIZON = 2
MAX_HORIZON = 8
KINDS = ("displace_brick", "drop_held", "knock_structure")
# In main's MuJoCo backend a seated brick held by the studs below does not move at 1.0 m/s, slides about
# 11 cm at 1.5 m/s and leaves the table at 3.0 m/s (measured on lego/v7-00003-wall/002): 1.5 disturbs
# without throwing the brick out of reach.
KNOCK_SPEED_M_S = 1.5


def twin_id(perturbed_id: str) -> str | None:
    """The unperturbed task of a perturbed id, None for any other id."""
    return perturbed_id[: -len(SUFFIX)] if perturbed_id.endswith(SUFFIX) else None


def _build_order(task: TaskSpec) -> list[str]:
    return [bid for step in task.manual_steps for bid in step.brick_ids]


def _open_sided(task: TaskSpec, order: list[str]) -> str | None:
    """The placed brick nearest the middle of the build order (never the last) whose +x side is free of
    other bricks at its levels when it is placed; None when every one has a neighbour there."""
    target = task.target_assembly
    middle = (len(order) - 1) // 2
    for j in sorted(range(len(order) - 1), key=lambda i: (abs(i - middle), i)):
        b = target[order[j]]
        present = [*task.initial, *(target[i] for i in order[: j + 1] if i != b.id)]
        ex, ey = b.extent
        side = {(b.x + ex, b.y + k, z) for k in range(ey) for z in range(b.z, b.top)}
        if not any((x, y, z) in side for o in present for x, y in o.cells() for z in range(o.z, o.top)):
            return b.id
    return None


def disturbance(task: TaskSpec, kind: str) -> Perturbation:
    """The suite's disturbance of one kind for a task (see the module docstring)."""
    order = _build_order(task)
    if len(order) < MIN_HORIZON:
        raise ValueError(f"task {task.id}: a disturbance needs at least {MIN_HORIZON} action bricks")
    if kind == "drop_held":
        return Perturbation(kind="drop_held", after_skill_calls=0, when="held", when_brick=order[len(order) // 2])
    # (n - 1) // 2: never the last brick, so a skill call still follows its placement and the disturbance fires.
    brick = order[(len(order) - 1) // 2]
    action = next(a for a in task.action_bricks if a.id == brick)
    if kind == "displace_brick":
        (x, y, _), _ = task.target_world_pose(brick)
        offset = (round(action.start.x - x, 6), round(action.start.y - y, 6))
        return Perturbation(kind="displace_brick", after_skill_calls=0, brick_id=brick, offset_m=offset,
                            when="placed", when_brick=brick)
    if kind == "knock_structure":
        brick = _open_sided(task, order) or brick
        action = next(a for a in task.action_bricks if a.id == brick)
        impulse = round(action.target.spec.mass_kg * KNOCK_SPEED_M_S, 9)
        return Perturbation(kind="knock_structure", after_skill_calls=0, brick_id=brick, impulse_n_s=impulse,
                            when="placed", when_brick=brick)
    raise ValueError(f"unknown disturbance kind {kind!r}; known: {', '.join(KINDS)}")


def perturbed_twin(task: TaskSpec, kind: str) -> TaskSpec:
    """The task with one disturbance, under the id `<id>-perturbed`."""
    return task.model_copy(update={"id": task.id + SUFFIX, "perturbations": [disturbance(task, kind)]})


@cache
def perturbed_tasks() -> tuple[TaskSpec, ...]:
    """The 25 perturbed tasks, in suite order (rebuilt from jarvis-v1, so always consistent with it)."""
    from jarvis_sim.tasks.suites import load_suite

    eligible = [t for t in load_suite(BASE_SUITE) if MIN_HORIZON <= len(t.action_bricks) <= MAX_HORIZON]
    if len(eligible) < N_TASKS:
        raise ValueError(f"{BASE_SUITE} has only {len(eligible)} tasks with {MIN_HORIZON}-{MAX_HORIZON} action bricks")
    picks = [eligible[k * len(eligible) // N_TASKS] for k in range(N_TASKS)]
    return tuple(TaskSpec.model_validate(perturbed_twin(t, KINDS[k % len(KINDS)]).model_dump())
                 for k, t in enumerate(picks))


def suite_task_ids() -> list[str]:
    """Each unperturbed task followed by its perturbed twin (50 ids)."""
    out = []
    for t in perturbed_tasks():
        base = twin_id(t.id)
        assert base is not None
        out += [base, t.id]
    return out
