"""Flat-foldability: local vertex rules (Maekawa, Kawasaki, big-little-big) and the global layer order.

The global check follows the approach of Jason Ku's thesis and Flat-Folder: place every face in the
flat-folded state by reflection across creases, overlay the folded faces, and ask a SAT solver for an
above/below relation on overlapping face pairs that obeys the crease assignments, taco-taco,
taco-tortilla and transitivity constraints. UNSAT means no layer order exists; the unsatisfiable core
names the creases involved.

The layer problem grows with the cube of the faces stacked in one place (a 20x20 accordion grid folds
400 faces onto one square: 10^7 transitivity triples). `CheckLimits` is the budget (120 s, 2 GiB by
default, jarvis_sim.origami.check_budget): the clause count is estimated before any clause is built and
refused past what the memory budget holds, clauses are streamed into the solver (jarvis_sim.origami.layer_cnf),
and the clock stops building and solving; past either the verdict is *undecided* (`decided` False, with the
reason) instead of a guess or a hang.
"""

from __future__ import annotations

import itertools
import math
import time
from collections import deque
from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
from numpy.typing import NDArray
from pysat.solvers import Solver

from jarvis_sim.origami import affine2d as A
from jarvis_sim.origami.check_budget import SAT_SOLVER, CheckLimits, _Clock, _Undecided
from jarvis_sim.origami.fold_format import CREASES, CreasePattern
from jarvis_sim.origami.layer_cnf import LayerCnf, cell_pairs, stack_sizes
from jarvis_sim.origami.planar import arrange, faces_ccw, inside_convex, interior_point, polygon_area
from jarvis_sim.origami.verdict import FoldedState, Verdict, Violation

ANGLE_TOL = 1e-6  # radians
FOLDED_TOL = 1e-7  # lengths in the folded plane, for a sheet of unit size with exact coordinates
# A segment of length L whose ends are each off by up to d points up to 2*sqrt(2)*d/L radians astray.
ANGLE_NOISE_PER_LENGTH = 3.0
# Folded images of one point, reached by reflecting across creases known to +-d, agree to about
# FOLD_NOISE_FACTOR * d / L_min (the shortest edge sets the worst crease direction) on a unit sheet.
FOLD_NOISE_FACTOR = 4.0
# Going round a cycle of faces sums the direction errors of every crease on it: the placement of a face
# reached two ways may disagree by a few merge tolerances before that means a Kawasaki failure.
CLOSURE_FACTOR = 4.0
# Past this fraction of the shortest edge the merge tolerance would join distinct points: undecided.
MAX_FOLD_TOL_OF_EDGE = 1.0 / 4.0


def _boundary_vertices(cp: CreasePattern) -> set[int]:
    return {v for e, a in zip(cp.edges, cp.assignments, strict=True) if a in ("B", "C") for v in e}


