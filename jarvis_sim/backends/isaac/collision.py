"""What-if collision queries for Backend.collisions(q): the Panda as spheres placed by its kinematics, bricks and
slabs as oriented boxes from ground truth. Pure numpy (the Isaac backend answers without moving the articulation).

The sphere radii cover the Franka's collision meshes with a few millimetres to spare (like cuMotion's sphere
sets, coarser); the fingers are thin spheres ending at the finger tips, 10 mm below the TCP, at the commanded
opening. A held brick moves with the TCP and is checked as a box against the other bricks (sampled by spheres).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from jarvis_sim.backends.isaac.kinematics import link_frames, quat_to_matrix

# (frame index in link_frames: 0..6 joints, 7 flange, 8 TCP; local centre m; radius m; name)
ARM_SPHERES: tuple[tuple[int, tuple[float, float, float], float, str], ...] = (
    (0, (0.0, 0.0, -0.12), 0.08, "panda_link1"),
    (1, (0.0, -0.08, 0.0), 0.07, "panda_link2"),
    (2, (0.0, 0.0, -0.10), 0.07, "panda_link3"),
    (3, (0.0, 0.0, 0.0), 0.07, "panda_link4"),
    (4, (0.0, 0.08, -0.12), 0.06, "panda_link5"),
    (4, (0.0, 0.0, -0.22), 0.06, "panda_link5"),
    (5, (0.0, 0.0, 0.0), 0.06, "panda_link6"),
    (6, (0.0, 0.0, 0.05), 0.05, "panda_link7"),
    (8, (0.0, 0.0, -0.065), 0.035, "panda_hand"),
    (8, (0.0, 0.06, -0.065), 0.03, "panda_hand"),
    (8, (0.0, -0.06, -0.065), 0.03, "panda_hand"),
)
FINGER_RADIUS_M = 0.009
FINGER_TIP_BELOW_TCP_M = 0.010
CONTACT_MARGIN_M = 0.001  # surfaces this close count as touching (MuJoCo's contact query reports them too)


@dataclass(frozen=True)
class Box:
    """An obstacle: name, centre, rotation (3x3), half extents."""

    name: str
    centre: np.ndarray
    rotation: np.ndarray
    half: np.ndarray


def box_from_pose(name: str, bottom_centre: tuple[float, float, float], quaternion: tuple[float, float, float, float],
                  size_m: tuple[float, float, float]) -> Box:
    """A brick's box from its protocol pose (bottom-face centre, wxyz) and full extents."""
    rot = quat_to_matrix(np.asarray(quaternion))
    half = np.asarray(size_m, dtype=float) / 2
    return Box(name, np.asarray(bottom_centre, dtype=float) + rot @ np.array([0.0, 0.0, half[2]]), rot, half)


def sphere_hits_box(centre: np.ndarray, radius: float, box: Box, margin: float = CONTACT_MARGIN_M) -> bool:
    """Does a sphere come within `margin` of an oriented box?"""
    local = box.rotation.T @ (centre - box.centre)
    nearest = np.clip(local, -box.half, box.half)
    return float(np.sum((local - nearest) ** 2)) < (radius + margin) ** 2


def robot_spheres(q: np.ndarray, gripper_width_m: float, base: np.ndarray | None = None) -> list[tuple[np.ndarray, float, str]]:
    """World spheres (centre, radius, part name) of the arm, the hand and the two fingers at joint angles q."""
    frames = link_frames(q, base)
    out = [(frames[i][:3, :3] @ np.asarray(c) + frames[i][:3, 3], r, name) for i, c, r, name in ARM_SPHERES]
    tcp = frames[8]
    half = max(gripper_width_m / 2, 0.0) + FINGER_RADIUS_M
    for side, name in ((1.0, "panda_leftfinger"), (-1.0, "panda_rightfinger")):
        for z in (-0.035, -0.018, FINGER_TIP_BELOW_TCP_M - FINGER_RADIUS_M):
            out.append((tcp[:3, :3] @ np.array([0.0, side * half, z]) + tcp[:3, 3], FINGER_RADIUS_M, name))
    return out


def box_samples(box: Box, spacing_m: float = 0.008) -> list[tuple[np.ndarray, float]]:
    """Spheres filling a box (a held brick against the scene), radius covering the gaps between them."""
    n = np.maximum(1, np.ceil(2 * box.half / spacing_m)).astype(int)
    axes = [np.linspace(-h + h / k, h - h / k, k) for h, k in zip(box.half, n, strict=True)]
    radius = float(np.linalg.norm(box.half / n))
    return [(box.centre + box.rotation @ np.array([x, y, z]), radius) for x in axes[0] for y in axes[1] for z in axes[2]]


def collisions(q: np.ndarray, gripper_width_m: float, obstacles: list[Box], table_top_z: float = 0.0,
               held: Box | None = None, held_pose_in_tcp: np.ndarray | None = None,
               ignore: tuple[str, ...] = (), base: np.ndarray | None = None,
               clearance_m: float = 0.0) -> list[tuple[str, str]]:
    """Pairs (robot part or held brick, obstacle) in contact if the arm stood at q, or closer than clearance_m
    when that is given; 'table' for the table top.

    `held` is the held brick's box now and `held_pose_in_tcp` its 4x4 pose in the TCP frame: at q it moves with
    the tool. Obstacles named in `ignore` (the brick being grasped, its support during a press) are skipped."""
    if not (np.isfinite(clearance_m) and clearance_m >= 0.0):
        raise ValueError(f"clearance_m must be 0 or more, got {clearance_m}")
    hits: list[tuple[str, str]] = []
    seen: set[tuple[str, str]] = set()

    def hit(a: str, b: str) -> None:
        if (a, b) not in seen:
            seen.add((a, b))
            hits.append((a, b))

    live = [o for o in obstacles if o.name not in ignore and (held is None or o.name != held.name)]
    for centre, radius, name in robot_spheres(q, gripper_width_m, base):
        if ("table" not in ignore and centre[2] - radius < table_top_z + CONTACT_MARGIN_M + clearance_m
                and name != "panda_link1"):
            hit(name, "table")
        for box in live:
            if sphere_hits_box(centre, radius, box, margin=CONTACT_MARGIN_M + clearance_m):
                hit(name, box.name)
    if held is not None and held_pose_in_tcp is not None:
        tcp = link_frames(q, base)[8]
        pose = tcp @ held_pose_in_tcp
        moved = Box(held.name, pose[:3, 3], pose[:3, :3], held.half)
        for centre, radius in box_samples(moved):
            if "table" not in ignore and centre[2] - radius < table_top_z - 1e-4 + clearance_m:
                hit(held.name, "table")
            for box in live:
                # touching neighbours is not a collision
                if sphere_hits_box(centre, radius * 0.9, box, margin=clearance_m):
                    hit(held.name, box.name)
    return hits
