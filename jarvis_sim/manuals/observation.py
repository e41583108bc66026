"""A stand-in for the simulator's top-down camera: the task's initial scene (structure and loose bricks on
the table) rendered straight down with the manual's bricks-only scene, for when no backend is at hand."""

from __future__ import annotations

import numpy as np
from PIL import Image

from jarvis_sim.manuals.framing import top_down_view
from jarvis_sim.manuals.scene import BrickScene, SceneBrick, bricks_corners
from jarvis_sim.manuals.styles import get_style
from jarvis_sim.tasks.spec import TaskSpec


def initial_scene_bricks(task: TaskSpec) -> list[SceneBrick]:
    """The initial structure at its lattice poses plus every action brick lying at its start pose."""
    origin = task.workspace.lattice_origin
    bricks = [SceneBrick.from_lattice(b, origin) for b in task.initial]
    for a in task.action_bricks:
        yaw = a.start.yaw
        bricks.append(
            SceneBrick(a.id, a.target.part, a.target.color, (a.start.x, a.start.y, 0.0), (np.cos(yaw / 2), 0.0, 0.0, np.sin(yaw / 2)))
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
