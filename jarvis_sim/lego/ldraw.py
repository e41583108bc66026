"""LDraw I/O: .ldr / .mpd files to and from lattice Assemblies.

LDraw frame: LDU (1 stud = 20 LDU, 1 plate = 8 LDU), -y up, right-handed. The lattice maps to it as
LDraw (X, Y, Z) = (x, -z, y) (a proper rotation). A catalog part's LDraw origin is the centre of its
top face, its length along LDraw x.

Import reads type-1 lines (part references), expands nested submodels (MPD `0 FILE` blocks or .ldr
files in the model's folder) composing their transforms, and resolves colour 16 (main colour) and 24
(edge colour, meaningless for a solid part: the main colour is used) from the referencing line. The
stud grid is inferred from the model: the first part (the baseplate, when there is one) fixes the grid's
offset and every other part must agree with it, so a model may sit anywhere in LDraw space. Parts the
catalog lacks follow the `unsupported` policy (fail, skip, or substitute the catalog part of the same
footprint), and every skip or substitution is reported. The result must be buildable in order (each
brick lowered from above onto studs); a file order that is not, but whose bricks can be built level by
level, is reordered and the report says so.

Every error is an LDrawError naming the chain of references that led to the line
(`house.ldr:9 -> wall.ldr:15: reason`). Hostile input is bounded: non-finite or absurd coordinates are
rejected, references may name only sub-files of the MPD, files inside the model's folder and catalog
parts (never `../` or absolute paths), and expansion stops past a depth, a line count and a part count.
Export writes one brick per step (`0 STEP`) or the given step groups, in build order.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np

from jarvis_sim.lego.assembly import Assembly, AssemblyError, LatticeBrick
from jarvis_sim.lego.catalog import PARTS, Part, lookup, part_by_size
from jarvis_sim.lego.colors import EDGE, INHERIT, is_known, ldraw_colors, nearest_color
from jarvis_sim.lego.ldraw_library import library_title, why_not_library_part

DEFAULT_TOP_COLOR = 7  # what LDraw viewers show for colour 16 at the top level: light grey
MAX_DEPTH = 24  # submodel nesting
MAX_EXPANDED_LINES = 200_000  # lines visited over all submodel instances (a 2 KB file can nest to 10^10)
MAX_PARTS = 10_000  # part references after expansion
MAX_FILE_BYTES = 8 << 20
MAX_COORD_LDU = 1e6  # 400 m: anything beyond is a broken file, not a model
_M = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]], dtype=np.int64)  # columns: lattice x, y, z in LDraw
_PART_TITLE = re.compile(r"^\s*(brick|plate|tile)\s+(\d+)\s*x\s*(\d+)(?!\s*x)", re.IGNORECASE)

Unsupported = Literal["fail", "skip", "substitute"]
Unbuildable = Literal["fail", "drop"]

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


class LDrawError(ValueError):
    """A file the lattice cannot hold; names the file, line (1-based), reason and the reference chain."""

    def __init__(self, file: str, line: int, reason: str, trace: Sequence[tuple[str, int]] = ()):
        # `trace` is the whole chain, outermost reference first, ending at (file, line).
        self.trace: tuple[tuple[str, int], ...] = tuple(trace) or ((file, line),)
        super().__init__(f"{' -> '.join(f'{f}:{n}' for f, n in self.trace)}: {reason}")
        self.file, self.line, self.reason = file, line, reason


def _yaw_matrix(k: int) -> np.ndarray:
    c, s = [(1, 0), (0, 1), (-1, 0), (0, -1)][k % 4]
    rz = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], dtype=np.int64)
    return _M @ rz @ _M.T


_YAWS = [_yaw_matrix(k) for k in range(4)]


@dataclass(frozen=True)
class ImportOptions:
    """How to treat what the lattice or the catalog cannot hold."""

    # A part the catalog (and the library) lacks. skip and substitute also skip a placement the lattice cannot
    # hold (a part tilted, mirrored or off the stud grid: SNOT work, jumper offsets), as real models have them.
    unsupported: Unsupported = "fail"
    colour_map: dict[int, int] = field(default_factory=dict)  # LDraw code -> code, applied before the checks
    check_buildable: bool = True  # raise when no build order places every brick from above
    # drop: leave out (reported) the bricks no build order can place from above, e.g. those resting only on
    # skipped parts, instead of refusing the model.
    unbuildable: Unbuildable = "fail"


@dataclass(frozen=True)
class ImportNote:
    """One thing the importer did that the user should know: a skip, a substitution, a reorder."""

    where: str
    action: Literal["skipped", "substituted", "colour_mapped", "reordered", "dropped"]
    detail: str

    def __str__(self) -> str:
        return f"{self.where}: {self.action}: {self.detail}"


@dataclass(frozen=True)
class _Ref:
    """One part reference after expanding submodels: world transform, colour, the chain that placed it."""

    part: str
    color: int
    pos: np.ndarray
    rot: np.ndarray
    trace: tuple[tuple[str, int], ...]
    step: int

    @property
    def where(self) -> str:
        return " -> ".join(f"{f}:{n}" for f, n in self.trace)

    def error(self, reason: str) -> LDrawError:
        f, n = self.trace[-1]
        return LDrawError(f, n, reason, self.trace)


@dataclass(frozen=True)
class LDrawModel:
    """An imported model: the assembly (build order), its steps as brick-id groups, what the import did."""

    assembly: Assembly
    steps: list[list[str]]
    notes: list[ImportNote] = field(default_factory=list)
    sources: dict[str, str] = field(default_factory=dict)  # brick id -> reference chain (file:line -> ...)


def _split_mpd(text: str, file: str) -> dict[str, list[tuple[int, str]]]:
    """Sub-files by lower-case name, each a list of (line number, line); the first is the main model."""
    files: dict[str, list[tuple[int, str]]] = {}
    current: list[tuple[int, str]] | None = None
    main = file.lower()
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        words = line.split()
        if len(words) >= 3 and words[0] == "0" and words[1].upper() == "FILE":
            name = " ".join(words[2:]).lower().replace("\\", "/")
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


def _parse_type1(words: list[str], where: tuple[tuple[str, int], ...]) -> tuple[int, np.ndarray, np.ndarray, str]:
    file, n = where[-1]
    if len(words) < 15:
        raise LDrawError(file, n, f"type-1 line needs 15 fields, got {len(words)}", where)
    try:
        color_code = int(words[1], 0)
        nums = [float(w) for w in words[2:14]]
    except ValueError as e:
        raise LDrawError(file, n, f"bad number in type-1 line: {e}", where) from None
    for k, v in enumerate(nums):
        what = "position" if k < 3 else "rotation matrix"
        if not math.isfinite(v):
            raise LDrawError(file, n, f"{what} field {k + 3} is {words[2 + k]!r}, not a finite number", where)
        if abs(v) > (MAX_COORD_LDU if k < 3 else 1e3):
            raise LDrawError(file, n, f"{what} field {k + 3} = {v:g} is out of range", where)
    pos = np.array(nums[0:3])
    rot = np.array(nums[3:12]).reshape(3, 3)
    return color_code, pos, rot, " ".join(words[14:])


def _is_geometry(lines: list[tuple[int, str]]) -> bool:
    """An MPD sub-file holding faces and lines is an embedded part, not a submodel."""
    return any(ln[:1] in ("2", "3", "4", "5") for _, ln in lines)


def _safe_neighbour(base_dir: Path, ref: str) -> Path | None:
    """The file `ref` names inside the model's folder, or None; references escaping the folder are refused."""
    if "\x00" in ref:  # no file name holds one; os calls would raise ValueError
        return None
    rel = Path(ref.replace("\\", "/"))
    if rel.is_absolute() or ".." in rel.parts or rel.drive:
        return None
    try:
        root = base_dir.resolve()
        path = (root / rel).resolve()
    except (OSError, RuntimeError):
        return None
    if not path.is_relative_to(root) or not path.is_file():
        return None
    return path


