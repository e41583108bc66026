"""A LEGO part on a tilted slab of a given friction, on real MuJoCo contacts: the friction tests' probe."""

from __future__ import annotations

import math

import mujoco
import numpy as np

from jarvis_sim.backends.mujoco.bricks import BRICK_CONTACT, add_brick_body


def slide_on_slope(friction: float, part: str, tilt_deg: float) -> float:
    """How far (m) an ABS part set on a slope of coefficient `friction`, tilted `tilt_deg`, moves in 0.5 s."""
    spec = mujoco.MjSpec()
    spec.option.timestep = 0.002
    spec.option.integrator = mujoco.mjtIntegrator.mjINT_IMPLICITFAST
    spec.option.cone = mujoco.mjtCone.mjCONE_ELLIPTIC
    a = math.radians(tilt_deg)
    quat = [math.cos(a / 2), 0.0, math.sin(a / 2), 0.0]  # about y: the slope falls along -x (a part's long side)
    slab = spec.worldbody.add_geom()
    slab.type = mujoco.mjtGeom.mjGEOM_BOX
    slab.size = [0.1, 0.1, 0.005]
    slab.quat = quat
    slab.pos = [-0.005 * math.sin(a), 0.0, -0.005 * math.cos(a)]  # its top face through the origin, where the part sits
    slab.friction = [friction, 0.005, 1e-4]  # the larger of the two geoms' coefficients is the contact's
    slab.condim = BRICK_CONTACT.condim
    slab.solref = list(BRICK_CONTACT.solref)
    slab.solimp = list(BRICK_CONTACT.solimp)
    add_brick_body(spec.worldbody, "b", part, 4, (0.0, 0.0, 0.0), quat, free=True, detail="shell")
    m = spec.compile()
    d = mujoco.MjData(m)
    mujoco.mj_forward(m, d)
    body = m.body("b").id
    start = d.xpos[body].copy()
    mujoco.mj_step(m, d, round(0.5 / m.opt.timestep))
    return float(np.linalg.norm(d.xpos[body] - start))
