"""Planar straight-line graphs: the arrangement of labelled segments and the faces it bounds.

Both the crease-pattern generator (creases laid on a sheet) and the layer solver (crease images in the
folded state) need the same operation: split segments where they cross, merge points closer than a
tolerance, and list the faces counter-clockwise.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from jarvis_sim.origami import affine2d as A
from jarvis_sim.origami.box_pairs import overlapping_pairs

TOL = 1e-7
_GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0  # the most evenly spreading step round a cycle


@dataclass(frozen=True)
class Arrangement:
    """Vertices, edges (each with the labels of the input segments it lies on) of a split segment set."""

    vertices: NDArray[np.float64]
    edges: list[tuple[int, int]]
    edge_labels: list[tuple[int, ...]]


class _PointIndex:
    """Merges points closer than `tol` (the first one added stands for them); neighbouring grid cells are searched
    so no pair is missed."""

    def __init__(self, tol: float):
        self.tol = tol
        self.points: list[tuple[float, float]] = []
        self.grid: dict[tuple[int, int], list[int]] = {}

    def add(self, x: float, y: float) -> int:
        tol = self.tol
        kx, ky = round(x / (tol * 4)), round(y / (tol * 4))
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for i in self.grid.get((kx + dx, ky + dy), ()):
                    px, py = self.points[i]
                    if abs(px - x) <= tol and abs(py - y) <= tol:
                        return i
        self.points.append((x, y))
        self.grid.setdefault((kx, ky), []).append(len(self.points) - 1)
        return len(self.points) - 1


def arrange(segments: NDArray[np.float64], tol: float = TOL, parallel_tol: float | None = None,
            tick: Callable[[], None] | None = None) -> Arrangement:
    """Split segments (n, 2, 2) at all crossings and shared points; collinear overlaps are merged.

    Each output edge carries the indices of every input segment that covers it. Two segments are
    parallel when their cross product is below 1e-12, or, with `parallel_tol`, when their directions
    differ by so little that their ends stay within about parallel_tol of each other's line (noisy
    input: two images of one crease are collinear, and their ill-conditioned "crossing" is no cut).
    Only segments whose boxes, grown by how far a cut can reach (_reach), overlap are compared (a grid
    index, jarvis_sim.origami.box_pairs), so the work follows the pairs that are near, not all n^2.
    `tick` is called every few thousand pairs and points; it may raise to stop the work (a time limit).
    """
    seg = np.asarray(segments, dtype=float).reshape(-1, 2, 2)
    n = len(seg)
    p, r = seg[:, 0], seg[:, 1] - seg[:, 0]
    lens = np.sqrt(A.dot(r, r))
    # Parameters along each segment where it must be split: its ends, then every cut found.
    on: list[NDArray[np.intp]] = [np.arange(n), np.arange(n)]
    at: list[NDArray[np.float64]] = [np.zeros(n), np.ones(n)]
    # Rounding in the tests of _cuts moves a cut by a few ulps of the coordinates: grow every box by more.
    reach = _reach(lens, tol, parallel_tol) + 64 * np.finfo(float).eps * (1.0 + float(np.abs(seg).max(initial=0.0)))
    lo = np.minimum(seg[:, 0], seg[:, 1]) - reach[:, None]
    hi = np.maximum(seg[:, 0], seg[:, 1]) + reach[:, None]
    for a, b in overlapping_pairs(lo, hi, tick):
        for i, j in ((a, b), (b, a)):
            cut_on, cut_at = _cuts(seg, p, r, lens, i, j, tol, parallel_tol)
            on.append(cut_on)
            at.append(cut_at)
    seg_ids, ws = np.concatenate(on), np.concatenate(at) + 0.0  # + 0.0: -0.0 is the end 0.0 already listed
    order = np.lexsort((ws, seg_ids))
    seg_ids, ws = seg_ids[order], ws[order]
    fresh = np.ones(len(ws), dtype=bool)
    fresh[1:] = (seg_ids[1:] != seg_ids[:-1]) | (ws[1:] != ws[:-1])
    seg_ids, ws = seg_ids[fresh], ws[fresh]
    pts = p[seg_ids] + ws[:, None] * r[seg_ids]
    index = _PointIndex(tol)
    ids = []
    for k, (x, y) in enumerate(pts.tolist()):
        if tick is not None and k % 8192 == 0:
            tick()
        ids.append(index.add(x, y))
    edge_of: dict[tuple[int, int], set[int]] = {}
    same = seg_ids[1:] == seg_ids[:-1]
    for k in np.nonzero(same)[0].tolist():
        u, v = ids[k], ids[k + 1]
        if u != v:
            edge_of.setdefault((min(u, v), max(u, v)), set()).add(int(seg_ids[k]))
    verts = np.array(index.points, dtype=float).reshape(-1, 2)
    keys = sorted(edge_of)
    return Arrangement(verts, keys, [tuple(sorted(edge_of[k])) for k in keys])


def _reach(lens: NDArray[np.float64], tol: float, parallel_tol: float | None) -> NDArray[np.float64]:
    """How far beyond its own box a segment can be cut by another (infinite: by any segment at all).

    A crossing lies within tol of both segments. A parallel neighbour's end counts when it projects onto the
    segment (within tol) and the neighbour's line passes within tol of the segment's start; two lines at an angle
    theta then put that end up to tol + (len + 2 tol) tan(theta) off the segment, and the parallel test bounds
    sin(theta) by the cross-product threshold over the two lengths. A segment shorter than tol counts as parallel
    to every line near it, so it is compared with every segment, as before the index.
    """
    n = len(lens)
    if n == 0:
        return np.zeros(0)
    short = lens < tol
    shortest = float(lens[~short].min()) if (~short).any() else tol
    with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
        sin = 1e-12 / (lens * shortest)
        if parallel_tol is not None:
            sin = np.maximum(sin, 4 * parallel_tol / np.minimum(lens, shortest))
        tan = np.where(sin < 0.99, sin / np.sqrt(1 - np.minimum(sin, 0.99) ** 2), np.inf)
        reach = 2 * tol + (lens + 2 * tol) * tan
    reach[short] = np.inf
    return np.asarray(reach)


def _cuts(seg: NDArray[np.float64], p: NDArray[np.float64], r: NDArray[np.float64], lens: NDArray[np.float64],
          i: NDArray[np.intp], j: NDArray[np.intp], tol: float,
          parallel_tol: float | None) -> tuple[NDArray[np.intp], NDArray[np.float64]]:
    """Where each segment i is cut by its partner j: crossings, and collinear partners' ends lying on it.

    The arithmetic, operation by operation, is that of the all-pairs version this replaced (same cuts, same bits).
    """
    q, s, pj, rj = p[i], r[i], p[j], r[j]
    rxs = rj[:, 0] * s[:, 1] - rj[:, 1] * s[:, 0]
    qp = q - pj
    qpxr = qp[:, 0] * rj[:, 1] - qp[:, 1] * rj[:, 0]
    qpxs = qp[:, 0] * s[:, 1] - qp[:, 1] * s[:, 0]
    with np.errstate(divide="ignore", invalid="ignore"):
        t = qpxs / rxs  # along the partner
        u = qpxr / rxs  # along segment i
    len_i, len_j = lens[i], lens[j]
    et = tol / np.maximum(len_j, tol)
    eu = tol / np.maximum(len_i, tol)
    flat = 1e-12 if parallel_tol is None else np.maximum(1e-12, 4 * parallel_tol * np.maximum(len_j, len_i))
    crossing = (np.abs(rxs) > flat) & (t >= -et) & (t <= 1 + et) & (u >= -eu) & (u <= 1 + eu)
    on, at = [i[crossing]], [np.clip(u[crossing], 0.0, 1.0)]
    # Collinear partners: split at each other's endpoints that lie on this segment.
    colinear = np.nonzero((np.abs(rxs) <= flat) & (np.abs(qpxr) <= tol * np.maximum(len_j, tol)))[0]
    sq = np.maximum(len_i[colinear] * len_i[colinear], 1e-300)
    for end in (0, 1):
        w = A.dot(seg[j[colinear], end] - q[colinear], s[colinear]) / sq
        ok = (w >= -eu[colinear]) & (w <= 1 + eu[colinear])
        on.append(i[colinear][ok])
        at.append(np.clip(w[ok], 0.0, 1.0))
    return np.concatenate(on), np.concatenate(at)


def faces_ccw(vertices: NDArray[np.float64], edges: Sequence[tuple[int, int]],
              tick: Callable[[], None] | None = None) -> list[list[int]]:
    """Bounded faces of a connected planar graph as counter-clockwise vertex cycles (outer face dropped).

    `tick` is called every few thousand edges; it may raise to stop the work (a time limit).
    """
    nbrs: dict[int, list[int]] = {}
    for a, b in edges:
        nbrs.setdefault(a, []).append(b)
        nbrs.setdefault(b, []).append(a)
    for v, ns in nbrs.items():
        d = vertices[ns] - vertices[v]
        order = np.argsort(A.angles(d), kind="stable")
        nbrs[v] = [ns[k] for k in order]
    pos = {v: {w: k for k, w in enumerate(ns)} for v, ns in nbrs.items()}
    seen: set[tuple[int, int]] = set()
    faces: list[list[int]] = []
    for k, (a, b) in enumerate(edges):
        if tick is not None and k % 4096 == 0:
            tick()
        for start in ((a, b), (b, a)):
            if start in seen:
                continue
            cycle = []
            u, v = start
            while (u, v) not in seen:
                seen.add((u, v))
                cycle.append(u)
                # Next half-edge: at v, turn to the neighbour just clockwise of u, keeping the face on the left.
                ns = nbrs[v]
                w = ns[(pos[v][u] - 1) % len(ns)]
                u, v = v, w
            if polygon_area(vertices[cycle]) > 0:
                faces.append(cycle)
    return faces


def polygon_area(poly: NDArray[np.float64]) -> float:
    """Signed area (positive for counter-clockwise)."""
    x, y = poly[:, 0], poly[:, 1]
    return 0.5 * (A.fsum(x * np.roll(y, -1)) - A.fsum(np.roll(x, -1) * y))


def clip_convex(poly: NDArray[np.float64], point: NDArray[np.float64], normal: NDArray[np.float64]) -> NDArray[np.float64]:
    """The part of a polygon where (x - point) . normal >= 0 (Sutherland-Hodgman against one half-plane)."""
    out: list[NDArray[np.float64]] = []
    d = A.dot(poly - point, normal)
    k = len(poly)
    for i in range(k):
        j = (i + 1) % k
        if d[i] >= 0:
            out.append(poly[i])
        if (d[i] >= 0) != (d[j] >= 0):
            t = d[i] / (d[i] - d[j])
            out.append(poly[i] + t * (poly[j] - poly[i]))
    return np.array(out, dtype=float).reshape(-1, 2)


def interior_point(poly: NDArray[np.float64], inset: float = 0.0) -> NDArray[np.float64]:
    """A point strictly inside a counter-clockwise polygon (convex or not), at least `inset` from its longest side
    where the polygon is that thick (noisy faces are only known to lie within a tolerance of their edges)."""
    best = None
    n = len(poly)
    for i in range(n):
        p, q = poly[i], poly[(i + 1) % n]
        d = q - p
        ln = float(np.hypot(*d))
        if best is None or ln > best[0]:
            best = (ln, p, d)
    assert best is not None
    ln, p, d = best
    normal = np.array([-d[1], d[0]]) / ln
    mid = p + d / 2
    # Step inward a fraction of the polygon's thickness along the normal.
    depth = A.dot(poly - mid, normal)
    step = min(max(float(depth.max()), 1e-9) * 1e-3, 1e-5)
    if inset > step:
        step = min(inset, float(depth.max()) / 2)
    return np.asarray(mid + normal * step)


def inside_convex(poly: NDArray[np.float64], pts: NDArray[np.float64], margin: float,
                   tick: Callable[[], None] | None = None) -> NDArray[np.bool_]:
    """Which points lie inside a counter-clockwise convex polygon by more than `margin`.

    A point is dropped at the first side it is not inside of, so later sides test only the points left (the same
    comparisons on those, so the same answer). The sides are taken spread round the polygon (golden-ratio steps),
    so a face of thousands of collinear pieces drops the points on each of its lines within its first few sides.
    `tick` (which may raise) is called every 256 sides.
    """
    left = np.arange(len(pts))
    n = len(poly)
    for k, i in enumerate(np.argsort((np.arange(n) * _GOLDEN) % 1.0, kind="stable").tolist()):
        if not len(left):
            break
        if tick is not None and k % 256 == 255:
            tick()
        p, q = poly[i], poly[(i + 1) % n]
        d = q - p
        ln = float(np.hypot(*d))
        if ln < 1e-12:
            continue
        x, y = pts[left, 0], pts[left, 1]
        cross = (d[0] * (y - p[1]) - d[1] * (x - p[0])) / ln
        left = left[cross > margin]
    ok = np.zeros(len(pts), dtype=bool)
    ok[left] = True
    return ok
