"""Assemblies: bricks on an integer stud lattice, with overlap, connection, support and build checks.

A `LatticeBrick` sits at integer (x, y) studs and z plate levels with a yaw in 90-degree steps.
(x, y) is the minimum corner of its footprint *after* rotation, so the cells it covers are plain
integer ranges and no arithmetic ever leaves the integers. Level 0 is the top of the table or of
the baseplate.

All checks run over a dense numpy occupancy grid: a 700-brick assembly is checked in a few ms.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, field_validator

from jarvis_sim.lego import units as u
from jarvis_sim.lego.catalog import PARTS, Part, lookup, part
from jarvis_sim.lego.colors import color as _colour

# The lattice a task can hold: 1,000 studs (8 m) either way and 1,000 plates (3.2 m) up. Far beyond any
# table, and small enough that an absurd value is an error here rather than an overflow in the simulator.
LATTICE_LIMIT = 1000


class LatticeBrick(BaseModel):
    """One brick on the lattice: part, colour, footprint corner (x, y) in studs, level z in plates, yaw."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(description="Unique id within the assembly, e.g. 'b007'.")
    part: str = Field(description="LDraw part number, e.g. '3001'.")
    color: int = Field(description="LDraw colour code.")
    x: int = Field(ge=-LATTICE_LIMIT, le=LATTICE_LIMIT, description="Footprint minimum corner along world x, studs.")
    y: int = Field(ge=-LATTICE_LIMIT, le=LATTICE_LIMIT, description="Footprint minimum corner along world y, studs.")
    z: int = Field(ge=0, le=LATTICE_LIMIT, description="Bottom level, plate heights above level 0.")
    yaw: int = Field(ge=0, le=3, description="Rotation about z in quarter turns (0..3).")

    @field_validator("part")
    @classmethod
    def _known_part(cls, v: str) -> str:
        found = lookup(v)
        if found is None:
            raise ValueError(f"unknown part {v!r}: not in the catalog nor a rectangular part of $LDRAWDIR's library")
        if found.kind == "baseplate":
            raise ValueError(f"part {v!r} ({found.name}) is a baseplate: set the task's `baseplate` flag instead")
        return found.number

    @field_validator("color")
    @classmethod
    def _known_colour(cls, v: int) -> int:
        try:
            _colour(v)
        except KeyError as exc:
            raise ValueError(exc.args[0]) from None
        return v

    @property
    def spec(self) -> Part:
        """The catalog part."""
        return PARTS[self.part]

    @property
    def extent(self) -> tuple[int, int]:
        """Footprint size (along world x, along world y) in studs after rotation."""
        p = self.spec
        return (p.width, p.depth) if self.yaw % 2 == 0 else (p.depth, p.width)

    @property
    def top(self) -> int:
        """Level of the top face (where studs start)."""
        return self.z + self.spec.height

    def cells(self) -> list[tuple[int, int]]:
        """Stud cells (x, y) covered by the footprint."""
        ex, ey = self.extent
        return [(self.x + i, self.y + j) for i in range(ex) for j in range(ey)]

    def center_m(self) -> tuple[float, float, float]:
        """Centre of the footprint on the bottom face, in the lattice frame, metres."""
        ex, ey = self.extent
        return (
            (self.x + ex / 2) * u.STUD_PITCH_M,
            (self.y + ey / 2) * u.STUD_PITCH_M,
            self.z * u.PLATE_HEIGHT_M,
        )

    @property
    def yaw_rad(self) -> float:
        """Yaw in radians."""
        return self.yaw * math.pi / 2

    def moved(self, **changes: int) -> LatticeBrick:
        """A copy with some lattice fields changed."""
        return self.model_copy(update=changes)


class AssemblyError(ValueError):
    """An assembly that breaks a lattice rule; `brick_id` names the offending brick."""

    def __init__(self, message: str, brick_id: str | None = None):
        super().__init__(message)
        self.brick_id = brick_id


@dataclass(frozen=True)
class Overlap:
    """Two bricks that share lattice volume."""

    a: str
    b: str


@dataclass
class _Grid:
    """Dense occupancy: grid[x, y, z] = index of the brick filling that cell-level, or -1."""

    origin: tuple[int, int]
    cells: np.ndarray
    overlaps: list[tuple[int, int]] = field(default_factory=list)


