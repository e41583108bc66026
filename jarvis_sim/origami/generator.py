"""Seeded generator of valid crease patterns on the unit square.

Families, each valid by construction and then checked by the verifier:
- fold sequences: simple folds along Huzita-Hatori axiom lines through all layers, then unfolded
  (axioms 1-5 and 7; axiom 6 needs a cubic and is left out);
- grid (map) folds and box-pleat folds: the same simulator restricted to grid lines and 45-degree lines;
- classic bases (preliminary, waterbomb, kite, fish, bird, frog) and tessellations (Miura-ori, square
  twist): their crease lines are laid out geometrically and the mountain/valley assignment is read off a
  layer order the SAT solver finds, so every assignment shipped is one the solver proved foldable.
"""

from __future__ import annotations

import hashlib
import math
import random
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from jarvis_sim.origami import affine2d as A
from jarvis_sim.origami.fold_format import CreasePattern, pattern_from_segments
from jarvis_sim.origami.foldability import check
from jarvis_sim.origami.planar import clip_convex

COMPLEX_MIN_CREASES = 40
MIN_FEATURE = 0.012  # smallest edge length and vertex spacing accepted, in sheet units
Segment = tuple[tuple[float, float], tuple[float, float], str]


def pattern_class(crease_count: int) -> str:
    """GamiBench's split: simple below 40 creases, complex from 40."""
    return "complex" if crease_count >= COMPLEX_MIN_CREASES else "simple"


@dataclass
class _Layer:
    poly: NDArray[np.float64]  # on the sheet, counter-clockwise
    m: NDArray[np.float64]  # 2x3 map sheet -> folded plane

    def folded(self) -> NDArray[np.float64]:
        return A.apply(self.m, self.poly)

    @property
    def flipped(self) -> bool:
        return A.det(self.m) < 0