def local_violations(cp: CreasePattern, noise: float = 0.0) -> list[Violation]:
    """Maekawa, Kawasaki and big-little-big at every interior vertex.

    `noise` is the coordinate uncertainty (in cp's units): a crease of length L may then point up to
    about 3 noise / L radians off the direction its author meant, and every angle comparison at a
    vertex allows the sum of its creases' share (never less than the exact-arithmetic ANGLE_TOL).
    """
    out: list[Violation] = []
    boundary = _boundary_vertices(cp)
    incident: dict[int, list[int]] = {}
    for i, ((a, b), asg) in enumerate(zip(cp.edges, cp.assignments, strict=True)):
        if asg in CREASES:
            incident.setdefault(a, []).append(i)
            incident.setdefault(b, []).append(i)
    for v in sorted(incident):
        if v in boundary:
            continue
        es = incident[v]
        dirs = np.array([cp.vertices[cp.edges[e][1] if cp.edges[e][0] == v else cp.edges[e][0]] - cp.vertices[v] for e in es])
        ang = A.angles(dirs)
        order = np.argsort(ang, kind="stable")
        es = [es[k] for k in order]
        ang = ang[order]
        # How far off each crease's direction may be, given the coordinates' uncertainty.
        slack = (ANGLE_NOISE_PER_LENGTH * noise / A.norm(dirs[order])).tolist() if noise > 0 else [0.0] * len(es)
        sectors = np.diff(np.concatenate([ang, [ang[0] + 2 * math.pi]]))
        kinds = [cp.assignments[e] for e in es]
        n_m, n_v = kinds.count("M"), kinds.count("V")
        if "U" not in kinds and abs(n_m - n_v) != 2:
            out.append(Violation("maekawa", f"vertex {v}: {n_m} mountain and {n_v} valley creases (|M-V| must be 2)",
                                 (v,), tuple(es)))
        if len(es) % 2:
            out.append(Violation("kawasaki", f"vertex {v}: odd number of creases ({len(es)})", (v,), tuple(es)))
        else:
            alt = A.fsum(sectors[0::2]) - A.fsum(sectors[1::2])
            # Each direction enters the alternating sum twice (it bounds two sectors).
            tol = max(ANGLE_TOL * len(es), 2.0 * math.fsum(slack))
            if abs(alt) > tol:
                why = f" (the file's precision allows {math.degrees(tol):.4f})" if tol > ANGLE_TOL * len(es) else ""
                out.append(Violation("kawasaki", f"vertex {v}: alternating angle sums differ by {math.degrees(alt):.4f} "
                                                 f"deg{why}", (v,), tuple(es)))
        k = len(es)
        if k >= 4 and "U" not in kinds:
            for i in range(k):
                prev, cur, nxt = sectors[i - 1], sectors[i], sectors[(i + 1) % k]
                # Sector i lies between creases i and i+1; comparing it with a neighbour moves three directions.
                s_prev = max(ANGLE_TOL, slack[i - 1] + 2 * slack[i] + slack[(i + 1) % k])
                s_next = max(ANGLE_TOL, slack[i] + 2 * slack[(i + 1) % k] + slack[(i + 2) % k])
                # A sector strictly smaller than both neighbours must be bounded by one M and one V crease.
                if cur < prev - s_prev and cur < nxt - s_next and kinds[i] == kinds[(i + 1) % k]:
                    out.append(Violation(
                        "big-little-big",
                        f"vertex {v}: smallest local sector {math.degrees(cur):.2f} deg bounded by two {kinds[i]} creases",
                        (v,), (es[i], es[(i + 1) % k])))
    return out