class Assembly:
    """An ordered set of lattice bricks (order = build order) on the table or on a baseplate."""

    def __init__(self, bricks: Iterable[LatticeBrick], baseplate: bool = False, name: str = ""):
        self.bricks: tuple[LatticeBrick, ...] = tuple(bricks)
        self.baseplate = baseplate
        self.name = name
        ids = [b.id for b in self.bricks]
        if len(set(ids)) != len(ids):
            dup = sorted({i for i in ids if ids.count(i) > 1})
            raise AssemblyError(f"duplicate brick ids: {dup[:5]}", dup[0])
        self.index = {b.id: k for k, b in enumerate(self.bricks)}

    def __len__(self) -> int:
        return len(self.bricks)

    def __iter__(self):  # type: ignore[no-untyped-def]
        return iter(self.bricks)

    def __getitem__(self, brick_id: str) -> LatticeBrick:
        return self.bricks[self.index[brick_id]]

    def __repr__(self) -> str:
        return f"Assembly({self.name!r}, {len(self)} bricks, baseplate={self.baseplate})"

    def subset(self, brick_ids: Iterable[str]) -> Assembly:
        """The assembly restricted to these bricks, keeping build order."""
        keep = set(brick_ids)
        return Assembly([b for b in self.bricks if b.id in keep], self.baseplate, self.name)

    def prefix(self, n: int) -> Assembly:
        """The first n bricks in build order."""
        return Assembly(self.bricks[:n], self.baseplate, self.name)

    # --- geometry over the occupancy grid -------------------------------------------------------
    @cached_property
    def _bounds(self) -> tuple[int, int, int, int, int]:
        if not self.bricks:
            return (0, 0, 1, 1, 1)
        xs0 = min(b.x for b in self.bricks)
        ys0 = min(b.y for b in self.bricks)
        xs1 = max(b.x + b.extent[0] for b in self.bricks)
        ys1 = max(b.y + b.extent[1] for b in self.bricks)
        zmax = max(b.top for b in self.bricks)
        return (xs0, ys0, xs1, ys1, zmax)

    @cached_property
    def _grid(self) -> _Grid:
        x0, y0, x1, y1, zmax = self._bounds
        grid = np.full((x1 - x0, y1 - y0, zmax + 1), -1, dtype=np.int32)
        overlaps: list[tuple[int, int]] = []
        for k, b in enumerate(self.bricks):
            ex, ey = b.extent
            view = grid[b.x - x0 : b.x - x0 + ex, b.y - y0 : b.y - y0 + ey, b.z : b.top]
            taken = view[view >= 0]
            if taken.size:
                overlaps.extend((int(o), k) for o in np.unique(taken))
                view[view < 0] = k
            else:
                view[...] = k
        return _Grid((x0, y0), grid, overlaps)

    def overlaps(self) -> list[Overlap]:
        """Pairs of bricks that share lattice volume (empty for a valid assembly)."""
        return [Overlap(self.bricks[a].id, self.bricks[b].id) for a, b in self._grid.overlaps]

    @cached_property
    def _supports(self) -> list[set[int]]:
        # For every footprint cell of every raised brick, the grid owner one level below; a support is
        # an owner whose top is exactly the brick's bottom. Vectorised: a per-brick loop with
        # np.unique cost most of the 700-brick check budget.
        n = len(self.bricks)
        out: list[set[int]] = [set() for _ in range(n)]
        if n == 0:
            return out
        g = self._grid
        dims = np.array([(b.x, b.y, b.z, *b.extent, b.top, b.spec.studded) for b in self.bricks], dtype=np.int64)
        xs, ys, zs, exs, eys, tops, studded = dims.T
        raised = np.nonzero(zs > 0)[0]
        if raised.size == 0:
            return out
        counts = exs[raised] * eys[raised]
        owner_of = np.repeat(raised, counts)
        local = np.arange(int(counts.sum())) - np.repeat(np.cumsum(counts) - counts, counts)
        cx = xs[owner_of] + local // eys[owner_of] - g.origin[0]
        cy = ys[owner_of] + local % eys[owner_of] - g.origin[1]
        below = g.cells[cx, cy, zs[owner_of] - 1]
        ok = below >= 0
        ok[ok] = (tops[below[ok]] == zs[owner_of[ok]]) & (studded[below[ok]] == 1)  # a tile's top holds nothing
        pairs = np.unique(owner_of[ok] * n + below[ok])
        for k, i in zip((pairs // n).tolist(), (pairs % n).tolist(), strict=True):
            out[k].add(i)
        return out

    def supports(self, brick_id: str) -> list[str]:
        """Bricks whose studs go into this brick's underside (what it stands on), in build order."""
        return [self.bricks[i].id for i in sorted(self._supports[self.index[brick_id]])]

    def connections(self) -> list[tuple[str, str]]:
        """The connection graph as (upper, lower) pairs: the lower brick's studs enter the upper one."""
        return [
            (self.bricks[k].id, self.bricks[i].id) for k, below in enumerate(self._supports) for i in sorted(below)
        ]

    def grounded(self, brick_id: str) -> bool:
        """True when the brick stands on level 0 (the table or the baseplate's studs)."""
        return self[brick_id].z == 0

    def connected_to_ground(self) -> dict[str, bool]:
        """For each brick: is it linked to the ground through a chain of stud connections?

        On a baseplate, level-0 bricks are clipped to it; on a bare table they merely rest on it, but the
        chain still starts there (the structure stands on the table).
        """
        n = len(self.bricks)
        adj: list[list[int]] = [[] for _ in range(n)]
        for k, below in enumerate(self._supports):
            for i in below:
                adj[k].append(i)
                adj[i].append(k)
        seen = [False] * n
        stack = [k for k, b in enumerate(self.bricks) if b.z == 0]
        for k in stack:
            seen[k] = True
        while stack:
            k = stack.pop()
            for j in adj[k]:
                if not seen[j]:
                    seen[j] = True
                    stack.append(j)
        return {b.id: seen[k] for k, b in enumerate(self.bricks)}

    def buildability_errors(self) -> list[AssemblyError]:
        """Why the build order fails, brick by brick (empty when every brick can be placed in order).

        Each brick, in order, must come down from above onto existing studs (or level 0) without
        overlapping anything placed before it and without anything already above its footprint.
        """
        if not self.bricks:
            return []
        x0, y0, x1, y1, _ = self._bounds
        height = np.zeros((x1 - x0, y1 - y0), dtype=np.int32)  # top level of each column so far
        studs = np.ones((x1 - x0, y1 - y0), dtype=bool)  # does that top carry studs (not a tile)?
        errors: list[AssemblyError] = []
        for b in self.bricks:
            ex, ey = b.extent
            col = height[b.x - x0 : b.x - x0 + ex, b.y - y0 : b.y - y0 + ey]
            col_studs = studs[b.x - x0 : b.x - x0 + ex, b.y - y0 : b.y - y0 + ey]
            highest = int(col.max())
            if highest > b.z:
                errors.append(
                    AssemblyError(
                        f"brick {b.id} ({b.spec.name}) at level {b.z} is blocked: something placed earlier "
                        f"already reaches level {highest} over its footprint",
                        b.id,
                    )
                )
            elif b.z > 0 and highest < b.z:
                errors.append(
                    AssemblyError(
                        f"brick {b.id} ({b.spec.name}) at level {b.z} has no studs under it "
                        f"(highest support reaches level {highest})",
                        b.id,
                    )
                )
            elif b.z > 0 and not col_studs[col == b.z].any():
                errors.append(
                    AssemblyError(
                        f"brick {b.id} ({b.spec.name}) at level {b.z} rests on tiles only: a tile's smooth top "
                        "has no studs to hold it",
                        b.id,
                    )
                )
            col_studs[...] = b.spec.studded
            np.maximum(col, b.top, out=col)
        return errors

    def validate(self) -> None:
        """Raise AssemblyError for the first overlap, floating brick or unbuildable order."""
        for o in self.overlaps():
            raise AssemblyError(f"bricks {o.a} and {o.b} overlap", o.b)
        for err in self.buildability_errors():
            raise err

    def is_valid(self) -> bool:
        """True when there is no overlap and the build order works."""
        return not self.overlaps() and not self.buildability_errors()

    def footprint_bounds(self) -> tuple[int, int, int, int]:
        """(x0, y0, x1, y1) stud bounds of all bricks."""
        x0, y0, x1, y1, _ = self._bounds
        return (x0, y0, x1, y1)

    # --- serialisation ----------------------------------------------------------------------------
    def to_json_obj(self) -> dict[str, object]:
        """A plain JSON object."""
        return {
            "name": self.name,
            "baseplate": self.baseplate,
            "bricks": [b.model_dump() for b in self.bricks],
        }

    @classmethod
    def from_json_obj(cls, obj: dict[str, object]) -> Assembly:
        """Inverse of to_json_obj."""
        bricks = obj.get("bricks", [])
        assert isinstance(bricks, list)
        return cls(
            [LatticeBrick.model_validate(b) for b in bricks],
            bool(obj.get("baseplate", False)),
            str(obj.get("name", "")),
        )


def yaw_quaternion(yaw_rad: float) -> tuple[float, float, float, float]:
    """Quaternion (w, x, y, z) of a rotation about z."""
    return (math.cos(yaw_rad / 2), 0.0, 0.0, math.sin(yaw_rad / 2))


def brick_pose_in_world(
    brick: LatticeBrick, origin_m: Sequence[float]
) -> tuple[tuple[float, float, float], tuple[float, float, float, float]]:
    """World pose (centre of the bottom face, quaternion wxyz) of a lattice brick.

    `origin_m` is the world position of lattice point (0, 0, level 0).
    """
    cx, cy, cz = brick.center_m()
    return (
        (origin_m[0] + cx, origin_m[1] + cy, origin_m[2] + cz),
        yaw_quaternion(brick.yaw_rad),
    )


def make_brick(brick_id: str, part_number: str, color: int, x: int, y: int, z: int, yaw: int = 0) -> LatticeBrick:
    """Convenience constructor that resolves the part number."""
    return LatticeBrick(id=brick_id, part=part(part_number).number, color=color, x=x, y=y, z=z, yaw=yaw)
