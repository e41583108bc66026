"""Maze images in the pixel-art look of the VSP maps: snowy ice, blue holes, a gift as the goal, an elf.

Tiles are drawn here with PIL on a 32x32 art grid and doubled to 64 px per cell, like gym's
FrozenLake renderer that produced the official maps (its newer art and its pygame dependency are
not used). Cell borders are one pixel of (180, 200, 230), as in the official images.
"""

from __future__ import annotations

import random
from functools import lru_cache
from pathlib import Path

from PIL import Image, ImageDraw

from jarvis_sim.vsp.maze import MazeMap

CELL = 64
ART = 32
BORDER = (180, 200, 230)
SNOW = (255, 255, 255)
SNOW_MID = (235, 245, 249)
SNOW_SHADE = (204, 230, 255)


def _snow(seed: int) -> Image.Image:
    """A snow tile: white with soft pale-blue drifts."""
    img = Image.new("RGB", (ART, ART), SNOW)
    d = ImageDraw.Draw(img)
    rng = random.Random(seed)
    for y in range(2, ART, 7):
        x0 = rng.randrange(-8, 8)
        while x0 < ART:
            length = rng.randrange(6, 13)
            d.line([(x0, y), (x0 + length, y + rng.choice((-1, 0, 1)))], fill=SNOW_SHADE, width=2)
            d.line([(x0 + 1, y - 1), (x0 + length - 2, y - 1)], fill=SNOW_MID)
            x0 += length + rng.randrange(4, 9)
    for _ in range(10):
        d.point((rng.randrange(ART), rng.randrange(ART)), fill=SNOW_MID)
    return img


def _hole() -> Image.Image:
    img = _snow(7)
    d = ImageDraw.Draw(img)
    d.ellipse([2, 3, 29, 29], fill=(30, 119, 191))
    d.ellipse([3, 4, 28, 27], fill=(61, 202, 242))
    d.ellipse([6, 6, 26, 24], fill=(86, 227, 247))
    for k in range(4):  # glints across the water
        x = 8 + 5 * k
        d.line([(x, 20), (x + 6, 9)], fill=(156, 247, 255), width=1)
    d.arc([3, 4, 28, 27], 20, 160, fill=(40, 169, 249))
    return img


def _goal() -> Image.Image:
    img = _snow(11)
    d = ImageDraw.Draw(img)
    d.rectangle([8, 24, 25, 26], fill=SNOW_SHADE)  # shadow
    d.rectangle([8, 12, 24, 25], fill=(43, 43, 69))
    d.rectangle([9, 13, 23, 24], fill=(76, 104, 133))
    d.rectangle([9, 13, 23, 15], fill=(79, 164, 184))
    d.rectangle([15, 12, 17, 25], fill=(207, 117, 43))  # ribbon
    d.rectangle([8, 17, 24, 18], fill=(171, 81, 48))
    d.polygon([(16, 12), (10, 7), (10, 12)], fill=(240, 181, 65))  # bow
    d.polygon([(16, 12), (22, 7), (22, 12)], fill=(240, 181, 65))
    d.rectangle([15, 10, 17, 12], fill=(207, 117, 43))
    return img


def _player(base: Image.Image) -> Image.Image:
    img = base.copy()
    d = ImageDraw.Draw(img)
    d.ellipse([10, 26, 22, 28], fill=SNOW_SHADE)  # shadow
    d.polygon([(16, 3), (10, 11), (22, 11)], fill=(99, 171, 63))  # hat
    d.rectangle([10, 10, 22, 11], fill=(230, 69, 57))
    d.rectangle([11, 12, 21, 17], fill=(255, 194, 161))  # face
    d.point([(13, 14), (19, 14)], fill=(82, 51, 63))
    d.rectangle([9, 13, 10, 15], fill=(208, 156, 142))  # ears
    d.rectangle([22, 13, 23, 15], fill=(208, 156, 142))
    d.rectangle([11, 18, 21, 23], fill=(59, 125, 79))  # tunic
    d.rectangle([11, 21, 21, 21], fill=(173, 47, 69))
    d.rectangle([12, 24, 14, 26], fill=(143, 77, 87))  # boots
    d.rectangle([18, 24, 20, 26], fill=(143, 77, 87))
    return img


def _scaled(img: Image.Image) -> Image.Image:
    return img.resize((CELL, CELL), Image.Resampling.NEAREST)


@lru_cache(maxsize=1)
def tiles() -> dict[str, Image.Image]:
    """The 64 px tiles: '_' land (two variants), '#' hole, '*' goal, '@' player, '%' player on goal."""
    return {
        "_": _scaled(_snow(1)), "_b": _scaled(_snow(2)), "#": _scaled(_hole()),
        "*": _scaled(_goal()), "@": _scaled(_player(_snow(3))), "%": _scaled(_player(_goal())),
    }


def render(maze: MazeMap) -> Image.Image:
    """The map as an RGB image, 64 px per cell."""
    t = tiles()
    n = maze.size
    img = Image.new("RGB", (CELL * n, CELL * n))
    d = ImageDraw.Draw(img)
    for r in range(n):
        for c in range(n):
            sym = maze.symbol((r, c))
            tile = t["_b"] if sym == "_" and (r * 3 + c * 5) % 4 == 0 else t[sym]
            img.paste(tile, (c * CELL, r * CELL))
            d.rectangle([c * CELL, r * CELL, c * CELL + CELL - 1, r * CELL + CELL - 1], outline=BORDER)
    return img


def save(maze: MazeMap, path: Path) -> None:
    """Render and write a PNG."""
    path.parent.mkdir(parents=True, exist_ok=True)
    render(maze).save(path, format="PNG", optimize=False)


def legend(path: Path) -> None:
    """The explanation figure: the four tile kinds side by side with their names."""
    t = tiles()
    names = [("@", "Player"), ("#", "Hole"), ("_", "Land"), ("*", "Goal")]
    img = Image.new("RGB", (4 * 96, CELL + 40), (255, 255, 255))
    d = ImageDraw.Draw(img)
    for k, (sym, name) in enumerate(names):
        img.paste(t[sym], (k * 96 + 16, 8))
        d.text((k * 96 + 48 - 3 * len(name), CELL + 16), name, fill=(40, 40, 40))
    path.parent.mkdir(parents=True, exist_ok=True)
    img.save(path, format="PNG")
