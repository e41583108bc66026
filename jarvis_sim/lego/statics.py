"""Whether a LEGO structure can carry the loads on it: StableLego's admissibility test, as a linear programme.

Stud clutch is friction, a rigid-plastic joint: by the lower bound theorem of plasticity a structure of such joints
stands if any set of joint forces in equilibrium with its loads keeps every joint within its capacity. StableLego
(Liu, Deng, Wang, Liu 2024, arXiv:2402.10711) decides a LEGO structure's stability the same way, optimising over
the forces at every stud. This module finds whether such a set exists (a feasibility programme for HiGHS, through
scipy). Each connection (an upper brick on a lower brick, or on the ground: the baseplate or the table) may exert
on the upper brick:
- at every engaged stud, a friction force holding it down, between 0 and T (the stud capacity);
- the support's push up anywhere on the engaged region: forces of any size >= 0 at the region's corners;
- in-plane shear and torsion, carried by the studs bearing on the tubes, without limit (a connection is never
  sheared off by itself: jarvis_sim/backends/mujoco/clutch.py).
A brick standing on the bare table is a ground connection without studs: it can only be pushed up.

The MuJoCo backend asks this of a welded cluster when its soft welds' split of the load puts one joint over its
capacity (the welds split the load around each loop by their softness, not by the studs' strength);
`press_admissible` asks it of an assembly before a brick is pressed onto it, from the lattice alone.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.optimize
import scipy.sparse

from jarvis_sim.lego import units as u
from jarvis_sim.lego.assembly import Assembly, LatticeBrick

GROUND = -1
GRAVITY_M_S2 = 9.80665


@dataclass(frozen=True)
class Joint:
    """One connection's geometry: its bricks (indices into the structure's bricks) and its engaged region."""

    upper: int
    lower: int  # GROUND for the baseplate or the table
    studs: np.ndarray  # (n, 2) world x, y of the engaged stud centres (none on the bare table)
    corners: np.ndarray  # (4, 2) world x, y of the engaged region's corners
    z: float  # the joint plane (the upper brick's bottom)

    @property
    def centre(self) -> np.ndarray:
        return np.array([*self.corners.mean(axis=0), self.z])


def joint_on_cells(upper: int, lower: int, cells: Iterable[tuple[int, int]], lattice_origin: Sequence[float],
                   z: float, studs: bool = True) -> Joint:
    """A connection engaging these lattice cells (`studs` False: resting on a smooth surface, pushed up only)."""
    c = np.array(sorted(cells), dtype=float).reshape(-1, 2)
    if not len(c):
        raise ValueError("joint_on_cells: a connection needs at least one cell")
    origin = np.asarray(lattice_origin[:2], dtype=float)
    lo, hi = c.min(axis=0), c.max(axis=0) + 1.0
    corners = np.array([(x, y) for x in (lo[0], hi[0]) for y in (lo[1], hi[1])]) * u.STUD_PITCH_M + origin
    stud_xy = (c + 0.5) * u.STUD_PITCH_M + origin if studs else np.zeros((0, 2))
    return Joint(upper, lower, stud_xy, corners, float(z))


def admissible(joints: Sequence[Joint], loads: np.ndarray, origin: np.ndarray, stud_n: float) -> bool:
    """True when some set of joint forces carries `loads` (per brick: what acts on it besides its connections, as
    force and moment about `origin`, shape (n_bricks, 6)) with every stud's friction within `stud_n`."""
    n_bricks = len(loads)
    if not joints:
        return bool(np.allclose(loads, 0.0))
    n_studs = np.array([len(j.studs) for j in joints])
    width = n_studs + 7  # unknowns per joint: stud frictions, four corner pushes, shear x, shear y, torsion
    first = np.concatenate([[0], np.cumsum(width)[:-1]])
    n_vars = int(width.sum())
    upper = np.array([j.upper for j in joints])
    lower = np.array([j.lower for j in joints])
    n = len(joints)

    # Each unknown's load per unit on its joint, as (joint, column, wrench row, value) entries.
    entries: list[tuple[np.ndarray, np.ndarray, int, np.ndarray]] = []
    # A stud holding the brick down against a pull t is loaded by +t up at the stud: moment (dy, -dx) t.
    stud_joint = np.repeat(np.arange(n), n_studs)
    stud_col = first[stud_joint] + np.arange(int(n_studs.sum())) - np.repeat(np.cumsum(n_studs) - n_studs, n_studs)
    d = np.concatenate([j.studs for j in joints]).reshape(-1, 2) - origin[:2]
    entries += [(stud_joint, stud_col, 2, np.ones(len(d))), (stud_joint, stud_col, 3, d[:, 1]),
                (stud_joint, stud_col, 4, -d[:, 0])]
    # The support pushing up with c at a corner takes a load of c down there.
    corner_joint = np.repeat(np.arange(n), 4)
    corner_col = first[corner_joint] + np.repeat(n_studs, 4) + np.tile(np.arange(4), n)
    d = np.concatenate([j.corners for j in joints]) - origin[:2]
    entries += [(corner_joint, corner_col, 2, -np.ones(len(d))), (corner_joint, corner_col, 3, -d[:, 1]),
                (corner_joint, corner_col, 4, d[:, 0])]
    # Shear at the centre, and torsion.
    every = np.arange(n)
    dx, dy, dz = (np.array([j.centre for j in joints]) - origin).T
    shear_x, shear_y, torsion = first + n_studs + 4, first + n_studs + 5, first + n_studs + 6
    entries += [(every, shear_x, 0, np.ones(n)), (every, shear_x, 4, dz), (every, shear_x, 5, -dy),
                (every, shear_y, 1, np.ones(n)), (every, shear_y, 3, -dz), (every, shear_y, 5, dx),
                (every, torsion, 5, np.ones(n))]

    # Every brick's equilibrium: the loads of the joints it stands on, less those of the joints standing on it.
    rows, cols, vals = [], [], []
    for joint, col, row, val in entries:
        rows.append(6 * upper[joint] + row)
        cols.append(col)
        vals.append(val)
        below = lower[joint] != GROUND  # the ground carries whatever reaches it
        rows.append(6 * lower[joint][below] + row)
        cols.append(col[below])
        vals.append(-val[below])
    a_eq = scipy.sparse.csr_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                                  shape=(6 * n_bricks, n_vars))
    lo = np.zeros(n_vars)
    hi = np.full(n_vars, np.inf)
    hi[stud_col] = stud_n
    lo[np.concatenate([shear_x, shear_y, torsion])] = -np.inf
    res = scipy.optimize.linprog(np.zeros(n_vars), A_eq=a_eq, b_eq=np.asarray(loads, dtype=float).ravel(),
                                 bounds=np.stack([lo, hi], axis=1), method="highs")
    return bool(res.status == 0)


