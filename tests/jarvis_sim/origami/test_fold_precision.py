"""FOLD files as real tools write them: float32 noise, a few decimals, big sheets, the XZ plane.

The checker reads the file's precision from its digits and checks a pattern that fails as written
again with tolerances widened to it, so rounding never turns a foldable design into "not foldable";
and a violation larger than the rounding is still found (impossible twins stay impossible).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from typer.testing import CliRunner

from jarvis_sim.origami.fold_format import CreasePattern, dumps, from_fold, precision_of, read_fold
from jarvis_sim.origami.foldability import check
from jarvis_sim.origami.generator import assign_by_layers, miura_ori
from tests.jarvis_sim.origami.test_fold_hostile import accordion_grid

Point = tuple[float, float]


def box_pleat_grid(n: int) -> CreasePattern:
    """An n x n box-pleat tessellation: every grid line and both diagonals of every square, M/V from the solver."""
    segs: list[tuple[Point, Point]] = []
    for k in range(1, n):
        segs += [((0.0, k / n), (1.0, k / n)), ((k / n, 0.0), (k / n, 1.0))]
    for i in range(n):
        for j in range(n):
            x0, y0, x1, y1 = i / n, j / n, (i + 1) / n, (j + 1) / n
            segs += [((x0, y0), (x1, y1)), ((x0, y1), (x1, y0))]
    cp = assign_by_layers(segs, f"box-pleat-{n}x{n}", {"kind": "box-pleat"})
    assert cp is not None
    return cp


def hypar(rings: int) -> CreasePattern:
    """A pleated hyperbolic paraboloid (concentric squares and both diagonals), the base of Lang's Hyperbolic Limit."""
    segs: list[tuple[Point, Point]] = [((0.0, 0.0), (1.0, 1.0)), ((0.0, 1.0), (1.0, 0.0))]
    for k in range(1, rings):
        a, b = 0.5 - 0.5 * k / rings, 0.5 + 0.5 * k / rings
        segs += [((a, a), (b, a)), ((b, a), (b, b)), ((b, b), (a, b)), ((a, b), (a, a))]
    cp = assign_by_layers(segs, f"hypar-{rings}", {"kind": "hypar"})
    assert cp is not None
    return cp


def origami_simulator_export(cp: CreasePattern, size: float = 2.5, turn_deg: float = 45.0) -> dict[str, Any]:
    """The pattern as Origami Simulator exports it: centred, scaled, turned, in the XZ plane, float32 numbers."""
    data = json.loads(dumps(cp))
    c, s = math.cos(math.radians(turn_deg)), math.sin(math.radians(turn_deg))
    out = []
    for x, y in data["vertices_coords"]:
        u, v = (x - 0.5) * size, (y - 0.5) * size
        out.append([float(np.float32(c * u - s * v)), 0.0, float(np.float32(s * u + c * v))])
    data["vertices_coords"] = out
    data["file_creator"] = "Origami Simulator"
    return data


def decimals_export(cp: CreasePattern, decimals: int, size: float = 1.0) -> dict[str, Any]:
    """The pattern written with a fixed number of decimals on a sheet of `size` (TreeMaker / ORIPA style)."""
    data = json.loads(dumps(cp))
    data["vertices_coords"] = [[round(x * size, decimals), round(y * size, decimals)] for x, y in data["vertices_coords"]]
    return data


def test_the_precision_of_each_writer_is_read_from_its_digits() -> None:
    f32 = [float(np.float32(v)) for v in (0.3, 0.7, 0.123, 1.25)]
    noise, source = precision_of(f32)
    assert source.startswith("float32") and 1e-7 < noise < 1e-6
    assert precision_of([0.1235, 0.9876, 0.0333, 1.0, 0.5]) == (5e-05, "4 decimals")
    assert precision_of([123.457, 0.00123457, 45.6789, 7.25]) == (0.0005, "6 significant digits")
    assert precision_of([1 / 3, 2 / 3])[1] == "float64 coordinates"
    assert precision_of([0.0, 0.125, 0.25, 400.0]) == (0.0, "exact (grid) coordinates")  # short binary fractions


Variant = Callable[[CreasePattern], dict[str, Any]]


