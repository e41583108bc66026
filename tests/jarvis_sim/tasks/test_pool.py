"""The pool builder: rows match rebuilt TaskSpecs, output independent of worker count, report fields."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jarvis_sim.tasks.collection import rebuild_task
from jarvis_sim.tasks.pool import build_pool
from jarvis_sim.tasks.pool_report import heat_map, write_report


@pytest.mark.slow
def test_pool_rows_describe_the_rebuilt_tasks_and_workers_do_not_matter(tmp_path: Path) -> None:
    one = build_pool(12, 4, tmp_path / "one", workers=1)
    two = build_pool(12, 4, tmp_path / "two", workers=2)
    for name in ("tasks.jsonl", "assemblies.jsonl"):
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    assert one.horizons.tolist() == two.horizons.tolist()
    rows = [json.loads(x) for x in (tmp_path / "one" / "tasks.jsonl").read_text().splitlines()]
    assert len(rows) == one.horizons.size
    for row in rows[:: max(1, len(rows) // 5)]:
        spec = rebuild_task(row["id"])
        assert len(spec.initial) == row["start"] and len(spec.action_bricks) == row["horizon"]
        assert [[a.start.x, a.start.y, a.start.yaw] for a in spec.action_bricks] == row["starts"]
        assert list(spec.workspace.lattice_origin) == row["lattice_origin"]
    rep = write_report(one, 4, tmp_path / "one")
    assert rep["pool"]["tasks"] == len(rows)
    assert sum(rep["strata"]["counts"].values()) == len(rows)
    assert sum(map(sum, rep["heat_map"]["counts"])) == len(rows)
    for fig in rep["figures"]:
        assert (tmp_path / "one" / fig).stat().st_size > 1000


def test_heat_map_bins() -> None:
    import numpy as np

    hm = heat_map(np.array([1, 2, 3, 11, 43]), np.array([0, 29, 30, 300, 740]))
    assert hm[0, 0] == 2 and hm[1, 1] == 1 and hm[3, 4] == 2
