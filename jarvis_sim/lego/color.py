"""What one LDraw colour is: code, name, sRGB, opacity, material.

Kept apart from the colour tables (jarvis_sim.lego.colors) so that the user's LDraw library, whose
LDConfig adds colours, can build a `Color` without importing the tables that consult it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Color:
    """An LDraw colour: its code, name, sRGB value (0-255), opacity (0-255) and material."""

    code: int
    name: str
    rgb: tuple[int, int, int]
    alpha: int = 255
    material: str = "solid"

    @property
    def rgb_float(self) -> tuple[float, float, float]:
        """The colour as floats in [0, 1]."""
        return (self.rgb[0] / 255.0, self.rgb[1] / 255.0, self.rgb[2] / 255.0)

    @property
    def hex(self) -> str:
        """The colour as #RRGGBB."""
        return "#{:02X}{:02X}{:02X}".format(*self.rgb)
