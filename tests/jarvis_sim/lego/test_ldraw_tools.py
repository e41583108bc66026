"""LDraw files in the styles real tools write them (tests/data/ldraw/tools/), each with its expected lattice.

MLCad (CRLF, six-decimal numbers, 12-bit and LDraw.exe dithered colours in decimal, ROTSTEP, GHOST, BUFEXCHG),
LDCad (MPD without NOFILE, a submodel name with a space, !LDCAD meta, BFC INVERTNEXT, a hex direct colour),
BrickLink Studio (UTF-8 BOM, CRLF, the official part files it uses embedded as `0 FILE 3001.dat`, a custom part),
LeoCAD (!LEOCAD meta, float noise in positions, a 6 x 8 plate), three.js's packLDrawModel (`*_Packed.mpd`: the
LDConfig colours first, the main model without a FILE line, `parts/` and `p/` paths, a colour the file defines).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from jarvis_sim.gripper import GRIPPER_MAX_OPENING_M, too_wide_to_pick
from jarvis_sim.lego import catalog
from jarvis_sim.lego.colors import direct_colour, ldraw_colors
from jarvis_sim.lego.ldraw import ImportOptions, LDrawError, parse_ldraw, read_ldraw

TOOLS = Path(__file__).resolve().parents[2] / "data" / "ldraw" / "tools"
LIBRARY = TOOLS.parent / "library"


def _rows(name: str, options: ImportOptions | None = None) -> list[tuple[str, str, int, int, int, int, int]]:
    m = read_ldraw(TOOLS / name, options)
    m.assembly.validate()
    return [(b.id, b.part, b.color, b.x, b.y, b.z, b.yaw) for b in m.assembly.bricks]


@pytest.fixture
def library(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    before = dict(catalog.PARTS)
    monkeypatch.setenv("LDRAWDIR", str(LIBRARY))
    yield LIBRARY
    catalog.PARTS.clear()
    catalog.PARTS.update(before)


def test_mlcad_dithered_colours_map_to_the_nearest_ldconfig_colour_in_one_go() -> None:
    m = read_ldraw(TOOLS / "mlcad_tower.ldr")
    assert m.assembly.baseplate
    assert _rows("mlcad_tower.ldr") == [
        ("b000", "3001", 2, -4, -2, 0, 0), ("b001", "3003", 216, 0, -2, 0, 0),
        ("b002", "3020", 2, -4, -2, 3, 0), ("b003", "3022", 216, 0, -2, 3, 0),
    ]
    # One note per colour (not per part), both at once; the GHOST line is not a part; ROTSTEP ends a step.
    assert [(n.where, n.action) for n in m.notes] == [("mlcad_tower.ldr:9", "colour_mapped"),
                                                      ("mlcad_tower.ldr:10", "colour_mapped")]
    assert "12-bit dither colour 0x4073073 (#007733) -> 2 (green" in m.notes[0].detail
    assert "legacy dither colour 356 (#902A18) -> 216 (rust" in m.notes[1].detail
    assert m.steps == [["b000", "b001"], ["b002", "b003"]]


def test_ldcad_mpd_with_a_spaced_submodel_name_and_a_hex_direct_colour() -> None:
    m = read_ldraw(TOOLS / "ldcad_house.mpd")
    assert _rows("ldcad_house.mpd") == [
        ("b000", "3010", 4, -2, 0, 0, 0), ("b001", "3010", 508, -2, 0, 3, 0),
        ("b002", "3010", 1, -2, 3, 0, 0), ("b003", "3010", 508, -2, 3, 3, 0),
        ("b004", "3020", 15, -1, 0, 6, 3),
    ]
    assert [(n.where, n.action) for n in m.notes] == [("ldcad_house.mpd:10 -> front wall.ldr:26", "colour_mapped")]
    assert m.sources["b003"] == "ldcad_house.mpd:12 -> front wall.ldr:26"


def test_studio_packed_mpd_reads_embedded_official_parts_as_catalog_parts() -> None:
    # The embedded 3001.dat is the library's part: it is the catalog's 2 x 4 brick. 98283 is a part the catalog
    # lacks (embedded by Studio with its own geometry): the default names it, substitute swaps it by its title.
    with pytest.raises(LDrawError) as err:
        read_ldraw(TOOLS / "studio_micro_car.mpd")
    assert err.value.line == 14 and "unknown part '98283.dat'" in err.value.reason
    assert "embedded part file (Brick  1 x  2 with Masonry Profile)" in err.value.reason
    subst = ImportOptions(unsupported="substitute")
    assert _rows("studio_micro_car.mpd", subst) == [
        ("b000", "3034", 72, -4, -1, 0, 0), ("b001", "3001", 4, -4, -1, 1, 0), ("b002", "3001", 15, 0, -1, 1, 0),
        ("b003", "3004", 0, -3, -1, 4, 0),
    ]
    m = read_ldraw(TOOLS / "studio_micro_car.mpd", subst)
    assert [(n.where, n.action) for n in m.notes] == [("studio_micro_car.mpd:14", "substituted")]
    assert m.steps == [["b000"], ["b001", "b002"], ["b003"]]


def test_leocad_float_noise_and_a_6x8_plate_import() -> None:
    assert _rows("leocad_garden.ldr") == [
        ("b000", "3036", 2, -4, -3, 0, 0), ("b001", "3001", 4, -4, -3, 1, 0), ("b002", "3001", 14, 0, 0, 1, 0),
        ("b003", "3023", 1, -4, -3, 4, 1),
    ]
    assert read_ldraw(TOOLS / "leocad_garden.ldr").notes == []
    # A 6 x 8 plate is picked across its 6-stud side (47.8 mm): the hand opens 80 mm.
    assert too_wide_to_pick(catalog.part("3036")) is None


def test_threejs_packed_mpd_with_parts_paths_and_a_colour_the_file_defines() -> None:
    m = read_ldraw(TOOLS / "tiny_tower.ldr_Packed.mpd")
    assert _rows("tiny_tower.ldr_Packed.mpd") == [
        ("b000", "3020", 71, -2, -1, 0, 0), ("b001", "3001", 4, -2, -1, 1, 0), ("b002", "3001", 3, -2, -1, 4, 0),
    ]
    assert [(n.where, n.action) for n in m.notes] == [("tiny_tower.ldr_Packed.mpd:22", "colour_mapped")]
    assert "colour 10001 (sea teal, #1F8C8C, defined by the file's own !COLOUR line) -> 3" in m.notes[0].detail
    assert m.steps == [["b000"], ["b001"], ["b002"]]


def test_direct_colour_decoding_follows_ldview() -> None:
    assert direct_colour(0x2FF8000).rgb == (255, 128, 0) and not direct_colour(0x2FF8000).transparent  # type: ignore[union-attr]
    assert direct_colour(0x3FF8000).transparent  # type: ignore[union-attr]
    assert direct_colour(0x4F00F00).rgb == (255, 0, 0)  # type: ignore[union-attr]  # a dither of red with red
    assert direct_colour(0x4F0000F).rgb == (128, 0, 128)  # type: ignore[union-attr]  # red and blue averaged
    assert direct_colour(0x5F00000).rgb == (255, 0, 0) and direct_colour(0x6000F00).rgb == (255, 0, 0)  # type: ignore[union-attr]
    assert direct_colour(0x7000000).kind == "invisible"  # type: ignore[union-attr]
    assert direct_colour(4) is None and direct_colour(272) is None  # LDConfig codes, 272 reused in 256-511
    assert 356 not in ldraw_colors() and direct_colour(356).rgb == (144, 42, 24)  # type: ignore[union-attr]  # brown, red


def test_unknown_codes_are_reported_together_and_invisible_parts_left_out() -> None:
    text = ("0 t\n1 4 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 999999 0 -48 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
            "1 888888 0 -72 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 999999 0 -96 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
            "1 0x7000000 0 -120 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
    with pytest.raises(LDrawError) as err:
        parse_ldraw(text, "t.ldr")
    assert err.value.line == 3
    assert "2 unknown colour codes: 999999 (2 parts, first at t.ldr:3), 888888 (1 part, first at t.ldr:4)" in str(
        err.value)
    m = parse_ldraw(text, "t.ldr", options=ImportOptions(unsupported="skip"))
    assert [b.color for b in m.assembly.bricks] == [4, 7, 7, 7]
    assert [(n.where, n.action) for n in m.notes] == [("t.ldr:3", "colour_mapped"), ("t.ldr:4", "colour_mapped"),
                                                      ("t.ldr:6", "skipped")]
    assert "an invisible part, left out" in m.notes[2].detail


def test_parts_too_wide_for_the_gripper_are_named_or_left_out(library: Path) -> None:
    text = ("0 t\n1 15 0 -8 0 1 0 0 0 1 0 0 0 1 91405.dat\n1 4 -120 -32 -140 1 0 0 0 1 0 0 0 1 3001.dat\n"
            "1 4 0 -16 0 1 0 0 0 1 0 0 0 1 91405.dat\n")
    part = catalog.part("91405")
    assert part.name == "Plate 16 x 16" and "needs the fingers open 129.8 mm" in (too_wide_to_pick(part) or "")
    with pytest.raises(LDrawError) as err:
        parse_ldraw(text, "t.ldr")
    assert err.value.line == 2
    assert str(err.value).startswith("t.ldr:2: 2 part(s) too wide for the gripper: 91405.dat (Plate 16 x 16) at "
                                     "t.ldr:2, 91405.dat (Plate 16 x 16) at t.ldr:4")
    assert f"opens {GRIPPER_MAX_OPENING_M * 1000:.0f} mm at most" in str(err.value)
    m = parse_ldraw(text, "t.ldr", options=ImportOptions(unsupported="skip"))
    assert [b.part for b in m.assembly.bricks] == ["3001"]
    assert [(n.where, n.action) for n in m.notes] == [("t.ldr:2", "skipped"), ("t.ldr:4", "skipped")]


def test_a_model_far_from_the_origin_is_moved_and_one_larger_than_the_lattice_refused() -> None:
    far = "0 t\n1 4 30000 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 1 30000 -48 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
    m = parse_ldraw(far, "t.ldr")
    assert [(b.x, b.y, b.z) for b in m.assembly.bricks] == [(0, 0, 0), (0, 0, 3)]
    assert [n.action for n in m.notes] == ["moved"] and "1498 studs from LDraw's origin" in m.notes[0].detail
    huge = "0 t\n1 4 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 1 30000 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
    with pytest.raises(LDrawError, match="the model spans 1500 studs"):
        parse_ldraw(huge, "t.ldr")
    tall = "0 t\n1 4 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 1 0 -9000 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
    with pytest.raises(LDrawError, match=r"t.ldr:3: part stands 1122 plates above the lowest part"):
        parse_ldraw(tall, "t.ldr")