@dataclass
class _Expansion:
    """State of one import: sub-files, options, results and the work bound."""

    files: dict[str, list[tuple[int, str]]]
    base_dir: Path | None
    options: ImportOptions
    refs: list[_Ref] = field(default_factory=list)
    notes: list[ImportNote] = field(default_factory=list)
    step: int = 0
    lines_seen: int = 0

    def expand(self, name: str, pos: np.ndarray, rot: np.ndarray, colour: int,
               trace: tuple[tuple[str, int], ...], stack: tuple[str, ...], label: str) -> None:
        for n, line in self.files[name]:
            self.lines_seen += 1
            here = (*trace, (label, n))
            if self.lines_seen > MAX_EXPANDED_LINES:
                raise LDrawError(label, n, f"expanding the submodels visits more than {MAX_EXPANDED_LINES} lines "
                                           "(nested submodels multiply); the model is too large to import", here)
            words = line.split()
            if not words:
                continue
            kind = words[0]
            if kind == "0":
                if len(words) >= 2 and words[1].upper() == "STEP" and not trace:
                    self.step += 1
                continue
            if kind in ("2", "3", "4", "5"):
                raise LDrawError(label, n, f"line type {kind} (geometry) is not a part reference; only bricks "
                                           "are supported", here)
            if kind != "1":
                raise LDrawError(label, n, f"unknown line type {kind[:20]!r}", here)
            c, p, r, ref = _parse_type1(words, here)
            c = self.options.colour_map.get(c, c)
            if c in (INHERIT, EDGE):
                c = colour
            world_pos = rot @ p + pos
            world_rot = rot @ r
            key = ref.lower().replace("\\", "/")
            if key in self.files and not _is_geometry(self.files[key]):
                self._submodel(key, ref, here, stack, world_pos, world_rot, c)
                continue
            part_key = key.removesuffix(".dat")
            found = lookup(part_key) if key not in self.files else None
            if found is None and key not in self.files and self.base_dir is not None and not key.endswith(".dat"):
                path = _safe_neighbour(self.base_dir, ref)
                if path is None and (".." in key.split("/") or key.startswith("/") or ":" in key):
                    raise LDrawError(label, n, f"reference {ref!r} leaves the model's folder; references may "
                                               "name only submodels, files beside the model and parts", here)
                if path is not None:
                    if path.stat().st_size > MAX_FILE_BYTES:
                        raise LDrawError(label, n, f"submodel file {ref!r} is larger than {MAX_FILE_BYTES >> 20} MB",
                                         here)
                    sub = _split_mpd(path.read_text(encoding="utf-8", errors="replace"), key)
                    self.files[key] = next(iter(sub.values()))
                    for k2, v2 in sub.items():
                        self.files.setdefault(k2, v2)
                    self._submodel(key, ref, here, stack, world_pos, world_rot, c)
                    continue
            if found is None:
                found = self._unsupported(ref, key, here)
                if found is None:
                    continue
            if found.kind != "baseplate" and not is_known(c):
                c = self._unknown_colour(c, here)
            if len(self.refs) >= MAX_PARTS:
                raise LDrawError(label, n, f"the model has more than {MAX_PARTS} parts", here)
            self.refs.append(_Ref(found.number, c, world_pos, world_rot, here, self.step))

    def _submodel(self, key: str, ref: str, here: tuple[tuple[str, int], ...], stack: tuple[str, ...],
                  pos: np.ndarray, rot: np.ndarray, colour: int) -> None:
        file, n = here[-1]
        if key in stack:
            raise LDrawError(file, n, f"submodel {ref!r} includes itself", here)
        if len(stack) >= MAX_DEPTH:
            raise LDrawError(file, n, f"submodels nest deeper than {MAX_DEPTH} levels", here)
        self.expand(key, pos, rot, colour, here, (*stack, key), ref)

    def _unsupported(self, ref: str, key: str, here: tuple[tuple[str, int], ...]) -> Part | None:
        """Apply the policy to a part the catalog lacks: the substitute, None to skip, or LDrawError."""
        file, n = here[-1]
        number = key.removesuffix(".dat")
        where = " -> ".join(f"{f}:{k}" for f, k in here)
        policy = self.options.unsupported
        title = self._title(key)
        if policy == "substitute":
            sub = _substitute(number, title)
            if sub is not None:
                self.notes.append(ImportNote(where, "substituted", f"{ref} ({title or 'no title'}) -> {sub.number} "
                                                                   f"({sub.name}): same footprint and height"))
                return sub
        if policy in ("skip", "substitute"):
            self.notes.append(ImportNote(where, "skipped", f"{ref} ({title or 'unknown shape'}): not in the catalog"
                                                           + (" and no catalog part has its shape" if policy ==
                                                              "substitute" else "")))
            return None
        why = why_not_library_part(number) if key not in self.files else "an embedded part with its own geometry"
        raise LDrawError(file, n, f"unknown part {ref!r} (not in the catalog and not a submodel; {why}); "
                                  "--unsupported skip or substitute imports the rest", here)

    def _title(self, key: str) -> str | None:
        if key in self.files:
            first = next((ln for _, ln in self.files[key] if ln.startswith("0 ") and len(ln) > 2), None)
            return None if first is None else first[2:].strip()
        number = key.removesuffix(".dat")
        return library_title(number) or (KNOWN_VARIANTS[number][1] if number in KNOWN_VARIANTS else None)

    def _unknown_colour(self, code: int, here: tuple[tuple[str, int], ...]) -> int:
        file, n = here[-1]
        direct = code >> 24 == 2 and code <= 0x2FFFFFF
        if self.options.unsupported == "substitute" and direct:
            rgb = ((code >> 16) & 255, (code >> 8) & 255, code & 255)
            near = nearest_color(rgb)
            self.notes.append(ImportNote(" -> ".join(f"{f}:{k}" for f, k in here), "colour_mapped",
                                         f"direct colour {code:#x} -> {near.code} ({near.name})"))
            return near.code
        what = f"direct colour {code:#x}" if direct else f"unknown colour code {code}"
        raise LDrawError(file, n, f"{what}: not in LDraw's colour table ({len(ldraw_colors())} codes, "
                                  "assets/ldraw/colours.tsv or $LDRAWDIR/LDConfig.ldr); map it with "
                                  "--map-colour CODE=CODE" + (" or --unsupported substitute" if direct else ""), here)


