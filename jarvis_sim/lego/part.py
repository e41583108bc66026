"""What one catalog part is: its kind, stud footprint, height, and the primitives of its shape.

Kept apart from the catalog's table (jarvis_sim.lego.catalog) so that the user's LDraw library, which
describes parts the table lacks, can build a `Part` without importing the table that consults it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Literal

from jarvis_sim.lego import units as u

PartKind = Literal["brick", "plate", "tile", "baseplate"]


@dataclass(frozen=True)
class Primitive:
    """A box (half extents) or a cylinder (radius, half height) in the part frame, metres."""

    shape: Literal["box", "cylinder"]
    size: tuple[float, float, float]  # box: half extents; cylinder: (radius, half height, 0)
    pos: tuple[float, float, float]
    role: Literal["body", "wall", "top", "stud", "tube"]


@dataclass(frozen=True)
class Part:
    """A catalog part: footprint `width` x `depth` studs along its local x and y, `height` in plates.

    The part frame has its origin at the centre of the footprint on the bottom face, z up.
    """

    number: str
    name: str
    kind: PartKind
    width: int
    depth: int
    height: int  # plates; a brick is 3

    @property
    def height_m(self) -> float:
        """Body height without studs, metres."""
        if self.kind == "baseplate":
            return 4 * u.LDU_M  # baseplates are 4 LDU thick, below the lattice's level 0
        return self.height * u.PLATE_HEIGHT_M

    @property
    def size_m(self) -> tuple[float, float, float]:
        """Real body size (x, y, z) in metres: n * pitch minus the fit gap, and the body height."""
        return (
            self.width * u.STUD_PITCH_M - u.FIT_GAP_M,
            self.depth * u.STUD_PITCH_M - u.FIT_GAP_M,
            self.height_m,
        )

    @property
    def symmetry(self) -> int:
        """Order of rotational symmetry about z among 90-degree steps: 4 for square, 2 otherwise."""
        return 4 if self.width == self.depth else 2

    @property
    def studded(self) -> bool:
        """True when the top carries studs (a tile's smooth top holds nothing)."""
        return self.kind != "tile"

    @property
    def stud_cells(self) -> tuple[tuple[int, int], ...]:
        """Stud cells (i, j) in the part's own lattice, i < width, j < depth (none on a tile)."""
        if not self.studded:
            return ()
        return tuple((i, j) for i in range(self.width) for j in range(self.depth))

    def stud_positions_m(self) -> list[tuple[float, float, float]]:
        """Stud centres on the top face, part frame, metres."""
        p = u.STUD_PITCH_M
        return [
            ((i + 0.5) * p - self.width * p / 2, (j + 0.5) * p - self.depth * p / 2, self.height_m)
            for i, j in self.stud_cells
        ]

    @property
    def volume_m3(self) -> float:
        """Material volume, from the primitives (for the mass)."""
        return _volume_m3(self)

    @property
    def mass_kg(self) -> float:
        """Mass of the ABS part (a 2x4 brick is about 2.3 g)."""
        return self.volume_m3 * u.ABS_DENSITY_KG_M3


@cache
def _volume_m3(p: Part) -> float:
    """A part's material volume (computed once a part: the statics weigh every brick of a cluster per programme)."""
    import math

    total = 0.0
    for prim in primitives(p):
        if prim.role == "body":
            continue
        if prim.shape == "box":
            total += 8 * prim.size[0] * prim.size[1] * prim.size[2]
        else:
            r2 = prim.size[0] ** 2
            if prim.role == "tube" and prim.size[0] == u.TUBE_OUTER_DIAMETER_M / 2:
                r2 -= (u.TUBE_INNER_DIAMETER_M / 2) ** 2  # tubes are hollow
            total += math.pi * r2 * 2 * prim.size[1]
    return total


@cache
def primitives(p: Part) -> tuple[Primitive, ...]:
    """The part's shape as primitives: top slab, four walls, studs and the tubes or pins underneath.

    The first entry ("body") is the solid bounding box of the body, for cheap collision where the detail
    does not matter (bricks lying in the staging area, structure far from the gripper).
    """
    sx, sy, h = p.size_m
    out: list[Primitive] = [Primitive("box", (sx / 2, sy / 2, h / 2), (0.0, 0.0, h / 2), "body")]
    t = min(u.TOP_THICKNESS_M, h / 2)
    w = u.WALL_THICKNESS_M
    out.append(Primitive("box", (sx / 2, sy / 2, t / 2), (0.0, 0.0, h - t / 2), "top"))
    wall_h = (h - t) / 2
    out += [
        Primitive("box", (sx / 2, w / 2, wall_h), (0.0, sign * (sy / 2 - w / 2), wall_h), "wall")
        for sign in (-1.0, 1.0)
    ]
    out += [
        Primitive("box", (w / 2, sy / 2 - w, wall_h), (sign * (sx / 2 - w / 2), 0.0, wall_h), "wall")
        for sign in (-1.0, 1.0)
    ]
    stud_h = u.STUD_HEIGHT_M / 2
    for x, y, z in p.stud_positions_m():
        out.append(Primitive("cylinder", (u.STUD_DIAMETER_M / 2, stud_h, 0.0), (x, y, z + stud_h), "stud"))
    if p.kind != "baseplate":
        pitch = u.STUD_PITCH_M
        # Tubes sit between four studs on 2-wide parts; 1-wide parts have a thin pin between two studs.
        if min(p.width, p.depth) >= 2:
            radius = u.TUBE_OUTER_DIAMETER_M / 2
            centres = [
                (i * pitch - p.width * pitch / 2, j * pitch - p.depth * pitch / 2)
                for i in range(1, p.width)
                for j in range(1, p.depth)
            ]
        else:
            radius = u.PIN_DIAMETER_M / 2
            long_n = max(p.width, p.depth)
            centres = [
                ((k * pitch - long_n * pitch / 2), 0.0) if p.width >= p.depth else (0.0, k * pitch - long_n * pitch / 2)
                for k in range(1, long_n)
            ]
        for cx, cy in centres:
            out.append(Primitive("cylinder", (radius, wall_h, 0.0), (cx, cy, wall_h), "tube"))
    return tuple(out)
