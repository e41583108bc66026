"""Offscreen cameras of a MuJoCo scene: RGB, depth and brick-instance segmentation with calibration.

Conventions (see CameraFrame): intrinsics are a pinhole K with square pixels from the camera's
vertical field of view, principal point at the image centre ((W-1)/2, (H-1)/2, pixel centres at
integers). `world_from_camera` is in the OpenCV convention (x right, y down, z forward): MuJoCo
cameras look along their -z with y up, so the rotation is MuJoCo's camera frame times diag(1, -1, -1).
Shadows and reflections are off: they double software-GL render time (240-330 ms versus 90-125 ms).
"""

from __future__ import annotations

import math

import mujoco
import numpy as np

from jarvis_sim.backends.base import CameraFrame


def intrinsics(model: mujoco.MjModel, cam_id: int, width: int, height: int) -> np.ndarray:
    """3x3 pinhole K of a MuJoCo camera rendered at width x height."""
    fovy = math.radians(float(model.cam_fovy[cam_id]))
    f = (height / 2) / math.tan(fovy / 2)
    return np.array([[f, 0.0, (width - 1) / 2], [0.0, f, (height - 1) / 2], [0.0, 0.0, 1.0]])


def world_from_camera(data: mujoco.MjData, cam_id: int) -> np.ndarray:
    """4x4 camera pose, OpenCV axes."""
    out = np.eye(4)
    out[:3, :3] = data.cam_xmat[cam_id].reshape(3, 3) @ np.diag([1.0, -1.0, -1.0])
    out[:3, 3] = data.cam_xpos[cam_id]
    return out


class CameraRig:
    """One renderer per image size, reused across frames; close() frees the GL context."""

    def __init__(self, model: mujoco.MjModel, geom_segment: np.ndarray, segment_names: dict[int, str]) -> None:
        self.model = model
        self.geom_segment = geom_segment  # geom id -> segment index (-1: none)
        self.segment_names = segment_names
        self._renderers: dict[tuple[int, int], mujoco.Renderer] = {}

    def _renderer(self, width: int, height: int) -> mujoco.Renderer:
        key = (width, height)
        if key not in self._renderers:
            r = mujoco.Renderer(self.model, height=height, width=width)
            r.scene.flags[mujoco.mjtRndFlag.mjRND_SHADOW] = 0
            r.scene.flags[mujoco.mjtRndFlag.mjRND_REFLECTION] = 0
            r.scene.flags[mujoco.mjtRndFlag.mjRND_SKYBOX] = 0
            self._renderers[key] = r
        return self._renderers[key]

    def render(self, data: mujoco.MjData, camera: str, width: int, height: int, rgb: bool, depth: bool,
               segmentation: bool) -> CameraFrame:
        """Render the requested images of one named camera."""
        cam_id = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_CAMERA, camera)
        if cam_id < 0:
            raise KeyError(f"unknown camera {camera!r}")
        r = self._renderer(width, height)
        opt = mujoco.MjvOption()
        opt.geomgroup[:] = [1, 1, 1, 0, 0, 0]  # solid and visual-only geoms; never collision-only
        r.update_scene(data, camera=cam_id, scene_option=opt)
        rgb_img = depth_img = seg_img = None
        if rgb:
            rgb_img = r.render().copy()
        if depth:
            r.enable_depth_rendering()
            depth_img = r.render().astype(np.float32)
            r.disable_depth_rendering()
        if segmentation:
            r.enable_segmentation_rendering()
            raw = r.render()
            r.disable_segmentation_rendering()
            objid, objtype = raw[..., 0], raw[..., 1]
            seg_img = np.full(objid.shape, -1, dtype=np.int32)
            is_geom = (objtype == int(mujoco.mjtObj.mjOBJ_GEOM)) & (objid >= 0)
            seg_img[is_geom] = self.geom_segment[objid[is_geom]]
        return CameraFrame(
            name=camera,
            rgb=rgb_img,
            depth=depth_img,
            segmentation=seg_img,
            segment_ids=dict(self.segment_names) if segmentation else {},
            intrinsics=intrinsics(self.model, cam_id, width, height),
            world_from_camera=world_from_camera(data, cam_id),
        )

    def close(self) -> None:
        """Free every renderer (OSMesa complains at exit otherwise)."""
        for r in self._renderers.values():
            r.close()
        self._renderers.clear()