def check(cp: CreasePattern, global_check: bool = True, limits: CheckLimits | None = None,
          progress: Callable[[str], None] | None = None, noise: float | None = None) -> Verdict:
    """Verify a crease pattern; the global layer-order check runs only when the local rules hold.

    `limits` bound the global check (default CheckLimits()); `progress` receives a line per stage.
    `noise` is the coordinates' uncertainty in the file's units (default: what the file's numbers
    imply, cp.coordinate_noise; 0: check them as exact). A pattern is first checked as written; only
    when that fails is it checked again with every tolerance widened to the noise, so rounding by
    the tool that wrote the file cannot make a foldable design read as unfoldable, and an exact file
    keeps its exact verdict (a short decimal such as 0.45 may be exact or rounded: the digits alone
    cannot tell).
    """
    if any(a in ("C", "J") for a in cp.assignments):
        v = Violation("unsupported", "cut (C) and join (J) edges are not supported by the layer solver")
        return Verdict(False, [v], False, False)
    given = cp.coordinate_noise if noise is None else float(noise)
    if not (math.isfinite(given) and given >= 0):
        raise ValueError(f"coordinate noise must be a finite number >= 0, got {given!r}")
    source = cp.noise_source if noise is None else "given"
    limits = limits or CheckLimits()
    if limits.started is None:  # one clock for the whole check, both passes
        limits = replace(limits, started=time.perf_counter())
    sheet, origin, scale = _unit_sheet(cp)
    as_written = _check_sheet(sheet, 0.0, global_check, limits, progress)
    # Unfoldable as written, or undecided by size (unmerged near-duplicates of noisy points inflate the
    # problem): check again within the file's precision, on what is left of the same clock.
    if as_written.foldable or given == 0 or as_written.undecided_reason.startswith("time limit"):
        verdict = as_written
    else:
        if progress is not None:
            written = ", ".join(as_written.rules) if as_written.decided else "undecided"
            progress(f"as written, exactly: {written}; checking again within the file's precision "
                     f"(+-{given:.3g}, {source})")
        verdict = _check_sheet(sheet, given / scale, global_check, limits, progress)
        verdict.as_written = as_written.rules if as_written.decided else ["undecided"]
        if not verdict.decided and not verdict.undecided_reason.startswith("time limit"):
            exact = (f"it breaks {', '.join(as_written.rules)}" if as_written.decided
                     else f"undecided too ({as_written.undecided_reason})")
            verdict.undecided_reason = (f"undecided: the coordinates are only known to +-{given:.3g} ({source}), and "
                                        f"within that precision: {verdict.undecided_reason}. Checked exactly as "
                                        f"written, {exact}")
    tol = _tolerances(sheet, given / scale) if verdict is not as_written else FOLDED_TOL
    verdict.tolerance = {"coordinate_noise": given, "noise_source": source, "fold_tolerance": tol * scale,
                         "widened": verdict is not as_written}
    if verdict.state is not None and (scale != 1.0 or origin.any()):
        verdict.state.transforms = [_from_unit_sheet(m, origin, scale) for m in verdict.state.transforms]
    return verdict


def _check_sheet(sheet: CreasePattern, unit_noise: float, global_check: bool, limits: CheckLimits | None,
                 progress: Callable[[str], None] | None) -> Verdict:
    """check() on a unit sheet whose coordinates are known to +-unit_noise."""
    local = local_violations(sheet, unit_noise)
    if local or not global_check:
        return Verdict(not local, local, not local, False)
    tolerance = _tolerances(sheet, unit_noise)
    shortest = _shortest_edge(sheet)
    if tolerance > MAX_FOLD_TOL_OF_EDGE * shortest:
        return Verdict(False, [], True, False, decided=False, undecided_reason=(
            f"too coarse to place the folded faces of a pattern whose shortest edge is {shortest:.3g} of the sheet "
            "(give a smaller noise to check it as written)"))
    try:
        return solve_layers(sheet, limits, progress, tolerance)
    except _Undecided as exc:
        return Verdict(False, [], True, False, decided=False, undecided_reason=str(exc))


def _unit_sheet(cp: CreasePattern) -> tuple[CreasePattern, NDArray[np.float64], float]:
    """cp moved and scaled so its bounding box starts at 0 and its larger side is 1 (tolerances are for that).

    A pattern already on the unit square comes back as it is, bit for bit.
    """
    if len(cp.vertices) == 0:
        return cp, np.zeros(2), 1.0
    origin = cp.vertices.min(axis=0)
    scale = float(np.ptp(cp.vertices, axis=0).max()) or 1.0
    if scale == 1.0 and not origin.any():
        return cp, origin, scale
    return replace(cp, vertices=(cp.vertices - origin) / scale), origin, scale


def _from_unit_sheet(m: NDArray[np.float64], origin: NDArray[np.float64], scale: float) -> NDArray[np.float64]:
    """A face's 2x3 map on the unit sheet as the same map in the file's coordinates: x -> s m((x - o) / s) + o."""
    lin = m[:, :2]
    return np.hstack([lin, (scale * m[:, 2] + origin - A.linear(lin, origin))[:, None]])


def _shortest_edge(cp: CreasePattern) -> float:
    e = np.array(cp.edges).reshape(-1, 2)
    return float(A.norm(cp.vertices[e[:, 1]] - cp.vertices[e[:, 0]]).min()) if len(e) else 1.0


