"""LDraw files written the way real authors write them (tests/data/ldraw/), with their expected lattices."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from jarvis_sim.lego import catalog
from jarvis_sim.lego.ldraw import ImportOptions, LDrawError, parse_ldraw, read_ldraw, to_ldraw

DATA = Path(__file__).resolve().parents[2] / "data" / "ldraw"
Row = tuple[str, str, int, int, int, int, int]


def _rows(path: str, options: ImportOptions | None = None) -> list[Row]:
    m = read_ldraw(DATA / path, options)
    return [(b.id, b.part, b.color, b.x, b.y, b.z, b.yaw) for b in m.assembly.bricks]


@pytest.fixture
def library(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The small LDraw library in tests/data (LDConfig with two extra colours, four part files)."""
    before = dict(catalog.PARTS)
    monkeypatch.setenv("LDRAWDIR", str(DATA / "library"))
    yield DATA / "library"
    catalog.PARTS.clear()
    catalog.PARTS.update(before)  # library parts join the catalog for the process; undo that here


def test_mpd_with_baseplate_nested_and_rotated_submodels_and_colour_inheritance() -> None:
    m = read_ldraw(DATA / "house.mpd")
    assert m.assembly.baseplate
    # wall.ldr twice (red, then blue and turned a quarter), roof.ldr -> cap.ldr (white via the roof reference;
    # the tile keeps its own medium lime, a code only the full LDConfig table has).
    assert _rows("house.mpd") == [
        ("b000", "3010", 4, -4, -3, 0, 0), ("b001", "3010", 4, -4, -3, 3, 0),
        ("b002", "3010", 1, 0, -3, 0, 3), ("b003", "3010", 1, 0, -3, 3, 3),
        ("b004", "3020", 15, -3, -3, 6, 0), ("b005", "87079", 115, -3, -3, 7, 0),
    ]
    assert m.steps == [["b000", "b001"], ["b002", "b003"], ["b004", "b005"]]
    assert m.sources["b005"] == "house.mpd:16 -> roof.ldr:32 -> cap.ldr:40"
    m.assembly.validate()


def test_first_brick_at_the_origin_sets_the_stud_grid() -> None:
    # A 1x4 centred on 0 0 0 has its footprint corner at z = -10 LDU: the grid is offset, not broken.
    assert _rows("first_brick_at_origin.ldr") == [
        ("b000", "3010", 4, -2, -1, 0, 0), ("b001", "3010", 14, -2, -1, 3, 0),
        ("b002", "3010", 1, 0, -2, 6, 3), ("b003", "3710", 115, -2, -1, 9, 0),
    ]


def test_any_global_offset_gives_the_same_lattice() -> None:
    text = (DATA / "first_brick_at_origin.ldr").read_text()
    moved = []
    for line in text.splitlines():
        w = line.split()
        if w and w[0] == "1":
            w[2], w[3], w[4] = str(float(w[2]) + 7.0), str(float(w[3]) - 16.0), str(float(w[4]) + 333.0)
        moved.append(" ".join(w))
    a = read_ldraw(DATA / "first_brick_at_origin.ldr").assembly
    b = parse_ldraw("\n".join(moved) + "\n", "moved.ldr").assembly
    # Same shape, shifted by whole studs: compare relative to the first brick.
    rel = [(p.part, p.x - a.bricks[0].x, p.y - a.bricks[0].y, p.z, p.yaw) for p in a.bricks]
    assert rel == [(p.part, p.x - b.bricks[0].x, p.y - b.bricks[0].y, p.z, p.yaw) for p in b.bricks]


def test_a_part_off_the_grid_the_first_part_set_is_named_with_the_anchor() -> None:
    text = "0 t\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 3010.dat\n1 4 5 -24 0 1 0 0 0 1 0 0 0 1 3010.dat\n"
    with pytest.raises(LDrawError) as err:
        parse_ldraw(text, "t.ldr")
    assert err.value.line == 3 and "5 LDU off the stud grid set by the part at t.ldr:2" in err.value.reason


