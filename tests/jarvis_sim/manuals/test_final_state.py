"""The end of an episode as pictures: built and target from one viewpoint, each brick's outline in pixels."""

from __future__ import annotations

import numpy as np
import pytest

from jarvis_sim.manuals.final_state import brick_outlines, render_final_and_target
from tests.evaluator.builders import make_task, perfect_state, shifted, start_state


def _centroid(polygons: list[list[tuple[int, int]]]) -> np.ndarray:
    return np.concatenate([np.asarray(p, dtype=float) for p in polygons]).mean(axis=0)


def test_outlines_trace_each_named_segment_and_drop_slivers_and_unnamed_ones() -> None:
    seg = np.full((40, 60), -1, dtype=np.int32)
    seg[5:15, 10:30] = 0  # a 20 x 10 brick
    seg[20:30, 40:50] = 1  # the table, say: named but not kept
    seg[35, 5] = 2  # a one-pixel sliver of a brick behind another
    seg[30:38, 20:28] = 3  # a segment with no name
    out = brick_outlines(seg, {0: "b0", 1: "table", 2: "b2"}, keep={"b0", "b2"})
    assert list(out) == ["b0"]
    (poly,) = out["b0"]
    xs, ys = [x for x, _ in poly], [y for _, y in poly]
    assert (min(xs), max(xs), min(ys), max(ys)) == (10, 29, 5, 14)  # the mask's own pixel bounds


@pytest.mark.render
def test_built_and_target_share_one_view_so_a_moved_brick_shows_where_it_went() -> None:
    task = make_task()
    moved = shifted(perfect_state(task), "a2", dx=0.024)  # three studs off its target
    built, target = render_final_and_target(task, moved, size=(320, 240))
    assert built.size == target.size == (320, 240)
    assert set(built.outlines) == set(target.outlines) == {"i1", "a1", "a2"}
    # One viewpoint: bricks in place sit where their targets do, the moved one does not.
    for brick in ("i1", "a1"):
        assert np.linalg.norm(_centroid(built.outlines[brick]) - _centroid(target.outlines[brick])) < 2.0
    assert np.linalg.norm(_centroid(built.outlines["a2"]) - _centroid(target.outlines["a2"])) > 10.0
    assert not np.array_equal(built.rgb, target.rgb)


@pytest.mark.render
def test_a_brick_left_in_the_staging_area_is_not_in_the_built_picture() -> None:
    task = make_task()
    built, target = render_final_and_target(task, start_state(task), size=(320, 240))
    assert "i1" in built.outlines and not {"a1", "a2"} & set(built.outlines)
    assert {"a1", "a2"} <= set(target.outlines)
