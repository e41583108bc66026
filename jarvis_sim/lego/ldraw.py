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
Export (jarvis_sim.lego.ldraw_export) writes one brick per step (`0 STEP`) or the given step groups.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

import numpy as np

from jarvis_sim.gripper import too_wide_to_pick
from jarvis_sim.lego.assembly import LATTICE_LIMIT, Assembly, AssemblyError, LatticeBrick
from jarvis_sim.lego.catalog import PARTS, Part, lookup, substitute_for, variant_title
from jarvis_sim.lego.colors import EDGE, INHERIT, is_known
from jarvis_sim.lego.ldraw_colours import FALLBACK, ColourResolver
from jarvis_sim.lego.ldraw_export import LDRAW_YAWS as _YAWS
from jarvis_sim.lego.ldraw_export import to_ldraw, write_ldraw
from jarvis_sim.lego.ldraw_files import (
    Lines,
    block_title,
    is_part_block,
    part_number,
    safe_neighbour,
    split_mpd,
)
from jarvis_sim.lego.ldraw_library import library_title, parse_ldconfig, why_not_library_part

DEFAULT_TOP_COLOR = FALLBACK  # what LDraw viewers show for colour 16 at the top level: light grey
MAX_DEPTH = 24  # submodel nesting
MAX_EXPANDED_LINES = 200_000  # lines visited over all submodel instances (a 2 KB file can nest to 10^10)
MAX_PARTS = 10_000  # part references after expansion
MAX_FILE_BYTES = 8 << 20
MAX_COORD_LDU = 1e6  # 400 m: anything beyond is a broken file, not a model

Unsupported = Literal["fail", "skip", "substitute"]
Unbuildable = Literal["fail", "drop"]



class LDrawError(ValueError):
    """A file the lattice cannot hold; names the file, line (1-based), reason and the reference chain."""

    def __init__(self, file: str, line: int, reason: str, trace: Sequence[tuple[str, int]] = ()):
        # `trace` is the whole chain, outermost reference first, ending at (file, line).
        self.trace: tuple[tuple[str, int], ...] = tuple(trace) or ((file, line),)
        super().__init__(f"{' -> '.join(f'{f}:{n}' for f, n in self.trace)}: {reason}")
        self.file, self.line, self.reason = file, line, reason




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
    action: Literal["skipped", "substituted", "colour_mapped", "reordered", "dropped", "moved"]
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


def _where(trace: Sequence[tuple[str, int]]) -> str:
    return " -> ".join(f"{f}:{k}" for f, k in trace)


