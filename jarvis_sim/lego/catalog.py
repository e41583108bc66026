"""The brick catalog, keyed by LDraw part number.

Each part is a rectangular brick, plate, tile (a plate without studs) or baseplate described on the stud
lattice (footprint in studs, height in plates). The catalog covers the rectangular parts people build
with: 1xN and 2xN bricks and plates up to 16 long, plates from 4x4 to 8x16, the common tiles and
baseplates; old LDraw numbers of the same shapes are aliases. Where a user has an LDraw library
(`LDRAWDIR`), rectangular parts missing here are read from its part files (jarvis_sim.lego.ldraw_library)
and join the catalog for the process. Its physical shape (hollow underside, studs, tubes) is derived from LEGO's published
dimensions, as a list of primitives (boxes and cylinders) that both the mesh and the simulator's
collision model are built from, so the two never disagree.
"""

from __future__ import annotations

import re
from functools import cache
from typing import TYPE_CHECKING

from jarvis_sim.lego.ldraw_library import library_part
from jarvis_sim.lego.part import Part, PartKind, primitives

if TYPE_CHECKING:
    import trimesh

def _part(number: str, name: str, kind: PartKind, w: int, d: int) -> Part:
    height = {"brick": 3, "plate": 1, "tile": 1, "baseplate": 0}[kind]
    return Part(number, name, kind, w, d, height)


PARTS: dict[str, Part] = {
    p.number: p
    for p in (
        _part("3001", "Brick 2 x 4", "brick", 4, 2),
        _part("3002", "Brick 2 x 3", "brick", 3, 2),
        _part("3003", "Brick 2 x 2", "brick", 2, 2),
        _part("3004", "Brick 1 x 2", "brick", 2, 1),
        _part("3005", "Brick 1 x 1", "brick", 1, 1),
        _part("3622", "Brick 1 x 3", "brick", 3, 1),
        _part("3010", "Brick 1 x 4", "brick", 4, 1),
        _part("3009", "Brick 1 x 6", "brick", 6, 1),
        _part("3008", "Brick 1 x 8", "brick", 8, 1),
        _part("2456", "Brick 2 x 6", "brick", 6, 2),
        _part("3007", "Brick 2 x 8", "brick", 8, 2),
        _part("3024", "Plate 1 x 1", "plate", 1, 1),
        _part("3023", "Plate 1 x 2", "plate", 2, 1),
        _part("3623", "Plate 1 x 3", "plate", 3, 1),
        _part("3710", "Plate 1 x 4", "plate", 4, 1),
        _part("3666", "Plate 1 x 6", "plate", 6, 1),
        _part("3460", "Plate 1 x 8", "plate", 8, 1),
        _part("3022", "Plate 2 x 2", "plate", 2, 2),
        _part("3021", "Plate 2 x 3", "plate", 3, 2),
        _part("3020", "Plate 2 x 4", "plate", 4, 2),
        _part("3795", "Plate 2 x 6", "plate", 6, 2),
        _part("3034", "Plate 2 x 8", "plate", 8, 2),
        _part("3031", "Plate 4 x 4", "plate", 4, 4),
        _part("3032", "Plate 4 x 6", "plate", 6, 4),
        _part("3035", "Plate 4 x 8", "plate", 8, 4),
        _part("3958", "Plate 6 x 6", "plate", 6, 6),
        _part("3811", "Baseplate 32 x 32", "baseplate", 32, 32),
        # The rest of the rectangular parts in common use (numbers and names as in the LDraw library).
        _part("6111", "Brick 1 x 10", "brick", 10, 1),
        _part("6112", "Brick 1 x 12", "brick", 12, 1),
        _part("2465", "Brick 1 x 16", "brick", 16, 1),
        _part("3006", "Brick 2 x 10", "brick", 10, 2),
        _part("78329", "Plate 1 x 5", "plate", 5, 1),
        _part("4477", "Plate 1 x 10", "plate", 10, 1),
        _part("60479", "Plate 1 x 12", "plate", 12, 1),
        _part("3832", "Plate 2 x 10", "plate", 10, 2),
        _part("2445", "Plate 2 x 12", "plate", 12, 2),
        _part("91988", "Plate 2 x 14", "plate", 14, 2),
        _part("4282", "Plate 2 x 16", "plate", 16, 2),
        _part("3030", "Plate 4 x 10", "plate", 10, 4),
        _part("3029", "Plate 4 x 12", "plate", 12, 4),
        _part("3036", "Plate 6 x 8", "plate", 8, 6),
        _part("3033", "Plate 6 x 10", "plate", 10, 6),
        _part("3028", "Plate 6 x 12", "plate", 12, 6),
        _part("41539", "Plate 8 x 8", "plate", 8, 8),
        _part("92438", "Plate 8 x 16", "plate", 16, 8),
        _part("3070b", "Tile 1 x 1 with Groove", "tile", 1, 1),
        _part("3069b", "Tile 1 x 2 with Groove", "tile", 2, 1),
        _part("63864", "Tile 1 x 3", "tile", 3, 1),
        _part("2431", "Tile 1 x 4 with Groove", "tile", 4, 1),
        _part("6636", "Tile 1 x 6", "tile", 6, 1),
        _part("4162", "Tile 1 x 8", "tile", 8, 1),
        _part("3068b", "Tile 2 x 2 with Groove", "tile", 2, 2),
        _part("26603", "Tile 2 x 3", "tile", 3, 2),
        _part("87079", "Tile 2 x 4 with Groove", "tile", 4, 2),
        _part("69729", "Tile 2 x 6", "tile", 6, 2),
        _part("3865", "Baseplate 8 x 16", "baseplate", 16, 8),
        _part("3867", "Baseplate 16 x 16", "baseplate", 16, 16),
        _part("3334", "Baseplate 16 x 24", "baseplate", 24, 16),
        _part("3645", "Baseplate 24 x 40", "baseplate", 40, 24),
        _part("4186", "Baseplate 48 x 48", "baseplate", 48, 48),
        _part("782", "Baseplate 50 x 50", "baseplate", 50, 50),
    )
}