def _substitute(number: str, title: str | None) -> Part | None:
    """The catalog part with the footprint and height a title names (or a known variant's), or None."""
    if number in KNOWN_VARIANTS:
        return PARTS[KNOWN_VARIANTS[number][0]]
    m = _PART_TITLE.match(title or "")
    if not m:
        return None
    kind = m.group(1).lower()
    a, b = int(m.group(2)), int(m.group(3))
    try:
        return part_by_size(a, b, kind)  # type: ignore[arg-type]
    except KeyError:
        return None


def _orientation(ref: _Ref) -> int:
    rounded = np.rint(ref.rot)
    if np.abs(ref.rot - rounded).max() > 1e-3:
        raise ref.error("rotation is not a multiple of 90 degrees")
    yaw = next((k for k, m in enumerate(_YAWS) if np.array_equal(rounded, m)), None)
    if yaw is None:
        raise ref.error("rotation is not a quarter turn about the vertical (part tilted or mirrored)")
    return yaw


def _corner(ref: _Ref, yaw: int) -> tuple[float, float]:
    """LDraw (x, z) of the footprint's minimum corner."""
    spec = PARTS[ref.part]
    ex, ey = (spec.width, spec.depth) if yaw % 2 == 0 else (spec.depth, spec.width)
    return float(ref.pos[0] - ex * 10.0), float(ref.pos[2] - ey * 10.0)


