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
