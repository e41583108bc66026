"""FOLD v1.2 crease patterns: the in-memory model, validation that names the bad field and index, I/O.

The files written here carry the fields Origami Simulator and Flat-Folder read (vertices_coords,
edges_vertices, edges_assignment, edges_foldAngle in degrees with valley positive, faces_vertices
counter-clockwise) plus file_* and frame_* metadata; faceOrders is written when a layer order is known.
"""

from __future__ import annotations

import json
import math
import reprlib
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from jarvis_sim.origami import affine2d as A
from jarvis_sim.origami.box_pairs import boxes_at_points, overlapping_pairs
from jarvis_sim.origami.planar import faces_ccw, polygon_area

FOLD_SPEC = 1.2
ASSIGNMENTS = ("B", "M", "V", "F", "U", "C", "J")
CREASES = ("M", "V", "U")
DEFAULT_ANGLE = {"B": 0.0, "M": -180.0, "V": 180.0, "F": 0.0, "U": 0.0, "C": 0.0, "J": 0.0}
GEOM_TOL = 1e-7
MAX_FOLD_BYTES = 32 << 20  # published designs are well under 10 MB
MAX_ELEMENTS = 200_000  # vertices, edges or faces


class FoldFormatError(ValueError):
    """A malformed FOLD file; the message names the field and the index."""

    def __init__(self, field_name: str, index: int | None, message: str):
        where = field_name if index is None else f"{field_name}[{index}]"
        super().__init__(f"{where}: {message}")
        self.field, self.index = field_name, index


@dataclass(frozen=True)
class CreasePattern:
    """A crease pattern on a sheet: vertices, edges with M/V/B/F/U/C/J assignments, faces, metadata."""

    vertices: NDArray[np.float64]
    edges: tuple[tuple[int, int], ...]
    assignments: tuple[str, ...]
    fold_angles: tuple[float, ...]
    faces: tuple[tuple[int, ...], ...]
    name: str = ""
    meta: dict[str, Any] = field(default_factory=dict)
    face_orders: tuple[tuple[int, int, int], ...] = ()
    # How far each stored coordinate may be from the one its author meant (file units), and why: the
    # checker widens its tolerances to this (see precision_of). 0: exact (patterns built in memory).
    coordinate_noise: float = 0.0
    noise_source: str = "exact"

    @property
    def crease_count(self) -> int:
        """Number of folded (M, V or U) edges."""
        return sum(a in CREASES for a in self.assignments)

    def with_assignments(self, assignments: list[str], name: str | None = None) -> CreasePattern:
        """A copy with new edge assignments and matching default fold angles."""
        angles = tuple(DEFAULT_ANGLE[a] for a in assignments)
        return replace(self, assignments=tuple(assignments), fold_angles=angles, name=name or self.name,
                       face_orders=())

    def to_fold(self) -> dict[str, Any]:
        """The FOLD v1.2 dictionary."""
        out: dict[str, Any] = {
            "file_spec": FOLD_SPEC,
            "file_creator": "jarvis_sim.origami",
            "file_author": "JARVIS GamiBench generator",
            "file_title": self.name,
            "file_classes": ["singleModel"],
            "frame_title": self.name,
            "frame_classes": ["creasePattern"],
            "frame_attributes": ["2D"],
            "frame_unit": "unit",
            "vertices_coords": [[_num(x), _num(y)] for x, y in self.vertices],
            "edges_vertices": [list(e) for e in self.edges],
            "edges_assignment": list(self.assignments),
            "edges_foldAngle": [_num(a) for a in self.fold_angles],
            "faces_vertices": [list(f) for f in self.faces],
        }
        if self.face_orders:
            out["faceOrders"] = [list(o) for o in self.face_orders]
        if self.meta:
            out["jarvis:meta"] = self.meta
        return out


def _num(x: float) -> float:
    # 12 significant digits keep files small and byte-identical across runs and platforms.
    v = float(f"{float(x):.12g}")
    return 0.0 if v == 0 else v