def test_error_path_goes_through_the_submodel_instance() -> None:
    text = (
        "0 FILE house.ldr\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 wall.ldr\n1 4 200 0 0 1 0 0 0 1 0 0 0 1 wall.ldr\n0 NOFILE\n"
        "0 FILE wall.ldr\n1 16 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 16 0 -48 0 1 0 0 0 1 0 0 0 1 4315.dat\n"
    )
    with pytest.raises(LDrawError) as err:
        parse_ldraw(text, "house.mpd")
    assert str(err.value).startswith("house.mpd:2 -> wall.ldr:7: unknown part '4315.dat'")
    assert err.value.trace == (("house.mpd", 2), ("wall.ldr", 7))


def test_steps_written_top_first_are_reordered_level_by_level_and_reported() -> None:
    m = read_ldraw(DATA / "steps_out_of_order.ldr")
    assert [b.id for b in m.assembly.bricks] == ["b001", "b002", "b000"]
    assert m.steps == [["b001", "b002"], ["b000"]]
    assert [n.action for n in m.notes] == ["reordered"] and m.notes[0].where == "steps_out_of_order.ldr:5"
    m.assembly.validate()


def test_a_brick_hanging_under_an_overhang_is_not_buildable_and_named() -> None:
    with pytest.raises(LDrawError) as err:
        read_ldraw(DATA / "hanging.ldr")
    assert str(err.value).startswith("hanging.ldr:7: not buildable from above: brick b002 (Plate 1 x 2) at level 2")
    # Asked not to check, the importer returns it (the user's choice; tasks_of refuses it later).
    m = read_ldraw(DATA / "hanging.ldr", ImportOptions(check_buildable=False))
    assert not m.assembly.is_valid()


def test_unsupported_policies_fail_skip_substitute() -> None:
    with pytest.raises(LDrawError, match=r"car.mpd:9: unknown part '3794b.dat'.*--unsupported skip or substitute"):
        read_ldraw(DATA / "car.mpd")
    red_direct = 0x2FF0000
    skipped = read_ldraw(DATA / "car.mpd", ImportOptions(unsupported="skip", colour_map={red_direct: 4}))
    assert [b.part for b in skipped.assembly.bricks] == ["3832", "3001", "3023"]
    assert [(n.where, n.action) for n in skipped.notes] == [
        ("car.mpd:9", "skipped"), ("car.mpd:10", "skipped"), ("car.mpd:13", "skipped")]
    subst = read_ldraw(DATA / "car.mpd", ImportOptions(unsupported="substitute"))
    assert _rows("car.mpd", ImportOptions(unsupported="substitute")) == [
        ("b000", "3832", 72, -5, -1, 0, 0), ("b001", "3001", 4, -5, -2, 1, 3), ("b002", "3023", 15, -3, 0, 1, 0),
        ("b003", "3023", 4, 3, 0, 1, 0), ("b004", "3004", 71, -1, 0, 1, 0),
    ]
    assert [(n.where, n.action) for n in subst.notes] == [
        ("car.mpd:9", "substituted"), ("car.mpd:10", "skipped"), ("car.mpd:11", "colour_mapped"),
        ("car.mpd:13", "substituted")]
    assert "3794b.dat (Plate 1 x 2 with Groove with 1 Centre Stud) -> 3023" in subst.notes[0].detail


def test_colour_map_option_and_its_validation() -> None:
    text = "0 t\n1 4 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
    assert parse_ldraw(text, "t.ldr", options=ImportOptions(colour_map={4: 1})).assembly.bricks[0].color == 1
    with pytest.raises(LDrawError, match="colour map 4=77777: 77777 is not an LDraw colour code"):
        parse_ldraw(text, "t.ldr", options=ImportOptions(colour_map={4: 77777}))


def test_aliases_and_new_catalog_parts_round_trip() -> None:
    text = ("0 t\n1 4 0 -8 0 1 0 0 0 1 0 0 0 1 4282.dat\n1 1 -140 -16 10 1 0 0 0 1 0 0 0 1 3023b.dat\n"
            "1 14 0 -40 10 1 0 0 0 1 0 0 0 1 2465.dat\n1 15 0 -48 10 1 0 0 0 1 0 0 0 1 4162.dat\n")
    m = parse_ldraw(text, "t.ldr")
    assert [b.part for b in m.assembly.bricks] == ["4282", "3023", "2465", "4162"]
    back = parse_ldraw(to_ldraw(m.assembly), "back.ldr")
    assert [(b.part, b.x, b.y, b.z, b.yaw) for b in back.assembly.bricks] == [
        (b.part, b.x, b.y, b.z, b.yaw) for b in m.assembly.bricks]


