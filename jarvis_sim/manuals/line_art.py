"""Booklet line art: dark outlines drawn where the scene has edges, from the render's own buffers.

Three cues find the lines a person would draw: a change of object (segmentation: silhouettes and the
seams between bricks), a fold in the surface (depth second difference: creases such as a stud's rim),
and a change of face shade inside one object (the flat-lit colour: top versus side faces).
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage


def _neighbour_change(a: np.ndarray) -> np.ndarray:
    """Pixels whose right or lower neighbour differs (one-pixel-wide boundaries)."""
    out = np.zeros(a.shape, dtype=bool)
    out[:, :-1] |= a[:, :-1] != a[:, 1:]
    out[:-1, :] |= a[:-1, :] != a[1:, :]
    return out


def edge_mask(
    rgb: np.ndarray,
    depth: np.ndarray,
    segments: np.ndarray,
    focal_px: float,
    *,
    crease: float = 0.6,
    shade_step: float = 14.0,
) -> np.ndarray:
    """Boolean (H, W) edges from segment changes, depth creases and shade steps within a segment.

    `crease`: threshold on the change of depth slope between neighbouring pixels, in units of the
    pixel's lateral size (depth / focal_px), so it means the same at any distance and image size; a
    flat face at any slant gives 0, a stud's rim about 1. `shade_step`: luminance jump (0-255)
    between neighbours that counts as a fold.
    """
    edges = _neighbour_change(segments)
    d = depth.astype(np.float64)
    # Second differences along both axes; planes (any slant) give zero, folds and steps do not.
    lap = np.zeros_like(d)
    lap[1:-1, :] += np.abs(d[:-2, :] - 2 * d[1:-1, :] + d[2:, :])
    lap[:, 1:-1] += np.abs(d[:, :-2] - 2 * d[:, 1:-1] + d[:, 2:])
    foreground = segments >= 0
    edges |= (lap * focal_px / np.maximum(d, 1e-6) > crease) & foreground
    lum = rgb.astype(np.float32) @ np.array([0.299, 0.587, 0.114], np.float32)
    same = np.zeros(segments.shape, dtype=bool)
    jump = np.zeros(segments.shape, dtype=bool)
    same[:, :-1] = segments[:, :-1] == segments[:, 1:]
    jump[:, :-1] = np.abs(lum[:, :-1] - lum[:, 1:]) > shade_step
    edges |= same & jump & foreground
    same[:] = False
    jump[:] = False
    same[:-1, :] = segments[:-1, :] == segments[1:, :]
    jump[:-1, :] = np.abs(lum[:-1, :] - lum[1:, :]) > shade_step
    edges |= same & jump & foreground
    return edges


def draw_lines(
    rgb: np.ndarray,
    edges: np.ndarray,
    colour: tuple[int, int, int],
    width_px: float,
    on_dark: tuple[int, int, int] = (120, 124, 132),
) -> np.ndarray:
    """The image with the edges drawn as soft lines about `width_px` wide.

    Lines over dark parts use the lighter `on_dark` colour, as booklets do for black bricks, so their
    studs stay countable.
    """
    steps = int(max(0.0, width_px - 1.0) // 2)  # each dilation step widens the line by 2 px
    mask = edges.astype(np.float32)
    if steps >= 1:  # (iterations=0 would mean "until nothing changes": the whole image)
        mask = ndimage.binary_dilation(edges, iterations=steps).astype(np.float32)
    # A light blur anti-aliases the one-pixel staircase of the boundaries.
    alpha = np.clip(ndimage.gaussian_filter(mask, 0.6) * 1.4, 0.0, 1.0)[..., None]
    lum = ndimage.uniform_filter(rgb.astype(np.float32) @ np.array([0.299, 0.587, 0.114], np.float32), 5)
    ink = np.where((lum < 48)[..., None], np.asarray(on_dark, np.float32), np.asarray(colour, np.float32))
    out = rgb.astype(np.float32) * (1 - alpha) + ink * alpha
    return np.clip(out + 0.5, 0, 255).astype(np.uint8)
