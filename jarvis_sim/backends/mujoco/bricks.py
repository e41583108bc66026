"""LEGO part geometry for MuJoCo: one function turns a catalog part into geoms on an MjSpec body.

Shared by the simulator scene and the manual renderer, so what the robot touches and what a manual
shows are the same shapes. Geometry comes from `jarvis_sim.lego.catalog.primitives` (LEGO's published
dimensions), colour from `jarvis_sim.lego.colors`, contact settings from what a prototype measured
(see shared/notes/mujoco-lego.md).

Geom groups (MuJoCo's visibility groups, used by the renderers):
- 0: collision and visual (studs of a detailed brick, the box of a cheap one),
- 2: visual only (the body box of a detailed brick, studs of a cheap one; they never collide),
- 3: collision only, never drawn (top slab, walls and tubes of a detailed brick, hidden inside the box).
Render groups 0-2 to see a brick as it looks (body box plus studs).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import mujoco
import numpy as np

from jarvis_sim.lego import units as u
from jarvis_sim.lego.catalog import Part, part, primitives
from jarvis_sim.lego.colors import color

Detail = Literal["full", "shell", "body"]
"""`full`: top, walls, studs and tubes collide (every primitive of the part).
`shell`: top, walls, studs and a thin floor collide, tubes do not (the simulator's bricks). The floor (named
FLOOR_SUFFIX, spanning the underside between the walls) stands for what stops a loose brick on the stud tops
of what it lands on: the tubes' interference fit, which only a press overcomes (clutch.py). Seated bricks are
held by clutch welds and do not collide with each other (collision_groups.py), so the floor never overlaps
the studs a brick is seated on; the backend switches a brick's floor off while studs are still inside its
underside after its connection broke. (One slab over all studs would be cheaper than the studs, but the wall
of a brick seated in running bond stands in the gap between two stud columns of the brick below.)
`body`: one box collides, studs are drawn only (manual renders)."""

FLOOR_SUFFIX = "/floor"
GROUP_SOLID = 0
GROUP_VISUAL = 2
GROUP_COLLISION = 3


# Sliding friction of ABS on ABS, LEGO's brick material: 0.2, the coefficient both LEGO simulators that model the
# studs' contact use: BrickFEM (M. Pletz, github.com/mpletz/BrickFEM, README: every example assembly's `mu`, the
# Abaqus penalty contact between the bricks, its 1x1 pull-off case the one to calibrate mu against measured forces)
# and BrickSim (arXiv:2603.16853: effective friction 0.2 at each stud contact point). MuJoCo takes the larger of two
# geoms' coefficients: a brick on a brick or on the (ABS) baseplate slides at this; on the table and between the
# finger pads, at theirs (scene.py, panda.py).
ABS_ON_ABS_FRICTION = 0.2


@dataclass(frozen=True)
class BrickContact:
    """Contact parameters of brick geoms (MuJoCo solref / solimp / friction / condim / margin)."""

    solref: tuple[float, float] = (0.004, 1.0)  # time constant >= 2x the 1-2 ms timestep, critical damping
    solimp: tuple[float, float, float, float, float] = (0.95, 0.99, 0.0005, 0.5, 2.0)
    friction: tuple[float, float, float] = (ABS_ON_ABS_FRICTION, 0.005, 1e-4)
    condim: int = 4  # torsional friction keeps a brick from spinning between the fingers
    margin: float = 0.0


BRICK_CONTACT = BrickContact()


def part_rgba(color_code: int, alpha: float = 1.0) -> tuple[float, float, float, float]:
    """RGBA in [0, 1] of an LDraw colour code."""
    r, g, b = color(color_code).rgb_float
    return (r, g, b, alpha)


def _box_inertia(mass: float, size: Sequence[float]) -> tuple[float, float, float]:
    sx, sy, sz = size
    return (
        mass * (sy * sy + sz * sz) / 12.0,
        mass * (sx * sx + sz * sz) / 12.0,
        mass * (sx * sx + sy * sy) / 12.0,
    )


def set_part_inertia(body: mujoco.MjsBody, p: Part) -> None:
    """Give the body the part's real mass, with the inertia of its bounding box (good enough for a brick)."""
    sx, sy, h = p.size_m
    mass = p.mass_kg
    body.explicitinertial = True
    body.mass = mass
    body.ipos = [0.0, 0.0, h / 2]
    body.iquat = [1.0, 0.0, 0.0, 0.0]
    body.inertia = list(_box_inertia(mass, (sx, sy, h)))


def _collide(g: mujoco.MjsGeom, contact: BrickContact) -> None:
    g.contype = 1
    g.conaffinity = 1
    g.solref = list(contact.solref)
    g.solimp = list(contact.solimp)
    g.friction = list(contact.friction)
    g.condim = contact.condim
    g.margin = contact.margin


