"""Rendering manuals offscreen: every style renders every step, new bricks are marked, the cache works."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from jarvis_sim.manuals import UnknownStyleError, manual_styles, render_manual
from jarvis_sim.manuals import manual as manual_module
from jarvis_sim.manuals.annotate import highlight_ring
from jarvis_sim.manuals.manual import ManualRenderer
from tests.jarvis_sim.manuals.crafted import crafted_task, one_step_task

pytestmark = pytest.mark.render

SMALL = (400, 300)
TINY = (240, 180)


def test_crafted_task_is_a_valid_build() -> None:
    crafted_task().target_assembly.validate()


@pytest.mark.parametrize(
    "style", [pytest.param(s, marks=pytest.mark.slow) if s == "photo" else s for s in sorted(manual_styles())]
)
def test_every_style_renders_every_step(style: str) -> None:
    task = crafted_task()
    with ManualRenderer(task, style, SMALL) as r:
        pages = [r.render_step(k) for k in range(len(task.manual_steps))]
    for k, page in enumerate(pages):
        assert page.image.size == SMALL
        img = np.asarray(page.image)
        assert img.std() > 20, f"{style} step {k} looks blank"
        # Each step shows exactly the bricks placed so far, and its own bricks are on screen.
        assert page.new_visible.sum() > 50
        shown = {r.scene.segment_names[s] for s in np.unique(page.segments) if s >= 0}
        placed = set(r.shown_after(k))
        later = {i for s in task.manual_steps[k + 1 :] for i in s.brick_ids}
        assert not shown & later
        assert shown - {"table", "baseplate"} <= placed
    # Successive steps differ (a brick was added).
    assert not np.array_equal(np.asarray(pages[0].image), np.asarray(pages[1].image))


def test_new_bricks_are_marked_and_keep_their_colour() -> None:
    task = crafted_task()
    with ManualRenderer(task, "booklet", SMALL) as r:
        page = r.render_step(1)  # adds the green 1x2 and the orange 1x1
        highlight = np.asarray(r.style.highlight_rgb)
        new_idx = [r.scene.segment_names.index(i) for i in ("b004", "b005")]
        old_idx = r.scene.segment_names.index("b000")
    img = np.asarray(page.image).astype(int)
    is_highlight = np.abs(img - highlight).sum(axis=2) < 30
    ring = highlight_ring(page.new_visible, 2)
    assert ring.sum() > 0
    assert is_highlight[ring].mean() > 0.8, "the band around the new bricks is not in the highlight colour"
    # The new bricks' own pixels keep their true colour.
    assert is_highlight[np.isin(page.segments, new_idx)].mean() < 0.05
    # Far from the new bricks (and away from the arrows above them), nothing is highlighted.
    old_only = (page.segments == old_idx) & ~highlight_ring(page.new_visible | page.new_silhouette, 12)
    assert is_highlight[old_only].mean() < 0.01


def test_cache_hit_returns_identical_bytes_without_rendering(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    task = one_step_task()
    first = render_manual(task, "shaded", TINY, cache_dir=tmp_path)
    assert len(first) == len(task.manual_steps)
    data = [p.read_bytes() for p in first]

    def no_render(*args: object, **kwargs: object) -> list[object]:
        raise AssertionError("rendered again on a cache hit")

    monkeypatch.setattr(manual_module, "render_manual_images", no_render)
    second = render_manual(task, "shaded", TINY, cache_dir=tmp_path)
    assert second == first
    assert [p.read_bytes() for p in second] == data
    # Another style, size or task content is another cache entry (and would render).
    with pytest.raises(AssertionError, match="rendered again"):
        render_manual(task, "booklet", TINY, cache_dir=tmp_path)
    changed = task.model_copy(update={"time_budget_s": 99.0})
    with pytest.raises(AssertionError, match="rendered again"):
        render_manual(changed, "shaded", TINY, cache_dir=tmp_path)
    assert not [p for p in tmp_path.rglob(".*") if p.is_dir()], "temporary folders left behind"


def test_a_damaged_cache_entry_is_rendered_again(tmp_path: Path) -> None:
    task = one_step_task()
    pages = render_manual(task, "shaded", TINY, cache_dir=tmp_path)
    pages[0].unlink()
    again = render_manual(task, "shaded", TINY, cache_dir=tmp_path)
    assert all(p.is_file() for p in again)


def test_unknown_style_is_an_error_listing_the_valid_ones(tmp_path: Path) -> None:
    with pytest.raises(UnknownStyleError, match="booklet"):
        render_manual(crafted_task(), "sketch", SMALL, cache_dir=tmp_path)
    assert not any(tmp_path.iterdir())


def test_bad_size_is_an_error() -> None:
    with pytest.raises(ValueError, match="width, height"):
        render_manual(crafted_task(), "booklet", (10, 10))
