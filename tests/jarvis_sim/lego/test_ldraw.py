"""LDraw import/export: round trip, sample models, and each malformed file rejected precisely."""

from __future__ import annotations

from pathlib import Path

import pytest

from jarvis_sim.lego.assembly import Assembly, make_brick
from jarvis_sim.lego.generator import generate_assembly
from jarvis_sim.lego.ldraw import ImportOptions, LDrawError, parse_ldraw, read_ldraw, to_ldraw
from jarvis_sim.paths import assets_dir


def _key(a: Assembly) -> list[tuple[str, int, int, int, int, int]]:
    return [(b.part, b.color, b.x, b.y, b.z, b.yaw) for b in a.bricks]


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_round_trip_keeps_every_brick_and_the_order(seed: int) -> None:
    a = generate_assembly("rt", seed, n_bricks=200)
    text = to_ldraw(a)
    assert text.count("0 STEP") == len(a)
    back = parse_ldraw(text, "rt.ldr")
    assert _key(back.assembly) == _key(a)
    assert [len(s) for s in back.steps] == [1] * len(a)


def test_round_trip_with_step_groups_and_baseplate() -> None:
    a = Assembly([make_brick("a", "3001", 4, 0, 0, 0), make_brick("b", "3003", 1, 1, 0, 3, yaw=1)], baseplate=True)
    back = parse_ldraw(to_ldraw(a, [["a", "b"]]), "bp.ldr")
    assert back.assembly.baseplate and _key(back.assembly) == _key(a)
    assert back.steps == [["b000", "b001"]]


def test_sample_models_load() -> None:
    arch = read_ldraw(assets_dir() / "models" / "arch.mpd")
    arch.assembly.validate()
    # Colour 16 inside the pillar submodel takes the colour of each reference (red, blue).
    assert [b.color for b in arch.assembly.bricks[:4]] == [4, 4, 1, 1]
    assert arch.steps == [["b000", "b001"], ["b002", "b003"], ["b004"], ["b005"]]
    house = read_ldraw(assets_dir() / "models" / "house.ldr")
    house.assembly.validate()
    assert len(house.assembly) == 90


HEAD = "0 test\n"
OK = "1 4 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n"


@pytest.mark.parametrize(
    ("body", "line", "reason"),
    [
        ("1 4 0 -24 0 1 0 0 0 1 0 0 0 1 9999.dat\n", 3, "unknown part '9999.dat'"),
        ("1 4 5 -48 0 1 0 0 0 1 0 0 0 1 3001.dat\n", 3, "off the lattice: LDraw x"),
        ("1 4 0 -44 0 1 0 0 0 1 0 0 0 1 3001.dat\n", 3, "off the lattice: LDraw y"),
        ("1 4 0 -48 0 0.7071 0 0.7071 0 1 0 -0.7071 0 0.7071 3001.dat\n", 3, "not a multiple of 90 degrees"),
        ("1 4 0 -48 0 1 0 0 0 0 -1 0 1 0 3001.dat\n", 3, "not a quarter turn about the vertical"),
        ("1 4 20 -24 0 1 0 0 0 1 0 0 0 1 3003.dat\n", 3, "overlaps the part at t.ldr:2"),
        ("1 99999 0 -48 0 1 0 0 0 1 0 0 0 1 3001.dat\n", 3, "unknown colour code 99999"),
        ("1 4 0 -48 0 1 0 0\n", 3, "needs 15 fields"),
        ("3 4 0 0 0 1 1 1 2 2 2\n", 3, "line type 3"),
    ],
)
def test_malformed_lines_are_rejected_with_file_line_and_reason(body: str, line: int, reason: str) -> None:
    with pytest.raises(LDrawError) as err:
        parse_ldraw(HEAD + OK + body, "t.ldr")
    assert err.value.file == "t.ldr" and err.value.line == line
    assert reason in err.value.reason, err.value.reason
    assert str(err.value).startswith(f"t.ldr:{line}: ")


def test_error_inside_a_submodel_names_the_submodel() -> None:
    text = (
        "0 FILE main.ldr\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 sub.ldr\n0 NOFILE\n"
        "0 FILE sub.ldr\n1 16 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n1 16 3 -48 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
    )
    with pytest.raises(LDrawError) as err:
        parse_ldraw(text, "m.mpd")
    assert (err.value.file, err.value.line) == ("sub.ldr", 6)


def test_self_including_submodel_rejected() -> None:
    text = "0 FILE a.ldr\n1 4 0 0 0 1 0 0 0 1 0 0 0 1 a.ldr\n"
    with pytest.raises(LDrawError, match="includes itself"):
        parse_ldraw(text, "a.mpd")


def test_cli_import_export(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from agent.cli.main import app

    runner = CliRunner()
    js = tmp_path / "arch.json"
    r = runner.invoke(app, ["ldraw", "import", str(assets_dir() / "models" / "arch.mpd"), "--out", str(js)])
    assert r.exit_code == 0, r.output
    ldr = tmp_path / "arch.ldr"
    r = runner.invoke(app, ["ldraw", "export", str(js), "--out", str(ldr)])
    assert r.exit_code == 0, r.output
    assert _key(read_ldraw(ldr).assembly) == _key(read_ldraw(assets_dir() / "models" / "arch.mpd").assembly)
    bad = tmp_path / "bad.ldr"
    bad.write_text(HEAD + "1 4 0 -24 0 1 0 0 0 1 0 0 0 1 9999.dat\n")
    r = runner.invoke(app, ["ldraw", "import", str(bad), "--out", str(tmp_path / "x.json")])
    assert r.exit_code == 2 and "bad.ldr:2: unknown part" in r.output



# Two bricks stacked on a brick set half a stud off the grid the first part sets (a jumper offset), which
# --unsupported skip leaves out (three.js's packed 6712 and 30051 models have such bottoms).
OFFSET_BOTTOM = ("1 1 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
                 "1 2 0 -48 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
                 "1 4 10 0 0 1 0 0 0 1 0 0 0 1 3001.dat\n")


def test_bricks_left_above_skipped_parts_are_lowered_to_the_ground() -> None:
    m = parse_ldraw("0 t\n" + OFFSET_BOTTOM, "offset.ldr", options=ImportOptions(unsupported="skip"))
    assert [(b.part, b.z) for b in m.assembly.bricks] == [("3001", 0), ("3001", 3)]
    assert [(n.where, n.action) for n in m.notes] == [("offset.ldr:4", "skipped"), ("offset.ldr:2", "moved")]
    assert "lowered 3 plate(s) to the ground" in m.notes[1].detail


def test_drop_that_leaves_no_brick_says_so() -> None:
    # On a baseplate nothing is lowered: both bricks float on the skipped one, and drop removes them all; the
    # error must say so, not only "not buildable from above" as if drop had been ignored.
    text = ("0 t\n1 2 0 0 0 1 0 0 0 1 0 0 0 1 3811.dat\n"
            "1 1 0 -48 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
            "1 2 0 -72 0 1 0 0 0 1 0 0 0 1 3001.dat\n"
            "1 4 10 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n")
    with pytest.raises(LDrawError, match=r"offset\.ldr:4: --unbuildable drop left no brick: all 2 rest only on "
                                         r"skipped or dropped parts; the last is not buildable from above"):
        parse_ldraw(text, "offset.ldr", options=ImportOptions(unsupported="skip", unbuildable="drop"))
    with pytest.raises(LDrawError, match=r"offset\.ldr:3: not buildable from above") as plain:
        parse_ldraw(text, "offset.ldr", options=ImportOptions(unsupported="skip"))
    assert "--unbuildable drop" not in str(plain.value)