def add_part_geoms(
    body: mujoco.MjsBody,
    part_number: str,
    color_code: int,
    *,
    detail: Detail = "full",
    collide: bool = True,
    rgba: Sequence[float] | None = None,
    contact: BrickContact = BRICK_CONTACT,
    set_mass: bool = True,
    pos: Sequence[float] = (0.0, 0.0, 0.0),
    quat: Sequence[float] = (1.0, 0.0, 0.0, 0.0),
) -> list[mujoco.MjsGeom]:
    """Add a catalog part's geoms to `body` (part frame = body frame, shifted by pos/quat); return them.

    The part frame has its origin at the centre of the bottom face, z up. `collide=False` makes every
    geom visual only (manual renders, ghost targets). `rgba` overrides the LDraw colour (highlights).
    """
    if detail not in ("full", "shell", "body"):
        raise ValueError(f"add_part_geoms: detail must be 'full', 'shell' or 'body', got {detail!r}")
    p = part(part_number)
    colour = tuple(rgba) if rgba is not None else part_rgba(color_code)
    if len(colour) != 4:
        raise ValueError(f"add_part_geoms: rgba must have 4 values, got {rgba!r}")
    offset_q = np.asarray(quat, dtype=float)
    offset_p = np.asarray(pos, dtype=float)
    rot_flat = np.zeros(9)
    mujoco.mju_quat2Mat(rot_flat, offset_q)
    rot = rot_flat.reshape(3, 3)

    geoms: list[mujoco.MjsGeom] = []
    for prim in primitives(p):
        # What renders: the body box and the studs. What collides: the box ("body" detail), or the top,
        # walls, tubes and studs ("full"); the hidden underside never renders, which halves draw time.
        if detail == "body":
            if prim.role not in ("body", "stud"):
                continue
            solid = prim.role == "body"
            visible = True
        elif detail == "shell":
            if prim.role == "tube":
                continue
            solid = prim.role != "body"
            visible = prim.role in ("body", "stud")
        else:
            solid = prim.role != "body"
            visible = prim.role in ("body", "stud")
        if not visible and not (solid and collide):
            continue
        g = body.add_geom()
        geoms.append(g)
        if prim.shape == "box":
            g.type = mujoco.mjtGeom.mjGEOM_BOX
            g.size = list(prim.size)
        else:
            g.type = mujoco.mjtGeom.mjGEOM_CYLINDER
            g.size = [prim.size[0], prim.size[1], 0.0]
        g.pos = list(offset_p + rot @ np.asarray(prim.pos))
        g.quat = list(offset_q)
        g.rgba = list(colour)
        g.mass = 0.0
        g.density = 0.0
        if solid and collide:
            g.group = GROUP_SOLID if visible else GROUP_COLLISION
            _collide(g, contact)
        else:
            g.group = GROUP_VISUAL
            g.contype = 0
            g.conaffinity = 0
    if detail == "shell" and collide and p.kind != "baseplate":
        w = u.WALL_THICKNESS_M
        sx, sy, h = p.size_m
        # As thick as the studs it takes are high (within the hollow): a brick dropped from 20 mm moves 1.3 mm per
        # 2 ms step, and a thinner floor let it tunnel through the stud tops.
        half_t = min(u.STUD_HEIGHT_M, h - u.TOP_THICKNESS_M) / 2
        g = body.add_geom()
        g.name = f"{body.name}{FLOOR_SUFFIX}"
        g.type = mujoco.mjtGeom.mjGEOM_BOX
        g.size = [sx / 2 - w, sy / 2 - w, half_t]
        g.pos = list(offset_p + rot @ np.array([0.0, 0.0, half_t]))
        g.quat = list(offset_q)
        g.rgba = list(colour)
        g.mass = 0.0
        g.density = 0.0
        g.group = GROUP_COLLISION
        _collide(g, contact)
        geoms.append(g)
    if set_mass:
        set_part_inertia(body, p)
    return geoms


def add_brick_body(
    parent: mujoco.MjsBody,
    name: str,
    part_number: str,
    color_code: int,
    position: Sequence[float],
    quaternion: Sequence[float],
    *,
    free: bool,
    detail: Detail = "full",
    collide: bool = True,
    rgba: Sequence[float] | None = None,
    contact: BrickContact = BRICK_CONTACT,
) -> mujoco.MjsBody:
    """A body named `name` carrying the part, posed at its bottom-face centre; `free` adds a free joint."""
    body = parent.add_body()
    body.name = name
    body.pos = list(position)
    body.quat = list(quaternion)
    if free:
        j = body.add_freejoint()
        j.name = f"{name}/free"
    add_part_geoms(body, part_number, color_code, detail=detail, collide=collide, rgba=rgba, contact=contact,
                   set_mass=free)
    return body
