"""LDraw I/O: .ldr / .mpd files to and from lattice Assemblies.

LDraw frame: LDU (1 stud = 20 LDU, 1 plate = 8 LDU), -y up, right-handed. The lattice maps to it as
LDraw (X, Y, Z) = (x, -z, y) (a proper rotation). A catalog part's LDraw origin is the centre of its
top face, its length along LDraw x. Import reads type-1 lines (part references), expands nested
submodels (MPD `0 FILE` blocks or neighbouring .ldr files) composing their transforms, resolves colour
16 (main colour) and 24 (edge colour, meaningless for a solid part: the main colour is used) from the
referencing line, and rejects what the lattice cannot hold (unknown part, off-lattice position,
rotation other than a quarter turn about the vertical, overlap) with an LDrawError naming file, line
and reason. Export writes one brick per step (`0 STEP`) or the given step groups, in build order.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from jarvis_sim.lego.assembly import Assembly, LatticeBrick
from jarvis_sim.lego.catalog import PARTS
from jarvis_sim.lego.colors import COLORS, INHERIT

EDGE = 24
DEFAULT_TOP_COLOR = 7  # what LDraw viewers show for colour 16 at the top level: light grey
_M = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]], dtype=np.int64)  # columns: lattice x, y, z in LDraw


class LDrawError(ValueError):
    """A file the lattice cannot hold; names the file, line (1-based) and reason."""

    def __init__(self, file: str, line: int, reason: str):
        super().__init__(f"{file}:{line}: {reason}")
        self.file, self.line, self.reason = file, line, reason


def _yaw_matrix(k: int) -> np.ndarray:
    c, s = [(1, 0), (0, 1), (-1, 0), (0, -1)][k % 4]
    rz = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], dtype=np.int64)
    return _M @ rz @ _M.T


_YAWS = [_yaw_matrix(k) for k in range(4)]


@dataclass(frozen=True)
class _Ref:
    """One part reference after expanding submodels: world transform, colour, where it was written."""

    part: str
    color: int
    pos: np.ndarray
    rot: np.ndarray
    file: str
    line: int


@dataclass(frozen=True)
class LDrawModel:
    """An imported model: the assembly (file order = build order) and its steps as brick-id groups."""

    assembly: Assembly
    steps: list[list[str]]


def _split_mpd(text: str, file: str) -> dict[str, list[tuple[int, str]]]:
    """Sub-files by lower-case name, each a list of (line number, line); the first is the main model."""
    files: dict[str, list[tuple[int, str]]] = {}
    current: list[tuple[int, str]] | None = None
    main = file.lower()
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        words = line.split()
        if len(words) >= 3 and words[0] == "0" and words[1].upper() == "FILE":
            name = " ".join(words[2:]).lower()
            if not files:
                main = name
            current = files.setdefault(name, [])
            continue
        if len(words) >= 2 and words[0] == "0" and words[1].upper() == "NOFILE":
            current = None
            continue
        if current is None:
            if files:
                continue
            current = files.setdefault(main, [])
        current.append((n, line))
    files.setdefault(main, [])
    # The main model goes first.
    return {main: files[main], **{k: v for k, v in files.items() if k != main}}


def _parse_type1(words: list[str], file: str, n: int) -> tuple[int, np.ndarray, np.ndarray, str]:
    if len(words) < 15:
        raise LDrawError(file, n, f"type-1 line needs 15 fields, got {len(words)}")
    try:
        color = int(words[1], 0)
        nums = [float(w) for w in words[2:14]]
    except ValueError as e:
        raise LDrawError(file, n, f"bad number in type-1 line: {e}") from None
    pos = np.array(nums[0:3])
    rot = np.array(nums[3:12]).reshape(3, 3)
    return color, pos, rot, " ".join(words[14:])


def _expand(
    name: str,
    files: dict[str, list[tuple[int, str]]],
    label: str,
    base_dir: Path | None,
    pos: np.ndarray,
    rot: np.ndarray,
    color: int,
    stack: tuple[str, ...],
    out: list[_Ref],
    steps: list[int],
) -> None:
    lines = files[name]
    for n, line in lines:
        words = line.split()
        if not words:
            continue
        kind = words[0]
        if kind == "0":
            if len(words) >= 2 and words[1].upper() == "STEP" and not stack[1:]:
                steps.append(len(out))
            continue
        if kind in ("2", "3", "4", "5"):
            raise LDrawError(label, n, f"line type {kind} (geometry) is not a part reference; only bricks are supported")
        if kind != "1":
            raise LDrawError(label, n, f"unknown line type {kind!r}")
        c, p, r, ref = _parse_type1(words, label, n)
        if c in (INHERIT, EDGE):
            c = color
        elif c not in COLORS:
            raise LDrawError(label, n, f"unknown colour code {c}; known: {sorted(COLORS)}")
        world_pos = rot @ p + pos
        world_rot = rot @ r
        key = ref.lower().replace("\\", "/")
        if key in files or (base_dir is not None and (base_dir / ref).is_file()):
            if key in stack:
                raise LDrawError(label, n, f"submodel {ref!r} includes itself")
            if key not in files:
                assert base_dir is not None
                files.update({key: _split_mpd((base_dir / ref).read_text(errors="replace"), key)[key.lower()]})
            sub_label = ref if key != name else label
            _expand(key, files, sub_label, base_dir, world_pos, world_rot, c, (*stack, key), out, steps)
            continue
        part = key.removesuffix(".dat")
        if part not in PARTS:
            raise LDrawError(label, n, f"unknown part {ref!r} (not in the catalog and not a submodel)")
        out.append(_Ref(part, c, world_pos, world_rot, label, n))


def _to_lattice(ref: _Ref, level0_ldu: float) -> tuple[int, int, int, int]:
    """(x, y, z, yaw) of a part reference, or LDrawError for a rotation or position off the lattice."""
    rounded = np.rint(ref.rot)
    if np.abs(ref.rot - rounded).max() > 1e-3:
        raise LDrawError(ref.file, ref.line, "rotation is not a multiple of 90 degrees")
    yaw = next((k for k, m in enumerate(_YAWS) if np.array_equal(rounded, m)), None)
    if yaw is None:
        raise LDrawError(ref.file, ref.line, "rotation is not a quarter turn about the vertical (part tilted or mirrored)")
    spec = PARTS[ref.part]
    ex, ey = (spec.width, spec.depth) if yaw % 2 == 0 else (spec.depth, spec.width)
    corner_x = ref.pos[0] - ex * 10.0
    corner_y = ref.pos[2] - ey * 10.0
    top = (level0_ldu - ref.pos[1]) / 8.0  # plates above level 0 (LDraw y points down)
    for value, what, unit in ((corner_x / 20, "x", 20), (corner_y / 20, "z", 20), (top, "y", 8)):
        if abs(value - round(value)) > 1e-3:
            raise LDrawError(ref.file, ref.line, f"position off the lattice: LDraw {what} is not on the {unit}-LDU grid")
    z = round(top) - spec.height
    if z < 0:
        raise LDrawError(ref.file, ref.line, f"part reaches {-z} plate(s) below the lowest level (level 0)")
    return round(corner_x / 20), round(corner_y / 20), z, yaw


def parse_ldraw(text: str, file: str = "<string>", base_dir: Path | None = None) -> LDrawModel:
    """Parse .ldr or .mpd text into a lattice model; raises LDrawError naming file, line and reason."""
    files = _split_mpd(text, file)
    main = next(iter(files))
    refs: list[_Ref] = []
    step_marks: list[int] = []
    _expand(main, files, file, base_dir, np.zeros(3), np.eye(3), DEFAULT_TOP_COLOR, (main,), refs, step_marks)
    baseplates = [r for r in refs if PARTS[r.part].kind == "baseplate"]
    bricks_refs = [r for r in refs if PARTS[r.part].kind != "baseplate"]
    if not bricks_refs:
        raise LDrawError(file, 1, "no bricks in the model")
    if baseplates:
        level0 = float(baseplates[0].pos[1])  # a baseplate's origin is its top face
    else:
        level0 = max(float(r.pos[1]) + PARTS[r.part].height * 8 for r in bricks_refs)  # lowest bottom
    bricks: list[LatticeBrick] = []
    origin: dict[str, _Ref] = {}
    for i, r in enumerate(bricks_refs):
        x, y, z, yaw = _to_lattice(r, level0)
        bid = f"b{i:03d}"
        bricks.append(LatticeBrick(id=bid, part=r.part, color=r.color, x=x, y=y, z=z, yaw=yaw))
        origin[bid] = r
    assembly = Assembly(bricks, baseplate=bool(baseplates), name=Path(file).stem)
    for o in assembly.overlaps():
        a, b = origin[o.a], origin[o.b]
        raise LDrawError(b.file, b.line, f"part overlaps the part at {a.file}:{a.line}")
    index_of = {id(r): k for k, r in enumerate(refs)}
    steps: list[list[str]] = []
    bounds = sorted({0, *step_marks, len(refs)})
    for lo, hi in itertools.pairwise(bounds):
        group = [bricks[k2].id for k2, r in enumerate(bricks_refs) if lo <= index_of[id(r)] < hi]
        if group:
            steps.append(group)
    return LDrawModel(assembly, steps)


def read_ldraw(path: str | Path) -> LDrawModel:
    """Read an .ldr or .mpd file (submodels in the same folder are found by name)."""
    p = Path(path)
    return parse_ldraw(p.read_text(encoding="utf-8", errors="replace"), p.name, p.parent)


def _ldraw_line(b: LatticeBrick) -> str:
    ex, ey = b.extent
    x = b.x * 20 + ex * 10
    zz = b.y * 20 + ey * 10
    y = -b.top * 8
    m = _YAWS[b.yaw].reshape(-1)
    return "1 {} {} {} {} {} {}.dat".format(b.color, x, y, zz, " ".join(str(int(v)) for v in m), b.part)


def to_ldraw(assembly: Assembly, steps: Sequence[Sequence[str]] | None = None, title: str | None = None) -> str:
    """LDraw text of an assembly in build order, a `0 STEP` after each brick or each given step group."""
    groups = [list(s) for s in steps] if steps is not None else [[b.id] for b in assembly.bricks]
    listed = [i for g in groups for i in g]
    if sorted(listed) != sorted(b.id for b in assembly.bricks):
        raise ValueError("steps must list every brick of the assembly exactly once")
    name = title or assembly.name or "model"
    out = [f"0 {name}", f"0 Name: {name}.ldr", "0 Author: JARVIS", "0 !LDRAW_ORG Unofficial_Model"]
    if assembly.baseplate:
        x0, y0, x1, y1 = assembly.footprint_bounds()
        cx, cy = (x0 + x1) // 2 * 20, (y0 + y1) // 2 * 20
        out.append(f"1 2 {cx} 0 {cy} 1 0 0 0 1 0 0 0 1 3811.dat")
    for g in groups:
        out += [_ldraw_line(assembly[i]) for i in g]
        out.append("0 STEP")
    return "\n".join(out) + "\n"


def write_ldraw(assembly: Assembly, path: str | Path, steps: Sequence[Sequence[str]] | None = None) -> Path:
    """Write an assembly as an .ldr file."""
    p = Path(path)
    p.write_text(to_ldraw(assembly, steps, title=p.stem), encoding="utf-8")
    return p