@pytest.mark.parametrize(
    ("make", "export", "widened"),
    [
        # A 4x4 box-pleat tessellation (88 creases) from Origami Simulator: float32, XZ plane, turned 45 degrees,
        # on a 2.5-unit sheet: decided on the unit sheet as written.
        pytest.param(lambda: box_pleat_grid(4), origami_simulator_export, False, marks=pytest.mark.slow),
        # The same tessellation (3x3) written to 4 decimals: Kawasaki and big-little-big read as broken as written.
        (lambda: box_pleat_grid(3), lambda cp: decimals_export(cp, 4), True),
        # A Miura-ori written to 4 decimals (TreeMaker style): the same false Kawasaki flags.
        (lambda: miura_ori(6, 6, 0.25), lambda cp: decimals_export(cp, 4), True),
        # A 7-ring hypar written to 5 decimals (Lang's Hyperbolic Limit style): a false layer-order conflict.
        (lambda: hypar(7), lambda cp: decimals_export(cp, 5), True),
        # ORIPA's 400-unit sheet with 3 decimals: a false layer-order conflict as written.
        (lambda: miura_ori(4, 6, 0.2), lambda cp: decimals_export(cp, 3, 400.0), True),
        # An 8x8 map fold turned 30 degrees in float32: unmerged near-duplicate images inflate the layer problem
        # (past the old fixed limit of 1.5 million clauses); within the 2 GiB budget it decides as written.
        pytest.param(lambda: accordion_grid(8), lambda cp: origami_simulator_export(cp, 1.0, 30.0), False,
                     marks=pytest.mark.slow),
    ],
    ids=["box-pleat-float32-xz", "box-pleat-4-decimals", "miura-4-decimals", "hypar-5-decimals", "oripa-400-3-decimals",
         "map-fold-float32-turned"],
)
def test_real_tool_exports_of_foldable_patterns_are_foldable(make: Callable[[], CreasePattern], export: Variant,
                                                             widened: bool) -> None:
    exact = make()
    assert check(exact).foldable
    cp = from_fold(export(exact))
    assert cp.coordinate_noise > 0
    as_written = check(cp, noise=0.0)
    assert as_written.foldable is not widened, (as_written.rules, as_written.undecided_reason)
    verdict = check(cp)
    assert verdict.decided and verdict.foldable, (verdict.rules, verdict.undecided_reason)
    out = verdict.to_json()
    assert out["tolerance"]["widened"] is widened and out["tolerance"]["noise_source"] == cp.noise_source
    assert bool(out.get("violated_as_written")) is widened


def _twins() -> list[CreasePattern]:
    """Impossible twins of the shipped GamiBench set, one per way of making them, plus the biggest ones."""
    from jarvis_sim.origami.library import ASSETS

    manifest = json.loads((ASSETS / "manifest.json").read_text())
    by_method: dict[str, list[dict[str, Any]]] = {}
    for row in manifest["patterns"]:
        by_method.setdefault(row["impossible"]["method"], []).append(row)
    picked = [rows[k] for rows in by_method.values() for k in (0, len(rows) // 2)]
    picked += sorted(manifest["patterns"], key=lambda r: -r["impossible"]["creases"])[:2]
    return [read_fold(ASSETS / "patterns" / f"impossible-{r['name']}.fold") for r in picked]


@pytest.mark.parametrize("export", [origami_simulator_export, lambda cp: decimals_export(cp, 4)],
                         ids=["float32-xz", "4-decimals"])
def test_rounding_never_hides_a_violation(export: Variant) -> None:
    twins = _twins()
    assert len(twins) >= 6
    for twin in twins:
        assert not check(twin).foldable
        verdict = check(from_fold(export(twin)))
        assert not verdict.foldable, twin.name  # decided unfoldable, or at worst undecided: never foldable


def test_a_file_too_coarse_for_its_creases_is_undecided_and_says_why() -> None:
    cp = from_fold(decimals_export(miura_ori(6, 6, 0.25), 2))  # two decimals on a unit sheet
    verdict = check(cp)
    assert not verdict.decided, verdict.rules
    # Undecided says so first: it never opens with what reads as a verdict.
    assert verdict.undecided_reason.startswith("undecided: the coordinates are only known to")
    assert "2 decimals" in verdict.undecided_reason and "not foldable" not in verdict.undecided_reason
    assert verdict.to_json()["foldable"] is None


def test_an_exact_pattern_keeps_its_exact_verdict_and_state_in_its_own_units() -> None:
    big = from_fold(decimals_export(accordion_grid(4), 6, 400.0))  # ORIPA's 400-unit sheet, exact values
    assert big.noise_source == "exact (grid) coordinates"
    verdict = check(big)
    assert verdict.foldable and verdict.tolerance["widened"] is False and verdict.state is not None
    # The folded state is in the file's units: face 0 stays put and every face keeps its size.
    f0 = verdict.state.folded_polygon(big, 0)
    assert np.allclose(f0, big.vertices[list(verdict.state.faces[0])])
    for f in range(len(verdict.state.faces)):
        poly = verdict.state.folded_polygon(big, f)
        assert np.ptp(poly, axis=0).max() == pytest.approx(100.0, rel=1e-12)


@pytest.mark.slow
def test_cli_precision_flag(tmp_path: Path) -> None:
    from agent.cli.main import app

    path = tmp_path / "miura.fold"
    path.write_text(json.dumps(decimals_export(miura_ori(6, 6, 0.25), 4)))
    auto = CliRunner().invoke(app, ["origami", "check", str(path)])
    assert auto.exit_code == 0 and json.loads(auto.output)["foldable"] is True, auto.output
    exact = CliRunner().invoke(app, ["origami", "check", str(path), "--precision", "exact"])
    assert exact.exit_code == 0 and json.loads(exact.output)["foldable"] is False
    given = CliRunner().invoke(app, ["origami", "check", str(path), "--precision", "1e-4", "--progress"])
    assert json.loads(given.stdout)["tolerance"]["noise_source"] == "given"
    assert "checking again within the file's precision" in given.output
    bad = CliRunner().invoke(app, ["origami", "check", str(path), "--precision", "-1"])
    assert bad.exit_code == 2 and "expected 'auto', 'exact' or a coordinate noise" in bad.output
