"""Fold simulator: the flat-folded state and partially folded 3D states, as triangle meshes.

3D states rotate each face about the crease joining it to its parent in a breadth-first spanning tree
of faces (rooted at the face under the sheet centre) by fold angle x amount. Creases off the tree are
not enforced, so a pattern that is not rigidly foldable shows small gaps at intermediate amounts, as a
kinematic (not compliant) simulation does.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from jarvis_sim.origami.fold_format import CreasePattern
from jarvis_sim.origami.foldability import FoldedState, _fold_faces

LAYER_GAP = 0.004  # sheet units between stacked layers in the flat-folded mesh


@dataclass(frozen=True)
class FoldedMesh:
    """Triangles (n, 3, 3) in sheet units with the sheet face each came from; normals point out of the front."""

    triangles: NDArray[np.float64]
    face_of: NDArray[np.int64]

    def normals(self) -> NDArray[np.float64]:
        """Unit normals of the front side of each triangle."""
        t = self.triangles
        n = np.cross(t[:, 1] - t[:, 0], t[:, 2] - t[:, 0])
        return np.asarray(n / np.maximum(np.linalg.norm(n, axis=1, keepdims=True), 1e-12))


def _triangulate(cp: CreasePattern, faces: list[tuple[int, ...]]) -> tuple[list[tuple[int, int, int]], list[int]]:
    tris: list[tuple[int, int, int]] = []
    owner: list[int] = []
    for f, cyc in enumerate(faces):
        for k in range(1, len(cyc) - 1):  # faces of foldable patterns are convex: a fan is enough
            tris.append((cyc[0], cyc[k], cyc[k + 1]))
            owner.append(f)
    return tris, owner


def _root_face(cp: CreasePattern, faces: list[tuple[int, ...]]) -> int:
    centre = cp.vertices.mean(axis=0) if len(cp.vertices) else np.zeros(2)
    best, best_d = 0, math.inf
    for f, cyc in enumerate(faces):
        d = float(np.linalg.norm(cp.vertices[list(cyc)].mean(axis=0) - centre))
        if d < best_d - 1e-12:
            best, best_d = f, d
    return best


def _rotation_about(p: NDArray[np.float64], q: NDArray[np.float64], angle: float) -> NDArray[np.float64]:
    """4x4 rotation by angle about the sheet line p-q (z = 0)."""
    axis = np.array([q[0] - p[0], q[1] - p[1], 0.0])
    axis /= np.linalg.norm(axis)
    x, y, z = axis
    c, s = math.cos(angle), math.sin(angle)
    k = np.array([[0, -z, y], [z, 0, -x], [-y, x, 0]])
    r = np.eye(3) + s * k + (1 - c) * (k @ k)
    origin = np.array([p[0], p[1], 0.0])
    m = np.eye(4)
    m[:3, :3] = r
    m[:3, 3] = origin - r @ origin
    return m


def fold_3d(cp: CreasePattern, amount: float) -> FoldedMesh:
    """The pattern folded to `amount` (0 flat sheet, 1 every crease at its full fold angle)."""
    faces, edge_id = _fold_faces(cp)
    sides: dict[int, list[int]] = {}
    for f, cyc in enumerate(faces):
        for a, b in zip(cyc, cyc[1:] + cyc[:1], strict=True):
            sides.setdefault(edge_id[(min(a, b), max(a, b))], []).append(f)
    adj: dict[int, list[tuple[int, int]]] = {}
    for e, fs in sorted(sides.items()):
        if len(fs) == 2:
            adj.setdefault(fs[0], []).append((e, fs[1]))
            adj.setdefault(fs[1], []).append((e, fs[0]))
    root = _root_face(cp, faces)
    transforms: dict[int, NDArray[np.float64]] = {root: np.eye(4)}
    queue = deque([root])
    while queue:
        f = queue.popleft()
        for e, g in adj.get(f, []):
            if g in transforms:
                continue
            a, b = cp.edges[e]
            pa, pb = cp.vertices[a], cp.vertices[b]
            angle = math.radians(cp.fold_angles[e]) * amount
            # Valley (positive) lifts the child towards the parent's front (+z in the sheet frame).
            centre = cp.vertices[list(faces[g])].mean(axis=0)
            probe = _rotation_about(pa, pb, 0.1) @ np.array([centre[0], centre[1], 0.0, 1.0])
            sign = 1.0 if probe[2] > 0 else -1.0
            transforms[g] = transforms[f] @ _rotation_about(pa, pb, sign * angle)
            queue.append(g)
    tris, owner = _triangulate(cp, faces)
    pts = np.hstack([cp.vertices, np.zeros((len(cp.vertices), 1)), np.ones((len(cp.vertices), 1))])
    out = np.zeros((len(tris), 3, 3))
    for k, (tri, f) in enumerate(zip(tris, owner, strict=True)):
        m = transforms.get(f, np.eye(4))
        out[k] = (pts[list(tri)] @ m.T)[:, :3]
    return FoldedMesh(out, np.array(owner, dtype=np.int64))


def flat_folded(cp: CreasePattern, state: FoldedState) -> FoldedMesh:
    """The flat-folded state: faces placed by reflection, stacked by the solver's layer order."""
    rank = state.layer_rank()
    tris, owner = _triangulate(cp, state.faces)
    out = np.zeros((len(tris), 3, 3))
    for k, (tri, f) in enumerate(zip(tris, owner, strict=True)):
        m = state.transforms[f]
        xy = cp.vertices[list(tri)] @ m[:, :2].T + m[:, 2]
        out[k, :, :2] = xy
        # A reflected face keeps its vertex order, so its normal (the front side) points down: as it should.
        out[k, :, 2] = rank[f] * LAYER_GAP
    return FoldedMesh(out, np.array(owner, dtype=np.int64))
