"""Segments of build sequences, task specs and staging of the loose bricks."""

from __future__ import annotations

import itertools
import math
import statistics

from jarvis_sim.lego import units as u
from jarvis_sim.tasks.collection import make_assembly, rebuild_task, segments_of, tasks_of
from jarvis_sim.tasks.decompose import MAX_HORIZON, decompose
from jarvis_sim.tasks.staging import MIN_GAP_M, REACH_MAX_M, STRUCTURE_CENTER, structure_max_y


def test_segments_tile_the_sequence_and_horizons_have_the_paper_shape() -> None:
    horizons = []
    for i in range(300):
        n = 5 + (i * 37) % 400
        segs = decompose(n, f"s{i}")
        assert all(1 <= s.length <= MAX_HORIZON and s.stop <= n and sum(s.steps) == s.length for s in segs)
        covered = sorted({k for s in segs for k in range(s.start, s.stop)})
        assert covered == list(range(n))
        horizons += [s.length for s in segs]
    assert 4.0 < statistics.mean(horizons) < 6.0
    assert statistics.median(horizons) in (3, 4, 5)
    assert sorted(horizons)[int(0.95 * len(horizons))] <= 11


def test_task_is_a_consistent_segment_with_staged_bricks() -> None:
    a = make_assembly("v", 5, 3)
    for spec in itertools.islice(tasks_of(a, 5), 0, None, 3):
        target = spec.target_assembly
        target.validate()
        assert [b.id for b in target.bricks] == [b.id for b in a.bricks[: len(target)]]
        x0, y0, x1, y1 = target.footprint_bounds()
        ox, oy, _ = spec.workspace.lattice_origin
        assert math.isclose(ox + (x0 + x1) / 2 * u.STUD_PITCH_M, STRUCTURE_CENTER[0], abs_tol=1e-3)
        assert math.isclose(oy + (y0 + y1) / 2 * u.STUD_PITCH_M, STRUCTURE_CENTER[1], abs_tol=1e-3)
        _check_staging(spec)


def _check_staging(spec) -> None:  # type: ignore[no-untyped-def]
    boxes = []
    for ab in spec.action_bricks:
        p = ab.target.spec
        w, d, _ = p.size_m
        sx, sy = (w, d) if round(ab.start.yaw / (math.pi / 2)) % 2 == 0 else (d, w)
        boxes.append((ab.start.x - sx / 2, ab.start.y - sy / 2, ab.start.x + sx / 2, ab.start.y + sy / 2))
        assert math.hypot(ab.start.x, ab.start.y) <= REACH_MAX_M
        assert spec.workspace.staging_min[1] <= ab.start.y - sy / 2 + 1e-9
        assert ab.start.y - sy / 2 > structure_max_y(spec.target_assembly, spec.workspace)
    for a, b in itertools.combinations(boxes, 2):
        gap_x = max(b[0] - a[2], a[0] - b[2])
        gap_y = max(b[1] - a[3], a[1] - b[3])
        assert max(gap_x, gap_y) >= MIN_GAP_M - 1e-4  # start poses are rounded to 0.1 mm


def test_rebuild_task_from_id_gives_the_same_spec() -> None:
    a = make_assembly("p", 9, 17)
    segs = segments_of(a)
    specs = list(tasks_of(a, 9))
    assert len(specs) == len(segs)
    k = len(specs) // 2
    assert rebuild_task(specs[k].id) == specs[k]
