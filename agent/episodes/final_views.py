"""Pictures of an assembly episode's end, written into its folder and listed in its record.

Three pictures: the backend's camera as the agent would see the table now, and the final bricks beside the
target rendered alone from one viewpoint. Each lists the outline of every brick it shows, so the dashboard
can colour a brick by its score and explain it on hover; the scores stay out of the pictures, so
re-scoring a run never leaves a stale picture behind.
"""

from __future__ import annotations

import logging
from pathlib import Path

import numpy as np

from jarvis_sim.backends.base import Backend
from jarvis_sim.lego.world_state import WorldState
from jarvis_sim.records import FinalView
from jarvis_sim.tasks.spec import TaskSpec

log = logging.getLogger(__name__)

CAMERA_IMAGE, FINAL_IMAGE, TARGET_IMAGE = "final_camera.png", "final_state.png", "final_target.png"


def _save(folder: Path, name: str, rgb: np.ndarray) -> None:
    from PIL import Image

    Image.fromarray(rgb).save(folder / name)


def capture_final_views(backend: Backend, camera: str, task: TaskSpec, state: WorldState, folder: Path) -> list[FinalView]:
    """Render and save the end-of-episode pictures; a renderer that fails costs the pictures, never the episode."""
    from jarvis_sim.manuals.final_state import brick_outlines

    views: list[FinalView] = []
    bricks = {b.id for b in state.bricks}
    try:
        frame = backend.render(camera, rgb=True, depth=False, segmentation=True)
        if frame.rgb is not None:
            _save(folder, CAMERA_IMAGE, frame.rgb)
            outlines = brick_outlines(frame.segmentation, frame.segment_ids, keep=bricks) \
                if frame.segmentation is not None else {}
            h, w = frame.shape
            views.append(FinalView(kind="camera", image=CAMERA_IMAGE, width=w, height=h, outlines=outlines))
    except Exception:  # a backend without segmentation or GL: the other pictures may still be made
        log.warning("no final camera picture for %s", task.id, exc_info=True)
    try:
        views += built_and_target_views(task, state, folder)
    except Exception:
        log.warning("no final-state pictures for %s", task.id, exc_info=True)
    return views


def built_and_target_views(task: TaskSpec, state: WorldState, folder: Path,
                           size: tuple[int, int] | None = None) -> list[FinalView]:
    """Render the final bricks and the target from one viewpoint, save both, and return their views."""
    from jarvis_sim.manuals.final_state import FINAL_VIEW_SIZE, render_final_and_target

    final, target = render_final_and_target(task, state, size or FINAL_VIEW_SIZE)
    views = []
    for kind, name, picture in (("final", FINAL_IMAGE, final), ("target", TARGET_IMAGE, target)):
        _save(folder, name, picture.rgb)
        w, h = picture.size
        views.append(FinalView(kind=kind, image=name, width=w, height=h, outlines=picture.outlines))  # type: ignore[arg-type]
    return views
