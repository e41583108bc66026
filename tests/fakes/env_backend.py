"""A renderless backend for the Gymnasium env's tests: small blank frames, recorded commands, a scripted world."""

from __future__ import annotations

import numpy as np

from jarvis_sim.backends.base import CameraFrame
from jarvis_sim.lego.world_state import WorldState
from tests.fakes.skill_backend import RecordingBackend


class EnvBackend(RecordingBackend):
    """Renders 8x6 frames, keeps the last arm and gripper commands and every reset seed; the world is a field."""

    name = "env-fake"

    def __init__(self, control_dt: float = 0.01) -> None:
        super().__init__(control_dt)
        self.ee_targets: list[tuple[np.ndarray, np.ndarray]] = []
        self.joint_targets: list[np.ndarray] = []
        self.gripper: list[bool] = []
        self.reset_seeds: list[int] = []
        self.world = WorldState(bricks=[], sim_time_s=0.0)

    def reset(self, seed: int = 0) -> None:
        """Back to time zero; remember the seed."""
        super().reset(seed)
        self.reset_seeds.append(seed)

    def set_ee_target(self, position: np.ndarray, quaternion: np.ndarray) -> None:
        """Record the target."""
        self.ee_targets.append((np.asarray(position), np.asarray(quaternion)))

    def set_joint_targets(self, q: np.ndarray) -> None:
        """Record the target."""
        self.joint_targets.append(np.asarray(q))

    def set_gripper(self, closed: bool, force_n: float | None = None, width_m: float | None = None) -> None:
        """Record the command."""
        self.gripper.append(closed)

    def joint_limits(self) -> tuple[np.ndarray, np.ndarray]:
        """Symmetric limits of 2 rad."""
        return np.full(7, -2.0), np.full(7, 2.0)

    def render(self, camera: str = "top", rgb: bool = True, depth: bool = True, segmentation: bool = False) -> CameraFrame:
        """A grey 8x6 frame (depth 1 m)."""
        return CameraFrame(name=camera, rgb=np.full((6, 8, 3), 128, np.uint8) if rgb else None,
                           depth=np.ones((6, 8), np.float32) if depth else None, segmentation=None,
                           segment_ids={}, intrinsics=np.eye(3), world_from_camera=np.eye(4))

    def world_state(self) -> WorldState:
        """Whatever the test put there."""
        return self.world
