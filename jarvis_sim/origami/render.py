"""Images without a GPU: crease-pattern drawings (PIL) and a small numpy z-buffer rasteriser for folds.

Every 3D view uses the same camera distance, field of view and camera-relative lighting, so views
differ only by direction. The model is centred and scaled to a unit bounding sphere first.
"""

from __future__ import annotations

import io
import math

import numpy as np
from numpy.typing import NDArray
from PIL import Image, ImageDraw, ImageFont

from jarvis_sim.origami.fold_format import CreasePattern
from jarvis_sim.origami.simulate import FoldedMesh

VIEWS = ("front", "back", "top", "bottom", "left", "right")
# Camera directions (from the object towards the camera). Side views are raised 30 degrees: a folded
# sheet seen exactly edge-on is a line, which no one can recognise.
_ELEV = math.radians(30.0)
_VIEW_DIRS = {
    "front": (0.0, -math.cos(_ELEV), math.sin(_ELEV)),
    "back": (0.0, math.cos(_ELEV), math.sin(_ELEV)),
    "left": (-math.cos(_ELEV), 0.0, math.sin(_ELEV)),
    "right": (math.cos(_ELEV), 0.0, math.sin(_ELEV)),
    "top": (0.0, -0.2, 1.0),
    "bottom": (0.0, -0.2, -1.0),
}
CAMERA_DISTANCE = 3.4  # in bounding-sphere radii
FOV_DEG = 40.0
FRONT_RGB = np.array([222.0, 92.0, 52.0])  # coloured side of the paper
BACK_RGB = np.array([238.0, 232.0, 214.0])  # white side
BACKGROUND = (255, 255, 255)
AMBIENT = 0.38
MOUNTAIN_RGB = (215, 25, 32)
VALLEY_RGB = (30, 70, 220)


def crease_pattern_image(cp: CreasePattern, size: int = 512) -> Image.Image:
    """Red mountain, blue valley, black border on white paper; flat (F) creases light grey."""
    scale = 4  # draw large, then downsample: anti-aliased lines
    big = size * scale
    img = Image.new("RGB", (big, big), BACKGROUND)
    draw = ImageDraw.Draw(img)
    lo = cp.vertices.min(axis=0)
    span = float((cp.vertices.max(axis=0) - lo).max()) or 1.0
    margin = 0.06 * big

    def px(v: NDArray[np.float64]) -> tuple[float, float]:
        x = margin + (v[0] - lo[0]) / span * (big - 2 * margin)
        y = big - margin - (v[1] - lo[1]) / span * (big - 2 * margin)
        return (float(x), float(y))

    colours = {"M": MOUNTAIN_RGB, "V": VALLEY_RGB, "F": (190, 190, 190), "U": (120, 120, 120), "B": (0, 0, 0)}
    order = sorted(range(len(cp.edges)), key=lambda e: cp.assignments[e] == "B")  # border on top
    for e in order:
        a, b = cp.edges[e]
        kind = cp.assignments[e]
        width = (3 if kind == "B" else 2) * scale
        draw.line([px(cp.vertices[a]), px(cp.vertices[b])], fill=colours.get(kind, (0, 0, 0)), width=width)
    return img.resize((size, size), Image.Resampling.LANCZOS)


def _look_at(direction: tuple[float, float, float]) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    d = np.array(direction, dtype=float)
    d /= np.linalg.norm(d)
    eye = d * CAMERA_DISTANCE
    forward = -d
    up_hint = np.array([0.0, 0.0, 1.0]) if abs(d[2]) < 0.9 else np.array([0.0, 1.0, 0.0])
    right = np.cross(forward, up_hint)
    right /= np.linalg.norm(right)
    up = np.cross(right, forward)
    return eye, np.stack([right, up, forward])


def normalise(mesh: FoldedMesh) -> NDArray[np.float64]:
    """Triangles centred on the bounding-box centre and scaled to a unit bounding sphere."""
    pts = mesh.triangles.reshape(-1, 3)
    centre = (pts.min(axis=0) + pts.max(axis=0)) / 2
    radius = float(np.linalg.norm(pts - centre, axis=1).max()) or 1.0
    return np.asarray((mesh.triangles - centre) / radius)