def test_a_brick_on_a_tile_is_not_buildable() -> None:
    text = "0 t\n1 4 0 -8 0 1 0 0 0 1 0 0 0 1 87079.dat\n1 1 0 -32 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
    with pytest.raises(LDrawError, match=r"t.ldr:3: not buildable from above: .*rests on tiles only"):
        parse_ldraw(text, "t.ldr")


def test_library_parts_and_colours(library: Path) -> None:
    rows = _rows("library_model.ldr")
    assert rows == [("b000", "3009x", 4, -7, 0, 0, 0), ("b001", "11212", 9001, -7, 0, 3, 0)]
    assert catalog.part("3009x").name == "Brick 1 x 14 with Groove" and catalog.part("11212").kind == "plate"


def test_library_rejects_parts_that_are_not_what_their_title_says(library: Path) -> None:
    from jarvis_sim.lego.ldraw_library import why_not_library_part

    assert catalog.lookup("9999") is None
    assert "geometry spans 60 x 20 LDU, not 2 x 2 studs" in why_not_library_part("9999")
    assert catalog.lookup("4315") is None
    assert "not a plain rectangular" in why_not_library_part("4315")
    assert catalog.lookup("../LDConfig") is None  # never a path


def test_library_title_lets_substitute_pick_a_footprint(library: Path) -> None:
    text = "0 t\n1 4 0 -8 0 1 0 0 0 1 0 0 0 1 4315.dat\n"
    with pytest.raises(LDrawError, match="not a plain rectangular brick"):
        parse_ldraw(text, "t.ldr")


def test_an_official_style_model_keeps_what_the_lattice_can_hold() -> None:
    # rover.ldr is written like the OMR models three.js ships: a chassis and wheels the catalog lacks, a
    # headlight built sideways, a round plate centred on a 2 x 2 brick, a plate resting only on the chassis.
    with pytest.raises(LDrawError, match=r"rover.ldr:9: unknown part '4600.dat'"):
        read_ldraw(DATA / "rover.ldr")
    with pytest.raises(LDrawError, match=r"rover.ldr:14: not buildable from above: brick b002 \(Plate 1 x 2\)"):
        read_ldraw(DATA / "rover.ldr", ImportOptions(unsupported="skip"))
    kept = [("b000", "3031", 71, -2, -2, 0, 0), ("b001", "3001", 4, -2, -1, 1, 0), ("b003", "3003", 15, -2, -1, 4, 0)]
    dropped = read_ldraw(DATA / "rover.ldr", ImportOptions(unsupported="skip", unbuildable="drop"))
    assert _rows("rover.ldr", ImportOptions(unsupported="skip", unbuildable="drop")) == kept
    assert [(n.where, n.action) for n in dropped.notes] == [
        ("rover.ldr:9", "skipped"), ("rover.ldr:10", "skipped"), ("rover.ldr:11", "skipped"),
        ("rover.ldr:15", "skipped"), ("rover.ldr:19", "skipped"), ("rover.ldr:16", "skipped"),
        ("rover.ldr:14", "dropped")]
    assert "quarter turn about the vertical" in dropped.notes[5].detail  # a catalog part built sideways
    assert dropped.steps == [["b000"], ["b001"], ["b003"]] and set(dropped.sources) == {"b000", "b001", "b003"}
    # substitute swaps the round plates for square ones, then skips them where the lattice cannot hold them.
    subst = read_ldraw(DATA / "rover.ldr", ImportOptions(unsupported="substitute", unbuildable="drop"))
    assert _rows("rover.ldr", ImportOptions(unsupported="substitute", unbuildable="drop")) == kept
    details = {(n.where, n.action): n.detail for n in subst.notes}
    assert "-> 3024" in details[("rover.ldr:19", "substituted")]
    assert "10 LDU off the stud grid" in details[("rover.ldr:19", "skipped")]
