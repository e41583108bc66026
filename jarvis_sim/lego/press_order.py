"""Where a brick can take its seating press, and a build order in which every brick can: what one arm can build.

A brick seats only when pressed on (jarvis_sim/lego/clutch_model.py: the seating press, its own figure). One arm
presses from above: the structure under the brick must carry that press and everyone's weight, by StableLego's
admissibility test (jarvis_sim/lego/statics.py). A brick can take it at its centre, where a gripper holds a brick,
or over the studs it engages (off-centre: skills/library place(press_supported=True)); where neither keeps the
structure whole, no single arm can build it there, since only a second hand under the overhang would help.

`single_arm_order` orders a build layer by layer (as manuals do), postponing a brick that cannot take its press yet
until the bricks that steady its support are in (a counterweight on the far end of a cantilever), and names the
bricks that cannot be built in any order it tries, with every brick resting on them.

The test is exact and costs a linear programme, so three things keep it cheap: a `Structure` keeps each brick's
connections as it goes in (they never change once it is seated); the ground is rigid, so only the cluster of bricks
linked to the pressed one (by clutch or by shared faces, not through the ground) takes part; and a brick sitting
with every cell on a solid column down to the ground pushes its press and weight straight down those columns, so it
needs no programme at all.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from jarvis_sim.lego import clutch_model
from jarvis_sim.lego import units as u
from jarvis_sim.lego.assembly import Assembly, LatticeBrick
from jarvis_sim.lego.statics import GROUND, Joint, SideContact, admissible, gravity_loads, joint_on_cells

PressPoint = tuple[float, float] | bool | None  # None: at the centre; (x, y): over the engaged studs; False: nowhere
# The seating press, per connection the brick makes (the MuJoCo backend, like BrickSim, registers each connection with
# its own press): a brick bridging two supports is pressed with twice this. `press_n` None below means that figure.
SEAT_PRESS_N = clutch_model.SEAT_PRESS_N
RETRIES = 3  # layers a brick that cannot take its press yet waits for one that steadies its support


Cell = tuple[int, int]
_DIRECTIONS = ((1, 0, 0), (-1, 0, 0), (0, 1, 1), (0, -1, 1))  # (dx, dy, axis)


class Structure:
    """Bricks seated one after another on the lattice, with each one's connections (statics' joints, and faces
    shared with its neighbours) found as it goes in, and which columns are solid down to the ground."""

    def __init__(self, baseplate: bool, lattice_origin: Sequence[float] = (0.0, 0.0, 0.0)):
        self.baseplate = baseplate
        self.origin = tuple(float(v) for v in lattice_origin)
        self.bricks: list[LatticeBrick] = []
        self.index: dict[str, int] = {}
        self.joints: list[list[Joint]] = []  # per brick, the joints it stands on
        self.engaged: list[list[Cell]] = []  # per brick, the cells whose studs it takes (its own on level 0)
        self.sides: list[list[SideContact]] = []  # per brick, the faces it shares with bricks seated before it
        self.links: list[set[int]] = []  # per brick, the bricks linked to it other than through the ground
        self.owner: dict[tuple[int, int, int], int] = {}  # (x, y, plate level) -> brick
        self.top: dict[Cell, int] = {}
        self.solid: dict[Cell, bool] = {}

    def __len__(self) -> int:
        return len(self.bricks)

    def on_solid(self, b: LatticeBrick) -> bool:
        """True when every cell of `b` lands on a solid column (or the ground), so its loads go straight down."""
        return all(self.top.get(c, 0) == b.z and self.solid.get(c, True) for c in b.cells())

    def supports(self, b: LatticeBrick) -> dict[int, list[Cell]]:
        """The seated bricks whose studs `b` would take, with the cells engaged (a tile's smooth top holds none)."""
        out: dict[int, list[Cell]] = {}
        if b.z == 0:
            return out
        for x, y in b.cells():
            k = self.owner.get((x, y, b.z - 1))
            if k is not None and self.bricks[k].top == b.z and self.bricks[k].spec.studded:
                out.setdefault(k, []).append((x, y))
        return out

    def _connections(self, b: LatticeBrick, k: int) -> tuple[list[Joint], list[SideContact]]:
        z = self.origin[2] + b.z * u.PLATE_HEIGHT_M
        mine = b.cells()
        joints = []
        if b.z == 0:
            joints.append(joint_on_cells(k, GROUND, mine, self.origin, z, studs=self.baseplate, footprint=mine))
        for s, cells in sorted(self.supports(b).items()):
            joints.append(joint_on_cells(k, s, cells, self.origin, z, footprint=mine))
        # A brick seated before it whose underside takes this one's studs hangs from it (StableLego's sticks).
        for s, cells in sorted(self._hanging(b).items()):
            joints.append(joint_on_cells(s, k, cells, self.origin, self.origin[2] + b.top * u.PLATE_HEIGHT_M,
                                         footprint=self.bricks[s].cells()))
        faces: dict[tuple[int, int, int, int], list[tuple[int, int, int]]] = {}  # (other, dx, dy, axis) -> cells
        for x, y in mine:
            for level in range(b.z, b.top):
                for dx, dy, axis in _DIRECTIONS:
                    other = self.owner.get((x + dx, y + dy, level))
                    if other is not None and other != k:
                        faces.setdefault((other, dx, dy, axis), []).append((x, y, level))
        sides = []
        for (other, dx, dy, axis), on_face in sorted(faces.items()):
            c = np.array(on_face)
            z_mid = self.origin[2] + (c[:, 2].min() + c[:, 2].max() + 1) / 2 * u.PLATE_HEIGHT_M
            along = 1 - axis
            at = c[:, axis].max() + 1.0 if dx + dy > 0 else c[:, axis].min()  # the face between the two
            ends = []
            for v in (c[:, along].min(), c[:, along].max() + 1.0):
                xy = [0.0, 0.0]
                xy[axis], xy[along] = at, v
                ends.append([xy[0] * u.STUD_PITCH_M + self.origin[0], xy[1] * u.STUD_PITCH_M + self.origin[1], z_mid])
            normal = np.zeros(3)
            normal[axis] = 1.0
            first, second = (k, other) if dx + dy > 0 else (other, k)  # the normal runs from first to second
            sides.append(SideContact(first, second, np.array(ends), normal))
        return joints, sides

    def _hanging(self, b: LatticeBrick) -> dict[int, list[Cell]]:
        """The seated bricks whose undersides take `b`'s studs (seated before it: StableLego's sticks hang so)."""
        out: dict[int, list[Cell]] = {}
        if not b.spec.studded:
            return out
        for x, y in b.cells():
            k = self.owner.get((x, y, b.top))
            if k is not None and self.bricks[k].z == b.top:
                out.setdefault(k, []).append((x, y))
        return out

    def add(self, b: LatticeBrick) -> None:
        """Seat `b`."""
        k = len(self.bricks)
        joints, sides = self._connections(b, k)
        self.bricks.append(b)
        self.index[b.id] = k
        self.joints.append([j for j in joints if j.upper == k])
        self.engaged.append(b.cells() if b.z == 0 else sorted(c for cells in self.supports(b).values() for c in cells))
        self.sides.append(sides)
        self.links.append(set())
        for j in joints:
            if j.upper != k:  # a brick seated before, hanging from this one
                self.joints[j.upper].append(j)
        for j in joints:
            if j.lower != GROUND:
                self.links[j.upper].add(j.lower)
                self.links[j.lower].add(j.upper)
        for s in sides:
            other = s.b if s.a == k else s.a
            self.links[k].add(other)
            self.links[other].add(k)
        for x, y in b.cells():
            for level in range(b.z, b.top):
                self.owner[(x, y, level)] = k
            self.solid[(x, y)] = self.solid.get((x, y), True) and self.top.get((x, y), 0) == b.z
            self.top[(x, y)] = max(self.top.get((x, y), 0), b.top)

    def press_admissible(self, k: int, press_n: float, at: tuple[float, float] | None = None,
                         point_n: float = clutch_model.CONTACT_POINT_CLUTCH_N) -> bool:
        """Whether the structure carries its weight and `press_n` pressed straight down on brick k at world (x, y)
        `at` (default: its centre). Only the cluster linked to brick k other than through the ground is analysed."""
        seen, todo = {k}, [k]
        while todo:
            for j in self.links[todo.pop()]:
                if j not in seen:
                    seen.add(j)
                    todo.append(j)
        members = sorted(seen)
        local = {m: i for i, m in enumerate(members)}
        joints = [Joint(local[j.upper], GROUND if j.lower == GROUND else local[j.lower], j.points, j.bearing, j.z,
                        j.middle) for m in members for j in self.joints[m]]
        sides = [SideContact(local[s.a], local[s.b], s.ends, s.normal) for m in members for s in self.sides[m]
                 if s.a in local and s.b in local]
        sides = list({(s.a, s.b, tuple(s.ends.ravel())): s for s in sides}.values())  # each face once
        cluster = [self.bricks[m] for m in members]
        origin = np.mean([j.centre for j in joints], axis=0)
        loads = gravity_loads(cluster, self.origin, origin)
        point = np.asarray(self.bricks[k].center_m()) + np.asarray(self.origin)  # a vertical press: any z
        if at is not None:
            point[:2] = at
        press = np.array([0.0, 0.0, -press_n])
        i = local[k]
        loads[i, :3] += press
        loads[i, 3:] += np.cross(point - origin, press)
        return admissible(joints, loads, origin, point_n, sides)

    def engaged_centre(self, k: int) -> tuple[float, float]:
        """World (x, y) of the middle of the studs brick k takes (all of its own cells on level 0)."""
        xy = (np.array(self.engaged[k], dtype=float) + 0.5).mean(axis=0) * u.STUD_PITCH_M + np.asarray(self.origin[:2])
        return float(xy[0]), float(xy[1])

    def press_point(self, b: LatticeBrick, press_n: float | None = None,
                    point_n: float = clutch_model.CONTACT_POINT_CLUTCH_N, keep: bool = True) -> PressPoint:
        """Where `b`, seated next, can take its seating press with everything's weight on the structure: None at its
        centre (where a gripper holds a brick), the world (x, y) m of its engaged studs' middle when only there,
        False when nowhere. It stays seated when `keep` and it can take its press."""
        solid = self.on_solid(b)
        saved = (dict(self.top), dict(self.solid))
        self.add(b)
        k = len(self.bricks) - 1
        where: PressPoint = None
        force = len(self.joints[k]) * SEAT_PRESS_N if press_n is None else press_n
        if not solid and not self.press_admissible(k, force, point_n=point_n):
            at = self.engaged_centre(k)
            where = at if self.press_admissible(k, force, at, point_n) else False
        if where is False or not keep:
            self._remove_last(saved)
        return where

    def _remove_last(self, saved: tuple[dict[Cell, int], dict[Cell, bool]]) -> None:
        b = self.bricks.pop()
        k = len(self.bricks)
        del self.index[b.id]
        self.joints.pop()
        self.engaged.pop()
        self.sides.pop()
        for js in self.joints:  # a brick hanging from it loses that joint
            js[:] = [j for j in js if j.lower != k]
        for other in self.links.pop():
            self.links[other].discard(k)
        for x, y in b.cells():
            for level in range(b.z, b.top):
                del self.owner[(x, y, level)]
        self.top, self.solid = saved


def press_point(assembly: Assembly, brick_id: str, lattice_origin: Sequence[float], baseplate: bool,
                press_n: float | None = None, point_n: float = clutch_model.CONTACT_POINT_CLUTCH_N) -> PressPoint:
    """Structure.press_point of a brick of `assembly` (the structure built so far) seated last."""
    structure = Structure(baseplate, lattice_origin)
    for b in assembly:
        if b.id != brick_id:
            structure.add(b)
    return structure.press_point(assembly[brick_id], press_n, point_n, keep=False)


def single_arm_order(bricks: Sequence[LatticeBrick], baseplate: bool, lattice_origin: Sequence[float] = (0, 0, 0),
                     present: Sequence[LatticeBrick] = (), press_n: float | None = None,
                     point_n: float = clutch_model.CONTACT_POINT_CLUTCH_N,
                     ) -> tuple[list[tuple[LatticeBrick, PressPoint]], list[LatticeBrick]]:
    """Order `bricks` (given in a buildable order, supports first) onto `present` so that each can take its press.

    Returns (the bricks built, in order, each with where it is pressed) and (the bricks no single arm can build
    here: their press breaks the structure wherever it goes, or they rest on such a brick). A brick that cannot take
    its press yet waits, with whatever rests on it or stands over it, and is tried again after each later layer
    (its support may be steadied by it), at most RETRIES times."""
    whole = Assembly([*present, *bricks], baseplate=baseplate)
    supports = {b.id: set(whole.supports(b.id)) for b in bricks}
    structure = Structure(baseplate, lattice_origin)
    for b in present:
        structure.add(b)
    out: list[tuple[LatticeBrick, PressPoint]] = []
    waiting: list[LatticeBrick] = []

    def attempt(b: LatticeBrick) -> bool:
        if not supports[b.id] <= structure.index.keys():
            return False
        mine = set(b.cells())  # nothing goes in over a brick still waiting: that one could not come from above
        if any(w is not b and w.z < b.z and mine.intersection(w.cells()) for w in waiting):
            return False
        where = structure.press_point(b, press_n, point_n)
        if where is False:
            return False
        out.append((b, where))
        return True

    tries: dict[str, int] = {}
    level = bricks[0].z if bricks else 0
    for b in bricks:
        if b.z != level:  # a layer is complete: what waits may take its press now (one success may enable the next)
            level = b.z
            _retry(waiting, tries, attempt)
        if not attempt(b):
            waiting.append(b)
    _retry(waiting, tries, attempt)
    return out, waiting


def _retry(waiting: list[LatticeBrick], tries: dict[str, int], attempt: Callable[[LatticeBrick], bool]) -> None:
    """Try the waiting bricks again, each at most RETRIES times (a counterweight comes within a layer or two)."""
    progress = True
    while progress:
        progress = False
        for w in list(waiting):
            if tries.get(w.id, 0) >= RETRIES:
                continue
            tries[w.id] = tries.get(w.id, 0) + 1
            if attempt(w):
                waiting.remove(w)
                progress = True
