"""Whether a LEGO structure can carry the loads on it: StableLego's admissibility test, as a linear programme.

Stud clutch is friction, a rigid-plastic joint: by the lower bound theorem of plasticity a structure of such joints
stands if any set of joint forces in equilibrium with its loads keeps every joint within its capacity. StableLego
(Liu, Deng, Wang, Liu 2024, arXiv:2402.10711) decides a LEGO structure's stability the same way, optimising over
the forces at every stud-tube contact point. This module finds whether such a set exists (a feasibility programme
for HiGHS, through scipy). Each connection (an upper brick on a lower brick, or on the ground: the baseplate or the
table) may exert on the upper brick:
- at every contact point of every engaged stud (3 under a brick at least 2 wide, 4 under a 1-wide one, each at its
  own offset from the stud centre: jarvis_sim/lego/clutch_model.py, the one source of these figures), a friction
  force holding it down, between 0 and T per point;
- the support's push up, of any size >= 0, at those same contact points: StableLego's analysis puts each point's
  normal force where its friction acts, so a prying moment pivots on the outermost points. With that lever this test
  gives StableLego's own verdicts on its public test structures (tests/jarvis_sim/lego/test_stablelego.py: the
  19-level stairs stand, the 20-level ones need 1.005 T and collapse). `bear_on_points=False` lets the support bear
  anywhere on the engaged region instead (its corners: the rim lever of clutch_model's prying capacity, which
  matches Funes' measured joints better for one stud but lets the 20-level stairs stand at 0.62 T);
- in-plane shear and torsion, carried by the studs bearing on the tubes, without limit (StableLego's horizontal
  knob forces are unbounded too: a connection is never sheared off by itself).
A brick standing on the bare table is a ground connection without studs: it can only be pushed up.
Bricks side by side on the same levels may also push on each other across the faces they share (compression only,
at mid height of their common levels, as StableLego's adjacent-brick forces): a course of abutting bricks carries a
bending moment by compression through its butt joints (`side_contacts`).

The MuJoCo backend asks this of a welded cluster when its soft welds' split of the load puts one joint over its
capacity (the welds split the load around each loop by their softness, not by the studs' strength);
jarvis_sim/lego/press_order.py asks it of an assembly before a brick is pressed onto it, from the lattice alone.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np
import scipy.optimize
import scipy.sparse

from jarvis_sim.lego import clutch_model
from jarvis_sim.lego import units as u
from jarvis_sim.lego.assembly import Assembly, LatticeBrick

GROUND = -1
GRAVITY_M_S2 = 9.80665
Cell = tuple[int, int]
# Verdicts of programmes already solved, by a digest of their exact input. The generator asks the same question
# more than once (a brick checked where it is dropped is checked again in layer order, the same cluster around it,
# and again after a refill), as do build_statics and the suites drawn from a pool; a repeated programme returns the
# verdict HiGHS gave it, so results never depend on what was asked before.
_VERDICTS: dict[bytes, bool] = {}
VERDICTS_KEPT = 500_000  # about 60 MB at most; the oldest verdicts go first


@dataclass(frozen=True)
class Joint:
    """One connection's geometry: its bricks (indices into the structure's bricks), the world x, y of its stud-tube
    contact points (where friction holds the upper brick down) and of where the support bears it up."""

    upper: int
    lower: int  # GROUND for the baseplate or the table
    points: np.ndarray  # (n, 2) world x, y of the engaged studs' contact points (none on the bare table)
    bearing: np.ndarray  # (k, 2) world x, y where the support may push the upper brick up
    z: float  # the joint plane (the upper brick's bottom)
    middle: tuple[float, float]  # world x, y of the engaged region's middle

    @property
    def centre(self) -> np.ndarray:
        return np.array([*self.middle, self.z])


@dataclass(frozen=True)
class SideContact:
    """Two bricks side by side pushing on each other across a shared face: compression only, anywhere between the
    face's ends (`ends`, world x, y, z at mid height of the common levels), along `normal` from `a` to `b`."""

    a: int
    b: int
    ends: np.ndarray  # (2, 3)
    normal: np.ndarray  # (3,)


