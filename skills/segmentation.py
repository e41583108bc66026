"""Brick segments from RGB-D alone, without the renderer's instance ids: what a camera over a real cell can do.

1. Height above the table from the back-projected depth (a 3x3 median against the sensor noise: a 1x1 brick is
   only ~6 px across from 0.8 m); a pixel is a brick candidate when it stands MIN_HEIGHT_M to MAX_HEIGHT_M above
   the table (the baseplate's studs stand 1.7 mm, a plate's top 3.2 mm; the parked arm is far above everything).
2. Connected components of the candidates (OpenCV): bricks lying apart are apart.
3. Height above support: a component holding several top-face levels (plate multiples, stud tops counted with
   the face they stand on) is split into one piece per level that holds LEVEL_SHARE of it; a level just below
   another is that face's blurred rim, not a face.
4. Colour clustering: each pixel takes the nearest LDraw colour under a brightness gain (as
   skills.perception.color_name does for a whole brick); a face holding two colours of different hue (not just
   brightness, which shading changes) is split between them.
Two touching bricks of the same colour and height cannot be told apart this way (the 0.2 mm gap between them is
a seventh of a pixel), nor a plate on a same-coloured plate: they come out as one segment, as they would for a
real camera without instance labels.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import cv2
import numpy as np

from jarvis_sim.backends.base import CameraFrame
from jarvis_sim.lego import units as u
from jarvis_sim.lego.colors import COLORS

MIN_HEIGHT_M = 0.0024  # above the baseplate's stud tops (1.7 mm) plus sensor noise, below a plate's top (3.2 mm)
MAX_HEIGHT_M = 0.30
FLYING_JUMP_M = 0.004  # a 3x3 depth range above this (more than a stud, less than a plate on the table) is an edge
MIN_PIXELS = 12  # a 1x1 brick's top face is ~30 px from the top camera; smaller blobs are slivers
LEVEL_SHARE = 0.2  # a height level must hold this share of a blob's pixels to count as a top face of its own
COLOUR_SHARE = 0.3  # a colour must cover this share of a face to count as a brick of its own
SAME_HUE_COS = 0.985  # RGB directions within ~10 degrees: shading, not a different colour
OCCLUDER_STEP_M = 0.002
_PALETTE = np.array([c.rgb for c in COLORS.values()], dtype=np.float64)



@dataclass
class Segment:
    """One brick's pixels as world points and colours."""

    points: np.ndarray  # (N, 3) world, m
    colors: np.ndarray  # (N, 3) uint8
    n_pixels: int
    pixel_m: float = 0.0  # footprint of one pixel at this segment's depth
    occluded: bool = False  # part of its outline borders something nearer the camera (a brick above it)
    inset_m: float = 0.0  # how far inside the brick's edge, on each side, its outline was cut (edge filtering)


def point_cloud(frame: CameraFrame) -> np.ndarray:
    """World points (H, W, 3) from the depth image, intrinsics and camera pose (OpenCV convention)."""
    assert frame.depth is not None
    h, w = frame.depth.shape
    k = frame.intrinsics
    us, vs = np.meshgrid(np.arange(w, dtype=np.float64), np.arange(h, dtype=np.float64))
    z = frame.depth.astype(np.float64)
    x = (us - k[0, 2]) * z / k[0, 0]
    y = (vs - k[1, 2]) * z / k[1, 1]
    cam = np.stack([x, y, z], axis=-1)
    rot, trans = frame.world_from_camera[:3, :3], frame.world_from_camera[:3, 3]
    return cam @ rot.T + trans


def palette_labels(rgb: np.ndarray) -> np.ndarray:
    """Index into the LDraw palette of each (N, 3) colour, under a per-pixel brightness gain in [0.55, 1.25]."""
    obs = rgb.astype(np.float64)
    denom = np.einsum("kc,kc->k", _PALETTE, _PALETTE)
    gain = np.clip((obs @ _PALETTE.T) / np.maximum(denom, 1e-9), 0.55, 1.25)  # (N, K)
    err = np.square(obs[:, None, :] - gain[..., None] * _PALETTE[None]).sum(axis=2) + 400.0 * np.square(gain - 0.9)
    return np.argmin(err, axis=1)


