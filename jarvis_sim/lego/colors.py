"""LDraw colour codes, with RGB and a human name.

Two tables:
- `COLORS`, the 24 common solid colours the generator, renders and perception use. Their RGB values
  are the ones the renders and the perception's colour naming were calibrated on (an earlier LDConfig
  revision); a scene never holds a colour outside this palette unless a user's model brings one.
- `LDRAW_COLORS`, every colour of LDraw's published LDConfig.ldr (assets/ldraw/colours.tsv: code, name,
  RGB, alpha, material), overlaid with `COLORS`; LDraw import accepts any of these. Where a user has an
  LDraw library (`LDRAWDIR`), its own LDConfig.ldr adds or overrides codes (jarvis_sim.lego.ldraw_library).

Code 16 ("main colour") means "inherit the parent's colour" and is resolved at the LDraw boundary,
never stored in an Assembly. Direct colours are not stored either: import maps them to the nearest
colour of the table (`direct_colour` decodes them, `nearest_ldconfig_colour` picks the match).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from jarvis_sim.lego.color import Color
from jarvis_sim.lego.ldraw_library import library_colours
from jarvis_sim.paths import assets_dir

INHERIT = 16
EDGE = 24


def _rgb(h: str) -> tuple[int, int, int]:
    return (int(h[0:2], 16), int(h[2:4], 16), int(h[4:6], 16))


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

COLORS: dict[int, Color] = {code: Color(code, name, _rgb(h)) for code, name, h in _TABLE}


def parse_colour_table(text: str, source: str) -> dict[int, Color]:
    """Rows `code<TAB>name<TAB>RRGGBB<TAB>alpha<TAB>material` (after a header; '#' lines are comments)."""
    out: dict[int, Color] = {}
    rows = [ln for ln in text.splitlines() if ln.strip() and not ln.startswith("#")]
    for n, line in enumerate(rows[1:], start=2):
        cells = line.split("\t")
        if len(cells) != 5:
            raise ValueError(f"{source}: row {n}: expected 5 tab-separated cells, got {len(cells)}")
        code, name, rgb, alpha, material = cells
        out[int(code)] = Color(int(code), name, _rgb(rgb), int(alpha), material)
    return out


@cache
def _ldraw_table() -> dict[int, Color]:
    path = assets_dir() / "ldraw" / "colours.tsv"
    return {**parse_colour_table(path.read_text(encoding="utf-8"), str(path)), **COLORS}


def ldraw_colors() -> dict[int, Color]:
    """Every LDraw colour (the published table overlaid with the scene palette and any library's LDConfig)."""
    return {**_ldraw_table(), **library_colours(), **COLORS}


def is_known(code: int) -> bool:
    """True when the code is an LDraw colour (scene palette, published table or the user's library)."""
    return code in COLORS or code in ldraw_colors()


def color(code: int) -> Color:
    """The colour for an LDraw code; an unknown code raises KeyError saying where the codes come from."""
    c = COLORS.get(code) or ldraw_colors().get(code)
    if c is None:
        raise KeyError(
            f"unknown LDraw colour code {code}: not in LDraw's LDConfig table (assets/ldraw/colours.tsv, "
            f"{len(ldraw_colors())} codes) nor in $LDRAWDIR/LDConfig.ldr"
        )
    return c


def color_by_name(name: str) -> Color:
    """The colour with this name (case-insensitive; underscores read as spaces)."""
    key = name.lower().replace("_", " ")
    for table in (COLORS, ldraw_colors()):
        for c in table.values():
            if c.name == key:
                return c
    raise KeyError(f"unknown colour name {name!r}; common ones: {sorted(c.name for c in COLORS.values())}")


def nearest_color(rgb: tuple[int, int, int], palette: dict[int, Color] | None = None) -> Color:
    """The solid palette colour nearest to an sRGB value (for direct 0x2RRGGBB colours)."""
    table = palette or COLORS
    return min(table.values(), key=lambda c: sum((a - b) ** 2 for a, b in zip(c.rgb, rgb, strict=True)))


# LDraw's direct colours, as LDView decodes them (Travis Cobbs, forums.ldraw.org threads 12516 and 22732; only
# 0x2RRGGBB is in the file format standard, the others are older conventions MLCad and LDraw.exe models still use):
# 0x2RRGGBB opaque, 0x3RRGGBB transparent, 0x4RGBRGB opaque 50:50 dither of two 12-bit colours, 0x5RGBxxx and
# 0x6xxxRGB transparent dithers of one 12-bit colour, 0x7xxxxxx invisible. Codes 256-511 that LDConfig does not
# define are LDraw.exe's dithers of two of its 16 first colours, (code - 256) // 16 and (code - 256) % 16.
DIRECT_INVISIBLE = "invisible"


@dataclass(frozen=True)
class DirectColour:
    """What a direct or dithered LDraw colour code stands for: its sRGB value and whether it is transparent."""

    code: int
    rgb: tuple[int, int, int]
    transparent: bool
    kind: str  # "direct", "12-bit dither", "legacy dither" or DIRECT_INVISIBLE

    def describe(self) -> str:
        """The code as an author would recognise it: its hex form, kind and sRGB value."""
        base = f"{self.kind} colour {self.code:#x}" if self.code > 511 else f"{self.kind} colour {self.code}"
        return f"{base} (#{self.rgb[0]:02X}{self.rgb[1]:02X}{self.rgb[2]:02X}{', transparent' if self.transparent else ''})"


def _rgb12(v: int) -> tuple[int, int, int]:
    # A 12-bit colour's 4-bit channels times 17 fill 0-255 (0xF -> 0xFF), as LDView scales them.
    return ((v >> 8) & 15) * 17, ((v >> 4) & 15) * 17, (v & 15) * 17


def _mix(a: tuple[int, int, int], b: tuple[int, int, int]) -> tuple[int, int, int]:
    return (round((a[0] + b[0]) / 2), round((a[1] + b[1]) / 2), round((a[2] + b[2]) / 2))


def direct_colour(code: int) -> DirectColour | None:
    """The colour a direct, dithered or legacy-dithered code encodes, or None for any other code.

    Codes the colour table defines (including those in 256-511 that LDConfig reuses) are not direct colours.
    """
    if is_known(code):
        return None
    top, low = code >> 24, code & 0xFFFFFF
    if top == 2 or top == 3:
        return DirectColour(code, ((low >> 16) & 255, (low >> 8) & 255, low & 255), top == 3, "direct")
    if top == 4:
        return DirectColour(code, _mix(_rgb12(low >> 12), _rgb12(low & 0xFFF)), False, "12-bit dither")
    if top == 5:
        return DirectColour(code, _rgb12(low >> 12), True, "12-bit dither")
    if top == 6:
        return DirectColour(code, _rgb12(low & 0xFFF), True, "12-bit dither")
    if top == 7:
        return DirectColour(code, (0, 0, 0), True, DIRECT_INVISIBLE)
    if 256 <= code <= 511:
        table = ldraw_colors()
        a, b = table.get((code - 256) // 16), table.get((code - 256) % 16)
        if a is not None and b is not None:
            return DirectColour(code, _mix(a.rgb, b.rgb), a.alpha < 255 or b.alpha < 255, "legacy dither")
    return None


def nearest_ldconfig_colour(rgb: tuple[int, int, int], transparent: bool = False) -> Color:
    """The LDConfig colour nearest to an sRGB value among the plain solid (or, for a transparent one, the plain
    transparent) colours: a direct colour becomes a colour every renderer and part list knows."""
    wanted = "transparent" if transparent else "solid"
    return nearest_color(rgb, {k: c for k, c in ldraw_colors().items() if c.material == wanted})
