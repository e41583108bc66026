"""Brick friction from its source (issue 28): ABS on ABS slides at 0.2 (jarvis_sim/backends/mujoco/bricks.py cites
BrickFEM's and BrickSim's figure), checked on real MuJoCo contacts: a 2x4 brick stands on an ABS slope below
atan(0.2) = 11.3 deg and slides down one above it."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from jarvis_sim.backends.mujoco.bricks import ABS_ON_ABS_FRICTION, BRICK_CONTACT, add_brick_body

# github.com/mpletz/BrickFEM README: the `mu` of every example assembly (BrickSim: 0.2 per contact point).
BRICKFEM_ABS_MU = 0.2


def test_the_brick_friction_is_the_cited_abs_on_abs_figure() -> None:
    assert ABS_ON_ABS_FRICTION == BRICKFEM_ABS_MU
    assert BRICK_CONTACT.friction[0] == ABS_ON_ABS_FRICTION


def _slide_on_abs_slope(tilt_deg: float) -> float:
    """How far (m) a 2x4 brick set on an ABS slope tilted `tilt_deg` moves down it in 0.5 s."""
    spec = mujoco.MjSpec()
    spec.option.timestep = 0.002
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    spec.option.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    a = math.radians(tilt_deg)
    quat = [math.cos(a / 2), 0.0, math.sin(a / 2), 0.0]  # about y: the slope falls along -x
    slab = spec.worldbody.add_geom()
    slab.type = mujoco.mjtGeom.mjGEOM_BOX
    slab.size = [0.1, 0.1, 0.005]
    slab.quat = quat
    slab.pos = [0.0, 0.0, -0.005]
    slab.friction = list(BRICK_CONTACT.friction)  # ABS, as a baseplate
    slab.condim = BRICK_CONTACT.condim
    slab.solref = list(BRICK_CONTACT.solref)
    slab.solimp = list(BRICK_CONTACT.solimp)
    add_brick_body(spec.worldbody, "b", "3001", 4, (0.0, 0.0, 0.0), quat, free=True, detail="shell")
    m = spec.compile()
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    body = m.body("b").id
    start = d.xpos[body].copy()
    mujoco.mj_step(m, d, round(0.5 / m.opt.timestep))
    return float(np.linalg.norm(d.xpos[body] - start))


@pytest.mark.parametrize(("tilt_deg", "slides"), [(8.0, False), (15.0, True)])
def test_a_brick_slides_on_abs_only_past_the_friction_angle(tilt_deg: float, slides: bool) -> None:
    moved = _slide_on_abs_slope(tilt_deg)
    assert (moved > 0.005) == slides, moved
