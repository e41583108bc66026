"""A solved layer order as FOLD `faceOrders`, and the checked file written back with it.

FOLD 1.2 (edemaine/fold doc/spec.md, "Layer information"): `faceOrders` is a list of triples [f, g, s] over the
file's `faces_vertices`; s = +1 when face f lies above face g, on the side g's normal points to in the folded
state, -1 when below, and a pair left out is unknown (they do not overlap). A face's normal is the one its
counter-clockwise vertex order defines. The solver's "f above g" is along the folded plane's +z, and a face's
normal there is +z unless the face is flipped, so s = +1 exactly when "f above g" differs from "g is flipped".

The solver dissolves flat (F) edges, so its faces may be unions of the file's faces: each file face takes the
order of the solver face it lies in, for every pair whose solver faces overlap.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from jarvis_sim.origami.fold_format import CreasePattern, FoldFormatError
from jarvis_sim.origami.verdict import FoldedState


def solver_face_orders(state: FoldedState) -> list[tuple[int, int, int]]:
    """[f, g, s] for every overlapping pair of the solver's faces, both ways round (f, g and g, f)."""
    out: list[tuple[int, int, int]] = []
    for (f, g), f_above in sorted(state.above.items()):
        out.append((f, g, 1 if f_above != state.flipped[g] else -1))
        out.append((g, f, 1 if (not f_above) != state.flipped[f] else -1))
    return out


def face_orders(cp: CreasePattern, state: FoldedState) -> list[list[int]]:
    """faceOrders over cp.faces (the file's faces_vertices, or the faces computed from its edges)."""
    solver = solver_face_orders(state)
    if [tuple(f) for f in state.faces] == [tuple(f) for f in cp.faces]:
        return [list(t) for t in solver]
    owner = [_containing(cp.vertices, face, state.faces) for face in cp.faces]
    members: dict[int, list[int]] = {}
    for i, o in enumerate(owner):
        members.setdefault(o, []).append(i)
    return [[a, b, s] for f, g, s in solver for a in members.get(f, []) for b in members.get(g, [])]


def _containing(vertices: NDArray[np.float64], face: tuple[int, ...], solver_faces: list[tuple[int, ...]]) -> int:
    """The solver face a file face lies in: the one holding a point just inside the file face."""
    poly = vertices[list(face)]
    a, b = poly[0], poly[1]
    d = b - a
    inward = np.array([-d[1], d[0]]) / max(float(np.hypot(*d)), 1e-300)
    # A point a hair inside the middle of the face's first side (faces are counter-clockwise: inside is left).
    point = (a + b) / 2 + inward * 1e-6 * float(np.ptp(vertices, axis=0).max() or 1.0)
    for k, sf in enumerate(solver_faces):
        if _inside(vertices[list(sf)], point):
            return k
    raise ValueError(f"face {list(face)} lies in no face of the folded state")


def _inside(poly: NDArray[np.float64], p: NDArray[np.float64]) -> bool:
    """Even-odd ray casting (the polygon may be non-convex)."""
    x, y = float(p[0]), float(p[1])
    inside = False
    n = len(poly)
    for i in range(n):
        (x1, y1), (x2, y2) = poly[i], poly[(i + 1) % n]
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def with_face_orders(data: dict[str, Any], cp: CreasePattern, state: FoldedState) -> dict[str, Any]:
    """The FOLD dictionary as read, every field and key order kept, with `faceOrders` set (and `faces_vertices`
    written where the file had none, so the orders have faces to refer to)."""
    out = copy.deepcopy(data)
    frames = out.get("file_frames")
    target = out
    if "vertices_coords" not in out and isinstance(frames, list) and frames and isinstance(frames[0], dict):
        target = frames[0]  # the pattern lives in the first frame: so do its orders
    if "faces_vertices" not in target:
        target["faces_vertices"] = [list(f) for f in cp.faces]
    target["faceOrders"] = face_orders(cp, state)
    return out


def write_with_face_orders(source: Path, out: Path, cp: CreasePattern, state: FoldedState) -> Path:
    """Write `source`'s FOLD JSON to `out` with the layer order found as faceOrders."""
    try:
        data = json.loads(Path(source).read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as exc:
        raise FoldFormatError("file", None, f"cannot read it back to add faceOrders: {exc}") from None
    out.write_text(json.dumps(with_face_orders(data, cp, state), indent=1) + "\n", encoding="utf-8")
    return out
