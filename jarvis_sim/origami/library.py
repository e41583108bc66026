"""The generated GamiBench set: valid patterns, their impossible twins, FOLD files and a manifest.

`build_library(seed)` is deterministic; `write_library` writes byte-identical files for a seed, so the
shipped copy under assets/gamibench can always be regenerated and compared.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from jarvis_sim.origami.fold_format import CreasePattern, dumps, read_fold
from jarvis_sim.origami.foldability import check
from jarvis_sim.origami.generator import candidate_patterns, pattern_class, pattern_key
from jarvis_sim.origami.impossible import METHODS, impossible_twin
from jarvis_sim.paths import asset_path

ASSETS = asset_path("gamibench")
DEFAULT_SEED = 42
QUOTA = {"simple": 104, "complex": 82}  # 186 valid patterns, as in GamiBench


@dataclass(frozen=True)
class LibraryEntry:
    """One valid pattern and its impossible twin."""

    name: str
    level: str
    creases: int
    source: str
    pattern: CreasePattern
    twin: CreasePattern
    twin_method: str
    twin_rules: tuple[str, ...]

    def manifest_row(self) -> dict[str, Any]:
        """The entry as written to manifest.json."""
        return {"name": self.name, "level": self.level, "creases": self.creases, "source": self.source,
                "impossible": {"creases": self.twin.crease_count, "method": self.twin_method,
                               "violated_rules": list(self.twin_rules)}}


def build_library(seed: int = DEFAULT_SEED, quota: dict[str, int] | None = None) -> list[LibraryEntry]:
    """Valid, distinct, verified patterns filling the per-class quota, each with a verified-impossible twin."""
    quota = dict(quota or QUOTA)
    taken: dict[str, int] = {k: 0 for k in quota}
    seen: set[str] = set()
    rng = random.Random(seed + 1)
    out: list[LibraryEntry] = []
    for cp in candidate_patterns(seed):
        level = pattern_class(cp.crease_count)
        if taken.get(level, 0) >= quota.get(level, 0):
            if all(taken[k] >= quota[k] for k in quota):
                break
            continue
        key = pattern_key(cp)
        if key in seen or not check(cp).foldable:
            continue
        seen.add(key)
        twin = impossible_twin(cp, rng, preferred=METHODS[len(out) % len(METHODS)])
        meta = {**cp.meta, "level": level}
        cp = CreasePattern(cp.vertices, cp.edges, cp.assignments, cp.fold_angles, cp.faces, cp.name, meta)
        out.append(LibraryEntry(cp.name, level, cp.crease_count, str(cp.meta.get("source", "")), cp,
                                twin.pattern, twin.method, twin.violated_rules))
        taken[level] += 1
        if all(taken[k] >= quota[k] for k in quota):
            break  # stop before generating another candidate (some, like the frog base, cost seconds)
    short = {k: quota[k] - taken[k] for k in quota if taken[k] < quota[k]}
    if short:
        raise RuntimeError(f"generator ran out of distinct valid patterns; missing per class: {short}")
    return out


def write_library(entries: list[LibraryEntry], root: Path, seed: int = DEFAULT_SEED) -> None:
    """Write patterns/<name>.fold, patterns/impossible-<name>.fold and manifest.json under root."""
    pat = root / "patterns"
    pat.mkdir(parents=True, exist_ok=True)
    for e in entries:
        (pat / f"{e.name}.fold").write_text(dumps(e.pattern), encoding="utf-8")
        (pat / f"impossible-{e.name}.fold").write_text(dumps(e.twin), encoding="utf-8")
    manifest = {"seed": seed, "quota": QUOTA, "patterns": [e.manifest_row() for e in entries]}
    (root / "manifest.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")


def read_manifest(root: Path = ASSETS) -> dict[str, Any]:
    """The manifest of a written library."""
    path = root / "manifest.json"
    if not path.exists():
        raise FileNotFoundError(f"{path} missing; run `jarvis origami generate` to build the GamiBench set")
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def load_pattern(name: str, root: Path = ASSETS) -> CreasePattern:
    """A pattern of the written library by file name (without .fold)."""
    return read_fold(root / "patterns" / f"{name}.fold")
