"""The visual styles a manual can be rendered in, registered by name.

A style is plain data: how the scene is lit and dressed (background, table, shadows, plastic sheen) and
how the image is finished (line art, photo grain). Robustness studies compare agents across styles, so
every style shows the same geometry from the same viewpoint; only the look changes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from jarvis_sim.registry import Registry, UnknownName

RGB = tuple[int, int, int]
TableKind = Literal["none", "grid", "wood"]


@dataclass(frozen=True)
class Lighting:
    """MuJoCo lighting: the camera headlight and one key light from above the viewer's left shoulder."""

    headlight_ambient: float
    headlight_diffuse: float
    key_diffuse: float
    key_specular: float
    shadows: bool
    shadow_map_size: int = 2048


@dataclass(frozen=True)
class Plastic:
    """Surface of the bricks: MuJoCo material specular, shininess and reflectance."""

    specular: float
    shininess: float
    reflectance: float = 0.0


@dataclass(frozen=True)
class ManualStyle:
    """A named manual look: scene dressing, lighting, brick surface and 2D finishing."""

    name: str
    description: str
    background_top: RGB
    background_bottom: RGB
    table: TableKind
    """none: bricks float on the page; grid: a mat checkered every 4 studs, aligned with the lattice, so
    positions on the table can be read; wood: a wooden table top."""
    lighting: Lighting
    plastic: Plastic
    grid_rgb: tuple[RGB, RGB] = ((226, 234, 242), (238, 243, 248))
    """The two colours of the grid mat's squares."""
    line_art: bool = False
    """Draw dark outlines from segmentation, depth and shading discontinuities (booklet look)."""
    photo_finish: bool = False
    """Vignette, sensor grain and a slight blur, so the image reads as a photograph."""
    outline_rgb: RGB = (28, 28, 32)
    highlight_rgb: RGB = (255, 0, 200)
    """Marks the bricks added in a step; no catalog colour is near this magenta."""
    panel_rgb: RGB = (255, 255, 255)
    text_rgb: RGB = (20, 20, 24)


class UnknownStyleError(UnknownName):
    """An unknown style name; the message lists the valid ones."""


STYLES: Registry[ManualStyle] = Registry("manual style", entry_point_group="jarvis.manual_styles",
                                         unknown=lambda name, known: UnknownStyleError("manual style", name, known))


def register_style(style: ManualStyle) -> ManualStyle:
    """Add a style; a second, different style under the same name is an error."""
    if style.name in STYLES.names() and STYLES.get(style.name) != style:
        raise ValueError(f"manual style {style.name!r} registered twice")
    return STYLES.add(style.name, style)


def manual_styles() -> dict[str, ManualStyle]:
    """Every registered manual style, by name."""
    return dict(STYLES.items())


def get_style(name: str) -> ManualStyle:
    """The style with this name; an unknown name raises UnknownStyleError listing the valid ones."""
    return STYLES.get(name)


BOOKLET = register_style(
    ManualStyle(
        name="booklet",
        description="Printed instruction booklet: flat colours, dark outlines, pale blue page and grid mat.",
        background_top=(214, 228, 240),
        background_bottom=(214, 228, 240),
        table="grid",
        # Mostly ambient light keeps colours close to the catalog values; a little directional light
        # still separates top and side faces, as booklets do.
        lighting=Lighting(headlight_ambient=0.55, headlight_diffuse=0.25, key_diffuse=0.3, key_specular=0.0, shadows=False),
        plastic=Plastic(specular=0.0, shininess=0.0),
        line_art=True,
    )
)

SHADED = register_style(
    ManualStyle(
        name="shaded",
        description="Shaded 3D render: smooth lighting and glossy plastic on a plain grey studio floor.",
        background_top=(236, 238, 242),
        background_bottom=(188, 192, 200),
        table="grid",
        grid_rgb=((198, 201, 207), (214, 217, 222)),
        lighting=Lighting(headlight_ambient=0.25, headlight_diffuse=0.45, key_diffuse=0.45, key_specular=0.3, shadows=False),
        plastic=Plastic(specular=0.5, shininess=0.6),
    )
)

PHOTO = register_style(
    ManualStyle(
        name="photo",
        description="Photo-like: a wooden table, cast shadows, glossy plastic, vignette and sensor grain.",
        background_top=(120, 112, 104),
        background_bottom=(60, 54, 48),
        table="wood",
        lighting=Lighting(
            headlight_ambient=0.18, headlight_diffuse=0.25, key_diffuse=0.75, key_specular=0.45, shadows=True, shadow_map_size=4096
        ),
        plastic=Plastic(specular=0.6, shininess=0.75, reflectance=0.02),
        photo_finish=True,
        panel_rgb=(250, 248, 242),
    )
)
