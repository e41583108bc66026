"""StableLego's structure files read as lattice assemblies: the external check of the statics.

StableLego (Liu, Deng, Wang, Liu 2024, arXiv:2402.10711; public repository intelligent-control-lab/StableLego, MIT)
ships test structures (`test_lego/*.json`) with a brick library (`lego_library.json`) and the verdict of its own
analysis for each (its README's figure caption). The data is read in place from a folder named by the argument or
$JARVIS_STABLELEGO_ROOT; nothing of it is copied into this repository.

Their format: each entry places a brick of library id `brick_id` with its footprint's minimum corner at stud
(`x`, `y`) on brick level `z` (every library entry is a full brick, 9.6 mm: 3 plates here); the library gives the
footprint as `height` x `width` studs (`ori` 0: `height` along x; 1: along y) and the mass in kg. Level 0 stands on
studs (their analysis clutches it to the ground). The library's masses are the source's figures, kept beside the
assembly, since the library's id 1 is a 2x2 weight of 200 g that no catalog part is.
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

from jarvis_sim.lego.assembly import Assembly, LatticeBrick
from jarvis_sim.lego.catalog import PARTS

ENV_ROOT = "JARVIS_STABLELEGO_ROOT"
# Catalog bricks (full height) by footprint, long side first.
_BRICKS = {(1, 1): "3005", (2, 1): "3004", (4, 1): "3010", (6, 1): "3009", (8, 1): "3008",
           (2, 2): "3003", (4, 2): "3001", (6, 2): "2456", (8, 2): "3007", (3, 1): "3622", (3, 2): "3002"}
# The README's figure caption: which test structures stand and which collapse.
VERDICTS = {"stair_19": True, "stair_20": False, "stair_20_good": True, "stick_light": True, "stick_heavy": False,
            "stick_heavy_good": True, "external_weight_good": True, "external_weight_fail": False}


class StableLegoError(ValueError):
    """A StableLego file that cannot be read as a lattice assembly; the message names the file and entry."""


@dataclass(frozen=True)
class StableLegoStructure:
    """One test structure: the assembly (on a baseplate) and each brick's mass from the source's library."""

    name: str
    assembly: Assembly
    masses_kg: tuple[float, ...]


def resolve_root(root: str | os.PathLike[str] | None = None) -> Path | None:
    """The folder holding StableLego's lego_library.json and test_lego/, from the argument or $JARVIS_STABLELEGO_ROOT."""
    raw = root if root is not None else os.environ.get(ENV_ROOT)
    return Path(raw).expanduser().resolve() if raw else None


def _read_json(path: Path) -> dict[str, dict[str, object]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise StableLegoError(f"{path}: cannot read it as JSON: {e}") from e
    if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
        raise StableLegoError(f"{path}: expected an object of objects, one per brick")
    return data


def _int(entry: dict[str, object], key: str, where: str) -> int:
    v = entry.get(key)
    if not isinstance(v, int) or isinstance(v, bool):
        raise StableLegoError(f"{where}: field {key!r} must be an integer, got {v!r}")
    return v


def load_structure(root: Path, name: str) -> StableLegoStructure:
    """Read test_lego/<name>.json under `root` with the root's lego_library.json."""
    library = _read_json(root / "lego_library.json")
    path = root / "test_lego" / f"{name}.json"
    entries = _read_json(path)
    bricks, masses = [], []
    for key in sorted(entries, key=lambda k: (int(k) if k.isdigit() else 0, k)):
        e = entries[key]
        where = f"{path}: brick {key!r}"
        lib_id = str(_int(e, "brick_id", where))
        if lib_id not in library:
            raise StableLegoError(f"{where}: brick_id {lib_id} is not in the library ({', '.join(sorted(library))})")
        lib = library[lib_id]
        length, width = _int(lib, "height", f"library id {lib_id}"), _int(lib, "width", f"library id {lib_id}")
        ori = _int(e, "ori", where)
        if ori not in (0, 1):
            raise StableLegoError(f"{where}: ori must be 0 or 1, got {ori}")
        along_x = length if ori == 0 else width
        part = _BRICKS.get((max(length, width), min(length, width)))
        if part is None:
            raise StableLegoError(f"{where}: no catalog brick of {length} x {width} studs")
        yaw = 0 if PARTS[part].width == along_x else 1
        mass = lib.get("mass")
        if not isinstance(mass, (int, float)) or mass <= 0:
            raise StableLegoError(f"library id {lib_id}: mass must be a positive number, got {mass!r}")
        bricks.append(LatticeBrick(id=f"s{key}", part=part, color=15, x=_int(e, "x", where), y=_int(e, "y", where),
                                   z=3 * _int(e, "z", where), yaw=yaw))
        masses.append(float(mass))
    # Not a build order: the sticks hang bricks from the course above them (clutched from above), so the lattice's
    # build-from-below check does not apply; overlaps are still errors.
    order = sorted(range(len(bricks)), key=lambda k: bricks[k].z)
    assembly = Assembly([bricks[k] for k in order], baseplate=True, name=f"stablelego-{name}")
    if overlaps := assembly.overlaps():
        raise StableLegoError(f"{path}: bricks {overlaps[0].a} and {overlaps[0].b} overlap")
    return StableLegoStructure(name, assembly, tuple(masses[k] for k in order))
