"""Where a task's structure and loose action bricks lie on the table.

The robot base is the world origin. The structure is centred at STRUCTURE_CENTER (in front of the
robot, slightly to its right); the loose bricks lie right side up in a staging area on the +y side,
packed in rows with at least MIN_GAP_M between neighbouring bricks so the open gripper fingers fit
between them, every brick within the Panda's comfortable top-down reach.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from jarvis_sim.lego import units as u
from jarvis_sim.lego.assembly import Assembly, LatticeBrick
from jarvis_sim.tasks.spec import TablePose, Workspace

STRUCTURE_CENTER = (0.50, -0.12)
MIN_GAP_M = 0.03
STRUCTURE_CLEARANCE_M = 0.05  # between the structure's footprint and the staging area
REACH_MIN_M = 0.25
REACH_COMFORT_M = 0.68  # top-down grasps at table height get awkward beyond ~0.7 m (finger links meet the table)
REACH_MAX_M = 0.80  # used only when a crowded segment does not fit within the comfortable reach
# Staging areas tried in order; the larger ones only serve long segments with many loose bricks.
STAGING_AREAS: tuple[tuple[tuple[float, float], tuple[float, float]], ...] = (
    ((0.30, 0.18), (0.62, 0.42)),
    ((0.24, 0.12), (0.68, 0.46)),
    ((0.18, 0.08), (0.70, 0.52)),
)


def _round(v: float) -> float:
    return round(v, 4)  # 0.1 mm: keeps JSON files short and stable


def workspace_for(target: Assembly) -> Workspace:
    """A workspace whose lattice origin puts the target structure's footprint centre at STRUCTURE_CENTER."""
    return workspace_for_bounds(target.footprint_bounds())


def workspace_for_bounds(bounds: tuple[int, int, int, int]) -> Workspace:
    """workspace_for, given the target's (x0, y0, x1, y1) stud bounds."""
    x0, y0, x1, y1 = bounds
    ox = STRUCTURE_CENTER[0] - (x0 + x1) / 2 * u.STUD_PITCH_M
    oy = STRUCTURE_CENTER[1] - (y0 + y1) / 2 * u.STUD_PITCH_M
    return Workspace(lattice_origin=(_round(ox), _round(oy), 0.0))


def out_of_reach(bounds: tuple[int, int, int, int]) -> str | None:
    """Why a structure with these (x0, y0, x1, y1) stud bounds, centred as workspace_for centres it, cannot be
    built (a corner beyond the arm's reach, or its +y edge over the staging area), or None when it can."""
    x0, y0, x1, y1 = bounds
    ws = workspace_for_bounds(bounds)
    ox, oy = ws.lattice_origin[0], ws.lattice_origin[1]
    xs, ys = (ox + x0 * u.STUD_PITCH_M, ox + x1 * u.STUD_PITCH_M), (oy + y0 * u.STUD_PITCH_M, oy + y1 * u.STUD_PITCH_M)
    far = max(math.hypot(x, y) for x in xs for y in ys)
    size = f"{x1 - x0} x {y1 - y0} studs ({(x1 - x0) * 8} x {(y1 - y0) * 8} mm)"
    if far > REACH_MAX_M:
        return (f"its footprint is {size}; centred in front of the robot, its far corner lies {far:.2f} m from the "
                f"robot base, beyond the arm's reach of {REACH_MAX_M:.2f} m")
    edge = STAGING_AREAS[0][0][1] - STRUCTURE_CLEARANCE_M
    if ys[1] > edge:
        return (f"its footprint is {size}; centred in front of the robot, it reaches y = {ys[1]:.2f} m, over the "
                f"staging area where the loose bricks lie (it may reach {edge:.2f} m)")
    return None


def structure_max_y(target: Assembly, workspace: Workspace) -> float:
    """World y of the structure footprint's +y edge."""
    return workspace.lattice_origin[1] + target.footprint_bounds()[3] * u.STUD_PITCH_M


