"""Where a brick can take its seating press, and a build order in which every brick can: what one arm can build.

A brick seats only when pressed on (jarvis_sim/lego/clutch_model.py: the seating press, its own figure). One arm
presses from above: the structure under the brick must carry that press and everyone's weight, by StableLego's
admissibility test (jarvis_sim/lego/statics.py). A brick can take it at its centre, where a gripper holds a brick,
or over the studs it engages (off-centre: skills/library place(press_supported=True)); where neither keeps the
structure whole, no single arm can build it there, since only a second hand under the overhang would help.

`single_arm_order` orders a build layer by layer (as manuals do), postponing a brick that cannot take its press yet
until the bricks that steady its support are in (a counterweight on the far end of a cantilever), and names the
bricks that cannot be built in any order it tries, with every brick resting on them.

The test is exact and costs a linear programme, so two facts keep it cheap: the ground is rigid, so only the
cluster of bricks linked to the pressed one (by clutch or by shared faces, not through the ground) takes part; and
a brick sitting with every cell on a solid column down to the ground pushes its press and weight straight down
those columns, so it needs no programme at all.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from jarvis_sim.lego import clutch_model
from jarvis_sim.lego.assembly import Assembly, LatticeBrick
from jarvis_sim.lego.statics import (
    GROUND,
    admissible,
    assembly_joints,
    engaged_centre,
    gravity_loads,
    side_contacts,
)

PressPoint = tuple[float, float] | bool | None  # None: at the centre; (x, y): over the engaged studs; False: nowhere
SEAT_PRESS_N = clutch_model.SEAT_PRESS_N


def _cluster(n: int, links: Sequence[tuple[int, int]], k: int) -> np.ndarray:
    """Indices of the bricks linked to brick k (k included), ground links left out."""
    adj: list[list[int]] = [[] for _ in range(n)]
    for a, b in links:
        if a != GROUND and b != GROUND:
            adj[a].append(b)
            adj[b].append(a)
    seen = {k}
    todo = [k]
    while todo:
        for j in adj[todo.pop()]:
            if j not in seen:
                seen.add(j)
                todo.append(j)
    return np.array(sorted(seen))


def press_admissible(assembly: Assembly, brick_id: str, press_n: float, lattice_origin: Sequence[float],
                     baseplate: bool, point_n: float = clutch_model.CONTACT_POINT_CLUTCH_N,
                     at: tuple[float, float] | None = None) -> bool:
    """Whether an assembly (with `brick_id` seated in it) carries its weight and `press_n` pressed straight down on
    that brick at world (x, y) `at` (default: its centre): whether the brick can be pressed on there without
    breaking what is under it. Only the cluster linked to the brick other than through the ground is analysed."""
    bricks = list(assembly)
    k = assembly.index[brick_id]
    joints = assembly_joints(assembly, lattice_origin, baseplate)
    sides = side_contacts(bricks, lattice_origin)
    members = _cluster(len(bricks), [(j.upper, j.lower) for j in joints] + [(s.a, s.b) for s in sides], k)
    local = np.full(len(bricks), -1)
    local[members] = np.arange(len(members))
    joints = [type(j)(int(local[j.upper]), GROUND if j.lower == GROUND else int(local[j.lower]), j.points, j.bearing,
                      j.z, j.middle) for j in joints if local[j.upper] >= 0]
    sides = [type(s)(int(local[s.a]), int(local[s.b]), s.ends, s.normal) for s in sides if local[s.a] >= 0]
    cluster = [bricks[i] for i in members]
    origin = np.mean([j.centre for j in joints], axis=0)
    loads = gravity_loads(cluster, lattice_origin, origin)
    point = np.asarray(bricks[k].center_m()) + np.asarray(lattice_origin, dtype=float)  # a vertical press: any z
    if at is not None:
        point[:2] = at
    press = np.array([0.0, 0.0, -press_n])
    i = int(local[k])
    loads[i, :3] += press
    loads[i, 3:] += np.cross(point - origin, press)
    return admissible(joints, loads, origin, point_n, sides)


def press_point(assembly: Assembly, brick_id: str, lattice_origin: Sequence[float], baseplate: bool,
                press_n: float = SEAT_PRESS_N, point_n: float = clutch_model.CONTACT_POINT_CLUTCH_N) -> PressPoint:
    """Where a brick seated in `assembly` (the structure built so far) can take its seating press with everything's
    weight on the structure: None at its centre (where a gripper holds a brick), the world (x, y) m of its engaged
    studs' middle when only there, False when nowhere."""
    if press_admissible(assembly, brick_id, press_n, lattice_origin, baseplate, point_n):
        return None
    at = engaged_centre(assembly, brick_id, lattice_origin)
    return at if press_admissible(assembly, brick_id, press_n, lattice_origin, baseplate, point_n, at=at) else False


class _Columns:
    """Which lattice columns are solid from the ground up to their top, as bricks are added in build order."""

    def __init__(self) -> None:
        self.top: dict[tuple[int, int], int] = {}
        self.solid: dict[tuple[int, int], bool] = {}

    def on_solid(self, b: LatticeBrick) -> bool:
        """True when every cell of `b` lands on a solid column (or the ground), so its loads go straight down."""
        return all(self.top.get(c, 0) == b.z and self.solid.get(c, True) for c in b.cells())

    def add(self, b: LatticeBrick) -> None:
        for c in b.cells():
            self.solid[c] = self.solid.get(c, True) and self.top.get(c, 0) == b.z
            self.top[c] = max(self.top.get(c, 0), b.top)


def single_arm_order(bricks: Sequence[LatticeBrick], baseplate: bool, lattice_origin: Sequence[float] = (0, 0, 0),
                     present: Sequence[LatticeBrick] = (), press_n: float = SEAT_PRESS_N,
                     point_n: float = clutch_model.CONTACT_POINT_CLUTCH_N,
                     ) -> tuple[list[tuple[LatticeBrick, PressPoint]], list[LatticeBrick]]:
    """Order `bricks` (given in a buildable order, supports first) onto `present` so that each can take its press.

    Returns (the bricks built, in order, each with where it is pressed) and (the bricks no single arm can build
    here: their press breaks the structure wherever it goes, or they rest on such a brick). A brick that cannot take
    its press yet waits, with whatever rests on it, and is tried again after each later brick that goes in (its
    support may be steadied by it)."""
    supports = {b.id: set(Assembly([*present, *bricks], baseplate=baseplate).supports(b.id)) for b in bricks}
    columns = _Columns()
    built = list(present)
    for b in built:
        columns.add(b)
    placed = {b.id for b in built}
    out: list[tuple[LatticeBrick, PressPoint]] = []
    waiting: list[LatticeBrick] = []

    def attempt(b: LatticeBrick) -> bool:
        if not supports[b.id] <= placed:
            return False
        where: PressPoint = None
        if not columns.on_solid(b):
            where = press_point(Assembly([*built, b], baseplate=baseplate), b.id, lattice_origin, baseplate, press_n,
                                point_n)
            if where is False:
                return False
        built.append(b)
        placed.add(b.id)
        columns.add(b)
        out.append((b, where))
        return True

    for b in bricks:
        if not attempt(b):
            waiting.append(b)
            continue
        progress = True  # something new stands: what waits may take its press now, and enable the next
        while progress and waiting:
            progress = False
            for w in list(waiting):
                if attempt(w):
                    waiting.remove(w)
                    progress = True
    return out, waiting
