"""LDraw colour codes for the common solid colours, with RGB and a human name.

Values follow LDraw's LDConfig.ldr for these codes. Code 16 ("main colour") means "inherit the parent's
colour" and is resolved at the LDraw boundary, never stored in an Assembly.
"""

from __future__ import annotations

from dataclasses import dataclass

INHERIT = 16


@dataclass(frozen=True)
class Color:
    """An LDraw colour: its code, name and sRGB value (0-255)."""

    code: int
    name: str
    rgb: tuple[int, int, int]

    @property
    def rgb_float(self) -> tuple[float, float, float]:
        """The colour as floats in [0, 1]."""
        return (self.rgb[0] / 255.0, self.rgb[1] / 255.0, self.rgb[2] / 255.0)

    @property
    def hex(self) -> str:
        """The colour as #RRGGBB."""
        return "#{:02X}{:02X}{:02X}".format(*self.rgb)


_TABLE: tuple[tuple[int, str, str], ...] = (
    (0, "black", "05131D"),
    (1, "blue", "0055BF"),
    (2, "green", "257A3E"),
    (4, "red", "C91A09"),
    (5, "dark pink", "C870A0"),
    (6, "brown", "583927"),
    (7, "light grey", "9BA19D"),
    (8, "dark grey", "6D6E5C"),
    (10, "bright green", "4B9F4A"),
    (14, "yellow", "F2CD37"),
    (15, "white", "FFFFFF"),
    (19, "tan", "E4CD9E"),
    (25, "orange", "FE8A18"),
    (26, "magenta", "923978"),
    (27, "lime", "BBE90B"),
    (28, "dark tan", "958A73"),
    (70, "reddish brown", "582A12"),
    (71, "light bluish grey", "A0A5A9"),
    (72, "dark bluish grey", "6C6E68"),
    (73, "medium blue", "5A93DB"),
    (84, "medium nougat", "AA7D55"),
    (272, "dark blue", "0A3463"),
    (288, "dark green", "184632"),
    (320, "dark red", "720E0F"),
)

COLORS: dict[int, Color] = {
    code: Color(code, name, (int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16))) for code, name, h in _TABLE
}


def color(code: int) -> Color:
    """The colour for an LDraw code; an unknown code raises KeyError listing the known ones."""
    try:
        return COLORS[code]
    except KeyError:
        raise KeyError(f"unknown LDraw colour code {code}; known: {sorted(COLORS)}") from None


def color_by_name(name: str) -> Color:
    """The colour with this name (case-insensitive)."""
    for c in COLORS.values():
        if c.name == name.lower():
            return c
    raise KeyError(f"unknown colour name {name!r}; known: {sorted(c.name for c in COLORS.values())}")
