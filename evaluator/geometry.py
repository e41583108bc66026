"""Target geometry of a task, computed once and reused for every episode scored against it.

Re-scoring a pool means scoring many episodes of the same few tasks; the supports (an occupancy-grid
query), world poses and symmetry periods of the target depend only on the task, so they are cached here
keyed by the task object.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from jarvis_sim.lego.assembly import LatticeBrick, brick_pose_in_world
from jarvis_sim.lego.catalog import PARTS
from jarvis_sim.tasks.spec import TaskSpec

TAU = 2.0 * math.pi


@dataclass(frozen=True)
class TargetPose:
    """World pose of a target brick: bottom-face centre (m), yaw (rad) and its symmetry period (rad)."""

    x: float
    y: float
    z: float
    yaw: float
    period: float


@dataclass(frozen=True)
class ActionTarget:
    """One required brick: identity, target pose, where it starts and what it stands on in the target."""

    id: str
    part: str
    color: int
    level: int
    pose: TargetPose
    start_xy: tuple[float, float]
    supports: tuple[str, ...]


@dataclass(frozen=True)
class TaskGeometry:
    """Everything about a task's target the scorer needs, in plain floats and arrays."""

    origin: tuple[float, float, float]
    table_min: tuple[float, float]
    table_max: tuple[float, float]
    actions: tuple[ActionTarget, ...]
    groups: dict[tuple[str, int], tuple[int, ...]]  # (part, colour) -> indices into actions
    targets: dict[str, TargetPose]  # every brick of the target assembly
    start_xy: dict[str, tuple[float, float]]  # action brick id -> start position on the table
    initial_ids: tuple[str, ...]
    initial_id_set: frozenset[str]
    initial_pose: np.ndarray  # (n, 3) world positions of the initial bricks
    initial_yaw: np.ndarray  # (n,)
    initial_period: np.ndarray  # (n,)


def symmetry_period(part_number: str) -> float:
    """Yaw period of a part in radians: pi/2 for square footprints, pi otherwise."""
    return TAU / PARTS[part_number].symmetry


def _target_pose(brick: LatticeBrick, origin: tuple[float, float, float]) -> TargetPose:
    (x, y, z), _ = brick_pose_in_world(brick, origin)
    return TargetPose(x, y, z, brick.yaw_rad, symmetry_period(brick.part))


def build_geometry(task: TaskSpec) -> TaskGeometry:
    """Compute a task's target geometry (use `task_geometry` for the cached version)."""
    ws = task.workspace
    origin = ws.lattice_origin
    target = task.target_assembly
    targets = {b.id: _target_pose(b, origin) for b in target.bricks}
    actions = tuple(
        ActionTarget(
            id=a.id,
            part=a.target.part,
            color=a.target.color,
            level=a.target.z,
            pose=targets[a.id],
            start_xy=(a.start.x, a.start.y),
            supports=tuple(target.supports(a.id)),
        )
        for a in task.action_bricks
    )
    groups: dict[tuple[str, int], list[int]] = {}
    for k, a in enumerate(actions):
        groups.setdefault((a.part, a.color), []).append(k)
    init = [targets[b.id] for b in task.initial]
    return TaskGeometry(
        origin=origin,
        table_min=ws.table_min,
        table_max=ws.table_max,
        actions=actions,
        groups={key: tuple(v) for key, v in groups.items()},
        targets=targets,
        start_xy={**{a.id: a.start_xy for a in actions}, **{d.id: (d.start.x, d.start.y) for d in task.distractors}},
        initial_ids=tuple(b.id for b in task.initial),
        initial_id_set=frozenset(b.id for b in task.initial),
        initial_pose=np.array([(p.x, p.y, p.z) for p in init], dtype=float).reshape(-1, 3),
        initial_yaw=np.array([p.yaw for p in init], dtype=float),
        initial_period=np.array([p.period for p in init], dtype=float),
    )


_CACHE: OrderedDict[int, tuple[TaskSpec, TaskGeometry]] = OrderedDict()
_CACHE_SIZE = 4096


def task_geometry(task: TaskSpec) -> TaskGeometry:
    """The task's target geometry, cached per task object (TaskSpec is frozen, so it cannot go stale)."""
    key = id(task)
    hit = _CACHE.get(key)
    if hit is not None and hit[0] is task:
        return hit[1]
    geo = build_geometry(task)
    _CACHE[key] = (task, geo)  # holding the task keeps its id from being reused while cached
    if len(_CACHE) > _CACHE_SIZE:
        _CACHE.popitem(last=False)
    return geo


def quat_yaw_tilt(q: tuple[float, float, float, float]) -> tuple[float, float]:
    """Yaw (rad, of the brick's x axis projected on the table) and tilt (rad, z axis from vertical)."""
    w, x, y, z = q
    n = w * w + x * x + y * y + z * z
    if n <= 0.0 or not math.isfinite(n):
        return (math.nan, math.nan)
    s = 2.0 / n
    r00 = 1.0 - s * (y * y + z * z)
    r10 = s * (x * y + w * z)
    r22 = 1.0 - s * (x * x + y * y)
    return (math.atan2(r10, r00), math.acos(max(-1.0, min(1.0, r22))))


def quats_yaw_tilt(q: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Vectorised quat_yaw_tilt over an (n, 4) array of (w, x, y, z)."""
    w, x, y, z = q[:, 0], q[:, 1], q[:, 2], q[:, 3]
    n = w * w + x * x + y * y + z * z
    with np.errstate(divide="ignore", invalid="ignore"):
        s = 2.0 / n
        yaw = np.arctan2(s * (x * y + w * z), 1.0 - s * (y * y + z * z))
        tilt = np.arccos(np.clip(1.0 - s * (x * x + y * y), -1.0, 1.0))
    bad = ~(n > 0.0) | ~np.isfinite(n)
    return np.where(bad, np.nan, yaw), np.where(bad, np.nan, tilt)


def wrap_signed(angle: float, period: float) -> float:
    """Angle reduced to [-period/2, period/2)."""
    return (angle + period / 2.0) % period - period / 2.0


def yaw_error(actual: float, target: float, period: float) -> float:
    """Absolute yaw difference modulo the symmetry period, in [0, period/2]."""
    return abs(wrap_signed(actual - target, period))