def joint_on_cells(upper: int, lower: int, cells: Iterable[Cell], lattice_origin: Sequence[float], z: float,
                   studs: bool = True, footprint: Iterable[Cell] | None = None, bear_on_points: bool = True) -> Joint:
    """A connection engaging these lattice cells under an upper brick covering `footprint` (default: the engaged
    cells; the footprint decides 3 or 4 contact points a stud), or, `studs` False, resting on a smooth surface.

    Where the support bears the upper brick up: at the contact points (`bear_on_points`, StableLego's model: its
    analysis puts the normal force of each point where its friction acts), or anywhere on the engaged region (its
    corners: the support's top face under the upper brick's rim, clutch_model's prying lever). A brick on the bare
    table bears on its region's corners."""
    c = sorted(set(cells))
    if not c:
        raise ValueError("joint_on_cells: a connection needs at least one cell")
    arr = np.array(c, dtype=float)
    origin = np.asarray(lattice_origin[:2], dtype=float)
    lo, hi = arr.min(axis=0), arr.max(axis=0) + 1.0
    corners = np.array([(x, y) for x in (lo[0], hi[0]) for y in (lo[1], hi[1])]) * u.STUD_PITCH_M + origin
    foot = c if footprint is None else footprint
    points = (clutch_model.contact_points(foot, c) * u.STUD_PITCH_M + origin) if studs else np.zeros((0, 2))
    bearing = points if studs and bear_on_points else corners
    middle = corners.mean(axis=0)
    return Joint(upper, lower, points, bearing, float(z), (float(middle[0]), float(middle[1])))


def admissible(joints: Sequence[Joint], loads: np.ndarray, origin: np.ndarray,
               point_n: float = clutch_model.CONTACT_POINT_CLUTCH_N, sides: Sequence[SideContact] = ()) -> bool:
    """True when some set of joint forces carries `loads` (per brick: what acts on it besides its connections, as
    force and moment about `origin`, shape (n_bricks, 6)) with every contact point's friction within `point_n`."""
    if not joints and not sides:
        return bool(np.allclose(loads, 0.0))
    key = _programme_digest(joints, loads, origin, point_n, sides)
    verdict = _VERDICTS.get(key)
    if verdict is None:
        verdict = _solve(joints, loads, origin, point_n, sides)
        if len(_VERDICTS) >= VERDICTS_KEPT:
            del _VERDICTS[next(iter(_VERDICTS))]
        _VERDICTS[key] = verdict
    return verdict


def _programme_digest(joints: Sequence[Joint], loads: np.ndarray, origin: np.ndarray, point_n: float,
                      sides: Sequence[SideContact]) -> bytes:
    """A digest of everything `admissible` builds its programme from, in order (equal digests: equal programmes)."""
    h = hashlib.blake2b(digest_size=20)
    for part in (
        np.array([(j.upper, j.lower, j.z, *j.middle, len(j.points), len(j.bearing)) for j in joints], dtype=float),
        np.concatenate([j.points for j in joints]) if joints else np.zeros(0),
        np.concatenate([j.bearing for j in joints]) if joints else np.zeros(0),
        loads, origin, np.array([point_n, len(sides)], dtype=float),
        np.array([(s.a, s.b, *s.ends.ravel(), *s.normal) for s in sides], dtype=float),
    ):
        arr = np.ascontiguousarray(part, dtype=float)
        h.update(np.array(arr.shape, dtype=np.int64).tobytes())
        h.update(arr.tobytes())
    return h.digest()


