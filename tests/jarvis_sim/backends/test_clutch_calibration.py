"""The MuJoCo clutch against its sources, on real physics: pull-off per stud (StableLego's T per contact point,
jarvis_sim/lego/clutch_model.py) and first-break forces against the estimates from Funes' measured joint torques
(P. Funes, Brandeis PhD thesis 2001, table 2.1; the estimates are issue 28's: the torque over the lever of the
probe). Loads are applied with `data.xfrc_applied`, ramped, and the first tick a connection is gone is read."""

from __future__ import annotations

import numpy as np
import pytest

from jarvis_sim.backends.mujoco.backend import MujocoBackend
from jarvis_sim.lego import units as u
from jarvis_sim.lego.assembly import LatticeBrick, make_brick
from jarvis_sim.tasks.spec import ActionBrick, ManualStep, TablePose, TaskSpec

pytestmark = pytest.mark.slow


def _task(initial: list[LatticeBrick], name: str) -> TaskSpec:
    spare = make_brick("a00", "3005", 2, 24, 24, 0)  # a task needs one action brick: a 1x1 far from the structure
    return TaskSpec(id=f"crafted-{name}", source_assembly="crafted", baseplate=True, initial=initial,
                    action_bricks=[ActionBrick(start=TablePose(x=0.45, y=0.26, yaw=0.0), target=spare)],
                    manual_steps=[ManualStep(index=0, brick_ids=["a00"])], time_budget_s=30.0)


def _first_break(initial: list[LatticeBrick], brick_id: str, point_local: tuple[float, float, float],
                 direction: tuple[float, float, float], expected_n: float) -> float:
    """Ramp a force along `direction` on `brick_id` at `point_local` (m, from its bottom-face centre, world axes),
    by 1% of `expected_n` a tick, until any connection of the structure breaks; the force of that tick."""
    b = MujocoBackend()
    try:
        b.load(_task(initial, brick_id))
        links = set(b.clutch.links)
        body = b._body[brick_id]
        unit = np.asarray(direction, dtype=float) / np.linalg.norm(direction)
        b._wake_all()
        for k in range(1, 400):
            f = unit * expected_n * 0.01 * k
            at = b.data.xpos[body] + np.asarray(point_local)
            b.data.xfrc_applied[body, :3] = f
            b.data.xfrc_applied[body, 3:] = np.cross(at - b.data.xipos[body], f)
            b.step(1)
            if b.clutch.links != links:
                return float(np.linalg.norm(f))
        raise AssertionError(f"nothing broke under {4 * expected_n:.2f} N")
    finally:
        b.close()


@pytest.mark.parametrize(("part_number", "studs"), [("3005", 1), ("3004", 2), ("3003", 4), ("3001", 8)])
def test_pull_off_per_stud_is_two_to_four_newtons(part_number: str, studs: int) -> None:
    brick = make_brick("s000", part_number, 1, 4, 4, 0)
    force = _first_break([brick], "s000", (0.0, 0.0, 0.0048), (0.0, 0.0, 1.0), 3.0 * studs)
    assert 2.0 <= force / studs <= 4.0, force


H = u.BRICK_PLATES * u.PLATE_HEIGHT_M


@pytest.mark.parametrize(("across", "funes_n"), [(True, 17.0), (False, 27.0)])
def test_a_2x4_on_a_2x4_pried_off_its_baseplate(across: bool, funes_n: float) -> None:
    stack = [make_brick("s000", "3001", 1, 4, 4, 0), make_brick("s001", "3001", 4, 4, 4, 3)]
    direction = (0.0, 1.0, 0.0) if across else (1.0, 0.0, 0.0)  # the 2x4 lies along x
    force = _first_break(stack, "s001", (0.0, 0.0, H), direction, funes_n)
    assert 0.5 <= force / funes_n <= 2.0, force


def test_a_2x4_pushed_off_a_plate() -> None:
    plate = make_brick("s000", "3034", 1, 4, 4, 0)  # a 2x8 plate on the baseplate, a 2x4 on its middle
    brick = make_brick("s001", "3001", 4, 6, 4, 1)
    force = _first_break([plate, brick], "s001", (0.0, 0.0, H), (1.0, 0.0, 0.0), 51.0)
    assert 0.5 <= force / 51.0 <= 2.0, force


def test_a_ten_high_1x1_tower_toppled_at_its_top() -> None:
    tower = [make_brick(f"s{k:03d}", "3005", 1, 4, 4, 3 * k) for k in range(10)]
    force = _first_break(tower, "s009", (0.0, 0.0, H), (1.0, 0.0, 0.0), 0.14)
    assert 0.5 <= force / 0.14 <= 2.0, force


def test_a_1x8_plate_on_one_stud_broken_at_its_tip() -> None:
    post = make_brick("s000", "3005", 1, 4, 4, 0)  # a 1x1 brick on the baseplate holds the plate's first stud
    plate = make_brick("s001", "3460", 4, 4, 4, 3)  # a 1x8 plate along x, over the baseplate's bare studs
    tip = (3.5 * u.STUD_PITCH_M, 0.0, u.PLATE_HEIGHT_M)
    force = _first_break([post, plate], "s001", tip, (0.0, 0.0, -1.0), 0.24)
    assert 0.5 <= force / 0.24 <= 2.0, force
