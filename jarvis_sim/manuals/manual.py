"""Rendering a task's visual manual: one page per manual step, in a named style, cached on disk.

Page k shows the target state after step k (the initial structure plus the bricks of steps 1..k) from
one fixed oblique viewpoint that frames the whole finished structure, with the step's new bricks
marked (a coloured band, a see-through tint where they hide behind others, and a downward arrow), a
callout of the parts the step needs (picture, count, name, colour) and the step number.
"""

from __future__ import annotations

import dataclasses
import shutil
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw

from jarvis_sim.lego.catalog import part
from jarvis_sim.lego.colors import color
from jarvis_sim.manuals import annotate
from jarvis_sim.manuals.cache import cached_pages, manual_dir, store_pages, task_content_hash
from jarvis_sim.manuals.finish import finish
from jarvis_sim.manuals.framing import ViewPoint, frame_points
from jarvis_sim.manuals.scene import BrickScene, SceneBrick, bricks_corners
from jarvis_sim.manuals.styles import ManualStyle, get_style
from jarvis_sim.tasks.spec import TaskSpec

RENDERER_VERSION = 2
"""Bump when pages would look different for the same task, style and size (invalidates the cache)."""

DEFAULT_SIZE = (800, 600)
STRUCTURE_RECT = (annotate.LEFT_COLUMN, 0.06, 0.98, 0.96)
MAX_ARROWS = 4
ICON_SPACING_M = 1.0  # part pictures share one scene, this far apart so only one is ever in view
ICON_REFERENCE_PART = "3003"  # icons are drawn at one scale, so that a 2 x 2 brick just fills one


@dataclass
class StepPage:
    """A rendered page, with the masks of its new bricks (for tests and for checking the marking)."""

    image: Image.Image
    segments: np.ndarray  # per-pixel index into the scene's segment names, -1 background
    new_visible: np.ndarray  # bool: a new brick is the nearest surface
    new_silhouette: np.ndarray  # bool: a new brick would be seen with nothing in front


def _check_size(size: tuple[int, int]) -> tuple[int, int]:
    if len(size) != 2 or not all(isinstance(v, int) and 160 <= v <= 4096 for v in size):
        raise ValueError(f"manual size must be (width, height) with each in 160..4096 pixels, got {size!r}")
    return (int(size[0]), int(size[1]))