@dataclass
class _Expansion:
    """State of one import: sub-files, options, results and the work bound."""

    files: dict[str, Lines]
    base_dir: Path | None
    options: ImportOptions
    colours: ColourResolver
    refs: list[_Ref] = field(default_factory=list)
    notes: list[ImportNote] = field(default_factory=list)
    step: int = 0
    lines_seen: int = 0
    too_wide: list[tuple[tuple[tuple[str, int], ...], str, str]] = field(default_factory=list)  # where, what, why

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
                # MLCad's ROTSTEP ends a step as STEP does (and turns the view, which the lattice has no use for).
                if len(words) >= 2 and words[1].upper() in ("STEP", "ROTSTEP") and not trace:
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
            block = self.files.get(key)
            if block is not None and not is_part_block(block):
                self._submodel(key, ref, here, stack, world_pos, world_rot, c)
                continue
            # An embedded part file (packed MPD) is read by its number, as the library's copy would be.
            found = lookup(part_number(key))
            if found is None and block is None and self.base_dir is not None and not key.endswith(".dat"):
                path = safe_neighbour(self.base_dir, ref)
                if path is None and (".." in key.split("/") or key.startswith("/") or ":" in key):
                    raise LDrawError(label, n, f"reference {ref!r} leaves the model's folder; references may "
                                               "name only submodels, files beside the model and parts", here)
                if path is not None:
                    if path.stat().st_size > MAX_FILE_BYTES:
                        raise LDrawError(label, n, f"submodel file {ref!r} is larger than {MAX_FILE_BYTES >> 20} MB",
                                         here)
                    text = path.read_text(encoding="utf-8", errors="replace")
                    sub = split_mpd(text, key)
                    self.files[key] = next(iter(sub.values()))
                    for k2, v2 in sub.items():
                        self.files.setdefault(k2, v2)
                    for code, col in parse_ldconfig(text).items():
                        self.colours.file_colours.setdefault(code, col)
                    self._submodel(key, ref, here, stack, world_pos, world_rot, c)
                    continue
            if found is None:
                found = self._unsupported(ref, key, here)
                if found is None:
                    continue
            if found.kind != "baseplate" and not is_known(c):
                resolved = self.colour(c, ref, here)
                if resolved is None:
                    continue
                c = resolved
            why = too_wide_to_pick(found)
            if why is not None:
                self._too_wide(ref, found, why, here)
                continue
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
        number = part_number(key)
        where = _where(here)
        policy = self.options.unsupported
        title = self._title(key)
        if policy == "substitute":
            sub = substitute_for(number, title)
            if sub is not None:
                self.notes.append(ImportNote(where, "substituted", f"{ref} ({title or 'no title'}) -> {sub.number} "
                                                                   f"({sub.name}): same footprint and height"))
                return sub
        if policy in ("skip", "substitute"):
            self.notes.append(ImportNote(where, "skipped", f"{ref} ({title or 'unknown shape'}): not in the catalog"
                                                           + (" and no catalog part has its shape" if policy ==
                                                              "substitute" else "")))
            return None
        if key in self.files:
            why = (f"an embedded part file ({title or 'no title'}) whose number is no catalog part and not a plain "
                   "rectangular part of the library")
        else:
            why = why_not_library_part(number)
        raise LDrawError(file, n, f"unknown part {ref!r} (not in the catalog and not a submodel; {why}); "
                                  "--unsupported skip or substitute imports the rest", here)

    def _title(self, key: str) -> str | None:
        if key in self.files:
            return block_title(self.files[key])
        number = part_number(key)
        return library_title(number) or variant_title(number)

    def colour(self, code: int, ref: str, here: tuple[tuple[str, int], ...]) -> int | None:
        """The table colour for a code outside the table (jarvis_sim.lego.ldraw_colours); None leaves the part out."""
        resolved, note = self.colours.resolve(code, here)
        if note is not None:
            self.notes.append(ImportNote(_where(here), "colour_mapped" if resolved is not None else "skipped",
                                         f"{ref}: {note}" if resolved is None else note))
        return resolved

    def _too_wide(self, ref: str, part: Part, why: str, here: tuple[tuple[str, int], ...]) -> None:
        if self.options.unsupported == "fail":
            self.too_wide.append((here, f"{ref} ({part.name})", why))
            return
        self.notes.append(ImportNote(_where(here), "skipped", f"{ref} ({part.name}): {why}"))

    def check_gripper(self) -> None:
        """Raise one LDrawError naming every part too wide for the gripper (with fail; skip leaves them out)."""
        if not self.too_wide:
            return
        first = self.too_wide[0][0]
        named = ", ".join(f"{what} at {_where(t)}" for t, what, _ in self.too_wide[:10])
        more = f" and {len(self.too_wide) - 10} more" if len(self.too_wide) > 10 else ""
        file, n = first[-1]
        why = self.too_wide[0][2]
        raise LDrawError(file, n, f"{len(self.too_wide)} part(s) too wide for the gripper: {named}{more} (the first: "
                                  f"{why}); "
                                  "--unsupported skip or substitute leaves them out", first)


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
    files = split_mpd(text, file)
    main = next(iter(files))
    run = _Expansion(files, base_dir, opts, ColourResolver(parse_ldconfig(text), opts.unsupported != "fail"))
    run.expand(main, np.zeros(3), np.eye(3), DEFAULT_TOP_COLOR, (), (main,), file)
    unknown = run.colours.unknown_report()
    if unknown is not None:
        raise LDrawError(unknown[0][-1][0], unknown[0][-1][1], unknown[1], unknown[0])
    run.check_gripper()
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
    placed: list[tuple[_Ref, tuple[int, int, int, int]]] = []
    for r in bricks_refs:
        try:
            placed.append((r, _to_lattice(r, level0, offset, anchor)))
        except LDrawError as exc:
            if not lenient:
                raise
            run.notes.append(ImportNote(r.where, "skipped", f"{r.part} ({PARTS[r.part].name}): {exc.reason}"))
    if not placed:
        raise LDrawError(file, 1, "no bricks in the model lie on its stud grid (every part was skipped)")
    low = min(c[2] for _, c in placed)
    if low > 0 and not baseplates:  # level 0 came from parts skipped off the grid: stand the rest on the ground
        run.notes.append(ImportNote(placed[0][0].where, "moved", f"lowered {low} plate(s) to the ground (the parts under it were skipped)"))
        placed = [(r, (x, y, z - low, yaw)) for r, (x, y, z, yaw) in placed]
    bricks: list[LatticeBrick] = []
    origin: dict[str, _Ref] = {}
    for r, (x, y, z, yaw) in _within_lattice(placed, run.notes, file):
        bid = f"b{len(bricks):03d}"
        bricks.append(LatticeBrick(id=bid, part=r.part, color=r.color, x=x, y=y, z=z, yaw=yaw))
        origin[bid] = r
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