def assembly_joints(assembly: Assembly, lattice_origin: Sequence[float], baseplate: bool) -> list[Joint]:
    """Every connection of an assembly seated on the lattice, bricks indexed in the assembly's order; level-0
    bricks stand on the ground (clutched to a baseplate, resting on a bare table)."""
    index = {b.id: k for k, b in enumerate(assembly)}
    out = []
    for k, b in enumerate(assembly):
        z = lattice_origin[2] + b.z * u.PLATE_HEIGHT_M
        if b.z == 0:
            out.append(joint_on_cells(k, GROUND, b.cells(), lattice_origin, z, studs=baseplate))
            continue
        mine = set(b.cells())
        for s in assembly.supports(b.id):
            out.append(joint_on_cells(k, index[s], mine.intersection(assembly[s].cells()), lattice_origin, z))
    return out


def gravity_loads(bricks: Sequence[LatticeBrick], lattice_origin: Sequence[float], origin: np.ndarray) -> np.ndarray:
    """Each brick's weight at its centre, as loads for `admissible` (moment about `origin`)."""
    out = np.zeros((len(bricks), 6))
    for k, b in enumerate(bricks):
        weight = np.array([0.0, 0.0, -b.spec.mass_kg * GRAVITY_M_S2])
        at = np.asarray(b.center_m()) + np.asarray(lattice_origin, dtype=float) - origin
        out[k, :3] = weight
        out[k, 3:] = np.cross(at, weight)
    return out


def press_admissible(assembly: Assembly, brick_id: str, press_n: float, lattice_origin: Sequence[float],
                     baseplate: bool, stud_n: float, at: tuple[float, float] | None = None,
                     with_weight: bool = True) -> bool:
    """Whether an assembly (with `brick_id` seated in it) carries `press_n` pressed straight down on that brick, at
    world (x, y) `at` (default: its centre), and its weight unless `with_weight` is False: whether the brick can be
    pressed on there without breaking what is under it."""
    bricks = list(assembly)
    joints = assembly_joints(assembly, lattice_origin, baseplate)
    origin = np.mean([j.centre for j in joints], axis=0)
    loads = gravity_loads(bricks, lattice_origin, origin) if with_weight else np.zeros((len(bricks), 6))
    k = next(i for i, b in enumerate(bricks) if b.id == brick_id)
    point = np.asarray(bricks[k].center_m()) + np.asarray(lattice_origin, dtype=float)  # a vertical press: any z
    if at is not None:
        point[:2] = at
    press = np.array([0.0, 0.0, -press_n])
    loads[k, :3] += press
    loads[k, 3:] += np.cross(point - origin, press)
    return admissible(joints, loads, origin, stud_n)


def engaged_centre(assembly: Assembly, brick_id: str, lattice_origin: Sequence[float]) -> tuple[float, float]:
    """World (x, y) of the middle of the studs a seated brick takes (all of its own cells on level 0): pressed
    there, a brick on a cantilevered support pushes straight into it."""
    b = assembly[brick_id]
    mine = set(b.cells())
    cells = [c for s in assembly.supports(brick_id) for c in mine.intersection(assembly[s].cells())] if b.z else list(mine)
    xy = (np.array(cells, dtype=float) + 0.5).mean(axis=0) * u.STUD_PITCH_M + np.asarray(lattice_origin[:2], dtype=float)
    return float(xy[0]), float(xy[1])
