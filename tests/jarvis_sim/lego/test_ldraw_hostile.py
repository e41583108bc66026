"""Hostile LDraw input: each gets an LDrawError naming where and what, never a traceback, a leak or a hang."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from jarvis_sim.lego.ldraw import MAX_EXPANDED_LINES, LDrawError, parse_ldraw, read_ldraw

OK = "1 4 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n"


@pytest.mark.parametrize(
    ("line", "reason"),
    [
        ("1 4 nan -48 0 1 0 0 0 1 0 0 0 1 3001.dat", "position field 3 is 'nan', not a finite number"),
        ("1 4 0 -inf 0 1 0 0 0 1 0 0 0 1 3001.dat", "position field 4 is '-inf'"),
        ("1 4 0 -48 0 1 0 0 0 NaN 0 0 0 1 3001.dat", "rotation matrix field 10 is 'NaN'"),
        ("1 4 1e308 -48 0 1 0 0 0 1 0 0 0 1 3001.dat", "out of range"),
    ],
)
def test_non_finite_and_absurd_numbers_are_rejected(line: str, reason: str) -> None:
    with pytest.raises(LDrawError) as err:
        parse_ldraw("0 t\n" + OK + line + "\n", "t.ldr")
    assert (err.value.file, err.value.line) == ("t.ldr", 3)
    assert reason in err.value.reason


def test_reference_outside_the_model_folder_is_refused_without_reading_it(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP-SECRET first line\n")
    model_dir = tmp_path / "models" / "mine"
    model_dir.mkdir(parents=True)
    for ref in ("../../secret.txt", "..\\..\\secret.txt", str(secret), "../../../../../../etc/passwd"):
        model = model_dir / "m.ldr"
        model.write_text("0 m\n" + OK + f"1 4 0 -48 0 1 0 0 0 1 0 0 0 1 {ref}\n")
        with pytest.raises(LDrawError) as err:
            read_ldraw(model)
        assert (err.value.file, err.value.line) == ("m.ldr", 3), ref
        assert "TOP-SECRET" not in str(err.value) and "root:" not in str(err.value)
        assert "leaves the model's folder" in err.value.reason or "unknown part" in err.value.reason


def test_symlink_out_of_the_model_folder_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside.ldr"
    outside.write_text("SECRET-LINE\n")
    model_dir = tmp_path / "m"
    model_dir.mkdir()
    (model_dir / "link.ldr").symlink_to(outside)
    (model_dir / "m.ldr").write_text("0 m\n" + OK + "1 4 0 -48 0 1 0 0 0 1 0 0 0 1 link.ldr\n")
    with pytest.raises(LDrawError) as err:
        read_ldraw(model_dir / "m.ldr")
    assert "SECRET-LINE" not in str(err.value)


def test_exponentially_nested_mpd_is_bounded() -> None:
    # 12 submodels, each placing the next ten times: 10^12 parts from a ~4 KB file.
    levels = 12
    parts = ["0 FILE main.ldr", "1 4 0 0 0 1 0 0 0 1 0 0 0 1 s0.ldr", "0 NOFILE"]
    for k in range(levels):
        parts.append(f"0 FILE s{k}.ldr")
        ref = f"s{k + 1}.ldr" if k + 1 < levels else "3005.dat"
        parts += [f"1 16 0 0 0 1 0 0 0 1 0 0 0 1 {ref}"] * 10
        parts.append("0 NOFILE")
    text = "\n".join(parts) + "\n"
    assert len(text) < 5000
    t0 = time.perf_counter()
    with pytest.raises(LDrawError) as err:
        parse_ldraw(text, "bomb.mpd")
    assert time.perf_counter() - t0 < 10.0
    assert "more than 10000 parts" in err.value.reason
    assert str(err.value).startswith("bomb.mpd:2 -> s0.ldr:")


def test_deep_submodel_chain_is_bounded() -> None:
    n = 200
    parts = ["0 FILE main.ldr", "1 4 0 0 0 1 0 0 0 1 0 0 0 1 s0.ldr", "0 NOFILE"]
    for k in range(n):
        parts += [f"0 FILE s{k}.ldr", f"1 16 0 0 0 1 0 0 0 1 0 0 0 1 s{k + 1}.ldr", "0 NOFILE"]
    with pytest.raises(LDrawError, match="nest deeper than"):
        parse_ldraw("\n".join(parts) + "\n", "deep.mpd")


def test_huge_and_direct_colour_codes_are_named() -> None:
    with pytest.raises(LDrawError, match="unknown colour code 999999999"):
        parse_ldraw("0 t\n1 999999999 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n", "t.ldr")
    # A direct colour is a colour: it maps to the nearest LDConfig colour, with a note.
    m = parse_ldraw("0 t\n1 0x2FF0000 0 -24 0 1 0 0 0 1 0 0 0 1 3001.dat\n", "t.ldr")
    assert [n.action for n in m.notes] == ["colour_mapped"] and "direct colour 0x2ff0000 (#FF0000)" in m.notes[0].detail


def test_wide_nesting_without_parts_is_bounded_by_lines() -> None:
    # Comment lines only: no part is ever produced, the line count must stop it.
    levels = 8
    parts = ["0 FILE main.ldr", "1 4 0 0 0 1 0 0 0 1 0 0 0 1 s0.ldr", "0 NOFILE"]
    for k in range(levels):
        parts.append(f"0 FILE s{k}.ldr")
        parts += [f"1 16 0 0 0 1 0 0 0 1 0 0 0 1 s{k + 1}.ldr" if k + 1 < levels else "0 // x"] * 10
        parts.append("0 NOFILE")
    with pytest.raises(LDrawError) as err:
        parse_ldraw("\n".join(parts) + "\n", "bomb.mpd")
    assert f"more than {MAX_EXPANDED_LINES} lines" in err.value.reason


def test_a_nul_in_a_part_reference_is_an_error_naming_its_line(tmp_path: Path) -> None:
    text = "0 t\n" + OK + "1 4 0 -48 0 1 0 0 0 1 0 0 0 1 sub\x00.ldr\n"
    with pytest.raises(LDrawError) as err:
        parse_ldraw(text, "t.ldr", base_dir=tmp_path)
    assert err.value.line == 3 and "NUL" in err.value.reason