def _grid_offset(ref: _Ref) -> tuple[float, float]:
    """The stud grid's offset (LDU, in [0, 20)) that this part's footprint corner sets."""
    cx, cz = _corner(ref, _orientation(ref))
    # Float noise in the file (19.9999 for 0) must not shift the whole grid by one stud.
    ox, oz = round(cx % 20.0, 4) % 20.0, round(cz % 20.0, 4) % 20.0
    return (0.0 if ox > 20.0 - 1e-3 else ox), (0.0 if oz > 20.0 - 1e-3 else oz)


def _to_lattice(ref: _Ref, level0_ldu: float, offset: tuple[float, float], anchor: _Ref) -> tuple[int, int, int, int]:
    """(x, y, z, yaw) of a part reference on the model's stud grid, or LDrawError naming what is off."""
    yaw = _orientation(ref)
    spec = PARTS[ref.part]
    cx, cz = _corner(ref, yaw)
    gx, gz = (cx - offset[0]) / 20.0, (cz - offset[1]) / 20.0
    for value, what in ((gx, "x"), (gz, "z")):
        if abs(value - round(value)) > 1e-3:
            off = ((cx if what == "x" else cz) - (offset[0] if what == "x" else offset[1])) % 20.0
            raise ref.error(f"position off the lattice: LDraw {what} is {min(off, 20 - off):g} LDU off the stud "
                            f"grid set by the part at {anchor.where}")
    top = (level0_ldu - ref.pos[1]) / 8.0  # plates above level 0 (LDraw y points down)
    if abs(top - round(top)) > 1e-3:
        raise ref.error("position off the lattice: LDraw y is not on the 8-LDU plate grid of the lowest part")
    z = round(top) - spec.height
    if z < 0:
        raise ref.error(f"part reaches {-z} plate(s) below the lowest level (level 0)")
    return round(gx), round(gz), z, yaw


