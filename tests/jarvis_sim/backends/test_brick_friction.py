"""Brick friction from its source (issue 28): ABS on ABS slides at 0.2 (jarvis_sim/backends/mujoco/bricks.py cites
BrickFEM's and BrickSim's figure), checked on real MuJoCo contacts: a 2x4 brick stands on an ABS slope below
atan(0.2) = 11.3 deg and slides down one above it."""

from __future__ import annotations

import pytest

from jarvis_sim.backends.mujoco.bricks import ABS_ON_ABS_FRICTION, BRICK_CONTACT
from tests.jarvis_sim.backends.slopes import slide_on_slope

# github.com/mpletz/BrickFEM README: the `mu` of every example assembly (BrickSim: 0.2 per contact point).
BRICKFEM_ABS_MU = 0.2


def test_the_brick_friction_is_the_cited_abs_on_abs_figure() -> None:
    assert ABS_ON_ABS_FRICTION == BRICKFEM_ABS_MU
    assert BRICK_CONTACT.friction[0] == ABS_ON_ABS_FRICTION


def _slide_on_abs_slope(tilt_deg: float) -> float:
    """How far (m) a 2x4 brick set on an ABS slope tilted `tilt_deg` moves down it in 0.5 s."""
    return slide_on_slope(BRICK_CONTACT.friction[0], "3001", tilt_deg)


@pytest.mark.parametrize(("tilt_deg", "slides"), [(8.0, False), (15.0, True)])
def test_a_brick_slides_on_abs_only_past_the_friction_angle(tilt_deg: float, slides: bool) -> None:
    moved = _slide_on_abs_slope(tilt_deg)
    assert (moved > 0.005) == slides, moved
