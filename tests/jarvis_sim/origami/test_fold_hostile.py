"""Hostile or oversized FOLD input: a clear error or an undecided verdict, never a traceback, a hang or GBs."""

from __future__ import annotations

import json
import resource
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from jarvis_sim.origami.fold_format import (
    CreasePattern,
    FoldFormatError,
    dumps,
    pattern_from_segments,
    read_fold,
)
from jarvis_sim.origami.foldability import CheckLimits, check


def accordion_grid(n: int) -> CreasePattern:
    """An n x n map fold: horizontal creases alternate M/V, vertical ones flip at every row (flat-foldable)."""
    segs = [((0.0, j / n), (1.0, j / n), "M" if j % 2 else "V") for j in range(1, n)]
    segs += [((i / n, j / n), (i / n, (j + 1) / n), "V" if (i + j) % 2 == 0 else "M")
             for i in range(1, n) for j in range(n)]
    return pattern_from_segments(segs, f"grid{n}")


def test_deeply_nested_json_is_a_format_error(tmp_path: Path) -> None:
    path = tmp_path / "deep.fold"
    path.write_text('{"vertices_coords": ' + "[" * 100_000 + "]" * 100_000 + "}")
    with pytest.raises(FoldFormatError, match="nested too deeply"):
        read_fold(path)


def test_nested_value_in_a_field_is_named_and_the_message_stays_short(tmp_path: Path) -> None:
    data = json.loads(dumps(accordion_grid(2)))
    data["vertices_coords"][1] = json.loads("[" * 500 + "]" * 500)
    path = tmp_path / "nested.fold"
    path.write_text(json.dumps(data))
    with pytest.raises(FoldFormatError) as err:
        read_fold(path)
    assert str(err.value).startswith("vertices_coords[1]: expected [x, y] numbers")
    assert len(str(err.value)) < 200


def test_a_grid_past_the_memory_budget_is_undecided_quickly_and_in_little_memory(tmp_path: Path) -> None:
    path = tmp_path / "grid24.fold"
    path.write_text(dumps(accordion_grid(24)))  # 576 faces in one stack: 63 million clauses, past 2 GiB
    cp = read_fold(path)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    verdict = check(cp)
    assert time.perf_counter() - t0 < 20.0
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 500_000  # KiB: under 0.5 GB more
    assert not verdict.decided and "576 faces stack in one place" in verdict.undecided_reason
    assert "memory budget 2,048 MB" in verdict.undecided_reason
    out = verdict.to_json()
    assert out["foldable"] is None and out["decided"] is False
    # An explicit clause limit names itself.
    assert "clause limit 5,000" in check(accordion_grid(8), limits=CheckLimits(max_clauses=5000)).undecided_reason


def test_a_grid_the_old_fixed_clause_limit_left_undecided_decides_within_the_default_budget() -> None:
    # 16 x 16: 256 faces in one stack, 5.8 million clauses (the old default stopped at 1.5 million).
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    verdict = check(accordion_grid(16))
    assert verdict.decided and verdict.foldable and verdict.stats["clauses"] == 5_757_024
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 1_000_000  # KiB: streamed, not listed


def test_the_solve_itself_is_bounded_by_the_time_budget() -> None:
    from pysat.solvers import Solver

    from jarvis_sim.origami.foldability import SAT_SOLVER, _Clock, _Undecided

    # The pigeonhole problem of 11 pigeons in 10 holes takes any CDCL solver minutes: the clock interrupts it.
    pigeons, holes = 11, 10
    var = {(p, h): p * holes + h + 1 for p in range(pigeons) for h in range(holes)}
    clauses = [[var[p, h] for h in range(holes)] for p in range(pigeons)]
    clauses += [[-var[p, h], -var[q, h]] for h in range(holes) for p in range(pigeons) for q in range(p + 1, pigeons)]
    clock = _Clock(CheckLimits(time_s=1.0), None)
    t0 = time.perf_counter()
    with Solver(name=SAT_SOLVER, bootstrap_with=clauses) as solver, pytest.raises(_Undecided, match="while solving"):
        clock.solve(solver, [])
    assert time.perf_counter() - t0 < 5.0


def test_a_small_grid_is_still_decided_and_the_time_limit_gives_undecided() -> None:
    cp = accordion_grid(4)
    assert check(cp).foldable
    lines: list[str] = []
    assert check(cp, progress=lines.append).decided
    assert any("overlap cells" in ln for ln in lines) and any("solving" in ln for ln in lines)
    verdict = check(cp, limits=CheckLimits(time_s=0.0))
    assert not verdict.decided and "time limit of 0 s" in verdict.undecided_reason


def test_cli_reports_undecided_with_exit_3_and_progress(tmp_path: Path) -> None:
    from agent.cli.main import app

    path = tmp_path / "grid8.fold"
    path.write_text(dumps(accordion_grid(8)))
    r = CliRunner().invoke(app, ["origami", "check", str(path), "--max-clauses", "5000", "--progress"])
    assert r.exit_code == 3, r.output
    assert '"decided": false' in r.output and "too large" in r.output
    r = CliRunner().invoke(app, ["origami", "check", str(path), "--progress"])
    assert r.exit_code == 0 and '"foldable": true' in r.output
    big = tmp_path / "grid12.fold"
    big.write_text(dumps(accordion_grid(12)))  # about a million clauses: past what 64 MB holds
    r = CliRunner().invoke(app, ["origami", "check", str(big), "--memory-mb", "64"])
    assert r.exit_code == 3 and "memory budget 64 MB: at most 479,349 clauses" in r.stdout


def _as_3d(cp: CreasePattern, place) -> dict:  # type: ignore[no-untyped-def]
    data = json.loads(dumps(cp))
    data["vertices_coords"] = [list(place(x, y)) for x, y in data["vertices_coords"]]
    return data


@pytest.mark.parametrize(
    "place",
    [
        lambda x, y: (x, 0.0, y),  # Origami Simulator: the sheet in the XZ plane
        lambda x, y: (x, 0.0, -y),  # the same, mirrored: faces come out clockwise
        lambda x, y: (0.25, x, y),  # YZ plane
        lambda x, y: (x, 0.6 * y, 0.8 * y),  # a tilted plane
    ],
)
def test_flat_patterns_in_any_plane_get_the_same_verdict(place) -> None:  # type: ignore[no-untyped-def]
    from jarvis_sim.origami.fold_format import from_fold

    grid = accordion_grid(3)
    cp = from_fold(_as_3d(grid, place))
    assert check(cp).foldable == check(grid).foldable is True
    bad = grid.with_assignments(["M" if a == "V" else a for a in grid.assignments])  # every crease a mountain
    assert check(from_fold(_as_3d(bad, place))).foldable is False


def test_a_folded_state_is_not_a_crease_pattern() -> None:
    from jarvis_sim.origami.fold_format import from_fold

    data = _as_3d(accordion_grid(2), lambda x, y: (x, y, x * y))
    with pytest.raises(FoldFormatError, match="do not lie in one plane"):
        from_fold(data)


@pytest.mark.parametrize("x", [10**400, 1e308, -1e300])
def test_a_coordinate_beyond_any_float_or_sheet_is_a_format_error(tmp_path: Path, x: float) -> None:
    data = json.loads(dumps(accordion_grid(2)))
    data["vertices_coords"][1][0] = x
    path = tmp_path / "huge.fold"
    path.write_text(json.dumps(data))
    with pytest.raises(FoldFormatError) as err:
        read_fold(path)
    assert "vertices_coords" in str(err.value) and "magnitude" in str(err.value)
