"""The user's LDraw library (`LDRAWDIR`, as LDView and LeoCAD use it): its colours and rectangular parts.

The library is optional. When `LDRAWDIR` names a folder, its `LDConfig.ldr` adds colour codes to the
table, and its part files (`parts/<number>.dat`) describe parts the catalog lacks. A part joins the
catalog only when it is a plain rectangular brick, plate, tile or baseplate: its title says so
("Brick  1 x 14", "Plate  3 x  3", "Tile  2 x  8") and its geometry agrees (the bounding box of its
faces and the grid of its top studs, followed into `s\\` sub-parts). Anything else stays unknown and the
importer's `unsupported` policy decides. Part numbers are matched against a strict pattern before
they become file names, so a reference cannot name a file outside the library.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from jarvis_sim.lego.color import Color
from jarvis_sim.lego.part import Part, PartKind

LDRAWDIR_ENV = "LDRAWDIR"
_NUMBER = re.compile(r"^[a-z0-9][a-z0-9_-]{0,40}$")
_TITLE = re.compile(r"^(brick|plate|tile|baseplate)\s+(\d+)\s*x\s*(\d+)(\s+with groove)?\s*$", re.IGNORECASE)
_MOVED = re.compile(r"^~moved\s+to\s+(\S+)\s*$", re.IGNORECASE)
_COLOUR = re.compile(r"^0\s+!COLOUR\s+(\S+)\s+CODE\s+(\d+)\s+VALUE\s+#([0-9A-Fa-f]{6})(.*)$")
_MAX_PART_BYTES = 1 << 20
_MAX_SUBPART_DEPTH = 4
_STUD_PRIMITIVES = ("stud.dat", "stud2.dat", "stud2a.dat", "stud15.dat", "stud9.dat", "stud10.dat")
_HEIGHT_LDU = {"brick": 24, "plate": 8, "tile": 8, "baseplate": 4}


def library_dir() -> Path | None:
    """The LDraw library folder from `LDRAWDIR`, or None when unset; a set but missing folder is an error."""
    env = os.environ.get(LDRAWDIR_ENV)
    if not env:
        return None
    path = Path(env).expanduser()
    if not path.is_dir():
        raise FileNotFoundError(f"${LDRAWDIR_ENV} points at {path}, which is not a folder")
    return path


def parse_ldconfig(text: str) -> dict[int, Color]:
    """The `0 !COLOUR name CODE n VALUE #RRGGBB ...` lines of an LDConfig.ldr."""
    out: dict[int, Color] = {}
    for line in text.splitlines():
        m = _COLOUR.match(line.strip())
        if not m:
            continue
        name, code, value, rest = m.group(1), int(m.group(2)), m.group(3), m.group(4).split()
        alpha = int(rest[rest.index("ALPHA") + 1]) if "ALPHA" in rest[:-1] else 255
        material = next((w.lower() for w in rest if w in ("CHROME", "PEARLESCENT", "RUBBER", "METAL")), "solid")
        if alpha < 255 and material == "solid":
            material = "transparent"
        rgb = (int(value[0:2], 16), int(value[2:4], 16), int(value[4:6], 16))
        out[code] = Color(code, name.replace("_", " ").lower(), rgb, alpha, material)
    return out


@cache
def _colours_of(folder: Path) -> dict[int, Color]:
    path = folder / "LDConfig.ldr"
    if not path.is_file():
        return {}
    table = parse_ldconfig(path.read_text(encoding="utf-8", errors="replace"))
    table.pop(16, None)
    table.pop(24, None)
    return table


def library_colours() -> dict[int, Color]:
    """Colours of the library's LDConfig.ldr (empty without a library)."""
    folder = library_dir()
    return {} if folder is None else _colours_of(folder)


@dataclass(frozen=True)
class _Shape:
    """What a part file says about itself: its title and, where present, its geometry."""

    title: str
    bbox: tuple[float, float, float, float, float, float] | None  # x0, y0, z0, x1, y1, z1 in LDU
    studs: tuple[tuple[float, float], ...]  # (x, z) of top studs (y = 0)


def _find(folder: Path, sub: str, name: str) -> Path | None:
    """A library file by LDraw name, case-insensitively (library file names are lower case on Linux)."""
    for candidate in (name, name.lower()):
        p = folder / sub / candidate
        if p.is_file():
            return p
    return None


