"""LEGO clutch as bookkeeping over the stud lattice: where a released brick seats, and what holds what.

Raw contact does not hold LEGO bricks in MuJoCo (measured: a seated brick lifts off at 0.1 N), so the
backend models clutch explicitly. A released brick lying within tolerance of a free lattice pose on
studs is set onto that pose and welded to what it stands on. Tolerances (SimConfig): in-plane 2 mm,
height 2.5 mm above the seat (a brick resting on stud tops is 1.7 mm high, so a 3D distance test would
wrongly reject it), yaw 5 deg, tilt 12 deg. Level 0 has studs only on the baseplate's cells. This module is
pure Python; the backend applies the welds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from jarvis_sim.lego import units as u
from jarvis_sim.lego.assembly import LatticeBrick
from jarvis_sim.lego.catalog import part

GROUND = "ground"


@dataclass(frozen=True)
class Seat:
    """Where a brick would snap: its lattice brick and the ids whose studs it lands on."""

    brick: LatticeBrick
    supports: tuple[str, ...]
    in_plane_m: float
    height_m: float
    yaw_rad: float


@dataclass
class ClutchGraph:
    """Bricks seated on the lattice and the clutch connections between them (and the baseplate)."""

    lattice_origin: tuple[float, float, float]
    baseplate: tuple[int, int, int, int] | None  # the baseplate's stud cells (x0, y0, x1, y1; x1, y1 excluded)
    seated: dict[str, LatticeBrick] = field(default_factory=dict)
    links: set[frozenset[str]] = field(default_factory=set)

    def copy(self) -> ClutchGraph:
        """An independent copy (for snapshots)."""
        return ClutchGraph(self.lattice_origin, self.baseplate, dict(self.seated), set(self.links))

    def seat(self, brick: LatticeBrick, supports: tuple[str, ...]) -> None:
        """Record a brick as seated and clutched to its supports."""
        self.seated[brick.id] = brick
        for s in supports:
            self.links.add(frozenset((brick.id, s)))

    def unseat(self, brick_ids: set[str], keep_internal: bool = True) -> None:
        """Take bricks off the lattice; links inside the set survive when they move together."""
        for b in brick_ids:
            self.seated.pop(b, None)
        self.links = {
            link for link in self.links
            if not (link & brick_ids) or (keep_internal and link <= brick_ids)
        }

    def connected_to(self, brick_id: str) -> list[str]:
        """Ids clutched to this brick, 'ground' for the baseplate, sorted."""
        out = [next(iter(link - {brick_id})) for link in self.links if brick_id in link and len(link) == 2]
        return sorted(out)

    def supports_of(self, brick: LatticeBrick) -> tuple[str, ...]:
        """Seated bricks whose top is this brick's bottom under its footprint ('ground' at level 0 on a baseplate)."""
        if brick.z == 0:
            # Level 0 has studs on the baseplate only: a brick set down beside it (in the staging area) is loose.
            if self.baseplate is None:
                return ()
            x0, y0, x1, y1 = self.baseplate
            on_plate = all(x0 <= cx < x1 and y0 <= cy < y1 for cx, cy in brick.cells())
            return (GROUND,) if on_plate else ()
        cells = set(brick.cells())
        return tuple(sorted(
            b.id for b in self.seated.values()
            if b.id != brick.id and b.top == brick.z and cells.intersection(b.cells())
        ))

    def blocked_by(self, brick: LatticeBrick) -> list[str]:
        """Seated bricks sharing lattice volume with this one."""
        cells = set(brick.cells())
        return [
            b.id for b in self.seated.values()
            if b.id != brick.id and b.z < brick.top and brick.z < b.top and cells.intersection(b.cells())
        ]

    def find_seat(self, brick_id: str, part_number: str, color: int, position: np.ndarray, rotation: np.ndarray,
                  in_plane_tol: float, height_tol: float, yaw_tol: float, tilt_tol: float) -> Seat | None:
        """The lattice pose a brick at this world pose (bottom-face centre, 3x3 rotation) snaps to, or None."""
        if rotation[2, 2] < math.cos(tilt_tol):
            return None
        yaw = math.atan2(rotation[1, 0], rotation[0, 0])
        quarter = round(yaw / (math.pi / 2))
        yaw_err = abs(yaw - quarter * math.pi / 2)
        if yaw_err > yaw_tol:
            return None
        quarter %= 4
        p = part(part_number)
        ex, ey = (p.width, p.depth) if quarter % 2 == 0 else (p.depth, p.width)
        ox, oy, oz = self.lattice_origin
        pitch = u.STUD_PITCH_M
        lx = (position[0] - ox) / pitch - ex / 2
        ly = (position[1] - oy) / pitch - ey / 2
        x, y = round(lx), round(ly)
        in_plane = math.hypot((lx - x) * pitch, (ly - y) * pitch)
        if in_plane > in_plane_tol:
            return None
        # The seat level: the highest seated top under the footprint not above the brick's bottom (+ slack).
        height_above_origin = position[2] - oz
        probe = LatticeBrick(id=brick_id, part=part_number, color=color, x=x, y=y, z=0, yaw=quarter)
        cells = set(probe.cells())
        level = 0
        for b in self.seated.values():
            below = b.top * u.PLATE_HEIGHT_M <= height_above_origin + u.PLATE_HEIGHT_M / 2
            if below and b.id != brick_id and cells.intersection(b.cells()):
                level = max(level, b.top)
        height = height_above_origin - level * u.PLATE_HEIGHT_M
        if not (-0.0005 <= height <= height_tol):
            return None
        brick = probe.moved(z=level)
        supports = self.supports_of(brick)
        if not supports or self.blocked_by(brick):
            return None
        return Seat(brick, supports, in_plane, height, yaw_err)
