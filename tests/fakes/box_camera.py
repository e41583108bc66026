"""A synthetic top camera over boxes with studs: exact RGB-D and instance segmentation without a simulator.

The camera copies the MuJoCo backend's top camera (640x480, f = 579.4 px, 0.8 m above (0.46, 0.11),
image x along world -y). Each pixel sees the nearest surface its ray meets: a box's top face or side (ray-box
slab test), a stud's top disc 1.7 mm above a face (stud sides are left out), or the table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from jarvis_sim.backends.base import CameraFrame
from jarvis_sim.lego import units as u

STUD_HEIGHT_M = 0.0017
STUD_RADIUS_M = 0.0024
WIDTH, HEIGHT, FOCAL_PX = 640, 480, 579.41125497
CAMERA_POS = (0.46, 0.11, 0.8)
TABLE_RGB = (120, 110, 95)


@dataclass(frozen=True)
class Box:
    """A brick-like box: footprint in studs along its local x and y, centre of the bottom face, yaw (rad)."""

    name: str
    studs: tuple[int, int]
    x: float
    y: float
    yaw: float = 0.0
    bottom: float = 0.0
    height: float = u.BRICK_PLATES * u.PLATE_HEIGHT_M
    rgb: tuple[int, int, int] = (201, 26, 9)
    with_studs: bool = True

    @property
    def half(self) -> tuple[float, float]:
        """Half-extents of the body, m (n studs x pitch, minus the fit gap)."""
        return ((self.studs[0] * u.STUD_PITCH_M - u.FIT_GAP_M) / 2, (self.studs[1] * u.STUD_PITCH_M - u.FIT_GAP_M) / 2)

    @property
    def top(self) -> float:
        """Height of the top face."""
        return self.bottom + self.height


def camera_calibration() -> tuple[np.ndarray, np.ndarray]:
    """(K, world_from_camera) of the synthetic top camera (OpenCV convention)."""
    k = np.array([[FOCAL_PX, 0.0, (WIDTH - 1) / 2], [0.0, FOCAL_PX, (HEIGHT - 1) / 2], [0.0, 0.0, 1.0]])
    pose = np.eye(4)
    pose[:3, :3] = np.array([[0.0, -1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, -1.0]])
    pose[:3, 3] = CAMERA_POS
    return k, pose


def _rays(k: np.ndarray, pose: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Camera centre (3,) and per-pixel ray directions (H, W, 3) scaled so that the ray parameter is the depth."""
    us, vs = np.meshgrid(np.arange(WIDTH, dtype=float), np.arange(HEIGHT, dtype=float))
    cam = np.stack([(us - k[0, 2]) / k[0, 0], (vs - k[1, 2]) / k[1, 1], np.ones_like(us)], axis=-1)
    return pose[:3, 3].copy(), cam @ pose[:3, :3].T


def _box_entry(box: Box, origin: np.ndarray, dirs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Depth where each ray enters the box (inf on a miss), and whether it enters through the top face."""
    c, s = math.cos(box.yaw), math.sin(box.yaw)
    ox, oy = c * (origin[0] - box.x) + s * (origin[1] - box.y), -s * (origin[0] - box.x) + c * (origin[1] - box.y)
    dx, dy = c * dirs[..., 0] + s * dirs[..., 1], -s * dirs[..., 0] + c * dirs[..., 1]
    hx, hy = box.half
    hz, oz = box.height / 2, origin[2] - (box.bottom + box.height / 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        slabs = [((-h - o) / d, (h - o) / d) for h, o, d in ((hx, ox, dx), (hy, oy, dy), (hz, oz, dirs[..., 2]))]
    near = [np.nan_to_num(np.minimum(a, b), nan=-np.inf) for a, b in slabs]
    far = [np.nan_to_num(np.maximum(a, b), nan=np.inf) for a, b in slabs]
    enter = np.maximum.reduce(near)
    hit = (enter <= np.minimum.reduce(far)) & (enter > 0)
    return np.where(hit, enter, np.inf), hit & (near[2] >= enter)


def _local(box: Box, xy: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    c, s = math.cos(box.yaw), math.sin(box.yaw)
    dx, dy = xy[..., 0] - box.x, xy[..., 1] - box.y
    return c * dx + s * dy, -s * dx + c * dy


def render_boxes(boxes: list[Box], occluders: dict[str, Box] | None = None, depth_noise_m: float = 0.0,
                 seed: int = 0) -> CameraFrame:
    """Render boxes (brick instances) and named occluders ('robot', ...) seen from the top camera."""
    k, pose = camera_calibration()
    origin, dirs = _rays(k, pose)
    depth = np.full((HEIGHT, WIDTH), origin[2], dtype=np.float64)  # the table at z = 0
    seg = np.zeros((HEIGHT, WIDTH), dtype=np.int32)
    rgb = np.empty((HEIGHT, WIDTH, 3), dtype=np.uint8)
    rgb[:] = TABLE_RGB
    names = {0: "table"}
    items = [(b, False) for b in boxes] + [(b, True) for b in (occluders or {}).values()]
    for idx, (box, occluder) in enumerate(items, start=1):
        names[idx] = box.name
        colour = np.asarray(box.rgb, dtype=float)
        d, top = _box_entry(box, origin, dirs)
        nearer = d < depth
        depth[nearer], seg[nearer] = d[nearer], idx
        rgb[nearer & top] = colour.astype(np.uint8)
        rgb[nearer & ~top] = (colour * 0.7).astype(np.uint8)  # sides face away from the light
        if box.with_studs and not occluder:
            # Stud top discs 1.7 mm above the face, centred in each 8 mm cell of the footprint.
            zs = box.top + STUD_HEIGHT_M
            ds = origin[2] - zs
            xy = origin[:2] + ds * dirs[..., :2]
            lx, ly = _local(box, xy)
            fx = (lx + box.studs[0] * u.STUD_PITCH_M / 2) / u.STUD_PITCH_M
            fy = (ly + box.studs[1] * u.STUD_PITCH_M / 2) / u.STUD_PITCH_M
            r = np.hypot(fx - np.floor(fx) - 0.5, fy - np.floor(fy) - 0.5) * u.STUD_PITCH_M
            on = (np.abs(lx) <= box.half[0]) & (np.abs(ly) <= box.half[1]) & (r <= STUD_RADIUS_M) & (ds < depth)
            depth[on], seg[on] = ds, idx
            rgb[on] = (colour * 0.93).astype(np.uint8)  # stud tops a little darker, as lit from an angle
    if depth_noise_m > 0:
        depth = depth + np.random.default_rng(seed).normal(0.0, depth_noise_m, depth.shape)
    return CameraFrame(name="top", rgb=rgb, depth=depth.astype(np.float32), segmentation=seg, segment_ids=names,
                       intrinsics=k, world_from_camera=pose)
