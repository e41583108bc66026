"""A TaskSpec as the Isaac stage needs it: rigid bodies with prim paths, the table, the baseplate, the clutch
connections of the initial structure, and the camera rigs with their calibration. Pure data, no Isaac.

Layout is MuJoCo's (same table top z = 0, same brick poses, same camera placement and field of view), so that the
two backends show an agent the same workspace. Prim paths: `/World/Bricks/<id>` with the id made USD-safe and
made unique (`brick_prim_names`); the mapping back to brick ids is what segmentation and contact reports need.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

import numpy as np

from jarvis_sim.backends.camera_framing import camera_framing
from jarvis_sim.backends.isaac.config import IsaacConfig
from jarvis_sim.backends.isaac.kinematics import matrix_to_quat
from jarvis_sim.backends.mujoco.scene import BASEPLATE_PART, baseplate_cells
from jarvis_sim.lego import units as u
from jarvis_sim.lego.assembly import brick_pose_in_world, yaw_quaternion
from jarvis_sim.lego.catalog import part
from jarvis_sim.lego.colors import color
from jarvis_sim.tasks.spec import TaskSpec
from jarvis_sim.tasks.variation import loose_bricks

WORLD = "/World"
BRICKS = f"{WORLD}/Bricks"
ROBOT = f"{WORLD}/Franka"
TABLE = f"{WORLD}/Table"
BASEPLATE = f"{WORLD}/Baseplate"
TABLE_THICKNESS_M = 0.04

BrickKind = Literal["initial", "action", "distractor"]


@dataclass(frozen=True)
class BrickBody:
    """One brick as a rigid box body: identity, size, mass, colour and its initial pose (bottom-face centre)."""

    id: str
    prim_path: str
    kind: BrickKind
    part: str
    color_rgb: tuple[float, float, float]
    size_m: tuple[float, float, float]  # full extents along the part's x, y, z
    mass_kg: float
    position: tuple[float, float, float]
    quaternion: tuple[float, float, float, float]  # wxyz

    @property
    def centre(self) -> tuple[float, float, float]:
        """World position of the box centre (a USD Cube prim's origin), half a height above the bottom face."""
        x, y, z = self.position
        return (x, y, z + self.size_m[2] / 2)


@dataclass(frozen=True)
class StaticSlab:
    """A fixed box (table, baseplate): prim path, centre, full extents, colour."""

    prim_path: str
    centre: tuple[float, float, float]
    size_m: tuple[float, float, float]
    color_rgb: tuple[float, float, float]


@dataclass(frozen=True)
class CameraRig:
    """A pinhole camera: where it is (OpenCV axes: x right, y down, z forward) and how it images."""

    name: str
    world_from_camera: np.ndarray  # 4x4
    width: int
    height: int
    fovy_deg: float
    focal_length_mm: float

    @property
    def intrinsics(self) -> np.ndarray:
        """3x3 K with square pixels, principal point at the image centre (MuJoCo's convention)."""
        f = (self.height / 2) / math.tan(math.radians(self.fovy_deg) / 2)
        return np.array([[f, 0.0, (self.width - 1) / 2], [0.0, f, (self.height - 1) / 2], [0.0, 0.0, 1.0]])

    @property
    def apertures_mm(self) -> tuple[float, float]:
        """(horizontal, vertical) USD apertures giving this K at the focal length (fx = f_mm * W / h_aperture)."""
        fx = float(self.intrinsics[0, 0])
        return (self.focal_length_mm * self.width / fx, self.focal_length_mm * self.height / fx)

    @property
    def usd_pose(self) -> tuple[np.ndarray, np.ndarray]:
        """(position, wxyz quaternion) of the USD camera prim, which looks along its -z with +y up."""
        rot = self.world_from_camera[:3, :3] @ np.diag([1.0, -1.0, -1.0])
        return self.world_from_camera[:3, 3].copy(), matrix_to_quat(rot)


@dataclass(frozen=True)
class SceneDescription:
    """Everything the Isaac stage of one task holds, and the lookups the backend needs."""

    task_id: str
    bricks: tuple[BrickBody, ...]
    table: StaticSlab
    baseplate: StaticSlab | None
    initial_connections: tuple[tuple[str, str], ...]  # clutched pairs at start; "ground" for the baseplate
    cameras: tuple[CameraRig, ...]

    def brick_by_prim(self) -> dict[str, str]:
        """Prim path -> brick id (segmentation labels and contact reports name prims)."""
        return {b.prim_path: b.id for b in self.bricks}

    def brick(self, brick_id: str) -> BrickBody:
        """A brick by id; an unknown id is a KeyError naming it."""
        for b in self.bricks:
            if b.id == brick_id:
                return b
        raise KeyError(f"unknown brick {brick_id!r}")


def brick_prim_names(ids: list[str]) -> dict[str, str]:
    """Brick id -> a USD-safe, unique prim name (letters, digits and '_', not starting with a digit)."""
    out: dict[str, str] = {}
    used: set[str] = set()
    for brick_id in ids:
        name = re.sub(r"[^A-Za-z0-9_]", "_", brick_id) or "brick"
        if name[0].isdigit():
            name = f"b_{name}"
        candidate, k = name, 2
        while candidate in used:
            candidate, k = f"{name}_{k}", k + 1
        used.add(candidate)
        out[brick_id] = candidate
    return out


def _look_at(eye: np.ndarray, target: np.ndarray) -> np.ndarray:
    """4x4 OpenCV camera pose at eye looking at target with world z up in the image."""
    fwd = (target - eye) / np.linalg.norm(target - eye)
    right = np.cross(fwd, np.array([0.0, 0.0, 1.0]))
    right /= np.linalg.norm(right)
    down = np.cross(fwd, right)
    out = np.eye(4)
    out[:3, :3] = np.stack([right, down, fwd], axis=1)
    out[:3, 3] = eye
    return out


def camera_rigs(task: TaskSpec, config: IsaacConfig) -> tuple[CameraRig, ...]:
    """The top camera straight down over the region holding the build and the staging area (image up = world +x),
    and the oblique side camera, placed as the MuJoCo backend places them."""
    framing = camera_framing(task)
    cx, cy = framing.center
    top = np.eye(4)
    # OpenCV axes looking down with image up = world +x: x right = world -y, y down = world -x, z forward = -z.
    top[:3, :3] = np.array([[0.0, -1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, -1.0]])
    top[:3, 3] = (cx, cy, config.top_camera_height_m)
    w, h, f = config.image_width, config.image_height, config.focal_length_mm
    rigs = [CameraRig("top", top, w, h, config.top_camera_fovy_deg, f)]
    if config.side_camera:
        rigs.append(CameraRig("side", _look_at(framing.side_eye, framing.side_target), w, h, framing.side_fovy_deg, f))
    return tuple(rigs)


def describe_scene(task: TaskSpec, config: IsaacConfig) -> SceneDescription:
    """The stage of a task's scene (pass the seeded scene: jarvis_sim.tasks.variation.seeded_scene)."""
    origin = task.workspace.lattice_origin
    loose = loose_bricks(task)
    distractor_ids = {d.id for d in task.distractors}
    names = brick_prim_names([b.id for b in task.initial] + [t.id for t in loose])
    bodies: list[BrickBody] = []
    for b in task.initial:
        p = part(b.part)
        pos, quat = brick_pose_in_world(b, origin)
        bodies.append(BrickBody(b.id, f"{BRICKS}/{names[b.id]}", "initial", p.number, color(b.color).rgb_float,
                                p.size_m, p.mass_kg, pos, quat))
    for t in loose:
        p = part(t.part)
        kind: BrickKind = "distractor" if t.id in distractor_ids else "action"
        bodies.append(BrickBody(t.id, f"{BRICKS}/{names[t.id]}", kind, p.number, color(t.color).rgb_float, p.size_m,
                                p.mass_kg, (t.start.x, t.start.y, 0.0), yaw_quaternion(t.start.yaw)))
    (x0, y0), (x1, y1) = task.workspace.table_min, task.workspace.table_max
    table = StaticSlab(TABLE, ((x0 + x1) / 2, (y0 + y1) / 2, -TABLE_THICKNESS_M / 2),
                       (x1 - x0, y1 - y0, TABLE_THICKNESS_M), (0.55, 0.45, 0.35))
    baseplate = None
    if task.baseplate:
        bx0, by0, bx1, by1 = baseplate_cells(task)
        bp = part(BASEPLATE_PART)
        pitch = u.STUD_PITCH_M
        baseplate = StaticSlab(BASEPLATE, (origin[0] + (bx0 + bx1) / 2 * pitch, origin[1] + (by0 + by1) / 2 * pitch,
                                           origin[2] - bp.height_m / 2),
                               ((bx1 - bx0) * pitch, (by1 - by0) * pitch, bp.height_m), (0.1, 0.5, 0.1))
    pairs = list(task.initial_assembly.connections())
    if task.baseplate:  # level-0 bricks are clipped to the baseplate's studs; on a bare table they only rest
        pairs.extend((b.id, "ground") for b in task.initial if b.z == 0)
    return SceneDescription(task.id, tuple(bodies), table, baseplate, tuple(pairs), camera_rigs(task, config))
