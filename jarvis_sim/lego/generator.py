"""Seeded procedural generator of buildable LEGO assemblies with a build order.

Every brick is *dropped* onto a height map of the build area: it lands at the highest top level under
its footprint. That single rule makes every generated order buildable by construction (each brick
comes down from above onto existing studs or level 0, nothing is ever placed under an overhang) and
overlap-free; `Assembly.validate` is still run on the result as a guard.

Buildable by one arm, too (`GeneratorConfig.single_arm`): every brick must take its seating press from above, where
the skills press, with everything's weight on the structure (jarvis_sim/lego/press_order.py, StableLego's statics).
A dropped piece that could not is refused, as one that does not fit is (the course tries another piece). The build
then goes layer by layer, as manuals do, and is checked again in that order: a brick that cannot take its press yet
waits for the bricks that steady its support; one that cannot in any order, and whatever rests on it, is left out,
and the build goes on from what is left until the assembly has its drawn size again (or nothing more fits): a
single-arm assembly is as large as the drop rule alone makes it, so its tasks (jarvis_sim.tasks.decompose, by size
and name) are the same segments, only of bricks one arm can press on.

Structures are built from kinds that read as real builds: running-bond walls, hollow towers,
stairs, houses (walls with a door and windows, a stepped roof), vehicle-like slabs on wheels and
random stacks. Large assemblies (up to 700+ bricks) are several structures sharing one build area,
like a small town. Heights stay below `max_height_plates` (23 cm by default) so a Panda reaching
down from above can serve every brick.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

import numpy as np

from jarvis_sim.lego.assembly import Assembly, LatticeBrick
from jarvis_sim.lego.catalog import GENERATOR_PARTS, PARTS
from jarvis_sim.lego.press_order import Structure, single_arm_order

AssemblyKind = Literal["wall", "tower", "stairs", "house", "vehicle", "random_stack"]
KINDS: tuple[AssemblyKind, ...] = ("wall", "tower", "stairs", "house", "vehicle", "random_stack")

# Pieces by footprint width and length (studs); length runs along the part's local x.
BRICKS_1W = {1: "3005", 2: "3004", 3: "3622", 4: "3010", 6: "3009", 8: "3008"}
PLATES_1W = {1: "3024", 2: "3023", 3: "3623", 4: "3710", 6: "3666", 8: "3460"}
BRICKS_2W = {2: "3003", 3: "3002", 4: "3001", 6: "2456", 8: "3007"}
PLATES_2W = {2: "3022", 3: "3021", 4: "3020", 6: "3795", 8: "3034"}
PLATES_4W = {4: "3031", 6: "3032", 8: "3035"}

# Common solid colours; each assembly draws a small palette from these.
PALETTE = (1, 2, 4, 14, 15, 0, 19, 25, 70, 71, 72, 73, 10, 27, 28, 272, 320, 7)
REFILLS = 12  # rounds of building on a trimmed single-arm assembly until it reaches its drawn size


@dataclass(frozen=True)
class GeneratorConfig:
    """Limits of the build area: a square of `footprint` studs, at most `max_height_plates` high."""

    footprint: int = 24
    max_height_plates: int = 72  # 23 cm: towers stay under the ~25 cm a top-down Panda grasp serves
    single_arm: bool = True  # order (and trim) the build so that one arm can press every brick on (press_order)
    max_bricks: int | None = None  # give up (AssemblyTooLarge) once more bricks than this are placed

    def __post_init__(self) -> None:
        if not 4 <= self.footprint <= 32:
            raise ValueError(f"footprint must be 4..32 studs, got {self.footprint}")
        if not 3 <= self.max_height_plates <= 200:
            raise ValueError(f"max_height_plates must be 3..200, got {self.max_height_plates}")


class AssemblyTooLarge(ValueError):
    """Raised when an assembly places more bricks than GeneratorConfig.max_bricks (a pool that keeps only assemblies
    a Panda can build on its table stops generating one as soon as it is too large)."""


class _Builder:
    """Height map of the build area plus the bricks placed so far, in order."""

    def __init__(self, rng: random.Random, cfg: GeneratorConfig, limit: int, palette: list[int]):
        self.rng = rng
        self.cfg = cfg
        self.limit = limit
        self.palette = palette
        self.height = np.zeros((cfg.footprint, cfg.footprint), dtype=np.int32)
        self.placed: list[tuple[str, int, int, int, int, int]] = []  # part, colour, x, y, z, yaw
        self.structure = Structure(baseplate=True)  # the same, seated (for the press check)

    @property
    def full(self) -> bool:
        return len(self.placed) >= self.limit

    def color(self, main: int | None = None) -> int:
        """The main colour most of the time, an accent from the palette otherwise."""
        if main is not None and self.rng.random() < 0.8:
            return main
        return self.rng.choice(self.palette)

    def level(self, x: int, y: int, ex: int, ey: int) -> int | None:
        """Landing level of a footprint, or None when it leaves the build area."""
        f = self.cfg.footprint
        if x < 0 or y < 0 or x + ex > f or y + ey > f:
            return None
        return int(self.height[x : x + ex, y : y + ey].max())

    def drop(self, part: str, color: int, x: int, y: int, yaw: int, expect: int | None = None) -> bool:
        """Drop a part at (x, y); it lands on the highest top below. False when it does not fit.

        With `expect`, the part is placed only if it lands exactly at that level (keeps courses
        straight: a piece over a door gap is not allowed to fall to the floor). With the config's single_arm, a part
        one arm could not press on where it lands is refused too.
        """
        if self.full:
            return False
        p = PARTS[part]
        ex, ey = (p.width, p.depth) if yaw % 2 == 0 else (p.depth, p.width)
        z = self.level(x, y, ex, ey)
        if z is None or (expect is not None and z != expect) or z + p.height > self.cfg.max_height_plates:
            return False
        brick = LatticeBrick.model_construct(id=f"g{len(self.placed):03d}", part=part, color=color, x=x, y=y, z=z,
                                             yaw=yaw)
        if self.cfg.single_arm and self.structure.press_point(brick) is False:
            return False  # one arm could not press it on here: like a piece that does not fit
        self.height[x : x + ex, y : y + ey] = z + p.height
        self.placed.append((part, color, x, y, z, yaw))
        if self.cfg.max_bricks is not None and len(self.placed) > self.cfg.max_bricks:
            raise AssemblyTooLarge(f"more than {self.cfg.max_bricks} bricks placed")
        return True

    # --- courses ----------------------------------------------------------------------------------
    def keep(self, bricks: list[LatticeBrick]) -> None:
        """Start again from these bricks (a buildable order, as single_arm_order returns it), as if only they had
        been dropped, in this order."""
        self.height[:] = 0
        self.placed = []
        self.structure = Structure(baseplate=True)
        for bk in bricks:
            p = PARTS[bk.part]
            ex, ey = (p.width, p.depth) if bk.yaw % 2 == 0 else (p.depth, p.width)
            area = self.height[bk.x : bk.x + ex, bk.y : bk.y + ey]
            area[:] = np.maximum(area, bk.z + p.height)
            self.structure.add(bk.model_copy(update={"id": f"g{len(self.placed):03d}"}))
            self.placed.append((bk.part, bk.color, bk.x, bk.y, bk.z, bk.yaw))

    def course(
        self,
        x: int,
        y: int,
        length: int,
        along_x: bool,
        *,
        width: int = 1,
        plate: bool = False,
        color: int | None = None,
        avoid: frozenset[int] = frozenset(),
        gaps: frozenset[int] = frozenset(),
        level: int | None = None,
    ) -> frozenset[int]:
        """Fill a straight run of `length` studs with pieces; return the joint offsets used.

        `avoid` holds joint offsets of the course below (a running bond staggers them); offsets in
        `gaps` stay empty (doors, windows).
        """
        table = (PLATES_2W if plate else BRICKS_2W) if width == 2 else (PLATES_1W if plate else BRICKS_1W)
        sizes = sorted(table)
        joints: set[int] = set()
        pos = 0
        while pos < length:
            if pos in gaps:
                pos += 1
                continue
            run_end = pos
            while run_end < length and run_end not in gaps:
                run_end += 1
            remaining = run_end - pos
            fits = [s for s in sizes if s <= remaining and (width == 1 or remaining - s != 1)]
            if not fits:
                pos = run_end
                continue
            staggered = [s for s in fits if pos + s not in avoid or pos + s == run_end]
            choices = staggered or fits
            placed = False
            for s in self.rng.sample(choices, len(choices)):
                part = table[s]
                px, py = (x + pos, y) if along_x else (x, y + pos)
                yaw = self.rng.choice((0, 2)) if along_x else self.rng.choice((1, 3))
                if self.drop(part, self.color(color), px, py, yaw, expect=level):
                    joints.add(pos + s)
                    pos += s
                    placed = True
                    break
            if not placed:
                pos += 1
        return frozenset(joints)


# --- structure kinds ------------------------------------------------------------------------------
def _wall(b: _Builder, x: int, y: int, room: int) -> None:
    rng = b.rng
    along_x = rng.random() < 0.5
    length = rng.randint(4, max(4, min(room, 20)))
    width = 2 if rng.random() < 0.3 else 1
    main = b.color()
    joints: frozenset[int] = frozenset()
    for _ in range(rng.randint(2, 24)):
        plate = rng.random() < 0.15
        joints = b.course(x, y, length, along_x, width=width, plate=plate, color=main, avoid=joints)
        if b.full:
            return


def _ring(
    b: _Builder,
    x0: int,
    y0: int,
    w: int,
    d: int,
    layer: int,
    main: int,
    gaps: dict[int, frozenset[int]] | None = None,
    thickness: int = 1,
) -> None:
    """One course of a rectangular ring of wall `thickness`; corners alternate between x and y sides.

    `gaps` maps a side (0: low y, 1: high y, 2: low x, 3: high x) to stud offsets from the
    rectangle's corner along that side that stay open (doors, windows). The course is laid at the
    highest level under the ring, so pieces over an opening bridge it instead of falling in.
    """
    t = thickness
    if w < 2 * t + 1 or d < 2 * t + 1:
        return
    gaps = gaps or {}
    cells = [b.level(x0, y0, w, t), b.level(x0, y0 + d - t, w, t), b.level(x0, y0, t, d), b.level(x0 + w - t, y0, t, d)]
    if any(c is None for c in cells):
        return
    lv = max(c for c in cells if c is not None)

    def side(s: int, shift: int) -> frozenset[int]:
        return frozenset(g - shift for g in gaps.get(s, frozenset()))

    if layer % 2 == 0:  # x sides run the full length
        b.course(x0, y0, w, True, width=t, color=main, gaps=side(0, 0), level=lv)
        b.course(x0, y0 + d - t, w, True, width=t, color=main, gaps=side(1, 0), level=lv)
        b.course(x0, y0 + t, d - 2 * t, False, width=t, color=main, gaps=side(2, t), level=lv)
        b.course(x0 + w - t, y0 + t, d - 2 * t, False, width=t, color=main, gaps=side(3, t), level=lv)
    else:
        b.course(x0, y0, d, False, width=t, color=main, gaps=side(2, 0), level=lv)
        b.course(x0 + w - t, y0, d, False, width=t, color=main, gaps=side(3, 0), level=lv)
        b.course(x0 + t, y0, w - 2 * t, True, width=t, color=main, gaps=side(0, t), level=lv)
        b.course(x0 + t, y0 + d - t, w - 2 * t, True, width=t, color=main, gaps=side(1, t), level=lv)


def _tower(b: _Builder, x: int, y: int, room: int) -> None:
    rng = b.rng
    main = b.color()
    w = rng.randint(3, max(3, min(room, 7)))
    d = rng.randint(3, max(3, min(room, 7)))
    if rng.random() < 0.25:  # a solid column of 2-wide bricks
        for layer in range(rng.randint(3, 20)):
            if layer % 2 == 0:
                for yy in range(y, y + d - 1, 2):
                    b.course(x, yy, w, True, width=2, color=main)
            else:
                for xx in range(x, x + w - 1, 2):
                    b.course(xx, y, d, False, width=2, color=main)
            if b.full:
                return
        return
    for layer in range(rng.randint(3, 24)):
        _ring(b, x, y, w, d, layer, main)
        if b.full:
            return
    cap = PLATES_2W.get(min(w, 8)) if d >= 2 else None
    if cap:
        b.drop(cap, b.color(main), x, y, 0)


def _stairs(b: _Builder, x: int, y: int, room: int) -> None:
    rng = b.rng
    main = b.color()
    step = rng.choice((1, 2, 2, 3))
    n = rng.randint(2, max(2, min(8, room // step)))
    width = rng.choice((1, 2, 2, 4))
    along_x = rng.random() < 0.5
    for s in range(n):  # layer s covers steps s..n-1
        start, length = s * step, (n - s) * step
        joints: frozenset[int] = frozenset()
        for row in range(0, width, 2 if width >= 2 else 1):
            w2 = 2 if width >= 2 and length >= 2 else 1
            if along_x:
                joints = b.course(x + start, y + row, length, True, width=w2, color=main, avoid=joints)
            else:
                joints = b.course(x + row, y + start, length, False, width=w2, color=main, avoid=joints)
        if b.full:
            return


def _house(b: _Builder, x: int, y: int, room: int) -> None:
    rng = b.rng
    wall_color = b.color()
    roof_color = b.color()
    w = rng.randint(5, max(5, min(room, 14)))
    d = rng.randint(5, max(5, min(room, 12)))
    if rng.random() < 0.5:  # a floor of plates
        for yy in range(y, y + d - 1, 2):
            b.course(x, yy, w, True, width=2, plate=True, color=b.color())
    door_at = rng.randint(1, max(1, w - 3))
    win_at = rng.randint(1, max(1, d - 3))
    gaps_low = {0: frozenset({door_at, door_at + 1})}
    gaps_mid = {3: frozenset({win_at, win_at + 1})}
    for layer in range(rng.randint(3, 9)):
        gaps: dict[int, frozenset[int]] = {}
        if layer < 3:
            gaps.update(gaps_low)
        if 1 <= layer <= 2:
            gaps.update(gaps_mid)
        _ring(b, x, y, w, d, layer, wall_color, gaps)
        if b.full:
            return
    # Corbelled roof: 2-wide rings, each resting half on the course below and stepping one stud in.
    i = 1
    while w - 2 * (i - 1) >= 5 and d - 2 * (i - 1) >= 5:
        _ring(b, x + i - 1, y + i - 1, w - 2 * (i - 1), d - 2 * (i - 1), i, roof_color, thickness=2)
        i += 1
        if b.full:
            return
    cx, cy, cw, cd = x + i - 1, y + i - 1, w - 2 * (i - 1), d - 2 * (i - 1)
    lv = b.level(cx, cy, cw, cd)
    for yy in range(cy, cy + cd - 1, 2):
        b.course(cx, yy, cw, True, width=2, plate=True, color=roof_color, level=lv)


def _vehicle(b: _Builder, x: int, y: int, room: int) -> None:
    rng = b.rng
    length = rng.randint(6, max(6, min(room, 16)))
    width = rng.choice((4, 4, 6)) if room >= 6 else 4
    body = b.color()
    # Wheels: 2x2 (or 1x2) bricks at the four corners, then two bonded plate layers on them.
    wheel = rng.choice(("3003", "3004"))
    for wx in (x, x + length - 2):
        for wy in (y, y + width - (2 if wheel == "3003" else 1)):
            b.drop(wheel, 0, wx, wy, 0)
    joints: frozenset[int] = frozenset()
    for _ in range(2):  # the second layer staggers its joints over the first
        lv = b.level(x, y, length, width)
        for yy in range(y, y + width - 1, 2):
            joints = b.course(x, yy, length, True, width=2, plate=True, color=body, avoid=joints, level=lv)
    # Cabin: a small ring behind the middle, windscreen plate and some details.
    cab_w = rng.randint(3, max(3, min(6, length - 2)))
    cab_x = x + rng.randint(0, max(0, length - cab_w))
    for layer in range(rng.randint(1, 4)):
        _ring(b, cab_x, y, cab_w, width, layer, b.color(body))
    for _ in range(rng.randint(0, 6)):
        part = rng.choice(("3024", "3023", "3005", "3004", "3623"))
        b.drop(part, b.color(), rng.randint(x, x + length - 1), rng.randint(y, y + width - 1), rng.randrange(4))


def _random_stack(b: _Builder, x: int, y: int, room: int) -> None:
    rng = b.rng
    area = rng.randint(3, max(3, min(room, 12)))
    parts = list(GENERATOR_PARTS)
    for _ in range(rng.randint(3, 60)):
        part = rng.choice(parts)
        # Checked like any drop, though a pile is one cluster where each check is a programme over all of it:
        # unchecked, the layer-order pass left out most of a pile (50 of v107-00013's 230 bricks stayed).
        b.drop(part, b.color(), x + rng.randrange(area), y + rng.randrange(area), rng.randrange(4))
        if b.full:
            return


_KIND_BUILDERS: dict[str, Callable[[_Builder, int, int, int], None]] = {
    "wall": _wall,
    "tower": _tower,
    "stairs": _stairs,
    "house": _house,
    "vehicle": _vehicle,
    "random_stack": _random_stack,
}


def sample_assembly_size(rng: random.Random) -> int:
    """A brick count drawn from the pool's size distribution (log-normal, 3 to 745 bricks).

    Most assemblies are small to medium; a long tail reaches dense 700+-brick builds, as in the
    JARVIS pool (initial complexity 0-740, median about 57).
    """
    return max(3, min(745, round(math.exp(rng.gauss(4.2, 0.95)))))


def _fill(b: _Builder, main_kind: str, first: bool) -> bool:
    """Place structures (the main kind, some others) until the builder is full or nothing more fits; False when
    nothing was placed."""
    rng, f = b.rng, b.cfg.footprint
    start = len(b.placed)
    idle = 0
    while not b.full and idle < 40:
        before = len(b.placed)
        k = main_kind if first or rng.random() < 0.7 else rng.choice(KINDS)
        if first:  # the main structure starts near the middle of the area
            room = rng.randint(min(8, f), f)
            x = rng.randint(0, f - room) if room < f else 0
            y = rng.randint(0, f - room) if room < f else 0
        else:
            room = rng.randint(4, max(4, f // 2))
            x, y = rng.randint(0, f - 4), rng.randint(0, f - 4)
        _KIND_BUILDERS[k](b, x, y, min(room, f - x, f - y))
        first = False
        idle = idle + 1 if len(b.placed) == before else 0
    return len(b.placed) > start


def _layer_order(placed: list[tuple[str, int, int, int, int, int]]) -> list[LatticeBrick]:
    """Build order layer by layer, as instruction manuals do (stable within a layer): a robot then never has to
    reach down beside a column already built higher. Supports are always lower, so the order stays buildable."""
    ordered = sorted(placed, key=lambda p: p[4])
    return [LatticeBrick.model_construct(id=f"b{i:03d}", part=part, color=color, x=x, y=y, z=z, yaw=yaw)
            for i, (part, color, x, y, z, yaw) in enumerate(ordered)]


def main_kind(seed: int | str) -> AssemblyKind:
    """The main structure kind `generate_assembly` draws for this seed when no kind is given."""
    return random.Random(f"jarvis-assembly/{seed}").choice(KINDS)


def generate_assembly(
    assembly_id: str,
    seed: int | str,
    *,
    kind: AssemblyKind | None = None,
    n_bricks: int | None = None,
    config: GeneratorConfig | None = None,
) -> Assembly:
    """A buildable assembly (build order = brick order), fully determined by the seed and arguments.

    `kind` names the main structure (drawn when None); `n_bricks` caps the size (drawn from
    `sample_assembly_size` when None). The build area fills with structures of the main kind, and
    some of other kinds, until the size is reached or nothing more fits.
    """
    cfg = config or GeneratorConfig()
    rng = random.Random(f"jarvis-assembly/{seed}")
    drawn = rng.choice(KINDS)  # always drawn, so the stream (and main_kind) does not depend on `kind`
    main_kind: str = kind or drawn
    if main_kind not in _KIND_BUILDERS:
        raise ValueError(f"unknown assembly kind {main_kind!r}; known: {', '.join(KINDS)}")
    limit = n_bricks if n_bricks is not None else sample_assembly_size(rng)
    if limit < 1:
        raise ValueError(f"n_bricks must be at least 1, got {limit}")
    palette = rng.sample(PALETTE, rng.randint(2, 4))
    b = _Builder(rng, cfg, limit, palette)
    _fill(b, main_kind, first=True)
    bricks = _layer_order(b.placed)
    for refill in range(REFILLS + 1 if cfg.single_arm else 0):
        built, refused = single_arm_order(bricks, baseplate=True)
        bricks = [bk.model_copy(update={"id": f"b{i:03d}"}) for i, (bk, _where) in enumerate(built)]
        if not refused or refill == REFILLS:
            break
        # The trim left the assembly short of its size: build on what one arm can build, up to the size drawn, so
        # the single-arm assembly is as large as the drop rule alone makes it (its tasks as many and as long).
        b.keep(bricks)
        if not _fill(b, main_kind, first=False):
            break  # nothing more fits: the trimmed assembly stays as it is
        bricks = _layer_order(b.placed)
    # Every generated build stands on a 32x32 baseplate (footprints stay within 24x24 studs): level-0 bricks
    # then clutch to studs like on a real build plate instead of merely resting on the table.
    return Assembly(bricks, baseplate=True, name=assembly_id)
