"""LDraw export: a lattice Assembly as an .ldr file, in build order, one `0 STEP` per brick or step group.

The lattice maps to LDraw as LDraw (X, Y, Z) = (x, -z, y) (a proper rotation); a catalog part's LDraw origin is
the centre of its top face, its length along LDraw x.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from jarvis_sim.lego.assembly import Assembly, LatticeBrick

_M = np.array([[1, 0, 0], [0, 0, -1], [0, 1, 0]], dtype=np.int64)  # columns: lattice x, y, z in LDraw


def _yaw_matrix(k: int) -> np.ndarray:
    c, s = [(1, 0), (0, 1), (-1, 0), (0, -1)][k % 4]
    rz = np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]], dtype=np.int64)
    return _M @ rz @ _M.T


LDRAW_YAWS = [_yaw_matrix(k) for k in range(4)]


def _ldraw_line(b: LatticeBrick) -> str:
    ex, ey = b.extent
    x = b.x * 20 + ex * 10
    zz = b.y * 20 + ey * 10
    y = -b.top * 8
    m = LDRAW_YAWS[b.yaw].reshape(-1)
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

