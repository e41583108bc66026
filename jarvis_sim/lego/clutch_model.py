"""LEGO clutch, as its sources model it: the single cited source of every clutch figure in the project.

Both the MuJoCo backend's clutch (jarvis_sim/backends/mujoco/) and the statics (jarvis_sim/lego/statics.py,
jarvis_sim/tasks/build_statics.py) read their figures here. Pure domain: no simulator import.

**Capacity: friction at each stud-tube contact point** (StableLego: Liu, Deng, Wang, Liu 2024, arXiv:2402.10711;
public repository intelligent-control-lab/StableLego, `config.json` "T": 100 and `py_scripts/stabiliy_analysis.py`).
A stud held in the underside of the brick above touches it at several points, and each point holds the brick down
with friction of at most T = 100 gf. Under a brick at least 2 studs wide a stud has 3 contact points (one wall and
two tube contacts), under a 1-wide brick 4 (two walls, the end walls or the pin): StableLego's `four_pt_connection`
is decided by the *upper* brick's width. Their offsets from the stud centre, in stud pitches, are StableLego's
torque arms: the 4 points at +-1/4 along each axis; the 3 points one at 1/4 on one side and two at 1/8 on the other
side, 1/8 either side of the stud's axis. We lay the single point of the three toward the brick's outer wall
across its narrow direction (where a 2-wide brick's wall is; its tubes run down its middle), so a brick's pattern
is symmetric about its centre; StableLego keeps one orientation for every stud, which makes +x and -x prying differ.
Per stud: 3 T = 2.94 N under a 2-wide brick, 4 T = 3.92 N under a 1-wide one.

**Prying.** A moment lifts the contact points off about the edge of the engaged region (the support's top face
carries the upper brick's rim there: a rigid-plastic lever); each point at distance r from that edge adds at most
T r, and the weaker edge counts. For 1..6 studs in a line under a 1-wide brick this gives 2 n^2 T p (p the pitch):
15.7, 62.8, 141, 251, 392, 565 mN m, within 0.8-1.33x of the only direct measurement found, P. Funes' minimum joint
torques (`FUNES_MIN_JOINT_TORQUE_NM`).

**Seating press, a figure of its own.** Inserting studs and pulling them out are different figures (the note
/work/shared/notes/mujoco-lego.md, round 3). BrickSim (CMU 2026, arXiv:2603.16853, intelligent-control-lab/BrickSim)
registers a connection when it is pressed with at least 1 N (within its 2 mm / 5 deg tolerance; the capture here is
the parts' lead-in, `stud_tube_clearance_m`); APEX-MR (RSS 2025, intelligent-control-lab/APEX-MR, `lego_policy.h`)
presses down until 15 N (5 N when its second arm holds the structure from below). The seating press is below the capacity it creates (1 N against 2.94 N for one stud).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np

from jarvis_sim.lego import units as u

# StableLego config.json "T": 100 (grams-force) per contact point; 1 gf = 9.80665 mN by definition (StableLego's own
# analysis uses g = 9.8, 0.07% less).
CONTACT_POINT_CLUTCH_N = 0.100 * 9.80665
POINTS_PER_STUD_WIDE = 3  # under a brick >= 2 studs wide (StableLego: three-point connection)
POINTS_PER_STUD_NARROW = 4  # under a 1-wide brick (StableLego: `four_pt_connection`)
# StableLego's torque arms of the contact points, in stud pitches from the stud centre.
NARROW_POINT_OFFSETS = ((0.25, 0.0), (-0.25, 0.0), (0.0, 0.25), (0.0, -0.25))
WIDE_WALL_OFFSET = 0.25  # the one point toward the wall, across the brick's narrow direction
WIDE_TUBE_OFFSET = 0.125  # the two points toward the tubes: 1/8 inward, 1/8 either side along the brick

# A stud gives up its clutch only once it is out of its tube: the studs' height of travel (a slip is not a break).
ENGAGEMENT_TRAVEL_M = u.STUD_HEIGHT_M

# Seating (BrickSim, arXiv:2603.16853): a connection registers with at least this press.
SEAT_PRESS_N = 1.0
# BrickSim's capture (2 mm, 5 deg) is its registration tolerance, not the parts': a stud sits between the tubes
# and walls with no clearance (`stud_tube_clearance_m`: 0.002 mm), so only the rounded stud edge and the tube's
# chamfered mouth lead it in. The backend's capture is that lead-in (backends/mujoco/clutch.py STUD_LEAD_IN_M).


def stud_tube_clearance_m() -> float:
    """Gap between a seated stud and the tube beside it: the tube stands at the corner of four studs (half a
    pitch diagonal, p/sqrt(2), from each stud's axis) and both are round. 8/sqrt(2) - 3.255 - 2.4 = 0.0023 mm."""
    return u.STUD_PITCH_M / math.sqrt(2.0) - u.TUBE_OUTER_DIAMETER_M / 2.0 - u.STUD_DIAMETER_M / 2.0

# What a real robot presses with (APEX-MR, lego_policy.h): down until 15 N, 5 N with the structure supported.
ROBOT_PRESS_N = 15.0
ROBOT_PRESS_SUPPORTED_N = 5.0

# P. Funes, "Evolution of complexity in real-world domains", PhD thesis, Brandeis University 2001, table 2.1:
# minimum torque capacities of joints of 1..6 knobs in a line (N m).
FUNES_MIN_JOINT_TORQUE_NM = (0.0127, 0.0615, 0.1098, 0.1927, 0.3450, 0.4240)

Cell = tuple[int, int]


def points_per_stud(upper_width_studs: int) -> int:
    """Contact points of one stud in the underside of a brick this many studs wide (its narrow side)."""
    if upper_width_studs < 1:
        raise ValueError(f"points_per_stud: a brick is at least 1 stud wide, got {upper_width_studs}")
    return POINTS_PER_STUD_NARROW if upper_width_studs < 2 else POINTS_PER_STUD_WIDE


def contact_points(footprint: Iterable[Cell], engaged: Iterable[Cell]) -> np.ndarray:
    """Lattice (x, y) of the contact points (in stud pitches; cell (i, j)'s stud centre at (i + 0.5, j + 0.5)) of the
    engaged studs under an upper brick covering `footprint` cells (a rectangle)."""
    foot = np.array(sorted(set(footprint)), dtype=float).reshape(-1, 2)
    studs = np.array(sorted(set(engaged)), dtype=float).reshape(-1, 2)
    if not len(foot):
        raise ValueError("contact_points: the upper brick's footprint is empty")
    if not len(studs):
        raise ValueError("contact_points: a connection needs at least one engaged stud")
    lo, hi = foot.min(axis=0), foot.max(axis=0) + 1.0
    if not set(map(tuple, studs.tolist())) <= set(map(tuple, foot.tolist())):
        raise ValueError("contact_points: an engaged stud lies outside the upper brick's footprint")
    extent = hi - lo
    centres = studs + 0.5
    if min(extent) < 2:
        offsets = np.array(NARROW_POINT_OFFSETS)
        return (centres[:, None, :] + offsets[None, :, :]).reshape(-1, 2)
    narrow = 1 if extent[1] <= extent[0] else 0  # across the brick (y for a square one)
    along = 1 - narrow
    mid = (lo[narrow] + hi[narrow]) / 2
    # The wall side is where the stud sits off the brick's middle (an interior stud of a wider plate: the lower side).
    outward = np.where(centres[:, narrow] > mid, 1.0, -1.0)
    pts = np.repeat(centres, 3, axis=0).reshape(-1, 3, 2)
    pts[:, 0, narrow] += outward * WIDE_WALL_OFFSET
    pts[:, 1:, narrow] -= outward[:, None] * WIDE_TUBE_OFFSET
    pts[:, 1, along] += WIDE_TUBE_OFFSET
    pts[:, 2, along] -= WIDE_TUBE_OFFSET
    return pts.reshape(-1, 2)


@dataclass(frozen=True)
class ConnectionStrength:
    """What one connection (an upper brick on one support) holds: a straight pull, and a prying moment about an
    axis along lattice x (lifting rows of constant y) and along y, each about the weaker edge of the engaged region.
    `region` is that region in lattice units (x0, y0, x1, y1)."""

    studs: int
    contact_points: int
    pull_n: float
    pry_x_nm: float
    pry_y_nm: float
    region: tuple[float, float, float, float]


def connection_strength(footprint: Iterable[Cell], engaged: Iterable[Cell],
                        point_n: float = CONTACT_POINT_CLUTCH_N, pitch_m: float = u.STUD_PITCH_M) -> ConnectionStrength:
    """The strength of a connection whose upper brick covers `footprint` and takes the support's studs on `engaged`
    (lattice cells): T per contact point against a pull, T r per point against a moment (see the module docstring)."""
    engaged = sorted(set(engaged))
    pts = contact_points(footprint, engaged)
    cells = np.array(engaged, dtype=float)
    lo, hi = cells.min(axis=0), cells.max(axis=0) + 1.0

    def weaker_edge(axis: int) -> float:
        v = pts[:, axis]
        return float(min((v - lo[axis]).sum(), (hi[axis] - v).sum())) * pitch_m * point_n

    return ConnectionStrength(
        studs=len(engaged), contact_points=len(pts), pull_n=len(pts) * point_n,
        pry_x_nm=weaker_edge(1), pry_y_nm=weaker_edge(0),
        region=(float(lo[0]), float(lo[1]), float(hi[0]), float(hi[1])),
    )


def line_pry_capacity_nm(n_studs: int, point_n: float = CONTACT_POINT_CLUTCH_N) -> float:
    """The moment that pries a 1-wide brick off `n_studs` studs in a line about the line's end (Funes' joint)."""
    cells = [(i, 0) for i in range(n_studs)]
    return connection_strength(cells, cells, point_n).pry_y_nm
