"""What the agent's prompt shows of the scene: the top camera's RGB, depth as an image ('rgbd'), and
for 'rgbd_3d' the structured brick descriptors of the skills' own perception (the paper's 3D setting).

Images are saved as artifacts in the episode directory; their names go into the prompt as markers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

import numpy as np

from jarvis_sim.records import SkillCallRecord
from skills.types import BrickDescriptor

if TYPE_CHECKING:
    from jarvis_sim.backends.base import Backend, CameraFrame
    from skills.context import SkillContext


class LiveScene(Protocol):
    """What taking a look needs: the simulator, the skills' context (camera, perception), the artifact folder.

    An assembly episode is one; so is a planning episode, which shows the scene but never moves it.
    """

    @property
    def backend(self) -> Backend: ...

    @property
    def ctx(self) -> SkillContext: ...

    @property
    def dir(self) -> Path: ...


@dataclass
class SceneView:
    """One look at the scene for a prompt: captioned images and, in the 3D setting, descriptors."""

    images: list[tuple[str, str]] = field(default_factory=list)  # (caption, artifact name)
    descriptors: list[BrickDescriptor] | None = None


def depth_image(depth: np.ndarray) -> np.ndarray:
    """Depth (m) as an 8-bit grey image a model can read: near is bright, far is dark, invalid black."""
    valid = np.isfinite(depth) & (depth > 0)
    out = np.zeros(depth.shape, dtype=np.uint8)
    if not valid.any():
        return out
    # Full range, not percentiles: a small brick on a large table is a tiny share of the pixels.
    near, far = float(depth[valid].min()), float(depth[valid].max())
    span = max(float(far - near), 1e-6)
    scaled = 1.0 - np.clip((depth - near) / span, 0.0, 1.0)
    # Keep 1..255 for valid pixels so "no depth" (0) stays distinguishable.
    out[valid] = (1 + np.round(254 * scaled[valid])).astype(np.uint8)
    return out


def save_image(episode: LiveScene, name: str, pixels: np.ndarray) -> str:
    """Write an artifact image into the episode directory; returns its name."""
    from PIL import Image

    Image.fromarray(pixels).save(episode.dir / name)
    return name


def capture(episode: LiveScene, kind: str, tag: str, rgb_name: str | None = None) -> SceneView:
    """Look at the scene as `kind` ('rgb', 'rgbd', 'rgbd_3d'); `rgb_name` reuses an RGB image just taken."""
    view = SceneView()
    need_depth = kind in ("rgbd", "rgbd_3d")
    frame: CameraFrame | None = None
    if rgb_name is None or need_depth:
        frame = episode.backend.render(episode.ctx.camera, rgb=rgb_name is None, depth=need_depth, segmentation=False)
    if rgb_name is None:
        assert frame is not None and frame.rgb is not None
        rgb_name = save_image(episode, f"view_{tag}_rgb.png", frame.rgb)
    view.images.append(("Top camera, colour:", rgb_name))
    if need_depth:
        assert frame is not None and frame.depth is not None
        name = save_image(episode, f"view_{tag}_depth.png", depth_image(frame.depth))
        view.images.append(("Top camera, depth (brighter is nearer to the camera):", name))
    if kind == "rgbd_3d":
        from skills.library.common import refresh_perception

        # The observe() skill's own perception, so the ids shown here are the ones pick() accepts.
        view.descriptors = refresh_perception(episode.ctx)
    return view


def captured_images(episode: LiveScene, calls: list[SkillCallRecord], limit: int = 2) -> list[tuple[str, str]]:
    """Images a program took with capture_images(), promised to the agent in its next prompt (last `limit`)."""
    from PIL import Image

    out: list[tuple[str, str]] = []
    for call in calls:
        if call.name != "capture_images" or not call.ok or not isinstance(call.result, dict):
            continue
        rgb, depth = call.result.get("rgb"), call.result.get("depth")
        if isinstance(rgb, str) and rgb and (episode.dir / rgb).is_file():
            out.append((f"Your capture_images() {rgb!r}, colour:", rgb))
        if isinstance(depth, str) and depth and (episode.dir / depth).is_file():
            # Stored as 16-bit millimetres (exact, for tools); models get the 8-bit rendering.
            mm = np.asarray(Image.open(episode.dir / depth), dtype=np.float32)
            name = save_image(episode, Path(depth).stem + "_view.png", depth_image(mm / 1000.0))
            out.append((f"Your capture_images() {depth!r}, depth (brighter is nearer):", name))
    return out[-2 * limit :]


def descriptor_table(descriptors: list[BrickDescriptor], limit: int = 60) -> str:
    """Perceived bricks as a compact text table (mm, degrees)."""
    if not descriptors:
        return "(no bricks detected)"
    rows = ["id | colour | size | height | x_mm | y_mm | top_z_mm | yaw_deg | in_structure | free_to_grasp | visible"]
    for d in descriptors[:limit]:
        rows.append(
            f"{d.id} | {d.color} | {d.size[0]}x{d.size[1]} | {d.height} | {d.x_mm:.1f} | {d.y_mm:.1f} | "
            f"{d.top_z_mm:.1f} | {d.yaw_deg:.0f} | {d.in_structure} | {d.free_to_grasp} | {d.visible_fraction:.2f}"
        )
    if len(descriptors) > limit:
        rows.append(f"({len(descriptors) - limit} more not shown)")
    return "\n".join(rows)


def camera_calibration(episode: LiveScene) -> str:
    """The top camera's pinhole intrinsics and pose (world from camera, OpenCV axes), in mm."""
    frame = episode.backend.render(episode.ctx.camera, rgb=False, depth=True, segmentation=False)
    h, w = frame.shape
    k = frame.intrinsics
    pose = np.array(frame.world_from_camera, dtype=float)
    pose[:3, 3] *= 1000.0
    rows = "\n".join("  [" + ", ".join(f"{v:.4f}" for v in row) + "]" for row in pose)
    return (
        f"- Top camera: {w}x{h} pixels, pinhole fx = {k[0, 0]:.2f}, fy = {k[1, 1]:.2f}, cx = {k[0, 2]:.2f}, "
        f"cy = {k[1, 2]:.2f} (pixels). Depth is the distance along the optical axis.\n"
        "  World from camera (4x4, translation in mm; camera axes x right, y down, z forward):\n"
        f"{rows}\n"
    )