def _tolerances(sheet: CreasePattern, unit_noise: float) -> float:
    """The merge tolerance in the folded plane of a unit sheet whose coordinates are known to +-unit_noise."""
    if unit_noise <= 0:
        return FOLDED_TOL
    return max(FOLDED_TOL, FOLD_NOISE_FACTOR * unit_noise / _shortest_edge(sheet))


def _fold_faces(cp: CreasePattern) -> tuple[list[tuple[int, ...]], dict[tuple[int, int], int]]:
    """Faces bounded by B and crease edges (flat F edges dissolved), and the edge index of each side."""
    keep = [i for i, a in enumerate(cp.assignments) if a != "F"]
    edge_id = {(min(a, b), max(a, b)): i for i, (a, b) in enumerate(cp.edges)}
    if len(keep) == len(cp.edges) and cp.faces:
        faces = [tuple(f) for f in cp.faces]
    else:
        faces = [tuple(f) for f in faces_ccw(cp.vertices, [cp.edges[i] for i in keep])]
    return faces, edge_id


def _reflection(p: NDArray[np.float64], q: NDArray[np.float64]) -> NDArray[np.float64]:
    """2x3 affine reflection across the line through p and q."""
    d = A.unit(q - p)
    r = 2 * np.outer(d, d) - np.eye(2)
    return np.hstack([r, (p - A.linear(r, p))[:, None]])


def _compose(a: NDArray[np.float64], b: NDArray[np.float64]) -> NDArray[np.float64]:
    """a after b, for 2x3 affine maps."""
    return A.compose(a, b)


def folded_state(cp: CreasePattern, atol: float = 1e-6, tick: Callable[[], None] | None = None
                 ) -> tuple[FoldedState, list[Violation], dict[int, tuple[int, int]]]:
    """Place faces by reflecting across creases from face 0; cycles that disagree by more than atol are violations.

    `tick` is called every thousand faces or creases; it may raise to stop the work (a time limit).
    """
    faces, edge_id = _fold_faces(cp)
    face_edges: list[tuple[int, ...]] = []
    sides: dict[int, list[int]] = {}
    for f, cyc in enumerate(faces):
        es = []
        for a, b in zip(cyc, cyc[1:] + cyc[:1], strict=True):
            e = edge_id[(min(a, b), max(a, b))]
            es.append(e)
            sides.setdefault(e, []).append(f)
        face_edges.append(tuple(es))
    crease_faces = {e: (fs[0], fs[1]) for e, fs in sides.items() if len(fs) == 2 and cp.assignments[e] in CREASES}
    transforms: list[NDArray[np.float64] | None] = [None] * len(faces)
    if not faces:
        return FoldedState([], [], [], []), [], {}
    transforms[0] = np.hstack([np.eye(2), np.zeros((2, 1))])
    queue = deque([0])
    adj: dict[int, list[tuple[int, int]]] = {}
    for e, (f, g) in crease_faces.items():
        adj.setdefault(f, []).append((e, g))
        adj.setdefault(g, []).append((e, f))
    while queue:
        f = queue.popleft()
        if tick is not None and f % 1024 == 0:
            tick()
        tf = transforms[f]
        assert tf is not None
        for e, g in adj.get(f, []):
            if transforms[g] is None:
                a, b = cp.edges[e]
                pa, pb = A.apply(tf, cp.vertices[a]), A.apply(tf, cp.vertices[b])
                transforms[g] = _compose(_reflection(pa, pb), tf)
                queue.append(g)
    problems: list[Violation] = []
    done = [t if t is not None else np.full((2, 3), np.nan) for t in transforms]
    for e, (f, g) in sorted(crease_faces.items()):
        if tick is not None and e % 1024 == 0:
            tick()
        a, b = cp.edges[e]
        pa, pb = A.apply(done[f], cp.vertices[a]), A.apply(done[f], cp.vertices[b])
        expect = _compose(_reflection(pa, pb), done[f])
        if not np.allclose(expect, done[g], atol=atol):
            problems.append(Violation("kawasaki-global", f"crease {e}: faces {f} and {g} do not meet after folding",
                                      tuple(cp.edges[e]), (e,)))
    flipped = [A.det(t) < 0 for t in done]
    return FoldedState(faces, face_edges, done, flipped, {}, crease_faces), problems, crease_faces


