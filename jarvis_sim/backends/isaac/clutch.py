"""LEGO clutch bookkeeping for a backend whose welds are physics joints toggled at run time (Isaac: a
UsdPhysics.FixedJoint per connection, `physics:jointEnabled`). Pure: poses, forces and loads in, decisions out.

The contract is the MuJoCo backend's (ARCHITECTURE.md): bricks are dynamic bodies; a connection forms only when a
brick is pressed (downward contact force at least `press_force_n`) while it lies within the stud capture of a
lattice pose on its support (in plane, in height above the seat, in yaw); it breaks when the load on it exceeds
`clutch_n_per_stud` times the studs engaged; nothing is ever teleported: a captured brick is welded where it is,
the small capture being what the studs' lead-in would have pulled it through.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np
from scipy.spatial.transform import Rotation

from jarvis_sim.backends.isaac.config import IsaacConfig
from jarvis_sim.lego import units as u
from jarvis_sim.lego.assembly import brick_pose_in_world, make_brick
from jarvis_sim.lego.catalog import part

GROUND = "ground"


def _yaw(quaternion: tuple[float, float, float, float] | np.ndarray) -> float:
    """Heading about world z (the first of intrinsic z-y-x angles), rad."""
    return float(Rotation.from_quat(np.asarray(quaternion, float), scalar_first=True).as_euler("ZYX")[0])


def _tilt(quaternion: tuple[float, float, float, float] | np.ndarray) -> float:
    """Angle between the body's z axis and world z, rad."""
    z_axis = Rotation.from_quat(np.asarray(quaternion, float), scalar_first=True).as_matrix()[:, 2]
    return math.acos(max(-1.0, min(1.0, float(z_axis[2]))))


@dataclass(frozen=True)
class Seat:
    """A lattice pose a brick was captured into: stud coordinates, level, quarter turns, and its world pose."""

    x: int
    y: int
    z: int
    yaw: int
    position: tuple[float, float, float]
    quaternion: tuple[float, float, float, float]


def nearest_seat(part_number: str, position: np.ndarray, quaternion: np.ndarray,
                 lattice_origin: tuple[float, float, float], config: IsaacConfig) -> Seat | None:
    """The lattice pose a brick at this pose would be captured into, or None when it is outside the capture
    (too far in plane, too high above the seat, turned or tilted too much)."""
    if _tilt(quaternion) > config.capture_yaw_rad:
        return None
    p = part(part_number)
    yaw = _yaw(quaternion)
    turns = round(yaw / (math.pi / 2)) % 4
    err = abs(math.remainder(yaw - turns * math.pi / 2, 2 * math.pi))
    symmetric = min(err, abs(math.remainder(yaw - turns * math.pi / 2 - math.pi, 2 * math.pi)))
    if symmetric > config.capture_yaw_rad:
        return None
    pitch, plate = u.STUD_PITCH_M, u.PLATE_HEIGHT_M
    # A lattice brick's centre is affine in its corner coordinates: c(x, y, z) = c(0, 0, 0) + (x p, y p, z h).
    (c0x, c0y, c0z), _ = brick_pose_in_world(make_brick("probe", p.number, 4, 0, 0, 0, turns), lattice_origin)
    sx = round((float(position[0]) - c0x) / pitch)
    sy = round((float(position[1]) - c0y) / pitch)
    sz = max(0, math.floor((float(position[2]) - c0z) / plate + 1e-6))
    (px, py, pz), quat = brick_pose_in_world(make_brick("probe", p.number, 4, sx, sy, sz, turns), lattice_origin)
    if math.hypot(float(position[0]) - px, float(position[1]) - py) > config.capture_xy_m:
        return None
    if not -config.capture_z_m <= float(position[2]) - pz <= config.capture_z_m:
        return None
    return Seat(sx, sy, sz, turns, (px, py, pz), quat)


def engaged_studs(upper_part: str, upper: Seat, lower_part: str, lower: Seat) -> int:
    """How many of the lower brick's studs enter the upper brick seated on it (0: not stacked there)."""
    up, low = part(upper_part), part(lower_part)
    if upper.z != lower.z + low.height or not low.studded:
        return 0

    def cells(p_width: int, p_depth: int, s: Seat) -> set[tuple[int, int]]:
        w, d = (p_width, p_depth) if s.yaw % 2 == 0 else (p_depth, p_width)
        return {(s.x + i, s.y + j) for i in range(w) for j in range(d)}

    return len(cells(up.width, up.depth, upper) & cells(low.width, low.depth, lower))


BROKEN_DRIFT_M = 0.001  # a weld whose bodies moved this far apart (or turned 1 deg) no longer holds: PhysX broke it


def relative_pose(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The 4x4 pose of body `a` in the frame of body `b` (both 4x4 world poses)."""
    return np.linalg.inv(b) @ a


def weld_broken(at_weld: np.ndarray, now: np.ndarray, drift_m: float = BROKEN_DRIFT_M) -> bool:
    """Did the relative pose of two welded bodies move since the weld formed (the joint broke under load)?

    PhysX breaks a joint past its break force without touching the USD attribute that enables it; the drift of the
    relative pose is what the backend can observe every tick."""
    moved = float(np.linalg.norm(now[:3, 3] - at_weld[:3, 3]))
    turn = (np.trace(at_weld[:3, :3].T @ now[:3, :3]) - 1) / 2
    return moved > drift_m or math.acos(max(-1.0, min(1.0, float(turn)))) > math.radians(1.0)


@dataclass
class ClutchBook:
    """Which connections exist now, how many studs each holds, and the decisions that change them."""

    config: IsaacConfig
    studs: dict[frozenset[str], int] = field(default_factory=dict)

    def reset(self, pairs: list[tuple[str, str, int]]) -> None:
        """Start from these connections (upper, lower, engaged studs)."""
        self.studs = {frozenset((a, b)): n for a, b, n in pairs}

    def connected_to(self, brick_id: str) -> list[str]:
        """Ids clutched to a brick ('ground' for the baseplate), sorted."""
        return sorted(next(iter(k - {brick_id})) for k in self.studs if brick_id in k)

    def connect(self, upper: str, lower: str, studs: int) -> bool:
        """Record a new connection; False when it already existed or holds no stud."""
        key = frozenset((upper, lower))
        if studs <= 0 or key in self.studs:
            return False
        self.studs[key] = studs
        return True

    def detach(self, brick_id: str) -> list[tuple[str, str]]:
        """Remove every connection of a brick (a displacement perturbation); the pairs removed."""
        gone = [k for k in self.studs if brick_id in k]
        for k in gone:
            del self.studs[k]
        return [tuple(sorted(k)) for k in gone]  # type: ignore[misc]

    def pressed(self, downward_force_n: float) -> bool:
        """Is a contact force on a brick a press that seats it?"""
        return downward_force_n >= self.config.press_force_n

    def overloaded(self, loads_n: dict[frozenset[str], float]) -> list[frozenset[str]]:
        """Connections whose joint load (N) exceeds what their studs hold; removed from the book."""
        broken = [k for k, load in loads_n.items()
                  if k in self.studs and load > self.config.clutch_n_per_stud * self.studs[k]]
        for k in broken:
            del self.studs[k]
        return broken

    def snapshot(self) -> dict[frozenset[str], int]:
        """A copy for save_state."""
        return dict(self.studs)
