"""StableLego-style admissibility (jarvis_sim/lego/statics.py): real parts on the lattice, no simulator."""

from __future__ import annotations

import numpy as np
import pytest

from jarvis_sim.lego import clutch_model as cm
from jarvis_sim.lego import units as u
from jarvis_sim.lego.assembly import Assembly, make_brick
from jarvis_sim.lego.statics import (
    GROUND,
    admissible,
    assembly_joints,
    engaged_centre,
    gravity_loads,
    joint_on_cells,
    side_contacts,
    stands,
)

ORIGIN = (0.0, 0.0, 0.0)
T = cm.CONTACT_POINT_CLUTCH_N
P = u.STUD_PITCH_M


def _rect(nx: int, ny: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(nx) for j in range(ny)]


def _on_ground(f: tuple[float, float, float], m: tuple[float, float, float], cells: list[tuple[int, int]],
               bear_on_points: bool = True) -> bool:
    """One brick on the baseplate loaded with force f and moment m about its engaged centre."""
    joint = joint_on_cells(0, GROUND, cells, ORIGIN, 0.0, footprint=cells, bear_on_points=bear_on_points)
    return admissible([joint], np.array([[*f, *m]]), joint.centre, T)


@pytest.mark.parametrize("scale, holds", [(0.99, True), (1.01, False)])
@pytest.mark.parametrize("nx, ny", [(1, 1), (2, 1), (4, 2), (2, 2)])
def test_a_straight_pull_takes_every_contact_point(nx: int, ny: int, scale: float, holds: bool) -> None:
    """Pull-off = T per contact point, 4 a stud under a 1-wide brick, 3 under a wider one (clutch_model)."""
    cells = _rect(nx, ny)
    pull = cm.connection_strength(cells, cells).pull_n
    assert pull == pytest.approx(len(cells) * cm.points_per_stud(min(nx, ny)) * T)
    assert _on_ground((0.0, 0.0, scale * pull), (0.0, 0.0, 0.0), cells) is holds


@pytest.mark.parametrize("scale, holds", [(0.99, True), (1.01, False)])
@pytest.mark.parametrize("n", [1, 2, 3, 6])
def test_prying_a_line_of_studs_pivots_on_the_outermost_contact_point(n: int, scale: float, holds: bool) -> None:
    """StableLego's support bears where its points are: n studs in a line under a 1-wide brick pry off at
    (2 n^2 - n) T p (each stud's four points at 1/4 pitch around it, the pivot the last point), against the rim
    lever's 2 n^2 T p (clutch_model.line_pry_capacity_nm), which the statics uses with bear_on_points=False."""
    cells = _rect(n, 1)
    points = (2 * n * n - n) * T * P
    assert _on_ground((0.0, 0.0, 0.0), (0.0, -scale * points, 0.0), cells) is holds
    rim = cm.line_pry_capacity_nm(n)
    assert _on_ground((0.0, 0.0, 0.0), (0.0, -scale * rim, 0.0), cells, bear_on_points=False) is holds


def test_shear_and_compression_never_break_a_connection() -> None:
    cells = [(0, 0)]
    assert _on_ground((50.0, -50.0, -100.0), (0.0, 0.0, 1.0), cells)


def test_a_bridge_carries_a_pull_that_no_single_support_could() -> None:
    """A 1x6 bridging two 1x1 pillars, one stud on each (4 points, 4 T each): a pull of 6 T at its middle is more
    than either connection holds alone but the two share it; 9 T is more than both."""
    bricks = [make_brick("a", "3005", 15, 0, 0, 0), make_brick("b", "3005", 15, 5, 0, 0),
              make_brick("top", "3009", 1, 0, 0, 3)]
    asm = Assembly(bricks, baseplate=True)
    joints = assembly_joints(asm, ORIGIN, baseplate=True)
    assert sorted((j.upper, j.lower, len(j.points)) for j in joints) == [(0, GROUND, 4), (1, GROUND, 4), (2, 0, 4),
                                                                          (2, 1, 4)]
    centre = np.mean([j.centre for j in joints], axis=0)
    middle = np.array([3 * P, 0.5 * P, 0.0])

    def pulled(n: float) -> bool:
        loads = np.zeros((3, 6))
        f = np.array([0.0, 0.0, n])
        loads[2, :3], loads[2, 3:] = f, np.cross(middle - centre, f)
        return admissible(joints, loads, centre, T)

    assert pulled(6 * T)
    assert not pulled(9 * T)