def solve_layers(cp: CreasePattern, limits: CheckLimits | None = None,
                 progress: Callable[[str], None] | None = None, tol: float = FOLDED_TOL) -> Verdict:
    """Global flat-foldability: find a layer order or report the creases whose constraints conflict.

    `tol` is the distance at which two points of the folded plane are one (FOLDED_TOL for exact
    coordinates on a unit sheet; check() widens it to the file's precision). Raises _Undecided past
    `limits` (check() turns that into an undecided verdict).
    """
    clock = _Clock(limits or CheckLimits(), progress)
    noisy = tol > FOLDED_TOL
    clock.say(f"placing {len(cp.edges)} edges' faces in the folded state"
              + (f" (merging points closer than {tol:.2g} of the sheet)" if noisy else ""))
    state, problems, crease_faces = folded_state(cp, atol=max(1e-6, CLOSURE_FACTOR * tol),
                                                 tick=lambda: clock.tick("placing the faces in the folded state"))
    if problems:
        return Verdict(False, problems, True, True, None)
    n_faces = len(state.faces)
    polys = [state.folded_polygon(cp, f) for f in range(n_faces)]
    for p in polys:
        if polygon_area(p) < 0:
            p[:] = p[::-1]
    seg_of = edge_images(cp, state, lambda: clock.tick("placing the edges in the folded state"))
    keys = list(seg_of)
    clock.say(f"overlaying {n_faces} folded faces ({len(keys)} distinct edge images)")
    arr = arrange(np.array(keys, dtype=float).reshape(-1, 2, 2), tol=tol, parallel_tol=tol if noisy else None,
                  tick=lambda: clock.tick("overlaying the folded faces"))
    cells = faces_ccw(arr.vertices, arr.edges, tick=lambda: clock.tick("tracing the overlap cells"))
    samples = np.array([interior_point(arr.vertices[c], 4 * tol if noisy else 0.0) for c in cells]).reshape(-1, 2)
    mids = np.array([(arr.vertices[a] + arr.vertices[b]) / 2 for a, b in arr.edges]).reshape(-1, 2)
    cell_faces: list[list[int]] = [[] for _ in cells]
    mid_inside: list[list[int]] = [[] for _ in arr.edges]
    def over_cells() -> None:
        clock.tick("finding the faces over each overlap cell")

    for f, p in enumerate(polys):
        over_cells()
        for ci in np.nonzero(inside_convex(p, samples, 0.0, over_cells))[0].tolist():
            cell_faces[ci].append(f)
        # A crease image counts as inside a face (a tortilla) only clearly so: on a noisy sheet, edges lying on
        # the face's boundary stray about one tolerance; any wider margin would miss real taco-tortilla pairs.
        for ki in np.nonzero(inside_convex(p, mids, max(1e-6, 2 * tol), over_cells))[0].tolist():
            mid_inside[ki].append(f)
    # Size the problem before building it: pairs and triples of faces sharing a cell.
    stacks = sorted({tuple(sorted(fs)) for fs in cell_faces})
    n_pairs, n_triples = stack_sizes(stacks)  # triples shared by two stacks counted twice: an upper bound
    estimate = n_pairs + 2 * n_triples
    max_stack = max((len(k) for k in stacks), default=0)
    limit = clock.limits.clause_limit
    if estimate > limit:
        raise _Undecided(f"the layer problem is too large: {max_stack} faces stack in one place, about "
                         f"{estimate:,} clauses ({clock.limits.budget_text()})")
    clock.say(f"{len(cells)} overlap cells, up to {max_stack} faces deep: about {estimate:,} clauses")
    cnf = LayerCnf()
    for k, (f, g) in enumerate(cell_pairs(cell_faces)):
        if k % 65536 == 0:
            clock.tick("numbering the overlapping face pairs")
        cnf.pair(f, g)
    # Crease constraints: the assignment fixes which of the two faces lies above.
    for e, (f, g) in sorted(crease_faces.items()):
        asg = cp.assignments[e]
        if asg == "U":
            continue
        g_above = (asg == "V") != state.flipped[f]
        sel = cnf.group("crease-assignment", (e,))
        cnf.add("crease", [-sel, cnf.pair(g, f) if g_above else cnf.pair(f, g)])
    taco_taco, taco_tortilla = _tacos(cp, state, crease_faces, arr, seg_of, keys, mid_inside, clock)
    if estimate + cnf.small_count() + 8 * len(taco_taco) + 2 * len(taco_tortilla) > limit:
        raise _Undecided(f"the layer problem is too large: {len(taco_taco):,} taco-taco and {len(taco_tortilla):,} "
                         f"taco-tortilla pairs ({clock.limits.budget_text()})")
    for e1, e2 in sorted(taco_taco):
        (a, b), (c, d) = crease_faces[e1], crease_faces[e2]
        lits = [cnf.pair(a, c), cnf.pair(b, c), cnf.pair(a, d), cnf.pair(b, d)]
        sel = cnf.group("taco-taco", (e1, e2))
        # (a>c xor b>c) == (a>d xor b>d): forbid every odd-parity assignment of the four literals.
        for signs in itertools.product((1, -1), repeat=4):
            if signs.count(-1) % 2 == 1:
                cnf.add("taco-taco", [-sel, *[-s * lit for s, lit in zip(signs, lits, strict=True)]])
    for e, c in sorted(taco_tortilla):
        a, b = crease_faces[e]
        x, y = cnf.pair(a, c), cnf.pair(b, c)
        sel = cnf.group("taco-tortilla", (e,))
        cnf.add("taco-tortilla", [-sel, -x, y])
        cnf.add("taco-tortilla", [-sel, x, -y])
    _maekawa_for_unassigned(cp, state, crease_faces, cnf)
    with Solver(name=SAT_SOLVER) as solver:
        clock.say("adding the clauses to the solver, transitivity among faces sharing a cell streamed")
        count, groups = cnf.stream(solver, stacks, ("crease", "transitivity", "taco-taco", "taco-tortilla",
                                                    "maekawa"), clock.tick)
        stats = {"faces": n_faces, "cells": len(cells), "variables": len(cnf.var), "clauses": count,
                 "taco_taco": len(taco_taco), "taco_tortilla": len(taco_tortilla), "transitivity": cnf.triples}
        clock.say(f"solving {count:,} clauses over {cnf.top + len(groups):,} variables")
        found, lits = clock.solve(solver, sorted(groups))
    if found:
        model = set(x for x in lits if x > 0)
        state.above = {key: v in model for key, v in cnf.var.items()}
        return Verdict(True, [], True, True, state, stats)
    by_rule: dict[str, set[int]] = {}
    for sel in sorted(lits):
        rule, edges = groups[sel]
        by_rule.setdefault(rule, set()).update(edges)
    edges_all = sorted({e for es in by_rule.values() for e in es})
    msg = "no layer order exists; conflicting constraints: " + ", ".join(
        f"{r} on creases {sorted(es)}" for r, es in sorted(by_rule.items()))
    verts = tuple(sorted({v for e in edges_all for v in cp.edges[e]}))
    return Verdict(False, [Violation("layer-order", msg, verts, tuple(edges_all))], True, True, None, stats)