def parse_ldraw(text: str, file: str = "<string>", base_dir: Path | None = None,
                options: ImportOptions | None = None) -> LDrawModel:
    """Parse .ldr or .mpd text into a lattice model; raises LDrawError naming the reference chain and reason."""
    opts = options or ImportOptions()
    for src, dst in opts.colour_map.items():
        if dst not in (INHERIT, EDGE) and not is_known(dst):
            raise LDrawError(file, 0, f"colour map {src}={dst}: {dst} is not an LDraw colour code")
    if "\x00" in text:  # no LDraw line holds one, and a part reference with one cannot name a file
        raise LDrawError(file, text.count("\n", 0, text.index("\x00")) + 1, "the line holds a NUL character")
    files = _split_mpd(text, file)
    main = next(iter(files))
    run = _Expansion(files, base_dir, opts)
    run.expand(main, np.zeros(3), np.eye(3), DEFAULT_TOP_COLOR, (), (main,), file)
    baseplates = [r for r in run.refs if PARTS[r.part].kind == "baseplate"]
    bricks_refs = [r for r in run.refs if PARTS[r.part].kind != "baseplate"]
    if not bricks_refs:
        raise LDrawError(file, 1, "no bricks in the model" + (" (every part was skipped)" if run.notes else ""))
    lenient = opts.unsupported != "fail"
    if lenient:  # the grid is set by the first part the lattice can hold
        bricks_refs = [r for r in bricks_refs if _placeable(r, run.notes)]
        if not bricks_refs:
            raise LDrawError(file, 1, "no bricks in the model the lattice can hold (every part was skipped)")
    anchor = baseplates[0] if baseplates else bricks_refs[0]
    offset = _grid_offset(anchor)
    if baseplates:
        level0 = float(baseplates[0].pos[1])  # a baseplate's origin is its top face
    else:
        level0 = max(float(r.pos[1]) + PARTS[r.part].height * 8 for r in bricks_refs)  # lowest bottom
    bricks: list[LatticeBrick] = []
    origin: dict[str, _Ref] = {}
    for r in bricks_refs:
        try:
            x, y, z, yaw = _to_lattice(r, level0, offset, anchor)
        except LDrawError as exc:
            if not lenient:
                raise
            run.notes.append(ImportNote(r.where, "skipped", f"{r.part} ({PARTS[r.part].name}): {exc.reason}"))
            continue
        bid = f"b{len(bricks):03d}"
        bricks.append(LatticeBrick(id=bid, part=r.part, color=r.color, x=x, y=y, z=z, yaw=yaw))
        origin[bid] = r
    if not bricks:
        raise LDrawError(file, 1, "no bricks in the model lie on its stud grid (every part was skipped)")
    assembly = Assembly(bricks, baseplate=bool(baseplates), name=Path(file).stem)
    for o in assembly.overlaps():
        a, b = origin[o.a], origin[o.b]
        raise b.error(f"part overlaps the part at {a.where}")
    step_of = {bid: r.step for bid, r in origin.items()}
    notes = list(run.notes)
    if opts.check_buildable:
        assembly = _buildable_order(assembly, step_of, origin, notes, drop=opts.unbuildable == "drop")
    steps = [[b.id for b in grp] for _, grp in itertools.groupby(assembly.bricks, key=lambda b: step_of[b.id])]
    return LDrawModel(assembly, steps, notes, {b.id: origin[b.id].where for b in assembly.bricks})