def _size_m(brick: LatticeBrick) -> tuple[float, float]:
    p = brick.spec
    return (p.width * u.STUD_PITCH_M - u.FIT_GAP_M, p.depth * u.STUD_PITCH_M - u.FIT_GAP_M)


def _pack(
    bricks: Sequence[LatticeBrick],
    yaws: Sequence[int],
    extra_gaps: Sequence[float],
    area: tuple[tuple[float, float], tuple[float, float]],
    reach_max: float = REACH_COMFORT_M,
) -> list[TablePose] | None:
    """Shelf packing in rows along x; None when the bricks do not fit the area within reach."""
    (ax0, ay0), (ax1, ay1) = area
    poses: list[TablePose] = []
    cx, row_y, row_h = ax0, ay0, 0.0
    for brick, yaw, extra in zip(bricks, yaws, extra_gaps, strict=True):
        w, d = _size_m(brick)
        sx, sy = (w, d) if yaw % 2 == 0 else (d, w)
        if cx + sx > ax1:  # next row
            cx, row_y, row_h = ax0, row_y + row_h + MIN_GAP_M, 0.0
        if cx + sx > ax1 or row_y + sy > ay1:
            return None
        x, y = cx + sx / 2, row_y + sy / 2
        if not REACH_MIN_M <= math.hypot(x, y) <= reach_max:
            return None
        poses.append(TablePose(x=_round(x), y=_round(y), yaw=_round(yaw * math.pi / 2)))
        cx += sx + MIN_GAP_M + extra
        row_h = max(row_h, sy)
    return poses


def stage_bricks(
    bricks: Sequence[LatticeBrick], workspace: Workspace, target: Assembly, rng: random.Random
) -> tuple[Workspace, list[TablePose]]:
    """Start poses of the loose bricks beside a target structure; see `stage_bricks_clear_of`."""
    max_y = workspace.lattice_origin[1] + target.footprint_bounds()[3] * u.STUD_PITCH_M
    return stage_bricks_clear_of(bricks, workspace, max_y, rng, target.name)


def stage_bricks_clear_of(
    bricks: Sequence[LatticeBrick], workspace: Workspace, structure_max_y: float, rng: random.Random, label: str
) -> tuple[Workspace, list[TablePose]]:
    """Start poses of the loose bricks (in the order given, shuffled into rows) and the workspace
    with the staging area they were packed into.

    Raises ValueError when they do not fit even the largest staging area (name of the structure given).
    """
    order = list(range(len(bricks)))
    rng.shuffle(order)
    yaws = [rng.choice((0, 0, 1)) if bricks[i].spec.width <= 4 else 0 for i in order]
    extra = [rng.uniform(0.0, 0.012) for _ in order]
    keep_clear = structure_max_y + STRUCTURE_CLEARANCE_M
    areas = [a for a in STAGING_AREAS if a[0][1] >= keep_clear]
    # Crowded segments: largest first, long side along x, packs far tighter than the shuffled rows.
    dense = sorted(range(len(bricks)), key=lambda i: (-bricks[i].spec.depth, -bricks[i].spec.width, i))
    attempts = [(order, yaws, extra), (order, yaws, [0.0] * len(order)), (dense, [0] * len(dense), [0.0] * len(dense))]
    for reach in (REACH_COMFORT_M, REACH_MAX_M):  # the full reach only when nothing fits comfortably
        for idx, rot, gaps in attempts:
            for area in areas:
                packed = _pack([bricks[i] for i in idx], rot, gaps, area, reach)
                if packed is not None:
                    out: list[TablePose | None] = [None] * len(bricks)
                    for pose, i in zip(packed, idx, strict=True):
                        out[i] = pose
                    staged = workspace.model_copy(update={"staging_min": area[0], "staging_max": area[1]})
                    return staged, [p for p in out if p is not None]
    raise ValueError(
        f"{len(bricks)} loose bricks of {label!r} do not fit any staging area clear of the structure"
    )