class FoldSheet:
    """A square sheet folded flat by simple folds through all layers; records the creases on the sheet."""

    def __init__(self) -> None:
        square = np.array([[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
        self.layers = [_Layer(square, np.hstack([np.eye(2), np.zeros((2, 1))]))]
        self.creases: list[Segment] = []

    def reference_points(self) -> NDArray[np.float64]:
        """Distinct corners of the folded shape's layers (the points axioms may use)."""
        pts = np.vstack([layer.folded() for layer in self.layers])
        return np.unique(np.round(pts, 9), axis=0)

    def reference_lines(self) -> list[tuple[NDArray[np.float64], NDArray[np.float64]]]:
        """Distinct folded edge lines as (point, unit direction)."""
        out: dict[tuple[float, float, float], tuple[NDArray[np.float64], NDArray[np.float64]]] = {}
        for layer in self.layers:
            f = layer.folded()
            for i in range(len(f)):
                p, q = f[i], f[(i + 1) % len(f)]
                d = q - p
                ln = float(np.hypot(*d))
                if ln < 1e-9:
                    continue
                d = d / ln
                if d[0] < -1e-12 or (abs(d[0]) <= 1e-12 and d[1] < 0):
                    d = -d
                key = (round(float(d[0]), 7), round(float(d[1]), 7), round(float(d[0] * p[1] - d[1] * p[0]), 7))
                out.setdefault(key, (p, d))
        return [out[k] for k in sorted(out)]

    def fold(self, point: NDArray[np.float64], normal: NDArray[np.float64], up: bool) -> bool:
        """Fold the side where (x - point).normal > 0 over the line, up (towards +z) or down; False if no-op."""
        normal = A.unit(normal)
        eps = 1e-9
        moving = 0
        staying = 0
        new_layers: list[_Layer] = []
        new_creases: list[Segment] = []
        reflect = np.eye(2) - 2 * np.outer(normal, normal)
        for layer in self.layers:
            d = A.dot(layer.folded() - point, normal)
            if d.max() <= eps:
                staying += 1
                new_layers.append(layer)
                continue
            if d.min() >= -eps:
                moving += 1
                new_layers.append(self._reflected(layer, reflect, point))
                continue
            # Cut the layer: the fold line's pre-image on the sheet is n'.x + c = 0.
            a = layer.m[:, :2]
            n_sheet = A.linear(a.T, normal)
            c = float(A.dot(layer.m[:, 2] - point, normal))
            p0 = -c * n_sheet / float(A.dot(n_sheet, n_sheet))
            keep = clip_convex(layer.poly, p0, -n_sheet)
            move = clip_convex(layer.poly, p0, n_sheet)
            on_line = [tuple(v) for v in keep if abs(float(A.dot(v, n_sheet)) + c) < 1e-9]
            ends = sorted(set(on_line))
            if len(ends) < 2:
                return False
            p, q = np.array(ends[0]), np.array(ends[-1])
            if float(np.hypot(*(q - p))) < MIN_FEATURE:
                return False
            kind = "V" if up != layer.flipped else "M"
            new_creases.append(((float(p[0]), float(p[1])), (float(q[0]), float(q[1])), kind))
            new_layers.append(_Layer(keep, layer.m))
            new_layers.append(self._reflected(_Layer(move, layer.m), reflect, point))
            moving += 1
            staying += 1
        if not new_creases or not moving or not staying:
            return False
        self.layers = new_layers
        self.creases.extend(new_creases)
        return True

    @staticmethod
    def _reflected(layer: _Layer, reflect: NDArray[np.float64], point: NDArray[np.float64]) -> _Layer:
        a = A.matmul2(reflect, layer.m[:, :2])
        t = A.linear(reflect, layer.m[:, 2] - point) + point
        return _Layer(layer.poly, np.hstack([a, t[:, None]]))


def _perp_bisector(p: NDArray[np.float64], q: NDArray[np.float64]) -> tuple[NDArray[np.float64], NDArray[np.float64]] | None:
    if float(np.hypot(*(q - p))) < MIN_FEATURE:
        return None
    return (p + q) / 2, (q - p)


def axiom_line(
    axiom: int, sheet: FoldSheet, rng: random.Random
) -> tuple[NDArray[np.float64], NDArray[np.float64]] | None:
    """A fold line (point, normal) from Huzita-Hatori axiom 1, 2, 3, 4, 5 or 7 on random references."""
    pts = sheet.reference_points()
    lines = sheet.reference_lines()

    def pick_pt() -> NDArray[np.float64]:
        return np.asarray(pts[rng.randrange(len(pts))])

    def pick_line() -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        return lines[rng.randrange(len(lines))]

    if axiom == 1:  # the line through two points
        p, q = pick_pt(), pick_pt()
        d = q - p
        if float(np.hypot(*d)) < MIN_FEATURE:
            return None
        return p, np.array([-d[1], d[0]])
    if axiom == 2:  # bring one point onto another
        return _perp_bisector(pick_pt(), pick_pt())
    if axiom == 3:  # bring one line onto another: an angle bisector
        (p1, d1), (p2, d2) = pick_line(), pick_line()
        cross = d1[0] * d2[1] - d1[1] * d2[0]
        if abs(cross) < 1e-9:  # parallel: the mid-parallel
            off = float(A.dot(p2 - p1, np.array([-d1[1], d1[0]])))
            if abs(off) < MIN_FEATURE:
                return None
            return p1 + np.array([-d1[1], d1[0]]) * off / 2, np.array([-d1[1], d1[0]])
        t = float(((p2 - p1)[0] * d2[1] - (p2 - p1)[1] * d2[0]) / cross)
        x = p1 + t * d1
        b = d1 + d2 if rng.random() < 0.5 else d1 - d2
        if float(np.hypot(*b)) < 1e-9:
            return None
        return x, np.array([-b[1], b[0]])
    if axiom == 4:  # through a point, perpendicular to a line
        p, (_, d) = pick_pt(), pick_line()
        return p, d.copy()
    if axiom == 5:  # through p2, bringing p1 onto a line
        p1, p2, (lp, ld) = pick_pt(), pick_pt(), pick_line()
        r = float(np.hypot(*(p1 - p2)))
        w = lp - p2
        half_b = float(A.dot(w, ld))
        disc = half_b * half_b - (float(A.dot(w, w)) - r * r)
        if r < MIN_FEATURE or disc < 0:
            return None
        s = -half_b + math.sqrt(disc) * (1 if rng.random() < 0.5 else -1)
        return _perp_bisector(p1, lp + s * ld)
    if axiom == 7:  # bring p onto line l1, folding perpendicular to line l2
        p, (lp, ld), (_, d2) = pick_pt(), pick_line(), pick_line()
        cross = d2[0] * ld[1] - d2[1] * ld[0]
        if abs(cross) < 1e-9:
            return None
        s = float(((lp - p)[0] * ld[1] - (lp - p)[1] * ld[0]) / cross)
        return _perp_bisector(p, p + s * d2)
    raise ValueError(f"axiom {axiom} is not generated (known: 1, 2, 3, 4, 5, 7)")


AXIOMS = (1, 2, 3, 4, 5, 7)


def _well_spaced(cp: CreasePattern) -> bool:
    """No tiny edges or near-coincident vertices: such patterns render as noise and fold badly."""
    e = np.array(cp.edges)
    lens = A.norm(cp.vertices[e[:, 0]] - cp.vertices[e[:, 1]])
    if float(lens.min()) < MIN_FEATURE:
        return False
    v = cp.vertices
    d = A.norm(v[:, None] - v[None]) + np.eye(len(v))
    return float(d.min()) >= MIN_FEATURE


def fold_sequence(rng: random.Random, n_folds: int, name: str, allowed: str = "axioms") -> CreasePattern | None:
    """Unfolded result of n simple folds (axiom lines, grid lines or box-pleat lines); None when stuck."""
    sheet = FoldSheet()
    steps: list[str] = []
    tries = 0
    while len(steps) < n_folds and tries < 60:
        tries += 1
        if allowed == "axioms":
            axiom = rng.choice(AXIOMS)
            line = axiom_line(axiom, sheet, rng)
            label = f"O{axiom}"
        else:
            line = _lattice_line(rng, allowed)
            label = allowed
        if line is None:
            continue
        point, normal = line
        if float(np.hypot(*normal)) < 1e-9:
            continue
        up = rng.random() < 0.5
        trial = FoldSheet()
        trial.layers, trial.creases = list(sheet.layers), list(sheet.creases)
        if not trial.fold(point, normal * (1 if rng.random() < 0.5 else -1), up):
            continue
        try:
            cp = pattern_from_segments(trial.creases, name)
        except ValueError:
            continue
        if not _well_spaced(cp):
            continue
        sheet = trial
        steps.append(label)
    if len(steps) < n_folds:
        return None
    return pattern_from_segments(sheet.creases, name, meta={"source": "fold-sequence", "folds": steps})


def _lattice_line(rng: random.Random, allowed: str) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    n = 8  # an 8x8 lattice: the usual box-pleating grid size for small models
    k = rng.randrange(1, n)
    if allowed == "grid" or rng.random() < 0.5:
        p = np.array([k / n, 0.5]) if rng.random() < 0.5 else np.array([0.5, k / n])
        normal = np.array([1.0, 0.0]) if p[1] == 0.5 and p[0] != 0.5 else np.array([0.0, 1.0])
        if rng.random() < 0.5:
            p, normal = np.array([p[1], p[0]]), np.array([normal[1], normal[0]])
        return p, normal
    # Box pleating: 45-degree lines through grid points.
    j = rng.randrange(0, n + 1)
    p = np.array([k / n, j / n])
    return p, (np.array([1.0, 1.0]) if rng.random() < 0.5 else np.array([1.0, -1.0]))


def assign_by_layers(segments: list[tuple[tuple[float, float], tuple[float, float]]], name: str,
                     meta: dict[str, object], flat: list[tuple[tuple[float, float], tuple[float, float]]] | None = None,
                     ) -> CreasePattern | None:
    """Lay out crease lines unassigned, solve the layer order, and read M/V off it; None if unfoldable.

    `flat` lines are reference creases left unfolded (F), like the kite base's diagonal.
    """
    cp = pattern_from_segments([(p, q, "U") for p, q in segments] + [(p, q, "F") for p, q in flat or []],
                               name, meta=dict(meta))
    verdict = check(cp)
    if not verdict.foldable or verdict.state is None:
        return None
    state = verdict.state
    assigned = [state.crease_assignment(e) if a == "U" else a for e, a in enumerate(cp.assignments)]
    out = cp.with_assignments(assigned)
    return out if check(out).foldable else None


def _pts(*xy: float) -> list[tuple[float, float]]:
    return [(xy[i], xy[i + 1]) for i in range(0, len(xy), 2)]


def classic_base(kind: str) -> CreasePattern | None:
    """One of the classic bases on the unit square."""
    t = math.tan(math.radians(22.5))
    c = (0.5, 0.5)
    corners = _pts(0, 0, 1, 0, 1, 1, 0, 1)
    mids = _pts(0.5, 0, 1, 0.5, 0.5, 1, 0, 0.5)
    segs: list[tuple[tuple[float, float], tuple[float, float]]] = []
    if kind in ("preliminary", "waterbomb"):
        segs = [(c, p) for p in corners] + [(c, p) for p in mids]
        if kind == "waterbomb":  # the waterbomb is the preliminary base turned inside out
            cp = assign_by_layers(segs, "waterbomb-base", {"source": "classic-base"})
            if cp is None:
                return None
            flip = {"M": "V", "V": "M"}
            return cp.with_assignments([flip.get(a, a) for a in cp.assignments])
    elif kind == "kite":
        return assign_by_layers([((0, 0), (1, t)), ((0, 0), (t, 1))], "kite-base", {"source": "classic-base"},
                                flat=[((0, 0), (1, 1))])
    elif kind == "fish":
        i1 = (1 / math.sqrt(2), 1 - 1 / math.sqrt(2))
        i2 = (1 - 1 / math.sqrt(2), 1 / math.sqrt(2))
        segs = [((0, 0), (1, 1))]
        for inc, corner in ((i1, (1.0, 0.0)), (i2, (0.0, 1.0))):
            segs += [((0, 0), inc), ((1, 1), inc), (corner, inc), (inc, c)]
    elif kind == "bird":
        h = 0.5 * t  # where the 22.5-degree corner creases meet the midlines
        segs = [((0, 0), (1, 1)), ((1, 0), (0, 1)), ((0.5, 0), (0.5, 1)), ((0, 0.5), (1, 0.5))]
        ring = [(0.5, h), (1 - h, 0.5), (0.5, 1 - h), (h, 0.5)]
        for k in range(4):
            segs.append((ring[k], ring[(k + 1) % 4]))
        for corner in corners:
            for p in ring:
                if max(abs(p[0] - corner[0]), abs(p[1] - corner[1])) < 0.5 + 1e-9:
                    segs.append((corner, p))
    elif kind == "frog":
        # Approximation of the frog base (a preliminary base whose flaps are squashed and petal-folded):
        # the preliminary creases with a bird-base molecule in each quadrant; the solver picks M/V.
        segs = [((0, 0), (1, 1)), ((1, 0), (0, 1)), ((0.5, 0), (0.5, 1)), ((0, 0.5), (1, 0.5))]
        for qx, qy in ((0, 0), (0.5, 0), (0.5, 0.5), (0, 0.5)):
            sub = classic_lines_bird(qx, qy, 0.5)
            segs += sub
    else:
        raise ValueError(f"unknown base {kind!r}; known: preliminary, waterbomb, kite, fish, bird, frog")
    return assign_by_layers(segs, f"{kind}-base", {"source": "classic-base"})


def classic_lines_bird(x0: float, y0: float, s: float) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    """The bird-base crease lines scaled into the square [x0, x0+s] x [y0, y0+s]."""
    t = math.tan(math.radians(22.5))
    h = 0.5 * t

    def m(p: tuple[float, float]) -> tuple[float, float]:
        return (x0 + s * p[0], y0 + s * p[1])

    segs = [((0.0, 0.0), (1.0, 1.0)), ((1.0, 0.0), (0.0, 1.0)), ((0.5, 0.0), (0.5, 1.0)), ((0.0, 0.5), (1.0, 0.5))]
    ring = [(0.5, h), (1 - h, 0.5), (0.5, 1 - h), (h, 0.5)]
    for k in range(4):
        segs.append((ring[k], ring[(k + 1) % 4]))
    for corner in _pts(0, 0, 1, 0, 1, 1, 0, 1):
        for p in ring:
            if max(abs(p[0] - corner[0]), abs(p[1] - corner[1])) < 0.5 + 1e-9:
                segs.append((corner, p))
    return [(m(p), m(q)) for p, q in segs]


def miura_ori(rows: int, cols: int, skew: float) -> CreasePattern | None:
    """Miura-ori: straight horizontal creases and zig-zag creases; skew is the zig offset in cell widths."""
    w, h = 1.0 / cols, 1.0 / rows
    segs: list[tuple[tuple[float, float], tuple[float, float]]] = []
    for j in range(1, rows):
        segs.append(((0.0, j * h), (1.0, j * h)))
    margin = skew * w
    xs = [margin + (1 - 2 * margin) * i / cols for i in range(1, cols)] if cols > 1 else []
    for x in xs:
        for j in range(rows):
            x0 = x + (margin if j % 2 else -margin) * 0.5
            x1 = x + (-margin if j % 2 else margin) * 0.5
            segs.append(((x0, j * h), (x1, (j + 1) * h)))
    return assign_by_layers(segs, f"miura-ori-{rows}x{cols}-s{round(skew * 100)}",
                            {"source": "tessellation", "kind": "miura-ori"})


def square_twist(size: float, angle_deg: float, tiles: int = 1) -> CreasePattern | None:
    # Tiles > 1 need pleats that continue across tile borders; separately twisted tiles are not foldable.
    """Square twist tiles: a central square with four pleats leaving its sides at a twist angle."""
    segs: list[tuple[tuple[float, float], tuple[float, float]]] = []
    cell = 1.0 / tiles
    for ti in range(tiles):
        for tj in range(tiles):
            cx, cy = (ti + 0.5) * cell, (tj + 0.5) * cell
            segs += _twist_lines(np.array([cx, cy]), size * cell, math.radians(angle_deg), (ti * cell, tj * cell, cell))
    return assign_by_layers(segs, f"square-twist-{tiles}x{tiles}-s{round(size * 100)}-a{round(angle_deg)}",
                            {"source": "tessellation", "kind": "square-twist"})


def _twist_lines(center: NDArray[np.float64], side: float, alpha: float,
                 box: tuple[float, float, float]) -> list[tuple[tuple[float, float], tuple[float, float]]]:
    x0, y0, s = box
    rot = np.array([[math.cos(alpha), -math.sin(alpha)], [math.sin(alpha), math.cos(alpha)]])
    corners = [center + A.linear(rot, np.array(v) * side / 2) for v in ((-1, -1), (1, -1), (1, 1), (-1, 1))]
    segs = []
    for k in range(4):
        p, q = corners[k], corners[(k + 1) % 4]
        segs.append((p, q))
        d = q - p
        outward = A.unit(np.array([d[1], -d[0]]))
        pleat = np.array([outward[0] * math.cos(alpha) - outward[1] * math.sin(alpha),
                          outward[0] * math.sin(alpha) + outward[1] * math.cos(alpha)])
        for start in (p, q):
            segs.append((start, _to_box(start, pleat, x0, y0, s)))
    return [((float(a[0]), float(a[1])), (float(b[0]), float(b[1]))) for a, b in segs]


def _to_box(p: NDArray[np.float64], d: NDArray[np.float64], x0: float, y0: float, s: float) -> NDArray[np.float64]:
    ts = []
    for k, lo, hi in ((0, x0, x0 + s), (1, y0, y0 + s)):
        if abs(d[k]) > 1e-12:
            ts += [(lo - p[k]) / d[k], (hi - p[k]) / d[k]]
    t = min(x for x in ts if x > 1e-12)
    return np.asarray(p + t * d)


def pattern_key(cp: CreasePattern) -> str:
    """A digest of geometry and assignment: equal keys mean the same pattern."""
    rows = sorted(
        (tuple(np.round(np.sort(cp.vertices[list(e)], axis=0).ravel(), 6)), a)
        for e, a in zip(cp.edges, cp.assignments, strict=True)
    )
    return hashlib.sha256(repr(rows).encode()).hexdigest()[:16]


def candidate_patterns(seed: int) -> Iterator[CreasePattern]:
    """Valid patterns in a fixed order for a seed: bases, tessellations, lattice folds, axiom folds."""
    for kind in ("preliminary", "waterbomb", "kite", "fish", "bird", "frog"):
        cp = classic_base(kind)
        if cp is not None:
            yield cp
    for rows, cols in ((2, 2), (2, 3), (3, 3), (3, 4), (4, 4), (4, 5), (5, 5), (5, 6), (6, 6)):
        for skew in (0.1, 0.2, 0.3):
            cp = miura_ori(rows, cols, skew)
            if cp is not None:
                yield cp
    for size in (0.2, 0.25, 0.3, 0.35, 0.4):
        for angle in (10.0, 15.0, 22.5, 30.0):
            cp = square_twist(size, angle)
            if cp is not None:
                yield cp
    rng = random.Random(seed)
    for i in range(24):
        cp = fold_sequence(rng, 2 + i % 4, f"grid-fold-{i:03d}", allowed="grid")
        if cp is not None:
            yield cp
    for i in range(24):
        cp = fold_sequence(rng, 2 + i % 4, f"box-pleat-fold-{i:03d}", allowed="box")
        if cp is not None:
            yield cp
    for i in range(400):
        cp = fold_sequence(rng, 1 + i % 6, f"axiom-fold-{i:03d}")
        if cp is not None:
            yield cp
