"""The end of an assembly episode, as pictures: what was built and what should have been, in one view,
and where each brick lies in each picture (its outline in pixels), so a viewer can colour it by its score.

The final state and the target are rendered as bricks-only scenes (the manual's renderer: no robot, no
physics) from the same oblique viewpoint, so the two pictures can be compared brick by brick. Outlines
come from the renderer's segmentation and work as well for a backend camera's frame.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import cv2
import numpy as np

from jarvis_sim.lego.world_state import WorldState
from jarvis_sim.manuals.framing import frame_points
from jarvis_sim.manuals.scene import BrickScene, SceneBrick, bricks_corners
from jarvis_sim.manuals.styles import get_style
from jarvis_sim.tasks.spec import TaskSpec

FINAL_VIEW_SIZE = (640, 480)
# A brick of the final state this close (m, in the plane) to the target's footprint is part of the picture:
# a brick put down beside the structure shows, one left in the staging area does not (the camera shows those).
NEAR_STRUCTURE_M = 0.06
OUTLINE_TOLERANCE_PX = 1.0  # polygon simplification: outlines stay within a pixel of the mask's edge
MIN_OUTLINE_AREA_PX = 6.0
STUD_SLICES = 16  # slivers of a brick peeking out behind another are not worth hovering over

Polygon = list[tuple[int, int]]
FINAL, TARGET = "final/", "target/"
FRAME_RECT = (0.04, 0.04, 0.96, 0.96)  # no callout column here: the structure fills the picture


@dataclass
class OutlinedImage:
    """One rendered picture and, per brick id, the outlines of its visible parts (pixels, x right, y down)."""

    rgb: np.ndarray
    outlines: dict[str, list[Polygon]]

    @property
    def size(self) -> tuple[int, int]:
        """(width, height) in pixels."""
        return int(self.rgb.shape[1]), int(self.rgb.shape[0])


def brick_outlines(segments: np.ndarray, names: Mapping[int, str], keep: set[str] | None = None) -> dict[str, list[Polygon]]:
    """Outlines of each named segment in a segmentation map (segment index per pixel, -1 background).

    `keep` limits the result to those names (a backend's map also names the table and the robot).
    """
    out: dict[str, list[Polygon]] = {}
    for index in np.unique(segments):
        name = names.get(int(index))
        if index < 0 or name is None or (keep is not None and name not in keep):
            continue
        mask = (segments == index).astype(np.uint8)
        contours, _ = cv2.findContours(mask, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        polygons = []
        for c in contours:
            if cv2.contourArea(c) < MIN_OUTLINE_AREA_PX:
                continue
            approx = cv2.approxPolyDP(c, OUTLINE_TOLERANCE_PX, True).reshape(-1, 2)
            polygons.append([(int(x), int(y)) for x, y in approx])
        if polygons:
            out[name] = polygons
    return out


def _target_bricks(task: TaskSpec) -> list[SceneBrick]:
    origin = task.workspace.lattice_origin
    return [SceneBrick.from_lattice(b, origin) for b in task.target_assembly]


def _near(brick: SceneBrick, lo: np.ndarray, hi: np.ndarray) -> bool:
    x, y, _ = brick.position
    return bool(lo[0] - NEAR_STRUCTURE_M <= x <= hi[0] + NEAR_STRUCTURE_M
                and lo[1] - NEAR_STRUCTURE_M <= y <= hi[1] + NEAR_STRUCTURE_M)


def render_final_and_target(task: TaskSpec, state: WorldState, size: tuple[int, int] = FINAL_VIEW_SIZE,
                            style: str = "shaded") -> tuple[OutlinedImage, OutlinedImage]:
    """(final state, target), rendered from one viewpoint that frames the target and what was built near it.

    Outlines are keyed by brick id: physical ids in the final picture, target ids in the target picture.
    """
    target = _target_bricks(task)
    corners = bricks_corners(target)
    lo, hi = corners.min(axis=0), corners.max(axis=0)
    final = [SceneBrick(b.id, b.part, b.color, b.position, b.quaternion) for b in state.bricks
             if all(np.isfinite(b.position))]
    shown = [b for b in final if _near(b, lo, hi)]
    view = frame_points(np.concatenate([corners, bricks_corners(shown)]) if shown else corners, size, FRAME_RECT)
    # One scene holding both sets (ids prefixed apart), shown in turn: one GL context, the costly part. No
    # baseplate: its 1,024 studs took OSMesa 0.5 s a picture (2.8 s in all, 0.5 s without); the table's grid,
    # aligned with the stud lattice, still marks where bricks stand.
    both = [SceneBrick(f"{FINAL}{b.id}", b.part, b.color, b.position, b.quaternion) for b in shown]
    both += [SceneBrick(f"{TARGET}{b.id}", b.part, b.color, b.position, b.quaternion) for b in target]
    pictures = []
    with BrickScene(both, get_style(style), size, view=view, baseplate_origin=None,
                    grid_origin=task.workspace.lattice_origin) as scene:
        # Read before the renderer is made. A manual page's multisampling and 48-sided studs cost OSMesa 1.7 s
        # for a 40-brick task (both pictures); none and 16 sides, 0.8 s, and the same picture to the eye.
        scene.model.vis.quality.offsamples = 0
        scene.model.vis.quality.numslices = STUD_SLICES
        for prefix in (FINAL, TARGET):
            ids = {b.id for b in both if b.id.startswith(prefix)}
            scene.show_only(ids)
            frame = scene.render(rgb=True, segments=True)
            assert frame.rgb is not None and frame.segments is not None
            names = {k: n.removeprefix(prefix) for k, n in enumerate(scene.segment_names) if n in ids}
            pictures.append(OutlinedImage(frame.rgb, brick_outlines(frame.segments, names)))
    return pictures[0], pictures[1]
