"""The colour each part of an imported LDraw model gets, when its code is not in LDraw's colour table.

Real files carry codes the table lacks: direct colours (0x2RRGGBB, written by Studio and LDCad's colour
pickers), MLCad's 12-bit dithers (0x4RGBRGB, saved in decimal: 67580019 is 0x4073073), LDraw.exe's dithers
(256-511) and colours the file defines itself with `0 !COLOUR` lines. Each maps to the nearest LDConfig colour
and the import notes it once per code, so a model with five such colours imports in one go. A code that
encodes no colour is gathered with every other such code and reported together, or, when the user asked to
import what can be imported, shown light grey (what LDraw viewers show), with a note.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from jarvis_sim.lego.colors import (
    DIRECT_INVISIBLE,
    Color,
    direct_colour,
    ldraw_colors,
    nearest_ldconfig_colour,
)

FALLBACK = 7  # light grey, as LDraw viewers show colour 16 at the top level
Trace = tuple[tuple[str, int], ...]


@dataclass
class ColourResolver:
    """Resolves codes outside the table for one import; `lenient` maps unknown codes to light grey."""

    file_colours: dict[int, Color]
    lenient: bool
    mapped: dict[int, int] = field(default_factory=dict)
    unknown: dict[int, list[Trace]] = field(default_factory=dict)

    def resolve(self, code: int, here: Trace) -> tuple[int | None, str | None]:
        """(the code to use, or None to leave the part out; a note the first time this code is resolved)."""
        if code in self.mapped:
            return self.mapped[code], None
        direct = direct_colour(code)
        if direct is not None and direct.kind == DIRECT_INVISIBLE:
            return None, f"{direct.describe()}: an invisible part, left out"
        defined = self.file_colours.get(code)
        if direct is not None:
            near, what = nearest_ldconfig_colour(direct.rgb, direct.transparent), direct.describe()
        elif defined is not None:
            near = nearest_ldconfig_colour(defined.rgb, defined.alpha < 255)
            what = f"colour {code} ({defined.name}, {defined.hex}, defined by the file's own !COLOUR line)"
        elif self.lenient:
            near, what = ldraw_colors()[FALLBACK], f"unknown colour code {code}"
        else:
            self.unknown.setdefault(code, []).append(here)
            return code, None  # reported with every other unknown code once the whole model is read
        self.mapped[code] = near.code
        how = "" if direct is None and defined is None else ", the nearest LDConfig colour"
        return near.code, f"{what} -> {near.code} ({near.name}, {near.hex}){how}; every part in it"

    def unknown_report(self) -> tuple[Trace, str] | None:
        """Where the first unknown code appears and a reason naming every unknown code, or None when none."""
        if not self.unknown:
            return None
        items = [f"{code} ({len(ts)} part{'s' if len(ts) > 1 else ''}, first at "
                 f"{' -> '.join(f'{f}:{n}' for f, n in ts[0])})" for code, ts in self.unknown.items()]
        what = "unknown colour code" if len(items) == 1 else f"{len(items)} unknown colour codes:"
        return next(iter(self.unknown.values()))[0], (
            f"{what} {', '.join(items)}: not in LDraw's colour table ({len(ldraw_colors())} codes, "
            "assets/ldraw/colours.tsv or $LDRAWDIR/LDConfig.ldr) and not a direct colour; map each with "
            "--map-colour CODE=CODE, or --unsupported substitute to import them light grey")
