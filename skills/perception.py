"""Brick detection from one RGB-D frame: descriptors with real estimation error.

Two modes. Ideal (the default, the paper's setting): the renderer's instance masks (anonymous segments, never
the simulator's brick ids) and exact depth. Camera: the frame passed through skills.sensor.SensorModel (depth
noise growing with distance, quantisation, flying pixels, exposure) and segmented from RGB-D alone
(skills.segmentation), with no instance masks at all. Depth is back-projected to a point cloud with the
camera's intrinsics and pose. The workspace calibration (table height, staging area, stud lattice of the build
area) is known, as it is on a real cell. Per brick:
- top face: the densest height band among its points (studs stand 1.7 mm above it, sides lie below);
- centre and yaw: the minimum-area rectangle of the top-face points (rotating calipers on the hull);
- size in studs: the rectangle's sides over the 8 mm pitch; colour: nearest LDraw colour under a
  brightness gain (shading scales intensity, not hue).
"""

from __future__ import annotations

import math

import cv2
import numpy as np

from jarvis_sim.backends.base import CameraFrame
from jarvis_sim.lego import units as u
from jarvis_sim.lego.colors import COLORS
from jarvis_sim.tasks.spec import Workspace
from skills.segmentation import Segment, point_cloud, rgbd_segments
from skills.types import BrickDescriptor

SCENE_OBJECTS = frozenset({"table", "robot", "baseplate"})  # every other segment is one brick instance
_CROSS = cv2.getStructuringElement(cv2.MORPH_CROSS, (3, 3))  # the 4-neighbourhood scipy's binary_dilation used


def segments(frame: CameraFrame) -> list[Segment]:
    """Per-brick point sets of a frame, in the renderer's segment order (simulator body order: `detect` re-sorts)."""
    assert frame.segmentation is not None and frame.rgb is not None
    cloud = point_cloud(frame)
    out = []
    seg = frame.segmentation
    robot = np.array([i for i, name in frame.segment_ids.items() if name == "robot"], dtype=seg.dtype)
    for idx, name in frame.segment_ids.items():
        if name in SCENE_OBJECTS:
            continue  # the instance's name is never read beyond this: it is only a mask
        mask = seg == idx
        n = int(mask.sum())
        if n < 12:
            continue
        assert frame.depth is not None
        pixel = float(np.median(frame.depth[mask])) / float(frame.intrinsics[0, 0])
        out.append(Segment(cloud[mask], frame.rgb[mask], n, pixel, _occluded(mask, frame.depth, seg, idx, robot)))
    return out


def _occluded(mask: np.ndarray, depth: np.ndarray, seg: np.ndarray, idx: int, robot: np.ndarray,
              step_m: float = 0.002) -> bool:
    """True when pixels just outside the mask belong to the robot, or to another segment at least `step_m` nearer
    the camera. The robot never lies under a brick, so any border with it may hide part of the brick (a hand 3 mm
    over a brick is nearer than its face but not than its stud tops, which the depth test compares against)."""
    ring = cv2.dilate(mask.astype(np.uint8), _CROSS, iterations=2).astype(bool) & ~mask
    if not ring.any():
        return False
    if len(robot) and bool(np.isin(seg[ring], robot).any()):
        return True
    near = float(np.percentile(depth[mask], 10))
    others = ring & (seg != idx) & (seg >= 0)
    return bool(np.any(depth[others] < near - step_m))


def top_face(points: np.ndarray, band_m: float = 0.0008) -> tuple[float, np.ndarray]:
    """Height of the top face and its points: the most populated height band, ignoring stud tops."""
    z = points[:, 2]
    hist_bins = np.arange(z.min() - 1e-4, z.max() + 2e-4, 0.0002)
    if len(hist_bins) < 2:
        return float(np.median(z)), points
    counts, edges = np.histogram(z, bins=hist_bins)
    # Smooth over the band width, then pick the densest level; studs are smaller in area than the face.
    width = max(1, round(band_m / 0.0002))
    smooth = np.convolve(counts, np.ones(width), mode="same")
    k = int(np.argmax(smooth))
    level = float((edges[k] + edges[k + 1]) / 2)
    sel = np.abs(z - level) < band_m
    top = points[sel]
    return float(np.median(top[:, 2])), top


def min_area_rect(xy: np.ndarray) -> tuple[np.ndarray, float, float, float]:
    """(centre, long side, short side, yaw of the long side in [0, pi)) of the minimum-area rectangle (OpenCV's
    rotating calipers over the convex hull), in the units of the points."""
    if len(xy) == 0:
        return np.zeros(2), 0.0, 0.0, 0.0
    # Millimetres relative to the mean keep float32 (what OpenCV takes) at a micrometre or better.
    origin = xy.mean(axis=0)
    (cx, cy), (w, h), angle = cv2.minAreaRect(((xy - origin) * 1000.0).astype(np.float32))
    yaw = math.radians(angle)  # the first side, w, lies along `angle`
    la, lb = w / 1000.0, h / 1000.0
    if lb > la:
        la, lb, yaw = lb, la, yaw + math.pi / 2
    return origin + np.array([cx, cy]) / 1000.0, float(la), float(lb), yaw % math.pi