def _read_shape(folder: Path, path: Path, depth: int = 0) -> _Shape:
    text = path.read_bytes()[:_MAX_PART_BYTES].decode("utf-8", errors="replace")
    lines = text.splitlines()
    title = lines[0][1:].strip() if lines and lines[0].startswith("0") else ""
    pts: list[tuple[float, float, float]] = []
    studs: list[tuple[float, float]] = []
    for line in lines:
        w = line.split()
        if not w or w[0] not in ("1", "2", "3", "4", "5"):
            continue
        try:
            nums = [float(x) for x in w[2:14]] if w[0] == "1" else [float(x) for x in w[2:]]
        except ValueError:
            continue
        if not all(math.isfinite(x) for x in nums):
            continue
        if w[0] == "1" and len(w) >= 15:
            ref = " ".join(w[14:]).lower().replace("\\", "/")
            x, y, z = nums[0:3]
            if ref in _STUD_PRIMITIVES and abs(y) < 1e-6:
                studs.append((x, z))
            elif ref.startswith("s/") and depth < _MAX_SUBPART_DEPTH:
                sub = _find(folder, "parts", ref)
                if sub is not None:
                    a, b, c, d, e, f, g, h, i = nums[3:12]
                    inner = _read_shape(folder, sub, depth + 1)
                    # Sub-parts of rectangular parts are placed unrotated or by quarter turns: map corners.
                    if inner.bbox is not None:
                        x0, y0, z0, x1, y1, z1 = inner.bbox
                        for cx, cy, cz in ((x0, y0, z0), (x1, y1, z1)):
                            pts.append((a * cx + b * cy + c * cz + x, d * cx + e * cy + f * cz + y,
                                        g * cx + h * cy + i * cz + z))
                    studs += [(a * sx + c * sz + x, g * sx + i * sz + z) for sx, sz in inner.studs]
        elif w[0] in ("2", "3", "4", "5"):
            coords = nums[: {"2": 6, "3": 9, "4": 12, "5": 6}[w[0]]]
            pts += [(coords[k], coords[k + 1], coords[k + 2]) for k in range(0, len(coords) - 2, 3)]
    bbox = None
    if pts:
        xs, ys, zs = zip(*pts, strict=True)
        bbox = (min(xs), min(ys), min(zs), max(xs), max(ys), max(zs))
    return _Shape(title, bbox, tuple(studs))


def part_from_file(folder: Path, number: str, path: Path) -> tuple[Part | None, str]:
    """A catalog Part from a library part file, or None and the reason it is not a plain rectangular part."""
    shape = _read_shape(folder, path)
    moved = _MOVED.match(shape.title)
    if moved:
        target = moved.group(1).lower().removesuffix(".dat")
        nxt = _find(folder, "parts", target + ".dat") if _NUMBER.match(target) else None
        if nxt is None:
            return None, f"{shape.title!r} names no library part"
        inner, why = part_from_file(folder, target, nxt)
        return (None, why) if inner is None else (Part(number, inner.name, inner.kind, inner.width,
                                                       inner.depth, inner.height), "")
    m = _TITLE.match(shape.title)
    if not m:
        return None, f"its title {shape.title!r} is not a plain rectangular brick, plate, tile or baseplate"
    kind: PartKind = m.group(1).lower()  # type: ignore[assignment]
    short, long_ = sorted((int(m.group(2)), int(m.group(3))))
    if short < 1 or long_ > 64:
        return None, f"footprint {short} x {long_} is outside 1..64 studs"
    width, depth = long_, short  # the catalog convention: length along the part's x
    if shape.bbox is not None:
        x0, y0, z0, x1, y1, z1 = shape.bbox
        ex, ez = round((x1 - x0) / 20), round((z1 - z0) / 20)
        if ex * 20 + 4 < x1 - x0 or {ex, ez} != {width, depth}:
            return None, f"its geometry spans {x1 - x0:g} x {z1 - z0:g} LDU, not {width} x {depth} studs"
        if ez == width and ex == depth and width != depth:
            return None, "its long side lies along LDraw z (the catalog needs it along x)"
        if kind != "baseplate" and abs((y1 - y0) - _HEIGHT_LDU[kind]) > 0.5:
            return None, f"its geometry is {y1 - y0:g} LDU high, not {_HEIGHT_LDU[kind]} for a {kind}"
    if shape.studs:
        cells = {(round((sx + width * 10 - 10) / 20), round((sz + depth * 10 - 10) / 20)) for sx, sz in shape.studs}
        want = {(i, j) for i in range(width) for j in range(depth)}
        if kind == "tile" or cells != want:
            return None, f"its {len(shape.studs)} top studs do not cover the {width} x {depth} grid"
    name = f"{kind.capitalize()} {short} x {long_}" + (" with Groove" if m.group(4) else "")
    height = {"brick": 3, "plate": 1, "tile": 1, "baseplate": 0}[kind]
    return Part(number, name, kind, width, depth, height), ""


@cache
def _library_part(folder: Path, number: str) -> tuple[Part | None, str]:
    if not _NUMBER.match(number):
        return None, "not a part number"
    path = _find(folder, "parts", number + ".dat")
    if path is None:
        return None, f"no parts/{number}.dat in the library at {folder}"
    return part_from_file(folder, number, path)


def library_part(number: str) -> Part | None:
    """The rectangular part `number` from the library, or None (no library, no such file, not rectangular)."""
    folder = library_dir()
    if folder is None:
        return None
    return _library_part(folder, number.lower())[0]


def why_not_library_part(number: str) -> str:
    """Why the library does not supply this part (for error messages)."""
    folder = library_dir()
    if folder is None:
        return f"no LDraw library (set ${LDRAWDIR_ENV} to read rectangular parts from its part files)"
    return _library_part(folder, number.lower())[1]


def library_title(number: str) -> str | None:
    """The title line of a library part file (for substitution by footprint), or None."""
    folder = library_dir()
    if folder is None or not _NUMBER.match(number.lower()):
        return None
    path = _find(folder, "parts", number.lower() + ".dat")
    return None if path is None else _read_shape(folder, path).title
