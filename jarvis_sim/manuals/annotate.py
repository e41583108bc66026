"""2D annotation of a manual page: the new bricks marked, the parts callout and the step number.

Works on plain arrays and PIL images (no simulator), so the page layout is testable on its own. The
font is DejaVu Sans, which ships with matplotlib, so no system font is needed.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

import numpy as np
from PIL import Image, ImageDraw, ImageFont
from scipy import ndimage

RGB = tuple[int, int, int]

# The structure is framed right of this fraction of the page width; the callout and number live left of it.
LEFT_COLUMN = 0.27


@cache
def font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    """DejaVu Sans (regular or bold) at a pixel size, from matplotlib's bundled fonts."""
    from matplotlib import font_manager

    path = font_manager.findfont(
        font_manager.FontProperties(family="DejaVu Sans", weight="bold" if bold else "normal"), fallback_to_default=True
    )
    return ImageFont.truetype(path, size)


def highlight_ring(visible: np.ndarray, width_px: int) -> np.ndarray:
    """The band of pixels just outside the visible part of the new bricks, where the mark is painted."""
    return ndimage.binary_dilation(visible, iterations=max(1, width_px)) & ~visible


def hidden_contour(visible: np.ndarray, silhouette: np.ndarray, width_px: int) -> np.ndarray:
    """A thin line along the edge of the parts of the new bricks that something else hides."""
    hidden = silhouette & ~visible
    if not hidden.any():
        return hidden
    edge = hidden & ~ndimage.binary_erosion(silhouette, iterations=max(1, width_px))
    return edge & ~ndimage.binary_dilation(visible, iterations=1)


