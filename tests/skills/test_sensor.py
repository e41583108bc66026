"""The RGB-D sensor model (skills.sensor): noise growing with z^2, quantised disparity, flying pixels at edges,
exposure, reproducible from a seed."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from jarvis_sim.backends.base import CameraFrame
from skills.sensor import SensorModel
from tests.fakes.box_camera import FOCAL_PX, Box, render_boxes


def flat_frame(z_m: float, size: int = 200) -> CameraFrame:
    """A frame of one flat surface at distance z (no edges), grey."""
    k = np.array([[FOCAL_PX, 0.0, (size - 1) / 2], [0.0, FOCAL_PX, (size - 1) / 2], [0.0, 0.0, 1.0]])
    return CameraFrame(name="flat", rgb=np.full((size, size, 3), 120, np.uint8),
                       depth=np.full((size, size), z_m, np.float32), segmentation=None, segment_ids={},
                       intrinsics=k, world_from_camera=np.eye(4))


def test_depth_noise_follows_sigma_z_squared() -> None:
    model = SensorModel(disparity_step_px=0.0)
    rng = np.random.default_rng(1)
    for z in (0.4, 0.8):
        measured = model.apply(flat_frame(z), rng).depth
        assert measured is not None
        expected = model.depth_sigma_m(z, FOCAL_PX)
        assert float(np.std(measured)) == pytest.approx(expected, rel=0.05)
        assert abs(float(np.mean(measured)) - z) < 0.1 * float(expected)
    assert model.depth_sigma_m(0.8, FOCAL_PX) == pytest.approx(0.0016, abs=0.0001)  # the D415-class default


def test_disparity_is_quantised() -> None:
    model = SensorModel(disparity_noise_px=0.0, flying_pixel_prob=0.0)
    measured = model.apply(flat_frame(0.7777), np.random.default_rng(0)).depth
    assert measured is not None
    disparity = FOCAL_PX * model.baseline_m / measured.astype(np.float64)
    steps = disparity / model.disparity_step_px
    assert np.allclose(steps, np.round(steps), atol=1e-3)
    assert abs(float(measured[0, 0]) - 0.7777) <= 0.7777**2 * model.disparity_step_px / (FOCAL_PX * model.baseline_m)


def test_flying_pixels_only_at_depth_edges_and_between_the_two_sides() -> None:
    frame = render_boxes([Box("a", (4, 2), 0.46, 0.11)])
    model = SensorModel(disparity_noise_px=0.0, disparity_step_px=0.0, flying_pixel_prob=1.0)
    measured = model.apply(frame, np.random.default_rng(2)).depth
    assert measured is not None and frame.depth is not None
    changed = np.abs(measured - frame.depth) > 1e-5
    assert 10 < int(changed.sum()) < 400  # the brick's outline (and its studs' rims), not its faces or the table
    lo, hi = frame.depth.min(), frame.depth.max()
    assert np.all((measured[changed] >= lo - 1e-6) & (measured[changed] <= hi + 1e-6))


def test_exposure_gain_brightens_and_clips_and_a_seed_repeats_the_frame() -> None:
    frame = flat_frame(0.8)
    bright = SensorModel(exposure_gain=2.5, shot_noise=0.0, read_noise_dn=0.0).apply(frame, np.random.default_rng(0))
    assert bright.rgb is not None and int(bright.rgb.max()) == 255 and int(bright.rgb.min()) == 255
    a = SensorModel().apply(frame, np.random.default_rng(7))
    b = SensorModel().apply(frame, np.random.default_rng(7))
    assert a.rgb is not None and b.rgb is not None and a.depth is not None and b.depth is not None
    assert np.array_equal(a.rgb, b.rgb) and np.array_equal(a.depth, b.depth)
    assert 3.0 < float(np.std(a.rgb.astype(float))) < 10.0  # shot noise at 120 DN plus read noise


def test_a_camera_frame_has_no_instance_masks() -> None:
    frame = render_boxes([Box("a", (2, 2), 0.4, 0.3)])
    out = SensorModel().apply(frame, np.random.default_rng(0))
    assert out.segmentation is None and out.segment_ids == {}
    assert dataclasses.replace(out, segmentation=frame.segmentation).intrinsics is frame.intrinsics
