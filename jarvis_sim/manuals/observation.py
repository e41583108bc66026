"""The initial observation of a task: the simulator's top camera on the freshly loaded scene, cached on disk,
with a stand-in (the manual's bricks-only scene rendered straight down) for when no backend is at hand."""

from __future__ import annotations

import logging
import os
import uuid
from pathlib import Path

import numpy as np
from PIL import Image

from jarvis_sim.manuals.cache import task_content_hash
from jarvis_sim.manuals.framing import top_down_view
from jarvis_sim.manuals.scene import BrickScene, SceneBrick, bricks_corners
from jarvis_sim.manuals.styles import get_style
from jarvis_sim.paths import cache_root
from jarvis_sim.tasks.spec import TaskSpec
from jarvis_sim.tasks.variation import loose_bricks


def initial_scene_bricks(task: TaskSpec) -> list[SceneBrick]:
    """The initial structure at its lattice poses plus every loose brick (distractors too) at its start pose."""
    origin = task.workspace.lattice_origin
    bricks = [SceneBrick.from_lattice(b, origin) for b in task.initial]
    for a in loose_bricks(task):
        yaw = a.start.yaw
        bricks.append(
            SceneBrick(a.id, a.part, a.color, (a.start.x, a.start.y, 0.0), (np.cos(yaw / 2), 0.0, 0.0, np.sin(yaw / 2)))
        )
    return bricks


def render_top_down(task: TaskSpec, size: tuple[int, int] = (640, 480)) -> Image.Image:
    """The initial scene seen from straight above (image up = +x, away from the robot), shaded style."""
    bricks = initial_scene_bricks(task)
    ws = task.workspace
    ox, oy, oz = ws.lattice_origin
    # Frame the structure, the loose bricks and the staging area together, as an overhead camera would.
    extra = np.array(
        [[ws.staging_min[0], ws.staging_min[1], oz], [ws.staging_max[0], ws.staging_max[1], oz], [ox, oy, oz]]
    )
    view = top_down_view(np.concatenate([bricks_corners(bricks), extra]), size)
    origin = ws.lattice_origin if task.baseplate else None
    with BrickScene(bricks, get_style("shaded"), size, view=view, baseplate_origin=origin, grid_origin=ws.lattice_origin) as scene:
        frame = scene.render(rgb=True)
    assert frame.rgb is not None
    return Image.fromarray(frame.rgb)


log = logging.getLogger(__name__)


def write_initial_observation(task: TaskSpec, out: Path) -> str:
    """Write the initial top-down observation to `out` (PNG); return which renderer made it.

    The MuJoCo backend's own top camera is used when that backend is installed; otherwise the manual's
    bricks-only scene is rendered from a straight top-down view of the same workspace.
    """
    from jarvis_sim.backends.registry import make_backend

    try:
        backend = make_backend("mujoco")
    except Exception as exc:  # the backend is optional here: fall back, and say so
        log.warning("MuJoCo backend unavailable (%s); rendering the bricks-only scene instead", exc)
    else:
        try:
            backend.load(task, seed=task.scene_seed)
            frame = backend.render("top", rgb=True, depth=False)
            assert frame.rgb is not None
            Image.fromarray(frame.rgb).save(out)
            return "mujoco backend top camera"
        finally:
            backend.close()
    render_top_down(task).save(out)
    return "bricks-only scene, top-down"


def initial_observation_png(task: TaskSpec, cache_dir: Path | None = None) -> Path:
    """The initial observation as a PNG in the cache, keyed by the task's content (rendered on first use)."""
    folder = (cache_dir or cache_root()) / "observations"
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{task_content_hash(task)}.png"
    if not path.exists():
        tmp = folder / f".{uuid.uuid4().hex}.png"
        write_initial_observation(task, tmp)
        os.replace(tmp, path)  # readers see a whole image or none
    return path