class ManualRenderer:
    """Renders the pages of one task's manual in one style; holds the scene and GL context until closed."""

    def __init__(self, task: TaskSpec, style: str | ManualStyle = "booklet", size: tuple[int, int] = DEFAULT_SIZE):
        self.task = task
        self.style = get_style(style) if isinstance(style, str) else style
        self.size = _check_size(size)
        origin = task.workspace.lattice_origin
        self.bricks = [SceneBrick.from_lattice(b, origin) for b in task.target_assembly]
        self.view = frame_points(bricks_corners(self.bricks), self.size, STRUCTURE_RECT)
        self.scene = BrickScene(
            self.bricks,
            self.style,
            self.size,
            view=self.view,
            baseplate_origin=origin if task.baseplate else None,
            grid_origin=origin,
        )
        self._icons: dict[tuple[str, int], Image.Image] = {}
        self._icon_scene: BrickScene | None = None

    # --- pages ------------------------------------------------------------------------------------
    def shown_after(self, k: int) -> list[str]:
        """Brick ids present after manual step k (0-based): the initial structure and steps 0..k."""
        ids = [b.id for b in self.task.initial]
        for step in self.task.manual_steps[: k + 1]:
            ids.extend(step.brick_ids)
        return ids

    def render_step(self, k: int) -> StepPage:
        """The page of manual step k (0-based)."""
        steps = self.task.manual_steps
        if not 0 <= k < len(steps):
            raise IndexError(f"task {self.task.id} has manual steps 0..{len(steps) - 1}, not {k}")
        new_ids = steps[k].brick_ids
        self.scene.show_only(new_ids)
        alone = self.scene.render(rgb=False, segments=True).segments
        self.scene.show_only(self.shown_after(k))
        frame = self.scene.render(rgb=True, depth=True, segments=True)
        assert frame.rgb is not None and frame.segments is not None and alone is not None
        new_idx = [self.scene.segment_names.index(i) for i in new_ids]
        visible = np.isin(frame.segments, new_idx)
        silhouette = np.isin(alone, new_idx)
        rgb = finish(self.style, frame.rgb, frame.depth, frame.segments, self.view.focal_px(self.size), seed=k)
        scale = min(self.size) / 600
        rgb = annotate.mark_new_bricks(
            rgb, visible, silhouette, self.style.highlight_rgb, self.style.outline_rgb, max(2, round(4 * scale))
        )
        page = Image.fromarray(rgb)
        self._draw_arrows(page, new_idx, alone)
        box = annotate.draw_callout(
            page,
            self._callout_parts(new_ids),
            panel=self.style.panel_rgb,
            text=self.style.text_rgb,
            border=(150, 156, 166),
            max_width=annotate.LEFT_COLUMN * self.size[0] - 20 * scale,
        )
        annotate.draw_step_number(
            page,
            steps[k].index + 1,
            box[3],
            text=self.style.text_rgb,
            panel=None if self.style.line_art else self.style.panel_rgb,
            border=(150, 156, 166),
        )
        return StepPage(page, frame.segments, visible, silhouette)

    def _draw_arrows(self, page: Image.Image, new_idx: list[int], alone: np.ndarray) -> None:
        draw = ImageDraw.Draw(page)
        length = 0.11 * self.size[1]
        for idx in new_idx[:MAX_ARROWS]:
            tip = annotate.arrow_tips(alone == idx, gap_px=0.012 * self.size[1])
            if tip is None:
                continue
            room = tip[1] - 2
            if room < length * 0.4:
                continue  # no space above the brick: the band and tint still mark it
            annotate.draw_arrow(draw, tip, min(length, room), self.style.highlight_rgb, self.style.outline_rgb)

    def render_pages(self) -> list[Image.Image]:
        """Every page, in manual order."""
        return [self.render_step(k).image for k in range(len(self.task.manual_steps))]

    # --- parts callout ----------------------------------------------------------------------------
    def _callout_parts(self, new_ids: list[str]) -> list[annotate.CalloutPart]:
        bricks = {b.id: b for b in self.bricks}
        # Counter keeps first-seen order: parts are listed in the order the step names them.
        counts = Counter((bricks[i].part, bricks[i].color) for i in new_ids)
        return [
            annotate.CalloutPart(n, self.icon(p, c), part(p).name, color(c).name, p) for (p, c), n in counts.items()
        ]

    def icon(self, part_number: str, colour: int) -> Image.Image:
        """A picture of one part in a colour, in this style, cropped, on the callout's panel colour."""
        key = (part_number, colour)
        if key not in self._icons:
            self._icons[key] = self._render_icon(part_number, colour)
        return self._icons[key]

    def _icon_scene_for(self, icon_size: tuple[int, int]) -> BrickScene:
        # One scene holds every part picture the manual needs, far apart, so one GL context serves them all.
        if self._icon_scene is None:
            kinds = list(dict.fromkeys((a.target.part, a.target.color) for a in self.task.action_bricks))
            bricks = [
                SceneBrick(f"{p}/{c}", p, c, (ICON_SPACING_M * k, 0.0, 0.0), (1.0, 0.0, 0.0, 0.0))
                for k, (p, c) in enumerate(kinds)
            ]
            icon_style = dataclasses.replace(
                self.style,
                background_top=self.style.panel_rgb,
                background_bottom=self.style.panel_rgb,
                table="none",
                lighting=dataclasses.replace(self.style.lighting, shadows=False),
                photo_finish=False,
            )
            view = frame_points(bricks_corners(bricks[:1]), icon_size)
            self._icon_scene = BrickScene(bricks, icon_style, icon_size, view=view, table=False)
        return self._icon_scene

    def _render_icon(self, part_number: str, colour: int) -> Image.Image:
        w, h = self.size
        icon_size = (max(64, round(0.22 * w)), max(48, round(0.16 * h)))
        scene = self._icon_scene_for(icon_size)
        name = f"{part_number}/{colour}"
        brick = scene.bricks[scene.segment_names.index(name)]
        ref = SceneBrick("ref", ICON_REFERENCE_PART, colour, brick.position, brick.quaternion)
        rect = (0.04, 0.04, 0.96, 0.96)
        view = frame_points(bricks_corners([brick]), icon_size, rect)
        ref_view = frame_points(bricks_corners([ref]), icon_size, rect)
        view = dataclasses.replace(view, distance=max(view.distance, ref_view.distance))
        scene.show_only([name])
        frame = scene.render(view, rgb=True, depth=True, segments=True)
        assert frame.rgb is not None and frame.segments is not None
        rgb = finish(scene.style, frame.rgb, frame.depth, frame.segments, view.focal_px(icon_size))
        return annotate.crop_to_content(rgb, frame.segments >= 0, pad=3)

    def close(self) -> None:
        """Free the GL contexts."""
        self.scene.close()
        if self._icon_scene is not None:
            self._icon_scene.close()
            self._icon_scene = None

    def __enter__(self) -> ManualRenderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def render_manual_images(task: TaskSpec, style: str = "booklet", size: tuple[int, int] = DEFAULT_SIZE) -> list[Image.Image]:
    """The manual's pages as PIL images, rendered now (no cache)."""
    with ManualRenderer(task, style, size) as r:
        return r.render_pages()


def render_manual(
    task: TaskSpec,
    style: str = "booklet",
    size: tuple[int, int] = DEFAULT_SIZE,
    *,
    cache_dir: Path | None = None,
) -> list[Path]:
    """The manual's pages as PNG files in the cache (rendered only when not cached yet), in step order."""
    get_style(style)  # an unknown style fails before any work
    size = _check_size(size)
    folder = manual_dir(task, style, size, RENDERER_VERSION, cache_dir)
    pages = cached_pages(folder)
    if pages is not None:
        return pages
    if folder.exists():
        shutil.rmtree(folder)  # damaged by hand (files deleted): render it again
    meta: dict[str, object] = {
        "task_id": task.id,
        "task_sha256": task_content_hash(task),
        "style": style,
        "size": list(size),
        "renderer_version": RENDERER_VERSION,
        "steps": [s.model_dump() for s in task.manual_steps],
    }
    return store_pages(folder, lambda: render_manual_images(task, style, size), meta)


def manual_view(task: TaskSpec, size: tuple[int, int] = DEFAULT_SIZE) -> ViewPoint:
    """The fixed oblique viewpoint of a task's manual pages."""
    origin = task.workspace.lattice_origin
    corners = bricks_corners([SceneBrick.from_lattice(b, origin) for b in task.target_assembly])
    return frame_points(corners, _check_size(size), STRUCTURE_RECT)
