"""The table's and the finger pads' friction (issue 28): the table's is the coefficient BrickSim's Franka assembly
demo gives its tabletop (jarvis_sim/backends/mujoco/scene.py cites it); the pads' has no source (panda.py says why
BrickSim's pad figure is not taken) and is checked to be the one the Panda's pads carry. On real MuJoCo contacts a LEGO
part set on a slope of either material stands below its friction angle and slides above."""

from __future__ import annotations

import math

import mujoco
import numpy as np
import pytest

from jarvis_sim.backends.mujoco.bricks import BRICK_CONTACT, add_brick_body
from jarvis_sim.backends.mujoco.panda import FINGER_PADS, PAD_FRICTION
from jarvis_sim.backends.mujoco.scene import TABLE_FRICTION, SimConfig, build_scene
from tests.fakes.lego_tasks import stack_task

# github.com/intelligent-control-lab/BrickSim at 49f255a, demos/demo_assembly.py: the tabletop's PhysicsMaterial
# static_friction (dynamic 0.8).
BRICKSIM_TABLETOP_STATIC_FRICTION = 1.0


def test_the_table_friction_is_the_cited_figure_and_the_scene_uses_both_constants() -> None:
    assert TABLE_FRICTION == BRICKSIM_TABLETOP_STATIC_FRICTION
    task = stack_task(1, 1)
    spec, _layout = build_scene(task, SimConfig())
    m = spec.compile()
    assert m.geom("table").friction[0] == TABLE_FRICTION
    assert all(m.geom(pad).friction[0] == PAD_FRICTION for pad in FINGER_PADS)


def _slide_on_slope(friction: float, part: str, tilt_deg: float) -> float:
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


# 5 deg either side of each friction angle (table 45 deg, pads 56.3 deg); on the pad slope a flat 2x4 plate, which
# would tip only past 80 deg, so that what is measured is the slide.
@pytest.mark.parametrize(
    ("surface", "part", "offset_deg", "slides"),
    [("table", "3001", -5.0, False), ("table", "3001", 5.0, True), ("pad", "3020", -5.0, False), ("pad", "3020", 5.0, True)],
)
def test_a_part_slides_on_the_table_and_pads_only_past_their_friction_angle(
    surface: str, part: str, offset_deg: float, slides: bool
) -> None:
    friction = TABLE_FRICTION if surface == "table" else PAD_FRICTION
    moved = _slide_on_slope(friction, part, math.degrees(math.atan(friction)) + offset_deg)
    assert (moved > 0.005) == slides, moved
