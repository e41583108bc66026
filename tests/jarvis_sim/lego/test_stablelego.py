"""The statics' external check: StableLego's public test structures, read in place through $JARVIS_STABLELEGO_ROOT
(skipped where absent), get the verdicts of StableLego's own analysis (its README's figure caption)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jarvis_sim.lego import clutch_model as cm
from jarvis_sim.lego.stablelego import VERDICTS, StableLegoError, load_structure, resolve_root
from jarvis_sim.lego.statics import stands

ORIGIN = (0.0, 0.0, 0.0)


@pytest.fixture(scope="module")
def root() -> Path:
    found = resolve_root()
    if found is None or not (found / "test_lego").is_dir():
        pytest.skip("StableLego's test structures absent (set $JARVIS_STABLELEGO_ROOT)")
    return found


@pytest.mark.parametrize("name", sorted(VERDICTS))
def test_the_verdict_is_stablelegos(root: Path, name: str) -> None:
    """19-level stairs stand, 20-level collapse, the improved 20 stand; a stick with 2 loads stands, with 3
    collapses, the improved one with 3 stands; the external-weight pair good / fail. The masses are the source's
    (its library's 200 g weight is no catalog part)."""
    s = load_structure(root, name)
    assert stands(s.assembly, ORIGIN, True, masses_kg=s.masses_kg) is VERDICTS[name]


def test_the_structures_are_read_as_the_source_lays_them(root: Path) -> None:
    s = load_structure(root, "stair_20")
    assert len(s.assembly) == 20 and {b.part for b in s.assembly} == {"3001"}
    assert [b.z for b in s.assembly] == [3 * k for k in range(20)]
    assert all(b.extent == (4, 2) for b in s.assembly)  # ori 1: the 4-stud side along x
    assert s.assembly.supports(s.assembly.bricks[5].id) == [s.assembly.bricks[4].id]
    weight = load_structure(root, "external_weight_fail")
    assert max(weight.masses_kg) == pytest.approx(0.2)


def test_the_close_verdicts_turn_with_a_few_percent_of_t(root: Path) -> None:
    """How close StableLego's examples sit to T: the 20-level stairs need 1.005 T, the 3-load stick 1.02 T."""
    for name, factor in (("stair_20", 1.01), ("stick_heavy", 1.03)):
        s = load_structure(root, name)
        assert stands(s.assembly, ORIGIN, True, factor * cm.CONTACT_POINT_CLUTCH_N, masses_kg=s.masses_kg)
    s = load_structure(root, "stair_19")
    assert not stands(s.assembly, ORIGIN, True, 0.88 * cm.CONTACT_POINT_CLUTCH_N, masses_kg=s.masses_kg)


def test_the_rim_lever_would_let_the_20_level_stairs_stand(root: Path) -> None:
    """Why the statics bears on the contact points (statics.py): with the rim lever, StableLego's collapse stands."""
    s = load_structure(root, "stair_20")
    assert stands(s.assembly, ORIGIN, True, masses_kg=s.masses_kg, bear_on_points=False)


def _write(tmp: Path, library: object, structure: object) -> Path:
    (tmp / "test_lego").mkdir(exist_ok=True)
    (tmp / "lego_library.json").write_text(json.dumps(library))
    (tmp / "test_lego" / "x.json").write_text(json.dumps(structure))
    return tmp


LIB = {"2": {"height": 2, "width": 4, "mass": 0.00216}}


@pytest.mark.parametrize(("library", "structure", "message"), [
    (LIB, {"1": {"x": 0, "y": 0, "z": 0, "ori": 1, "brick_id": 7}}, "brick_id 7 is not in the library"),
    (LIB, {"1": {"x": 0, "y": 0, "z": 0, "ori": 2, "brick_id": 2}}, "ori must be 0 or 1"),
    (LIB, {"1": {"x": "a", "y": 0, "z": 0, "ori": 0, "brick_id": 2}}, "field 'x' must be an integer"),
    ({"2": {"height": 5, "width": 5, "mass": 1}}, {"1": {"x": 0, "y": 0, "z": 0, "ori": 0, "brick_id": 2}},
     "no catalog brick of 5 x 5"),
    ({"2": {"height": 2, "width": 4, "mass": -1}}, {"1": {"x": 0, "y": 0, "z": 0, "ori": 0, "brick_id": 2}},
     "mass must be a positive number"),
    (LIB, {"1": {"x": 0, "y": 0, "z": 0, "ori": 0, "brick_id": 2}, "2": {"x": 1, "y": 0, "z": 0, "ori": 0,
                                                                          "brick_id": 2}}, "overlap"),
    (LIB, [1, 2], "expected an object of objects"),
])
def test_bad_files_are_named(tmp_path: Path, library: object, structure: object, message: str) -> None:
    with pytest.raises(StableLegoError, match=message):
        load_structure(_write(tmp_path, library, structure), "x")
