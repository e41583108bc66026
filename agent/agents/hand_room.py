"""The oracle's hand model: the grips that leave every part of the hand (skills/hand.py) clear of the bricks
standing beside a brick while it is pressed on and let go, and the order of a task's bricks that keeps such a grip
for each (grip_order). agent/agents/oracle.py builds in that order; bench statics measures the hand's ceiling with it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from jarvis_sim.lego.assembly import Assembly, LatticeBrick, brick_pose_in_world
from jarvis_sim.lego.units import PLATE_HEIGHT_M, STUD_PITCH_M
from skills.hand import PAD, Obstacle, struck
from skills.library.task import RELEASE_OPENING_MM


def grip_order(bricks: list[LatticeBrick], present: list[LatticeBrick], target: Assembly,
               origin: tuple[float, float, float], step_of: dict[str, int] | None = None) -> list[str]:
    """Ids of `bricks` (in the manual's order; `step_of` gives each one's manual step, one step when None) in a
    buildable order (supports first) that places each brick while the hand still has room beside it.

    The rule (_Room.next_brick): the next brick comes from the earliest step with a brick ready (its supports placed), one
    the hand has room for first; a brick whose placing would take the last grip of another ready brick waits for that
    one, which may come from a later step: a real builder lays a plate whose fingers need the room beside it before
    the neighbour that fills it. Where the rule, followed to the end, would still leave bricks without room (two
    neighbours each taking one of a third brick's grips) or needing a regrasp (only a grip across the long side
    left), each choice is the ready brick after which the rule's bricks cost least (_Room.cost; a rollout, the rule's
    own choice on a tie, so never worse than the rule alone). Measured on jarvis-v2's
    random_stack/003: two plates on one stud each, placed after the neighbours of the manual's earlier steps, had no
    room for the fingers and landed 12.5 and 16.6 mm off."""
    room = _Room(bricks, present, target, origin, step_of or {})
    state = room.start()
    order = []
    while state.left:
        b = room.next_brick(state)
        if room.cost(state, b) + room.rollout(room.place(state, b)) > 0:
            options = [b] + [c for c in room.ready(state) if c != b]
            b = min(options, key=lambda c: room.cost(state, c) + room.rollout(room.place(state, c)))
        order.append(b)
        state = room.place(state, b)
    return order


REGRASPS_PER_HEMMED_IN = 3  # a brick with no room for the fingers lands off its studs: worse than any regrasp


@dataclass(frozen=True)
class _State:
    """Bricks placed, bricks left (in the manual's order) and the grips each brick left still has."""

    placed: frozenset[str]
    left: tuple[str, ...]
    grips: dict[str, tuple[int, ...]]


class _Room:
    """grip_order's bookkeeping: each brick's grips clear of the bricks present at the start (free_grips), and which
    grips a brick placed later strikes (a fixed fact of the target's poses, worked out once per pair)."""

    def __init__(self, bricks: list[LatticeBrick], present: list[LatticeBrick], target: Assembly,
                 origin: tuple[float, float, float], step_of: dict[str, int]):
        self.bricks = {b.id: b for b in bricks}
        self.origin = origin
        self.step_of = step_of
        self.supports = {b.id: set(target.supports(b.id)) for b in bricks}
        self.present = frozenset(b.id for b in present)
        self.short_span = {b.id: min(b.extent) * STUD_PITCH_M * 1000.0 + 1e-6 for b in bricks}
        self.all_grips = {b.id: free_grips(b, present, origin) for b in bricks}
        self._struck: dict[tuple[str, str, int], bool] = {}

    def start(self) -> _State:
        return _State(self.present, tuple(self.bricks),
                      {bid: tuple(range(len(g))) for bid, g in self.all_grips.items()})

    def strikes(self, b: str, y: str, g: int) -> bool:
        """Whether brick b, placed, stands where the hand would be in brick y's grip g."""
        key = (b, y, g)
        if key not in self._struck:
            self._struck[key] = _grip_struck(self.bricks[y], self.all_grips[y][g], [self.bricks[b]], self.origin)
        return self._struck[key]

    def ready(self, state: _State) -> list[str]:
        return [b for b in state.left if self.supports[b] <= state.placed] or list(state.left)

    def place(self, state: _State, b: str) -> _State:
        grips = dict(state.grips)
        for y in state.left:
            if y != b:
                grips[y] = tuple(g for g in grips[y] if not self.strikes(b, y, g))
        return _State(state.placed | {b}, tuple(y for y in state.left if y != b), grips)

    def hems(self, state: _State, b: str, ready: list[str]) -> list[str]:
        """The ready bricks b would take the last grips of."""
        return [y for y in ready if y != b and state.grips[y] and all(self.strikes(b, y, g) for g in state.grips[y])]

    def next_brick(self, state: _State) -> str:
        """The rule: of the earliest step's ready bricks (those the hand has room for first) and the ready bricks they
        would hem in, the first in the manual's order that hems in none; if they hem each other in, the one hemming in
        fewest, a brick that would itself be hemmed in before one that would not."""
        ready = self.ready(state)
        first = min(self.step_of.get(b, 0) for b in ready)
        pool = sorted((b for b in ready if self.step_of.get(b, 0) == first), key=lambda b: not state.grips[b])
        edges: dict[str, list[str]] = {}
        k = 0
        while k < len(pool):  # the step's bricks and, transitively, what they would hem in
            edges[pool[k]] = self.hems(state, pool[k], ready)
            pool += [y for y in edges[pool[k]] if y not in pool]
            k += 1
        free = [b for b in pool if not edges[b]]
        if free:
            return free[0]
        hemmed = {y for ys in edges.values() for y in ys}
        return min(pool, key=lambda b: (len(edges[b]), b not in hemmed, pool.index(b)))

    def cost(self, state: _State, b: str) -> int:
        """What placing b now costs the hand: nothing with a grip across its short side (the pick's) left, a regrasp
        (set down, picked across its long side: slower, and a wide plate held by its ends can turn in the pads)
        with only a grip across its long side, REGRASPS_PER_HEMMED_IN regrasps' worth with no grip left."""
        if any(self.all_grips[b][g][3] <= self.short_span[b] for g in state.grips[b]):
            return 0
        return 1 if state.grips[b] else REGRASPS_PER_HEMMED_IN

    def rollout(self, state: _State) -> int:
        """The cost of the bricks the rule, followed from `state` to the end, places."""
        total = 0
        while state.left:
            b = self.next_brick(state)
            total += self.cost(state, b)
            state = self.place(state, b)
        return total


def hand_fits(b: LatticeBrick, present: list[LatticeBrick], origin: tuple[float, float, float],
              off_centre: bool = False) -> bool:
    """True when, for one grip (fingers across either pair of sides), no brick present stands where a part of the hand
    (skills/hand.py: pads, upper fingers, the hand's body) would be while it presses this brick on and lets it go.

    The skills grip a brick at its centre. `off_centre` also tries grips shifted along the pads' width in 1 mm steps,
    as far as the pads stay on the brick (bench statics measures what such grips would add)."""
    return bool(free_grips(b, present, origin, off_centre))


HAND_REACH_MM = 120.0  # farther than any hand box's corner from the tool axis (skills/hand.py: body 20 x 95 mm)
Grip = tuple[float, float, float, float]  # the tool's x, y (mm), its yaw (rad), the brick's span between the pads (mm)


def free_grips(b: LatticeBrick, present: list[LatticeBrick], origin: tuple[float, float, float],
               off_centre: bool = False) -> list[Grip]:
    """The grips of hand_fits that no brick present strikes."""
    (x, y, _), _ = brick_pose_in_world(b, origin)
    pitch = STUD_PITCH_M * 1000.0
    ex, ey = b.extent
    out = []
    for yaw, span, along in ((0.0, ey * pitch, ex * pitch), (math.pi / 2, ex * pitch, ey * pitch)):
        reach = int(along / 2 - PAD.half_along_mm - 0.5) if off_centre else 0  # fingers close along y, along x
        for off in sorted(range(-reach, reach + 1), key=abs):
            grip = (x * 1000.0 + off * math.cos(yaw), y * 1000.0 + off * math.sin(yaw), yaw, span)
            if not _grip_struck(b, grip, present, origin):
                out.append(grip)
    return out


def _grip_struck(b: LatticeBrick, grip: Grip, present: list[LatticeBrick], origin: tuple[float, float, float]) -> bool:
    """Whether a brick present stands where the hand would be, gripping `b` so while pressing it on and letting go."""
    (_, _, z), _ = brick_pose_in_world(b, origin)
    tips = z * 1000.0 + 1.0  # the fingertips' lowest point pressing (skills: about 2 mm above the brick's bottom)
    pitch = STUD_PITCH_M * 1000.0
    gx, gy, yaw, span = grip
    obstacles = []
    for p in present:
        (px, py, pz), _ = brick_pose_in_world(p, origin)
        if math.hypot(px * 1000.0 - gx, py * 1000.0 - gy) > HAND_REACH_MM + math.hypot(*p.extent) * pitch / 2:
            continue  # out of the hand's reach: no box of it comes near
        obstacles.append(Obstacle((px * 1000.0, py * 1000.0), 0.0, (p.extent[0] * pitch / 2 - 0.3,
                                  p.extent[1] * pitch / 2 - 0.3), (pz + (p.top - p.z) * PLATE_HEIGHT_M) * 1000.0))
    return bool(struck(gx, gy, yaw, (span, span + RELEASE_OPENING_MM), tips, obstacles))