def rgbd_segments(frame: CameraFrame) -> list[Segment]:
    """Per-brick point sets of a frame without instance masks (see the module docstring)."""
    assert frame.depth is not None and frame.rgb is not None
    valid = frame.depth > 0
    # A 3x3 median of the depth: noise drops ~2.5x and a brick 6 px across (a 1x1 seen from 0.8 m) survives.
    depth = cv2.medianBlur(frame.depth.astype(np.float32), 3)
    # Flying-pixel filter (the usual jump-edge test): a pixel whose 3x3 neighbourhood spans a depth step is not
    # trusted. On a brick 6-11 px across those rims are a third of its pixels and would drag its face height down
    # by a millimetre; the outline they take away is given back to the descriptor as `inset_m`.
    kernel = np.ones((3, 3), np.uint8)
    jump = (cv2.dilate(depth, kernel) - cv2.erode(depth, kernel)) > FLYING_JUMP_M
    cloud = point_cloud(dataclasses.replace(frame, depth=depth))
    height = cloud[..., 2]
    candidate = valid & ~jump & (height > MIN_HEIGHT_M) & (height < MAX_HEIGHT_M)
    colour = np.full(height.shape, -1, dtype=np.int32)
    colour[candidate] = palette_labels(cv2.blur(frame.rgb, (3, 3))[candidate])
    level = np.floor((height + 0.25 * u.PLATE_HEIGHT_M) / u.PLATE_HEIGHT_M).astype(np.int32)
    f = float(frame.intrinsics[0, 0])
    out = []
    n, comp = cv2.connectedComponents(candidate.astype(np.uint8), connectivity=8)
    for k in range(1, n):
        blob = comp == k
        for face in _split(blob, level, _face_levels(level[blob], height[blob]), height):
            for part_mask in _split_colours(face, colour):
                count = int(part_mask.sum())
                if count < MIN_PIXELS:
                    continue
                pixel_m = float(np.median(frame.depth[part_mask])) / f
                out.append(Segment(cloud[part_mask], frame.rgb[part_mask], count, pixel_m,
                                   _occluded(part_mask, height, valid), inset_m=pixel_m))
    return out


def _face_levels(levels: np.ndarray, heights: np.ndarray) -> list[float]:
    """Mean heights of the top-face levels of a blob: levels holding enough of its pixels."""
    values, counts = np.unique(levels, return_counts=True)
    keep = {int(v) for v, c in zip(values, counts, strict=True) if c >= max(MIN_PIXELS, LEVEL_SHARE * len(levels))}
    # A level just below another is that face's rim (flying pixels and the median blend a small brick's edges
    # towards the table), not a face of its own: a plate on a same-coloured plate is the price.
    return [float(np.median(heights[levels == v])) for v in sorted(keep) if v + 1 not in keep]


def _split(blob: np.ndarray, level: np.ndarray, faces: list[float], height: np.ndarray) -> list[np.ndarray]:
    """One mask per face level (each pixel to the nearest face height, then 4-connected pieces); the whole blob
    when it has one face (its side and stud pixels stay: the descriptor finds the face among them)."""
    if len(faces) <= 1:
        return [blob]
    nearest = np.argmin(np.abs(height[..., None] - np.asarray(faces)[None, None, :]), axis=2)
    out = []
    for j in range(len(faces)):
        m, pieces = cv2.connectedComponents((blob & (nearest == j)).astype(np.uint8), connectivity=4)
        out += [pieces == i for i in range(1, m)]
    return out


def _split_colours(mask: np.ndarray, colour: np.ndarray) -> list[np.ndarray]:
    """One mask per colour present in a face (colours that differ only in brightness count as one: shading cannot
    tell them apart), each pixel to its colour group, then 4-connected pieces."""
    labels, counts = np.unique(colour[mask], return_counts=True)
    present = [int(c) for c, n in sorted(zip(labels, counts, strict=True), key=lambda t: -t[1])
               if n >= max(MIN_PIXELS, COLOUR_SHARE * mask.sum())]
    groups: list[list[int]] = []
    for c in present:
        for g in groups:
            if _same_hue(c, g[0]):
                g.append(c)
                break
        else:
            groups.append([c])
    if len(groups) <= 1:
        return [mask]
    refs = _PALETTE[[g[0] for g in groups]]
    hue = _PALETTE[np.clip(colour, 0, None)] / np.maximum(np.linalg.norm(_PALETTE[np.clip(colour, 0, None)], axis=-1,
                                                                           keepdims=True), 1e-9)
    group_of = np.argmax(hue @ (refs / np.maximum(np.linalg.norm(refs, axis=1, keepdims=True), 1e-9)).T, axis=-1)
    out = []
    for j in range(len(groups)):
        m, pieces = cv2.connectedComponents((mask & (group_of == j)).astype(np.uint8), connectivity=4)
        out += [pieces == i for i in range(1, m)]
    return out


def _same_hue(a: int, b: int) -> bool:
    """Two palette colours about one brightness gain apart (RGB directions within SAME_HUE_COS)."""
    pa, pb = _PALETTE[a], _PALETTE[b]
    na, nb = float(np.linalg.norm(pa)), float(np.linalg.norm(pb))
    return na == 0 or nb == 0 or float(pa @ pb) / (na * nb) > SAME_HUE_COS


def _occluded(mask: np.ndarray, height: np.ndarray, valid: np.ndarray) -> bool:
    """True when pixels just outside the segment stand higher than its top (a brick or the arm above it) or have no
    depth (the stereo pair could not see there: something shadows it)."""
    ring = cv2.dilate(mask.astype(np.uint8), np.ones((5, 5), np.uint8)).astype(bool) & ~mask
    if not ring.any():
        return False
    top = float(np.percentile(height[mask], 90))
    return bool(np.any(height[ring] > top + OCCLUDER_STEP_M) or np.any(~valid[ring]))
