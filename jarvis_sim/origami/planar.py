"""Planar straight-line graphs: the arrangement of labelled segments and the faces it bounds.

Both the crease-pattern generator (creases laid on a sheet) and the layer solver (crease images in the
folded state) need the same operation: split segments where they cross, merge points closer than a
tolerance, and list the faces counter-clockwise.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from jarvis_sim.origami import affine2d as A

TOL = 1e-7


@dataclass(frozen=True)
class Arrangement:
    """Vertices, edges (each with the labels of the input segments it lies on) of a split segment set."""

    vertices: NDArray[np.float64]
    edges: list[tuple[int, int]]
    edge_labels: list[tuple[int, ...]]


def _snap_key(p: NDArray[np.float64], tol: float) -> tuple[int, int]:
    return (round(float(p[0]) / tol), round(float(p[1]) / tol))


class _PointIndex:
    """Merges points closer than `tol`; neighbouring grid cells are searched so no pair is missed."""

    def __init__(self, tol: float):
        self.tol = tol
        self.points: list[NDArray[np.float64]] = []
        self.grid: dict[tuple[int, int], list[int]] = {}

    def add(self, p: NDArray[np.float64]) -> int:
        kx, ky = _snap_key(p, self.tol * 4)
        for dx in (-1, 0, 1):
            for dy in (-1, 0, 1):
                for i in self.grid.get((kx + dx, ky + dy), ()):
                    if abs(self.points[i][0] - p[0]) <= self.tol and abs(self.points[i][1] - p[1]) <= self.tol:
                        return i
        self.points.append(np.asarray(p, dtype=float))
        self.grid.setdefault((kx, ky), []).append(len(self.points) - 1)
        return len(self.points) - 1


def arrange(segments: NDArray[np.float64], tol: float = TOL, parallel_tol: float | None = None) -> Arrangement:
    """Split segments (n, 2, 2) at all crossings and shared points; collinear overlaps are merged.

    Each output edge carries the indices of every input segment that covers it. Two segments are
    parallel when their cross product is below 1e-12, or, with `parallel_tol`, when their directions
    differ by so little that their ends stay within about parallel_tol of each other's line (noisy
    input: two images of one crease are collinear, and their ill-conditioned "crossing" is no cut).
    """
    seg = np.asarray(segments, dtype=float).reshape(-1, 2, 2)
    n = len(seg)
    index = _PointIndex(tol)
    # Parameters along each segment where it must be split.
    cuts: list[list[float]] = [[0.0, 1.0] for _ in range(n)]
    if n:
        p, r = seg[:, 0], seg[:, 1] - seg[:, 0]
        length2 = A.dot(r, r)
        for i in range(n):
            q, s = seg[i, 0], seg[i, 1] - seg[i, 0]
            rxs = r[:, 0] * s[1] - r[:, 1] * s[0]
            qp = q - p
            qpxr = qp[:, 0] * r[:, 1] - qp[:, 1] * r[:, 0]
            qpxs = qp[:, 0] * s[1] - qp[:, 1] * s[0]
            with np.errstate(divide="ignore", invalid="ignore"):
                t = qpxs / rxs  # along the other segments
                u = qpxr / rxs  # along segment i
            len_i = math.sqrt(float(A.dot(s, s)))
            lens = np.sqrt(length2)
            et = tol / np.maximum(lens, tol)
            eu = tol / max(len_i, tol)
            flat = 1e-12 if parallel_tol is None else np.maximum(1e-12, 4 * parallel_tol * np.maximum(lens, len_i))
            crossing = (np.abs(rxs) > flat) & (t >= -et) & (t <= 1 + et) & (u >= -eu) & (u <= 1 + eu)
            for j in np.nonzero(crossing)[0]:
                if j != i:
                    cuts[i].append(float(np.clip(u[j], 0.0, 1.0)))
            # Collinear neighbours: split at each other's endpoints that lie on this segment.
            colinear = (np.abs(rxs) <= flat) & (np.abs(qpxr) <= tol * np.maximum(lens, tol))
            for j in np.nonzero(colinear)[0]:
                if j == i:
                    continue
                for end in seg[j]:
                    w = float(A.dot(end - q, s)) / max(len_i * len_i, 1e-300)
                    if -eu <= w <= 1 + eu:
                        cuts[i].append(min(max(w, 0.0), 1.0))
    edge_of: dict[tuple[int, int], set[int]] = {}
    for i in range(n):
        q, s = seg[i, 0], seg[i, 1] - seg[i, 0]
        ids = [index.add(q + w * s) for w in sorted(set(cuts[i]))]
        for a, b in itertools.pairwise(ids):
            if a != b:
                edge_of.setdefault((min(a, b), max(a, b)), set()).add(i)
    verts = np.array(index.points, dtype=float).reshape(-1, 2)
    keys = sorted(edge_of)
    return Arrangement(verts, keys, [tuple(sorted(edge_of[k])) for k in keys])


def faces_ccw(vertices: NDArray[np.float64], edges: Sequence[tuple[int, int]]) -> list[list[int]]:
    """Bounded faces of a connected planar graph as counter-clockwise vertex cycles (outer face dropped)."""
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
    for a, b in edges:
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