def mark_new_bricks(
    rgb: np.ndarray,
    visible: np.ndarray,
    silhouette: np.ndarray,
    colour: RGB,
    outline: RGB,
    width_px: int,
) -> np.ndarray:
    """Paint a coloured band around the new bricks, and trace the parts others hide with a thin line.

    `visible`: pixels where a new brick is in front; `silhouette`: where it would be with nothing in front.
    Brick pixels themselves keep their true colour.
    """
    out = rgb.copy()
    col = np.asarray(colour, np.uint8)
    out[hidden_contour(visible, silhouette, max(1, width_px // 2))] = col
    ring = highlight_ring(visible, width_px)
    rim = ndimage.binary_dilation(ring, iterations=1) & ~ring & ~visible
    out[rim] = np.asarray(outline, np.uint8)
    out[ring] = col
    return out


def draw_arrow(draw: ImageDraw.ImageDraw, tip: tuple[float, float], length: float, colour: RGB, outline: RGB) -> None:
    """A thick downward arrow ending at `tip` (the brick goes down onto the studs there)."""
    x, y = tip
    head = length * 0.42
    shaft = length * 0.16
    pts = [
        (x - shaft, y - length),
        (x + shaft, y - length),
        (x + shaft, y - head),
        (x + head * 0.75, y - head),
        (x, y),
        (x - head * 0.75, y - head),
        (x - shaft, y - head),
    ]
    draw.polygon(pts, fill=colour, outline=outline, width=max(1, round(length / 28)))


def arrow_tips(silhouette: np.ndarray, gap_px: float) -> tuple[float, float] | None:
    """Where an arrow onto a brick ends: above the top of its silhouette, horizontally at its middle."""
    ys, xs = np.nonzero(silhouette)
    if ys.size == 0:
        return None
    top = ys.min()
    near_top = xs[ys <= top + max(2, (ys.max() - top) * 0.15)]
    return (float(near_top.mean()), float(top) - gap_px)


@dataclass(frozen=True)
class CalloutPart:
    """One line of the parts callout: how many, the part's picture and its name and colour."""

    count: int
    icon: Image.Image
    part_name: str
    colour_name: str
    part_number: str


def draw_panel(draw: ImageDraw.ImageDraw, box: tuple[float, float, float, float], fill: RGB, outline: RGB, scale: float) -> None:
    """A rounded panel with a thin border."""
    draw.rounded_rectangle(box, radius=max(3, round(10 * scale)), fill=fill, outline=outline, width=max(1, round(2 * scale)))


def draw_callout(
    page: Image.Image, parts: list[CalloutPart], *, panel: RGB, text: RGB, border: RGB, max_width: float
) -> tuple[float, float, float, float]:
    """Draw the 'parts needed for this step' panel at the top left; return its box."""
    h = page.size[1]
    scale = h / 600
    pad = round(10 * scale)
    draw = ImageDraw.Draw(page)
    f_count, f_label, f_small = font(round(22 * scale), bold=True), font(round(13 * scale)), font(round(11 * scale))
    x0 = y0 = round(12 * scale)
    rows: list[tuple[CalloutPart, Image.Image, list[str]]] = []
    inner = max_width - 2 * pad
    icon_room = inner - (ImageDraw.Draw(page).textlength("9x", font=f_count) + pad)
    for p in parts:
        icon = p.icon
        if icon.width > icon_room:
            icon = icon.resize(
                (round(icon_room), max(1, round(icon.height * icon_room / icon.width))), Image.Resampling.LANCZOS
            )
        rows.append((p, icon, [f"{p.part_name} ({p.part_number})", p.colour_name]))
    count_w = draw.textlength("9x", font=f_count) + pad
    content_w = max(
        [count_w + r[1].width for r in rows]
        + [draw.textlength(line, font=f_label) for r in rows for line in r[2]]
        + [draw.textlength("Parts for this step", font=f_small)]
    )
    panel_w = min(max_width, content_w + 2 * pad)
    row_heights = [icon.height + round(4 * scale) + 2 * round(16 * scale) for _, icon, _ in rows]
    panel_h = pad + round(16 * scale) + sum(row_heights) + pad * len(rows)
    box = (x0, y0, x0 + panel_w, y0 + panel_h)
    draw_panel(draw, box, panel, border, scale)
    draw.text((x0 + pad, y0 + pad * 0.6), "Parts for this step", font=f_small, fill=(90, 90, 96))
    y = y0 + pad + round(16 * scale)
    for (p, icon, lines), rh in zip(rows, row_heights, strict=True):
        page.paste(icon, (round(x0 + pad + count_w), round(y)))
        draw.text((x0 + pad, y + icon.height / 2), f"{p.count}x", font=f_count, fill=text, anchor="lm")
        ty = y + icon.height + round(4 * scale)
        for line in lines:
            draw.text((x0 + pad, ty), _fit(draw, line, f_label, inner), font=f_label, fill=text)
            ty += round(16 * scale)
        y += rh + pad
    return box


def _fit(draw: ImageDraw.ImageDraw, line: str, f: ImageFont.FreeTypeFont, width: float) -> str:
    """The line, shortened with an ellipsis if wider than `width` pixels."""
    if draw.textlength(line, font=f) <= width:
        return line
    while line and draw.textlength(line + "…", font=f) > width:
        line = line[:-1]
    return line + "…"


def draw_step_number(
    page: Image.Image, number: int, below: float, *, text: RGB, panel: RGB | None, border: RGB
) -> None:
    """The step number, large and bold, under the callout (on its own panel when `panel` is given)."""
    draw = ImageDraw.Draw(page)
    scale = page.size[1] / 600
    f = font(round(56 * scale), bold=True)
    label = str(number)
    x, y = round(14 * scale), below + round(10 * scale)
    left, top, right, bottom = draw.textbbox((x + round(10 * scale), y), label, font=f)
    if panel is not None:
        pad = round(8 * scale)
        draw_panel(draw, (left - pad, top - pad, right + pad, bottom + pad), panel, border, scale)
    draw.text((x + round(10 * scale), y), label, font=f, fill=text)


def crop_to_content(rgb: np.ndarray, mask: np.ndarray, pad: int) -> Image.Image:
    """The image cropped to the mask's bounding box plus padding."""
    ys, xs = np.nonzero(mask)
    if ys.size == 0:
        return Image.fromarray(rgb)
    h, w = mask.shape
    box = (max(0, xs.min() - pad), max(0, ys.min() - pad), min(w, xs.max() + pad + 1), min(h, ys.max() + pad + 1))
    return Image.fromarray(rgb).crop(box)
