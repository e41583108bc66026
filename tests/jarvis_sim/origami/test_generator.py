"""The generated library: valid, distinct, both classes, verified twins, byte-identical regeneration."""

from __future__ import annotations

import random
from collections import Counter

import pytest

from jarvis_sim.origami.fold_format import dumps, read_fold
from jarvis_sim.origami.foldability import check
from jarvis_sim.origami.generator import (
    AXIOMS,
    FoldSheet,
    axiom_line,
    classic_base,
    fold_sequence,
    pattern_class,
)
from jarvis_sim.origami.impossible import METHODS, impossible_twin
from jarvis_sim.origami.library import ASSETS, read_manifest


def test_fold_sequences_are_valid_and_seeded() -> None:
    a = [fold_sequence(random.Random(5), n, "x") for n in (1, 3, 5)]
    b = [fold_sequence(random.Random(5), n, "x") for n in (1, 3, 5)]
    for cp, cp2 in zip(a, b, strict=True):
        assert cp is not None and cp2 is not None and dumps(cp) == dumps(cp2)
        assert check(cp).foldable


def test_every_axiom_yields_lines() -> None:
    sheet = FoldSheet()
    sheet.fold(__import__("numpy").array([0.5, 0.5]), __import__("numpy").array([1.0, 0.3]), True)
    rng = random.Random(0)
    for axiom in AXIOMS:
        assert any(axiom_line(axiom, sheet, rng) is not None for _ in range(50)), axiom


@pytest.mark.parametrize("kind", ["preliminary", "waterbomb", "kite", "fish", "bird"])
def test_classic_bases_fold(kind: str) -> None:
    cp = classic_base(kind)
    assert cp is not None and check(cp).foldable


def test_shipped_manifest_counts_and_classes() -> None:
    rows = read_manifest()["patterns"]
    assert len(rows) >= 186 and len({r["name"] for r in rows}) == len(rows)
    levels = Counter(r["level"] for r in rows)
    assert levels["simple"] > 50 and levels["complex"] > 50
    assert all(pattern_class(r["creases"]) == r["level"] for r in rows)
    sources = {r["source"] for r in rows}
    assert {"classic-base", "tessellation", "fold-sequence"} <= sources
    assert {r["impossible"]["method"] for r in rows} == set(METHODS)
    assert all(r["impossible"]["violated_rules"] for r in rows)


def test_shipped_patterns_verify_as_recorded() -> None:
    # A sample keeps this fast; the benchmark re-verifies all of them.
    rows = read_manifest()["patterns"]
    for r in rows[::12]:
        assert check(read_fold(ASSETS / "patterns" / f"{r['name']}.fold")).foldable, r["name"]
        twin = check(read_fold(ASSETS / "patterns" / f"impossible-{r['name']}.fold"))
        assert not twin.foldable and twin.rules == r["impossible"]["violated_rules"], r["name"]


def test_impossible_twin_methods() -> None:
    cp = classic_base("bird")
    assert cp is not None
    for method in METHODS:
        twin = impossible_twin(cp, random.Random(1), preferred=method)
        assert twin.method == method and not check(twin.pattern).foldable and twin.violated_rules


def test_library_prefix_regenerates_byte_identically(tmp_path) -> None:
    # The first five shipped entries are all simple, so a simple-only quota of five rebuilds exactly them
    # (same candidates, same twin random stream) in well under a second; the slow test below does all.
    from jarvis_sim.origami.library import build_library, write_library

    entries = build_library(quota={"simple": 5, "complex": 0})
    write_library(entries, tmp_path)
    shipped = read_manifest()
    built = read_manifest(tmp_path)
    assert built["seed"] == shipped["seed"]
    assert built["patterns"] == shipped["patterns"][: len(entries)]
    for e in entries:
        for name in (f"{e.name}.fold", f"impossible-{e.name}.fold"):
            assert (tmp_path / "patterns" / name).read_bytes() == (ASSETS / "patterns" / name).read_bytes(), name


@pytest.mark.slow
def test_library_regenerates_byte_identically(tmp_path) -> None:
    from jarvis_sim.origami.library import build_library, write_library

    write_library(build_library(), tmp_path)
    assert (tmp_path / "manifest.json").read_bytes() == (ASSETS / "manifest.json").read_bytes()
    for p in sorted((ASSETS / "patterns").glob("*.fold")):
        assert (tmp_path / "patterns" / p.name).read_bytes() == p.read_bytes(), p.name
