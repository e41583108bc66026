"""Every catalog part (and a part read from an LDraw library) becomes a MuJoCo body with mass and collision."""

from __future__ import annotations

import mujoco
import pytest

from jarvis_sim.backends.mujoco.bricks import add_brick_body
from jarvis_sim.lego.catalog import PARTS, Part


def _compiled(p: Part) -> tuple[mujoco.MjModel, int]:
    spec = mujoco.MjSpec()
    add_brick_body(spec.worldbody, "b", p.number, 4, (0.0, 0.0, 0.1), (1.0, 0.0, 0.0, 0.0),
                   free=p.kind != "baseplate", detail="full")
    model = spec.compile()
    return model, model.body("b").id


@pytest.mark.parametrize("number", sorted(PARTS))
def test_part_builds_with_mass_and_collision(number: str) -> None:
    p = PARTS[number]
    model, body = _compiled(p)
    solid = [g for g in range(model.ngeom) if model.geom_bodyid[g] == body and model.geom_contype[g]]
    studs = [g for g in solid if model.geom_type[g] == mujoco.mjtGeom.mjGEOM_CYLINDER
             and model.geom_pos[g][2] > p.height_m]
    assert solid, f"{number}: nothing collides"
    assert len(studs) == p.width * p.depth * p.studded
    if p.kind != "baseplate":
        # Real masses: a 2x4 brick is 2.3 g, a 1x1 plate a fraction of a gram; nothing massless or a kilogram.
        assert 0.0001 < model.body_mass[body] < 0.1
        assert model.body_mass[body] == pytest.approx(p.mass_kg)