def edge_images(cp: CreasePattern, state: FoldedState,
                tick: Callable[[], None] | None = None) -> dict[tuple[float, ...], list[int]]:
    """The overlay's input: every sheet edge placed in the folded plane, coincident images merged before splitting.

    Keyed by the image's ends (x0, y0, x1, y1), rounded to 1e-9 and ordered; the value lists the edges placed there.
    """
    seg_of: dict[tuple[float, ...], dict[int, None]] = {}  # dicts as ordered sets: a stack of faces shares images
    for f in range(len(state.faces)):
        if tick is not None and f % 1024 == 0:
            tick()
        m = state.transforms[f]
        for e in state.face_edges[f]:
            a, b = cp.edges[e]
            pa, pb = A.apply(m, cp.vertices[a]), A.apply(m, cp.vertices[b])
            key = tuple(np.round(np.concatenate([pa, pb]) if tuple(pa) <= tuple(pb) else np.concatenate([pb, pa]), 9))
            seg_of.setdefault(key, {})[e] = None
    return {key: list(edges) for key, edges in seg_of.items()}


def _tacos(cp: CreasePattern, state: FoldedState, crease_faces: dict[int, tuple[int, int]], arr: Any,
           seg_of: dict[tuple[float, ...], list[int]], keys: list[tuple[float, ...]], mid_inside: list[list[int]],
           clock: _Clock) -> tuple[set[tuple[int, int]], set[tuple[int, int]]]:
    """Creases whose folded images share a piece of line (taco-taco), and creases inside a face (taco-tortilla)."""
    side: dict[int, float] = {}
    taco_taco: set[tuple[int, int]] = set()
    taco_tortilla: set[tuple[int, int]] = set()
    for k, labels in enumerate(arr.edge_labels):
        if k % 256 == 0:
            clock.tick("finding tacos")
        creases = sorted({e for lab in labels for e in seg_of[keys[lab]] if e in crease_faces})
        for e in creases:
            if e not in side:
                side[e] = _side(cp, state, e, crease_faces[e][0])
        for e1, e2 in itertools.combinations(creases, 2):
            if side[e1] == side[e2] and not set(crease_faces[e1]) & set(crease_faces[e2]):
                taco_taco.add((e1, e2))
        for e in creases:
            clock.tick("finding tacos")  # one edge image may carry many creases over many faces
            for c in mid_inside[k]:
                if c not in crease_faces[e]:
                    taco_tortilla.add((e, c))
    return taco_taco, taco_tortilla