def _within_lattice(placed: list[tuple[_Ref, tuple[int, int, int, int]]], notes: list[ImportNote],
                    file: str) -> list[tuple[_Ref, tuple[int, int, int, int]]]:
    """The placements, moved by whole studs to the lattice's origin when the model sits beyond its range (noted);
    LDrawError when the model itself is larger than the lattice (LATTICE_LIMIT studs or plates)."""
    tallest = max(placed, key=lambda p: p[1][2])
    if tallest[1][2] > LATTICE_LIMIT:
        raise tallest[0].error(f"part stands {tallest[1][2]} plates above the lowest part; the lattice holds "
                               f"{LATTICE_LIMIT} (3.2 m)")
    if all(abs(c[0]) <= LATTICE_LIMIT // 2 and abs(c[1]) <= LATTICE_LIMIT // 2 for _, c in placed):
        return placed
    dx, dy = min(c[0] for _, c in placed), min(c[1] for _, c in placed)
    span = max(max(c[0] for _, c in placed) - dx, max(c[1] for _, c in placed) - dy)
    if span > LATTICE_LIMIT:
        raise LDrawError(file, 1, f"the model spans {span} studs ({span * 8 / 1000:.1f} m); the lattice holds "
                                  f"{LATTICE_LIMIT}")
    notes.append(ImportNote(placed[0][0].where, "moved", f"the model lies {max(abs(dx), abs(dy))} studs from LDraw's "
                                                         "origin: its bricks are counted from its own corner"))
    return [(r, (x - dx, y - dy, z, yaw)) for r, (x, y, z, yaw) in placed]


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
    if late and drop and len(order) == 1:  # else the error reads as if --unbuildable drop had been ignored
        raise _brick_error(late[0], origin, f"--unbuildable drop left no brick: all {len(assembly.bricks)} rest "
                                            "only on skipped or dropped parts; the last")
    if late:
        raise _brick_error(late[0], origin)
    if len(order) < len(assembly.bricks):
        return by_level  # the notes name what was dropped; what is left builds level by level
    first = errors[0]
    notes.append(ImportNote(origin[first.brick_id or order[0].id].where, "reordered",
                            f"the file's order cannot be built from above ({first}); bricks are built level by "
                            "level instead"))
    return by_level


def _brick_error(err: AssemblyError, origin: dict[str, _Ref], lead: str = "") -> LDrawError:
    ref = origin.get(err.brick_id or "")
    reason = f"{lead + ' is ' if lead else ''}not buildable from above: {err}"
    if ref is None:
        return LDrawError("<model>", 0, reason)
    return ref.error(reason)


def read_ldraw(path: str | Path, options: ImportOptions | None = None) -> LDrawModel:
    """Read an .ldr or .mpd file (submodels in the same folder are found by name)."""
    p = Path(path)
    if p.stat().st_size > MAX_FILE_BYTES:
        raise LDrawError(p.name, 0, f"file is larger than {MAX_FILE_BYTES >> 20} MB")
    return parse_ldraw(p.read_text(encoding="utf-8", errors="replace"), p.name, p.parent, options)


__all__ = ["ImportNote", "ImportOptions", "LDrawError", "LDrawModel", "parse_ldraw", "read_ldraw", "to_ldraw",
           "write_ldraw"]
