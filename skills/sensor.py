"""A structured-light / active-stereo RGB-D camera's errors, applied to a rendered (exact) frame.

The renderer gives exact depth and colour. A real depth camera of the kind that sits over a robot cell (an Intel
RealSense D415-class active stereo camera) triangulates depth from disparity d = f B / z, so its errors grow with
the square of the distance:
- noise: sigma(z) = z^2 * sigma_d / (f B), with sigma_d the disparity noise in pixels (0.08 px RMS subpixel
  error, B = 55 mm: Keselman et al., "Intel RealSense Stereoscopic Depth Cameras", CVPR Workshops 2017, whose
  depth-RMS formula this is); about 1.6 mm at 0.8 m with this cell's 579 px focal length;
- quantisation: disparity comes in steps of 1/32 px, so depth in steps of z^2 / (32 f B) (0.6 mm at 0.8 m);
- flying pixels: at a depth edge the stereo window straddles both surfaces and returns depths in between;
- exposure: colour scaled by an exposure gain, with photon (shot) noise and read noise, clipped at 255.
Noise comes from a numpy Generator the caller seeds (one per episode), so a seed repeats an episode exactly.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from jarvis_sim.backends.base import CameraFrame


class SensorModel(BaseModel):
    """Error model of the RGB-D camera (defaults: a D415-class active stereo camera, see the module docstring)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    baseline_m: float = Field(0.055, gt=0, description="Stereo baseline B, m.")
    disparity_noise_px: float = Field(0.08, ge=0, description="RMS disparity error sigma_d, px.")
    disparity_step_px: float = Field(1 / 32, ge=0, description="Disparity quantisation, px (0: none).")
    flying_pixel_jump_m: float = Field(0.004, gt=0, description="Depth step between neighbours that makes an edge, m.")
    flying_pixel_prob: float = Field(0.5, ge=0, le=1, description="Share of edge pixels given an in-between depth.")
    exposure_gain: float = Field(1.0, gt=0, description="Colour exposure gain (1: as rendered).")
    shot_noise: float = Field(0.5, ge=0, description="Photon noise: sigma = shot_noise * sqrt(intensity), DN.")
    read_noise_dn: float = Field(2.0, ge=0, description="Read noise sigma, DN.")

    def depth_sigma_m(self, z_m: np.ndarray | float, focal_px: float) -> np.ndarray | float:
        """Depth noise sigma(z) = z^2 sigma_d / (f B), m."""
        return np.square(z_m) * self.disparity_noise_px / (focal_px * self.baseline_m)

    def apply(self, frame: CameraFrame, rng: np.random.Generator) -> CameraFrame:
        """The frame as this camera would have measured it (the renderer's instance masks are dropped)."""
        f = float(frame.intrinsics[0, 0])
        depth = rgb = None
        if frame.depth is not None:
            depth = self._depth(frame.depth.astype(np.float64), f, rng).astype(np.float32)
        if frame.rgb is not None:
            rgb = self._colour(frame.rgb, rng)
        return dataclasses.replace(frame, rgb=rgb, depth=depth, segmentation=None, segment_ids={})

    def _depth(self, z: np.ndarray, f: float, rng: np.random.Generator) -> np.ndarray:
        fb = f * self.baseline_m
        out = z.copy()
        # Flying pixels first (they come from the exact scene's edges): a depth between the two sides of the edge.
        nbr_max = z.copy()
        nbr_min = z.copy()
        for axis in (0, 1):
            for shift in (1, -1):
                rolled = np.roll(z, shift, axis=axis)
                nbr_max = np.maximum(nbr_max, rolled)
                nbr_min = np.minimum(nbr_min, rolled)
        edge = (nbr_max - nbr_min) > self.flying_pixel_jump_m
        edge[0, :] = edge[-1, :] = edge[:, 0] = edge[:, -1] = False  # np.roll wraps around the border
        flying = edge & (rng.random(z.shape) < self.flying_pixel_prob)
        mix = rng.random(z.shape)
        out[flying] = (mix * nbr_min + (1 - mix) * nbr_max)[flying]
        # Noise in disparity, then quantised disparity, back to depth.
        disparity = fb / np.maximum(out, 1e-6)
        disparity += rng.normal(0.0, self.disparity_noise_px, z.shape)
        if self.disparity_step_px > 0:
            disparity = np.round(disparity / self.disparity_step_px) * self.disparity_step_px
        return np.where(z > 0, fb / np.maximum(disparity, 1e-6), 0.0)

    def _colour(self, rgb: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        signal = rgb.astype(np.float64) * self.exposure_gain
        sigma = np.sqrt(np.square(self.shot_noise) * np.maximum(signal, 0.0) + np.square(self.read_noise_dn))
        noisy = signal + rng.normal(0.0, 1.0, rgb.shape) * sigma
        return np.clip(np.round(noisy), 0, 255).astype(np.uint8)
