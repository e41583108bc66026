"""The table's and the finger pads' friction (issue 28): the table's is the coefficient BrickSim's Franka assembly
demo gives its tabletop (jarvis_sim/backends/mujoco/scene.py cites it); the pads' has no source (panda.py says why
BrickSim's pad figure is not taken) and is checked to be the one the Panda's pads carry. On real MuJoCo contacts a LEGO
part set on a slope of either material stands below its friction angle and slides above."""

from __future__ import annotations

import math

import pytest

from jarvis_sim.backends.mujoco.panda import FINGER_PADS, PAD_FRICTION
from jarvis_sim.backends.mujoco.scene import TABLE_FRICTION, SimConfig, build_scene
from tests.fakes.lego_tasks import stack_task
from tests.jarvis_sim.backends.slopes import slide_on_slope

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
    moved = slide_on_slope(friction, part, math.degrees(math.atan(friction)) + offset_deg)
    assert (moved > 0.005) == slides, moved
