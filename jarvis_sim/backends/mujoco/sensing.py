"""What the MuJoCo backend's cameras see and the ground truth it reports."""

from __future__ import annotations

from jarvis_sim.backends.base import BackendError, CameraFrame
from jarvis_sim.backends.mujoco.core import MujocoCore
from jarvis_sim.backends.mujoco.scene import (
    SIDE_CAMERA,
    TOP_CAMERA,
)
from jarvis_sim.lego.world_state import BrickState, WorldState
from jarvis_sim.tasks.variation import loose_bricks


class Sensing(MujocoCore):
    """Cameras and ground truth (mixed into MujocoBackend)."""

    def cameras(self) -> list[str]:
        """'top' and, when configured, 'side'."""
        return [TOP_CAMERA, SIDE_CAMERA] if self.config.side_camera else [TOP_CAMERA]

    def render(self, camera: str = "top", rgb: bool = True, depth: bool = True, segmentation: bool = False) -> CameraFrame:
        """Render one camera at the configured size."""
        if self._rig is None:
            raise BackendError("no task loaded: call load(task) first")
        if camera not in self.cameras():
            raise BackendError(f"unknown camera {camera!r}; valid: {', '.join(self.cameras())}")
        return self._rig.render(self.data, camera, self.config.image_width, self.config.image_height,
                                rgb, depth, segmentation)

    def world_state(self) -> WorldState:
        """Every brick's pose (bottom-face centre), held flag and clutch links."""
        task, d = self._task(), self.data
        held = self.held_brick()
        parts = {b.id: (b.part, b.color) for b in task.initial}
        parts.update({a.id: (a.part, a.color) for a in loose_bricks(task)})
        bricks = []
        for b in self._brick_ids:
            body = self._body[b]
            bricks.append(BrickState(
                id=b, part=parts[b][0], color=parts[b][1],
                position=tuple(float(v) for v in d.xpos[body]),  # type: ignore[arg-type]
                quaternion=tuple(float(v) for v in d.xquat[body]),  # type: ignore[arg-type]
                held=b == held,
                connected_to=self.clutch.connected_to(b),
            ))
        return WorldState(sim_time_s=float(d.time), bricks=bricks)
