"""The manual viewpoint frames the structure inside the page area kept for it (pure geometry, no GL)."""

from __future__ import annotations

import numpy as np

from jarvis_sim.manuals.framing import box_corners, frame_points, top_down_view


def test_frame_points_fills_the_rect() -> None:
    pts = box_corners(np.array([0.40, -0.20, 0.0]), np.array([0.45, -0.17, 0.03]))
    size = (800, 600)
    rect = (0.27, 0.06, 0.98, 0.96)
    view = frame_points(pts, size, rect)
    px = view.project(pts, size)
    x0, y0, x1, y1 = rect[0] * 800, rect[1] * 600, rect[2] * 800, rect[3] * 600
    assert px[:, 0].min() >= x0 - 1 and px[:, 0].max() <= x1 + 1
    assert px[:, 1].min() >= y0 - 1 and px[:, 1].max() <= y1 + 1
    # It is tight along at least one axis (the structure is as large as the rect allows).
    fill = max((px[:, 0].max() - px[:, 0].min()) / (x1 - x0), (px[:, 1].max() - px[:, 1].min()) / (y1 - y0))
    assert fill > 0.97


def test_top_down_view_looks_down_with_x_up_the_image() -> None:
    pts = box_corners(np.array([0.3, -0.2, 0.0]), np.array([0.6, 0.4, 0.02]))
    view = top_down_view(pts, (640, 480))
    forward, _, up = view.basis()
    assert forward[2] < -0.999
    assert up[0] > 0.99  # image up is world +x
    a, b = view.project(np.array([[0.4, 0.0, 0.0], [0.5, 0.0, 0.0]]), (640, 480))
    assert b[1] < a[1]  # further from the robot is higher in the image