def render_view(mesh: FoldedMesh, view: str, size: int = 256, supersample: int = 2) -> Image.Image:
    """One view of a folded model, shaded by camera-relative light, front and back sides coloured."""
    if view not in _VIEW_DIRS:
        raise ValueError(f"unknown view {view!r}; known: {', '.join(VIEWS)}")
    tris = normalise(mesh)
    eye, basis = _look_at(_VIEW_DIRS[view])
    n = size * supersample
    cam = (tris - eye) @ basis.T  # x right, y up, z forward (depth)
    f = 0.5 * n / math.tan(math.radians(FOV_DEG) / 2)
    depth = cam[:, :, 2]
    sx = n / 2 + f * cam[:, :, 0] / depth
    sy = n / 2 - f * cam[:, :, 1] / depth
    normals = mesh.normals() if len(mesh.triangles) else np.zeros((0, 3))
    normals_cam = normals @ basis.T
    # Light from above-left of the camera, plus a headlight share: the same for every view.
    light = np.array([-0.45, 0.55, -0.70])
    light /= np.linalg.norm(light)
    facing_front = normals_cam[:, 2] < 0  # the front normal points towards the camera
    shade_n = np.where(facing_front[:, None], normals_cam, -normals_cam)
    lambert = np.clip(shade_n @ light, 0.0, 1.0)
    intensity = AMBIENT + (1 - AMBIENT) * lambert
    colours = np.where(facing_front[:, None], FRONT_RGB, BACK_RGB) * intensity[:, None]
    image = np.empty((n, n, 3))
    image[:] = BACKGROUND
    zbuf = np.full((n, n), np.inf)
    for k in range(len(tris)):
        _raster(sx[k], sy[k], depth[k], colours[k], image, zbuf)
    img = Image.fromarray(np.clip(image, 0, 255).astype(np.uint8))
    return img.resize((size, size), Image.Resampling.BOX) if supersample > 1 else img


def _raster(xs: NDArray[np.float64], ys: NDArray[np.float64], zs: NDArray[np.float64], colour: NDArray[np.float64],
            image: NDArray[np.float64], zbuf: NDArray[np.float64]) -> None:
    h, w = zbuf.shape
    x0, x1 = max(math.floor(xs.min()), 0), min(math.ceil(xs.max()), w - 1)
    y0, y1 = max(math.floor(ys.min()), 0), min(math.ceil(ys.max()), h - 1)
    if x0 > x1 or y0 > y1:
        return
    area = (xs[1] - xs[0]) * (ys[2] - ys[0]) - (xs[2] - xs[0]) * (ys[1] - ys[0])
    if abs(area) < 1e-9:
        return
    gx, gy = np.meshgrid(np.arange(x0, x1 + 1) + 0.5, np.arange(y0, y1 + 1) + 0.5)
    w0 = ((xs[1] - gx) * (ys[2] - gy) - (xs[2] - gx) * (ys[1] - gy)) / area
    w1 = ((xs[2] - gx) * (ys[0] - gy) - (xs[0] - gx) * (ys[2] - gy)) / area
    w2 = 1 - w0 - w1
    inside = (w0 >= -1e-9) & (w1 >= -1e-9) & (w2 >= -1e-9)
    if not inside.any():
        return
    # Perspective-correct depth: interpolate 1/z in screen space.
    inv_z = w0 / zs[0] + w1 / zs[1] + w2 / zs[2]
    z = 1.0 / np.maximum(inv_z, 1e-12)
    sub = zbuf[y0 : y1 + 1, x0 : x1 + 1]
    win = inside & (z < sub - 1e-6)
    sub[win] = z[win]
    image[y0 : y1 + 1, x0 : x1 + 1][win] = colour


def png_bytes(img: Image.Image) -> bytes:
    """Deterministic PNG encoding (no metadata, fixed compression)."""
    buf = io.BytesIO()
    img.save(buf, format="PNG", optimize=False, compress_level=6)
    return buf.getvalue()


def composite(candidates: list[Image.Image], labels: list[str], tile: int = 256) -> Image.Image:
    """Candidate renders in a 2x2 grid, each labelled with its letter, as one prompt image."""
    cols = 2
    rows = math.ceil(len(candidates) / cols)
    pad = 28
    out = Image.new("RGB", (cols * tile, rows * (tile + pad)), (255, 255, 255))
    draw = ImageDraw.Draw(out)
    font = ImageFont.load_default(size=22)
    for k, (img, label) in enumerate(zip(candidates, labels, strict=True)):
        x, y = (k % cols) * tile, (k // cols) * (tile + pad)
        out.paste(img.resize((tile, tile)), (x, y + pad))
        draw.text((x + 8, y + 2), f"({label})", fill=(0, 0, 0), font=font)
        draw.rectangle([x, y + pad, x + tile - 1, y + pad + tile - 1], outline=(180, 180, 180))
    return out