def dumps(cp: CreasePattern) -> str:
    """FOLD JSON text, deterministic (sorted keys are not used: FOLD readers expect file_* first)."""
    return json.dumps(cp.to_fold(), separators=(",", ":")) + "\n"


def write_fold(cp: CreasePattern, path: Path) -> None:
    """Write a crease pattern as a .fold file."""
    path.write_text(dumps(cp), encoding="utf-8")


def read_fold(path: Path) -> CreasePattern:
    """Read and validate a .fold file."""
    p = Path(path)
    size = p.stat().st_size
    if size > MAX_FOLD_BYTES:
        raise FoldFormatError("file", None, f"{size:,} bytes is more than the {MAX_FOLD_BYTES >> 20} MB a FOLD file may be")
    return loads(p.read_text(encoding="utf-8", errors="replace"))


def loads(text: str) -> CreasePattern:
    """Parse and validate FOLD JSON text."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FoldFormatError("file", None, f"not valid JSON ({exc.msg} at line {exc.lineno})") from None
    except RecursionError:
        raise FoldFormatError("file", None, "JSON nested too deeply (a FOLD file is a flat object of lists)") from None
    return from_fold(data)


def from_fold(data: Any) -> CreasePattern:
    """Validate a FOLD dictionary and build the crease pattern; faces are computed when absent."""
    if not isinstance(data, dict):
        raise FoldFormatError("file", None, "top level must be a JSON object")
    frames = data.get("file_frames")
    if "vertices_coords" not in data and isinstance(frames, list) and frames:
        data = {**frames[0], **{k: v for k, v in data.items() if k.startswith("file_")}}
    try:
        return _crease_pattern(data)
    except FoldFormatError as exc:
        classes = data.get("frame_classes")
        if isinstance(classes, list) and "foldedForm" in classes and "creasePattern" not in classes:
            # A folded form (fold-convert --flat-fold, Origami Simulator's export of the folded state) breaks the
            # crease pattern's rules by design; say so, or the user reads "face not counter-clockwise" as a bug.
            raise FoldFormatError(exc.field, exc.index, f"{str(exc).partition(': ')[2]} (frame_classes says this "
                                  "frame is a foldedForm: origami check reads the crease pattern, the unfolded "
                                  "sheet with its creases; export that frame instead)") from None
        raise


def _crease_pattern(data: dict[str, Any]) -> CreasePattern:
    """The crease pattern of one resolved FOLD frame (file_* keys merged in), validated field by field."""
    coords = _list_field(data, "vertices_coords")
    for key in ("vertices_coords", "edges_vertices", "faces_vertices"):
        value = data.get(key)
        if isinstance(value, list) and len(value) > MAX_ELEMENTS:
            raise FoldFormatError(key, None, f"{len(value):,} entries; at most {MAX_ELEMENTS:,} are supported")
    points = np.zeros((len(coords), 3))
    for i, c in enumerate(coords):
        if not isinstance(c, list) or len(c) not in (2, 3) or not all(_is_number(x) for x in c):
            raise FoldFormatError("vertices_coords", i, f"expected [x, y] numbers (finite, magnitude at most "
                                  f"{MAX_COORDINATE:g}), got {_show(c)}")
        points[i, : len(c)] = [float(x) for x in c]
    verts = _flat_coordinates(points, data.get("faces_vertices"))
    noise, noise_source = precision_of([float(x) for c in coords for x in c])
    nv = len(verts)
    raw_edges = _list_field(data, "edges_vertices")
    edges: list[tuple[int, int]] = []
    for i, e in enumerate(raw_edges):
        if not (isinstance(e, list) and len(e) == 2 and all(isinstance(x, int) and not isinstance(x, bool) for x in e)):
            raise FoldFormatError("edges_vertices", i, f"expected two vertex indices, got {_show(e)}")
        for x in e:
            if not 0 <= x < nv:
                raise FoldFormatError("edges_vertices", i, f"vertex index {x} out of range 0..{nv - 1}")
        if e[0] == e[1]:
            raise FoldFormatError("edges_vertices", i, "edge joins a vertex to itself")
        edges.append((e[0], e[1]))
    assign_raw = data.get("edges_assignment", ["U"] * len(edges))
    if not isinstance(assign_raw, list) or len(assign_raw) != len(edges):
        raise FoldFormatError("edges_assignment", None, f"expected a list of {len(edges)} assignments")
    assignments: list[str] = []
    for i, a in enumerate(assign_raw):
        if not isinstance(a, str) or a.upper() not in ASSIGNMENTS:
            raise FoldFormatError("edges_assignment", i, f"unknown assignment {_show(a)}; expected one of {ASSIGNMENTS}")
        assignments.append(a.upper())
    angle_raw = data.get("edges_foldAngle")
    if angle_raw is None:
        angles = [DEFAULT_ANGLE[a] for a in assignments]
    else:
        if not isinstance(angle_raw, list) or len(angle_raw) != len(edges):
            raise FoldFormatError("edges_foldAngle", None, f"expected a list of {len(edges)} angles")
        angles = []
        for i, (x, a) in enumerate(zip(angle_raw, assignments, strict=True)):
            if x is None:
                x = DEFAULT_ANGLE[a]
            if not _is_number(x) or not -180.0 - 1e-9 <= float(x) <= 180.0 + 1e-9:
                raise FoldFormatError("edges_foldAngle", i, f"expected degrees in [-180, 180], got {_show(x)}")
            if (a == "M" and float(x) > 0) or (a == "V" and float(x) < 0):
                raise FoldFormatError("edges_foldAngle", i, f"sign of {x} contradicts assignment {a} (valley positive)")
            angles.append(float(x))
    _check_planar(verts, edges)
    faces_raw = data.get("faces_vertices")
    if faces_raw is None:
        faces = [tuple(f) for f in faces_ccw(verts, edges)]
    else:
        faces = _check_faces(faces_raw, verts, edges)
    orders: list[tuple[int, int, int]] = []
    for i, o in enumerate(data.get("faceOrders", []) or []):
        if not (isinstance(o, list) and len(o) == 3 and all(isinstance(x, int) for x in o)):
            raise FoldFormatError("faceOrders", i, f"expected [f, g, order], got {_show(o)}")
        if not (0 <= o[0] < len(faces) and 0 <= o[1] < len(faces)) or o[2] not in (-1, 0, 1):
            raise FoldFormatError("faceOrders", i, f"face index out of range or order not -1/0/1: {_show(o)}")
        orders.append((o[0], o[1], o[2]))
    meta = data.get("jarvis:meta", {})
    name = str(data.get("file_title") or data.get("frame_title") or "")
    return CreasePattern(verts, tuple(edges), tuple(assignments), tuple(angles), tuple(faces), name,
                         meta if isinstance(meta, dict) else {}, tuple(orders), noise, noise_source)


FLOAT32_ULPS = 4  # a tool computing in float32 (Origami Simulator, three.js) is off by a few ulps, not half of one
DYADIC = 4096  # k / 4096 is exact in binary and in every decimal writer that shows it: it says nothing of rounding


def precision_of(values: list[float]) -> tuple[float, str]:
    """The coordinate uncertainty a file's numbers imply (file units) and its source, in words.

    Writers round in one of four ways, and the numbers show which: float32 values printed in full
    (0.30000001192092896: each survives a float32 round trip and needs more than 9 digits), a fixed
    number of decimals (most values show exactly D of them), a fixed number of significant digits
    (most show exactly S), or float64's shortest repr (exact to ~1e-16). Values that are short binary
    fractions (0.5, 0.125, 3.0: grid points) are exact in every writer and are left out; a file of
    nothing else is exact.
    """
    rounded = [abs(v) for v in values if math.isfinite(v) and (v * DYADIC) % 1.0 != 0.0]
    if not rounded:
        return 0.0, "exact (grid) coordinates"
    top = max(rounded)
    forms = [_written_digits(v) for v in rounded]
    sig = max(f[0] for f in forms)
    if sig > 9 and all(float(np.float32(v)) == v for v in rounded[:100_000]):
        return FLOAT32_ULPS * top * 2.0**-24, f"float32 coordinates (+-{FLOAT32_ULPS} ulp)"
    if sig >= 16:
        return 0.5 * 10.0 ** (math.floor(math.log10(top)) - sig + 1), "float64 coordinates"
    decimals = max(f[1] for f in forms)
    at_decimals = sum(f[1] == decimals for f in forms)
    at_sig = sum(f[0] == sig for f in forms)
    if at_decimals >= at_sig:
        return 0.5 * 10.0**-decimals, f"{decimals} decimals"
    # Significant digits: the rounding is coarsest at the largest value written to S digits.
    largest = max(v for v, f in zip(rounded, forms, strict=True) if f[0] == sig)
    return 0.5 * 10.0 ** (math.floor(math.log10(largest)) - sig + 1), f"{sig} significant digits"


def _written_digits(v: float) -> tuple[int, int]:
    """Significant digits and decimals in the shortest repr of v (0.00125 -> (3, 5), 120.5 -> (4, 1))."""
    text = repr(abs(v))
    mantissa, _, exp = text.partition("e")
    whole, _, frac = mantissa.partition(".")
    frac = frac.rstrip("0")
    sig = len((whole + frac).strip("0")) or 1
    return sig, max(0, len(frac) - int(exp or 0))


_REPR = reprlib.Repr()
_REPR.maxlevel, _REPR.maxlist, _REPR.maxstring, _REPR.maxother = 3, 6, 40, 40


def _show(x: Any) -> str:
    """A short repr for messages: a hostile value must not make the error itself huge or deep."""
    return _REPR.repr(x)


MAX_COORDINATE = 1e9  # far beyond any sheet's units; 1e308 would overflow the arrangement's arithmetic


def _is_number(x: Any) -> bool:
    """A finite number of usable magnitude (10**400 cannot even become a float: no OverflowError escapes)."""
    if not isinstance(x, int | float) or isinstance(x, bool):
        return False
    if isinstance(x, int):
        return abs(x) <= MAX_COORDINATE
    return math.isfinite(x) and abs(x) <= MAX_COORDINATE


def _flat_coordinates(points: NDArray[np.float64], faces_raw: Any) -> NDArray[np.float64]:
    """2D sheet coordinates of a flat pattern lying in any plane (tools export XY, XZ or tilted sheets).

    A plane normal to a coordinate axis keeps the other two axes (XZ -> (x, z)); any other plane is
    projected onto its principal axes. Foldability does not change under a mirror image, so when the
    file's faces come out clockwise the second axis is flipped to keep them counter-clockwise.
    """
    if len(points) == 0 or not np.any(points[:, 2]):
        return points[:, :2].copy()
    span = float(np.ptp(points, axis=0).max()) or 1.0
    flat_axes = [k for k in range(3) if np.ptp(points[:, k]) <= GEOM_TOL * span]
    if flat_axes:
        keep = [k for k in range(3) if k != flat_axes[-1]][:2]
        out = points[:, keep].copy()
    else:
        centred = points - points.mean(axis=0)
        _, sing, vt = np.linalg.svd(centred, full_matrices=False)
        if sing[2] > GEOM_TOL * span * math.sqrt(len(points)):
            worst = int(np.argmax(np.abs(centred @ vt[2])))
            raise FoldFormatError("vertices_coords", worst, "the vertices do not lie in one plane: a crease pattern "
                                                            "is a flat sheet (this looks like a folded state)")
        out = centred @ vt[:2].T
    if isinstance(faces_raw, list) and faces_raw:
        areas = [polygon_area(out[f]) for f in faces_raw[:50]
                 if isinstance(f, list) and len(f) >= 3 and all(isinstance(x, int) and 0 <= x < len(out) for x in f)]
        if areas and sum(a < 0 for a in areas) > len(areas) / 2:
            out[:, 1] = -out[:, 1]
    return np.asarray(out)


def _list_field(data: dict[str, Any], key: str) -> list[Any]:
    value = data.get(key)
    if not isinstance(value, list):
        raise FoldFormatError(key, None, "missing or not a list")
    return value


def _check_planar(verts: NDArray[np.float64], edges: list[tuple[int, int]]) -> None:
    """Edges may meet only at shared endpoints: no crossings, no vertex lying inside another edge."""
    seen: dict[tuple[int, int], int] = {}
    for i, (a, b) in enumerate(edges):
        key = (min(a, b), max(a, b))
        if key in seen:
            raise FoldFormatError("edges_vertices", i, f"duplicates edge {seen[key]}")
        seen[key] = i
    if not edges:
        return
    e = np.array(edges)
    # Two vertices at one point (a folded form's layers, a careless export) hide overlapping edges from the checks
    # below, which compare vertex indices: the sheet then has no face and would pass as "foldable".
    used = np.unique(e)
    _, first, inverse = np.unique(np.round(verts[used] / GEOM_TOL), axis=0, return_index=True, return_inverse=True)
    for k, j in enumerate(inverse.ravel()):
        if first[j] != k:
            raise FoldFormatError("vertices_coords", int(used[k]), f"coincides with vertex {int(used[first[j]])}")
    p0, p1 = verts[e[:, 0]], verts[e[:, 1]]
    d = p1 - p0
    lens = A.norm(d)
    for i, ln in enumerate(lens):
        if ln <= GEOM_TOL:
            raise FoldFormatError("edges_vertices", i, "edge has zero length")
    # Only edges and vertices whose boxes meet are compared (a grid index): the first edge, in order, with a vertex
    # strictly inside it (the edge should be split) or crossing another edge is named, with the lowest such index.
    slack = GEOM_TOL * 10 + 64 * np.finfo(float).eps * (1.0 + float(np.abs(verts).max()))
    lo, hi = np.minimum(p0, p1) - slack, np.maximum(p0, p1) + slack
    found: tuple[int, int, int] | None = None  # (edge, 0 for a vertex inside it or 1 for a crossing, the other)
    points, lowest = np.unique(verts, axis=0, return_index=True)  # one vertex a point: the lowest index
    for ei, pk in boxes_at_points(lo, hi, points):
        vk = lowest[pk]
        rel = verts[vk] - p0[ei]
        t = A.dot(rel, d[ei]) / (lens[ei] ** 2)
        dist = np.abs(rel[:, 0] * d[ei, 1] - rel[:, 1] * d[ei, 0]) / lens[ei]
        inside = (t > GEOM_TOL) & (t < 1 - GEOM_TOL) & (dist < GEOM_TOL * 10) & (vk != e[ei, 0]) & (vk != e[ei, 1])
        found = _earliest(found, ei[inside], 0, vk[inside])
    for one, two in overlapping_pairs(lo, hi):
        for ei, ej in ((one, two), (two, one)):
            rxs = d[ei, 0] * d[ej, 1] - d[ei, 1] * d[ej, 0]
            qp = p0[ej] - p0[ei]
            with np.errstate(divide="ignore", invalid="ignore"):
                t1 = (qp[:, 0] * d[ej, 1] - qp[:, 1] * d[ej, 0]) / rxs
                t2 = (qp[:, 0] * d[ei, 1] - qp[:, 1] * d[ei, 0]) / rxs
            eps = 1e-9
            cross = (np.abs(rxs) > 1e-12) & (t1 > eps) & (t1 < 1 - eps) & (t2 > eps) & (t2 < 1 - eps)
            # Edges sharing an endpoint meet there by design (nearly collinear ones would read as crossing).
            cross &= (e[ej, 0] != e[ei, 0]) & (e[ej, 0] != e[ei, 1]) & (e[ej, 1] != e[ei, 0]) & (e[ej, 1] != e[ei, 1])
            found = _earliest(found, ei[cross], 1, ej[cross])
    if found is not None:
        edge, kind, other = found
        raise FoldFormatError("edges_vertices", edge, f"vertex {other} lies inside the edge (graph not planar)"
                              if kind == 0 else f"crosses edge {other} (graph not planar)")


def _earliest(best: tuple[int, int, int] | None, edge: NDArray[np.intp], kind: int,
              other: NDArray[np.intp]) -> tuple[int, int, int] | None:
    """The lowest of `best` and the hits (edge[k], kind, other[k]): the error the edge-by-edge check met first."""
    if not len(edge):
        return best
    k = int(np.lexsort((other, edge))[0])
    hit = (int(edge[k]), kind, int(other[k]))
    return hit if best is None or hit < best else best


def _check_faces(faces_raw: Any, verts: NDArray[np.float64], edges: list[tuple[int, int]]) -> list[tuple[int, ...]]:
    if not isinstance(faces_raw, list):
        raise FoldFormatError("faces_vertices", None, "not a list")
    edge_set = {(min(a, b), max(a, b)) for a, b in edges}
    out: list[tuple[int, ...]] = []
    for i, f in enumerate(faces_raw):
        if not (isinstance(f, list) and len(f) >= 3 and all(isinstance(x, int) for x in f)):
            raise FoldFormatError("faces_vertices", i, f"expected at least three vertex indices, got {_show(f)}")
        for x in f:
            if not 0 <= x < len(verts):
                raise FoldFormatError("faces_vertices", i, f"vertex index {x} out of range 0..{len(verts) - 1}")
        for a, b in zip(f, f[1:] + f[:1], strict=True):
            if (min(a, b), max(a, b)) not in edge_set:
                raise FoldFormatError("faces_vertices", i, f"side {a}-{b} is not an edge")
        if polygon_area(verts[f]) <= 0:
            raise FoldFormatError("faces_vertices", i, "face is not counter-clockwise")
        out.append(tuple(f))
    return out


def pattern_from_segments(
    creases: list[tuple[tuple[float, float], tuple[float, float], str]],
    name: str,
    size: float = 1.0,
    meta: dict[str, Any] | None = None,
) -> CreasePattern:
    """A crease pattern on the square [0, size]^2 from crease segments (p, q, assignment).

    Crossing creases are split, the boundary is added as B edges. Two creases covering the same piece
    with different assignments are an error naming both.
    """
    from jarvis_sim.origami.planar import arrange

    border = [((0.0, 0.0), (size, 0.0)), ((size, 0.0), (size, size)), ((size, size), (0.0, size)), ((0.0, size), (0.0, 0.0))]
    segs = [(p, q) for p, q, _ in creases] + border
    labels = [a for _, _, a in creases] + ["B"] * 4
    for i, (_, _, a) in enumerate(creases):
        if a not in ASSIGNMENTS or a == "B":
            raise FoldFormatError("creases", i, f"unknown crease assignment {_show(a)}")
    arr = arrange(np.array(segs, dtype=float), tol=1e-9 * max(size, 1.0) * 100)
    verts = np.where(np.abs(arr.vertices) < 1e-12, 0.0, arr.vertices)
    assignments: list[str] = []
    for k, labs in enumerate(arr.edge_labels):
        kinds = {labels[i] for i in labs}
        if "B" in kinds:
            kinds = {"B"}
        if len(kinds) > 1:
            raise FoldFormatError("creases", labs[0], f"overlaps crease {labs[1]} with a different assignment (edge {k})")
        assignments.append(kinds.pop())
    faces = faces_ccw(verts, arr.edges)
    angles = tuple(DEFAULT_ANGLE[a] for a in assignments)
    return CreasePattern(verts, tuple(arr.edges), tuple(assignments), angles, tuple(tuple(f) for f in faces),
                         name, dict(meta or {}))
