"""StableLego-style admissibility (jarvis_sim/lego/statics.py): real parts on the lattice, no simulator."""

from __future__ import annotations

import numpy as np
import pytest

from jarvis_sim.backends.mujoco.clutch import STUD_CLUTCH_N, capacity_of
from jarvis_sim.lego import units as u
from jarvis_sim.lego.assembly import Assembly, make_brick
from jarvis_sim.lego.statics import (
    GROUND,
    admissible,
    assembly_joints,
    engaged_centre,
    gravity_loads,
    joint_on_cells,
    press_admissible,
)

ORIGIN = (0.0, 0.0, 0.0)
T = STUD_CLUTCH_N


def _on_ground(f: tuple[float, float, float], m: tuple[float, float, float], cells: list[tuple[int, int]]) -> bool:
    """One brick on the baseplate loaded with force f and moment m about its engaged centre."""
    joint = joint_on_cells(0, GROUND, cells, ORIGIN, 0.0)
    return admissible([joint], np.array([[*f, *m]]), joint.centre, T)


@pytest.mark.parametrize("scale, holds", [(0.99, True), (1.01, False)])
def test_one_connection_holds_exactly_the_calibrated_pull_and_prying_moments(scale: float, holds: bool) -> None:
    """A 2x4 on the baseplate: the programme's limits are clutch.capacity_of's (eight studs of pull, the lever sums)."""
    cells = [(x, y) for x in range(4) for y in range(2)]
    cap = capacity_of(cells, ORIGIN, 0.0)
    assert _on_ground((0.0, 0.0, scale * cap.pull_n), (0.0, 0.0, 0.0), cells) is holds
    assert _on_ground((0.0, 0.0, 0.0), (scale * cap.moment_x_nm, 0.0, 0.0), cells) is holds
    assert _on_ground((0.0, 0.0, 0.0), (0.0, -scale * cap.moment_y_nm, 0.0), cells) is holds


def test_shear_and_compression_never_break_a_connection() -> None:
    cells = [(0, 0)]
    assert _on_ground((50.0, -50.0, -100.0), (0.0, 0.0, 1.0), cells)


def test_a_bridge_carries_a_pull_that_no_single_support_could() -> None:
    """A 1x6 bridging two 1x1 pillars, one stud on each: a pull of 1.5 T at its middle is more than either
    connection holds alone (a weld network that put it all on one would read 1.5x capacity) but the two share it;
    2.5 T is more than both."""
    bricks = [make_brick("a", "3005", 15, 0, 0, 0), make_brick("b", "3005", 15, 5, 0, 0),
              make_brick("top", "3009", 1, 0, 0, 3)]
    asm = Assembly(bricks, baseplate=True)
    joints = assembly_joints(asm, ORIGIN, baseplate=True)
    assert sorted((j.upper, j.lower, len(j.studs)) for j in joints) == [(0, GROUND, 1), (1, GROUND, 1), (2, 0, 1), (2, 1, 1)]
    centre = np.mean([j.centre for j in joints], axis=0)
    middle = np.array([3 * u.STUD_PITCH_M, 0.5 * u.STUD_PITCH_M, 0.0])

    def pulled(n: float) -> bool:
        loads = np.zeros((3, 6))
        f = np.array([0.0, 0.0, n])
        loads[2, :3], loads[2, 3:] = f, np.cross(middle - centre, f)
        return admissible(joints, loads, centre, T)

    assert pulled(1.5 * T)
    assert not pulled(2.5 * T)


def test_a_brick_hanging_from_one_stud_takes_its_press_only_over_that_stud() -> None:
    """A 1x4 seated by one stud on the end of a 1x6: pressed at its middle with the one stud's seating force it
    pries that stud out; pressed over the stud it pushes straight into the 1x6 (what a careful robot does)."""
    asm = Assembly([make_brick("base", "3009", 4, 0, 0, 0), make_brick("arm", "3010", 1, 5, 0, 3)], baseplate=True)
    assert asm.supports("arm") == ["base"]
    assert not press_admissible(asm, "arm", T, ORIGIN, True, T)
    at = engaged_centre(asm, "arm", ORIGIN)
    assert at == pytest.approx((5.5 * u.STUD_PITCH_M, 0.5 * u.STUD_PITCH_M))
    assert press_admissible(asm, "arm", T, ORIGIN, True, T, at=at)
    assert press_admissible(asm, "arm", 0.0, ORIGIN, True, T)  # its own weight it carries


def test_on_a_bare_table_a_brick_can_be_pushed_down_but_not_held_down() -> None:
    asm = Assembly([make_brick("a", "3001", 4, 0, 0, 0)], baseplate=False)
    joints = assembly_joints(asm, ORIGIN, baseplate=False)
    assert len(joints[0].studs) == 0
    centre = joints[0].centre
    assert admissible(joints, gravity_loads(list(asm), ORIGIN, centre), centre, T)
    assert not admissible(joints, np.array([[0.0, 0.0, 0.01, 0.0, 0.0, 0.0]]), centre, T)


def test_a_joint_needs_cells() -> None:
    with pytest.raises(ValueError, match="at least one cell"):
        joint_on_cells(0, GROUND, [], ORIGIN, 0.0)
