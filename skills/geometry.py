"""Stud-lattice reasoning between perceived bricks: where a placement lands, and where a brick sits.

A support's frame is canonical: +x along its long side in the direction of its perceived yaw
(in [0, 180) degrees; [0, 90) for square parts), +y along its short side, origin at the top-face
centre. Stud (i, j) of the support is the i-th along x and j-th along y, counted from the corner at
(-x, -y). A placement (stud_x, stud_y, rotation) puts the placed brick's footprint corner over stud
(stud_x, stud_y), the brick turned `rotation` quarter turns from the support's +x.

Perceived poses carry millimetre errors; when the workspace's build-area lattice is calibrated, the
support's pose is first snapped to it (as a real cell would fit a known build plate), which makes
placements exact whenever the support really sits on the lattice.
"""

from __future__ import annotations

import math

from jarvis_sim.lego import units as u
from jarvis_sim.tasks.spec import Workspace
from skills.types import BrickDescriptor, Pose

PLATE_MM = u.PLATE_HEIGHT_M * 1000
PITCH_MM = u.STUD_PITCH_M * 1000
SNAP_YAW_DEG = 12.0
SNAP_DIST_MM = 3.0


def height_mm(kind: str) -> float:
    """Body height of a 'brick' or 'plate' in mm."""
    return PLATE_MM * (u.BRICK_PLATES if kind == "brick" else 1)


def height_kind(desc: BrickDescriptor) -> str:
    """'brick' or 'plate'; a height the camera could not tell (on the structure) is taken as a brick."""
    return desc.height if desc.height != "unknown" else "brick"


def snap_to_lattice(desc: BrickDescriptor, ws: Workspace) -> BrickDescriptor:
    """The descriptor with its centre, yaw and top height moved onto the calibrated lattice, if close."""
    yaw = desc.yaw_deg % 180.0
    quarter = round(yaw / 90.0) % 2
    if abs(yaw - 90.0 * round(yaw / 90.0)) > SNAP_YAW_DEG:
        return desc
    if desc.size[0] == desc.size[1]:
        quarter = 0  # a square's frame is defined modulo 90 degrees: keep it world-aligned
    ex, ey = (desc.size[0], desc.size[1]) if quarter == 0 else (desc.size[1], desc.size[0])
    ox, oy, oz = (c * 1000 for c in ws.lattice_origin)
    corner_x = round((desc.x_mm - ox) / PITCH_MM - ex / 2)
    corner_y = round((desc.y_mm - oy) / PITCH_MM - ey / 2)
    cx = ox + (corner_x + ex / 2) * PITCH_MM
    cy = oy + (corner_y + ey / 2) * PITCH_MM
    if math.hypot(cx - desc.x_mm, cy - desc.y_mm) > SNAP_DIST_MM:
        return desc
    level = round((desc.top_z_mm - oz) / PLATE_MM)
    return desc.model_copy(
        update={"x_mm": round(cx, 3), "y_mm": round(cy, 3), "yaw_deg": 90.0 * quarter,
                "top_z_mm": round(oz + level * PLATE_MM, 3)}
    )


def ground_placement_pose(ws: Workspace, placed_size: tuple[int, int], placed_height: str,
                          stud_x: int, stud_y: int, rotation: int) -> Pose:
    """World pose of a brick placed directly on level 0 (table or baseplate) at lattice cell (stud_x, stud_y)."""
    ox, oy, oz = (c * 1000 for c in ws.lattice_origin)
    lx, ly = placed_size if rotation % 2 == 0 else (placed_size[1], placed_size[0])
    return Pose(
        x_mm=round(ox + (stud_x + lx / 2) * PITCH_MM, 3),
        y_mm=round(oy + (stud_y + ly / 2) * PITCH_MM, 3),
        z_mm=round(oz + height_mm(placed_height), 3),
        yaw_deg=90.0 * (rotation % 4),
    )


def placement_pose(support: BrickDescriptor, placed_size: tuple[int, int], placed_height: str,
                   stud_x: int, stud_y: int, rotation: int) -> Pose:
    """World pose (top-face centre, yaw) of a brick placed on a support at a stud offset."""
    long_n, short_n = support.size
    lx, ly = placed_size if rotation % 2 == 0 else (placed_size[1], placed_size[0])
    local_x = (stud_x + lx / 2) * PITCH_MM - long_n * PITCH_MM / 2
    local_y = (stud_y + ly / 2) * PITCH_MM - short_n * PITCH_MM / 2
    yaw = math.radians(support.yaw_deg)
    c, s = math.cos(yaw), math.sin(yaw)
    x = support.x_mm + c * local_x - s * local_y
    y = support.y_mm + s * local_x + c * local_y
    return Pose(
        x_mm=round(x, 3),
        y_mm=round(y, 3),
        z_mm=round(support.top_z_mm + height_mm(placed_height), 3),
        yaw_deg=round((support.yaw_deg + 90.0 * rotation) % 360.0, 3),
    )


def relative_placement(brick: BrickDescriptor, support: BrickDescriptor) -> tuple[int, int, int, int]:
    """(stud_x, stud_y, rotation, level difference in plates) of a brick relative to a support."""
    yaw = math.radians(support.yaw_deg)
    c, s = math.cos(yaw), math.sin(yaw)
    dx, dy = brick.x_mm - support.x_mm, brick.y_mm - support.y_mm
    local_x, local_y = c * dx + s * dy, -s * dx + c * dy
    rel_yaw = (brick.yaw_deg - support.yaw_deg) % 180.0
    rotation = round(rel_yaw / 90.0) % 2
    lx, ly = brick.size if rotation == 0 else (brick.size[1], brick.size[0])
    stud_x = round((local_x + support.size[0] * PITCH_MM / 2) / PITCH_MM - lx / 2)
    stud_y = round((local_y + support.size[1] * PITCH_MM / 2) / PITCH_MM - ly / 2)
    bottom = brick.top_z_mm - (height_mm(brick.height) if brick.height != "unknown" else PLATE_MM * u.BRICK_PLATES)
    levels = round((bottom - support.top_z_mm) / PLATE_MM)
    return stud_x, stud_y, rotation, levels
