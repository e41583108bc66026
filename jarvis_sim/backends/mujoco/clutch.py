"""LEGO clutch: where a pressed brick seats, how strong each stud connection is, and what holds what.

Raw contact does not hold LEGO bricks in MuJoCo (measured: a seated brick lifts off at 0.1 N), so the
backend models clutch explicitly, as a robot meets it:

- **Seating.** A brick is seated only when it is pressed down onto studs with at least `seat_press_n` newtons
  per connection it makes (BrickSim's registration press, jarvis_sim/lego/clutch_model.py: a figure of its own,
  below the capacity it creates) while it lies within the capture region of a lattice pose: every corner of its
  footprint within the stud lead-in (`STUD_LEAD_IN_M`) of where it would be seated, so the region shrinks with the
  brick's length and its yaw error, and its bottom between the seat and the stud tops. A brick dropped or merely
  resting on stud tops stays there, unseated. Nothing is ever set onto a pose: the backend activates a weld whose
  rest pose is the lattice pose, and the brick is pulled the last sub-millimetre in by it, as the chamfers guide a
  pressed real brick.
- **Capacity.** Each connection (a brick and one support) breaks when its load exceeds the capacity of its engaged
  studs' contact points (jarvis_sim/lego/clutch_model.py, the one source of the figures: StableLego's T = 100 gf per
  stud-tube contact point, 3 points per stud under a 2-wide brick and 4 under a 1-wide one, each at its offset).
  A straight pull needs T per contact point; a moment pries the points out about the far edge of the engaged region
  (a rigid-plastic lever), each point at distance r from that edge holding at most T r, so a push at height h
  above the joint comes off at that moment over h. A compressive load C holds the brick down against tipping about
  an edge at distance a from the centre, so only the moment beyond C a pries (a brick pressed at its edge is pushed
  into its support, not pried off). Pull and prying moments interact linearly: the connection breaks when
  pull / pull_cap + max(0, |Mx| - C ay) / Mx_cap + max(0, |My| - C ax) / My_cap > 1.
  In-plane shear is carried by the studs bearing on the tubes and never breaks a connection by itself.
- A brick on several supports is one rigid body on all its engaged studs (as StableLego analyses each brick): its
  connections are judged each on its own pull, and together on the brick's whole load against the capacity of all
  those studs (the backend's `_use`); the moments the soft welds share between its separate joints are
  compatibility, not prying.
- A connection read over its capacity breaks only if its welded cluster could not carry what is added to it with any
  split of the load among its studs (jarvis_sim/lego/statics.py, StableLego's admissibility test; the backend's
  `_cluster_admissible`): the soft welds split a load around a loop by their softness, not by the studs' strength.
- A broken connection stays broken until the brick is pressed on again.

This module is pure Python; the backend applies the welds and measures their loads.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from jarvis_sim.lego import clutch_model
from jarvis_sim.lego import units as u
from jarvis_sim.lego.assembly import LatticeBrick, brick_pose_in_world
from jarvis_sim.lego.catalog import part

GROUND = "ground"


# The stud lead-in: the rounded top edge of a stud and the chamfered mouth of the tube and walls it enters,
# about 0.25 mm each on LEGO's part drawings (no published tolerance; an estimate). A footprint corner landing
# farther than this from its seat puts a stud on a tube's rim or a wall top instead of sliding it in. For a
# 2x4 brick it allows 0.5 mm of offset, or 1.6 deg of yaw; for a 1x8, 0.9 deg.
STUD_LEAD_IN_M = 0.0005
SEAT_BELOW_M = 0.0005  # a brick's bottom may sit this far below its seat (contact softness) and still seat


@dataclass(frozen=True)
class Seat:
    """Where a pressed brick would seat: its lattice brick, the ids whose studs it lands on, and its errors."""

    brick: LatticeBrick
    supports: tuple[str, ...]
    corner_error_m: float  # the largest in-plane distance of a footprint corner from its seated position
    height_m: float  # bottom above the seat (a brick resting on the stud tops is STUD_HEIGHT_M high)


@dataclass(frozen=True)
class Capacity:
    """The strength of one connection: straight pull, and moments about the lattice x and y axes through
    `centre` (the engaged region's centre on the joint plane, world frame)."""

    studs: int
    pull_n: float
    moment_x_nm: float
    moment_y_nm: float
    centre: tuple[float, float, float]
    half_x_m: float  # half the engaged region's extent along x (the compressive lever against tipping about y)
    half_y_m: float


def capacity_of(footprint: list[tuple[int, int]], cells: list[tuple[int, int]],
                lattice_origin: tuple[float, float, float], joint_z: float,
                point_n: float = clutch_model.CONTACT_POINT_CLUTCH_N) -> Capacity:
    """The capacity of a connection whose upper brick covers `footprint` and engages the studs on `cells` (lattice
    cells): clutch_model's contact points, T each against a pull, T r each against a moment."""
    if not cells:
        raise ValueError("capacity_of: a connection needs at least one engaged stud")
    strength = clutch_model.connection_strength(footprint, cells, point_n)
    pitch = u.STUD_PITCH_M
    x0, y0, x1, y1 = strength.region
    ox, oy, _ = lattice_origin
    xs = np.array([c[0] for c in cells], dtype=float)
    ys = np.array([c[1] for c in cells], dtype=float)
    centre = (ox + (xs.mean() + 0.5) * pitch, oy + (ys.mean() + 0.5) * pitch, joint_z)
    return Capacity(
        studs=strength.studs,
        pull_n=strength.pull_n,
        moment_x_nm=strength.pry_x_nm,
        moment_y_nm=strength.pry_y_nm,
        centre=centre,
        half_x_m=(x1 - x0) * pitch / 2,
        half_y_m=(y1 - y0) * pitch / 2,
    )


def utilisation(force: np.ndarray, moment: np.ndarray, cap: np.ndarray) -> np.ndarray:
    """Load over capacity of connections (rows): external force and moment on the upper brick about the engaged
    centre (N, N m; world frame), capacity rows as the backend stores them (studs, pull, Mx, My, offset xyz,
    half x, half y). Above 1 the connection breaks."""
    compression = np.maximum(-force[:, 2], 0.0)
    pry_x = np.maximum(np.abs(moment[:, 0]) - compression * cap[:, 8], 0.0)
    pry_y = np.maximum(np.abs(moment[:, 1]) - compression * cap[:, 7], 0.0)
    return np.maximum(force[:, 2], 0.0) / cap[:, 1] + pry_x / cap[:, 2] + pry_y / cap[:, 3]


def footprint_corners(part_number: str, position: np.ndarray, rotation: np.ndarray) -> np.ndarray:
    """World (x, y) of a brick's four footprint corners at a pose (bottom-face centre, 3x3 rotation)."""
    p = part(part_number)
    hx, hy = p.width * u.STUD_PITCH_M / 2, p.depth * u.STUD_PITCH_M / 2
    local = np.array([[sx * hx, sy * hy, 0.0] for sx in (-1, 1) for sy in (-1, 1)])
    return (np.asarray(position)[None, :] + local @ np.asarray(rotation).T)[:, :2]


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
        return tuple(sorted(  # a tile's smooth top has no studs to take: a brick on it rests, unclutched
            b.id for b in self.seated.values()
            if b.id != brick.id and b.top == brick.z and part(b.part).studded and cells.intersection(b.cells())
        ))

    def blocked_by(self, brick: LatticeBrick) -> list[str]:
        """Seated bricks sharing lattice volume with this one."""
        cells = set(brick.cells())
        return [
            b.id for b in self.seated.values()
            if b.id != brick.id and b.z < brick.top and brick.z < b.top and cells.intersection(b.cells())
        ]

    def engaged_cells(self, brick: LatticeBrick, support: str) -> list[tuple[int, int]]:
        """Lattice cells where `brick`'s tubes take `support`'s studs."""
        cells = set(brick.cells())
        if support == GROUND:
            assert self.baseplate is not None
            x0, y0, x1, y1 = self.baseplate
            return sorted(c for c in cells if x0 <= c[0] < x1 and y0 <= c[1] < y1)
        return sorted(cells.intersection(self.seated[support].cells()))

    def find_seat(self, brick_id: str, part_number: str, color: int, position: np.ndarray,
                  rotation: np.ndarray) -> Seat | None:
        """The lattice pose a pressed brick at this world pose (bottom-face centre, 3x3 rotation) seats on,
        or None when it lies outside the capture region of every free seat."""
        p = part(part_number)
        half_diagonal = math.hypot(p.width, p.depth) * u.STUD_PITCH_M / 2
        # Tilted more than the studs' height across the brick, it cannot be pressed flat onto them.
        if rotation[2, 2] < math.cos(math.atan2(u.STUD_HEIGHT_M, half_diagonal)):
            return None
        yaw = math.atan2(rotation[1, 0], rotation[0, 0])
        if abs(yaw - round(yaw / (math.pi / 2)) * math.pi / 2) * half_diagonal > STUD_LEAD_IN_M:
            return None  # the corners alone are already outside the lead-in
        quarter = round(yaw / (math.pi / 2)) % 4
        ex, ey = (p.width, p.depth) if quarter % 2 == 0 else (p.depth, p.width)
        ox, oy, oz = self.lattice_origin
        pitch = u.STUD_PITCH_M
        x = round((position[0] - ox) / pitch - ex / 2)
        y = round((position[1] - oy) / pitch - ey / 2)
        # The seat level: the highest seated top under the footprint not above the brick's bottom (+ slack).
        height_above_origin = position[2] - oz
        try:
            probe = LatticeBrick(id=brick_id, part=part_number, color=color, x=x, y=y, z=0, yaw=quarter)
        except ValueError:
            return None  # far off the lattice (knocked off the table): nothing to seat on
        cells = set(probe.cells())
        level = 0
        for b in self.seated.values():
            below = b.top * u.PLATE_HEIGHT_M <= height_above_origin + u.PLATE_HEIGHT_M / 2
            if below and b.id != brick_id and cells.intersection(b.cells()):
                level = max(level, b.top)
        height = height_above_origin - level * u.PLATE_HEIGHT_M
        if not (-SEAT_BELOW_M <= height <= u.STUD_HEIGHT_M + SEAT_BELOW_M):
            return None
        brick = probe.moved(z=level)
        seat_pos, _ = brick_pose_in_world(brick, self.lattice_origin)
        c, s = math.cos(brick.yaw_rad), math.sin(brick.yaw_rad)
        seat_rot = np.array([[c, -s, 0.0], [s, c, 0.0], [0.0, 0.0, 1.0]])
        corners_now = footprint_corners(part_number, position, rotation)
        corners_seat = footprint_corners(part_number, np.asarray(seat_pos), seat_rot)
        # Match corners by nearest (a half-turned brick has the same footprint).
        err = max(float(np.min(np.linalg.norm(corners_seat - c, axis=1))) for c in corners_now)
        if err > STUD_LEAD_IN_M:
            return None
        supports = self.supports_of(brick)
        if not supports or self.blocked_by(brick):
            return None
        return Seat(brick, supports, err, height)