# Other LDraw numbers of the same shapes: the library's current number for a part the catalog keeps under
# an older one (3023.dat is a "moved to 3023b" stub), and tiles without the bottom groove.
ALIASES: dict[str, str] = {
    "3023b": "3023",
    "3070": "3070b",
    "3070a": "3070b",
    "3069": "3069b",
    "3069a": "3069b",
    "3068": "3068b",
    "3068a": "3068b",
}

BUILDABLE_PARTS: tuple[str, ...] = tuple(n for n, p in PARTS.items() if p.kind != "baseplate")

# The parts the seeded generator draws from: fixed, so that growing the catalog never changes a seed's
# assembly (task ids name a seed, and published suites must rebuild identically).
GENERATOR_PARTS: tuple[str, ...] = (
    "3001", "3002", "3003", "3004", "3005", "3622", "3010", "3009", "3008", "2456", "3007", "3024", "3023",
    "3623", "3710", "3666", "3460", "3022", "3021", "3020", "3795", "3034", "3031", "3032", "3035", "3958",
)


def _key(number: str) -> str:
    return number.strip().lower().replace("\\", "/").removesuffix(".dat")


def lookup(number: str) -> Part | None:
    """The part with this LDraw number (with or without '.dat', or an alias), or None when unknown.

    Numbers the catalog lacks are looked up in the user's LDraw library when `LDRAWDIR` is set; a
    rectangular part found there joins the catalog.
    """
    key = _key(number)
    key = ALIASES.get(key, key)
    found = PARTS.get(key)
    if found is not None:
        return found
    found = library_part(key)
    if found is not None:
        PARTS[found.number] = found
    return found


def part(number: str) -> Part:
    """The part with this LDraw number (with or without '.dat'); unknown numbers list the known ones."""
    found = lookup(number)
    if found is None:
        raise KeyError(
            f"unknown part {number!r}: not among the catalog's {len(PARTS)} parts (jarvis_sim.lego.catalog.PARTS) "
            "and not a rectangular part of the LDraw library at $LDRAWDIR"
        )
    return found


def part_by_size(width: int, depth: int, kind: PartKind) -> Part:
    """The catalog part of this footprint and kind, in either orientation."""
    for p in PARTS.values():
        if p.kind == kind and {p.width, p.depth} == {width, depth} and (p.width >= p.depth):
            return p
    raise KeyError(f"no {kind} of {width} x {depth} studs in the catalog")


@cache
def mesh(number: str) -> trimesh.Trimesh:
    """A triangle mesh of the part (top, walls, studs, tubes), part frame, metres."""
    import numpy as np
    import trimesh

    pieces = []
    for prim in primitives(part(number)):
        if prim.role == "body":
            continue
        if prim.shape == "box":
            m = trimesh.creation.box(extents=[2 * s for s in prim.size])
        else:
            m = trimesh.creation.cylinder(radius=prim.size[0], height=2 * prim.size[1], sections=16)
        m.apply_translation(np.asarray(prim.pos))
        pieces.append(m)
    merged: trimesh.Trimesh = trimesh.util.concatenate(pieces)  # type: ignore[assignment]
    return merged


_SIZE_TITLE = re.compile(r"^\s*(brick|plate|tile)\s+(\d+)\s*x\s*(\d+)(?!\s*x)", re.IGNORECASE)
# Common shapes the catalog lacks but whose footprint and height match a catalog part: used by
# `substitute` when no library title is at hand (the names are the LDraw library's).
KNOWN_VARIANTS: dict[str, tuple[str, str]] = {
    "3065": ("3004", "Brick 1 x 2 without Centre Stud"),
    "3066": ("3010", "Brick 1 x 4 without Centre Studs"),
    "4216": ("3004", "Brick 1 x 2 with Groove"),
    "2653": ("3010", "Brick 1 x 4 with Groove"),
    "3794a": ("3023", "Plate 1 x 2 without Groove with 1 Centre Stud"),
    "3794b": ("3023", "Plate 1 x 2 with Groove with 1 Centre Stud"),
    "15573": ("3023", "Plate 1 x 2 with Groove with 1 Centre Stud, without Understud"),
    "87580": ("3022", "Plate 2 x 2 with Groove with 1 Center Stud"),
    "3062b": ("3005", "Brick 1 x 1 Round with Hollow Stud"),
    "4073": ("3024", "Plate 1 x 1 Round"),
    "6141": ("3024", "Plate 1 x 1 Round"),
    "98138": ("3070b", "Tile 1 x 1 Round with Groove"),
}


def variant_title(number: str) -> str | None:
    """The LDraw title of a known variant the catalog lacks (for messages), or None."""
    return KNOWN_VARIANTS[number][1] if number in KNOWN_VARIANTS else None


def substitute_for(number: str, title: str | None) -> Part | None:
    """The catalog part with the footprint and height a title names (or a known variant's), or None."""
    if number in KNOWN_VARIANTS:
        return PARTS[KNOWN_VARIANTS[number][0]]
    m = _SIZE_TITLE.match(title or "")
    if not m:
        return None
    kind = m.group(1).lower()
    a, b = int(m.group(2)), int(m.group(3))
    try:
        return part_by_size(a, b, kind)  # type: ignore[arg-type]
    except KeyError:
        return None
