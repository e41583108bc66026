"""The oracle's build order (agent.agents.oracle.build_order): for the careful oracle, a brick whose seating press
StableLego statics says would break the structure is left out, with what rests on it, and the other steps keep the
manual's order; the plain oracle tries every brick in its step."""

from __future__ import annotations

from pathlib import Path

from agent.agents.oracle import build_order, oracle_program
from jarvis_sim.lego.assembly import make_brick
from jarvis_sim.tasks.spec import ActionBrick, ManualStep, TablePose, TaskSpec


def cantilever_task() -> TaskSpec:
    """On a baseplate, a 1x8 brick held by one stud at the end of a 2x4; step 1 puts a 1x2 on the 1x8's far end, step 2 a 1x2 on
    that, step 3 a 1x2 on the 2x4 itself. (Held by two studs, as this task was before the clutch counted StableLego's
    contact points, the far end now takes its 1 N press: one stud's pry capacity, ~13 mN m, does not.)"""
    initial = [make_brick("s0", "3001", 4, 0, 0, 0), make_brick("s1", "3008", 1, 3, 0, 3)]
    targets = [make_brick("a0", "3004", 2, 9, 0, 6), make_brick("a1", "3004", 14, 9, 0, 9),
               make_brick("a2", "3004", 15, 0, 1, 3)]
    return TaskSpec(
        id="crafted-cantilever", source_assembly="crafted", baseplate=True, initial=initial,
        action_bricks=[ActionBrick(start=TablePose(x=0.40 + 0.05 * k, y=0.24, yaw=0.0), target=t)
                       for k, t in enumerate(targets)],
        manual_steps=[ManualStep(index=k, brick_ids=[t.id]) for k, t in enumerate(targets)], time_budget_s=100.0,
    )


def test_a_press_that_would_break_the_structure_is_left_out_with_what_rests_on_it() -> None:
    task = cantilever_task()
    assert build_order(task, leave_out_unbuildable=True) == [(2, "a2", False), (None, "a0", False),
                                                             (None, "a1", False)]
    program = oracle_program(task, leave_out_unbuildable=True)
    assert "(0, 1, 3, 0), top=" in program and "(9, 0, 6, 0)" not in program and "(9, 0, 9, 0)" not in program
    assert "print('left out: a0 (green (2, 1) at 9, 0, level 6)')" in program
    assert build_order(task) == [(0, "a0", False), (1, "a1", False), (2, "a2", False)]
    assert "(9, 0, 6, 0), top=" in oracle_program(task) and "left out" not in oracle_program(task)


def test_a_brick_pressed_over_the_supporting_stud_keeps_its_step() -> None:
    task = cantilever_task()
    near_end = make_brick("a0", "3004", 2, 3, 0, 6)  # on the 1x8, over its stud on the 2x4
    actions = [task.action_bricks[0].model_copy(update={"target": near_end}), *task.action_bricks[1:]]
    task = task.model_copy(update={"action_bricks": actions, "manual_steps": [
        ManualStep(index=0, brick_ids=["a0"]), ManualStep(index=1, brick_ids=["a2"])]})
    assert build_order(task, leave_out_unbuildable=True) == [(0, "a0", False), (1, "a2", False)]


def test_the_careful_oracle_builds_the_rest_and_says_what_it_left_out(tmp_path: Path) -> None:
    from agent.config import AgentConfig, Budget
    from agent.episodes.job import EpisodeJob
    from agent.episodes.run import run_episode

    job = EpisodeJob(task=cantilever_task().model_dump(mode="json"), task_id="crafted-cantilever",
                     agent=AgentConfig(name="careful_oracle"), budget=Budget(), episode_id="careful")
    record = run_episode(job, tmp_path)
    assert record.status == "done", record.error
    done = {b["target"]: b["complete"] for b in (record.score_details or {})["bricks"]}
    assert done == {"a0": False, "a1": False, "a2": True}
    assert [c.args.get("stud_x") for c in record.rounds[0].skill_calls if c.name == "place_at"] == [0]
    assert "left out: a0" in record.rounds[0].stdout and "left out: a1" in record.rounds[0].stdout


def _task(initial: list, steps: list[list]) -> TaskSpec:
    targets = [b for step in steps for b in step]
    return TaskSpec(
        id="crafted-order", source_assembly="crafted", baseplate=True, initial=initial,
        action_bricks=[ActionBrick(start=TablePose(x=0.40 + 0.05 * k, y=0.24, yaw=0.0), target=t)
                       for k, t in enumerate(targets)],
        manual_steps=[ManualStep(index=k, brick_ids=[b.id for b in step]) for k, step in enumerate(steps)],
        time_budget_s=100.0,
    )


def test_a_brick_that_would_take_a_later_bricks_last_grip_waits_for_it() -> None:
    """A 1x2 between two bricks at its ends keeps one grip (across its width); a 1x1 plate a stud beside it, placed
    first as the manual says, would take that grip too. The oracle places the 1x2 first (its step is later), and
    the plate, which still has a grip across its other side, after it."""
    ends = [make_brick("w", "3005", 1, 3, 4, 0), make_brick("e", "3005", 1, 6, 4, 0)]
    plate, brick = make_brick("p", "3024", 1, 4, 6, 0), make_brick("t", "3004", 1, 4, 4, 0)
    task = _task(ends, [[plate], [brick]])
    assert [(step, bid) for step, bid, _ in build_order(task)] == [(1, "t"), (0, "p")]
    free = _task(ends, [[make_brick("p", "3024", 1, 4, 7, 0)], [brick]])  # a stud further: the manual's order
    assert [(step, bid) for step, bid, _ in build_order(free)] == [(0, "p"), (1, "t")]


def test_a_brick_whose_centre_is_over_its_supports_edge_is_pressed_over_its_studs() -> None:
    """A 2x2 with one column on a 2x4 (its centre over the 2x4's end) turns about that edge when pressed at its
    centre: it is pressed over its engaged studs. One set on the 2x4's middle is pressed at its centre."""
    base = [make_brick("s", "3001", 4, 0, 0, 0)]
    over_edge, middle = make_brick("a", "3003", 1, 3, 0, 3), make_brick("b", "3003", 1, 1, 0, 3)
    assert build_order(_task(base, [[over_edge]])) == [(0, "a", True)]
    assert build_order(_task(base, [[middle]])) == [(0, "b", False)]