def _solve(joints: Sequence[Joint], loads: np.ndarray, origin: np.ndarray, point_n: float,
           sides: Sequence[SideContact]) -> bool:
    """The feasibility programme of `admissible`, solved by HiGHS."""
    n_bricks = len(loads)
    n_pts = np.array([len(j.points) for j in joints], dtype=int)
    n_bear = np.array([len(j.bearing) for j in joints], dtype=int)
    width = n_pts + n_bear + 3  # unknowns per joint: point frictions, bearing pushes, shear x, shear y, torsion
    first = np.concatenate([[0], np.cumsum(width)[:-1]]).astype(int)
    n_joint_vars = int(width.sum())
    n_vars = n_joint_vars + 2 * len(sides)
    upper = np.array([j.upper for j in joints], dtype=int)
    lower = np.array([j.lower for j in joints], dtype=int)
    n = len(joints)

    # Each unknown's load per unit on its joint's upper brick, as (joint, column, wrench row, value) entries.
    entries: list[tuple[np.ndarray, np.ndarray, int, np.ndarray]] = []
    # A point holding the brick down against a pull t is loaded by +t up there: moment (dy, -dx) t.
    pt_joint = np.repeat(np.arange(n), n_pts)
    pt_col = first[pt_joint] + np.arange(int(n_pts.sum())) - np.repeat(np.cumsum(n_pts) - n_pts, n_pts)
    d = np.concatenate([j.points for j in joints]).reshape(-1, 2) - origin[:2] if n else np.zeros((0, 2))
    entries += [(pt_joint, pt_col, 2, np.ones(len(d))), (pt_joint, pt_col, 3, d[:, 1]),
                (pt_joint, pt_col, 4, -d[:, 0])]
    # The support pushing up with c at a bearing point takes a load of c down there.
    bear_joint = np.repeat(np.arange(n), n_bear)
    bear_col = (first[bear_joint] + np.repeat(n_pts, n_bear) + np.arange(int(n_bear.sum()))
                - np.repeat(np.cumsum(n_bear) - n_bear, n_bear))
    d = np.concatenate([j.bearing for j in joints]).reshape(-1, 2) - origin[:2] if n else np.zeros((0, 2))
    entries += [(bear_joint, bear_col, 2, -np.ones(len(d))), (bear_joint, bear_col, 3, -d[:, 1]),
                (bear_joint, bear_col, 4, d[:, 0])]
    # Shear at the centre, and torsion.
    every = np.arange(n)
    dx, dy, dz = (np.array([j.centre for j in joints]).reshape(-1, 3) - origin).T
    shear_x, shear_y, torsion = first + n_pts + n_bear, first + n_pts + n_bear + 1, first + n_pts + n_bear + 2
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
    # A side contact pushes b along its normal and a against it, at either end of the shared face.
    if sides:
        ends = np.array([s.ends for s in sides]).reshape(-1, 3) - origin  # (2 per side, 3)
        normals = np.repeat(np.array([s.normal for s in sides]), 2, axis=0)
        wrench = np.concatenate([normals, np.cross(ends, normals)], axis=1)  # (2 per side, 6)
        col = n_joint_vars + np.arange(2 * len(sides))
        for brick, sign in ((np.repeat([s.b for s in sides], 2), 1.0), (np.repeat([s.a for s in sides], 2), -1.0)):
            # Written as A x = loads, A holds minus what the contact does to the brick.
            rows.append((6 * brick[:, None] + np.arange(6)).ravel())
            cols.append(np.repeat(col, 6))
            vals.append((-sign * wrench).ravel())
    a_eq = scipy.sparse.csr_array((np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))),
                                  shape=(6 * n_bricks, n_vars))
    lo = np.zeros(n_vars)
    hi = np.full(n_vars, np.inf)
    hi[pt_col] = point_n
    lo[np.concatenate([shear_x, shear_y, torsion])] = -np.inf
    res = scipy.optimize.linprog(np.zeros(n_vars), A_eq=a_eq, b_eq=np.asarray(loads, dtype=float).ravel(),
                                 bounds=np.stack([lo, hi], axis=1), method="highs")
    return bool(res.status == 0)


def assembly_joints(assembly: Assembly, lattice_origin: Sequence[float], baseplate: bool,
                    bear_on_points: bool = True) -> list[Joint]:
    """Every connection of an assembly seated on the lattice, bricks indexed in the assembly's order; level-0
    bricks stand on the ground (clutched to a baseplate, resting on a bare table)."""
    index = {b.id: k for k, b in enumerate(assembly)}
    out = []
    for k, b in enumerate(assembly):
        z = lattice_origin[2] + b.z * u.PLATE_HEIGHT_M
        mine = b.cells()
        if b.z == 0:
            out.append(joint_on_cells(k, GROUND, mine, lattice_origin, z, studs=baseplate, footprint=mine,
                                      bear_on_points=bear_on_points))
            continue
        for s in assembly.supports(b.id):
            engaged = set(mine).intersection(assembly[s].cells())
            out.append(joint_on_cells(k, index[s], engaged, lattice_origin, z, footprint=mine,
                                      bear_on_points=bear_on_points))
    return out


_SIDES = ((1, 0), (0, 1))  # a face shared with the neighbour at +x, at +y (each pair is found once)