def _maekawa_for_unassigned(cp: CreasePattern, state: FoldedState, crease_faces: dict[int, tuple[int, int]],
                            cnf: LayerCnf) -> None:
    """Maekawa as cardinality constraints at vertices with unassigned creases.

    Taco constraints alone do not force a closed winding around a vertex, so an assignment read off
    the layer order of U creases needs |M - V| = 2 imposed explicitly.
    """
    boundary = _boundary_vertices(cp)
    around: dict[int, list[int]] = {}
    for e in crease_faces:
        for v in cp.edges[e]:
            around.setdefault(v, []).append(e)
    valley: dict[int, int] = {}
    for e, (f, g) in crease_faces.items():
        lit = cnf.pair(g, f)  # g above f
        valley[e] = -lit if state.flipped[f] else lit
    for v in sorted(around):
        es = around[v]
        if v in boundary or not any(cp.assignments[e] == "U" for e in es) or len(es) % 2:
            continue
        cnf.top += 1
        choice = cnf.top
        for want, guard in ((len(es) // 2 + 1, -choice), (len(es) // 2 - 1, choice)):
            cnf.cardinality_equals([valley[e] for e in es], want, guard)


def _side(cp: CreasePattern, state: FoldedState, e: int, f: int) -> float:
    """Which side of the folded crease line face f lies on (+1 or -1)."""
    a, b = cp.edges[e]
    m = state.transforms[f]
    pa, pb = A.apply(m, cp.vertices[a]), A.apply(m, cp.vertices[b])
    c = state.folded_polygon(cp, f).mean(axis=0)
    d = pb - pa
    # Orient the line canonically so the sign does not depend on the edge's stored direction.
    if d[0] < -1e-9 or (abs(d[0]) <= 1e-9 and d[1] < 0):
        d = -d
    return 1.0 if d[0] * (c - pa)[1] - d[1] * (c - pa)[0] > 0 else -1.0
