"""Finishing a raw render into a style's look: booklet line art, or a photograph's vignette and grain."""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from jarvis_sim.manuals.line_art import draw_lines, edge_mask
from jarvis_sim.manuals.styles import ManualStyle


def line_width_px(size: tuple[int, int]) -> float:
    """Outline width for an image size: 2 px at 800 x 600, growing with the image."""
    return max(1.0, 2.0 * min(size) / 600)


def dark_parts(rgb: np.ndarray, segments: np.ndarray, threshold: float = 45.0) -> np.ndarray:
    """Pixels of segments whose median luminance is below `threshold` (black, dark grey, dark blue)."""
    lum = rgb.astype(np.float32) @ np.array([0.299, 0.587, 0.114], np.float32)
    out = np.zeros(segments.shape, dtype=bool)
    for seg in np.unique(segments):
        if seg < 0:
            continue
        m = segments == seg
        if np.median(lum[m]) < threshold:
            out |= m
    # Include the boundary pixels just outside, where silhouette lines are found.
    return ndimage.binary_dilation(out, iterations=1)


def photo_finish(rgb: np.ndarray, seed: int = 0) -> np.ndarray:
    """A slight lens blur, vignette and sensor grain; the same seed gives the same image."""
    img = ndimage.gaussian_filter(rgb.astype(np.float32), sigma=(0.6, 0.6, 0))
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    r2 = ((xx - w / 2) / (w / 2)) ** 2 + ((yy - h / 2) / (h / 2)) ** 2
    img *= (1.0 - 0.22 * np.clip(r2, 0, 2) / 2)[..., None]
    img += np.random.default_rng(seed).normal(0.0, 2.5, size=img.shape).astype(np.float32)
    return np.clip(img + 0.5, 0, 255).astype(np.uint8)


def finish(
    style: ManualStyle,
    rgb: np.ndarray,
    depth: np.ndarray | None,
    segments: np.ndarray | None,
    focal_px: float,
    seed: int = 0,
) -> np.ndarray:
    """The style's finished image from a raw render (depth and segments are needed for line art)."""
    out = rgb
    size = (rgb.shape[1], rgb.shape[0])
    if style.line_art:
        if depth is None or segments is None:
            raise ValueError(f"style {style.name!r} draws line art and needs depth and segments")
        out = draw_lines(out, edge_mask(out, depth, segments, focal_px), style.outline_rgb, line_width_px(size))
    elif depth is not None and segments is not None:
        # Shading alone leaves black and dark grey parts as blobs whose studs cannot be counted: trace
        # their edges with a faint light line, nothing else.
        edges = edge_mask(out, depth, segments, focal_px) & dark_parts(out, segments)
        out = draw_lines(out, edges, (110, 114, 122), 1.0)
    if style.photo_finish:
        out = photo_finish(out, seed)
    return out