def test_weight_counts_a_heavy_cantilever_falls() -> None:
    """A 1x8 brick held by one stud at its end (4 points): its own weight stands; a stack of 2x8 bricks on its far
    end, 2.5x more than the stud's prying capacity, does not."""
    base = make_brick("base", "3005", 4, 0, 0, 0)
    arm = make_brick("arm", "3008", 4, 0, 0, 3)
    assert stands(Assembly([base, arm], baseplate=True), ORIGIN, True)
    load = [make_brick(f"w{k}", "3007", 1, 6, 0, 6 + 3 * k, yaw=1) for k in range(16)]
    assert not stands(Assembly([base, arm, *load], baseplate=True), ORIGIN, True)


def test_abutting_bricks_push_on_each_other_across_their_shared_face() -> None:
    """Two 1x2 side by side on a level share one face (compression only, at mid height of their common levels)."""
    a, b = make_brick("a", "3004", 1, 0, 0, 0), make_brick("b", "3004", 1, 2, 0, 0)
    (s,) = side_contacts([a, b], ORIGIN)
    assert (s.a, s.b) == (0, 1) and np.allclose(s.normal, (1.0, 0.0, 0.0))
    assert np.allclose(s.ends, [(2 * P, 0.0, 1.5 * u.PLATE_HEIGHT_M), (2 * P, P, 1.5 * u.PLATE_HEIGHT_M)])
    assert side_contacts([a, make_brick("c", "3004", 1, 3, 0, 0)], ORIGIN) == []  # a stud apart: no contact


def test_engaged_centre_is_over_the_studs_taken() -> None:
    asm = Assembly([make_brick("base", "3009", 4, 0, 0, 0), make_brick("arm", "3010", 1, 5, 0, 3)], baseplate=True)
    assert asm.supports("arm") == ["base"]
    assert engaged_centre(asm, "arm", ORIGIN) == pytest.approx((5.5 * P, 0.5 * P))


def test_on_a_bare_table_a_brick_can_be_pushed_down_but_not_held_down() -> None:
    asm = Assembly([make_brick("a", "3001", 4, 0, 0, 0)], baseplate=False)
    joints = assembly_joints(asm, ORIGIN, baseplate=False)
    assert len(joints[0].points) == 0
    centre = joints[0].centre
    assert admissible(joints, gravity_loads(list(asm), ORIGIN, centre), centre, T)
    assert not admissible(joints, np.array([[0.0, 0.0, 0.01, 0.0, 0.0, 0.0]]), centre, T)


def test_a_joint_needs_cells() -> None:
    with pytest.raises(ValueError, match="at least one cell"):
        joint_on_cells(0, GROUND, [], ORIGIN, 0.0)


def test_a_repeated_programme_gets_the_verdict_its_solve_gave() -> None:
    """admissible remembers verdicts by a digest of the programme's exact input: the same question answers as the
    solver did, and a question differing in one load (or in the capacity) is solved again."""
    from jarvis_sim.lego import statics

    cells = _rect(2, 2)
    joint = joint_on_cells(0, GROUND, cells, ORIGIN, 0.0, footprint=cells)
    near = 12 * T  # a straight pull on 4 studs x 3 points holds up to 12 T
    for pull, point_n in ((0.99 * near, T), (1.01 * near, T), (1.01 * near, 1.02 * T)):
        loads = np.array([[0.0, 0.0, pull, 0.0, 0.0, 0.0]])
        solved = statics._solve([joint], loads, joint.centre, point_n, ())
        assert admissible([joint], loads, joint.centre, point_n) is solved
        assert admissible([joint], loads, joint.centre, point_n) is solved  # from the remembered verdict
        key = statics._programme_digest([joint], loads, joint.centre, point_n, ())
        assert statics._VERDICTS[key] is solved
    assert [statics._VERDICTS[statics._programme_digest([joint], np.array([[0.0, 0.0, p, 0.0, 0.0, 0.0]]),
                                                        joint.centre, n, ())]
            for p, n in ((0.99 * near, T), (1.01 * near, T), (1.01 * near, 1.02 * T))] == [True, False, True]