def _placeable(ref: _Ref, notes: list[ImportNote]) -> bool:
    """Whether a part stands upright in a quarter turn (else a 'skipped' note says why)."""
    try:
        _orientation(ref)
    except LDrawError as exc:
        notes.append(ImportNote(ref.where, "skipped", f"{ref.part} ({PARTS[ref.part].name}): {exc.reason}"))
        return False
    return True


def _buildable_order(assembly: Assembly, step_of: dict[str, int], origin: dict[str, _Ref],
                     notes: list[ImportNote], drop: bool = False) -> Assembly:
    """The file's order when it builds from above; else level by level (steps kept); else LDrawError.

    With `drop`, bricks no order can place are left out one at a time (each with a note), lowest
    first, so a brick resting only on a dropped one is dropped in its turn.
    """
    errors = assembly.buildability_errors()
    if not errors:
        return assembly
    order = sorted(assembly.bricks, key=lambda b: (b.z, step_of[b.id], assembly.index[b.id]))
    by_level = Assembly(order, assembly.baseplate, assembly.name)
    late = by_level.buildability_errors()
    while late and drop:
        gone = late[0].brick_id
        if gone is None or len(order) == 1:
            break
        notes.append(ImportNote(origin[gone].where, "dropped", f"{origin[gone].part} "
                                f"({PARTS[origin[gone].part].name}): not buildable from above ({late[0]})"))
        order = [b for b in order if b.id != gone]
        by_level = Assembly(order, assembly.baseplate, assembly.name)
        late = by_level.buildability_errors()
    if late:
        raise _brick_error(late[0], origin)
    if len(order) < len(assembly.bricks):
        return by_level  # the notes name what was dropped; what is left builds level by level
    first = errors[0]
    notes.append(ImportNote(origin[first.brick_id or order[0].id].where, "reordered",
                            f"the file's order cannot be built from above ({first}); bricks are built level by "
                            "level instead"))
    return by_level


def _brick_error(err: AssemblyError, origin: dict[str, _Ref]) -> LDrawError:
    ref = origin.get(err.brick_id or "")
    reason = f"not buildable from above: {err}"
    if ref is None:
        return LDrawError("<model>", 0, reason)
    return ref.error(reason)


def read_ldraw(path: str | Path, options: ImportOptions | None = None) -> LDrawModel:
    """Read an .ldr or .mpd file (submodels in the same folder are found by name)."""
    p = Path(path)
    if p.stat().st_size > MAX_FILE_BYTES:
        raise LDrawError(p.name, 0, f"file is larger than {MAX_FILE_BYTES >> 20} MB")
    return parse_ldraw(p.read_text(encoding="utf-8", errors="replace"), p.name, p.parent, options)


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

