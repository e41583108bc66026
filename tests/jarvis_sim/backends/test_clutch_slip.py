"""Slip is not a break (issue 28, item 4): a brick whose connection gave keeps its studs' friction while they are
still in its tubes, and seats again when pressed; on real physics."""

from __future__ import annotations

import pytest

from jarvis_sim.backends.mujoco.backend import MujocoBackend
from jarvis_sim.lego.assembly import make_brick
from jarvis_sim.tasks.spec import ActionBrick, ManualStep, TablePose, TaskSpec

pytestmark = pytest.mark.slow


def _pull_until_it_gives(b: MujocoBackend, body: int, step_n: float) -> float:
    """Ramp a pull straight up by `step_n` a tick until the brick's connection gives; then let go. The pull."""
    for k in range(1, 1000):
        b.data.xfrc_applied[body, 2] = step_n * k
        b.step(1)
        if not b.world_state().by_id()["s001"].connected_to:
            b.data.xfrc_applied[body, 2] = 0.0
            return step_n * k
    raise AssertionError("it never gave")


def test_after_a_slip_a_second_pull_needs_most_of_the_first_and_a_press_reseats_it() -> None:
    base = make_brick("s000", "3007", 1, 2, 4, 0)  # a 2x8 holding 16 studs: only the 2x4 on it gives
    top = make_brick("s001", "3001", 4, 4, 4, 3)  # a 2x4 on a 2x4: 8 studs of 3 contact points, 23.5 N
    spare = make_brick("a00", "3005", 2, 24, 24, 0)
    task = TaskSpec(id="crafted-slip", source_assembly="crafted", baseplate=True, initial=[base, top],
                    action_bricks=[ActionBrick(start=TablePose(x=0.45, y=0.26, yaw=0.0), target=spare)],
                    manual_steps=[ManualStep(index=0, brick_ids=["a00"])], time_budget_s=30.0)
    b = MujocoBackend()
    try:
        b.load(task)
        body = b._body["s001"]
        seat_z = float(b.data.xpos[body][2])
        b._wake_all()
        first = _pull_until_it_gives(b, body, 0.1)
        b.step(10)
        rise = float(b.data.xpos[body][2]) - seat_z
        assert abs(rise) < 0.0005  # it gave, and stays in the studs: their friction holds it
        # A second pull: the brick stays on until the pull beats the studs' friction still engaged.
        held_at = 0.0
        for k in range(1, 1000):
            b.data.xfrc_applied[body, 2] = 0.1 * k
            b.step(1)
            if float(b.data.xpos[body][2]) - seat_z > 0.0017:  # out of the studs
                break
            held_at = 0.1 * k
        b.data.xfrc_applied[body, 2] = 0.0
        assert held_at >= 0.5 * first, (held_at, first)
        # Pushed back down onto the studs with the seating press, it seats again.
        b.step(20)
        start = float(b.data.xpos[body][2])
        assert start - seat_z > 0.0015
        for k in range(1, 31):
            b.data.xfrc_applied[body, 2] = -3.0 * min(1.0, k / 10)
            b.step(1)
        b.data.xfrc_applied[body, 2] = 0.0
        b.step(20)
        assert b.world_state().by_id()["s001"].connected_to == ["s000"]
    finally:
        b.close()
