"""The clutch figures against their sources: StableLego's T per contact point, Funes' measured joint torques,
BrickSim's and APEX-MR's presses."""

from __future__ import annotations

import json
import os
from pathlib import Path

import numpy as np
import pytest

from jarvis_sim.lego import clutch_model as cm
from jarvis_sim.lego import units as u


def _rect(nx: int, ny: int) -> list[tuple[int, int]]:
    return [(i, j) for i in range(nx) for j in range(ny)]


def test_t_is_stablelego_100_gf_per_contact_point() -> None:
    assert pytest.approx(0.980665) == cm.CONTACT_POINT_CLUTCH_N
    raw = os.environ.get("JARVIS_STABLELEGO_ROOT")  # StableLego's files, read in place (never copied into the repo)
    root = Path(raw) if raw else None
    if root is None or not (root / "config.json").exists():
        pytest.skip("StableLego's files not present (set JARVIS_STABLELEGO_ROOT)")
    config = json.loads((root / "config.json").read_text())
    assert pytest.approx(config["T"] / 1000 * config["g"], rel=1e-3) == cm.CONTACT_POINT_CLUTCH_N


@pytest.mark.parametrize(("nx", "ny", "per_stud"), [(1, 1, 4), (1, 2, 4), (1, 8, 4), (2, 2, 3), (2, 4, 3), (4, 2, 3)])
def test_pull_off_per_stud(nx: int, ny: int, per_stud: int) -> None:
    cells = _rect(nx, ny)
    s = cm.connection_strength(cells, cells)
    assert s.contact_points == per_stud * nx * ny
    assert s.pull_n / s.studs == pytest.approx(per_stud * cm.CONTACT_POINT_CLUTCH_N)
    assert 2.0 <= s.pull_n / s.studs <= 4.0


def test_contact_points_are_at_stablelego_offsets_and_symmetric() -> None:
    one = cm.contact_points([(0, 0)], [(0, 0)]) - 0.5
    assert sorted(map(tuple, np.round(one, 3).tolist())) == sorted(cm.NARROW_POINT_OFFSETS)
    cells = _rect(4, 2)
    pts = cm.contact_points(cells, cells)
    assert np.allclose(pts.mean(axis=0), (2.0, 1.0))  # the pattern is symmetric about the brick's centre
    corner = cm.contact_points(cells, [(0, 0)]) - 0.5
    # The single point toward the outer wall (y < 0), two toward the tubes on the centre line.
    assert sorted(map(tuple, np.round(corner, 4).tolist())) == [(-0.125, 0.125), (0.0, -0.25), (0.125, 0.125)]


def test_line_pry_within_1_5x_of_funes() -> None:
    for n, measured in enumerate(cm.FUNES_MIN_JOINT_TORQUE_NM, start=1):
        model = cm.line_pry_capacity_nm(n)
        assert model == pytest.approx(2 * n * n * cm.CONTACT_POINT_CLUTCH_N * u.STUD_PITCH_M)
        assert 1 / 1.5 <= model / measured <= 1.5, (n, model, measured)


def test_pry_takes_the_weaker_edge_and_a_lever() -> None:
    s = cm.connection_strength(_rect(4, 2), _rect(4, 2))
    assert s.pry_y_nm > s.pry_x_nm  # prying across the short side is easier
    # A 1x8 held by one stud pried from its tip, 7 pitches past the engaged stud's edge (Funes: ~0.24 N).
    one = cm.connection_strength([(i, 0) for i in range(8)], [(0, 0)])
    assert 0.5 <= one.pry_y_nm / (7 * u.STUD_PITCH_M) / (cm.FUNES_MIN_JOINT_TORQUE_NM[0] / (7 * u.STUD_PITCH_M)) <= 2


def test_seating_press_is_its_own_figure_below_capacity() -> None:
    assert cm.SEAT_PRESS_N == 1.0 and cm.ROBOT_PRESS_N == 15.0 and cm.ROBOT_PRESS_SUPPORTED_N == 5.0
    weakest = cm.connection_strength([(0, 0), (1, 0), (0, 1), (1, 1)], [(0, 0)])
    assert weakest.pull_n > cm.SEAT_PRESS_N


def test_bad_input_is_named() -> None:
    with pytest.raises(ValueError, match="at least one engaged stud"):
        cm.connection_strength([(0, 0)], [])
    with pytest.raises(ValueError, match="outside the upper brick"):
        cm.connection_strength([(0, 0)], [(3, 3)])
    with pytest.raises(ValueError, match="at least 1 stud wide"):
        cm.points_per_stud(0)


def test_capture_is_the_parts_lead_in_not_a_simulators_tolerance() -> None:
    # LEGO's part geometry (units: 8 mm pitch, 4.8 mm stud, 6.51 mm tube): a stud touches the tube beside it, so
    # a footprint corner off its seat by more than the stud's and tube's rounded edges lands on a rim.
    from jarvis_sim.backends.mujoco.clutch import STUD_LEAD_IN_M

    assert 0.0 <= cm.stud_tube_clearance_m() < 0.00001
    assert cm.stud_tube_clearance_m() < STUD_LEAD_IN_M < 0.002  # well inside BrickSim's 2 mm registration tolerance
