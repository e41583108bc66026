"""Viewpoints: a fixed oblique manual view that frames a whole structure, and a straight top-down view.

The camera is MuJoCo's free camera (look-at point, distance, azimuth, elevation, vertical field of
view). Framing is solved here with the same pinhole model MuJoCo uses, so the structure lands inside
the part of the page kept free of the step number and the parts callout.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

# Booklet-like oblique view: from the builder's side (the robot's side, -x) and a little to the right
# (-y), looking down 35 degrees; a narrow field of view keeps parallel edges nearly parallel.
MANUAL_AZIMUTH_DEG = 35.0
MANUAL_ELEVATION_DEG = -35.0
MANUAL_FOVY_DEG = 25.0


@dataclass(frozen=True)
class ViewPoint:
    """A MuJoCo free camera: look-at point (m), distance (m), azimuth and elevation (deg), fovy (deg)."""

    lookat: tuple[float, float, float]
    distance: float
    azimuth_deg: float
    elevation_deg: float
    fovy_deg: float

    def basis(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Unit (forward, right, up) vectors of the camera in the world."""
        az, el = math.radians(self.azimuth_deg), math.radians(self.elevation_deg)
        forward = np.array([math.cos(el) * math.cos(az), math.cos(el) * math.sin(az), math.sin(el)])
        right = np.cross(forward, [0.0, 0.0, 1.0])
        if np.linalg.norm(right) < 1e-9:  # looking straight down: MuJoCo keeps the azimuth's heading
            right = np.array([math.sin(az), -math.cos(az), 0.0])
        right /= np.linalg.norm(right)
        up = np.cross(right, forward)
        return forward, right, up

    @property
    def position(self) -> np.ndarray:
        """Camera position in the world."""
        forward, _, _ = self.basis()
        return np.asarray(self.lookat) - self.distance * forward

    def focal_px(self, size: tuple[int, int]) -> float:
        """Focal length in pixels for an image of size (W, H) (MuJoCo's fovy is vertical)."""
        return (size[1] / 2) / math.tan(math.radians(self.fovy_deg) / 2)

    def project(self, points: np.ndarray, size: tuple[int, int]) -> np.ndarray:
        """Pixel coordinates (u right, v down) of world points (N, 3) in an image of size (W, H)."""
        w, h = size
        forward, right, up = self.basis()
        rel = np.asarray(points, dtype=float) - self.position
        depth = rel @ forward
        if np.any(depth <= 0):
            raise ValueError("point behind the camera")
        focal = self.focal_px(size)
        u = w / 2 + focal * (rel @ right) / depth
        v = h / 2 - focal * (rel @ up) / depth
        return np.stack([u, v], axis=1)


def box_corners(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """The 8 corners of an axis-aligned box."""
    return np.array([[x, y, z] for x in (lo[0], hi[0]) for y in (lo[1], hi[1]) for z in (lo[2], hi[2])])


def frame_points(
    points: np.ndarray,
    size: tuple[int, int],
    rect: tuple[float, float, float, float] = (0.0, 0.0, 1.0, 1.0),
    azimuth_deg: float = MANUAL_AZIMUTH_DEG,
    elevation_deg: float = MANUAL_ELEVATION_DEG,
    fovy_deg: float = MANUAL_FOVY_DEG,
) -> ViewPoint:
    """A view from the given direction whose image of the points fills `rect` (fractions x0, y0, x1, y1)."""
    w, h = size
    rx0, ry0, rx1, ry1 = rect[0] * w, rect[1] * h, rect[2] * w, rect[3] * h
    corners = np.asarray(points, dtype=float).reshape(-1, 3)
    lo, hi = corners.min(axis=0), corners.max(axis=0)
    lookat = (lo + hi) / 2
    radius = float(np.linalg.norm(hi - lo)) / 2 + 1e-3
    distance = radius / math.tan(math.radians(fovy_deg) / 2) * 1.5
    focal = (h / 2) / math.tan(math.radians(fovy_deg) / 2)
    # Fixed-point iteration: scale the distance by how much too big the image is, then slide the look-at
    # point in the image plane so the box's image is centred in the rect. Converges in a few rounds.
    for _ in range(8):
        view = ViewPoint(tuple(lookat), distance, azimuth_deg, elevation_deg, fovy_deg)  # type: ignore[arg-type]
        px = view.project(corners, size)
        pw, ph = px[:, 0].max() - px[:, 0].min(), px[:, 1].max() - px[:, 1].min()
        scale = max(pw / (rx1 - rx0), ph / (ry1 - ry0))
        du = (rx0 + rx1) / 2 - (px[:, 0].max() + px[:, 0].min()) / 2
        dv = (ry0 + ry1) / 2 - (px[:, 1].max() + px[:, 1].min()) / 2
        _, right, up = view.basis()
        # Moving the look-at by +x world along `right` moves the image left by focal * x / distance.
        lookat = lookat - right * du * distance / focal + up * dv * distance / focal
        distance *= scale
    return ViewPoint(tuple(float(c) for c in lookat), float(distance), azimuth_deg, elevation_deg, fovy_deg)  # type: ignore[arg-type]


def top_down_view(points: np.ndarray, size: tuple[int, int], fovy_deg: float = 45.0) -> ViewPoint:
    """A straight-down view (image up = world +x, away from the robot) framing the points."""
    return frame_points(points, size, (0.05, 0.05, 0.95, 0.95), azimuth_deg=0.0, elevation_deg=-89.9, fovy_deg=fovy_deg)