def side_contacts(bricks: Sequence[LatticeBrick], lattice_origin: Sequence[float]) -> list[SideContact]:
    """Every pair of bricks side by side on common levels, with the face they share (see SideContact)."""
    owner: dict[tuple[int, int, int], int] = {}
    for k, b in enumerate(bricks):
        for x, y in b.cells():
            for z in range(b.z, b.top):
                owner[(x, y, z)] = k
    faces: dict[tuple[int, int, int], list[tuple[int, int, int]]] = {}  # (a, b, axis) -> cells of a on the face
    for (x, y, z), k in owner.items():
        for axis, (ox, oy) in enumerate(_SIDES):
            other = owner.get((x + ox, y + oy, z))
            if other is not None and other != k:
                faces.setdefault((k, other, axis), []).append((x, y, z))
    origin = np.asarray(lattice_origin, dtype=float)
    out = []
    for (first, second, axis), cells in sorted(faces.items()):
        c = np.array(cells)
        z_mid = (c[:, 2].min() + c[:, 2].max() + 1) / 2 * u.PLATE_HEIGHT_M
        along = 1 - axis
        at = c[:, axis].max() + 1.0  # the face lies on the far side of a's cells
        ends = []
        for v in (c[:, along].min(), c[:, along].max() + 1.0):
            xy = [0.0, 0.0]
            xy[axis], xy[along] = at, v
            ends.append([xy[0] * u.STUD_PITCH_M, xy[1] * u.STUD_PITCH_M, z_mid])
        normal = np.zeros(3)
        normal[axis] = 1.0
        out.append(SideContact(first, second, np.array(ends) + origin, normal))
    return out


def gravity_loads(bricks: Sequence[LatticeBrick], lattice_origin: Sequence[float], origin: np.ndarray,
                  masses_kg: Sequence[float] | None = None) -> np.ndarray:
    """Each brick's weight at its centre (its catalog mass, or `masses_kg`), as loads for `admissible` (moment
    about `origin`)."""
    n = len(bricks)
    mass = np.array([b.spec.mass_kg for b in bricks] if masses_kg is None else masses_kg, dtype=float).reshape(n)
    at = np.array([b.center_m() for b in bricks], dtype=float).reshape(n, 3) + np.asarray(lattice_origin, dtype=float)
    at -= origin
    out = np.zeros((n, 6))
    out[:, 2] = -mass * GRAVITY_M_S2
    out[:, 3:] = np.cross(at, out[:, :3])
    return out


def stands(assembly: Assembly, lattice_origin: Sequence[float], baseplate: bool,
           point_n: float = clutch_model.CONTACT_POINT_CLUTCH_N, masses_kg: Sequence[float] | None = None,
           extra: np.ndarray | None = None, bear_on_points: bool = True) -> bool:
    """Whether an assembly carries its own weight (and `extra` loads about the joints' mean centre, if given)."""
    bricks = list(assembly)
    if not bricks:
        return True
    joints = assembly_joints(assembly, lattice_origin, baseplate, bear_on_points)
    origin = np.mean([j.centre for j in joints], axis=0)
    loads = gravity_loads(bricks, lattice_origin, origin, masses_kg)
    if extra is not None:
        loads = loads + extra
    return admissible(joints, loads, origin, point_n, side_contacts(bricks, lattice_origin))


def engaged_cells(assembly: Assembly, brick_id: str) -> list[Cell]:
    """The cells whose studs a seated brick takes (all of its own on level 0)."""
    b = assembly[brick_id]
    mine = set(b.cells())
    if not b.z:
        return sorted(mine)
    return sorted({c for s in assembly.supports(brick_id) for c in mine.intersection(assembly[s].cells())})


def engaged_centre(assembly: Assembly, brick_id: str, lattice_origin: Sequence[float]) -> tuple[float, float]:
    """World (x, y) of the middle of the studs a seated brick takes (all of its own cells on level 0): pressed
    there, a brick on a cantilevered support pushes straight into it."""
    cells = engaged_cells(assembly, brick_id)
    xy = (np.array(cells, dtype=float) + 0.5).mean(axis=0) * u.STUD_PITCH_M + np.asarray(lattice_origin[:2], dtype=float)
    return float(xy[0]), float(xy[1])
