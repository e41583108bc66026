"""Blocks-world images: photo-like 256x256 pictures of coloured wooden cubes on a pale table.

Drawn with PIL and numpy (no renderer needed): a soft wall-to-table gradient, cubes with a lit top
face, a shaded side face and a contact shadow, slight jitter in position and tint, a touch of blur
and sensor noise, saved as JPEG like the official pictures. Stacks stand left to right in order.
"""

from __future__ import annotations

import random
from functools import lru_cache
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFilter

from jarvis_sim.vsp.blocks import BlocksState

SIZE = 256
BLOCK = 26
DEPTH = 6  # pixels of the receding top and side faces
BASE_Y = 200
RGB = {
    "blue": (28, 108, 168), "yellow": (244, 200, 36), "purple": (78, 48, 128),
    "orange": (236, 122, 48), "red": (168, 32, 42), "green": (58, 138, 62),
}


@lru_cache(maxsize=1)
def _background() -> np.ndarray:
    y = np.linspace(0.0, 1.0, SIZE)[:, None]
    wall = np.array([236.0, 236.0, 238.0])
    table = np.array([214.0, 214.0, 217.0])
    t = np.clip((y - 0.45) / 0.25, 0.0, 1.0)[..., None]
    img = wall * (1 - t) + table * t - 10.0 * (y[..., None] - 0.5) ** 2
    return np.broadcast_to(img, (SIZE, SIZE, 3)).copy()


def _shade(rgb: tuple[int, int, int], k: float) -> tuple[int, int, int]:
    return tuple(int(max(0, min(255, c * k))) for c in rgb)  # type: ignore[return-value]


def render(state: BlocksState, seed: int = 0) -> Image.Image:
    """The configuration as a 256x256 RGB picture."""
    rng = random.Random(seed)
    img = Image.fromarray(_background().astype(np.uint8))
    shadow = Image.new("L", (SIZE, SIZE), 0)
    sd = ImageDraw.Draw(shadow)
    n = len(state.stacks)
    pitch = min(48, (SIZE - 40) // max(n, 1))
    x0 = (SIZE - pitch * (n - 1)) // 2 - BLOCK // 2
    d = ImageDraw.Draw(img)
    boxes = []
    for i, stack in enumerate(state.stacks):
        x = x0 + i * pitch + rng.randint(-2, 2)
        sd.ellipse([x - 4, BASE_Y - 5, x + BLOCK + DEPTH + 6, BASE_Y + 6], fill=90)
        y = BASE_Y
        for block in stack:
            jx = rng.randint(-2, 2)
            tint = rng.uniform(0.93, 1.05)
            boxes.append((x + jx, y - BLOCK, _shade(RGB[block], tint)))
            y -= BLOCK
    img.paste((120, 120, 125), (0, 0), shadow.filter(ImageFilter.GaussianBlur(4)))
    for bx, by, col in boxes:
        front = [bx, by, bx + BLOCK, by + BLOCK]
        top = [(bx, by), (bx + DEPTH, by - DEPTH), (bx + BLOCK + DEPTH, by - DEPTH), (bx + BLOCK, by)]
        side = [(bx + BLOCK, by), (bx + BLOCK + DEPTH, by - DEPTH), (bx + BLOCK + DEPTH, by + BLOCK - DEPTH),
                (bx + BLOCK, by + BLOCK)]
        d.polygon(top, fill=_shade(col, 1.25))
        d.polygon(side, fill=_shade(col, 0.72))
        d.rectangle(front, fill=col)
        d.line([(bx, by + BLOCK - 1), (bx + BLOCK, by + BLOCK - 1)], fill=_shade(col, 0.8))
    img = img.filter(ImageFilter.GaussianBlur(0.7))
    noise = np.random.default_rng(seed).normal(0.0, 2.0, (SIZE, SIZE, 1))
    arr = np.clip(np.asarray(img, dtype=np.float32) + noise, 0, 255).astype(np.uint8)
    return Image.fromarray(arr)


def save(state: BlocksState, path: Path, seed: int = 0) -> None:
    """Render and write a JPEG."""
    path.parent.mkdir(parents=True, exist_ok=True)
    render(state, seed).save(path, format="JPEG", quality=90)
