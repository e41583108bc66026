"""Where the cameras stand, the same in every backend: the top camera straight over the region holding the
build and the staging area (image up = world +x, away from the robot), the side camera oblique from the front.

One framing, so that a task looks the same to an agent whichever simulator renders it (MuJoCo, Isaac Sim).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from jarvis_sim.lego.assembly import brick_pose_in_world
from jarvis_sim.tasks.spec import TaskSpec

SIDE_OFFSET_M = (0.55, -0.45)  # the side camera's eye from the framed centre: in front of the robot, to its right
SIDE_HEIGHT_M = 0.45
SIDE_TARGET_HEIGHT_M = 0.03  # it looks at a point just above the table, where the build stands
SIDE_FOVY_DEG = 45.0


@dataclass(frozen=True)
class CameraFraming:
    """The framed centre (x, y) and the side camera's eye and target, world frame, metres."""

    center: tuple[float, float]
    side_eye: np.ndarray
    side_target: np.ndarray
    side_fovy_deg: float = SIDE_FOVY_DEG


def camera_framing(task: TaskSpec) -> CameraFraming:
    """The framing of a task's scene: the middle of the staging area, the lattice origin and every target brick."""
    ws, origin = task.workspace, task.workspace.lattice_origin
    xs = [ws.staging_min[0], ws.staging_max[0], origin[0]]
    ys = [ws.staging_min[1], ws.staging_max[1], origin[1]]
    for b in task.target_assembly:
        (bx, by, _), _ = brick_pose_in_world(b, origin)
        xs.append(bx)
        ys.append(by)
    cx, cy = (min(xs) + max(xs)) / 2, (min(ys) + max(ys)) / 2
    eye = np.array([cx + SIDE_OFFSET_M[0], cy + SIDE_OFFSET_M[1], SIDE_HEIGHT_M])
    return CameraFraming((cx, cy), eye, np.array([cx, cy, SIDE_TARGET_HEIGHT_M]))