def color_name(rgb: np.ndarray) -> str:
    """Nearest LDraw colour name of a mean RGB under an unknown brightness gain in [0.55, 1.25]."""
    obs = rgb.astype(np.float64)
    best, best_d = "unknown", float("inf")
    for c in COLORS.values():
        ref = np.asarray(c.rgb, dtype=np.float64)
        denom = float(ref @ ref)
        gain = float(np.clip((obs @ ref) / denom, 0.55, 1.25)) if denom > 0 else 1.0
        d = float(np.sum((obs - gain * ref) ** 2)) + 400.0 * (gain - 0.9) ** 2
        if d < best_d:
            best, best_d = c.name, d
    return best


def in_staging(ws: Workspace, x: float, y: float) -> bool:
    """True inside the staging area of loose bricks."""
    return ws.staging_min[0] <= x <= ws.staging_max[0] and ws.staging_min[1] <= y <= ws.staging_max[1]


def describe(seg: Segment, ws: Workspace, all_segments: list[Segment]) -> BrickDescriptor | None:
    """A descriptor of one segment, or None when too little of it is visible to say anything."""
    table_z = 0.0  # the workspace convention: table top at z = 0 (a baseplate lifts level 0 above it)
    top_z, top = top_face(seg.points)
    if len(top) < 8:
        return None
    centre, long_side, short_side, yaw = min_area_rect(top[:, :2])
    # Pixel centres sample the face half a pixel inside each edge: add that back.
    long_side += seg.pixel_m + 2 * seg.inset_m
    short_side += seg.pixel_m + 2 * seg.inset_m
    pitch = u.STUD_PITCH_M
    size_long = max(1, round((long_side + u.FIT_GAP_M) / pitch))
    size_short = max(1, round((short_side + u.FIT_GAP_M) / pitch))
    if size_short > size_long:
        size_long, size_short = size_short, size_long
    if size_long == size_short:
        yaw = yaw % (math.pi / 2)
    expected_area = (size_long * pitch - u.FIT_GAP_M) * (size_short * pitch - u.FIT_GAP_M)
    visible = min(1.0, long_side * short_side / expected_area) if expected_area > 0 else 0.0
    if seg.occluded:
        visible = min(visible, 0.5)  # something above hides an unknown part: its size and centre are unreliable
    height_above_table = top_z - table_z
    staged = in_staging(ws, float(centre[0]), float(centre[1]))
    if abs(height_above_table - u.BRICK_PLATES * u.PLATE_HEIGHT_M) < 0.0012:
        height = "brick"
    elif abs(height_above_table - u.PLATE_HEIGHT_M) < 0.0012:
        height = "plate"
    else:
        height = "unknown"
    stacked = height == "unknown"
    covered = _covered(centre, long_side, short_side, yaw, top_z, all_segments, seg)
    mean_rgb = np.median(seg.colors[np.abs(seg.points[:, 2] - top_z) < 0.0008], axis=0)
    return BrickDescriptor(
        id="",
        color=color_name(mean_rgb),
        size=(size_long, size_short),
        height=height,
        x_mm=round(float(centre[0]) * 1000, 2),
        y_mm=round(float(centre[1]) * 1000, 2),
        top_z_mm=round((top_z - table_z) * 1000, 2),
        yaw_deg=round(math.degrees(yaw), 2),
        in_structure=(not staged) or stacked,
        free_to_grasp=staged and not stacked and not covered and visible > 0.6,
        visible_fraction=round(visible, 3),
    )


def _covered(centre: np.ndarray, la: float, lb: float, yaw: float, top_z: float, others: list[Segment], me: Segment) -> bool:
    """Another brick's points lie above this one's top face, over its footprint."""
    c, s = math.cos(yaw), math.sin(yaw)
    for other in others:
        if other is me:
            continue
        above = other.points[other.points[:, 2] > top_z + 0.003]
        if not len(above):
            continue
        d = above[:, :2] - centre
        a, b = d @ np.array([c, s]), d @ np.array([-s, c])
        if np.any((np.abs(a) < la / 2) & (np.abs(b) < lb / 2)):
            return True
    return False


def detect(frame: CameraFrame, ws: Workspace) -> list[tuple[BrickDescriptor, np.ndarray]]:
    """Descriptors (without ids) and point sets of every brick visible in a frame, in spatial order."""
    # a camera's frame has no instance masks: segment it from RGB-D alone
    segs = rgbd_segments(frame) if frame.segmentation is None else segments(frame)
    out = []
    for seg in segs:
        desc = describe(seg, ws, segs)
        if desc is not None:
            out.append((desc, seg.points))
    out.sort(key=lambda found: spatial_key(found[0]))
    return out


def spatial_key(d: BrickDescriptor) -> tuple[int, int, int]:
    """Sort key of a descriptor: x, then y, then height, each to the whole millimetre.

    Fresh perception ids are handed out in this order. The renderer's segments come in simulator body order, which
    is the manual's order for the loose bricks (ids p5, p6, p7 were the manual's steps): numbering them so would
    let an agent build in id order without reading the manual. Whole millimetres keep the order from flipping on a
    sub-millimetre estimation difference between two runs.
    """
    return round(d.x_mm), round(d.y_mm), round(d.top_z_mm)
