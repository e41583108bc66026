"""Impossible twins of valid patterns, made the ways the GamiBench paper describes, then verified.

Methods: invert creases (swap M/V of creases at one interior vertex), remove a mountain or valley
fold that ends inside the sheet, or lay a new crease across existing ones (an overlapping crease
intersection). The checker must reject the twin; the rules it reports are recorded.
"""

from __future__ import annotations

import random
from dataclasses import dataclass

import numpy as np

from jarvis_sim.origami.fold_format import CREASES, CreasePattern, pattern_from_segments
from jarvis_sim.origami.foldability import _boundary_vertices, check

METHODS = ("inverted-creases", "missing-fold", "overlapping-crease")


@dataclass(frozen=True)
class ImpossibleTwin:
    """An impossible pattern, how it was made and the rules the checker found broken."""

    pattern: CreasePattern
    method: str
    violated_rules: tuple[str, ...]


def _segments(cp: CreasePattern, skip: set[int]) -> list[tuple[tuple[float, float], tuple[float, float], str]]:
    out = []
    for e, ((a, b), kind) in enumerate(zip(cp.edges, cp.assignments, strict=True)):
        if kind in (*CREASES, "F") and e not in skip:
            p, q = cp.vertices[a], cp.vertices[b]
            out.append(((float(p[0]), float(p[1])), (float(q[0]), float(q[1])), kind))
    return out


def _interior_creases(cp: CreasePattern) -> list[int]:
    boundary = _boundary_vertices(cp)
    return [e for e, ((a, b), k) in enumerate(zip(cp.edges, cp.assignments, strict=True))
            if k in ("M", "V") and (a not in boundary or b not in boundary)]


def _make(cp: CreasePattern, method: str, rng: random.Random, name: str) -> CreasePattern | None:
    interior = _interior_creases(cp)
    if method == "inverted-creases":
        if not interior:
            return None
        e = rng.choice(interior)
        flip = {"M": "V", "V": "M"}
        new = list(cp.assignments)
        new[e] = flip[new[e]]
        return cp.with_assignments(new, name)
    if method == "missing-fold":
        if not interior:
            return None
        e = rng.choice(interior)
        return pattern_from_segments(_segments(cp, {e}), name)
    if method == "overlapping-crease":
        for _ in range(20):
            a = np.array([rng.uniform(0.1, 0.9), 0.0])
            b = np.array([rng.uniform(0.1, 0.9), 1.0])
            if rng.random() < 0.5:
                a, b = a[::-1].copy(), b[::-1].copy()
            segs = [*_segments(cp, set()), ((float(a[0]), float(a[1])), (float(b[0]), float(b[1])), rng.choice("MV"))]
            try:
                return pattern_from_segments(segs, name)
            except ValueError:
                continue
        return None
    raise ValueError(f"unknown impossible-twin method {method!r}; known: {', '.join(METHODS)}")


def impossible_twin(cp: CreasePattern, rng: random.Random, preferred: str | None = None) -> ImpossibleTwin:
    """A verified-impossible twin of a valid pattern; tries the preferred method first."""
    name = f"impossible-{cp.name}"
    order = list(METHODS)
    if preferred is not None:
        order.remove(preferred)
        order.insert(0, preferred)
    for method in order:
        for _ in range(6):
            twin = _make(cp, method, rng, name)
            if twin is None:
                break
            verdict = check(twin)
            if not verdict.foldable:
                meta = {**cp.meta, "twin_of": cp.name, "method": method, "violated_rules": verdict.rules}
                twin = CreasePattern(twin.vertices, twin.edges, twin.assignments, twin.fold_angles, twin.faces,
                                     name, meta)
                return ImpossibleTwin(twin, method, tuple(verdict.rules))
    raise RuntimeError(f"could not make an impossible twin of {cp.name}")
